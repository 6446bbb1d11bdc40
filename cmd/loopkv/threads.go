package main

import (
	"context"
	"runtime"
	"runtime/metrics"
	"time"
)

// threadBudget is the OS threads the daemon needs with loops event loops:
// one per loop, blocked in epoll_wait or kevent; one per P
// (GOMAXPROCS) to run everything else (TLS workers, timers, the
// collector); and four the runtime keeps once os/signal is in use:
// sysmon, the signal receiver, the thread that holds the signal mask and
// the template thread that starts new threads. With two CPUs it is
// loops + 6.
func threadBudget(loops int) int { return loops + runtime.GOMAXPROCS(0) + 4 }

// threadCount is the number of OS threads the Go runtime has made and not
// yet retired.
func threadCount() int {
	s := []metrics.Sample{{Name: "/sched/threads/total:threads"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int(s[0].Value.Uint64())
}

// Bounds of trimThreads' period.
const (
	trimEvery    = time.Second
	trimEveryMax = time.Minute
)

// trimThreads retires OS threads above budget until ctx ends. The runtime
// never lets an idle thread go, so a burst (a storm of handshakes, a
// collection that woke every P) would leave its threads behind for good.
// A goroutine that exits while locked to its thread takes the thread with
// it, and an idle thread takes over its P. When no thread was idle (the
// runtime starts one to replace it), the count does not drop: the period
// then doubles up to trimEveryMax, so a daemon that needs its threads does
// not churn them.
func trimThreads(ctx context.Context, budget int) {
	every := trimEvery
	t := time.NewTimer(every)
	defer t.Stop()
	last := 0 // the count at the last trim; 0 when the last check trimmed nothing
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n := threadCount()
		switch {
		case n <= budget:
			every, last = trimEvery, 0
		default:
			if last != 0 && n >= last {
				every = min(2*every, trimEveryMax)
			} else {
				every = trimEvery
			}
			for range n - budget {
				go runtime.LockOSThread() // exits locked: its thread ends
			}
			last = n
		}
		t.Reset(every)
	}
}
