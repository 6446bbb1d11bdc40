package server

import (
	"net"
)

// Embedded is one client connection served in process, without sockets:
// Feed runs exactly what a loop runs when bytes arrive, minus the socket
// write. For benchmarks and tests; not safe for concurrent use.
type Embedded struct {
	srv  *Server
	ls   *loopState
	cs   *connState
	tc   embeddedConn
	buf  []byte // unconsumed input, as gnet's ring keeps it; nil when empty
	acc  []byte // replies of a Feed that needed several batches
	shut bool
}

// NewEmbedded returns a server with opts and one connected client.
func NewEmbedded(opts Options) *Embedded {
	s := New(opts)
	e := &Embedded{srv: s}
	e.ls = s.newLoopState(nil)
	cs, reject := s.h.onOpen(&e.tc, e.ls)
	if reject != nil {
		panic("server: embedded client rejected: " + string(reject))
	}
	e.cs = cs
	return e
}

// Feed gives in to the client as if it had arrived on its socket and
// returns the replies. The result is valid until the next Feed. Bytes of
// an incomplete command are kept for the next Feed. After a reply that
// closes the connection (QUIT, a protocol error, a limit) Feed returns
// what was written and Closed reports true.
func (e *Embedded) Feed(in []byte) []byte {
	if e.shut {
		return nil
	}
	data := in
	if len(e.buf) > 0 {
		e.buf = append(e.buf, in...)
		data = e.buf
	}
	h := &e.srv.h
	e.acc = e.acc[:0]
	for {
		n, closeAfter := h.onData(e.cs, e.ls, data)
		data = data[n:]
		if closeAfter {
			e.shut = true
			h.onClose(e.cs)
		}
		if !e.cs.needWake || e.shut {
			break
		}
		// A batch stopped at batchOutLimit: keep its replies and go on,
		// as the loop does after a Wake.
		e.cs.needWake = false
		e.acc = append(e.acc, e.ls.out...)
		e.ls.out = e.ls.out[:0]
	}
	switch {
	case len(data) == 0:
		e.buf = e.buf[:0]
	case len(e.buf) > 0:
		e.buf = append(e.buf[:0], data...)
	default:
		e.buf = append([]byte(nil), data...)
	}
	if len(e.acc) > 0 {
		e.acc = append(e.acc, e.ls.out...)
		return e.acc
	}
	return e.ls.out
}

// Closed reports whether the connection was closed by the server.
func (e *Embedded) Closed() bool { return e.shut }

// Server returns the embedded server.
func (e *Embedded) Server() *Server { return e.srv }

// embeddedConn is the transportConn of an Embedded client.
type embeddedConn struct{}

func (*embeddedConn) Write([]byte) error    { return nil }
func (*embeddedConn) OutboundBuffered() int { return 0 }
func (*embeddedConn) Close()                {}
func (*embeddedConn) Wake()                 {}
func (*embeddedConn) RemoteAddr() net.Addr  { return embeddedAddr }
func (*embeddedConn) LocalAddr() net.Addr   { return embeddedAddr }
func (*embeddedConn) Fd() int               { return -1 }

var embeddedAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}
