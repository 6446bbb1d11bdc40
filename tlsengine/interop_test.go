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
	"fmt"
	"io"
	"math/big"
	mrand "math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"
	"unsafe"
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
	feedRandom                 // random prefixes (fixed seed)
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
	hook    func(rec []byte)          // feedRecord: sees (and may rewrite) each record first
	rng     *mrand.Rand               // feedRandom
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
		case feedRandom:
			if d.rng == nil {
				d.rng = mrand.New(mrand.NewPCG(1, 2))
			}
			if avail > 0 {
				avail = 1 + d.rng.IntN(avail)
			}
		case feedRecord:
			if avail >= 5 {
				if n := 5 + int(binary.BigEndian.Uint16(d.inbuf[3:5])); n <= avail {
					avail = n
					if d.hook != nil {
						d.hook(d.inbuf[:n])
					}
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
		if st&StatusHasPlaintext != 0 || (consumed > 0 && len(d.inbuf) > 0) || avail < len(d.inbuf) && d.mode == feedRandom {
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
	for _, mode := range []feedMode{feedWhole, feedRecord, feedByte, feedRandom} {
		cfg := &Config{Certificates: []*Certificate{p.p256}}
		r, serr, e := runInterop(t, cfg, clientConfig(p), mode, echoMsgs)
		if r.err != nil || serr != nil && !errors.Is(serr, io.EOF) {
			t.Fatalf("mode %d: client %v, server %v", mode, r.err, serr)
		}
		if r.state.Version != tls.VersionTLS13 || e.ConnectionState().CipherSuite != r.state.CipherSuite {
			t.Errorf("mode %d: version %x suite %x/%x", mode, r.state.Version, r.state.CipherSuite, e.ConnectionState().CipherSuite)
		}
		if e.hs != nil {
			t.Errorf("mode %d: handshake state and buffers retained after the handshake", mode)
		}
		if size := unsafe.Sizeof(*e); size > 512 {
			t.Errorf("Engine is %d bytes, budget 512", size)
		}
	}
}

var interopGroups = []struct {
	name string
	our  CurveID
	go_  tls.CurveID
}{
	{"X25519MLKEM768", X25519MLKEM768, tls.X25519MLKEM768},
	{"X25519", X25519, tls.X25519},
	{"P-256", CurveP256, tls.CurveP256},
	{"P-384", CurveP384, tls.CurveP384},
}

var interopCerts = []struct{ name, sni string }{
	{"ECDSA-P256", "example.com"}, {"ECDSA-P384", "p384.test"}, {"Ed25519", "ed.test"}, {"RSA-2048-PSS", "rsa.test"},
}

func allCerts(p *testPKI) []*Certificate { return []*Certificate{p.p256, p.p384, p.ed, p.rsa} }

func TestInteropMatrixSuitesGroupsCertificates(t *testing.T) {
	p := loadPKI(t)
	msgs := [][]byte{[]byte("hello"), bytes.Repeat([]byte{7}, 20000)}
	for _, suite := range defaultCipherSuites {
		for _, g := range interopGroups {
			for _, c := range interopCerts {
				cfg := &Config{Certificates: allCerts(p), CipherSuites: []uint16{suite}, CurvePreferences: []CurveID{g.our}}
				cc := clientConfig(p)
				cc.ServerName = c.sni
				cc.CurvePreferences = []tls.CurveID{g.go_}
				r, serr, e := runInterop(t, cfg, cc, feedWhole, msgs)
				name := tls.CipherSuiteName(suite) + "/" + g.name + "/" + c.name
				if r.err != nil || serr != nil {
					t.Errorf("%s: client %v, server %v", name, r.err, serr)
					continue
				}
				st := e.ConnectionState()
				if r.state.CipherSuite != suite || st.CurveID != g.our || r.state.CurveID != g.go_ {
					t.Errorf("%s: suite %x curve %v/%v", name, r.state.CipherSuite, st.CurveID, r.state.CurveID)
				}
				if got := r.state.PeerCertificates[0].DNSNames[0]; got != c.sni {
					t.Errorf("%s: served certificate for %q", name, got)
				}
			}
		}
	}
}

var sniTests = []struct{ sni, want string }{
	{"example.com", "example.com"}, {"EXAMPLE.com", "example.com"}, {"a.wild.test", "example.com"},
	{"ed.test", "ed.test"}, {"unknown.test", "example.com"}, {"", "example.com"},
}

func TestInteropSNISelectsCertificate(t *testing.T) {
	p := loadPKI(t)
	for i, tt := range sniTests {
		cfg := &Config{Certificates: []*Certificate{p.p256, p.p384, p.ed}}
		cc := clientConfig(p)
		cc.ServerName, cc.InsecureSkipVerify = tt.sni, true
		r, serr, e := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1])
		if !wantOK(t, fmt.Sprint("#", i), r, serr) {
			continue
		}
		if got := r.state.PeerCertificates[0].DNSNames[0]; got != tt.want {
			t.Errorf("#%d: SNI %q got certificate %q, want %q", i, tt.sni, got, tt.want)
		}
		if e.ConnectionState().ServerName != tt.sni && tt.sni != "EXAMPLE.com" {
			t.Errorf("#%d: ServerName %q", i, e.ConnectionState().ServerName)
		}
	}
}

func TestInteropHelloRetryRequest(t *testing.T) {
	p := loadPKI(t)
	for _, mode := range []feedMode{feedWhole, feedByte} {
		cfg := &Config{Certificates: []*Certificate{p.p256}, CurvePreferences: []CurveID{CurveP256, X25519}}
		cc := clientConfig(p)
		cc.CurvePreferences = []tls.CurveID{tls.CurveP521, tls.CurveP256} // share for P-521 only
		r, serr, e := runInterop(t, cfg, cc, mode, echoMsgs)
		if r.err != nil || serr != nil {
			t.Fatalf("mode %d: client %v, server %v", mode, r.err, serr)
		}
		if e.ConnectionState().CurveID != CurveP256 || r.state.CurveID != tls.CurveP256 {
			t.Errorf("mode %d: curve %v", mode, e.ConnectionState().CurveID)
		}
	}
}

var alpnTests = []struct {
	server, client []string
	want           string
	fail           bool
}{
	{[]string{"redis", "h2"}, []string{"h2", "redis"}, "redis", false},
	{[]string{"redis"}, nil, "", false},
	{nil, []string{"h2"}, "", false},
	{[]string{"redis"}, []string{"h2"}, "", true},
}

func TestInteropALPN(t *testing.T) {
	p := loadPKI(t)
	for i, tt := range alpnTests {
		cfg := &Config{Certificates: []*Certificate{p.p256}, NextProtos: tt.server}
		cc := clientConfig(p)
		cc.NextProtos = tt.client
		r, serr, e := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1])
		wantALPN(t, fmt.Sprint("#", i), r, serr, e, tt.fail, tt.want)
	}
}

func TestInteropResumptionWithTickets(t *testing.T) {
	p := loadPKI(t)
	keys, err := NewTicketKeys(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []CurveID{X25519, X25519MLKEM768} {
		cfg := &Config{Certificates: []*Certificate{p.p256}, TicketKeys: keys, CurvePreferences: []CurveID{g}}
		cc := clientConfig(p)
		cc.ClientSessionCache = tls.NewLRUClientSessionCache(4)
		for i, wantResume := range []bool{false, true, true} {
			r, serr, e := runInterop(t, cfg, cc, feedRecord, echoMsgs[:1])
			if r.err != nil || serr != nil {
				t.Fatalf("%v #%d: client %v, server %v", g, i, r.err, serr)
			}
			if r.state.DidResume != wantResume || e.ConnectionState().DidResume != wantResume {
				t.Errorf("%v #%d: DidResume client %v server %v, want %v", g, i, r.state.DidResume, e.ConnectionState().DidResume, wantResume)
			}
		}
	}
	// Without TicketKeys nothing resumes.
	cfg := &Config{Certificates: []*Certificate{p.p256}}
	cc := clientConfig(p)
	cc.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	for i := 0; i < 2; i++ {
		r, serr, _ := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1])
		if r.err != nil || serr != nil || r.state.DidResume {
			t.Errorf("no tickets #%d: client %v server %v resumed %v", i, r.err, serr, r.state.DidResume)
		}
	}
}

func TestInteropTicketBoundToSNI(t *testing.T) {
	p := loadPKI(t)
	keys, _ := NewTicketKeys(rand.Reader)
	cfg := &Config{Certificates: []*Certificate{p.p256}, TicketKeys: keys}
	cache := tls.NewLRUClientSessionCache(4)
	cc := clientConfig(p)
	cc.ClientSessionCache = cache
	if r, serr, _ := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1]); r.err != nil || serr != nil {
		t.Fatal(r.err, serr)
	}
	// Same cache key, different ALPN: the server must not resume.
	cc2 := clientConfig(p)
	cc2.ClientSessionCache = cache
	cfg2 := &Config{Certificates: []*Certificate{p.p256}, TicketKeys: keys, NextProtos: []string{"redis"}}
	cc2.NextProtos = []string{"redis"}
	r, serr, e := runInterop(t, cfg2, cc2, feedWhole, echoMsgs[:1])
	if r.err != nil || serr != nil || e.ConnectionState().DidResume {
		t.Errorf("client %v server %v resumed %v", r.err, serr, e.ConnectionState().DidResume)
	}
}

func TestInteropTicketExpires(t *testing.T) {
	p := loadPKI(t)
	keys, _ := NewTicketKeys(rand.Reader)
	now := time.Now()
	cfg := &Config{Certificates: []*Certificate{p.p256}, TicketKeys: keys, TicketLifetime: time.Hour, Now: func() time.Time { return now }}
	cc := clientConfig(p)
	cc.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	if r, serr, _ := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1]); r.err != nil || serr != nil {
		t.Fatal(r.err, serr)
	}
	later := &Config{Certificates: []*Certificate{p.p256}, TicketKeys: keys, Now: func() time.Time { return now.Add(2 * time.Hour) }}
	r, serr, e := runInterop(t, later, cc, feedWhole, echoMsgs[:1])
	if r.err != nil || serr != nil || e.ConnectionState().DidResume {
		t.Errorf("client %v server %v resumed %v after the lifetime", r.err, serr, e.ConnectionState().DidResume)
	}
}

func TestInteropClientCertificates(t *testing.T) {
	p := loadPKI(t)
	tests := []struct {
		name  string
		mode  ClientAuthMode
		cert  *tls.Certificate
		async bool
		alert Alert // 0: success
		leaf  bool
	}{
		{"request-none", RequestClientCert, nil, false, 0, false},
		{"request-good", RequestClientCert, &p.client, false, 0, true},
		{"require-good", RequireClientCert, &p.client, false, 0, true},
		{"require-good-async", RequireClientCert, &p.client, true, 0, true},
		{"require-none", RequireClientCert, nil, false, AlertCertificateRequired, false},
		{"require-unknown-ca", RequireClientCert, &p.otherCA, false, AlertUnknownCA, false},
		{"require-unknown-ca-async", RequireClientCert, &p.otherCA, true, AlertUnknownCA, false},
	}
	for _, tt := range tests {
		cfg := &Config{Certificates: []*Certificate{p.p256}, ClientAuth: tt.mode, ClientCAs: p.pool, AsyncVerify: tt.async}
		cc := clientConfig(p)
		if tt.cert != nil {
			c := *tt.cert // sent even when its CA is not in certificate_authorities
			cc.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &c, nil }
		}
		r, serr, e := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1])
		wantClientAuth(t, tt.name, r, serr, e, tt.alert, tt.leaf)
	}
}

// wantOK fails the test unless both sides succeeded.
func wantOK(t *testing.T, name string, r clientResult, serr error) bool {
	t.Helper()
	if r.err != nil || serr != nil {
		t.Errorf("%s: client %v, server %v", name, r.err, serr)
		return false
	}
	return true
}

// wantClientAuth checks a client-certificate handshake: the server and the
// client fail with alert when it is set; otherwise both succeed and the
// server has a VerifiedLeaf exactly when leaf.
func wantClientAuth(t *testing.T, name string, r clientResult, serr error, e *Engine, alert Alert, leaf bool) {
	t.Helper()
	if alert != 0 {
		wantAlert(t, name, r, serr, alert)
		return
	}
	if !wantOK(t, name, r, serr) {
		return
	}
	if got := e.ConnectionState().VerifiedLeaf != nil; got != leaf {
		t.Errorf("%s: verified leaf %v, want %v", name, got, leaf)
	}
}

// wantALPN checks an ALPN handshake: no_application_protocol on both sides
// when fail, otherwise success with want negotiated on both sides. It
// reports whether the handshake succeeded.
func wantALPN(t *testing.T, name string, r clientResult, serr error, e *Engine, fail bool, want string) bool {
	t.Helper()
	if fail {
		wantAlert(t, name, r, serr, AlertNoApplicationProtocol)
		return false
	}
	if !wantOK(t, name, r, serr) {
		return false
	}
	if r.state.NegotiatedProtocol != want || e.ConnectionState().NegotiatedProtocol != want {
		t.Errorf("%s: ALPN %q, want %q", name, r.state.NegotiatedProtocol, want)
	}
	return true
}

// wantAlert fails the test unless the server failed with alert a and the
// client failed too.
func wantAlert(t *testing.T, name string, r clientResult, serr error, a Alert) {
	t.Helper()
	var ae *AlertError
	if !errors.As(serr, &ae) || ae.Alert != a || r.err == nil {
		t.Errorf("%s: server %v client %v, want %v", name, serr, r.err, a)
	}
}

func TestInteropAsyncSign(t *testing.T) {
	p := loadPKI(t)
	cfg := &Config{Certificates: allCerts(p), AsyncSign: func(s SignatureScheme) bool { return s >= PSSWithSHA256 && s <= PSSWithSHA512 }}
	cc := clientConfig(p)
	cc.ServerName = "rsa.test"
	for _, mode := range []feedMode{feedWhole, feedByte} {
		r, serr, _ := runInterop(t, cfg, cc, mode, echoMsgs)
		if r.err != nil || serr != nil {
			t.Errorf("mode %d: client %v, server %v", mode, r.err, serr)
		}
	}
}

func TestInteropServerKeyUpdate(t *testing.T) {
	p := loadPKI(t)
	cfg := &Config{Certificates: []*Certificate{p.p256}}
	cc, sc := tcpPair(t)
	defer sc.Close()
	res := make(chan clientResult, 1)
	msgs := [][]byte{[]byte("one"), []byte("two"), []byte("three"), []byte("four")}
	go echoClient(cc, clientConfig(p), msgs, res)
	e := NewEngine(cfg)
	d := &driver{t: t, e: e, conn: sc}
	n := 0
	d.onData = func(d *driver, b []byte) {
		n++
		if err := d.e.KeyUpdate(n%2 == 1); err != nil {
			t.Error(err)
		}
		d.echo(b)
	}
	if serr := d.run(); serr != nil {
		t.Fatal(serr)
	}
	if r := <-res; r.err != nil {
		t.Fatal(r.err)
	}
	if e.out.seq > 3 {
		t.Errorf("server write seq %d: KeyUpdate did not reset it", e.out.seq)
	}
}

func TestInteropResumptionKeepsClientCertificate(t *testing.T) {
	p := loadPKI(t)
	keys, _ := NewTicketKeys(rand.Reader)
	cfg := &Config{Certificates: []*Certificate{p.p256}, TicketKeys: keys, ClientAuth: RequireClientCert, ClientCAs: p.pool}
	cc := clientConfig(p)
	cc.Certificates = []tls.Certificate{p.client}
	cc.ClientSessionCache = tls.NewLRUClientSessionCache(2)
	for i, want := range []bool{false, true} {
		r, serr, e := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1])
		if r.err != nil || serr != nil {
			t.Fatalf("#%d: client %v, server %v", i, r.err, serr)
		}
		st := e.ConnectionState()
		if st.DidResume != want || st.VerifiedLeaf == nil || st.VerifiedLeaf.Subject.CommonName != "client" {
			t.Errorf("#%d: resumed %v, leaf %v", i, st.DidResume, st.VerifiedLeaf)
		}
	}
}

// TestInteropKeyLogMatchesClient checks the NSS key log lines against the
// ones crypto/tls writes for the same connection.
func TestInteropKeyLogMatchesClient(t *testing.T) {
	p := loadPKI(t)
	var ours, theirs bytes.Buffer
	cfg := &Config{Certificates: []*Certificate{p.p256}, KeyLog: &ours}
	cc := clientConfig(p)
	cc.KeyLogWriter = &theirs
	if r, serr, _ := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1]); r.err != nil || serr != nil {
		t.Fatal(r.err, serr)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(theirs.Bytes()), []byte("\n")) {
		if !bytes.Contains(ours.Bytes(), line) {
			t.Errorf("client line %q missing from ours:\n%s", line, ours.Bytes())
		}
	}
	if n := bytes.Count(ours.Bytes(), []byte("\n")); n != 5 {
		t.Errorf("%d key log lines, want 5", n)
	}
}
