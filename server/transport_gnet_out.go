package server

// A gnet loop writes the replies of one batch of callbacks together, at its
// end, as Redis writes its clients' replies before it next waits for events
// (beforeSleep's handleClientsWithPendingWrites) instead of after each
// read. The kernel time per reply is the same, but a client with many
// connections (a pooled client, a benchmark) is woken once for all of them:
// a reply written while the client is running costs no wake-up, and one
// written to a client that went to sleep after the previous reply costs a
// wake-up and, across CPUs, an interrupt, which the writer's kernel time
// pays. With 50 connections at pipeline 16, writing after each read woke
// the client for most writes (0.06 wake-ups per MULTI/EXEC of 10 SETs,
// redis 0.001) and tripled the server's kernel time per transaction
// (benchmarks/README.md, MULTI/EXEC).
//
// gnet calls no handler at the end of a batch, so the first deferred
// reply queues a flush on the loop (Execute: its eventfd, once per batch),
// which runs after the callbacks of the batch the eventfd ends. A loop that
// finds one connection per flush, over and over (one client at a time),
// writes at once for a while: deferring buys nothing there and costs the
// eventfd.

import (
	"sync"
	"sync/atomic"

	"github.com/panjf2000/gnet/v2"
	"github.com/panjf2000/gnet/v2/pkg/netpoll"
)

const (
	// gnetHoldMax is the largest reply a loop defers; a larger one is
	// written at once (after what is deferred), as before.
	gnetHoldMax = 16 << 10
	// gnetHeldMax bounds what a loop defers at once (its buffer, made at
	// the first deferred reply): past it, what is deferred is written
	// before the callback's own replies.
	gnetHeldMax = 128 << 10
	// gnetKeep is the deferred-reply buffer a loop makes, and keeps while
	// it flushes: a larger one (up to gnetHeldMax, after a burst of
	// handshakes or large replies) is dropped by trim once the flushes of
	// gnetTrimTicks have used less than a quarter of it.
	gnetKeep = 16 << 10
	// After gnetLoneFlushes flushes in a row that found one connection,
	// the loop writes the next gnetLoneInline replies at once.
	gnetLoneFlushes = 4
	gnetLoneInline  = 256
)

// gnetOut is one gnet loop's deferred replies. owning loop only.
type gnetOut struct {
	t       *gnetTransport
	ls      *loopState
	buf     []byte          // the deferred replies, back to back
	segs    []gnetSeg       // in the order they were made
	run     func()          // the queued flush
	armed   bool            // a flush is queued on the loop
	busy    bool            // flush is writing
	lone    int             // flushes in a row that found one connection
	inline  int             // replies left to write at once
	peak    int             // the most a flush wrote since the last trim
	poller  *netpoll.Poller // the loop's, for wakes without a closure; nil: gnet's Wake
	bell    gnetBell        // rings onBell; hasBell false: run is queued with Execute
	hasBell bool
	// wakes: connections other goroutines woke (gnetConn.Wake), newest
	// first, each once; the first pushed onto an empty stack rings the
	// bell. bellMu (read) covers a foreign ring, so that none writes to
	// the descriptor after closeBells closed it (bellShut).
	wakes    atomic.Pointer[gnetConn]
	bellMu   sync.RWMutex
	bellShut bool
	// hasBuf: buf is not nil; the ticker then queues trim
	hasBuf atomic.Bool
}

// gnetSeg is one callback's deferred replies: buf[start:end] for g.
type gnetSeg struct {
	g          *gnetConn
	cs         *connState
	start, end int
}

func newGnetOut(t *gnetTransport, ls *loopState) *gnetOut {
	o := &gnetOut{t: t, ls: ls}
	if l, ok := ls.loop.(gnetLoop); ok {
		o.poller = l.p
	}
	o.run = func() {
		o.armed = false
		n := len(o.segs)
		if n == 0 {
			return
		}
		o.flush()
		if n > 1 {
			o.lone = 0
		} else if o.lone++; o.lone >= gnetLoneFlushes {
			o.lone, o.inline = 0, gnetLoneInline
		}
	}
	o.bell, o.hasBell = openBell(o.poller, o.onBell)
	return o
}

// hold defers the replies of cs's callback (ls.out), or reports that
// they must be written now: by the handler's flush, after what the loop
// deferred (flushFor). The deferred flush does what the callback's would
// have, so hold refuses replies that wait for an AOF fsync (the loop's
// ctx.propSeq, which the next callback reuses: holdReplies) or precede a
// TLS alert's linger.
func (o *gnetOut) hold(g *gnetConn, cs *connState) bool {
	ls := o.ls
	n := len(ls.out)
	if n == 0 || n > gnetHoldMax || len(o.buf)+n > gnetHeldMax ||
		(cs.tls != nil && cs.tls.linger != lingerNone) {
		return false
	}
	if ls.ctx.propSeq != 0 {
		if ls.srv.aof.always.Load() {
			return false
		}
		ls.ctx.propSeq = 0 // as holdReplies without appendfsync always
	}
	if o.inline > 0 {
		o.inline--
		return false
	}
	if !o.armed {
		if o.hasBell {
			if !o.bell.ring() {
				return false
			}
		} else if ls.loop.Execute(o.run) != nil {
			return false // the loop is stopping
		}
		o.armed = true
	}
	if o.buf == nil {
		o.buf = make([]byte, 0, gnetKeep)
		o.hasBuf.Store(true)
	}
	start := len(o.buf)
	o.buf = append(o.buf, ls.out...)
	o.segs = append(o.segs, gnetSeg{g: g, cs: cs, start: start, end: len(o.buf)})
	g.held++
	ls.out = ls.out[:0]
	return true
}

// flushFor writes what the loop deferred before g's callback writes its
// replies: if some of it is g's (order), or if it left no room. The
// callback's own replies (ls.out) stay.
func (o *gnetOut) flushFor(g *gnetConn) {
	if g.held > 0 || len(o.buf)+len(o.ls.out) > gnetHeldMax {
		o.flush()
	}
}

// flush writes every deferred reply through the handler's flush, as each
// callback would have at its end, and closes the connections it says to.
func (o *gnetOut) flush() {
	if o.busy || len(o.segs) == 0 {
		return
	}
	o.busy = true
	ls := o.ls
	keep, seq := ls.out, ls.ctx.propSeq
	ls.ctx.propSeq = 0 // deferred replies never wait for an fsync (hold)
	for i := range o.segs {
		sg := o.segs[i]
		o.segs[i] = gnetSeg{}
		sg.g.held--
		if sg.g.c.Context() != sg.cs {
			continue // closed since
		}
		ls.out = o.buf[sg.start:sg.end:sg.end]
		if o.t.h.flush(sg.cs, ls) {
			_ = sg.g.c.Close()
		} else if sg.g.held == 0 {
			sg.g.armDirect(sg.cs)
		}
	}
	o.peak = max(o.peak, len(o.buf))
	o.segs, o.buf = o.segs[:0], o.buf[:0]
	ls.out, ls.ctx.propSeq = keep, seq
	o.busy = false
}

// trim drops the buffer of a loop that flushed nothing since the last
// trim, and one that grew past gnetKeep when the flushes since used less
// than a quarter of it, so that an idle loop keeps no buffer (the next
// deferred reply makes a small one). owning loop only (the ticker queues
// it while hasBuf is set).
func (o *gnetOut) trim() {
	if !o.busy && len(o.segs) == 0 && (o.peak == 0 || cap(o.buf) > gnetKeep && o.peak < cap(o.buf)/4) {
		o.buf = nil
		o.hasBuf.Store(false)
	}
	o.peak = 0
}

// gnetConn adapts gnet.Conn to transportConn.
type gnetConn struct {
	c      gnet.Conn
	out    *gnetOut
	held   int32     // segments of this connection in out.segs
	direct directOut // its writes' lock, and serving loops' direct replies (direct.go)
	// on out.wakes: the next connection, and whether this one is there
	wnext   *gnetConn
	wqueued atomic.Bool
}
