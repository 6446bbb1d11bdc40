package server

import (
	"sync"
	"sync/atomic"

	"go.uber.org/zap"
)

// outbox is output other goroutines leave for a connection: pub/sub
// messages, invalidations and MONITOR lines, posted by any loop. Only the connection's
// own loop writes to the connection, so a producer appends to the outbox
// and wakes the connection (transportConn.Wake); the loop takes the outbox
// at its next onData (deliverPending) and writes it, sealed in a TLS
// record when the connection is TLS, together with a blocked client's
// reply. An idle connection's outbox holds no buffer: the loop takes it and
// the buffer goes back to a pool shared by all connections.
type outbox struct {
	mu     sync.Mutex
	buf    []byte
	box    *[]byte // the pool's handle buf came with, put back with it
	softAt int64   // ms the pending output first passed the soft limit; 0 under it
	cut    bool    // over the limit: the connection is being closed
	ready  atomic.Bool
}

// outboxPool holds emptied outbox buffers of at most outboxKeep bytes.
var outboxPool sync.Pool

const outboxKeep = 64 << 10

// outboxLimit is a client-output-buffer-limit class: a hard limit, and a
// soft one that may be exceeded for at most softSecs.
type outboxLimit struct {
	hard, soft, softSecs int64
}

// post appends data to cs's outbox and wakes cs when the
// outbox was empty. It reports false, and closes cs, when the pending
// output (the outbox and the unsent bytes of the transport) passes lim.
// any goroutine.
func (s *Server) post(cs *connState, lim outboxLimit, now int64, data []byte) bool {
	ob := &cs.outbox
	ob.mu.Lock()
	if ob.cut {
		ob.mu.Unlock()
		return false
	}
	if ob.buf == nil {
		if p, _ := outboxPool.Get().(*[]byte); p != nil {
			ob.buf, ob.box = (*p)[:0], p
		}
	}
	ob.buf = append(ob.buf, data...)
	pending := int64(len(ob.buf)) + cs.shared.omem.Load()
	over := lim.hard > 0 && pending > lim.hard
	if lim.soft > 0 && pending > lim.soft {
		if ob.softAt == 0 {
			ob.softAt = now
		} else if now-ob.softAt > lim.softSecs*1000 {
			over = true
		}
	} else {
		ob.softAt = 0
	}
	if over {
		ob.cut, ob.buf, ob.box = true, nil, nil
	}
	wake := !over && !ob.ready.Swap(true)
	ob.mu.Unlock()
	if over {
		s.log.Warn("client scheduled to be closed for overcoming of output buffer limits",
			zap.Uint64("conn", cs.cl.id), zap.Int64("omem", pending))
		if !cs.shared.killed.Swap(true) {
			cs.tc.Close()
		}
		return false
	}
	if wake {
		cs.tc.Wake()
	}
	return true
}

// take appends the outbox to out and empties it. owning loop only.
func (ob *outbox) take(out []byte) []byte {
	ob.mu.Lock()
	ob.ready.Store(false) // output posted after this wakes the loop again
	out = append(out, ob.buf...)
	if b := ob.buf; cap(b) > 0 && cap(b) <= outboxKeep {
		if ob.box == nil {
			ob.box = new([]byte) // a buffer append made: its handle, once
		}
		*ob.box = b[:0]
		outboxPool.Put(ob.box)
	}
	ob.buf, ob.box = nil, nil
	ob.mu.Unlock()
	return out
}

// deliverPending writes what waited for the connection while it was not
// running: a blocked client's reply once its wait has ended, then the
// outbox; sealed in one TLS record sequence when the connection is TLS.
// owning loop only.
//
// While another loop writes a served waiter's reply to the socket
// (waitServing, direct.go) nothing is taken: that loop's wake follows. A
// blocked gnet connection is disarmed before its outbox is taken, so no
// serving loop's write overtakes what it holds; the outbox waits when a
// serving loop's short write left a reply's rest to go first.
func (h *handler) deliverPending(cs *connState, ls *loopState, out []byte) []byte {
	unblocked := false
	if w := cs.cl.blocked; w != nil {
		switch w.state.Load() {
		case waitServing:
			return out
		case waitBlocked:
			if cs.direct != nil && cs.outbox.ready.Load() && !cs.direct.disarm() {
				return out
			}
		default:
			unblocked = true
		}
	}
	if !unblocked && !cs.outbox.ready.Load() {
		return out
	}
	hdr, start := 0, 0
	if cs.tls != nil {
		out, hdr = cs.tls.eng.BeginRecord(out)
		start = len(out)
	}
	if unblocked {
		out, _ = cs.cl.takeUnblocked(out)
	}
	if cs.outbox.ready.Load() {
		out = cs.outbox.take(out)
	}
	if cs.tls != nil {
		out = h.sealReplies(cs, ls, out, hdr, start)
	}
	// Output is activity, as in Redis (writeToClient sets lastinteraction):
	// a subscriber that receives messages is not idle, and its TLS keys stay
	// built (sweepTLS) instead of being shed and rebuilt between messages.
	cs.noteActive(coarseMs.Load())
	return out
}

// pubsubLimit is client-output-buffer-limit pubsub as set.
func (c *liveConfig) pubsubLimit() outboxLimit {
	return outboxLimit{c.pubsubHard.Load(), c.pubsubSoft.Load(), c.pubsubSoftSecs.Load()}
}
