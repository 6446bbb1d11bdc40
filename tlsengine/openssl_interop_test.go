package tlsengine

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/pem"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runOpenSSL runs one openssl s_client (3.0: no ML-KEM) with version flag
// vers ("-tls1_3" or "-tls1_2") against an Engine with cfg, driven in the
// test goroutine. script writes s_client's stdin; stdin closes 200 ms after
// the first echo so openssl reads the ticket and the echo first. It returns
// the engine, the server error and openssl's output.
func runOpenSSL(t *testing.T, vers string, cfg *Config, sni string, args []string, script func(w io.Writer)) (*Engine, error, string) {
	t.Helper()
	bin, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("openssl not installed")
	}
	p := loadPKI(t)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.caCert.Raw}), 0o600)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	args = append([]string{"s_client", "-connect", ln.Addr().String(), vers, "-CAfile", ca,
		"-servername", sni, "-verify_return_error", "-no_ign_eof"}, args...)
	cmd := exec.CommandContext(ctx, bin, args...)
	stdin, stdinW := io.Pipe()
	cmd.Stdin = stdin
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go script(stdinW)
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		ln.Close() // unblocks Accept if openssl gave up before connecting
		close(exited)
	}()
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
	conn, err := ln.Accept()
	if err != nil {
		stdinW.Close()
		<-exited
		return nil, err, stdout.String()
	}
	e := NewEngine(cfg)
	d := &driver{t: t, e: e, conn: conn}
	d.onData = func(d *driver, b []byte) {
		d.echo(b)
		time.AfterFunc(200*time.Millisecond, func() { stdinW.Close() })
	}
	serr := d.run()
	stdinW.Close()
	conn.Close()
	<-exited
	return e, serr, stdout.String()
}

func writeLines(lines ...string) func(w io.Writer) {
	return func(w io.Writer) {
		for _, l := range lines {
			w.Write([]byte(l))
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// TestInteropOpenSSLClient covers groups, suites, signature schemes, HRR and
// resumption with -sess_out/-sess_in against a second implementation.
func TestInteropOpenSSLClient(t *testing.T) {
	p := loadPKI(t)
	keys, _ := NewTicketKeys(rand.Reader)
	sess := filepath.Join(t.TempDir(), "sess.pem")
	tests := []struct {
		name string
		args []string
		sni  string
	}{
		{"X25519-AES128-ECDSA", []string{"-groups", "X25519", "-ciphersuites", "TLS_AES_128_GCM_SHA256"}, "example.com"},
		{"P-384-AES256-RSAPSS", []string{"-groups", "P-384", "-ciphersuites", "TLS_AES_256_GCM_SHA384"}, "rsa.test"},
		{"P-256-CHACHA-Ed25519", []string{"-groups", "P-256", "-ciphersuites", "TLS_CHACHA20_POLY1305_SHA256"}, "ed.test"},
		{"HRR", []string{"-groups", "X448:P-256"}, "example.com"},
		{"ticket-out", []string{"-sess_out", sess}, "example.com"},
		{"ticket-in", []string{"-sess_in", sess}, "example.com"},
	}
	for _, tt := range tests {
		cfg := &Config{Certificates: allCerts(p), TicketKeys: keys}
		e, serr, out := runOpenSSL(t, "-tls1_3", cfg, tt.sni, tt.args, writeLines("PING-"+tt.name+"\n"))
		if e == nil || serr != nil && !e.done {
			t.Errorf("%s: server %v\n%s", tt.name, serr, out)
			continue
		}
		if !strings.Contains(out, "Verify return code: 0 (ok)") || !strings.Contains(out, "TLSv1.3") ||
			!strings.Contains(out, "PING-"+tt.name) {
			t.Errorf("%s: openssl output:\n%s", tt.name, out)
		}
		if wantResume := tt.name == "ticket-in"; e.ConnectionState().DidResume != wantResume {
			t.Errorf("%s: DidResume %v", tt.name, e.ConnectionState().DidResume)
		}
		if tt.name == "HRR" && e.ConnectionState().CurveID != CurveP256 {
			t.Errorf("HRR: curve %v", e.ConnectionState().CurveID)
		}
	}
}

// TestInteropOpenSSLClientKeyUpdate has s_client send KeyUpdate with
// update_requested ("K"): the engine must switch its read key, answer with
// its own KeyUpdate at once, and keep echoing.
func TestInteropOpenSSLClientKeyUpdate(t *testing.T) {
	p := loadPKI(t)
	var keylog bytes.Buffer
	cfg := &Config{Certificates: []*Certificate{p.p256}, KeyLog: &keylog}
	e, serr, out := runOpenSSL(t, "-tls1_3", cfg, "example.com", nil, writeLines("K\n", "PING-after-update\n"))
	if e == nil || serr != nil {
		t.Fatalf("server %v\n%s", serr, out)
	}
	if !strings.Contains(out, "KEYUPDATE") || !strings.Contains(out, "PING-after-update") {
		t.Errorf("openssl output:\n%s", out)
	}
	for _, d := range []struct {
		label string
		dir   *direction
	}{{"CLIENT_TRAFFIC_SECRET_0", &e.in}, {"SERVER_TRAFFIC_SECRET_0", &e.out}} {
		cur := hex.EncodeToString(d.dir.secret[:d.dir.secLen])
		if !strings.Contains(keylog.String(), d.label) || strings.Contains(keylog.String(), d.label+" ") &&
			strings.Contains(keylog.String(), cur) {
			t.Errorf("%s: traffic secret not updated", d.label)
		}
	}
}
