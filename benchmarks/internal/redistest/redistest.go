// Package redistest starts a redis-server for the benchmark tools' tests:
// plaintext and TLS on free loopback ports, with a throwaway certificate
// (loadgen.WriteCerts), stopped at the test's cleanup.
package redistest

import (
	"crypto/tls"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/loopkv/loopkv/benchmarks/loadgen"
)

// Server is a running redis-server.
type Server struct {
	Addr, TLSAddr string      // plaintext and TLS host:port
	Pid           int         // for /proc figures
	TLS           *tls.Config // a client configuration that trusts its certificate
	CAFile        string
}

// Start starts redis-server (skipping the test when it is not installed)
// and waits until both ports answer.
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed (make deps)")
	}
	dir := t.TempDir()
	f, err := loadgen.WriteCerts(dir)
	if err != nil {
		t.Fatal(err)
	}
	port, tlsPort := freePort(t), freePort(t)
	cmd := exec.Command("redis-server", "--bind", "127.0.0.1", "--port", strconv.Itoa(port),
		"--tls-port", strconv.Itoa(tlsPort), "--tls-cert-file", f.Cert, "--tls-key-file", f.Key,
		"--tls-ca-cert-file", f.CA, "--tls-auth-clients", "no", "--save", "", "--appendonly", "no", "--dir", dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	s := &Server{Addr: "127.0.0.1:" + strconv.Itoa(port), TLSAddr: "127.0.0.1:" + strconv.Itoa(tlsPort),
		Pid: cmd.Process.Pid, CAFile: f.CA}
	if s.TLS, err = loadgen.ClientTLS(f.CA, "127.0.0.1", false, 0, 0); err != nil {
		t.Fatal(err)
	}
	for _, tg := range []loadgen.Target{{Addr: s.Addr}, {Addr: s.TLSAddr, TLS: s.TLS}} {
		deadline := time.Now().Add(10 * time.Second)
		for {
			c, err := loadgen.Dial(tg, nil)
			if err == nil {
				c.Close(false)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("redis-server on %s: %v", tg.Addr, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return s
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
