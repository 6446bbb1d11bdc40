package server

import (
	"context"
	"net"
	"time"

	"go.uber.org/zap"
)

// The transport contract. A transport (transport_gnet.go; a netpoll twin
// will follow) owns sockets and event loops and drives one *handler through
// three calls, always on the loop that owns the connection:
//
//	cs, reject := h.onOpen(tc, ls)         // a new connection; reject != nil: write it and close
//	consumed, closeAfter := h.onData(cs, ls, in)
//	                                        // in = every buffered inbound byte; discard consumed,
//	                                        // keep the rest for the next call
//	closeAfter = h.flush(cs, ls) || closeAfter
//	                                        // one tc.Write of ls.out per callback; gnet
//	                                        // may run it at the end of the loop's batch
//	                                        // with ls.out holding that callback's replies
//	                                        // (transport_gnet_out.go)
//	h.onClose(cs)                           // the connection is gone
//
// A transport calls onData again only when new bytes arrive or after
// transportConn.Wake. Only the transport_*.go files import their library.

// tcpKeepAlive is the idle time before TCP keepalive probes start on each
// accepted connection (Redis's tcp-keepalive default); both transports set
// it per connection.
const tcpKeepAlive = 300 * time.Second

// connHandler is the contract's handler side, implemented by *handler
// (conn.go). Every method runs on the loop that owns cs and ls, except
// newLoop (any goroutine, once per loop) and tick (the ticker goroutine).
type connHandler interface {
	// newLoop returns the state of a loop the transport has just met.
	newLoop(l transportLoop) *loopState
	// onOpen admits a connection or returns the bytes to write before
	// closing it.
	onOpen(tc transportConn, ls *loopState) (cs *connState, reject []byte)
	// onData runs the complete commands at the front of in, leaving the
	// replies in ls.out; the transport discards consumed bytes.
	onData(cs *connState, ls *loopState, in []byte) (consumed int, closeAfter bool)
	// flush writes ls.out once and reports whether to close.
	flush(cs *connState, ls *loopState) (closeAfter bool)
	// onClose forgets a connection.
	onClose(cs *connState)
	// tick runs periodic work; n counts the ticks from 1.
	tick(n int)
}

var _ connHandler = (*handler)(nil)

// transport is one event-loop library serving a handler.
type transport interface {
	// serve listens on addr and runs the loops until stop; it calls ready
	// once accepting. log receives the library's own messages.
	serve(h connHandler, addr string, loops int, log *zap.Logger, ready func()) error
	// stop stops accepting, closes every connection after flushing what
	// it has queued, and makes serve return.
	stop(ctx context.Context) error
}

// transportConn is one connection as a transport exposes it to the handler.
// Methods are for the owning loop only unless they say otherwise.
type transportConn interface {
	// Write sends b now, queueing what the kernel refuses; b may be
	// reused as soon as Write returns.
	Write(b []byte) error
	// OutboundBuffered is the number of queued bytes the kernel refused.
	OutboundBuffered() int
	// Close closes the connection on its loop after its queued output is
	// flushed; safe from any goroutine.
	Close()
	// Wake makes the transport call onData again without new bytes; safe
	// from any goroutine.
	Wake()
	RemoteAddr() net.Addr
	LocalAddr() net.Addr
	Fd() int
}

// transportLoop is one event loop.
type transportLoop interface {
	// Execute runs fn on the loop; safe from any goroutine.
	Execute(fn func()) error
}
