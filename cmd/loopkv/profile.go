package main

import (
	"os"
	"runtime/pprof"
	"strings"
)

// takeCPUProfileFlag removes the hidden --cpuprofile FILE (or
// --cpuprofile=FILE) from args and returns the file name, "" when absent.
// It is a measuring aid (benchmarks/README.md), not a redis.conf setting.
func takeCPUProfileFlag(args []string) ([]string, string) {
	out := args[:0:0]
	file := ""
	for i := 0; i < len(args); i++ {
		a := strings.TrimLeft(args[i], "-")
		switch {
		case strings.HasPrefix(args[i], "-") && a == "cpuprofile" && i+1 < len(args):
			file = args[i+1]
			i++
		case strings.HasPrefix(args[i], "-") && strings.HasPrefix(a, "cpuprofile="):
			file = strings.TrimPrefix(a, "cpuprofile=")
		default:
			out = append(out, args[i])
		}
	}
	return out, file
}

// startCPUProfile writes a CPU profile to file until the returned stop runs.
func startCPUProfile(file string) (stop func(), err error) {
	f, err := os.Create(file)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
