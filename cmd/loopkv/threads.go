package main

import (
	"context"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"time"
)

// procsForLoops returns the GOMAXPROCS the daemon runs with loops event
// loops when the runtime's is cur, and whether that raises it. A loop's
// goroutine waits in epoll_wait (kevent) as a blocking system call, which
// leaves its P in the syscall state. With fewer Ps than loops, a loop woken
// meanwhile finds no P and waits in the run queue until sysmon retakes the
// sleeping loop's P, 20 µs to 10 ms later: two loops pinned to one CPU
// delivered a cross-loop BLPOP reply 15–20 ms late (benchmarks/README.md,
// issue 13). So more loops than cur get a P each, and one more for the
// rest (the collector's workers, timers, TLS workers): with every P in a
// system call and none idle, sysmon takes each loop's P at its next tick
// and hands it off, starting a spinning thread to look for work, while a
// P left idle lets the loops keep theirs for 10 ms and take them back at
// once when their wait returns (retake in runtime/proc.go). The same
// binary on the same run measured this: GOMAXPROCS 3 for 2 loops kept its
// p99 at redis's and its worst delivery at 2.5–3.2 ms. With loops at most
// cur (one loop per CPU by default) each loop has a P already and
// GOMAXPROCS stays, as does the thread count. GOMAXPROCS set in the
// environment (a positive number, as the runtime reads it) is the user's
// and stays too.
func procsForLoops(loops, cur int) (int, bool) {
	if n, err := strconv.Atoi(os.Getenv("GOMAXPROCS")); err == nil && n > 0 {
		return cur, false
	}
	if loops <= cur {
		return cur, false
	}
	return loops + 1, true
}

// threadBudget is the OS threads the daemon needs with loops event loops
// and procs Ps (GOMAXPROCS: procsForLoops). It counts
// what the runtime can hold at once, and nothing that grows with
// connections, which never own a thread:
//   - loops threads blocked in epoll_wait or kevent, one per loop;
//   - procs threads running Go code, one per P: the loops when they run,
//     and while the loops wait (their Ps retaken) the TLS workers, timers,
//     the collector's mark workers on idle Ps, the thread trimmer;
//   - four the runtime keeps once os/signal is in use: sysmon, which
//     runs without a P; the template thread that starts new threads for
//     locked goroutines; the signal receiver, blocked in the runtime's
//     sleep without a P; and the locked thread that keeps a signal mask
//     (ensureSigM).
//
// Threads in other blocking system calls (a file write, an fsync) come
// back once the call returns; the trimmer then retires the spare. Of the
// procs threads running Go code only as many as there are CPUs run at
// once: with more loops than CPUs (loops + 1 Ps), a loop's P serves its
// loop, whose thread is counted already, and the spare P is the one more.
// So the budget counts min(procs, CPUs): loops + 6 on two CPUs, for any
// number of loops (issue 16).
func threadBudget(loops, procs int) int { return loops + min(procs, max(runtime.NumCPU(), 1)) + 4 }

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
