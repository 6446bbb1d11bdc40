package server

import (
	"sync"
)

// Replies held for appendfsync always. A batch's replies are released
// only once the fsync that covers its changes has run: when the loop
// flushes a connection whose replies depend on change seq (cmdCtx.propSeq,
// set by the commands and by a served pop's waiter) and the log's Durable
// is below it, the replies move into the connection's held buffer, the
// connection joins the hold table and its loop goes on with the others.
// While held, the connection runs nothing: its input stays in the
// transport's buffer (gnet's ring; netpoll's tail), and its pub/sub and
// unblocked output waits behind the held replies. The log's writer
// goroutine calls releaseHeld after each group fsync: it wakes, through
// the transport's Wake, each held connection the fsync covers; the
// connection's own loop then writes the held replies first and goes on
// with its input (onData). With everysec and no nothing is ever held.
type holdTable struct {
	mu    sync.Mutex
	conns []*connState // held connections, in no order
}

// heldPool recycles held-reply buffers of at most heldKeep bytes.
var heldPool sync.Pool

const heldKeep = 64 << 10

// holdReplies parks ls.out for cs if its replies wait for a change that
// is not durable yet; it reports whether it did. owning loop only.
func (s *Server) holdReplies(cs *connState, ls *loopState) bool {
	seq := cs.cl.ctx.propSeq
	cs.cl.ctx.propSeq = 0
	l := s.aof.log.Load()
	if !s.aof.always.Load() || l == nil || s.durable(l) >= seq || len(ls.out) == 0 {
		return false
	}
	if cs.held == nil {
		p, _ := heldPool.Get().(*[]byte)
		if p == nil {
			p = new([]byte)
		}
		cs.held = p
	}
	*cs.held = append(*cs.held, ls.out...)
	ls.out = ls.out[:0]
	ht := &s.aof.hold
	ht.mu.Lock()
	cs.heldSeq = seq
	if !cs.inHold {
		cs.inHold = true
		ht.conns = append(ht.conns, cs)
	}
	ht.mu.Unlock()
	if s.durable(l) >= seq { // the fsync ended before the connection was in the table
		cs.tc.Wake()
	}
	return true
}

// releaseHeld wakes the held connections whose changes are durable up to
// seq. The log's writer goroutine calls it after each group write; any
// goroutine may.
func (s *Server) releaseHeld(seq uint64) {
	ht := &s.aof.hold
	ht.mu.Lock()
	defer ht.mu.Unlock()
	kept := ht.conns[:0]
	for _, cs := range ht.conns {
		if cs.heldSeq <= seq {
			cs.inHold = false
			cs.tc.Wake()
			continue
		}
		kept = append(kept, cs)
	}
	clear(ht.conns[len(kept):])
	ht.conns = kept
}

// takeHeld appends cs's held replies to out once they may go, and reports
// false while they must still wait (the connection then runs nothing).
// owning loop only.
func (s *Server) takeHeld(cs *connState, out []byte) ([]byte, bool) {
	ht := &s.aof.hold
	ht.mu.Lock()
	waiting := cs.inHold
	seq := cs.heldSeq
	ht.mu.Unlock()
	if l := s.aof.log.Load(); waiting && l != nil && s.aof.always.Load() && s.durable(l) < seq {
		return out, false
	}
	s.unhold(cs)
	out = append(out, *cs.held...)
	freeHeld(cs)
	return out, true
}

// freeHeld returns cs's held buffer to the pool. owning loop only.
func freeHeld(cs *connState) {
	if p := cs.held; cap(*p) <= heldKeep {
		*p = (*p)[:0]
		heldPool.Put(p)
	}
	cs.held = nil
}

// unhold takes cs out of the hold table (its replies went, or it closed).
func (s *Server) unhold(cs *connState) {
	ht := &s.aof.hold
	ht.mu.Lock()
	defer ht.mu.Unlock()
	if !cs.inHold {
		return
	}
	cs.inHold = false
	for i, x := range ht.conns {
		if x == cs {
			last := len(ht.conns) - 1
			ht.conns[i] = ht.conns[last]
			ht.conns[last] = nil
			ht.conns = ht.conns[:last]
			return
		}
	}
}
