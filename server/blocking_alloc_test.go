package server

import (
	"runtime"
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
// waiter on the pusher's loop or on another: not the pop, the queue, the
// reply or the hand-over to the waiter's loop (the list it creates and
// empties again is recycled by the store). An RPUSH of the same list alone,
// emptied by LPOP, is logged beside it.
func TestServingAWaiterDoesNotAllocate(t *testing.T) {
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
		push := diffEncode([]string{"RPUSH", "q", "job"})
		alone := pushAllocs(s, cl, push, scratch, func() {
			s.execute(cl, diffEncode([]string{"LPOP", "q"}), nil, allocNow, scratch) // empties q as the served pop does
		})
		served := pushAllocs(s, cl, push, scratch, func() {
			clear(home.wakes.local)
			home.wakes.local, home.wakes.away = home.wakes.local[:0], home.wakes.away[:0]
			wcs.cl.blocked = nil
			w.state.Store(waitBlocked)
			s.block(w, 0)
		})
		t.Logf("same loop %v: %v allocations per RPUSH serving a waiter, %v alone", sameLoop, served, alone)
		if served >= 0.5 {
			t.Errorf("same loop %v: RPUSH serving a waiter allocates %v times, want 0", sameLoop, served)
		}
		if got := string(w.reply); w.state.Load() != waitServed || got != "*2\r\n$1\r\nq\r\n$3\r\njob\r\n" {
			t.Errorf("same loop %v: waiter state %d, reply %q", sameLoop, w.state.Load(), got)
		}
		if sameLoop && len(home.wakes.local) != 1 || !sameLoop && len(home.wakes.away) != 1 {
			t.Errorf("same loop %v: %d waiters on the pusher's local list, %d on away", sameLoop,
				len(home.wakes.local), len(home.wakes.away))
		}
	}
}
