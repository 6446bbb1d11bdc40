//go:build unix

package server

import (
	"os"
	"syscall"
)

// fileIno is the inode of fi's file: a file renamed into place has a new one.
func fileIno(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino) //nolint:unconvert // uint32 on some platforms
	}
	return 0
}
