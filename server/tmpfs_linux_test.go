package server

import (
	"syscall"
	"testing"
)

// mountTmpfs mounts a tmpfs with the given options on dir for the rest of
// the test, or skips the test when it cannot (not root).
func mountTmpfs(t *testing.T, dir, opts string) {
	t.Helper()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, opts); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, 0) })
}
