package server

import (
	"bufio"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// testPKI is a throwaway CA with server and client certificates on disk.
type testPKI struct {
	dir                  string
	caKey                crypto.Signer
	ca                   *x509.Certificate
	caFile               string
	certFile, keyFile    string // server, ECDSA P-256, localhost + 127.0.0.1
	clientCert, clientKy string // client, CN "alice"
	pool                 *x509.CertPool
	serial               int64
}

func newTestPKI(t testing.TB) *testPKI {
	t.Helper()
	p := &testPKI{dir: t.TempDir(), serial: 1}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(p.serial), Subject: pkix.Name{CommonName: "loopkv test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	p.ca, _ = x509.ParseCertificate(der)
	p.caKey = key
	p.caFile = filepath.Join(p.dir, "ca.crt")
	writeTestPEM(t, p.caFile, "CERTIFICATE", der)
	p.pool = x509.NewCertPool()
	p.pool.AddCert(p.ca)
	p.certFile, p.keyFile = p.issue(t, "server", "localhost", nil)
	p.clientCert, p.clientKy = p.issue(t, "client", "alice", nil)
	return p
}

// issue writes a certificate signed by the CA and its key; key nil means a
// new ECDSA P-256 key.
func (p *testPKI) issue(t testing.TB, name, cn string, key crypto.Signer) (certFile, keyFile string) {
	t.Helper()
	return p.issueWith(t, name, cn, key, nil)
}

// issueWith is issue with edit applied to the certificate template (nil
// for none).
func (p *testPKI) issueWith(t testing.TB, name, cn string, key crypto.Signer, edit func(*x509.Certificate)) (certFile, keyFile string) {
	t.Helper()
	if key == nil {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		key = k
	}
	p.serial++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(p.serial), Subject: pkix.Name{CommonName: cn, Organization: []string{"loopkv"}},
		DNSNames: []string{cn}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	if edit != nil {
		edit(tmpl)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, key.Public(), p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile = filepath.Join(p.dir, name+".crt")
	keyFile = filepath.Join(p.dir, name+".key")
	writeTestPEM(t, certFile, "CERTIFICATE", der)
	writeTestPEM(t, keyFile, "PRIVATE KEY", kd)
	return certFile, keyFile
}

func (p *testPKI) clientPair(t testing.TB) tls.Certificate {
	t.Helper()
	c, err := tls.LoadX509KeyPair(p.clientCert, p.clientKy)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func writeTestPEM(t testing.TB, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

func newRSAKey(t testing.TB) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// startTLSServer runs a server with a TLS port using the PKI's server
// certificate unless opts names files.
func startTLSServer(t testing.TB, p *testPKI, opts Options) *Server {
	t.Helper()
	if opts.TLS.CertFiles == nil && opts.TLS.Config == nil {
		opts.TLS.CertFiles, opts.TLS.KeyFiles = []string{p.certFile}, []string{p.keyFile}
	}
	s, _ := startServerOnFreePorts(t, opts, opts.TLS.Port == 0)
	return s
}

func (p *testPKI) clientConfig() *tls.Config {
	return &tls.Config{RootCAs: p.pool, ServerName: "localhost"}
}

func dialTLS(t testing.TB, addr string, cfg *tls.Config) *tls.Conn {
	t.Helper()
	d := &net.Dialer{Timeout: 5 * time.Second}
	c, err := tls.DialWithDialer(d, "tcp", addr, cfg)
	if err != nil {
		t.Fatalf("tls dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	return c
}

// tlsDo sends one command over c and reads one reply line.
func tlsDo(t testing.TB, c net.Conn, r *bufio.Reader, args ...string) string {
	t.Helper()
	if _, err := c.Write([]byte(multibulk(args...))); err != nil {
		t.Fatalf("write: %v", err)
	}
	s, err := readRaw(r)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return s
}

var goRedisTLSTests = []struct {
	name       string
	proto      int
	clientCert bool
	auth       string
}{
	{"RESP2", 2, false, "no"},
	{"RESP3", 3, false, "no"},
	{"RESP2/client-cert", 2, true, "yes"},
	{"RESP3/client-cert", 3, true, "yes"},
	{"RESP3/optional-without-cert", 3, false, "optional"},
}

func TestTLSGoRedis(t *testing.T) {
	p := newTestPKI(t)
	for _, tt := range goRedisTLSTests {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{TLS: TLSOptions{AuthClients: tt.auth, CACertFile: p.caFile}}
			s := startTLSServer(t, p, opts)
			cfg := p.clientConfig()
			if tt.clientCert {
				cfg.Certificates = []tls.Certificate{p.clientPair(t)}
			}
			rdb := redis.NewClient(&redis.Options{Addr: s.TLSAddr(), Protocol: tt.proto, TLSConfig: cfg, PoolSize: 4})
			defer rdb.Close()
			ctx := context.Background()
			if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
				t.Fatalf("SET: %v", err)
			}
			if v, err := rdb.Get(ctx, "k").Result(); err != nil || v != "v" {
				t.Fatalf("GET = %q, %v; want v", v, err)
			}
			// A value larger than one record each way, pipelined.
			big := strings.Repeat("x", 100<<10)
			pipe := rdb.Pipeline()
			for i := range 20 {
				pipe.Set(ctx, "big"+string(rune('a'+i)), big, 0)
				pipe.Get(ctx, "big"+string(rune('a'+i)))
			}
			cmds, err := pipe.Exec(ctx)
			if err != nil {
				t.Fatalf("pipeline: %v", err)
			}
			for i, c := range cmds {
				if g, ok := c.(*redis.StringCmd); ok && g.Val() != big {
					t.Fatalf("#%d: GET returned %d bytes, want %d", i, len(g.Val()), len(big))
				}
			}
			if tt.clientCert {
				list, err := rdb.ClientList(ctx).Result()
				if err != nil || !strings.Contains(list, "tls-peer-subject=CN=alice,O=loopkv") {
					t.Errorf("CLIENT LIST = %q, %v; want tls-peer-subject=CN=alice,O=loopkv", list, err)
				}
			}
		})
	}
}

// TestTLSSessionResumption checks that a ticket from one connection
// resumes on the next, counted in INFO.
func TestTLSSessionResumption(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{})
	cfg := p.clientConfig()
	cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	for i := range 2 {
		c := dialTLS(t, s.TLSAddr(), cfg)
		r := bufio.NewReader(c)
		if got := tlsDo(t, c, r, "PING"); got != "+PONG\r\n" {
			t.Fatalf("#%d: PING = %q", i, got)
		}
		if got := c.ConnectionState().DidResume; got != (i == 1) {
			t.Errorf("#%d: DidResume = %v, want %v", i, got, i == 1)
		}
		c.Close()
	}
	if n := s.tls.stats.resumed.Load(); n != 1 {
		t.Errorf("tls_resumptions = %d, want 1", n)
	}
}

func TestTLSPlainAndTLSShareLoops(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{Logger: zap.NewNop()})
	rc := dialRaw(t, s.Addr())
	if got := rc.do("SET", "shared", "1"); got != "+OK\r\n" {
		t.Fatalf("plain SET = %q", got)
	}
	c := dialTLS(t, s.TLSAddr(), p.clientConfig())
	if got := tlsDo(t, c, bufio.NewReader(c), "GET", "shared"); got != "$1\r\n1\r\n" {
		t.Fatalf("TLS GET = %q", got)
	}
}

// embeddedTLSPipeline is a batch of SET and GET, as the allocation gate
// and the benchmarks send it.
func embeddedTLSPipeline(n int) (req []byte, want string) {
	for i := range n {
		if i%2 == 0 {
			req = append(req, multibulk("SET", "key", "value")...)
			want += "+OK\r\n"
		} else {
			req = append(req, multibulk("GET", "key")...)
			want += "$5\r\nvalue\r\n"
		}
	}
	return req, want
}

// TestTLSEmbeddedSteadyStateAllocatesNothing is the allocation gate: a
// pipeline sealed by the client, opened, run and answered by the server
// and opened again costs no allocation, at 1 and at 100 commands a batch.
func TestTLSEmbeddedSteadyStateAllocatesNothing(t *testing.T) {
	e, cl, err := NewEmbeddedTLS(Options{Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 100} {
		req, want := embeddedTLSPipeline(n)
		in := make([]byte, 0, len(req)+1024)
		var got []byte
		step := func() {
			in = cl.Seal(in[:0], req)
			out := e.Feed(in)
			got, err = cl.Open(got[:0], out)
		}
		step()
		if err != nil || string(got) != want {
			t.Fatalf("batch %d: replies %q, %v; want %q", n, got, err, want)
		}
		if a := testing.AllocsPerRun(200, step); a != 0 {
			t.Errorf("batch %d: %.1f allocations per batch, want 0", n, a)
		}
	}
}

// TestTLSEmbeddedCommandSplitAcrossRecords cuts a pipeline into records at
// every offset, so that commands straddle records, and checks the replies.
func TestTLSEmbeddedCommandSplitAcrossRecords(t *testing.T) {
	e, cl, err := NewEmbeddedTLS(Options{Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	req, want := embeddedTLSPipeline(6)
	for cut := 1; cut < len(req); cut += 3 {
		var got []byte
		for off := 0; off < len(req); off += cut {
			rec := cl.Seal(nil, req[off:min(off+cut, len(req))])
			// Feed each record in two pieces: a partial record stays in the transport.
			half := len(rec) / 2
			got, err = cl.Open(got, e.Feed(rec[:half]))
			if err != nil {
				t.Fatal(err)
			}
			got, err = cl.Open(got, e.Feed(rec[half:]))
			if err != nil {
				t.Fatal(err)
			}
		}
		if string(got) != want {
			t.Fatalf("cut %d: replies %q, want %q", cut, got, want)
		}
		if e.cs.pending != nil {
			t.Fatalf("cut %d: pending kept %d bytes after the last command", cut, len(e.cs.pending))
		}
	}
}

// TestTLSEmbeddedLargeReplySpansRecords reads a 100 KiB value back: the
// reply is sealed as several records of at most 16 KiB.
func TestTLSEmbeddedLargeReplySpansRecords(t *testing.T) {
	e, cl, err := NewEmbeddedTLS(Options{Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("v", 100<<10)
	got, err := cl.Open(nil, e.Feed(cl.Seal(nil, []byte(multibulk("SET", "big", big)+multibulk("GET", "big")))))
	if err != nil {
		t.Fatal(err)
	}
	if want := "+OK\r\n$102400\r\n" + big + "\r\n"; string(got) != want {
		t.Fatalf("got %d bytes, want %d", len(got), len(want))
	}
}

// TestTLSClientsLeavingBeforeTheirTicketLeaveTheLoopClean closes clients
// right after their handshake, so that the server's session ticket meets
// a closed socket, and checks that the loop's next handshake is not
// polluted by the unsent bytes.
func TestTLSClientsLeavingBeforeTheirTicketLeaveTheLoopClean(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{Loops: 1})
	for i := range 20 {
		c := dialTLS(t, s.TLSAddr(), p.clientConfig())
		if tc, ok := c.NetConn().(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // RST: the ticket write fails
		}
		c.Close()
		c = dialTLS(t, s.TLSAddr(), p.clientConfig())
		if got := tlsDo(t, c, bufio.NewReader(c), "PING"); got != "+PONG\r\n" {
			t.Fatalf("#%d: PING = %q", i, got)
		}
		c.Close()
	}
}

// TestTLSSNISelectsTheNamedCertificate serves two certificates and checks
// that a client naming the second gets it, and any other name the first.
func TestTLSSNISelectsTheNamedCertificate(t *testing.T) {
	p := newTestPKI(t)
	other, otherKey := p.issue(t, "other", "other.example", nil)
	s := startTLSServer(t, p, Options{TLS: TLSOptions{
		CertFiles: []string{p.certFile, other}, KeyFiles: []string{p.keyFile, otherKey}}})
	for _, tt := range []struct{ sni, wantCN string }{
		{"other.example", "other.example"}, {"localhost", "localhost"}, {"unknown.example", "localhost"},
	} {
		cfg := p.clientConfig()
		cfg.ServerName, cfg.InsecureSkipVerify = tt.sni, true
		c := dialTLS(t, s.TLSAddr(), cfg)
		if cn := c.ConnectionState().PeerCertificates[0].Subject.CommonName; cn != tt.wantCN {
			t.Errorf("SNI %q: certificate %q, want %q", tt.sni, cn, tt.wantCN)
		}
		c.Close()
	}
}

// TestTLSEncryptedKeyFileNeedsItsPassword loads a legacy encrypted PEM
// key with tls-key-file-pass, and refuses it without.
func TestTLSEncryptedKeyFileNeedsItsPassword(t *testing.T) {
	p := newTestPKI(t)
	raw, err := os.ReadFile(p.keyFile)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := pem.Decode(raw)
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalECPrivateKey(k.(*ecdsa.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1019 legacy encrypted PEM is what tls-key-file-pass reads
	enc, err := x509.EncryptPEMBlock(rand.Reader, "EC PRIVATE KEY", der, []byte("s3cret"), x509.PEMCipherAES256) //nolint:staticcheck
	if err != nil {
		t.Fatal(err)
	}
	encFile := filepath.Join(p.dir, "enc.key")
	if err := os.WriteFile(encFile, pem.EncodeToMemory(enc), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadCertificate(p.certFile, encFile, ""); err == nil || !strings.Contains(err.Error(), "tls-key-file-pass") {
		t.Errorf("without a password: %v, want an error naming tls-key-file-pass", err)
	}
	if _, err := loadCertificate(p.certFile, encFile, "wrong"); err == nil {
		t.Error("a wrong password was accepted")
	}
	s := startTLSServer(t, p, Options{TLS: TLSOptions{CertFiles: []string{p.certFile}, KeyFiles: []string{encFile},
		KeyFilePass: "s3cret"}})
	c := dialTLS(t, s.TLSAddr(), p.clientConfig())
	if got := tlsDo(t, c, bufio.NewReader(c), "PING"); got != "+PONG\r\n" {
		t.Errorf("PING = %q", got)
	}
	if got := tlsDo(t, c, bufio.NewReader(c), "CONFIG", "GET", "tls-key-file-pass"); strings.Contains(got, "s3cret") {
		t.Errorf("CONFIG GET shows the key password: %q", got)
	}
}

var tlsProtocolTests = []struct {
	protocols string
	client    uint16
	ok        bool
}{
	{"TLSv1.3", tls.VersionTLS13, true},
	{"TLSv1.3", tls.VersionTLS12, false},
	{"TLSv1.2", tls.VersionTLS12, true},
	{"TLSv1.2", tls.VersionTLS13, false},
	{"TLSv1.2 TLSv1.3", tls.VersionTLS12, true},
}

// TestTLSProtocolsBoundTheVersion checks tls-protocols.
func TestTLSProtocolsBoundTheVersion(t *testing.T) {
	p := newTestPKI(t)
	for i, tt := range tlsProtocolTests {
		s := startTLSServer(t, p, Options{TLS: TLSOptions{Protocols: tt.protocols}})
		cfg := p.clientConfig()
		cfg.MinVersion, cfg.MaxVersion = tt.client, tt.client
		c, err := tls.Dial("tcp", s.TLSAddr(), cfg)
		if err == nil {
			if v := c.ConnectionState().Version; v != tt.client {
				t.Errorf("#%d: version %x, want %x", i, v, tt.client)
			}
			c.Close()
		}
		if (err == nil) != tt.ok {
			t.Errorf("#%d %q with client %x: error %v, want ok=%v", i, tt.protocols, tt.client, err, tt.ok)
		}
	}
}

// TestTLSConfigGetReportsSettings checks CONFIG GET tls-* and that
// CONFIG SET checks values before taking them.
func TestTLSConfigGetReportsSettings(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{TLS: TLSOptions{Groups: "X25519:P-256"}})
	rc := dialRaw(t, s.Addr())
	for _, tt := range []struct{ name, want string }{
		{"tls-port", strconv.Itoa(s.opts.TLS.Port)}, {"tls-cert-file", p.certFile}, {"tls-auth-clients", "no"},
		{"tls-protocols", "TLSv1.2 TLSv1.3"}, {"tls-groups", "X25519:P-256"}, {"tls-session-caching", "yes"},
		{"tls-session-cache-timeout", "300"}, {"tls-handshake-timeout", "10"}, {"tls-max-handshakes", "1024"},
	} {
		want := multibulk(tt.name, tt.want)
		if got := rc.do("CONFIG", "GET", tt.name); got != want {
			t.Errorf("CONFIG GET %s = %q, want %q", tt.name, got, want)
		}
	}
	for _, bad := range [][2]string{{"tls-auth-clients", "maybe"}, {"tls-protocols", "SSLv3"},
		{"tls-groups", "X448"}, {"tls-groups", "ffdhe2048"}, {"tls-ciphersuites", "TLS_AES_128_CCM_SHA256"}, {"tls-port", "1"}} {
		if got := rc.do("CONFIG", "SET", bad[0], bad[1]); !strings.HasPrefix(got, "-ERR") {
			t.Errorf("CONFIG SET %s %s = %q, want an error", bad[0], bad[1], got)
		}
	}
	if got := rc.do("CONFIG", "SET", "tls-handshake-timeout", "3"); got != "+OK\r\n" || s.tls.handshakeTimeout.Load() != 3 {
		t.Errorf("CONFIG SET tls-handshake-timeout 3 = %q (now %d)", got, s.tls.handshakeTimeout.Load())
	}
}

// TestTLSQuitSendsCloseNotify checks that QUIT ends the TLS session with
// close_notify after +OK, which crypto/tls reports as io.EOF.
func TestTLSQuitSendsCloseNotify(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{})
	c := dialTLS(t, s.TLSAddr(), p.clientConfig())
	r := bufio.NewReader(c)
	if got := tlsDo(t, c, r, "QUIT"); got != "+OK\r\n" {
		t.Fatalf("QUIT = %q", got)
	}
	if _, err := r.ReadByte(); err != io.EOF {
		t.Errorf("after QUIT: %v, want io.EOF (close_notify)", err)
	}
}

// TestTLSEmbeddedSplitCommandsAllocateNothing cuts a pipeline into records
// that split commands and checks that the pending buffers come from the
// loop's pool in steady state.
func TestTLSEmbeddedSplitCommandsAllocateNothing(t *testing.T) {
	e, cl, err := NewEmbeddedTLS(Options{Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	req, want := embeddedTLSPipeline(20)
	in := make([]byte, 0, 2*len(req)+4096)
	var got []byte
	step := func() {
		got = got[:0]
		for off := 0; off < len(req) && err == nil; off += 37 {
			in = cl.Seal(in[:0], req[off:min(off+37, len(req))])
			got, err = cl.Open(got, e.Feed(in)) // one record per Feed: commands wait in pending
		}
	}
	step()
	if err != nil || string(got) != want {
		t.Fatalf("replies %q, %v; want %q", got, err, want)
	}
	if a := testing.AllocsPerRun(200, step); a != 0 {
		t.Errorf("%.1f allocations per batch, want 0", a)
	}
	if e.cs.pending != nil {
		t.Errorf("pending holds %d bytes after a complete pipeline", len(e.cs.pending))
	}
}

// TestTLSOnlyServerHasNoPlaintextPort serves TLS with the plaintext port
// disabled (Port < 0; --port 0 on the command line) and verifies clients
// against a CA directory.
func TestTLSOnlyServerHasNoPlaintextPort(t *testing.T) {
	p := newTestPKI(t)
	dir := t.TempDir()
	raw, err := os.ReadFile(p.caFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ca.pem"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	s := startTLSServer(t, p, Options{Port: -1, TLS: TLSOptions{CACertDir: dir}})
	if s.Addr() != "" {
		t.Errorf("Addr() = %q, want none", s.Addr())
	}
	cfg := p.clientConfig()
	cfg.Certificates = []tls.Certificate{p.clientPair(t)}
	c := dialTLS(t, s.TLSAddr(), cfg)
	if got := tlsDo(t, c, bufio.NewReader(c), "CONFIG", "GET", "tls-auth-clients"); got != multibulk("tls-auth-clients", "yes") {
		t.Errorf("tls-auth-clients with a CA directory = %q, want yes", got)
	}
}

// TestTLSAuthClientsUserCNLogsInByCertificate checks Valkey's
// tls-auth-clients-user CN: a verified certificate whose CN names an ACL
// user logs the client in as that user without AUTH.
func TestTLSAuthClientsUserCNLogsInByCertificate(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{RequirePass: "pw", TLS: TLSOptions{CACertFile: p.caFile, AuthClientsUser: "CN"}})
	admin := dialRaw(t, s.Addr())
	if got := admin.do("AUTH", "pw"); got != "+OK\r\n" {
		t.Fatalf("AUTH = %q", got)
	}
	if got := admin.do("ACL", "SETUSER", "alice", "on", "nopass", "+@all", "~*"); got != "+OK\r\n" {
		t.Fatalf("ACL SETUSER = %q", got)
	}
	cfg := p.clientConfig()
	cfg.Certificates = []tls.Certificate{p.clientPair(t)}
	c := dialTLS(t, s.TLSAddr(), cfg)
	r := bufio.NewReader(c)
	if got := tlsDo(t, c, r, "SET", "k", "v"); got != "+OK\r\n" {
		t.Errorf("SET as alice = %q", got)
	}
	if got := tlsDo(t, c, r, "ACL", "WHOAMI"); got != "$5\r\nalice\r\n" {
		t.Errorf("ACL WHOAMI = %q, want alice", got)
	}
	if got := admin.do("CONFIG", "SET", "tls-auth-clients-user", "off"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET tls-auth-clients-user off = %q", got)
	}
	c2 := dialTLS(t, s.TLSAddr(), cfg)
	if got := tlsDo(t, c2, bufio.NewReader(c2), "GET", "k"); !strings.HasPrefix(got, "-NOAUTH") {
		t.Errorf("GET with the setting off = %q, want -NOAUTH", got)
	}
}

// TestTLSAuthClientsUserURILogsInByURISAN maps a verified certificate's
// URI subject alternative names to users: the first URI that names an
// enabled user logs the client in; the CN does not count in URI mode.
func TestTLSAuthClientsUserURILogsInByURISAN(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{RequirePass: "pw", TLS: TLSOptions{CACertFile: p.caFile, AuthClientsUser: "URI"}})
	admin := dialRaw(t, s.Addr())
	for _, cmd := range [][]string{
		{"AUTH", "pw"},
		{"ACL", "SETUSER", "spiffe://example.org/app", "on", "nopass", "+@all", "~*"},
		{"ACL", "SETUSER", "alice", "on", "nopass", "+@all", "~*"},
	} {
		if got := admin.do(cmd...); got != "+OK\r\n" {
			t.Fatalf("%q = %q", cmd, got)
		}
	}
	if got := admin.do("CONFIG", "GET", "tls-auth-clients-user"); got != "*2\r\n$21\r\ntls-auth-clients-user\r\n$3\r\nURI\r\n" {
		t.Errorf("CONFIG GET tls-auth-clients-user = %q", got)
	}
	dialAs := func(cn string, uris ...string) (*tls.Conn, *bufio.Reader) {
		cert, key := p.issueWith(t, "uri-"+cn, cn, nil, func(c *x509.Certificate) {
			for _, u := range uris {
				parsed, err := url.Parse(u)
				if err != nil {
					t.Fatal(err)
				}
				c.URIs = append(c.URIs, parsed)
			}
		})
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			t.Fatal(err)
		}
		cfg := p.clientConfig()
		cfg.Certificates = []tls.Certificate{pair}
		c := dialTLS(t, s.TLSAddr(), cfg)
		return c, bufio.NewReader(c)
	}
	c, r := dialAs("alice", "urn:nobody", "spiffe://example.org/app")
	if got := tlsDo(t, c, r, "ACL", "WHOAMI"); got != "$24\r\nspiffe://example.org/app\r\n" {
		t.Errorf("ACL WHOAMI with a URI SAN naming a user = %q", got)
	}
	c, r = dialAs("alice") // CN names a user, no URI: not logged in
	if got := tlsDo(t, c, r, "GET", "k"); !strings.HasPrefix(got, "-NOAUTH") {
		t.Errorf("GET with no URI SAN = %q, want -NOAUTH", got)
	}
	if got := admin.do("CONFIG", "SET", "tls-auth-clients-user", "cn"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET tls-auth-clients-user cn = %q", got)
	}
	c, r = dialAs("alice", "spiffe://example.org/app")
	if got := tlsDo(t, c, r, "ACL", "WHOAMI"); got != "$5\r\nalice\r\n" {
		t.Errorf("ACL WHOAMI in CN mode = %q, want alice", got)
	}
	if got := admin.do("CONFIG", "SET", "tls-auth-clients-user", "dns"); !strings.HasPrefix(got, "-ERR") {
		t.Errorf("CONFIG SET tls-auth-clients-user dns = %q, want an error", got)
	}
}

// TestTLS12LargeValuesRoundTrip moves values larger than a record both
// ways over TLS 1.2, whose records carry an explicit nonce.
func TestTLS12LargeValuesRoundTrip(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{})
	for _, suite := range []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256} {
		cfg := p.clientConfig()
		cfg.MaxVersion, cfg.CipherSuites = tls.VersionTLS12, []uint16{suite}
		rdb := redis.NewClient(&redis.Options{Addr: s.TLSAddr(), TLSConfig: cfg, PoolSize: 1})
		ctx := context.Background()
		big := strings.Repeat("z", 70<<10)
		if err := rdb.Set(ctx, "big12", big, 0).Err(); err != nil {
			t.Fatalf("suite %x: SET: %v", suite, err)
		}
		if v, err := rdb.Get(ctx, "big12").Result(); err != nil || v != big {
			t.Errorf("suite %x: GET returned %d bytes, %v", suite, len(v), err)
		}
		rdb.Close()
	}
}

// TestTLSGroupsP521 checks that tls-groups takes P-521 (secp521r1) for
// TLS 1.3 and 1.2, and that a group left out of it is refused.
func TestTLSGroupsP521(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{TLS: TLSOptions{Groups: "secp521r1"}})
	for _, v := range []uint16{tls.VersionTLS13, tls.VersionTLS12} {
		cfg := p.clientConfig()
		cfg.MinVersion, cfg.MaxVersion = v, v
		cfg.CurvePreferences = []tls.CurveID{tls.CurveP521}
		c := dialTLS(t, s.TLSAddr(), cfg)
		if got := tlsDo(t, c, bufio.NewReader(c), "PING"); got != "+PONG\r\n" || c.ConnectionState().CurveID != tls.CurveP521 {
			t.Errorf("version %x: PING = %q, curve %v", v, got, c.ConnectionState().CurveID)
		}
		cfg.CurvePreferences = []tls.CurveID{tls.X25519, tls.CurveP256}
		if c, err := tls.Dial("tcp", s.TLSAddr(), cfg); err == nil {
			c.Close()
			t.Errorf("version %x: a client without P-521 got through", v)
		}
	}
}
