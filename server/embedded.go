package server

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"errors"
	"math/big"
	"net"
	"strings"
	"time"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/loopkv/loopkv/tlsengine"
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
	return newEmbedded(opts, nil)
}

func newEmbedded(opts Options, laddr net.Addr) *Embedded {
	s := New(opts)
	e := &Embedded{srv: s}
	e.tc.laddr = laddr
	e.ls = s.newLoopState(nil)
	cs, reject := s.h.onOpen(&e.tc, e.ls)
	if reject != nil {
		panic("server: embedded client rejected: " + string(reject))
	}
	e.cs = cs
	return e
}

// Feed gives in to the client as if it had arrived on its socket and
// returns the replies. A TLS client decrypts in place: in is modified. The result is valid until the next Feed. Bytes of
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
	e.ls.out = e.ls.out[:0] // the previous result is no longer valid
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
type embeddedConn struct {
	laddr net.Addr // nil: embeddedAddr; the TLS port for NewEmbeddedTLS
}

func (*embeddedConn) Write([]byte) error    { return nil }
func (*embeddedConn) OutboundBuffered() int { return 0 }
func (*embeddedConn) Close()                {}
func (*embeddedConn) Wake()                 {}
func (*embeddedConn) RemoteAddr() net.Addr  { return embeddedAddr }
func (*embeddedConn) Fd() int               { return -1 }
func (c *embeddedConn) LocalAddr() net.Addr {
	if c.laddr != nil {
		return c.laddr
	}
	return embeddedAddr
}

var embeddedAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}

// NewEmbeddedTLS returns an Embedded whose client speaks TLS 1.3: a
// crypto/tls client completes a full handshake with it in process, and the
// returned EmbeddedTLSClient then seals requests into records and opens
// the replies as that client would, without allocating. Feed takes and
// returns ciphertext. opts.TLS.Config (or the certificate files) is used
// when set; otherwise a throwaway ECDSA P-256 certificate. Signatures and
// chain checks run inline (there is no loop to resume on).
func NewEmbeddedTLS(opts Options) (*Embedded, *EmbeddedTLSClient, error) {
	if opts.TLS.Config == nil && len(opts.TLS.CertFiles) == 0 {
		cert, err := throwawayCertificate()
		if err != nil {
			return nil, nil, err
		}
		opts.TLS.Config = &tlsengine.Config{Certificates: []*tlsengine.Certificate{cert}}
	}
	if opts.TLS.Port == 0 {
		opts.TLS.Port = 6380 // never listened on: it marks the client's local address as TLS
	}
	opts.TLS.Workers = -1
	e := newEmbedded(opts, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: opts.TLS.Port})
	if e.srv.tlsErr != nil {
		return nil, nil, e.srv.tlsErr
	}
	c, err := embeddedHandshake(e)
	if err != nil {
		return nil, nil, err
	}
	return e, c, nil
}

// embeddedHandshake runs a crypto/tls client against e over net.Pipe, with
// a goroutine feeding e, and derives the application traffic keys from
// the client's key log.
func embeddedHandshake(e *Embedded) (*EmbeddedTLSClient, error) {
	a, b := net.Pipe()
	var keylog bytes.Buffer
	cl := tls.Client(a, &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS13, KeyLogWriter: &keylog})
	var left []byte // server output the client never read (the session ticket)
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 64<<10)
		for {
			n, err := b.Read(buf)
			if err != nil {
				return
			}
			out := e.Feed(buf[:n])
			if len(out) > 0 {
				if _, err := b.Write(out); err != nil {
					left = append(left, out...)
					return
				}
			}
		}
	}()
	herr := cl.Handshake()
	suite := cl.ConnectionState().CipherSuite
	a.Close()
	<-done
	b.Close()
	if herr != nil {
		return nil, herr
	}
	c := &EmbeddedTLSClient{}
	var err error
	if c.w, err = keylogDirection(keylog.String(), "CLIENT_TRAFFIC_SECRET_0", suite); err != nil {
		return nil, err
	}
	if c.r, err = keylogDirection(keylog.String(), "SERVER_TRAFFIC_SECRET_0", suite); err != nil {
		return nil, err
	}
	if len(left) > 0 {
		if _, err := c.Open(nil, left); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// EmbeddedTLSClient is the client side of an Embedded TLS connection after
// its handshake: TLS 1.3 application data records, sealed and opened in
// place. Not safe for concurrent use.
type EmbeddedTLSClient struct {
	w, r embeddedDirection
}

type embeddedDirection struct {
	aead  cipher.AEAD
	iv    [12]byte
	nonce [12]byte
	seq   uint64
}

func (d *embeddedDirection) next() []byte {
	d.nonce = d.iv
	for i := 0; i < 8; i++ {
		d.nonce[4+i] ^= byte(d.seq >> (56 - 8*i))
	}
	d.seq++
	return d.nonce[:]
}

// Seal appends p to dst as application data records of at most 16 KiB.
// Keep 22 bytes of spare capacity per record to avoid allocating.
func (c *EmbeddedTLSClient) Seal(dst, p []byte) []byte {
	for len(p) > 0 {
		n := min(len(p), 16<<10)
		hdr := len(dst)
		l := n + 1 + c.w.aead.Overhead()
		dst = append(dst, 23, 3, 3, byte(l>>8), byte(l))
		dst = append(dst, p[:n]...)
		dst = append(dst, 23)
		body := dst[hdr+5:]
		dst = c.w.aead.Seal(dst[:hdr+5], c.w.next(), body, dst[hdr:hdr+5])
		p = p[n:]
	}
	return dst
}

// Open decrypts the records in in (in place) and appends the application
// data to dst; other records (a session ticket) are skipped.
func (c *EmbeddedTLSClient) Open(dst, in []byte) ([]byte, error) {
	for len(in) >= 5 {
		l := int(in[3])<<8 | int(in[4])
		if len(in) < 5+l {
			return dst, errors.New("server: embedded TLS: partial record")
		}
		pt, err := c.r.aead.Open(in[5:5], c.r.next(), in[5:5+l], in[:5])
		if err != nil {
			return dst, err
		}
		i := len(pt) - 1
		for i >= 0 && pt[i] == 0 {
			i--
		}
		if i >= 0 && pt[i] == 23 {
			dst = append(dst, pt[:i]...)
		}
		in = in[5+l:]
	}
	return dst, nil
}

// keylogDirection derives a direction's key and IV (RFC 8446, Section 7.3)
// from an NSS key log line.
func keylogDirection(keylog, label string, suite uint16) (embeddedDirection, error) {
	var d embeddedDirection
	var secret []byte
	for _, line := range strings.Split(keylog, "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == label {
			secret, _ = hex.DecodeString(f[2])
		}
	}
	if secret == nil {
		return d, errors.New("server: embedded TLS: no " + label + " in the key log")
	}
	h, keyLen := sha256.New, 16
	switch suite {
	case tls.TLS_AES_256_GCM_SHA384:
		h, keyLen = sha512.New384, 32
	case tls.TLS_CHACHA20_POLY1305_SHA256:
		keyLen = 32
	}
	key, err := hkdf.Expand(h, secret, string(hkdfLabel("key", keyLen)), keyLen)
	if err != nil {
		return d, err
	}
	iv, err := hkdf.Expand(h, secret, string(hkdfLabel("iv", 12)), 12)
	if err != nil {
		return d, err
	}
	copy(d.iv[:], iv)
	if suite == tls.TLS_CHACHA20_POLY1305_SHA256 {
		d.aead, err = chacha20poly1305.New(key)
		return d, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return d, err
	}
	d.aead, err = cipher.NewGCM(block)
	return d, err
}

// hkdfLabel is the HkdfLabel structure with an empty context.
func hkdfLabel(label string, length int) []byte {
	full := "tls13 " + label
	b := []byte{byte(length >> 8), byte(length), byte(len(full))}
	b = append(b, full...)
	return append(b, 0)
}

// throwawayCertificate is a self-signed ECDSA P-256 certificate for
// localhost, for in-process TLS.
func throwawayCertificate() (*tlsengine.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"}, DNSNames: []string{"localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	return tlsengine.NewCertificate([][]byte{der}, key)
}
