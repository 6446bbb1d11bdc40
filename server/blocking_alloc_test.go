package server

import (
	"runtime"
	"syscall"
	"testing"

	"github.com/loopkv/loopkv/store"
)

// pushAllocs is the mean number of allocations of execute running in
// (one command) on cl, over 100 runs, each after setup (not counted).
func pushAllocs(s *Server, cl *client, in, scratch []byte, setup func()) float64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	out := make([]byte, 0, 4096)
	var ms runtime.MemStats
	var total uint64
	const runs = 100
	for range runs {
		setup()
		runtime.ReadMemStats(&ms)
		before := ms.Mallocs
		s.execute(cl, in, out[:0], allocNow, scratch)
		runtime.ReadMemStats(&ms)
		total += ms.Mallocs - before
	}
	return float64(total) / runs
}

// An RPUSH that a blocked BLPOP takes at once allocates nothing, the
// waiter on the pusher's loop or on another, its reply written by the
// pusher's loop to its socket (direct.go: here one end of a socket pair)
// or left to its loop: not the pop, the queue, the reply, the write or
// the hand-over to the waiter's loop (the list it creates and empties
// again is recycled by the store). An RPUSH of the same list alone,
// emptied by LPOP, is logged beside it.
func TestServingAWaiterDoesNotAllocate(t *testing.T) {
	for _, direct := range []bool{false, true} {
		servingAllocs(t, direct)
	}
}

func servingAllocs(t *testing.T, direct bool) {
	for _, sameLoop := range []bool{true, false} {
		s, cl, scratch := newAllocServer(t, nil)
		home, away := s.newLoopState(nil), s.newLoopState(nil)
		home.wakes.drain, away.wakes.drain = func() {}, func() {}
		cl.conn = &connState{ls: home}
		wls := home
		if !sameLoop {
			wls = away
		}
		wcs := &connState{ls: wls}
		wcs.cl.conn = wcs
		w := &waiter{conn: wcs, keys: [][]byte{[]byte("q")}, pop: popListKey, end: store.ListHead,
			timeout: nullArrayReply(2), reply: make([]byte, 0, 64)}
		var peer int
		if direct {
			fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { syscall.Close(fds[0]); syscall.Close(fds[1]) })
			wcs.direct, wcs.fd, peer = &directOut{}, int32(fds[0]), fds[1]
		}
		reply := w.reply
		push := diffEncode([]string{"RPUSH", "q", "job"})
		alone := pushAllocs(s, cl, push, scratch, func() {
			s.execute(cl, diffEncode([]string{"LPOP", "q"}), nil, allocNow, scratch) // empties q as the served pop does
		})
		served := pushAllocs(s, cl, push, scratch, func() {
			clear(home.wakes.local)
			home.wakes.local, home.wakes.away = home.wakes.local[:0], home.wakes.away[:0]
			wcs.cl.blocked = nil
			w.state.Store(waitBlocked)
			w.reply = reply[:0]
			s.block(w, 0)
			if direct {
				wcs.direct.ownArmed = nil
				wcs.direct.arm(w, 0)
			}
		})
		t.Logf("same loop %v, direct %v: %v allocations per RPUSH serving a waiter, %v alone", sameLoop, direct, served, alone)
		if served >= 0.5 {
			t.Errorf("same loop %v, direct %v: RPUSH serving a waiter allocates %v times, want 0", sameLoop, direct, served)
		}
		want, got := "*2\r\n$1\r\nq\r\n$3\r\njob\r\n", string(w.reply)
		if direct {
			if len(got) != 0 {
				t.Errorf("same loop %v: %q of the reply left after the direct write", sameLoop, got)
			}
			buf := make([]byte, 64<<10) // every run's reply
			n, _ := syscall.Read(peer, buf)
			got = string(buf[:n])
			if n > len(want) {
				got = got[len(got)-len(want):] // the last run's
			}
		}
		if w.state.Load() != waitServed || got != want {
			t.Errorf("same loop %v, direct %v: waiter state %d, reply %q", sameLoop, direct, w.state.Load(), got)
		}
		if sameLoop && len(home.wakes.local) != 1 || !sameLoop && len(home.wakes.away) != 1 {
			t.Errorf("same loop %v: %d waiters on the pusher's local list, %d on away", sameLoop,
				len(home.wakes.local), len(home.wakes.away))
		}
	}
}
