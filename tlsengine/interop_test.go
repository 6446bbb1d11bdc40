package tlsengine

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"errors"
	"io"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"
)

// ---- test PKI ---------------------------------------------------------------

type testPKI struct {
	caCert   *x509.Certificate
	caKey    crypto.Signer
	pool     *x509.CertPool
	p256     *Certificate // example.com, *.wild.test
	p384     *Certificate // p384.test
	ed       *Certificate // ed.test
	rsa      *Certificate // rsa.test
	client   tls.Certificate
	otherCA  tls.Certificate // client cert from an unknown CA
	goServer tls.Certificate // for the crypto/tls server in benchmarks
}

var (
	pkiOnce sync.Once
	pki     testPKI
)

func mustKey(t testing.TB, kind string) crypto.Signer {
	var k crypto.Signer
	var err error
	switch kind {
	case "p256":
		k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "p384":
		k, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case "ed25519":
		_, k, err = ed25519.GenerateKey(rand.Reader)
	case "rsa":
		k, err = rsa.GenerateKey(rand.Reader, 2048)
	}
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func issue(t testing.TB, parent *x509.Certificate, parentKey crypto.Signer, key crypto.Signer, cn string, isCA bool, usage []x509.ExtKeyUsage, dns ...string) *x509.Certificate {
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: dns, ExtKeyUsage: usage, BasicConstraintsValid: true, IsCA: isCA,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), parentKey)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	return c
}

func loadPKI(t testing.TB) *testPKI {
	pkiOnce.Do(func() {
		caKey := mustKey(t, "p256")
		ca := issue(t, nil, nil, caKey, "loopkv test CA", true, nil)
		pki.caCert, pki.caKey = ca, caKey
		pki.pool = x509.NewCertPool()
		pki.pool.AddCert(ca)
		srv := []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		mk := func(kind string, dns ...string) *Certificate {
			k := mustKey(t, kind)
			leaf := issue(t, ca, caKey, k, dns[0], false, srv, dns...)
			c, err := NewCertificate([][]byte{leaf.Raw, ca.Raw}, k)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		pki.p256 = mk("p256", "example.com", "*.wild.test")
		pki.p384 = mk("p384", "p384.test")
		pki.ed = mk("ed25519", "ed.test")
		pki.rsa = mk("rsa", "rsa.test")
		ck := mustKey(t, "p256")
		cl := issue(t, ca, caKey, ck, "client", false, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth})
		pki.client = tls.Certificate{Certificate: [][]byte{cl.Raw}, PrivateKey: ck}
		ok := mustKey(t, "p256")
		oca := issue(t, nil, nil, ok, "other CA", true, nil)
		ock := mustKey(t, "p256")
		ocl := issue(t, oca, ok, ock, "other client", false, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth})
		pki.otherCA = tls.Certificate{Certificate: [][]byte{ocl.Raw}, PrivateKey: ock}
		pki.goServer = tls.Certificate{Certificate: pki.p256.Chain, PrivateKey: pki.p256.Key}
	})
	return &pki
}

// ---- driver -------------------------------------------------------------------

// feedMode says how the driver hands received bytes to the engine.
type feedMode int

const (
	feedWhole  feedMode = iota // everything received so far
	feedRecord                 // one complete record at a time
	feedByte                   // growing prefixes, one byte more each call
)

// driver runs an Engine against a net.Conn in the calling goroutine: it
// echoes every plaintext byte back and stops when the peer closes or fails.
type driver struct {
	t       testing.TB
	e       *Engine
	conn    net.Conn
	mode    feedMode
	inbuf   []byte
	out     []byte
	onData  func(d *driver, p []byte) // default: echo
	asyncWk bool                      // complete WantSign/WantVerify "on a worker" (here: inline)
}

// run drives the engine until the peer closes or a fatal error; it returns
// the engine's error (nil for a clean close).
func (d *driver) run() error {
	buf := make([]byte, 32<<10)
	for {
		if err := d.step(); err != nil || d.e.Status()&StatusPeerClosed != 0 {
			d.flush()
			if err == nil {
				d.e.CloseNotify()
				d.flush()
			}
			return err
		}
		d.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := d.conn.Read(buf)
		if n > 0 {
			d.inbuf = append(d.inbuf, buf[:n]...)
			continue
		}
		if err != nil {
			return err
		}
	}
}

// step feeds the buffered bytes per mode until the engine wants more.
func (d *driver) step() error {
	for {
		avail := len(d.inbuf)
		switch d.mode {
		case feedRecord:
			if avail >= 5 {
				if n := 5 + int(binary.BigEndian.Uint16(d.inbuf[3:5])); n <= avail {
					avail = n
				}
			}
		}
		consumed, p, err := d.feed(avail)
		if len(p) > 0 {
			if d.onData != nil {
				d.onData(d, p)
			} else {
				d.echo(p)
			}
		}
		d.inbuf = d.inbuf[:copy(d.inbuf, d.inbuf[consumed:])]
		d.flush()
		if err != nil {
			return err
		}
		st := d.e.Status()
		if st&StatusWantSign != 0 {
			r := d.e.SignRequest()
			sig, err := r.Key.Sign(rand.Reader, r.Digest, r.Opts)
			d.e.SignDone(sig, err)
			continue
		}
		if st&StatusWantVerify != 0 {
			chain, opts := d.e.VerifyRequest()
			_, err := chain[0].Verify(*opts)
			d.e.VerifyDone(err)
			continue
		}
		if st&StatusHasPlaintext != 0 || (consumed > 0 && len(d.inbuf) > 0) {
			continue
		}
		return nil
	}
}

// feed hands the engine avail bytes (in byte mode, growing prefixes).
func (d *driver) feed(avail int) (int, []byte, error) {
	if d.mode != feedByte {
		return d.e.Read(d.inbuf[:avail], nil)
	}
	total := 0
	var plain []byte
	for i := 1; i <= avail-total; i++ {
		c, p, err := d.e.Read(d.inbuf[total:total+i], make([]byte, 0, 1<<15))
		plain = append(plain, p...)
		if err != nil {
			return total + c, plain, err
		}
		if c > 0 {
			total += c
			i = 0
		}
		if d.e.Status()&(StatusWantSign|StatusWantVerify|StatusPeerClosed) != 0 {
			break
		}
	}
	return total, plain, nil
}

func (d *driver) echo(p []byte) {
	out, err := d.e.AppendRecords(d.out[:0], p)
	if err != nil {
		d.t.Errorf("AppendRecords: %v", err)
		return
	}
	d.out = out
	d.write()
}

func (d *driver) flush() {
	d.out = d.e.AppendOutput(d.out[:0])
	d.write()
}

func (d *driver) write() {
	if len(d.out) > 0 {
		d.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
		d.conn.Write(d.out)
		d.out = d.out[:0]
	}
}

// tcpPair returns two ends of a loopback TCP connection (kernel buffers
// avoid the lock-step deadlocks of net.Pipe).
func tcpPair(t testing.TB) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ch := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		ch <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-ch
	if server == nil {
		t.Fatal("accept failed")
	}
	return client, server
}

// clientResult is what the crypto/tls client goroutine reports.
type clientResult struct {
	state tls.ConnectionState
	err   error
}

// echoClient handshakes, writes msgs and checks each echo, then closes.
func echoClient(conn net.Conn, cfg *tls.Config, msgs [][]byte, res chan<- clientResult) {
	c := tls.Client(conn, cfg)
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	if err := c.Handshake(); err != nil {
		res <- clientResult{err: err}
		return
	}
	for _, m := range msgs {
		if _, err := c.Write(m); err != nil {
			res <- clientResult{err: err}
			return
		}
		got := make([]byte, len(m))
		if _, err := io.ReadFull(c, got); err != nil {
			res <- clientResult{err: err}
			return
		}
		if !bytes.Equal(got, m) {
			res <- clientResult{err: errors.New("echo mismatch")}
			return
		}
	}
	st := c.ConnectionState()
	c.Close()
	res <- clientResult{state: st}
}

// runInterop runs one crypto/tls client against one Engine.
func runInterop(t testing.TB, scfg *Config, ccfg *tls.Config, mode feedMode, msgs [][]byte) (clientResult, error, *Engine) {
	t.Helper()
	cc, sc := tcpPair(t)
	defer sc.Close()
	res := make(chan clientResult, 1)
	go echoClient(cc, ccfg, msgs, res)
	e := NewEngine(scfg)
	d := &driver{t: t, e: e, conn: sc, mode: mode}
	serr := d.run()
	r := <-res
	return r, serr, e
}

func clientConfig(p *testPKI) *tls.Config {
	return &tls.Config{RootCAs: p.pool, ServerName: "example.com", MinVersion: tls.VersionTLS13}
}

var echoMsgs = [][]byte{[]byte("PING\r\n"), bytes.Repeat([]byte("x"), 40000), []byte("*1\r\n$4\r\nPING\r\n")}

func TestInteropBasicHandshake(t *testing.T) {
	p := loadPKI(t)
	for _, mode := range []feedMode{feedWhole, feedRecord, feedByte} {
		cfg := &Config{Certificates: []*Certificate{p.p256}}
		r, serr, e := runInterop(t, cfg, clientConfig(p), mode, echoMsgs)
		if r.err != nil || serr != nil && !errors.Is(serr, io.EOF) {
			t.Fatalf("mode %d: client %v, server %v", mode, r.err, serr)
		}
		if r.state.Version != tls.VersionTLS13 || e.ConnectionState().CipherSuite != r.state.CipherSuite {
			t.Errorf("mode %d: version %x suite %x/%x", mode, r.state.Version, r.state.CipherSuite, e.ConnectionState().CipherSuite)
		}
	}
}
