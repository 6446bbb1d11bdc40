package tlsengine

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ---- TLS 1.2 interop with crypto/tls -------------------------------------------

// clientConfig12 is a crypto/tls client pinned to TLS 1.2.
func clientConfig12(p *testPKI) *tls.Config {
	return &tls.Config{RootCAs: p.pool, ServerName: "example.com", MaxVersion: tls.VersionTLS12}
}

// config12 is a server Config with TLS 1.2 and 1.3 enabled.
func config12(certs ...*Certificate) *Config {
	return &Config{Certificates: certs, MinVersion: VersionTLS12}
}

var suites12 = []struct {
	id   uint16
	sni  string // the certificate the suite needs
	cert string
}{
	{TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, "example.com", "ECDSA-P256"},
	{TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, "example.com", "ECDSA-P256"},
	{TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, "example.com", "ECDSA-P256"},
	{TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, "rsa.test", "RSA-2048"},
	{TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, "rsa.test", "RSA-2048"},
	{TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256, "rsa.test", "RSA-2048"},
}

var groups12 = interopGroups[1:] // X25519, P-256, P-384: no hybrid group in TLS 1.2

func TestTLS12InteropMatrixSuitesGroupsCertificates(t *testing.T) {
	p := loadPKI(t)
	msgs := [][]byte{[]byte("hello"), bytes.Repeat([]byte{7}, 20000)}
	for _, s := range suites12 {
		for _, g := range groups12 {
			cfg := config12(p.p256, p.rsa)
			cfg.CurvePreferences = []CurveID{g.our}
			cc := clientConfig12(p)
			cc.ServerName, cc.CipherSuites, cc.CurvePreferences = s.sni, []uint16{s.id}, []tls.CurveID{g.go_}
			r, serr, e := runInterop(t, cfg, cc, feedWhole, msgs)
			name := tls.CipherSuiteName(s.id) + "/" + g.name + "/" + s.cert
			if !wantOK(t, name, r, serr) {
				continue
			}
			st := e.ConnectionState()
			if r.state.Version != tls.VersionTLS12 || st.Version != VersionTLS12 {
				t.Errorf("%s: version %x/%x", name, r.state.Version, st.Version)
			}
			if r.state.CipherSuite != s.id || st.CipherSuite != s.id || st.CurveID != g.our || r.state.CurveID != g.go_ {
				t.Errorf("%s: suite %x/%x curve %v/%v", name, r.state.CipherSuite, st.CipherSuite, st.CurveID, r.state.CurveID)
			}
			if got := r.state.PeerCertificates[0].DNSNames[0]; got != s.sni {
				t.Errorf("%s: served certificate for %q", name, got)
			}
			if e.hs != nil {
				t.Errorf("%s: handshake state retained", name)
			}
		}
	}
}

func TestTLS12InteropInputWholeByRecordAndByteByByte(t *testing.T) {
	p := loadPKI(t)
	for _, mode := range []feedMode{feedWhole, feedRecord, feedByte} {
		for _, sni := range []string{"example.com", "rsa.test"} {
			cc := clientConfig12(p)
			cc.ServerName = sni
			r, serr, e := runInterop(t, config12(p.p256, p.rsa), cc, mode, echoMsgs)
			name := fmt.Sprintf("mode %d %s", mode, sni)
			if wantOK(t, name, r, serr) && e.ConnectionState().Version != VersionTLS12 {
				t.Errorf("%s: version %x", name, e.ConnectionState().Version)
			}
		}
	}
}

func TestTLS12InteropResumptionWithTickets(t *testing.T) {
	p := loadPKI(t)
	keys, err := NewTicketKeys(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []uint16{TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256} {
		cfg := config12(p.p256)
		cfg.TicketKeys = keys
		cc := clientConfig12(p)
		cc.CipherSuites = []uint16{s}
		cc.ClientSessionCache = tls.NewLRUClientSessionCache(4)
		for i, wantResume := range []bool{false, true, true} {
			mode := feedRecord
			if i == 2 {
				mode = feedByte
			}
			r, serr, e := runInterop(t, cfg, cc, mode, echoMsgs[:1])
			name := fmt.Sprintf("%s #%d", tls.CipherSuiteName(s), i)
			if !wantOK(t, name, r, serr) {
				break
			}
			if r.state.DidResume != wantResume || e.ConnectionState().DidResume != wantResume {
				t.Errorf("%s: DidResume client %v server %v, want %v", name, r.state.DidResume, e.ConnectionState().DidResume, wantResume)
			}
			if e.ConnectionState().CipherSuite != s {
				t.Errorf("%s: suite %x", name, e.ConnectionState().CipherSuite)
			}
		}
	}
	// Rotated twice the issuing key is still held; three rotations drop it.
	cfg := config12(p.p256)
	cfg.TicketKeys = keys
	cc := clientConfig12(p)
	cc.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	if r, serr, _ := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1]); !wantOK(t, "issue", r, serr) {
		return
	}
	for i := 0; i < ticketKeysKept; i++ {
		keys.Rotate(rand.Reader)
	}
	r, serr, e := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1])
	if wantOK(t, "rotated", r, serr) && e.ConnectionState().DidResume {
		t.Error("resumed with a ticket whose key was rotated out")
	}
}

func TestTLS12TicketsAreNotSharedWithTLS13(t *testing.T) {
	p := loadPKI(t)
	keys, _ := NewTicketKeys(rand.Reader)
	cfg := config12(p.p256)
	cfg.TicketKeys = keys
	cache := tls.NewLRUClientSessionCache(4)
	cc := clientConfig12(p)
	cc.ClientSessionCache = cache
	if r, serr, _ := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1]); !wantOK(t, "1.2", r, serr) {
		return
	}
	cc13 := clientConfig(p)
	cc13.ClientSessionCache = cache
	r, serr, e := runInterop(t, cfg, cc13, feedWhole, echoMsgs[:1])
	if wantOK(t, "1.3", r, serr) && (e.ConnectionState().DidResume || e.ConnectionState().Version != VersionTLS13) {
		t.Errorf("1.3 connection resumed %v version %x", e.ConnectionState().DidResume, e.ConnectionState().Version)
	}
}

// clientCertTests12: RFC 5246, Section 7.4.6: no certificate under
// RequireClientCert is handshake_failure (certificate_required is TLS 1.3's).
var clientCertTests12 = []struct {
	name  string
	mode  ClientAuthMode
	cert  string // "", "good" or "other-ca"
	async bool
	suite uint16
	alert Alert // 0: success
	leaf  bool
}{
	{"request-none", RequestClientCert, "", false, 0, 0, false},
	{"request-good", RequestClientCert, "good", false, 0, 0, true},
	{"require-good", RequireClientCert, "good", false, 0, 0, true},
	{"require-good-sha384-suite", RequireClientCert, "good", false, TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, 0, true},
	{"require-good-async", RequireClientCert, "good", true, 0, 0, true},
	{"require-none", RequireClientCert, "", false, 0, AlertHandshakeFailure, false},
	{"require-unknown-ca", RequireClientCert, "other-ca", false, 0, AlertUnknownCA, false},
	{"require-unknown-ca-async", RequireClientCert, "other-ca", true, 0, AlertUnknownCA, false},
}

func TestTLS12InteropClientCertificates(t *testing.T) {
	p := loadPKI(t)
	for _, tt := range clientCertTests12 {
		cfg := config12(p.p256)
		cfg.ClientAuth, cfg.ClientCAs, cfg.AsyncVerify = tt.mode, p.pool, tt.async
		cc := clientConfig12(p)
		if tt.suite != 0 {
			cc.CipherSuites = []uint16{tt.suite}
		}
		if tt.cert != "" {
			c := p.client
			if tt.cert == "other-ca" {
				c = p.otherCA
			}
			cc.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &c, nil }
		}
		r, serr, e := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1])
		wantClientAuth(t, tt.name, r, serr, e, tt.alert, tt.leaf)
	}
}

func TestTLS12ResumptionKeepsClientCertificate(t *testing.T) {
	p := loadPKI(t)
	keys, _ := NewTicketKeys(rand.Reader)
	cfg := config12(p.p256)
	cfg.TicketKeys, cfg.ClientAuth, cfg.ClientCAs = keys, RequireClientCert, p.pool
	cc := clientConfig12(p)
	cc.Certificates = []tls.Certificate{p.client}
	cc.ClientSessionCache = tls.NewLRUClientSessionCache(2)
	for i, want := range []bool{false, true} {
		r, serr, e := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1])
		if !wantOK(t, fmt.Sprint("#", i), r, serr) {
			return
		}
		st := e.ConnectionState()
		if st.DidResume != want || r.state.DidResume != want || st.VerifiedLeaf == nil || st.VerifiedLeaf.Subject.CommonName != "client" {
			t.Errorf("#%d: resumed %v/%v, leaf %v", i, st.DidResume, r.state.DidResume, st.VerifiedLeaf)
		}
	}
}

var alpnSNITests12 = []struct {
	server, client []string
	sni, wantCert  string
	want           string
	fail           bool
}{
	{[]string{"redis", "h2"}, []string{"h2", "redis"}, "example.com", "example.com", "redis", false},
	{[]string{"redis"}, nil, "rsa.test", "rsa.test", "", false},
	{nil, []string{"h2"}, "a.wild.test", "example.com", "", false},
	{[]string{"redis"}, []string{"h2"}, "example.com", "", "", true},
}

func TestTLS12InteropALPNAndSNI(t *testing.T) {
	p := loadPKI(t)
	for i, tt := range alpnSNITests12 {
		cfg := config12(p.p256, p.rsa)
		cfg.NextProtos = tt.server
		cc := clientConfig12(p)
		cc.NextProtos, cc.ServerName = tt.client, tt.sni
		r, serr, e := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1])
		if !wantALPN(t, fmt.Sprint("#", i), r, serr, e, tt.fail, tt.want) {
			continue
		}
		if got := r.state.PeerCertificates[0].DNSNames[0]; got != tt.wantCert {
			t.Errorf("#%d: SNI %q got certificate %q", i, tt.sni, got)
		}
		if e.ConnectionState().ServerName != tt.sni {
			t.Errorf("#%d: ServerName %q", i, e.ConnectionState().ServerName)
		}
	}
}

func TestTLS12InteropAsyncSign(t *testing.T) {
	p := loadPKI(t)
	var asked []SignatureScheme
	cfg := config12(p.p256, p.rsa)
	cfg.AsyncSign = func(s SignatureScheme) bool { asked = append(asked, s); return true }
	for _, mode := range []feedMode{feedWhole, feedByte} {
		for _, sni := range []string{"rsa.test", "example.com"} {
			cc := clientConfig12(p)
			cc.ServerName = sni
			r, serr, _ := runInterop(t, cfg, cc, mode, echoMsgs)
			wantOK(t, fmt.Sprintf("mode %d %s", mode, sni), r, serr)
		}
	}
	if len(asked) != 4 || asked[0] != PSSWithSHA256 || asked[1] != ECDSAWithP256AndSHA256 {
		t.Errorf("AsyncSign asked for %v", asked)
	}
}

// versionTests12 cover Config.MinVersion/MaxVersion against clients of
// each range: TLS 1.3 is preferred; 1.2 only when enabled.
var versionTests12 = []struct {
	min, max         uint16
	cmin, cmax, want uint16 // want 0: protocol_version
}{
	{0, 0, tls.VersionTLS12, tls.VersionTLS13, VersionTLS13},
	{0, 0, tls.VersionTLS12, tls.VersionTLS12, 0},
	{VersionTLS12, 0, tls.VersionTLS12, tls.VersionTLS13, VersionTLS13},
	{VersionTLS12, 0, tls.VersionTLS12, tls.VersionTLS12, VersionTLS12},
	{VersionTLS12, VersionTLS12, tls.VersionTLS12, tls.VersionTLS13, VersionTLS12},
	{VersionTLS12, VersionTLS12, tls.VersionTLS13, tls.VersionTLS13, 0},
	{VersionTLS13, VersionTLS12, tls.VersionTLS12, tls.VersionTLS13, 0}, // empty range
}

func TestTLS12VersionNegotiation(t *testing.T) {
	p := loadPKI(t)
	for i, tt := range versionTests12 {
		cfg := &Config{Certificates: []*Certificate{p.p256}, MinVersion: tt.min, MaxVersion: tt.max}
		cc := clientConfig(p)
		cc.MinVersion, cc.MaxVersion = tt.cmin, tt.cmax
		r, serr, e := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1])
		if tt.want == 0 {
			wantAlert(t, fmt.Sprint("#", i), r, serr, AlertProtocolVersion)
			continue
		}
		if wantOK(t, fmt.Sprint("#", i), r, serr) && (r.state.Version != tt.want || e.ConnectionState().Version != tt.want) {
			t.Errorf("#%d: version %x/%x, want %x", i, r.state.Version, e.ConnectionState().Version, tt.want)
		}
	}
}

// serverRandom12 feeds ch to a fresh Engine and returns ServerHello.random.
func serverRandom12(t *testing.T, cfg *Config, ch []byte) []byte {
	t.Helper()
	e := NewEngine(cfg)
	if _, _, err := e.Read(ch, nil); err != nil {
		t.Fatal(err)
	}
	out := e.AppendOutput(nil)
	var sh serverHelloMsg
	if len(out) < 9 || out[0] != recordTypeHandshake || !sh.unmarshal(out[5:9+(int(out[6])<<16|int(out[7])<<8|int(out[8]))]) {
		t.Fatalf("no ServerHello in %x", out[:min(len(out), 16)])
	}
	return sh.random
}

// TestTLS12DowngradeSentinel checks RFC 8446, Section 4.1.3: the sentinel
// ends ServerHello.random when TLS 1.3 is enabled but 1.2 is negotiated,
// and is absent when the server is capped at 1.2 (a 1.3-capable crypto/tls
// client, which checks it, then connects).
func TestTLS12DowngradeSentinel(t *testing.T) {
	p := loadPKI(t)
	ch12 := clientHelloRecord(t, func(c *tls.Config) { c.MinVersion, c.MaxVersion = tls.VersionTLS12, tls.VersionTLS12 })
	ch13 := clientHelloRecord(t, func(c *tls.Config) { c.MinVersion = tls.VersionTLS12 })
	if got := serverRandom12(t, config12(p.p256), bytes.Clone(ch12)); string(got[24:]) != "DOWNGRD\x01" {
		t.Errorf("1.3 enabled, 1.2 negotiated: random ends %x", got[24:])
	}
	capped := config12(p.p256)
	capped.MaxVersion = VersionTLS12
	for _, ch := range [][]byte{ch12, ch13} {
		if got := serverRandom12(t, capped, bytes.Clone(ch)); bytes.HasPrefix(got[24:], []byte("DOWNGRD")) {
			t.Errorf("capped at 1.2: random ends %x", got[24:])
		}
	}
	cc := clientConfig(p)
	cc.MinVersion = tls.VersionTLS12
	r, serr, e := runInterop(t, capped, cc, feedWhole, echoMsgs[:1])
	if wantOK(t, "capped", r, serr) && (r.state.Version != tls.VersionTLS12 || e.ConnectionState().Version != VersionTLS12) {
		t.Errorf("capped: version %x", r.state.Version)
	}
}

// TestTLS12KeyLogMatchesClient compares the CLIENT_RANDOM line with the one
// crypto/tls writes.
func TestTLS12KeyLogMatchesClient(t *testing.T) {
	p := loadPKI(t)
	var ours, theirs bytes.Buffer
	cfg := config12(p.p256)
	cfg.KeyLog = &ours
	cc := clientConfig12(p)
	cc.KeyLogWriter = &theirs
	if r, serr, _ := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1]); !wantOK(t, "keylog", r, serr) {
		return
	}
	if !strings.HasPrefix(theirs.String(), "CLIENT_RANDOM ") || ours.String() != theirs.String() {
		t.Errorf("key log\nours   %q\ntheirs %q", ours.String(), theirs.String())
	}
}

// TestTLS12CloseNotify checks both directions of close_notify after data.
func TestTLS12CloseNotify(t *testing.T) {
	p := loadPKI(t)
	cc, sc := tcpPair(t)
	defer sc.Close()
	done := make(chan error, 1)
	go func() {
		c := tls.Client(cc, clientConfig12(p))
		defer cc.Close()
		if _, err := c.Write([]byte("x")); err != nil {
			done <- err
			return
		}
		b := make([]byte, 1)
		if _, err := io.ReadFull(c, b); err != nil {
			done <- err
			return
		}
		_, err := c.Read(b) // the server's close_notify: io.EOF
		done <- err
	}()
	e := NewEngine(config12(p.p256))
	d := &driver{t: t, e: e, conn: sc}
	d.onData = func(d *driver, b []byte) {
		d.echo(b)
		d.e.CloseNotify()
		d.flush()
	}
	serr := d.run()
	if err := <-done; err != io.EOF {
		t.Errorf("client read after close_notify: %v, want EOF", err)
	}
	if serr != nil && !errors.Is(serr, io.EOF) {
		t.Errorf("server: %v", serr)
	}
}

// ---- TLS 1.2 interop with openssl s_client -------------------------------------

// TestTLS12InteropOpenSSLClient covers every suite, a PKCS #1 v1.5 RSA
// signature, P-384, a client certificate and ticket resumption against
// openssl's TLS 1.2 client.
func TestTLS12InteropOpenSSLClient(t *testing.T) {
	p := loadPKI(t)
	keys, _ := NewTicketKeys(rand.Reader)
	dir := t.TempDir()
	sess := filepath.Join(dir, "sess.pem")
	certFile, keyFile := filepath.Join(dir, "client.pem"), filepath.Join(dir, "client.key")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.client.Certificate[0]}), 0o600)
	der, _ := x509.MarshalPKCS8PrivateKey(p.client.PrivateKey)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
	tests := []struct {
		name, sni string
		args      []string
		want      []string // in openssl's output
		auth      ClientAuthMode
	}{
		{"ECDHE-ECDSA-AES128-GCM-SHA256", "example.com", nil, nil, 0},
		{"ECDHE-ECDSA-AES256-GCM-SHA384", "example.com", nil, nil, 0},
		{"ECDHE-ECDSA-CHACHA20-POLY1305", "example.com", nil, nil, 0},
		{"ECDHE-RSA-AES128-GCM-SHA256", "rsa.test", nil, []string{"Peer signature type: RSA-PSS"}, 0},
		{"ECDHE-RSA-AES256-GCM-SHA384", "rsa.test", []string{"-groups", "P-384"}, []string{"Server Temp Key: ECDH, secp384r1"}, 0},
		{"ECDHE-RSA-CHACHA20-POLY1305", "rsa.test", []string{"-sigalgs", "RSA+SHA256"}, []string{"Peer signature type: RSA\n"}, 0},
		{"ECDHE-ECDSA-AES128-GCM-SHA256", "example.com", []string{"-cert", certFile, "-key", keyFile}, nil, RequireClientCert},
		{"ECDHE-ECDSA-AES256-GCM-SHA384", "example.com", []string{"-sess_out", sess}, []string{"New, TLSv1.2"}, 0},
		{"ECDHE-ECDSA-AES256-GCM-SHA384", "example.com", []string{"-sess_in", sess}, []string{"Reused, TLSv1.2"}, 0},
	}
	for i, tt := range tests {
		cfg := config12(p.p256, p.rsa)
		cfg.TicketKeys, cfg.ClientAuth, cfg.ClientCAs = keys, tt.auth, p.pool
		args := append([]string{"-cipher", tt.name}, tt.args...)
		e, serr, out := runOpenSSL(t, "-tls1_2", cfg, tt.sni, args, writeLines(fmt.Sprintf("PING-%d\n", i)))
		if e == nil || serr != nil && !e.done {
			t.Errorf("#%d %s: server %v\n%s", i, tt.name, serr, out)
			continue
		}
		want := append([]string{"Verify return code: 0 (ok)", "Protocol  : TLSv1.2", "Extended master secret: yes", "Secure Renegotiation IS supported", "Cipher    : " + tt.name, fmt.Sprintf("PING-%d", i)}, tt.want...)
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("#%d %s: %q missing from openssl output:\n%s", i, tt.name, w, out)
				break
			}
		}
		st := e.ConnectionState()
		if st.Version != VersionTLS12 || tls.CipherSuiteName(st.CipherSuite) == "" {
			t.Errorf("#%d: state %+v", i, st)
		}
		if wantResume := slices.Contains(tt.args, "-sess_in"); st.DidResume != wantResume {
			t.Errorf("#%d: DidResume %v", i, st.DidResume)
		}
		if tt.auth == RequireClientCert && st.VerifiedLeaf == nil {
			t.Errorf("#%d: client certificate not verified", i)
		}
	}
}

// TestTLS12OpenSSLRenegotiationIsRefused: s_client's "R" command starts a
// renegotiation; the engine answers with a warning no_renegotiation, which
// OpenSSL reports and then ends the connection with handshake_failure.
func TestTLS12OpenSSLRenegotiationIsRefused(t *testing.T) {
	p := loadPKI(t)
	e, serr, out := runOpenSSL(t, "-tls1_2", config12(p.p256), "example.com", nil, writeLines("R\n", "PING\n"))
	var ae *AlertError
	if e == nil || !e.done || !errors.As(serr, &ae) || !ae.Received || ae.Alert != AlertHandshakeFailure {
		t.Fatalf("server %v\n%s", serr, out)
	}
	if !strings.Contains(out, "RENEGOTIATING") || !strings.Contains(out, ":no renegotiation:") {
		t.Errorf("openssl output:\n%s", out)
	}
}

// ---- TLS 1.2 transcripts ------------------------------------------------------

// replayCases12 are recorded TLS 1.2 conversations, replayed like the TLS
// 1.3 ones (replay_test.go) with the same deterministic PKI (an Ed25519
// server certificate, RFC 8422) and Config, TLS 1.2 enabled, against a
// crypto/tls client pinned to 1.2.
var replayCases12 = []replayCase{
	{name: "Basic"},
	{name: "ALPN", server: func(c *Config, _ *replayPKI) { c.NextProtos = []string{"redis"} },
		client: func(c *tls.Config, _ *replayPKI) { c.NextProtos = []string{"h2", "redis"} }},
	{name: "Resumed", resume: true},
}

// TestReplayTranscriptsTLS12 replays testdata/Server-TLSv12-* and requires
// byte-identical server output; go test -run Replay -update re-records
// them against crypto/tls.
func TestReplayTranscriptsTLS12(t *testing.T) {
	replayTranscripts(t, "Server-TLSv12-", replayCases12, VersionTLS12)
}

func TestTLS12InteropEd25519Certificate(t *testing.T) {
	p := loadPKI(t)
	for _, s := range suites12[:3] {
		cc := clientConfig12(p)
		cc.ServerName, cc.CipherSuites = "ed.test", []uint16{s.id}
		r, serr, e := runInterop(t, config12(p.p256, p.ed, p.rsa), cc, feedWhole, echoMsgs[:1])
		name := tls.CipherSuiteName(s.id)
		if wantOK(t, name, r, serr) && (r.state.PeerCertificates[0].DNSNames[0] != "ed.test" || e.ConnectionState().CipherSuite != s.id) {
			t.Errorf("%s: certificate %q suite %x", name, r.state.PeerCertificates[0].DNSNames[0], e.ConnectionState().CipherSuite)
		}
	}
}
