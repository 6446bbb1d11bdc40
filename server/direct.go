package server

import (
	"sync"
	"sync/atomic"
	"syscall"
)

// Direct replies to served waiters (gnet, plaintext). The loop that
// serves a waiter (serveKey) writes the reply to the waiter's socket
// itself, at once, as Redis's one thread does, instead of leaving it to the
// waiter's own loop, whose wake-up (an eventfd, then a thread switch on a
// shared CPU) would be on the reply's path. The waiter's loop still resumes
// the connection afterwards (the commands it pipelined behind the blocking
// one), off that path.
//
// A gnet connection is not safe for concurrent use, so every write the
// server makes to one holds its directOut's mu (gnetConn.Write), and the
// serving loop writes with write(2) on the descriptor, never through gnet.
// It may only when the connection is armed for the waiter: its owning loop
// arms it (arm) once the waiter has blocked and every byte the loop had
// for the connection is in the socket, gnet's outbound buffer included.
// gnet touches that buffer only on the server's writes, which disarm, and
// on EPOLLOUT, armed only while the buffer holds something; so armed means
// the socket has nothing queued before the reply. The owning loop disarms
// (disarm) before it takes anything else for the connection (the outbox:
// pushes to a blocked RESP3 client), and the serving loop writes only
// when the outbox is empty, so a push posted before the serving write is
// not overtaken by it. gnet calls OnClose before it closes the descriptor;
// OnClose marks the connection closed under mu (shut), so the serving loop
// never writes to a descriptor number reused by another connection.
//
// The waiter is in waitServing meanwhile: its loop neither takes its reply
// nor writes anything else to the connection until the serving loop has
// stored waitServed (deliverPending). A short write leaves the rest of the
// reply in w.reply, which the owning loop writes first, as any reply; a
// push the owning loop took before it could see waitServing waits behind
// it (partial). A failed write (EAGAIN, EPIPE) leaves the whole reply to
// the owning loop. TLS connections, whose records only their own loop
// seals, and the netpoll engine deliver through their loop as before.
type directOut struct {
	mu       sync.Mutex
	armed    *waiter // guarded by mu: the waiter whose reply may be written here
	ownArmed *waiter // owning loop only: what it last armed, to skip arming again
	partial  bool    // guarded by mu: a short serving write; its rest goes first
	closed   bool    // guarded by mu: OnClose ran, the descriptor is going
	inWrite  bool    // owning loop only: it holds mu in a transport write (OnClose from inside it)
}

// directWrites turns the direct path off when false (tests of the path
// through the waiter's loop).
var directWrites atomic.Bool

func init() { directWrites.Store(true) }

// arm lets a serving loop write w's reply directly, unless the transport
// still holds pending bytes of output for the connection (only the owning
// loop changes that count). owning loop only.
func (d *directOut) arm(w *waiter, pending int) {
	if d.ownArmed == w || pending > 0 {
		return
	}
	d.mu.Lock()
	if !d.closed && !d.partial {
		d.armed, d.ownArmed = w, w
	}
	d.mu.Unlock()
}

// disarm stops serving loops from writing directly before the owning loop
// takes other output for the connection. It reports false when a serving
// loop's short write left a reply's rest, which must go first: the output
// then waits for the waiter's delivery. owning loop only.
func (d *directOut) disarm() bool {
	d.mu.Lock()
	d.armed, d.ownArmed = nil, nil
	ok := !d.partial
	d.mu.Unlock()
	return ok
}

// lock takes mu for one transport write of the owning loop and disarms;
// it reports false when the loop holds mu already (a write from inside
// another one's close). owning loop only.
func (d *directOut) lock() bool {
	if d.inWrite {
		return false
	}
	d.mu.Lock()
	d.armed, d.ownArmed, d.partial = nil, nil, false
	d.inWrite = true
	return true
}

func (d *directOut) unlock() {
	d.inWrite = false
	d.mu.Unlock()
}

// shut marks the connection closed: no serving loop writes to it after.
// owning loop only, before the descriptor is closed.
func (d *directOut) shut() {
	if d.inWrite {
		d.armed, d.closed = nil, true
		return
	}
	d.mu.Lock()
	d.armed, d.closed = nil, true
	d.mu.Unlock()
}

// write writes w's reply to the socket of its connection cs when cs is
// armed for w and nothing waits in its outbox, and drops what it wrote
// from w.reply. It reports whether the whole reply went out, and whether
// only its front did. The caller holds w in waitServing. any goroutine.
func (d *directOut) write(w *waiter, cs *connState) (sent, cut bool) {
	d.mu.Lock()
	if d.armed != w || d.closed || cs.outbox.ready.Load() {
		d.mu.Unlock()
		return false, false
	}
	d.armed = nil
	n, err := syscall.Write(int(cs.fd), w.reply)
	if err != nil || n <= 0 {
		d.mu.Unlock()
		return false, false // the owning loop writes it all, or closes
	}
	d.partial = n < len(w.reply)
	d.mu.Unlock()
	w.reply = w.reply[n:]
	return len(w.reply) == 0, len(w.reply) > 0
}
