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

// trimThreads' period, and how many trims in a row may fail to lower the
// count before it backs off.
const (
	trimEvery     = time.Second
	trimEveryIdle = 8 * time.Second
	trimFutile    = 4
)

// trimThreads retires OS threads above budget until ctx ends. The runtime
// never lets an idle thread go, so a burst (a storm of handshakes, a
// collection that woke every P) would leave its threads behind for good.
// A goroutine that exits while locked to its thread takes the thread with
// it, and an idle thread takes over its P. When no thread was idle (the
// runtime starts one to replace it), the count does not drop: after
// trimFutile such trims in a row the check runs every trimEveryIdle, so a
// daemon that needs its threads does not churn them.
func trimThreads(ctx context.Context, budget int) {
	t := time.NewTimer(trimEvery)
	defer t.Stop()
	last, futile := 0, 0 // the count at the last trim (0: none); trims in a row that did not lower it
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n := threadCount()
		if n <= budget {
			last, futile = 0, 0
		} else {
			if last != 0 && n >= last {
				futile++
			} else {
				futile = 0
			}
			for range n - budget {
				go runtime.LockOSThread() // exits locked: its thread ends
			}
			last = n
		}
		every := trimEvery
		if futile >= trimFutile {
			every = trimEveryIdle
		}
		t.Reset(every)
	}
}
