package tlsengine

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"net"
	"slices"
	"testing"

	"golang.org/x/crypto/cryptobyte"
)

// Behaviours the BoGo run (CONFORMANCE.md) found, each checked here against
// a crypto/tls client.

// An empty ClientCAs pool sends no certificate_authorities extension: its
// list may not be empty (RFC 8446, Section 4.2.4), and crypto/tls refuses
// the CertificateRequest as malformed. The chain then fails verification
// against the empty pool with unknown_ca. (BoGo: ClientAuth-Server-TLS13-TLS-Async.)
func TestBoGoEmptyClientCAPool(t *testing.T) {
	p := loadPKI(t)
	for _, async := range []bool{false, true} {
		cfg := &Config{Certificates: []*Certificate{p.p256}, ClientAuth: RequireClientCert, ClientCAs: x509.NewCertPool(), AsyncVerify: async}
		cc := clientConfig(p)
		c := p.client
		cc.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &c, nil }
		r, serr, e := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1])
		wantClientAuth(t, "empty pool", r, serr, e, AlertUnknownCA, false)
	}
}

// recordCounter is a net.Conn that counts the records it reads, by type.
type recordCounter struct {
	net.Conn
	buf    []byte
	counts map[byte]int
	first  []byte // the body of the first handshake record (TLS 1.2: the ServerHello)
}

func (c *recordCounter) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.buf = append(c.buf, p[:n]...)
	for len(c.buf) >= 5 {
		l := 5 + (int(c.buf[3])<<8 | int(c.buf[4]))
		if len(c.buf) < l {
			break
		}
		c.counts[c.buf[0]]++
		if c.buf[0] == recordTypeHandshake && c.first == nil {
			c.first = bytes.Clone(c.buf[5:l])
		}
		c.buf = c.buf[l:]
	}
	return n, err
}

// serverHelloExtensions lists the extension types of the ServerHello at the
// start of b (a TLS 1.2 handshake record body).
func serverHelloExtensions(t *testing.T, b []byte) []uint16 {
	t.Helper()
	s := cryptobyte.String(b)
	var typ uint8
	var body, sid, exts cryptobyte.String
	if !s.ReadUint8(&typ) || typ != typeServerHello || !s.ReadUint24LengthPrefixed(&body) ||
		!body.Skip(2+32) || !body.ReadUint8LengthPrefixed(&sid) || !body.Skip(2+1) || !body.ReadUint16LengthPrefixed(&exts) {
		t.Fatalf("not a ServerHello: %x", b)
	}
	var types []uint16
	for !exts.Empty() {
		var et uint16
		var data cryptobyte.String
		if !exts.ReadUint16(&et) || !exts.ReadUint16LengthPrefixed(&data) {
			t.Fatalf("bad ServerHello extensions: %x", b)
		}
		types = append(types, et)
	}
	return types
}

// A TLS 1.2 ServerHello acknowledges the client's server_name with an empty
// extension on a full handshake, and not on resumption (RFC 6066, Section 3).
// (BoGo: ServerNameExtensionServer-TLS-TLS12.)
func TestBoGoServerNameAckTLS12(t *testing.T) {
	p := loadPKI(t)
	tk, err := NewTicketKeys(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Certificates: []*Certificate{p.p256}, TicketKeys: tk, MinVersion: VersionTLS12}
	cc := clientConfig(p)
	cc.MinVersion, cc.MaxVersion = tls.VersionTLS12, tls.VersionTLS12
	cc.ClientSessionCache = tls.NewLRUClientSessionCache(1)
	for i, want := range []bool{true, false} {
		cl, sc := tcpPair(t)
		rc := &recordCounter{Conn: cl, counts: map[byte]int{}}
		res := make(chan clientResult, 1)
		go echoClient(rc, cc, echoMsgs[:1], res)
		d := &driver{t: t, e: NewEngine(cfg), conn: sc}
		serr := d.run()
		sc.Close()
		r := <-res
		if !wantOK(t, "handshake", r, serr) {
			return
		}
		if r.state.DidResume != (i == 1) {
			t.Fatalf("connection %d: resumed %v", i, r.state.DidResume)
		}
		if got := slices.Contains(serverHelloExtensions(t, rc.first), extensionServerName); got != want {
			t.Errorf("connection %d (resumed %v): server_name ack %v, want %v", i, r.state.DidResume, got, want)
		}
	}
}
