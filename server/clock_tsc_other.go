//go:build !(linux && amd64)

package server

func rdtsc() uint64    { return 0 }
func tscTrusted() bool { return false }
