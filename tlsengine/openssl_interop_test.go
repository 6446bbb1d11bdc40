package tlsengine

import (
	"bytes"
	"context"
	"crypto/rand"
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

// TestInteropOpenSSLClient runs openssl s_client (3.0: no ML-KEM) against
// the engine: groups, suites, signature schemes, and resumption with
// -sess_out/-sess_in.
func TestInteropOpenSSLClient(t *testing.T) {
	bin, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("openssl not installed")
	}
	p := loadPKI(t)
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.caCert.Raw}), 0o600)
	keys, _ := NewTicketKeys(rand.Reader)
	sess := filepath.Join(dir, "sess.pem")
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
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		args := append([]string{"s_client", "-connect", ln.Addr().String(), "-tls1_3", "-CAfile", ca,
			"-servername", tt.sni, "-verify_return_error", "-no_ign_eof"}, tt.args...)
		cmd := exec.CommandContext(ctx, bin, args...)
		stdin, stdinW := io.Pipe()
		cmd.Stdin = stdin
		go stdinW.Write([]byte("PING-" + tt.name + "\n"))
		var stdout bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stdout
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() {
			cmd.Wait()
			ln.Close() // unblocks Accept if openssl gave up before connecting
			close(exited)
		}()
		ln.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
		conn, err := ln.Accept()
		ln.Close()
		if err != nil {
			stdinW.Close()
			<-exited
			cancel()
			t.Errorf("%s: accept: %v\n%s", tt.name, err, stdout.String())
			continue
		}
		e := NewEngine(cfg)
		d := &driver{t: t, e: e, conn: conn}
		d.onData = func(d *driver, b []byte) {
			d.echo(b)
			// Let openssl read the ticket and the echo before its stdin ends.
			time.AfterFunc(200*time.Millisecond, func() { stdinW.Close() })
		}
		serr := d.run()
		stdinW.Close()
		conn.Close()
		<-exited
		cancel()
		out := stdout.String()
		if serr != nil && !e.done {
			t.Errorf("%s: server %v\n%s", tt.name, serr, out)
			continue
		}
		if !strings.Contains(out, "Verify return code: 0 (ok)") || !strings.Contains(out, "TLSv1.3") {
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
