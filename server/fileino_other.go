//go:build !unix

package server

import "os"

// fileIno is 0: size and modification time tell a change.
func fileIno(os.FileInfo) uint64 { return 0 }
