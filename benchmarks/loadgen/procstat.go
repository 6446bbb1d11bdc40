package loadgen

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat.
// It is 100 on every Linux architecture Go supports.
const clockTicks = 100

// ProcCPU returns the CPU time (user + system) the process pid has used so
// far, read from /proc/<pid>/stat with 10 ms resolution.
func ProcCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrNoProc, err)
	}
	// The command name (field 2) is in parentheses and may hold spaces;
	// fields are counted after its closing parenthesis.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, ErrNoProc
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 { // f[0] is field 3 (state); utime, stime are 14, 15
		return 0, ErrNoProc
	}
	ut, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	st, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, ErrNoProc
	}
	return time.Duration(ut+st) * time.Second / clockTicks, nil
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

// selfCPU returns this process's CPU time (user + system).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuMeter measures the CPU a server process and this process use over an
// interval. With pid 0 only the client side is measured.
type cpuMeter struct {
	pid           int
	server, self0 time.Duration
	ok            bool
}

func startCPU(pid int) cpuMeter {
	m := cpuMeter{pid: pid, self0: selfCPU()}
	if pid > 0 {
		var err error
		m.server, err = ProcCPU(pid)
		m.ok = err == nil
	}
	return m
}

// stop returns the server's and this process's CPU time since start;
// server is -1 when it could not be measured.
func (m cpuMeter) stop() (server, client time.Duration) {
	client = selfCPU() - m.self0
	server = -1
	if m.ok {
		if s, err := ProcCPU(m.pid); err == nil {
			server = s - m.server
		}
	}
	return server, client
}

// RaiseFileLimit raises RLIMIT_NOFILE to at least n if the hard limit
// allows, and returns the resulting soft limit.
func RaiseFileLimit(n uint64) (uint64, error) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, err
	}
	if rl.Cur >= n {
		return rl.Cur, nil
	}
	want := rl
	want.Cur = min(n, rl.Max)
	if n > rl.Max {
		want.Max, want.Cur = n, n // succeeds when privileged
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want) == nil {
			return n, nil
		}
		want.Max, want.Cur = rl.Max, rl.Max
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want); err != nil {
		return rl.Cur, err
	}
	return want.Cur, nil
}
