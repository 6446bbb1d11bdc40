//go:build !linux

package server

import "testing"

// mountTmpfs skips the test: only Linux tests mount a tmpfs.
func mountTmpfs(t *testing.T, dir, opts string) {
	t.Helper()
	t.Skip("tmpfs mounts are Linux-only")
}
