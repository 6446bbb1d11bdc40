package aof

import (
	"os"

	"golang.org/x/sys/unix"
)

// fdatasync flushes a file's data and the metadata needed to read it back,
// as Redis's redis_fsync does on Linux. It holds the file open during the
// call, so a concurrent Close cannot hand its descriptor to another file.
func fdatasync(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			serr = unix.Fdatasync(int(fd))
			if serr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	return serr
}
