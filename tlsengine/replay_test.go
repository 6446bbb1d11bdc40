package tlsengine

import (
	"bufio"
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "re-record testdata/Server-TLSv13-* against crypto/tls")

// Transcripts fix everything the server draws: Rand (a counter), Now, the
// ticket keys, an Ed25519 certificate (deterministic signatures) and X25519
// (its key comes from Rand). Replaying the recorded client bytes must then
// reproduce the recorded server bytes exactly.

var replayNow = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const replayPKIFile = "testdata/Server-TLSv13-pki.pem"

type replayPKI struct {
	ca, server, client   *x509.Certificate
	serverKey, clientKey ed25519.PrivateKey
	pool                 *x509.CertPool
}

// makeReplayPKI creates the transcript PKI from fixed seeds and stores it.
func makeReplayPKI(t *testing.T) {
	key := func(b byte) ed25519.PrivateKey { return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, 32)) }
	mk := func(serial int64, cn string, pub crypto.PublicKey, parent *x509.Certificate, signer crypto.Signer, ca bool, usage x509.ExtKeyUsage, dns ...string) *x509.Certificate {
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2035, 1, 1, 0, 0, 0, 0, time.UTC),
			BasicConstraintsValid: true, IsCA: ca, DNSNames: dns,
			KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		}
		if !ca {
			tmpl.ExtKeyUsage = []x509.ExtKeyUsage{usage}
		}
		if parent == nil {
			parent = tmpl
		}
		der, err := x509.CreateCertificate(nil, tmpl, parent, pub, signer)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := x509.ParseCertificate(der)
		return c
	}
	caKey, srvKey, cliKey := key(1), key(2), key(3)
	ca := mk(1, "transcript CA", caKey.Public(), nil, caKey, true, 0)
	srv := mk(2, "example.com", srvKey.Public(), ca, caKey, false, x509.ExtKeyUsageServerAuth, "example.com")
	cli := mk(3, "transcript client", cliKey.Public(), ca, caKey, false, x509.ExtKeyUsageClientAuth)
	var b []byte
	for _, c := range []*x509.Certificate{ca, srv, cli} {
		b = append(b, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})...)
	}
	for _, k := range []ed25519.PrivateKey{srvKey, cliKey} {
		der, _ := x509.MarshalPKCS8PrivateKey(k)
		b = append(b, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})...)
	}
	if err := os.WriteFile(replayPKIFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func loadReplayPKI(t testing.TB) *replayPKI {
	data, err := os.ReadFile(replayPKIFile)
	if err != nil {
		t.Fatal(err)
	}
	var certs []*x509.Certificate
	var keys []ed25519.PrivateKey
	for {
		var b *pem.Block
		if b, data = pem.Decode(data); b == nil {
			break
		}
		if b.Type == "CERTIFICATE" {
			c, err := x509.ParseCertificate(b.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			certs = append(certs, c)
		} else {
			k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k.(ed25519.PrivateKey))
		}
	}
	p := &replayPKI{ca: certs[0], server: certs[1], client: certs[2], serverKey: keys[0], clientKey: keys[1], pool: x509.NewCertPool()}
	p.pool.AddCert(p.ca)
	return p
}

// replayCase is one recorded conversation.
type replayCase struct {
	name   string
	server func(cfg *Config, p *replayPKI)
	client func(cfg *tls.Config, p *replayPKI)
	resume bool // record the second of two connections sharing a session cache
}

var replayCases = []replayCase{
	{name: "Basic"},
	{name: "HelloRetryRequest", client: func(c *tls.Config, _ *replayPKI) {
		c.CurvePreferences = []tls.CurveID{tls.CurveP256, tls.X25519}
	}},
	{name: "ALPN", server: func(c *Config, _ *replayPKI) { c.NextProtos = []string{"redis"} },
		client: func(c *tls.Config, _ *replayPKI) { c.NextProtos = []string{"h2", "redis"} }},
	{name: "ClientCert", server: func(c *Config, p *replayPKI) {
		c.ClientAuth, c.ClientCAs = RequireClientCert, p.pool
	}, client: func(c *tls.Config, p *replayPKI) {
		c.Certificates = []tls.Certificate{{Certificate: [][]byte{p.client.Raw}, PrivateKey: p.clientKey}}
	}},
	{name: "Resumed", resume: true},
}

// replayConfig is the deterministic server Config of a case.
func replayConfig(t testing.TB, p *replayPKI, rc replayCase) *Config {
	cert, err := NewCertificate([][]byte{p.server.Raw, p.ca.Raw}, p.serverKey)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := NewTicketKeys(&fixedReader{n: 100})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{
		Certificates: []*Certificate{cert}, CipherSuites: []uint16{TLS_AES_128_GCM_SHA256},
		CurvePreferences: []CurveID{X25519}, TicketKeys: keys, Rand: &fixedReader{},
		Now: func() time.Time { return replayNow },
	}
	if rc.server != nil {
		rc.server(cfg, p)
	}
	return cfg
}

// recordConn logs what the server reads (">") and writes ("<").
type recordConn struct {
	net.Conn
	log *bytes.Buffer
}

func (c *recordConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		fmt.Fprintf(c.log, "> %x\n", b[:n])
	}
	return n, err
}

func (c *recordConn) Write(b []byte) (int, error) {
	fmt.Fprintf(c.log, "< %x\n", b)
	return c.Conn.Write(b)
}

// playConn serves the recorded client chunks and collects the server's writes.
type playConn struct {
	net.Conn
	in  [][]byte
	out bytes.Buffer
}

func (c *playConn) Read(b []byte) (int, error) {
	if len(c.in) == 0 {
		return 0, io.EOF
	}
	n := copy(b, c.in[0])
	if c.in[0] = c.in[0][n:]; len(c.in[0]) == 0 {
		c.in = c.in[1:]
	}
	return n, nil
}

func (c *playConn) Write(b []byte) (int, error)      { return c.out.Write(b) }
func (c *playConn) SetReadDeadline(time.Time) error  { return nil }
func (c *playConn) SetWriteDeadline(time.Time) error { return nil }

// replayConfigFor is replayConfig with TLS 1.2 also enabled when vers is
// VersionTLS12.
func replayConfigFor(t testing.TB, p *replayPKI, rc replayCase, vers uint16) *Config {
	cfg := replayConfig(t, p, rc)
	if vers == VersionTLS12 {
		cfg.MinVersion = VersionTLS12
	}
	return cfg
}

// recordCase records rc against a crypto/tls client pinned to vers.
func recordCase(t *testing.T, p *replayPKI, rc replayCase, vers uint16) []byte {
	cc := &tls.Config{RootCAs: p.pool, ServerName: "example.com", MinVersion: vers, MaxVersion: vers,
		Time: func() time.Time { return replayNow }, CurvePreferences: []tls.CurveID{tls.X25519}}
	if rc.client != nil {
		rc.client(cc, p)
	}
	if rc.resume || vers == VersionTLS13 {
		// A TLS 1.3 client sends psk_key_exchange_modes, and so gets a
		// ticket, only with a session cache.
		cc.ClientSessionCache = tls.NewLRUClientSessionCache(1)
	}
	if rc.resume {
		if r, serr, _ := runInterop(t, replayConfigFor(t, p, rc, vers), cc, feedWhole, echoMsgs[:1]); r.err != nil || serr != nil {
			t.Fatal(r.err, serr)
		}
	}
	c, s := tcpPair(t)
	defer s.Close()
	res := make(chan clientResult, 1)
	go echoClient(c, cc, echoMsgs[:1], res)
	var log bytes.Buffer
	d := &driver{t: t, e: NewEngine(replayConfigFor(t, p, rc, vers)), conn: &recordConn{Conn: s, log: &log}}
	if err := d.run(); err != nil {
		t.Fatalf("%s: server %v", rc.name, err)
	}
	if r := <-res; r.err != nil || r.state.DidResume != rc.resume || r.state.Version != vers {
		t.Fatalf("%s: client %v resumed %v version %x", rc.name, r.err, r.state.DidResume, r.state.Version)
	}
	return log.Bytes()
}

// TestReplayTranscripts replays the recorded client bytes of every case and
// requires byte-identical server output; go test -run Replay -update
// re-records them against crypto/tls.
func TestReplayTranscripts(t *testing.T) {
	if *update {
		makeReplayPKI(t)
	}
	replayTranscripts(t, "Server-TLSv13-", replayCases, VersionTLS13)
}

// replayTranscripts replays testdata/<prefix><case> for every case at
// version vers (re-recording them first under -update) and requires
// byte-identical server output and a finished handshake at vers.
func replayTranscripts(t *testing.T, prefix string, cases []replayCase, vers uint16) {
	p := loadReplayPKI(t)
	for _, rc := range cases {
		file := filepath.Join("testdata", prefix+rc.name)
		if *update {
			if err := os.WriteFile(file, recordCase(t, p, rc, vers), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		pc := &playConn{}
		var want []byte
		pc.in, want = readTranscript(t, file)
		e := NewEngine(replayConfigFor(t, p, rc, vers))
		d := &driver{t: t, e: e, conn: pc}
		if err := d.run(); err != nil && !errors.Is(err, io.EOF) {
			t.Errorf("%s: replay: %v", rc.name, err)
		}
		if !bytes.Equal(pc.out.Bytes(), want) {
			t.Errorf("%s: server output differs from the transcript (%d vs %d bytes)", rc.name, pc.out.Len(), len(want))
		}
		st := e.ConnectionState()
		if !e.done || st.DidResume != rc.resume || st.Version != vers {
			t.Errorf("%s: done %v resumed %v version %x", rc.name, e.done, st.DidResume, st.Version)
		}
	}
}

// readTranscript returns the client chunks (">") and the concatenated
// server bytes ("<") of a transcript file.
func readTranscript(t testing.TB, file string) (client [][]byte, server []byte) {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		dir, hx, _ := strings.Cut(sc.Text(), " ")
		b, err := hex.DecodeString(hx)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if dir == ">" {
			client = append(client, b)
		} else {
			server = append(server, b...)
		}
	}
	return client, server
}
