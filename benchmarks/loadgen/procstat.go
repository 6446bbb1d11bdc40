package loadgen

import (
	"syscall"
	"time"
)

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
	// Rlimit's fields are uint64 on Linux and darwin, int64 on FreeBSD
	// (where RLIM_INFINITY is -1, which becomes the largest uint64).
	curr, hard := uint64(rl.Cur), uint64(rl.Max)
	if curr >= n {
		return curr, nil
	}
	want := rl
	if n > hard {
		setRlim(&want.Max, n) // succeeds when privileged
		setRlim(&want.Cur, n)
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want) == nil {
			return n, nil
		}
		want.Max = rl.Max
	}
	setRlim(&want.Cur, min(n, hard))
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want); err != nil {
		return curr, err
	}
	return uint64(want.Cur), nil
}

// setRlim stores v in an Rlimit field of either signedness.
func setRlim[T int64 | uint64](f *T, v uint64) { *f = T(v) }
