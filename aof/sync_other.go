//go:build !linux

package aof

import "os"

// fdatasync flushes a file with fsync where fdatasync is missing.
func fdatasync(f *os.File) error { return f.Sync() }
