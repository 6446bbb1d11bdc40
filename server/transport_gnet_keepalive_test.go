package server

import (
	"bufio"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestKeepAliveFromTheListener opens plaintext and TLS connections to gnet
// servers with one and three loops and reads the socket options of the
// server's side of each, found by the fd fields of CLIENT LIST: keepalive
// is on with Redis's 300 s idle time on every one, whether it came from
// the listener (loop 0's, which OnBoot sets) or was set on the connection
// (the other loops'). On Linux only loop 0 passes it on, and with one
// loop it must have.
func TestKeepAliveFromTheListener(t *testing.T) {
	p := newTestPKI(t)
	for _, loops := range []int{1, 3} {
		// gnet's alone (the netpoll engine sets keepalive its own way), so
		// not through startTLSServer and the engine suite
		opts := Options{Engine: "gnet", Loops: loops}
		opts.TLS.CertFiles, opts.TLS.KeyFiles = []string{p.certFile}, []string{p.keyFile}
		s, _ := startServerOnFreePorts(t, opts, true)
		rc := dialRaw(t, s.Addr())
		for range 4 {
			dialRaw(t, s.Addr()).do("PING")
			tc := dialTLS(t, s.TLSAddr(), p.clientConfig())
			if got := tlsDo(t, tc, bufio.NewReader(tc), "PING"); got != "+PONG\r\n" {
				t.Fatalf("%d loops: TLS PING = %q", loops, got)
			}
		}
		fds := regexp.MustCompile(` fd=(\d+) `).FindAllStringSubmatch(rc.do("CLIENT", "LIST"), -1)
		if len(fds) != 9 {
			t.Fatalf("%d loops: CLIENT LIST has %d fd fields, want 9", loops, len(fds))
		}
		for _, m := range fds {
			fd, _ := strconv.Atoi(m[1])
			on, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_KEEPALIVE)
			if err != nil || on != 1 {
				t.Errorf("%d loops, fd %d: SO_KEEPALIVE = %d, %v; want 1", loops, fd, on, err)
			}
			idle, err := syscall.GetsockoptInt(fd, syscall.IPPROTO_TCP, tcpKeepIdle)
			if err != nil || idle != int(tcpKeepAlive/time.Second) {
				t.Errorf("%d loops, fd %d: keepalive idle = %d, %v; want %d", loops, fd, idle, err, int(tcpKeepAlive/time.Second))
			}
		}
		s.trMu.Lock()
		k := &s.tr.(*gnetTransport).ka
		s.trMu.Unlock()
		k.mu.Lock()
		inheriting := 0
		for _, on := range k.loops {
			if on {
				inheriting++
			}
		}
		listeners := k.listeners
		k.mu.Unlock()
		// With three loops the kernel may have sent loop 0 no connection.
		if want := 1; inheritingOS() && (!listeners || inheriting > want || loops == 1 && inheriting != want) {
			t.Errorf("%d loops: listeners set %v, %d loops passing keepalive on; want true and loop 0 alone", loops, listeners, inheriting)
		}
	}
}
