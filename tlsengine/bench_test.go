package tlsengine

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"testing"
	"time"
)

// captureClientHello returns the first flight (the ClientHello records) a
// crypto/tls client with ccfg sends.
func captureClientHello(t testing.TB, ccfg *tls.Config) []byte {
	t.Helper()
	c, s := net.Pipe()
	go func() {
		tls.Client(c, ccfg).Handshake()
		c.Close()
	}()
	var flight []byte
	buf := make([]byte, 4096)
	for {
		n, err := s.Read(buf)
		flight = append(flight, buf[:n]...)
		if err != nil {
			t.Fatal(err)
		}
		if len(flight) >= 5 && len(flight) >= 5+int(binary.BigEndian.Uint16(flight[3:5])) {
			l := 5 + int(binary.BigEndian.Uint16(flight[3:5]))
			s.Close()
			return flight[:l]
		}
	}
}

// ticketClientHello gives ccfg a session cache, runs one handshake against
// an Engine with scfg so that ccfg holds its ticket, and returns the
// ClientHello record ccfg then sends, offering that ticket.
func ticketClientHello(t testing.TB, scfg *Config, ccfg *tls.Config) []byte {
	t.Helper()
	ccfg.ClientSessionCache = tls.NewLRUClientSessionCache(2)
	if r, serr, _ := runInterop(t, scfg, ccfg, feedWhole, echoMsgs[:1]); r.err != nil || serr != nil {
		t.Fatal(r.err, serr)
	}
	return captureClientHello(t, ccfg)
}

// replayConn feeds a fixed flight to a crypto/tls server and discards its
// output; reads fail after the flight so the handshake stops where ours does.
type replayConn struct {
	net.Conn
	r *bytes.Reader
}

func (c *replayConn) Read(b []byte) (int, error)  { return c.r.Read(b) }
func (c *replayConn) Write(b []byte) (int, error) { return len(b), nil }
func (c *replayConn) Close() error                { return nil }
func (c *replayConn) SetDeadline(time.Time) error { return nil }

// BenchmarkHandshake measures the server side of a handshake up to its
// complete flight (key exchange, key schedule, signature, Finished) by
// replaying a recorded crypto/tls ClientHello, next to crypto/tls doing the
// same work. The client's Finished check (one HMAC) is not included.
func BenchmarkHandshake(b *testing.B) {
	p := loadPKI(b)
	keys, _ := NewTicketKeys(rand.Reader)
	now := time.Now()
	cases := []struct {
		name  string
		group tls.CurveID
		ours  CurveID
	}{
		{"X25519", tls.X25519, X25519},
		{"X25519MLKEM768", tls.X25519MLKEM768, X25519MLKEM768},
	}
	for _, c := range cases {
		cc := clientConfig(p)
		cc.CurvePreferences = []tls.CurveID{c.group}
		ch := captureClientHello(b, cc)
		cfg := &Config{Certificates: []*Certificate{p.p256}}
		b.Run("TLSv13/"+c.name+"/ECDSA-P256/tlsengine", func(b *testing.B) {
			benchEngineFlight(b, cfg, ch, false)
		})
		b.Run("TLSv13/"+c.name+"/ECDSA-P256/crypto-tls", func(b *testing.B) {
			scfg := &tls.Config{Certificates: []tls.Certificate{p.goServer}, MinVersion: tls.VersionTLS13}
			benchGoFlight(b, scfg, ch)
		})
	}
	// A whole handshake, the client Finished included: the handshake state
	// is recycled, as on a server. Ed25519 signs deterministically, so with
	// a fixed Rand the flight repeats and one recorded client Finished fits
	// every iteration.
	rnd := &fixedReader{}
	full := &Config{Certificates: []*Certificate{p.ed}, Rand: rnd}
	fcc := clientConfig(p)
	fcc.ServerName, fcc.CurvePreferences = "ed.test", []tls.CurveID{tls.X25519}
	fch, fin := recordClientFlights(b, full, fcc)
	b.Run("TLSv13/X25519/Ed25519/full/tlsengine", func(b *testing.B) {
		benchEngineHandshake(b, full, rnd, fch, fin)
	})
	// Resumed: a ClientHello carrying a ticket issued by the engine.
	cfg := &Config{Certificates: []*Certificate{p.p256}, TicketKeys: keys, Now: func() time.Time { return now }}
	cc := clientConfig(p)
	cc.CurvePreferences = []tls.CurveID{tls.X25519}
	ch := ticketClientHello(b, cfg, cc)
	b.Run("TLSv13/X25519/resumed/tlsengine", func(b *testing.B) {
		benchEngineFlight(b, cfg, ch, true)
	})
}

func benchEngineFlight(b *testing.B, cfg *Config, ch []byte, wantResume bool) {
	b.ReportAllocs()
	in := make([]byte, len(ch))
	var out []byte
	for b.Loop() {
		copy(in, ch)
		e := NewEngine(cfg)
		if _, _, err := e.Read(in, nil); err != nil {
			b.Fatal(err)
		}
		out = e.AppendOutput(out[:0])
		if e.ConnectionState().DidResume != wantResume || len(out) == 0 {
			b.Fatalf("resumed %v, %d bytes out", e.ConnectionState().DidResume, len(out))
		}
	}
}

// recordClientFlights runs one handshake of a crypto/tls client with ccfg
// against an Engine with cfg, whose Rand must be a fixedReader (reset
// here), and returns the client's two flights: its ClientHello and what it
// sends after the server flight (change_cipher_spec and Finished).
func recordClientFlights(t testing.TB, cfg *Config, ccfg *tls.Config) (ch, fin []byte) {
	t.Helper()
	cfg.Rand.(*fixedReader).n = 0
	c, s := net.Pipe()
	defer s.Close()
	done := make(chan error, 1)
	go func() {
		err := tls.Client(c, ccfg).Handshake()
		c.Close()
		done <- err
	}()
	ch = captureRecord(t, s)
	e := NewEngine(cfg)
	if _, _, err := e.Read(bytes.Clone(ch), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(e.AppendOutput(nil)); err != nil {
		t.Fatal(err)
	}
	fin, _ = io.ReadAll(s) // until the client closes after its Finished
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return ch, fin
}

// captureRecord reads one whole TLS record from r.
func captureRecord(t testing.TB, r io.Reader) []byte {
	t.Helper()
	hdr := make([]byte, 5)
	if _, err := io.ReadFull(r, hdr); err != nil {
		t.Fatal(err)
	}
	rec := make([]byte, 5+int(binary.BigEndian.Uint16(hdr[3:5])))
	copy(rec, hdr)
	if _, err := io.ReadFull(r, rec[5:]); err != nil {
		t.Fatal(err)
	}
	return rec
}

// benchEngineHandshake replays the recorded client flights ch and fin
// against a new Engine each iteration, draining its output after each, and
// releases it as a server does at close.
func benchEngineHandshake(b *testing.B, cfg *Config, rnd *fixedReader, ch, fin []byte) {
	b.ReportAllocs()
	in := make([]byte, max(len(ch), len(fin)))
	var out []byte
	for b.Loop() {
		rnd.n = 0
		e := NewEngine(cfg)
		if _, _, err := e.Read(in[:copy(in, ch)], nil); err != nil {
			b.Fatal(err)
		}
		out = e.AppendOutput(out[:0])
		if _, _, err := e.Read(in[:copy(in, fin)], nil); err != nil {
			b.Fatal(err)
		}
		out = e.AppendOutput(out[:0])
		if !e.ConnectionState().HandshakeComplete || e.hs != nil {
			b.Fatalf("handshake complete %v, state kept %v", e.ConnectionState().HandshakeComplete, e.hs != nil)
		}
		e.Release()
	}
}

func benchGoFlight(b *testing.B, cfg *tls.Config, ch []byte) {
	b.ReportAllocs()
	for b.Loop() {
		c := tls.Server(&replayConn{r: bytes.NewReader(ch)}, cfg)
		if err := c.Handshake(); err != io.EOF && err != io.ErrUnexpectedEOF && err == nil {
			b.Fatal(err)
		}
	}
}

// newEstablishedPair returns an Engine with application keys installed in
// both directions from the same secret, so what it seals it can open.
func newEstablishedPair(b testing.TB, suite uint16) *Engine {
	s := cipherSuiteByID(suite)
	secret := bytes.Repeat([]byte{0x42}, s.hash.Size())
	e := NewEngine(&Config{})
	e.hs, e.done = nil, true
	if err := e.out.setTrafficSecret(s, secret); err != nil {
		b.Fatal(err)
	}
	if err := e.in.setTrafficSecret(s, secret); err != nil {
		b.Fatal(err)
	}
	return e
}

var recordSizes = []int{64, 1024, 16384}

// BenchmarkSealRecord seals one application data record in place.
func BenchmarkSealRecord(b *testing.B) {
	for _, suite := range defaultCipherSuites {
		for _, n := range recordSizes {
			b.Run(fmt.Sprintf("%s/%d", tls.CipherSuiteName(suite), n), func(b *testing.B) {
				e := newEstablishedPair(b, suite)
				benchSealRecord(b, e, n)
			})
		}
	}
}

// BenchmarkReadRecord opens one application data record in place through
// Read (deframe, decrypt, strip the content type). The copy that restores
// the ciphertext each iteration is included.
func BenchmarkReadRecord(b *testing.B) {
	for _, suite := range defaultCipherSuites {
		for _, n := range recordSizes {
			b.Run(fmt.Sprintf("%s/%d", tls.CipherSuiteName(suite), n), func(b *testing.B) {
				e := newEstablishedPair(b, suite)
				out, hdr := e.BeginRecord(nil)
				out = append(out, bytes.Repeat([]byte{'a'}, n)...)
				rec, _ := e.SealRecord(out, hdr)
				benchReadRecord(b, e, rec, n)
			})
		}
	}
}

// benchSealRecord times sealing one n-byte application data record in place
// with the established Engine e.
func benchSealRecord(b *testing.B, e *Engine, n int) {
	buf := make([]byte, 0, n+64)
	pt := bytes.Repeat([]byte{'a'}, n)
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		out, hdr := e.BeginRecord(buf[:0])
		out = append(out, pt...)
		if _, err := e.SealRecord(out, hdr); err != nil {
			b.Fatal(err)
		}
	}
}

// benchReadRecord times e.Read of the sealed record rec carrying n bytes of
// plaintext, restoring the ciphertext and the read sequence number each
// iteration (the copy is included).
func benchReadRecord(b *testing.B, e *Engine, rec []byte, n int) {
	in := make([]byte, len(rec))
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		copy(in, rec)
		e.in.seq = 0
		c, p, err := e.Read(in, nil)
		if err != nil || c != len(rec) || len(p) != n {
			b.Fatal(c, len(p), err)
		}
	}
}

// BenchmarkBareAEAD is the floor for the record benchmarks: cipher.AEAD
// Seal in place with no record handling.
func BenchmarkBareAEAD(b *testing.B) {
	for _, suite := range defaultCipherSuites {
		for _, n := range recordSizes {
			b.Run(fmt.Sprintf("%s/%d", tls.CipherSuiteName(suite), n), func(b *testing.B) {
				e := newEstablishedPair(b, suite)
				buf := make([]byte, n+1, n+64)
				var nonce [12]byte
				var hdr [5]byte
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					e.out.aead.Seal(buf[:0], nonce[:], buf[:n+1], hdr[:])
				}
			})
		}
	}
}

// sinkConn passes bytes to its net.Conn until discard is set, then drops writes.
type sinkConn struct {
	net.Conn
	discard bool
}

func (c *sinkConn) Write(b []byte) (int, error) {
	if c.discard {
		return len(b), nil
	}
	return c.Conn.Write(b)
}

// BenchmarkSealRecordCryptoTLS is crypto/tls's server doing the work of
// BenchmarkSealRecord: tls.Conn.Write of one record to a sink.
func BenchmarkSealRecordCryptoTLS(b *testing.B) {
	p := loadPKI(b)
	for _, n := range recordSizes {
		b.Run(fmt.Sprintf("TLS_AES_128_GCM_SHA256/%d", n), func(b *testing.B) {
			cc, sc := net.Pipe()
			sink := &sinkConn{Conn: sc}
			srv := tls.Server(sink, &tls.Config{Certificates: []tls.Certificate{p.goServer}, MinVersion: tls.VersionTLS13})
			done := make(chan error, 1)
			go func() {
				c := tls.Client(cc, clientConfig(p))
				err := c.Handshake()
				if err == nil {
					_, err = c.Read(make([]byte, 1)) // drain the tickets until the sink starts
				}
				done <- err
			}()
			if err := srv.Handshake(); err != nil {
				b.Fatal(err)
			}
			srv.Write([]byte{1})
			<-done
			sink.discard = true
			pt := bytes.Repeat([]byte{'a'}, n)
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := srv.Write(pt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
