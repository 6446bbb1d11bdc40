package server

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The clients of the connection-memory tests run in a child process (this
// test binary again, TestConnMemClients), so that the server's heap holds
// the server's side of each connection only.
const (
	connMemChildEnv = "LOOPKV_CONNMEM_CHILD" // addr,ca file,conns
)

// TestConnMemClients is the child: it opens the connections, PINGs on
// each, says "ready", and then runs one command per connection for each
// line read from stdin ("SUBSCRIBE ch", "BLPOP {i} 0": {i} is the
// connection's index), reading the replies of those that have one (the
// line starts with "?"), and says "done". It exits when stdin closes.
func TestConnMemClients(t *testing.T) {
	spec := os.Getenv(connMemChildEnv)
	if spec == "" {
		t.Skip("the child of the connection-memory tests")
	}
	parts := strings.Split(spec, ",")
	n, _ := strconv.Atoi(parts[2])
	pem, err := os.ReadFile(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	cfg := &tls.Config{RootCAs: pool, ServerName: "localhost"}
	conns := make([]*tls.Conn, n)
	readers := make([]*bufio.Reader, n)
	for i := range conns {
		d := &net.Dialer{Timeout: 10 * time.Second}
		c, err := tls.DialWithDialer(d, "tcp", parts[0], cfg)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		conns[i], readers[i] = c, bufio.NewReader(c)
		if _, err := io.WriteString(c, multibulk("PING")); err != nil {
			t.Fatal(err)
		}
		if s, err := readRaw(readers[i]); err != nil || s != "+PONG\r\n" {
			t.Fatalf("PING %d: %q %v", i, s, err)
		}
	}
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		line := in.Text()
		wantReply := strings.HasPrefix(line, "?")
		line = strings.TrimPrefix(line, "?")
		for i, c := range conns {
			args := strings.Fields(strings.ReplaceAll(line, "{i}", strconv.Itoa(i)))
			if _, err := io.WriteString(c, multibulk(args...)); err != nil {
				t.Fatal(err)
			}
			if wantReply {
				if _, err := readRaw(readers[i]); err != nil {
					t.Fatalf("%s %d: %v", line, i, err)
				}
			}
		}
		fmt.Println("done")
	}
}

// connMemChild starts the child with n connections to s's TLS port and
// waits for them. It returns the child's stdin and stdout.
func connMemChild(t *testing.T, s *Server, p *testPKI, n int) (io.WriteCloser, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestConnMemClients$", "-test.v=false")
	cmd.Env = append(os.Environ(), connMemChildEnv+"="+s.TLSAddr()+","+p.caFile+","+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	out := bufio.NewScanner(stdout)
	connMemExpect(t, out, "ready")
	return stdin, out
}

func connMemExpect(t *testing.T, out *bufio.Scanner, want string) {
	t.Helper()
	for out.Scan() {
		if out.Text() == want {
			return
		}
	}
	t.Fatalf("child ended before %q: %v", want, out.Err())
}

// liveHeap is the heap in use after two collections: the live heap.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// waitShed waits until the TLS sweep has shed the keys of want connections
// in total.
func waitShed(t *testing.T, s *Server, want int64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for s.tls.stats.idleShed.Load() < want {
		if time.Now().After(deadline) {
			t.Fatalf("tls_idle_released = %d, want >= %d", s.tls.stats.idleShed.Load(), want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// connMem is a TLS server on one loop with n connections from the child,
// every one past its handshake and its PING.
type connMem struct {
	t     *testing.T
	s     *Server
	n     int
	base  uint64 // live heap before the first connect
	stdin io.WriteCloser
	out   *bufio.Scanner
	shed  int64 // sheds expected so far
}

func startConnMem(t *testing.T, n int) *connMem {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{Loops: 1, MaxClients: n + 100})
	m := &connMem{t: t, s: s, n: n, base: liveHeap()}
	m.stdin, m.out = connMemChild(t, s, p, n)
	if got := s.connected.Load(); got != int64(n) {
		t.Fatalf("%d clients connected, want %d", got, n)
	}
	m.quiet()
	return m
}

// run sends line to the child (see TestConnMemClients) and waits for it to
// be sent on every connection.
func (m *connMem) run(line string) {
	m.t.Helper()
	if _, err := io.WriteString(m.stdin, line+"\n"); err != nil {
		m.t.Fatal(err)
	}
	connMemExpect(m.t, m.out, "done")
}

// quiet waits until every connection has gone quiet again and shed its keys.
func (m *connMem) quiet() {
	m.t.Helper()
	m.shed += int64(m.n)
	waitShed(m.t, m.s, m.shed)
}

// perConn is the live heap per connection above the server's before any.
func (m *connMem) perConn() int64 { return (int64(liveHeap()) - int64(m.base)) / int64(m.n) }

// connMemProfile writes a heap profile to dir/name.pprof when dir is set.
func connMemProfile(t *testing.T, dir, name string) {
	if dir == "" {
		return
	}
	f, err := os.Create(dir + "/" + name + ".pprof")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		t.Fatal(err)
	}
}

// measureConnMem opens n TLS connections, measures the live heap per idle
// connection, then runs mode on every one (blocked: BLPOP on a key of its
// own; subscribed: SUBSCRIBE to one channel) and measures again once they
// are quiet. With dir set it writes heap profiles there.
func measureConnMem(t *testing.T, n int, mode, dir string) (idle, after int64) {
	m := startConnMem(t, n)
	idle = m.perConn()
	connMemProfile(t, dir, "idle-"+mode)
	switch mode {
	case "blocked":
		m.run("BLPOP q:{i} 0")
		deadline := time.Now().Add(20 * time.Second)
		for m.s.blocked.n.Load() < int64(n) {
			if time.Now().After(deadline) {
				t.Fatalf("blocked_clients = %d, want %d", m.s.blocked.n.Load(), n)
			}
			time.Sleep(20 * time.Millisecond)
		}
	case "subscribed":
		m.run("?SUBSCRIBE ch")
		m.s.pubsub.mu.RLock()
		subs := len(m.s.pubsub.m[kindChannel]["ch"])
		m.s.pubsub.mu.RUnlock()
		if subs != n {
			t.Fatalf("%d subscribers of ch, want %d", subs, n)
		}
	}
	m.quiet()
	after = m.perConn()
	connMemProfile(t, dir, mode)
	t.Logf("%d TLS connections: %d B live heap per idle one, %d per %s one (%+d)", n, idle, after, mode, after-idle)
	return idle, after
}

// The live heap a TLS connection may hold once quiet (its AEADs shed), by
// the heap profile (benchmarks/README.md, issues 13 and 14): connState 448,
// tlsengine.Engine 512, gnet's connection 256 and its two addresses 80,
// tlsConn 48, the peer address string, the registry and gnet's matrix
// about 140. The bounds leave room for noise; the old layout (2,051 bytes
// idle, +444 blocked) fails them.
const (
	idleConnHeap   = 1700 // bytes per idle connection
	subscriberHeap = 160  // more per subscriber: subState 80, its channel name and table slot
	// more per client blocked in BLPOP on a key of its own: the waiter 160,
	// its key's copy 32, its blocking-table entry 60 to 120 with the map's fill (issue 13's "no
	// more than an idle one" is not met: an idle connection has nothing
	// left to give up; see benchmarks/README.md)
	blockedHeap = 360
	minConnHeap = 1000 // below this the connections were not measured
)

// TestTLSConnectionHeap measures the live heap (runtime.MemStats after
// two collections) per TLS connection with the clients in another process:
// idle, subscribed to one channel, and blocked in BLPOP.
func TestTLSConnectionHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("opens a thousand TLS connections")
	}
	for _, tt := range []struct {
		mode  string
		extra int64
	}{{"subscribed", subscriberHeap}, {"blocked", blockedHeap}} {
		t.Run(tt.mode, func(t *testing.T) {
			idle, after := measureConnMem(t, connMemConns, tt.mode, "")
			if idle < minConnHeap || idle > idleConnHeap+connMemSlack {
				t.Errorf("%d B of live heap per idle TLS connection, want %d..%d", idle, minConnHeap, idleConnHeap+connMemSlack)
			}
			if after-idle > tt.extra {
				t.Errorf("%d B more per %s connection, want at most %d", after-idle, tt.mode, tt.extra)
			}
		})
	}
}

// TestConnMemProfile logs the live heap per idle, blocked and subscribed
// TLS connection, and writes heap profiles, when LOOPKV_CONNMEM_PROFILE
// names a directory (a measuring aid: benchmarks/README.md, issues 13 and
// 14); LOOPKV_CONNMEM_CONNS connections (10,000).
func TestConnMemProfile(t *testing.T) {
	dir := os.Getenv("LOOPKV_CONNMEM_PROFILE")
	if dir == "" {
		t.Skip("set LOOPKV_CONNMEM_PROFILE=dir")
	}
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("LOOPKV_CONNMEM_CONNS")); err == nil {
		n = v
	}
	runtime.MemProfileRate = 1
	for _, mode := range []string{"blocked", "subscribed"} {
		t.Run(mode, func(t *testing.T) { measureConnMem(t, n, mode, dir) })
	}
}
