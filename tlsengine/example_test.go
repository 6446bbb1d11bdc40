package tlsengine_test

import (
	"crypto/rand"

	"github.com/loopkv/loopkv/tlsengine"
)

// conn stands for a reactor connection (gnet.Conn): Peek returns the
// buffered inbound bytes (writable), Discard drops them, Write sends.
type conn interface {
	Peek(n int) ([]byte, error)
	Discard(n int) (int, error)
	Write(b []byte) (int, error)
	Close() error
}

// onTraffic is one reactor callback for a TLS connection: decrypt in place,
// handle the plaintext, answer, and write everything in one call.
func onTraffic(c conn, e *tlsengine.Engine, loopOut []byte, handle func(req []byte, out []byte) []byte) []byte {
	in, _ := c.Peek(-1)
	consumed, plain, err := e.Read(in, nil) // plaintext compacted at the front of in
	out := e.AppendOutput(loopOut[:0])      // handshake flight, tickets, KeyUpdate, alert
	if err == nil && len(plain) > 0 {
		var hdr int
		out, hdr = e.BeginRecord(out)
		out = handle(plain, out) // append at most e.MaxPlaintext() bytes of reply
		out, err = e.SealRecord(out, hdr)
	}
	for e.Status()&tlsengine.StatusWantSign != 0 {
		r := e.SignRequest() // or hand r to a worker and call SignDone from the loop later
		sig, serr := r.Key.Sign(rand.Reader, r.Digest, r.Opts)
		e.SignDone(sig, serr)
		out = e.AppendOutput(out)
	}
	st := e.Status()
	if st&tlsengine.StatusPeerClosed != 0 {
		e.CloseNotify()
		out = e.AppendOutput(out)
	}
	c.Write(out)
	c.Discard(consumed) // only after plain (which aliases in) is no longer needed
	if err != nil || st&(tlsengine.StatusFailed|tlsengine.StatusPeerClosed) != 0 {
		e.Release()
		c.Close()
	}
	return out
}

// Example shows the Engine stepped from a reactor callback.
func Example() {
	cert, err := tlsengine.ParseCertificatePEM([]byte("…"), []byte("…"))
	if err != nil {
		return
	}
	cfg := &tlsengine.Config{Certificates: []*tlsengine.Certificate{cert}, NextProtos: []string{"redis"}}
	e := tlsengine.NewEngine(cfg) // in OnOpen, one per connection
	_ = onTraffic                 // in OnTraffic: onTraffic(c, e, loopOut, execute)
	_ = e
}
