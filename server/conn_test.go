package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
)

func TestPipelineOfDepth10000OnOneConnection(t *testing.T) {
	s, _ := startServer(t, Options{})
	rc := dialRaw(t, s.Addr())
	const depth = 10000
	var b strings.Builder
	for i := 0; i < depth; i++ {
		b.WriteString(multibulk("ECHO", fmt.Sprint(i)))
	}
	go func() { _, _ = io.WriteString(rc.c, b.String()) }()
	for i := 0; i < depth; i++ {
		want := fmt.Sprintf("$%d\r\n%d\r\n", len(fmt.Sprint(i)), i)
		if got := rc.reply(); got != want {
			t.Fatalf("#%d: got %q, want %q", i, got, want)
		}
	}
}

func TestCommandSentOneByteAtATime(t *testing.T) {
	s, _ := startServer(t, Options{})
	rc := dialRaw(t, s.Addr())
	cmd := multibulk("ECHO", "split") + "PING\r\n"
	for i := 0; i < len(cmd); i++ {
		rc.send(cmd[i : i+1])
		time.Sleep(time.Millisecond)
	}
	if got := rc.reply(); got != "$5\r\nsplit\r\n" {
		t.Errorf("got %q", got)
	}
	if got := rc.reply(); got != "+PONG\r\n" {
		t.Errorf("got %q", got)
	}
}

// badInputs are answered with a protocol error and a close; the expected
// bytes come from a reference redis-server.
var badInputs = []string{
	"*99999999999\r\n",
	"*1\r\n$-5\r\n",
	"*1\r\nfoo\r\n",
	"*2\r\n$4\r\nECHO\r\n$99999999999\r\n",
	"*-\r\n",
	"*1\r\n$x\r\n",
	"\"unbalanced\r\n",
	"PING\r\n*1\r\n$-5\r\n",
}

func TestBadInputGetsRedisProtocolErrorAndClose(t *testing.T) {
	s, _ := startServer(t, Options{})
	ref := startRefRedis(t)
	for i, in := range badInputs {
		want := sendAndDrain(t, ref, in)
		got := sendAndDrain(t, s.Addr(), in)
		if got != want {
			t.Errorf("#%d %q: got %q, want %q (redis-server)", i, in, got, want)
		}
	}
	// The server is unharmed and other clients unaffected.
	if got := dialRaw(t, s.Addr()).do("PING"); got != "+PONG\r\n" {
		t.Errorf("after bad input: PING = %q", got)
	}
}

func TestBinaryGarbageAndHalfCommandsLeaveServerUnharmed(t *testing.T) {
	s, _ := startServer(t, Options{})
	other := dialRaw(t, s.Addr())
	garbage := []string{"\x00\xff\xfe\x01*\r\n$\r\n\x80", "*2\r\n$4\r\nECHO\r\n$5\r\nhel", "*1\r\n", "$3\r\nfoo\r\n"}
	for _, g := range garbage {
		c, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(c, g)
		c.Close()
	}
	if got := other.do("ECHO", "still"); got != "$5\r\nstill\r\n" {
		t.Errorf("other client: %q", got)
	}
	waitFor(t, func() bool { return s.connected.Load() == 1 }, "garbage connections to close")
}

func TestMaxClientsRejectsWithRedisError(t *testing.T) {
	s, _ := startServer(t, Options{MaxClients: 2})
	a, b := dialRaw(t, s.Addr()), dialRaw(t, s.Addr())
	a.do("PING")
	b.do("PING")
	c := dialRaw(t, s.Addr())
	if got := c.expectClosed(); got != "-ERR max number of clients reached\r\n" {
		t.Errorf("third client got %q", got)
	}
	if !strings.Contains(a.do("INFO", "stats"), "rejected_connections:1\r\n") {
		t.Error("rejected_connections not 1")
	}
}

func TestQueryBufferLimitClosesClient(t *testing.T) {
	s, _ := startServer(t, Options{})
	admin := dialRaw(t, s.Addr())
	if got := admin.do("CONFIG", "SET", "client-query-buffer-limit", "1mb"); got != "+OK\r\n" {
		t.Fatalf("config set: %q", got)
	}
	rc := dialRaw(t, s.Addr())
	go func() {
		_, _ = io.WriteString(rc.c, "*2\r\n$4\r\nECHO\r\n$4000000\r\n"+strings.Repeat("x", 2<<20))
	}()
	if got := rc.expectClosed(); got != "" {
		t.Errorf("got %q before close", got)
	}
	if got := admin.do("PING"); got != "+PONG\r\n" {
		t.Errorf("admin: %q", got)
	}
}

func TestOutputBufferLimitClosesSlowReader(t *testing.T) {
	s, _ := startServer(t, Options{})
	admin := dialRaw(t, s.Addr())
	if got := admin.do("CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0"); got != "+OK\r\n" {
		t.Fatalf("config set: %q", got)
	}
	rc := dialRaw(t, s.Addr())
	rc.do("CLIENT", "SETNAME", "slow")
	big := multibulk("ECHO", strings.Repeat("v", 1<<20))
	go func() { // never reads
		for i := 0; i < 48; i++ {
			if _, err := io.WriteString(rc.c, big); err != nil {
				return
			}
		}
	}()
	waitFor(t, func() bool { return !strings.Contains(admin.do("CLIENT", "LIST"), "name=slow ") },
		"the slow reader to be closed")
	if admin.do("PING") != "+PONG\r\n" {
		t.Error("admin client affected")
	}
}

func TestIdleTimeoutClosesOnlyIdleClients(t *testing.T) {
	s, _ := startServer(t, Options{Timeout: 1})
	idle, busy := dialRaw(t, s.Addr()), dialRaw(t, s.Addr())
	idle.do("PING")
	deadline := time.Now().Add(2500 * time.Millisecond)
	for time.Now().Before(deadline) {
		if got := busy.do("PING"); got != "+PONG\r\n" {
			t.Fatalf("busy client: %q", got)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if got := idle.expectClosed(); got != "" {
		t.Errorf("idle client read %q", got)
	}
}

func TestShutdownDeliversInFlightRepliesAndStops(t *testing.T) {
	s, errc := startServer(t, Options{})
	rc := dialRaw(t, s.Addr())
	other := dialRaw(t, s.Addr())
	other.do("PING")
	var b strings.Builder
	for i := 0; i < 1000; i++ {
		b.WriteString(multibulk("ECHO", "x"))
	}
	b.WriteString(multibulk("SHUTDOWN", "NOSAVE"))
	rc.send(b.String())
	for i := 0; i < 1000; i++ {
		if got := rc.reply(); got != "$1\r\nx\r\n" {
			t.Fatalf("#%d: %q", i, got)
		}
	}
	if got := rc.expectClosed(); got != "" {
		t.Errorf("after SHUTDOWN read %q", got)
	}
	other.expectClosed()
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("Serve returned %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after SHUTDOWN")
	}
}

// TestRunStopsGracefullyWhenContextEnds runs the package-level Run, which
// tells nobody when it is ready: the test dials until the port answers
// PING.
// As in startServerOnFreePorts, when Run fails with EADDRINUSE on the port
// picked here (taken between freePort and the bind) it runs again on a new
// one, up to three times.
func TestRunStopsGracefullyWhenContextEnds(t *testing.T) {
	var (
		addr   string
		cancel context.CancelFunc
		done   chan error
	)
	for attempt := 1; ; attempt++ {
		port := freePort(t)
		var ctx context.Context
		ctx, cancel = context.WithCancel(context.Background())
		t.Cleanup(cancel)
		d := make(chan error, 1)
		go func() { d <- Run(ctx, Options{Port: port, Loops: 1, Logger: zap.NewNop()}) }()
		done, addr = d, fmt.Sprintf("127.0.0.1:%d", port)
		var runErr error
		waitFor(t, func() bool {
			select {
			case err := <-d:
				runErr = fmt.Errorf("returned before its context ended: %w", err)
				return true
			default:
			}
			return answersPing(addr)
		}, "listener")
		if runErr == nil {
			break
		}
		if !errors.Is(runErr, syscall.EADDRINUSE) || attempt == 3 {
			t.Fatalf("Run: %v", runErr)
		}
		t.Logf("Run: %v; the picked port was taken before the bind, picking again", runErr)
	}
	rc := dialRaw(t, addr)
	rc.do("PING")
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return")
	}
	rc.expectClosed()
}

// sendAndDrain writes in on a new connection and returns everything read
// until the server closes it, with " <open>" appended if it is still open
// after a second.
func sendAndDrain(t *testing.T, addr, in string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _ = io.WriteString(c, in)
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	b, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return string(b) + " <open>"
	}
	return string(b) // EOF, or a reset because unread input was pending
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for i := 0; i < 250; i++ {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

func TestBatchPastOutputLimitContinuesAfterWake(t *testing.T) {
	s, _ := startServer(t, Options{})
	rc := dialRaw(t, s.Addr())
	val := strings.Repeat("w", 512<<10)
	if got := rc.do("SET", "big", val); got != "+OK\r\n" {
		t.Fatalf("SET: %q", got)
	}
	// 200 bytes in, 10 MB out: the batch stops at batchOutLimit and
	// resumes after each Wake.
	const n = 20
	rc.send(strings.Repeat(multibulk("GET", "big"), n) + "PING\r\n")
	want := "$524288\r\n" + val + "\r\n"
	for i := 0; i < n; i++ {
		if got := rc.reply(); got != want {
			t.Fatalf("#%d: got %d bytes, want %d", i, len(got), len(want))
		}
	}
	if got := rc.reply(); got != "+PONG\r\n" {
		t.Errorf("last reply %q", got)
	}
}
