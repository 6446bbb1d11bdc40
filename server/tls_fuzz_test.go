package server

import (
	"crypto/tls"
	"net"
	"sync"
	"testing"

	"go.uber.org/zap"
)

var (
	fuzzTLSOnce sync.Once
	fuzzTLSSrv  *Embedded // its server and loop; each input gets a new connection
)

// FuzzTLSConnInput feeds arbitrary bytes, cut in two at a point the input
// chooses, to a new TLS connection of a server through the handler, then
// closes it: nothing may panic, and the connection's counters and buffers
// must be settled afterwards.
func FuzzTLSConnInput(f *testing.F) {
	f.Add([]byte("\x05GET / HTTP/1.1\r\n\r\n"))               // HTTP on the TLS port
	f.Add(append([]byte{0x10}, sslv2Hello...))                // SSL 2.0 hello
	f.Add([]byte("\x01\x16\x03\x03\x00\x05\xff\xff\xff\xff")) // handshake record of garbage
	f.Add([]byte("\x03\x15\x03\x03\x00\x02\x02\x28"))         // a fatal alert first
	f.Add(append([]byte{0x40}, fuzzClientHello(f)...))        // a real ClientHello, cut at 64
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzTLSOnce.Do(func() {
			e, _, err := NewEmbeddedTLS(Options{Logger: zap.NewNop()})
			if err != nil {
				t.Fatal(err)
			}
			fuzzTLSSrv = e
		})
		if len(data) == 0 {
			return
		}
		cut, data := int(data[0]), data[1:]
		s := fuzzTLSSrv.srv
		e := &Embedded{srv: s, ls: fuzzTLSSrv.ls}
		e.tc.laddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: s.opts.TLS.Port}
		cs, reject := s.h.onOpen(&e.tc, e.ls)
		if reject != nil {
			t.Fatalf("rejected: %q", reject)
		}
		e.cs = cs
		cut = min(cut, len(data))
		e.Feed(data[:cut])
		e.Feed(data[cut:])
		if !e.shut {
			s.h.onClose(cs)
		}
		if cs.pending != nil || cs.tls.job != nil {
			t.Fatalf("closed connection keeps pending %d bytes, job %v", len(cs.pending), cs.tls.job != nil)
		}
		if n := s.tls.stats.inFlight.Load(); n != 0 {
			t.Fatalf("tls_handshakes_in_flight = %d after close", n)
		}
		if n := s.tls.stats.conns.Load(); n != 1 { // the seed connection of NewEmbeddedTLS
			t.Fatalf("tls_connections = %d after close, want 1", n)
		}
	})
}

// fuzzClientHello is a Go client's first flight.
func fuzzClientHello(f *testing.F) []byte {
	a, b := net.Pipe()
	go func() { _ = tls.Client(a, &tls.Config{InsecureSkipVerify: true}).Handshake() }()
	buf := make([]byte, 16<<10)
	n, err := b.Read(buf)
	if err != nil {
		f.Fatal(err)
	}
	a.Close()
	b.Close()
	return buf[:n]
}
