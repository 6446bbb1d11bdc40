package tlsengine

import (
	"bytes"
	"crypto"
	"crypto/tls"
	"errors"
	"io"
	"reflect"
	"slices"
	"testing"
)

// TestRecycledHandshakeStartsClean checks what the handshake pool hands
// back: a recycled serverHandshake holds nothing of its last handshake but
// the storage of its buffers, a reset transcript hash and its HMACs' hash
// states, reset and free.
func TestRecycledHandshakeStartsClean(t *testing.T) {
	p := loadPKI(t)
	cfg := &Config{Certificates: []*Certificate{p.p256}, NextProtos: []string{"redis"}}
	cc := clientConfig(p)
	cc.NextProtos = []string{"redis"}
	if r, serr, _ := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1]); r.err != nil || serr != nil && !errors.Is(serr, io.EOF) {
		t.Fatal(r.err, serr)
	}
	for range 20 { // the pool may drop what it was given (it does at random under -race)
		hs := newHandshake()
		hs.buf, hs.out = append(hs.buf, 1, 2, 3), append(hs.out, 4, 5)
		hs.transcript.begin(crypto.SHA384)
		hs.transcript.write([]byte("message"))
		hs.sawCH, hs.resumed, hs.psk, hs.group = true, true, []byte("secret"), X25519
		hs.state = established{}
		d := hs.digestsFor(crypto.SHA256)()
		d.Write([]byte("state of an HMAC"))
		hs.recycle()
		got := newHandshake()
		if got != hs {
			continue
		}
		if len(got.buf) != 0 || len(got.out) != 0 || cap(got.buf) == 0 || cap(got.out) == 0 {
			t.Fatalf("buffers: len %d/%d cap %d/%d, want empty with their storage", len(got.buf), len(got.out), cap(got.buf), cap(got.out))
		}
		v := reflect.ValueOf(got).Elem()
		for i := range v.NumField() {
			switch f := v.Type().Field(i).Name; f {
			case "buf", "out", "transcript", "newDigest":
			case "digests":
				if len(got.digests.lent) != 0 || !slices.Contains(got.digests.free, d) {
					t.Fatalf("digests: %d lent, %d free; want none lent, the one lent free again", len(got.digests.lent), len(got.digests.free))
				}
				for _, f := range got.digests.free {
					if sum := f.Sum(nil); !bytes.Equal(sum, emptyHash(crypto.SHA256)) {
						t.Fatalf("a reclaimed hash state sums to %x, want the empty hash", sum)
					}
				}
			case "state":
				if got.state != (expectClientHello{}) {
					t.Fatalf("state %T, want expectClientHello", got.state)
				}
			default:
				if !v.Field(i).IsZero() {
					t.Fatalf("field %s is not zero after recycling", f)
				}
			}
		}
		if got.transcript.h != nil || got.transcript.spareOf != crypto.SHA384 {
			t.Fatalf("transcript: h %v, spare of %v; want only a spare SHA-384", got.transcript.h, got.transcript.spareOf)
		}
		got.transcript.begin(crypto.SHA384)
		if sum := got.transcript.sum(nil); !bytes.Equal(sum, emptyHash(crypto.SHA384)) {
			t.Fatalf("reused transcript hash starts at %x, want the empty hash", sum)
		}
		return
	}
	t.Skip("the pool never returned the recycled state")
}

// TestHandshakesAfterRecycling runs full handshakes in a row that differ in
// suite hash, ALPN and SNI on the recycled handshake state, each against a
// crypto/tls client that echoes data: none inherits the last one's choices.
func TestHandshakesAfterRecycling(t *testing.T) {
	p := loadPKI(t)
	for i := range 6 {
		cfg := &Config{Certificates: []*Certificate{p.p256}}
		cc := clientConfig(p)
		suite := uint16(tls.TLS_AES_128_GCM_SHA256)
		if i%2 == 1 {
			suite = tls.TLS_AES_256_GCM_SHA384
			cfg.NextProtos, cc.NextProtos = []string{"redis"}, []string{"redis"}
			cc.ServerName = "a.wild.test"
		}
		cfg.CipherSuites = []uint16{suite}
		r, serr, e := runInterop(t, cfg, cc, feedRecord, echoMsgs)
		if r.err != nil || serr != nil && !errors.Is(serr, io.EOF) {
			t.Fatalf("#%d: client %v, server %v", i, r.err, serr)
		}
		st := e.ConnectionState()
		if r.state.CipherSuite != suite || st.CipherSuite != suite {
			t.Errorf("#%d: suite %x/%x, want %x", i, r.state.CipherSuite, st.CipherSuite, suite)
		}
		if want := cc.ServerName; st.ServerName != want {
			t.Errorf("#%d: server name %q, want %q", i, st.ServerName, want)
		}
		if want := cfg.NextProtos; (len(want) == 0) != (st.NegotiatedProtocol == "") || r.state.NegotiatedProtocol != st.NegotiatedProtocol {
			t.Errorf("#%d: ALPN %q/%q, want %v", i, st.NegotiatedProtocol, r.state.NegotiatedProtocol, want)
		}
	}
}
