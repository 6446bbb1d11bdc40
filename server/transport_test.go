package server

import (
	"bufio"
	"errors"
	"net"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
)

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"AcceptedConnectionsHaveTCPKeepAlive", TestAcceptedConnectionsHaveTCPKeepAlive},
	}...)
}

// takenPortTests are servers whose plaintext or TLS port another socket
// already listens on, with one loop (gnet binds with SO_REUSEPORT) and two.
var takenPortTests = []struct {
	name  string
	loops int
	tls   bool // the TLS port is the taken one
}{
	{"plaintext/one-loop", 1, false},
	{"plaintext/two-loops", 2, false},
	{"tls/one-loop", 1, true},
	{"tls/two-loops", 2, true},
}

// TestServeOnATakenPortFailsWithAddressInUse checks that Serve on a port
// in use returns the bind error, EADDRINUSE, on every engine; gnet's
// listener setup used to report it as "setsockopt: bad file descriptor".
func TestServeOnATakenPortFailsWithAddressInUse(t *testing.T) {
	p := newTestPKI(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := taken.Addr().(*net.TCPAddr).Port
	for _, eng := range append([]string{"gnet"}, engines...) {
		for _, tt := range takenPortTests {
			t.Run(eng+"/"+tt.name, func(t *testing.T) {
				o := Options{Engine: eng, Loops: tt.loops, Port: port, Logger: zap.NewNop()}
				if tt.tls {
					o.Port = freePort(t)
					o.TLS = TLSOptions{Port: port, CertFiles: []string{p.certFile}, KeyFiles: []string{p.keyFile}}
				}
				errc := make(chan error, 1)
				s := New(o)
				go func() { errc <- s.Serve() }()
				select {
				case err := <-errc:
					if !errors.Is(err, syscall.EADDRINUSE) {
						t.Errorf("Serve = %v, want EADDRINUSE", err)
					}
				case <-s.Ready():
					t.Errorf("Serve runs on port %d, which another socket listens on", port)
					_ = s.Stop(t.Context())
				case <-time.After(5 * time.Second):
					t.Fatal("Serve neither failed nor became ready in 5s")
				}
			})
		}
	}
}

// TestAcceptedConnectionsHaveTCPKeepAlive reads the socket options of the
// server's side of a plaintext and a TLS connection, found by the fd
// fields of CLIENT LIST: keepalive is on with Redis's 300 s idle time.
func TestAcceptedConnectionsHaveTCPKeepAlive(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{})
	rc := dialRaw(t, s.Addr())
	tc := dialTLS(t, s.TLSAddr(), p.clientConfig())
	if got := tlsDo(t, tc, bufio.NewReader(tc), "PING"); got != "+PONG\r\n" {
		t.Fatalf("TLS PING = %q", got)
	}
	fds := regexp.MustCompile(` fd=(\d+) `).FindAllStringSubmatch(rc.do("CLIENT", "LIST"), -1)
	if len(fds) != 2 {
		t.Fatalf("CLIENT LIST has %d fd fields, want 2", len(fds))
	}
	for _, m := range fds {
		fd, _ := strconv.Atoi(m[1])
		on, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_KEEPALIVE)
		if err != nil || on != 1 {
			t.Errorf("fd %d: SO_KEEPALIVE = %d, %v; want 1", fd, on, err)
		}
		idle, err := syscall.GetsockoptInt(fd, syscall.IPPROTO_TCP, tcpKeepIdle)
		if err != nil || idle != int(tcpKeepAlive/time.Second) {
			t.Errorf("fd %d: TCP_KEEPIDLE = %d, %v; want %d", fd, idle, err, int(tcpKeepAlive/time.Second))
		}
	}
}

// A server whose TLS port is its plaintext port fails with EADDRINUSE:
// its listeners bind with SO_REUSEPORT and would share the port.
func TestSamePortForPlaintextAndTLSIsRefused(t *testing.T) {
	p := newTestPKI(t)
	port := freePort(t)
	opts := Options{Port: port}
	opts.TLS.Port = port
	opts.TLS.CertFiles, opts.TLS.KeyFiles = []string{p.certFile}, []string{p.keyFile}
	err := New(opts).Serve()
	if !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("Serve = %v, want EADDRINUSE", err)
	}
}
