package loadgen

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat.
// It is 100 on every Linux architecture Go supports.
const clockTicks = 100

// ProcCPU returns the CPU time (user + system) the process pid has used so
// far, read from /proc/<pid>/stat with 10 ms resolution.
func ProcCPU(pid int) (time.Duration, error) {
	user, sys, err := ProcTimes(pid)
	return user + sys, err
}

// ProcTimes returns the user and the system (kernel) CPU time the process
// pid has used so far: utime and stime of /proc/<pid>/stat, 10 ms
// resolution.
func ProcTimes(pid int) (user, sys time.Duration, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %v", ErrNoProc, err)
	}
	// The command name (field 2) is in parentheses and may hold spaces;
	// fields are counted after its closing parenthesis.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, ErrNoProc
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 { // f[0] is field 3 (state); utime, stime are 14, 15
		return 0, 0, ErrNoProc
	}
	ut, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	st, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, ErrNoProc
	}
	return time.Duration(ut) * time.Second / clockTicks, time.Duration(st) * time.Second / clockTicks, nil
}

// ProcMem returns the resident set size in KiB and the thread count of
// process pid, from /proc/<pid>/status.
func ProcMem(pid int) (rssKB int64, threads int, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %v", ErrNoProc, err)
	}
	seen := 0
	for line := range bytes.Lines(b) {
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		f := bytes.Fields(v)
		if len(f) == 0 {
			continue
		}
		switch string(k) {
		case "VmRSS":
			rssKB, err = strconv.ParseInt(string(f[0]), 10, 64)
			seen++
		case "Threads":
			threads, err = strconv.Atoi(string(f[0]))
			seen++
		}
		if err != nil {
			return 0, 0, fmt.Errorf("%w: %v", ErrNoProc, err)
		}
	}
	if seen != 2 {
		return 0, 0, ErrNoProc
	}
	return rssKB, threads, nil
}

// machineCPUs counts the processors in /proc/cpuinfo, whatever this
// process's affinity.
func machineCPUs() int {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if k, _, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "processor" {
			n++
		}
	}
	return n
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
