package server

import (
	"bufio"
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopkv/loopkv/tlsengine"
)

// healthyClient keeps an established TLS client sending PING every 50 ms
// until the test ends, and fails the test if one goes unanswered.
func healthyClient(t *testing.T, s *Server, p *testPKI) (stop func() int64) {
	t.Helper()
	c := dialTLS(t, s.TLSAddr(), p.clientConfig())
	r := bufio.NewReader(c)
	var n atomic.Int64
	var quit atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !quit.Load() {
			_ = c.SetDeadline(time.Now().Add(2 * time.Second))
			if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
				t.Errorf("established client: write: %v", err)
				return
			}
			line, err := r.ReadString('\n')
			if err != nil || line != "+PONG\r\n" {
				t.Errorf("established client: %q, %v", line, err)
				return
			}
			n.Add(1)
			time.Sleep(50 * time.Millisecond)
		}
	}()
	return func() int64 { quit.Store(true); wg.Wait(); return n.Load() }
}

// readAlert reads until the server closes and returns the fatal alert of
// the first plaintext alert record it sent, or -1.
func readAlert(t *testing.T, c net.Conn, within time.Duration) (alert int, closed bool) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(within))
	b, err := io.ReadAll(c)
	var ne net.Error
	timedOut := errors.As(err, &ne) && ne.Timeout()
	for i := 0; i+7 <= len(b); i++ {
		if b[i] == 21 && b[i+1] == 3 && b[i+3] == 0 && b[i+4] == 2 && b[i+5] == 2 {
			return int(b[i+6]), !timedOut
		}
	}
	return -1, !timedOut
}

// clientHelloBytes returns the first flight of a Go TLS client with cfg.
func clientHelloBytes(t *testing.T, cfg *tls.Config) []byte {
	t.Helper()
	a, b := net.Pipe()
	go func() { _ = tls.Client(a, cfg).Handshake() }()
	buf := make([]byte, 16<<10)
	_ = b.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := b.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	b.Close()
	return buf[:n]
}

// sslv2Hello is an SSL 2.0-format ClientHello (RFC 6101, Appendix E.2)
// offering SSL 3.0.
var sslv2Hello = []byte{0x80, 0x2e, 0x01, 0x03, 0x00, 0x00, 0x15, 0x00, 0x00, 0x00, 0x10,
	0x00, 0x00, 0x39, 0x00, 0x00, 0x38, 0x00, 0x00, 0x35, 0x00, 0x00, 0x16, 0x00, 0x00, 0x13, 0x00, 0x00, 0x0a,
	0x07, 0x00, 0xc0, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f}

var hostileInputs = []struct {
	name  string
	input func(t *testing.T, p *testPKI) []byte
	alert tlsengine.Alert
}{
	{"http-request", func(*testing.T, *testPKI) []byte { return []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n") }, 0},
	{"resp-plaintext", func(*testing.T, *testPKI) []byte { return []byte("*1\r\n$4\r\nPING\r\n") }, 0},
	{"random-garbage", func(*testing.T, *testPKI) []byte { return []byte("\x16\x03\x03\x00\x05\xff\xff\xff\xff\xff") }, 0},
	{"sslv2-hello", func(*testing.T, *testPKI) []byte { return sslv2Hello }, 0},
	{"tls10-only-hello", func(t *testing.T, p *testPKI) []byte {
		cfg := p.clientConfig()
		cfg.MinVersion, cfg.MaxVersion = tls.VersionTLS10, tls.VersionTLS10
		return clientHelloBytes(t, cfg)
	}, tlsengine.AlertProtocolVersion},
}

// TestTLSHostileHellosGetAnAlert sends bytes that are not a usable TLS
// hello and expects a fatal alert and a close, while an established
// client keeps working.
func TestTLSHostileHellosGetAnAlert(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{})
	stop := healthyClient(t, s, p)
	for _, tt := range hostileInputs {
		c, err := net.Dial("tcp", s.TLSAddr())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write(tt.input(t, p)); err != nil {
			t.Fatal(err)
		}
		alert, closed := readAlert(t, c, 5*time.Second)
		c.Close()
		if alert < 0 || !closed {
			t.Errorf("%s: alert %d, closed %v; want a fatal alert and a close", tt.name, alert, closed)
			continue
		}
		if tt.alert != 0 && tlsengine.Alert(alert) != tt.alert {
			t.Errorf("%s: alert %v, want %v", tt.name, tlsengine.Alert(alert), tt.alert)
		}
		t.Logf("%s: %v", tt.name, tlsengine.Alert(alert))
	}
	if n := stop(); n == 0 {
		t.Error("established client made no progress")
	}
	if f := s.tls.stats.failed.Load(); f != int64(len(hostileInputs)) {
		t.Errorf("tls_handshakes_failed = %d, want %d", f, len(hostileInputs))
	}
}

// TestTLSSlowClientsHitHandshakeTimeout holds one client that sends a
// byte a second and one that stops halfway through its hello; both are
// closed after tls-handshake-timeout.
func TestTLSSlowClientsHitHandshakeTimeout(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{TLS: TLSOptions{HandshakeTimeout: 1}})
	stop := healthyClient(t, s, p)
	hello := clientHelloBytes(t, p.clientConfig())
	slow, err := net.Dial("tcp", s.TLSAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	half, err := net.Dial("tcp", s.TLSAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer half.Close()
	if _, err := half.Write(hello[:len(hello)/2]); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	closed := make(chan time.Duration, 1)
	go func() {
		for i := 0; i < len(hello); i++ {
			if _, err := slow.Write(hello[i : i+1]); err != nil {
				closed <- time.Since(start)
				return
			}
			time.Sleep(time.Second / 4) // four bytes a second: the hello needs minutes
		}
		closed <- -1
	}()
	if _, c := readAlert(t, half, 5*time.Second); !c {
		t.Error("half-hello client not closed within 5 s")
	}
	select {
	case d := <-closed:
		if d < 0 || d > 5*time.Second {
			t.Errorf("slow client closed after %v", d)
		}
	case <-time.After(8 * time.Second):
		t.Error("slow client not closed within 8 s")
	}
	if n := stop(); n == 0 {
		t.Error("established client made no progress")
	}
	if n := s.tls.stats.timeouts.Load(); n != 2 {
		t.Errorf("tls_handshake_timeouts = %d, want 2", n)
	}
	if n := s.tls.stats.inFlight.Load(); n != 0 {
		t.Errorf("tls_handshakes_in_flight = %d after the timeouts, want 0", n)
	}
}

// TestTLSMaxHandshakesRefusesBeyondLimit keeps two idle handshakes open
// and expects a third connection to get internal_error at once.
func TestTLSMaxHandshakesRefusesBeyondLimit(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{TLS: TLSOptions{MaxHandshakes: 2}})
	var idle []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", s.TLSAddr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		idle = append(idle, c)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.tls.stats.inFlight.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	c, err := net.Dial("tcp", s.TLSAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if a, closed := readAlert(t, c, 5*time.Second); tlsengine.Alert(a) != tlsengine.AlertInternalError || !closed {
		t.Errorf("third handshake: alert %d, closed %v; want internal_error and a close", a, closed)
	}
	for _, c := range idle {
		c.Close()
	}
	deadline = time.Now().Add(5 * time.Second)
	for s.tls.stats.inFlight.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	ok := dialTLS(t, s.TLSAddr(), p.clientConfig())
	if got := tlsDo(t, ok, bufio.NewReader(ok), "PING"); got != "+PONG\r\n" {
		t.Errorf("after the idle ones left: PING = %q", got)
	}
}

var mtlsRefusalTests = []struct {
	name    string
	cert    func(t *testing.T, p, other *testPKI) []tls.Certificate
	wantErr string // crypto/tls's text for the alert
}{
	{"no-certificate", func(*testing.T, *testPKI, *testPKI) []tls.Certificate { return nil }, "certificate required"},
	{"unknown-ca", func(t *testing.T, _, other *testPKI) []tls.Certificate {
		return []tls.Certificate{other.clientPair(t)}
	}, "unknown certificate authority"},
}

// TestTLSAuthClientsYesRefusesWithTheRightAlert checks mutual TLS refusals.
func TestTLSAuthClientsYesRefusesWithTheRightAlert(t *testing.T) {
	p, other := newTestPKI(t), newTestPKI(t)
	s := startTLSServer(t, p, Options{TLS: TLSOptions{CACertFile: p.caFile, AuthClients: "yes"}})
	for _, tt := range mtlsRefusalTests {
		cfg := p.clientConfig()
		cfg.Certificates = tt.cert(t, p, other)
		c, err := tls.Dial("tcp", s.TLSAddr(), cfg)
		if err == nil {
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			_, _ = c.Write([]byte("*1\r\n$4\r\nPING\r\n"))
			_, err = c.Read(make([]byte, 64))
			c.Close()
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
		}
	}
	if n := s.tls.stats.byAlert[tlsengine.AlertCertificateRequired].Load(); n != 1 {
		t.Errorf("certificate_required failures = %d, want 1", n)
	}
	if n := s.tls.stats.byAlert[tlsengine.AlertUnknownCA].Load(); n != 1 {
		t.Errorf("unknown_ca failures = %d, want 1", n)
	}
}

// The TLS tests that start a server also run on every engine
// (engines_test.go).
func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"TLSHostileHellosGetAnAlert", TestTLSHostileHellosGetAnAlert},
		{"TLSSlowClientsHitHandshakeTimeout", TestTLSSlowClientsHitHandshakeTimeout},
		{"TLSMaxHandshakesRefusesBeyondLimit", TestTLSMaxHandshakesRefusesBeyondLimit},
		{"TLSAuthClientsYesRefusesWithTheRightAlert", TestTLSAuthClientsYesRefusesWithTheRightAlert},
		{"TLSRedisCLI", TestTLSRedisCLI},
		{"TLSOpenSSLSClient", TestTLSOpenSSLSClient},
		{"TLSRedisBenchmarkSmoke", TestTLSRedisBenchmarkSmoke},
		{"TLSReloadUnderLoad", TestTLSReloadUnderLoad},
		{"TLSRSAUsesWorkerPool", TestTLSRSAUsesWorkerPool},
		{"TLSInfoSection", TestTLSInfoSection},
		{"TLSClientsLeavingBeforeTheirTicketLeaveTheLoopClean", TestTLSClientsLeavingBeforeTheirTicketLeaveTheLoopClean},
		{"TLSSNISelectsTheNamedCertificate", TestTLSSNISelectsTheNamedCertificate},
		{"TLSEncryptedKeyFileNeedsItsPassword", TestTLSEncryptedKeyFileNeedsItsPassword},
		{"TLSProtocolsBoundTheVersion", TestTLSProtocolsBoundTheVersion},
		{"TLSConfigGetReportsSettings", TestTLSConfigGetReportsSettings},
		{"TLSQuitSendsCloseNotify", TestTLSQuitSendsCloseNotify},
		{"TLSFullWorkerQueueRefusesHandshakes", TestTLSFullWorkerQueueRefusesHandshakes},
		{"TLSOnlyServerHasNoPlaintextPort", TestTLSOnlyServerHasNoPlaintextPort},
		{"TLSAuthClientsUserCNLogsInByCertificate", TestTLSAuthClientsUserCNLogsInByCertificate},
		{"TLSAuthClientsUserURILogsInByURISAN", TestTLSAuthClientsUserURILogsInByURISAN},
		{"TLSMaxClientsRepliesInsideTheSession", TestTLSMaxClientsRepliesInsideTheSession},
		{"TLSGroupsP521", TestTLSGroupsP521},
		{"TLSPartialClientHelloCountsInQueryBuffer", TestTLSPartialClientHelloCountsInQueryBuffer},
		{"TLSAlertSurvivesAPeerStillSending", TestTLSAlertSurvivesAPeerStillSending},
		{"TLSInputWhileHandshakeWaitsIsBounded", TestTLSInputWhileHandshakeWaitsIsBounded},
		{"TLS12LargeValuesRoundTrip", TestTLS12LargeValuesRoundTrip},
	}...)
}

// gatedSigner is an RSA key whose signatures wait for a gate to open.
type gatedSigner struct {
	*rsa.PrivateKey
	gate chan struct{}
}

func (g gatedSigner) Sign(r io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	<-g.gate
	return g.PrivateKey.Sign(r, digest, opts)
}

// gatedConfig returns a TLS config whose RSA certificate signs on the
// worker pool (AsyncSign) with a signer that waits for gate to close.
func gatedConfig(t *testing.T, p *testPKI, gate chan struct{}) *tlsengine.Config {
	t.Helper()
	rk := newRSAKey(t)
	certFile, _ := p.issue(t, "gated", "localhost", rk)
	raw, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := pem.Decode(raw)
	cert, err := tlsengine.NewCertificate([][]byte{b.Bytes}, gatedSigner{rk, gate})
	if err != nil {
		t.Fatal(err)
	}
	return &tlsengine.Config{Certificates: []*tlsengine.Certificate{cert},
		AsyncSign: func(tlsengine.SignatureScheme) bool { return true }}
}

// TestTLSFullWorkerQueueRefusesHandshakes holds the only worker on a
// signature, fills the one-slot queue, and expects the next handshake to
// be refused with internal_error while the held ones finish once the
// worker is freed.
func TestTLSFullWorkerQueueRefusesHandshakes(t *testing.T) {
	p := newTestPKI(t)
	gate := make(chan struct{})
	cfg := gatedConfig(t, p, gate)
	s := startTLSServer(t, p, Options{TLS: TLSOptions{Config: cfg, Workers: 1, WorkerQueue: 1}})
	held := make(chan error, 2)
	for range 2 {
		go func() {
			c, err := tls.Dial("tcp", s.TLSAddr(), p.clientConfig())
			if err == nil {
				c.Close()
			}
			held <- err
		}()
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.tls.queueDepth() < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if d := s.tls.queueDepth(); d != 2 {
		t.Fatalf("tls_worker_queue_depth = %d, want 2 (one running, one queued)", d)
	}
	_, err := tls.Dial("tcp", s.TLSAddr(), p.clientConfig())
	if err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Errorf("third handshake: %v, want internal_error", err)
	}
	close(gate)
	for range 2 {
		if err := <-held; err != nil {
			t.Errorf("held handshake: %v", err)
		}
	}
	if n := s.tls.stats.refused.Load(); n != 1 {
		t.Errorf("tls_handshakes_refused = %d, want 1", n)
	}
}

// TestTLSMaxClientsRepliesInsideTheSession fills maxclients: the next TLS
// client completes its handshake and reads Redis's error, sealed, then
// close_notify, as on the plaintext port; it is never counted as connected.
// redis-cli --tls prints the error.
func TestTLSMaxClientsRepliesInsideTheSession(t *testing.T) {
	cli := needTool(t, "redis-cli")
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{MaxClients: 1})
	c := dialTLS(t, s.TLSAddr(), p.clientConfig())
	r := bufio.NewReader(c)
	if got := tlsDo(t, c, r, "PING"); got != "+PONG\r\n" {
		t.Fatalf("PING = %q", got)
	}
	over := dialTLS(t, s.TLSAddr(), p.clientConfig())
	_ = over.SetDeadline(time.Now().Add(5 * time.Second))
	if got, err := io.ReadAll(over); string(got) != "-ERR max number of clients reached\r\n" || err != nil {
		t.Errorf("client over maxclients read %q, %v; want the error then close_notify (EOF)", got, err)
	}
	out, _ := exec.Command(cli, "--tls", "--cacert", p.caFile, "-p", strconv.Itoa(s.opts.TLS.Port), "PING").CombinedOutput()
	if !strings.Contains(string(out), "max number of clients reached") {
		t.Errorf("redis-cli --tls over maxclients printed %q", out)
	}
	if n := s.stats.rejectedConns.Load(); n != 2 {
		t.Errorf("rejected_connections = %d, want 2", n)
	}
	if n := s.connected.Load(); n != 1 {
		t.Errorf("connected = %d after the refusals, want 1", n)
	}
	if got := tlsDo(t, c, r, "PING"); got != "+PONG\r\n" {
		t.Errorf("first client after the refusals: PING = %q", got)
	}
}

// TestTLSInputWhileHandshakeWaitsIsBounded holds a handshake on a worker
// and floods the connection: it is closed once 1 MiB waits unread.
func TestTLSInputWhileHandshakeWaitsIsBounded(t *testing.T) {
	p := newTestPKI(t)
	gate := make(chan struct{})
	defer close(gate)
	cfg := gatedConfig(t, p, gate)
	s := startTLSServer(t, p, Options{TLS: TLSOptions{Config: cfg, Workers: 1}})
	c, err := net.Dial("tcp", s.TLSAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write(clientHelloBytes(t, p.clientConfig())); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.tls.queueDepth() < 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	junk := make([]byte, 64<<10)
	_ = c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	sent := 0
	for sent < 4<<20 {
		n, err := c.Write(junk)
		sent += n
		if err != nil {
			break
		}
	}
	// Closed (EOF or reset), not left waiting for the worker.
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("after %d bytes sent while the handshake waited the connection is still open", sent)
	}
}

// TestTLSPartialClientHelloCountsInQueryBuffer: the part of a large
// ClientHello the engine holds (it may reach 128 KiB) counts in the
// handshaking connection's budget, seen as its qbuf in CLIENT LIST.
func TestTLSPartialClientHelloCountsInQueryBuffer(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{})
	c, err := net.Dial("tcp", s.TLSAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := 120 << 10
	hello := append([]byte{1, byte(body >> 16), byte(body >> 8), byte(body)}, make([]byte, 100<<10)...)
	for off := 0; off < len(hello); off += 1 << 14 {
		frag := hello[off:min(off+1<<14, len(hello))]
		if _, err := c.Write(append([]byte{22, 3, 1, byte(len(frag) >> 8), byte(len(frag))}, frag...)); err != nil {
			t.Fatal(err)
		}
	}
	admin := dialRaw(t, s.Addr())
	want := "qbuf=" + strconv.Itoa(len(hello)) + " "
	waitFor(t, func() bool { return strings.Contains(admin.do("CLIENT", "LIST"), want) }, "the held ClientHello in qbuf")
}

// TestTLSAlertSurvivesAPeerStillSending: a handshake message refused at its
// header while the client is still sending it (here a ClientHello claiming
// 192 KiB, the next 256 KiB of it already on the way) gets its alert read:
// the server shuts its write side and drains instead of closing, which
// would make the kernel reset the connection and drop the alert.
func TestTLSAlertSurvivesAPeerStillSending(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{})
	for i := 0; i < 2; i++ {
		c, err := net.Dial("tcp", s.TLSAddr())
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		in := []byte{22, 3, 1, 0, 4, 1, 3, 0, 0} // ClientHello of 192 KiB
		frag := append([]byte{22, 3, 1, 0x40, 0}, make([]byte, 1<<14)...)
		for len(in) < 256<<10 {
			in = append(in, frag...)
		}
		// Read only after writing everything: a reset would have discarded
		// the alert by then.
		if _, err := c.Write(in); err != nil {
			t.Fatalf("#%d: write: %v", i, err)
		}
		got, err := io.ReadAll(c)
		c.Close()
		if want := []byte{21, 3, 3, 0, 2, 2, byte(tlsengine.AlertDecodeError)}; !bytes.Equal(got, want) || err != nil {
			t.Fatalf("#%d: read %x, %v; want the alert %x, then end of file", i, got, err, want)
		}
	}
}
