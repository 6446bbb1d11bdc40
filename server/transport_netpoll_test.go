package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// netpollOf returns the netpoll transport serving s.
func netpollOf(t *testing.T, s *Server) *netpollTransport {
	t.Helper()
	s.trMu.Lock()
	defer s.trMu.Unlock()
	tr, ok := s.tr.(*netpollTransport)
	if !ok {
		t.Fatalf("transport is %T, want *netpollTransport", s.tr)
	}
	return tr
}

// parkedConns counts connections whose Flush waits on a full socket.
func parkedConns(tr *netpollTransport) int {
	n := 0
	tr.open.Range(func(k, _ any) bool {
		if k.(*netpollConn).parked.Load() > 0 {
			n++
		}
		return true
	})
	return n
}

// waitParked waits until one connection's Flush has stayed parked for
// 200 ms: the socket buffers are full, and nothing reads them.
func waitParked(t *testing.T, tr *netpollTransport) {
	t.Helper()
	stable := 0
	waitFor(t, func() bool {
		if parkedConns(tr) == 1 {
			stable++
		} else {
			stable = 0
		}
		return stable >= 10
	}, "a flooding client's Flush to stay parked")
}

// floodWithoutReading sends n ECHOs of size bytes on a new connection
// that never reads its replies, and returns the connection.
func floodWithoutReading(t *testing.T, addr string, n, size int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	big := multibulk("ECHO", strings.Repeat("v", size))
	go func() {
		for i := 0; i < n; i++ {
			if _, err := io.WriteString(c, big); err != nil {
				return
			}
		}
	}()
	return c
}

func TestEngineOptionSelectsNetpoll(t *testing.T) {
	s, _ := startServer(t, Options{Engine: "netpoll", Loops: 3})
	tr := netpollOf(t, s)
	if len(tr.loops) != 3 {
		t.Errorf("%d loops, want 3 (--loops)", len(tr.loops))
	}
	if got := dialRaw(t, s.Addr()).do("PING"); got != "+PONG\r\n" {
		t.Errorf("PING = %q", got)
	}
}

func TestUnknownEngineIsAnError(t *testing.T) {
	s := New(Options{Engine: "epoll", Port: freePort(t)})
	err := s.Serve()
	if err == nil || !strings.Contains(err.Error(), `unknown engine "epoll"`) {
		t.Errorf("Serve = %v, want unknown engine", err)
	}
}

// A Flush parked on a client that does not read holds no loop mutex: with
// one loop, another client is still served.
func TestNetpollParkedFlushDoesNotStallItsLoop(t *testing.T) {
	s, _ := startServer(t, Options{Engine: "netpoll", Loops: 1})
	tr := netpollOf(t, s)
	floodWithoutReading(t, s.Addr(), 32, 1<<20) // 32 MiB of replies, under the 256 MiB limit
	waitParked(t, tr)
	other := dialRaw(t, s.Addr())
	_ = other.c.SetDeadline(time.Now().Add(2 * time.Second))
	for i := 0; i < 20; i++ {
		if got := other.do("ECHO", fmt.Sprint(i)); got != fmt.Sprintf("$%d\r\n%d\r\n", len(fmt.Sprint(i)), i) {
			t.Fatalf("#%d: %q", i, got)
		}
	}
	if parkedConns(tr) != 1 {
		t.Error("the flooding client is no longer parked; the test proved nothing")
	}
}

// CLIENT KILL reaches a client whose Flush is parked.
func TestNetpollClientKillClosesParkedClient(t *testing.T) {
	s, _ := startServer(t, Options{Engine: "netpoll"})
	tr := netpollOf(t, s)
	c := floodWithoutReading(t, s.Addr(), 32, 1<<20)
	waitParked(t, tr)
	admin := dialRaw(t, s.Addr())
	addr := c.LocalAddr().String()
	if got := admin.do("CLIENT", "KILL", addr); got != "+OK\r\n" {
		t.Fatalf("CLIENT KILL %s = %q", addr, got)
	}
	waitFor(t, func() bool { return s.connected.Load() == 1 }, "the parked client to be forgotten")
}

// A round trip on netpoll allocates nothing in loopkv's code on the batch
// path (peek, handler, copy into Malloc'd memory, Flush): an allocation
// sampled during the trips, made by a loopkv function (the first frame
// outside package runtime) on a stack through that path, is a failure.
// netpoll's own allocations (its onProcess task closure, gopool workers,
// its LinkBuffer node pools refilling after the GCs this test runs) are
// not loopkv's and are not counted. The slow log is off: on a loaded
// machine under -race a GET can take its 10 ms, and logging it allocates
// (as Redis's slowlogPushEntryIfNeeded does), which is not the batch path.
func TestNetpollRoundTripAllocatesNothingInLoopkv(t *testing.T) {
	s, _ := startServer(t, Options{Engine: "netpoll", Loops: 1, SlowlogLogSlowerThan: "-1"})
	rc := dialRaw(t, s.Addr())
	rc.do("SET", "k", "v")
	req := []byte(strings.Repeat(multibulk("GET", "k"), 16))
	want := strings.Repeat("$1\r\nv\r\n", 16)
	got := make([]byte, len(want))
	trip := func() {
		if _, err := rc.c.Write(req); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(rc.c, got); err != nil || string(got) != want {
			t.Fatalf("got %q, %v", got, err)
		}
	}
	for i := 0; i < 200; i++ { // warm pools, buffers and the handler
		trip()
	}
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1
	before := batchPathAllocs()
	for i := 0; i < 1000; i++ {
		trip()
	}
	for site, n := range batchPathAllocs() {
		if n -= before[site]; n > 0 {
			t.Errorf("%d allocations in 1000 round trips at:\n%s", n, site)
		}
	}
}

// batchPathAllocs counts the heap profile's allocations by stack, for
// those made by loopkv code on the netpoll batch path. It runs a GC first:
// the profile is as of the last one.
func batchPathAllocs() map[string]int64 {
	runtime.GC()
	recs := make([]runtime.MemProfileRecord, 1<<12)
	n, ok := runtime.MemProfile(recs, true)
	for !ok {
		recs = make([]runtime.MemProfileRecord, n+1<<10)
		n, ok = runtime.MemProfile(recs, true)
	}
	sites := map[string]int64{}
	for _, r := range recs[:n] {
		var b strings.Builder
		inPath, allocator := false, ""
		frames := runtime.CallersFrames(r.Stack())
		for f, more := frames.Next(); ; f, more = frames.Next() {
			if allocator == "" && !strings.HasPrefix(f.Function, "runtime.") {
				allocator = f.Function
			}
			inPath = inPath || strings.Contains(f.Function, "server.(*netpollConn).") ||
				strings.Contains(f.Function, "server.(*netpollTransport).onRequest")
			fmt.Fprintf(&b, "\t%s\n", f.Function)
			if !more {
				break
			}
		}
		if inPath && strings.HasPrefix(allocator, "github.com/loopkv/loopkv/") {
			sites[b.String()] += r.AllocObjects
		}
	}
	return sites
}

// Stop does not wait until its deadline for a client that never reads:
// its parked Flush is closed under it and Stop returns nil long before.
func TestNetpollStopClosesParkedClientBeforeDeadline(t *testing.T) {
	s, errc := startServer(t, Options{Engine: "netpoll"})
	tr := netpollOf(t, s)
	floodWithoutReading(t, s.Addr(), 32, 1<<20) // 32 MiB, under the 256 MiB limit
	waitParked(t, tr)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if err := s.Stop(ctx); err != nil {
		t.Errorf("Stop = %v, want nil", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("Stop took %v with a 10 s context, want < 3 s", took)
	}
	if err := <-errc; err != nil {
		t.Errorf("Serve = %v", err)
	}
	if n := s.connected.Load(); n != 0 {
		t.Errorf("%d clients still connected after Stop", n)
	}
}

// Peers that reset their connections (RST with unread input on the
// socket) are normal: they leave no Warn line each, at most one a second
// of netpoll's own.
func TestNetpollPeerResetsDoNotFloodTheLog(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	s, _ := startServer(t, Options{Engine: "netpoll", Logger: zap.New(core)})
	const n = 50
	for i := 0; i < n; i++ {
		c, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(c, "PING\r\n"); err != nil {
			t.Fatal(err)
		}
		_ = c.(*net.TCPConn).SetLinger(0) // Close sends RST
		_, _ = io.WriteString(c, "*1\r\n$4\r\nPI")
		c.Close()
	}
	// The dials return before the loops accept: wait for the resets to be
	// seen, not only for no client to be connected.
	waitFor(t, func() bool {
		return s.connected.Load() == 0 && len(logs.FilterMessageSnippet("peer closed").All()) > 0
	}, "the reset clients to be seen and forgotten")
	resets := len(logs.FilterMessageSnippet("peer closed").All())
	warns := len(logs.FilterLevelExact(zapcore.WarnLevel).All())
	t.Logf("%d resets logged at Debug, %d Warn lines", resets, warns)
	if warns > 1 {
		t.Errorf("%d Warn lines for %d peer resets, want at most 1: %v", warns, n, logs.FilterLevelExact(zapcore.WarnLevel).All()[0])
	}
	if resets == 0 {
		t.Error("no reset reached netpoll's log; the test proved nothing")
	}
}

// A client that never reads is closed by the output buffer limit even when
// no single batch exceeds it: the replies of the commands after a parked
// batch accumulate and count, as gnet's queued output does. (Its input is
// tiny, so the query buffer limit plays no part.)
func TestNetpollNeverReadingClientClosedByAccumulatedOutput(t *testing.T) {
	s, _ := startServer(t, Options{Engine: "netpoll", ClientOutputBufferLimit: 8 << 20})
	admin := dialRaw(t, s.Addr())
	admin.do("SET", "big", strings.Repeat("b", 1<<20)) // one reply per batch (batchOutLimit)
	hog := dialRaw(t, s.Addr())
	hog.do("CLIENT", "SETNAME", "hog")
	go func() { _, _ = io.WriteString(hog.c, strings.Repeat(multibulk("GET", "big"), 2000)) }()
	waitFor(t, func() bool { return !strings.Contains(admin.do("CLIENT", "LIST"), "name=hog ") },
		"the client that never reads to be closed by the 8 MiB output limit")
	if got := admin.do("PING"); got != "+PONG\r\n" {
		t.Errorf("PING after the close = %q", got)
	}
}

// QUIT at the end of a pipeline whose replies outgrow one batch (and so
// are flushed while later batches run) closes only after every reply is
// sent.
func TestNetpollQuitAfterLargePipelineSendsEveryReply(t *testing.T) {
	s, _ := startServer(t, Options{Engine: "netpoll"})
	rc := dialRaw(t, s.Addr())
	val := strings.Repeat("q", 1<<20)
	rc.do("SET", "big", val)
	const n = 24
	if _, err := io.WriteString(rc.c, strings.Repeat(multibulk("GET", "big"), n)+multibulk("QUIT")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // let the replies back up before reading
	_ = rc.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(rc.r)
	want := strings.Repeat(fmt.Sprintf("$%d\r\n%s\r\n", len(val), val), n) + "+OK\r\n"
	if err != nil || string(got) != want {
		t.Errorf("read %d bytes (%v), want %d ending in +OK and EOF", len(got), err, len(want))
	}
}

// Stop returns promptly on a netpoll server stopped soon after it is
// ready, before any connection (netpoll's Shutdown is a no-op until its
// Serve has registered the listener), whatever the number of loops, and
// after connections came and went; the port no longer accepts.
func TestNetpollStopWithoutConnections(t *testing.T) {
	for _, tc := range []struct {
		loops int
		conns int
	}{{2, 0}, {1, 0}, {4, 0}, {2, 3}} {
		t.Run(fmt.Sprintf("loops=%d/conns=%d", tc.loops, tc.conns), func(t *testing.T) {
			s, errc := startServer(t, Options{Engine: "netpoll", Loops: tc.loops})
			for i := 0; i < tc.conns; i++ {
				rc := dialRaw(t, s.Addr())
				if got := rc.do("PING"); got != "+PONG\r\n" {
					t.Fatalf("PING = %q", got)
				}
				rc.c.Close()
			}
			waitFor(t, func() bool { return netpollOf(t, s).nopen.Load() == 0 }, "the clients to be forgotten")
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := s.Stop(ctx); err != nil {
				t.Fatalf("Stop = %v, want nil", err)
			}
			if err := <-errc; err != nil {
				t.Errorf("Serve = %v, want nil", err)
			}
			if c, err := net.DialTimeout("tcp", s.Addr(), time.Second); err == nil {
				c.Close()
				t.Errorf("dial %s after Stop succeeded, want refused", s.Addr())
			}
		})
	}
}

// TestNetpollRepliesBeforeHalfCloseMatchRedis: on netpoll too, clients
// that send their commands and shut their side at once get every reply,
// in order, before the server closes, as from redis-server. netpoll
// closes a connection whose peer has shut its side as soon as its
// onRequest returns, dropping the replies still in its output buffer.
func TestNetpollRepliesBeforeHalfCloseMatchRedis(t *testing.T) {
	ref := startRefRedis(t)
	s, _ := startServerOnFreePorts(t, Options{Engine: "netpoll", Loops: 1}, false)
	const n = 16
	want := halfCloseReplies(t, ref, n, nil)
	got := halfCloseReplies(t, s.Addr(), n, nil)
	for i := range n {
		if got[i] != want[i] {
			t.Errorf("connection %d: %d bytes %.80q..., redis %d bytes %.80q...", i, len(got[i]), got[i], len(want[i]), want[i])
		}
	}
}
