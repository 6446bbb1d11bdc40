//go:build !linux

package server

// yieldCPU is a no-op where the loops' CPU sharing is not tuned (see
// yield_linux.go).
func yieldCPU() {}
