//go:build !linux

package loadgen

import (
	"runtime"
	"time"
)

// ProcCPU reports ErrNoProc: without /proc another process's CPU time is
// not read here, and the server figures are left unknown.
func ProcCPU(pid int) (time.Duration, error) { return 0, ErrNoProc }

// ProcTimes reports ErrNoProc, as ProcCPU does.
func ProcTimes(pid int) (user, sys time.Duration, err error) { return 0, 0, ErrNoProc }

// ProcMem reports ErrNoProc: without /proc another process's RSS and
// threads are not read here.
func ProcMem(pid int) (rssKB int64, threads int, err error) { return 0, 0, ErrNoProc }

// machineCPUs is the processor count the runtime sees.
func machineCPUs() int { return runtime.NumCPU() }

// cpuModel is unknown without /proc/cpuinfo.
func cpuModel() string { return "" }
