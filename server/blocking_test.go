package server

import (
	"bufio"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"BlockingPopServedAcrossLoops", TestBlockingPopServedAcrossLoops},
		{"BlockingPopsServeInArrivalOrder", TestBlockingPopsServeInArrivalOrder},
		{"BlockingTimeoutsUnblockAndDisconnect", TestBlockingTimeoutsUnblockAndDisconnect},
		{"BlockingMoveChainsAndPipelines", TestBlockingMoveChainsAndPipelines},
		{"BlockingTLSWaiterAfterKeyRelease", TestBlockingTLSWaiterAfterKeyRelease},
		{"BlockingSortedSetPops", TestBlockingSortedSetPops},
		{"BlockingServedWaitersWakeEachLoopOnce", TestBlockingServedWaitersWakeEachLoopOnce},
		{"BlockingServedWaiterRepliedBeforeThePusher", TestBlockingServedWaiterRepliedBeforeThePusher},
		{"BlockingPusherYieldsToTheLoopItWokeWhenLoopsShareCPUs", TestBlockingPusherYieldsToTheLoopItWokeWhenLoopsShareCPUs},
	}...)
}

// clientLoop returns the loop that serves the connection rc.
func clientLoop(t *testing.T, s *Server, rc *rawConn) *loopState {
	t.Helper()
	id, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(rc.do("CLIENT", "ID"), ":")), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	cs := s.clients.get(id)
	if cs == nil {
		t.Fatalf("client %d not registered", id)
	}
	return cs.ls
}

// waitForBlocked waits until n clients are blocked.
func waitForBlocked(t *testing.T, s *Server, n int64) {
	t.Helper()
	waitFor(t, func() bool { return s.blocked.n.Load() == n }, fmt.Sprintf("%d blocked clients", n))
}

// A BLPOP waiting on one loop is served by an RPUSH on another, and the
// waiter's connection then runs the commands it pipelined behind BLPOP.
func TestBlockingPopServedAcrossLoops(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	waiter := dialRaw(t, s.Addr())
	var pusher *rawConn
	for i := 0; i < 16 && pusher == nil; i++ { // connections are spread over the loops
		c := dialRaw(t, s.Addr())
		if clientLoop(t, s, c) != clientLoop(t, s, waiter) {
			pusher = c
		}
	}
	if pusher == nil {
		t.Fatal("no connection landed on the other loop")
	}
	waiter.send(multibulk("BLPOP", "q", "0") + multibulk("PING"))
	waitForBlocked(t, s, 1)
	if got := pusher.do("INFO", "clients"); !strings.Contains(got, "blocked_clients:1\r\n") || !strings.Contains(got, "total_blocking_keys:1\r\n") {
		t.Fatalf("INFO clients while blocked: %q", got)
	}
	if got := pusher.do("RPUSH", "q", "job"); got != ":1\r\n" {
		t.Fatalf("RPUSH = %q", got)
	}
	if got := waiter.reply(); got != "*2\r\n$1\r\nq\r\n$3\r\njob\r\n" {
		t.Fatalf("BLPOP = %q", got)
	}
	if got := waiter.reply(); got != "+PONG\r\n" {
		t.Fatalf("the pipelined PING = %q", got)
	}
	if got := pusher.do("LLEN", "q"); got != ":0\r\n" {
		t.Fatalf("LLEN after the pop = %q", got)
	}
	waitForBlocked(t, s, 0)
}

// 100 waiters on one key are served in the order they blocked, each once.
func TestBlockingPopsServeInArrivalOrder(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	const n = 100
	waiters := make([]*rawConn, n)
	for i := range waiters {
		waiters[i] = dialRaw(t, s.Addr())
		waiters[i].send(multibulk("BRPOP", "other", "q", "0"))
		waitForBlocked(t, s, int64(i+1))
	}
	args := []string{"LPUSH", "q"}
	for i := 0; i < n; i++ {
		args = append(args, strconv.Itoa(i))
	}
	// LPUSH q 0 1 ... 99 leaves 0 at the tail: BRPOP pops 0 first
	pusher := dialRaw(t, s.Addr())
	if got := pusher.do(args...); got != ":100\r\n" {
		t.Fatalf("LPUSH = %q", got)
	}
	for i, w := range waiters {
		want := fmt.Sprintf("*2\r\n$1\r\nq\r\n$%d\r\n%d\r\n", len(strconv.Itoa(i)), i)
		if got := w.reply(); got != want {
			t.Fatalf("waiter %d got %q, want %q", i, got, want)
		}
	}
	waitForBlocked(t, s, 0)
	if got := pusher.do("EXISTS", "q"); got != ":0\r\n" {
		t.Fatalf("EXISTS q = %q", got)
	}
}

// Timeouts answer null (in milliseconds as Redis offers them), CLIENT
// UNBLOCK ends a wait with a timeout or an error, `timeout` does not close
// a blocked client, and a client that disconnects while blocked is
// forgotten: the next push is not lost on it.
func TestBlockingTimeoutsUnblockAndDisconnect(t *testing.T) {
	s, _ := startServer(t, Options{Timeout: 1})
	c := dialRaw(t, s.Addr())
	start := time.Now()
	if got := c.do("BLPOP", "q", "0.05"); got != "*-1\r\n" {
		t.Fatalf("BLPOP with a 50 ms timeout = %q", got)
	}
	// The deadline is the command's clock (whole ms, as Redis's) plus 50:
	// up to 1 ms before the command's exact time plus 50 ms.
	if el := time.Since(start); el < 49*time.Millisecond {
		t.Fatalf("BLPOP returned after %v, before its timeout", el)
	}
	c.do("HELLO", "3")
	if got := c.do("BLMOVE", "q", "d", "LEFT", "RIGHT", "0.01"); got != "_\r\n" {
		t.Fatalf("RESP3 BLMOVE timeout = %q", got)
	}
	if got := c.do("BLMPOP", "0.01", "1", "q", "LEFT"); got != "_\r\n" {
		t.Fatalf("RESP3 BLMPOP timeout = %q", got)
	}

	admin := dialRaw(t, s.Addr())
	b := dialRaw(t, s.Addr())
	bid := strings.TrimSpace(strings.TrimPrefix(b.do("CLIENT", "ID"), ":"))
	b.send(multibulk("BLPOP", "q", "0"))
	waitForBlocked(t, s, 1)
	if got := admin.do("CLIENT", "LIST", "ID", bid); !strings.Contains(got, " flags=b ") {
		t.Fatalf("CLIENT LIST of a blocked client: %q", got)
	}
	for i := 0; i < 21; i++ { // past the 1 s idle timeout: a blocked client stays (admin keeps busy)
		time.Sleep(100 * time.Millisecond)
		admin.do("PING")
	}
	if got := admin.do("CLIENT", "UNBLOCK", bid); got != ":1\r\n" {
		t.Fatalf("CLIENT UNBLOCK = %q", got)
	}
	if got := b.reply(); got != "*-1\r\n" {
		t.Fatalf("after CLIENT UNBLOCK: %q", got)
	}
	if got := admin.do("CLIENT", "UNBLOCK", bid); got != ":0\r\n" {
		t.Fatalf("CLIENT UNBLOCK of an unblocked client = %q", got)
	}
	b.send(multibulk("BRPOPLPUSH", "q", "d", "0"))
	waitForBlocked(t, s, 1)
	if got := admin.do("CLIENT", "UNBLOCK", bid, "ERROR"); got != ":1\r\n" {
		t.Fatalf("CLIENT UNBLOCK ERROR = %q", got)
	}
	if got := b.reply(); got != "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n" {
		t.Fatalf("after CLIENT UNBLOCK ERROR: %q", got)
	}
	for _, args := range [][]string{{"CLIENT", "UNBLOCK", bid, "SOON"}, {"CLIENT", "UNBLOCK", "x"}, {"CLIENT", "UNBLOCK", "999999"}} {
		want := map[string]string{"SOON": "-ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR\r\n",
			"x": "-ERR value is not an integer or out of range\r\n", "999999": ":0\r\n"}[args[len(args)-1]]
		if got := admin.do(args...); got != want {
			t.Fatalf("%q = %q, want %q", args, got, want)
		}
	}

	killed := dialRaw(t, s.Addr())
	kid := strings.TrimSpace(strings.TrimPrefix(killed.do("CLIENT", "ID"), ":"))
	killed.send(multibulk("BLPOP", "q", "0"))
	waitForBlocked(t, s, 1)
	if got := admin.do("CLIENT", "KILL", "ID", kid); got != ":1\r\n" {
		t.Fatalf("CLIENT KILL ID of a blocked client = %q", got)
	}
	if got := killed.expectClosed(); got != "" {
		t.Fatalf("a killed blocked client read %q", got)
	}
	waitForBlocked(t, s, 0)
	if got := infoValue(t, admin, "total_blocking_keys"); got != "0" {
		t.Fatalf("total_blocking_keys after CLIENT KILL = %s", got)
	}

	gone := dialRaw(t, s.Addr())
	gone.send(multibulk("BLPOP", "q", "0"))
	waitForBlocked(t, s, 1)
	gone.c.Close()
	waitForBlocked(t, s, 0)
	if got := admin.do("RPUSH", "q", "kept"); got != ":1\r\n" {
		t.Fatalf("RPUSH = %q", got)
	}
	if got := admin.do("LPOP", "q"); got != "$4\r\nkept\r\n" {
		t.Fatalf("the element pushed after the waiter left: %q", got)
	}
	for _, tt := range []struct{ args, want string }{
		{"BLPOP q x", "-ERR timeout is not a float or out of range\r\n"},
		{"BLPOP q -1", "-ERR timeout is negative\r\n"},
		{"BLPOP q 1e100", "-ERR timeout is negative\r\n"},
		{"BLPOP q nan", "-ERR timeout is not a float or out of range\r\n"},
		{"BLMOVE q d LEFT UP 0", "-ERR syntax error\r\n"},
		{"BLMPOP 0 0 q LEFT", "-ERR numkeys should be greater than 0\r\n"},
		{"BLMPOP 0.01 1 q LEFT COUNT 0", "-ERR count should be greater than 0\r\n"},
	} {
		if got := admin.do(strings.Fields(tt.args)...); got != tt.want {
			t.Errorf("%s = %q, want %q", tt.args, got, tt.want)
		}
	}
	admin.do("SET", "str", "v")
	if got := admin.do("BLPOP", "str", "0"); got != "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n" {
		t.Fatalf("BLPOP on a string = %q", got)
	}
}

// A served BLMOVE pushes into its destination, which serves the waiters
// of that key in turn; LMPOP-style waiters get their count.
func TestBlockingMoveChainsAndPipelines(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	first := dialRaw(t, s.Addr())
	second := dialRaw(t, s.Addr())
	multi := dialRaw(t, s.Addr())
	first.send(multibulk("BLMOVE", "a", "b", "LEFT", "RIGHT", "0"))
	waitForBlocked(t, s, 1)
	second.send(multibulk("BLPOP", "b", "0"))
	waitForBlocked(t, s, 2)
	multi.send(multibulk("BLMPOP", "0", "2", "none", "c", "RIGHT", "COUNT", "2"))
	waitForBlocked(t, s, 3)
	pusher := dialRaw(t, s.Addr())
	pusher.do("RPUSH", "a", "x")
	if got := first.reply(); got != "$1\r\nx\r\n" {
		t.Fatalf("BLMOVE = %q", got)
	}
	if got := second.reply(); got != "*2\r\n$1\r\nb\r\n$1\r\nx\r\n" {
		t.Fatalf("BLPOP on the BLMOVE's destination = %q", got)
	}
	pusher.do("RPUSH", "c", "1", "2", "3")
	if got := multi.reply(); got != "*2\r\n$1\r\nc\r\n*2\r\n$1\r\n3\r\n$1\r\n2\r\n" {
		t.Fatalf("BLMPOP = %q", got)
	}
	waitForBlocked(t, s, 0)
	// a waited-on key that becomes a string keeps its waiter blocked
	first.send(multibulk("BLPOP", "s", "0"))
	waitForBlocked(t, s, 1)
	pusher.do("SET", "s", "v")
	pusher.do("DEL", "s")
	pusher.do("RPUSH", "s", "after")
	if got := first.reply(); got != "*2\r\n$1\r\ns\r\n$5\r\nafter\r\n" {
		t.Fatalf("BLPOP across a type change = %q", got)
	}
	if got := pusher.do("LRANGE", "c", "0", "-1"); got != "*1\r\n$1\r\n1\r\n" {
		t.Fatalf("LRANGE c = %q", got)
	}
}

// A TLS client blocked long enough for its connection to release its key
// schedules still gets its element, pushed by a client on the other loop,
// and its connection works on.
func TestBlockingTLSWaiterAfterKeyRelease(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{Loops: 2})
	c := dialTLS(t, s.TLSAddr(), p.clientConfig())
	r := bufio.NewReader(c)
	id, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(tlsDo(t, c, r, "CLIENT", "ID"), ":")), 10, 64)
	if err != nil || s.clients.get(id) == nil {
		t.Fatalf("CLIENT ID over TLS: %d %v", id, err)
	}
	var admin *rawConn
	for i := 0; i < 32 && admin == nil; i++ {
		if a := dialRaw(t, s.Addr()); clientLoop(t, s, a) != s.clients.get(id).ls {
			admin = a
		}
	}
	if admin == nil {
		t.Fatal("no plaintext connection landed on the other loop")
	}
	if _, err := c.Write([]byte(multibulk("BLPOP", "q", "0"))); err != nil {
		t.Fatal(err)
	}
	waitForBlocked(t, s, 1)
	before, _ := strconv.Atoi(infoValue(t, admin, "tls_idle_released"))
	waitFor(t, func() bool {
		n, _ := strconv.Atoi(infoValue(t, admin, "tls_idle_released"))
		return n > before
	}, "the blocked TLS connection to release its keys")
	if got := admin.do("LPUSH", "q", "over-tls"); got != ":1\r\n" {
		t.Fatalf("LPUSH = %q", got)
	}
	got, err := readRaw(r)
	if err != nil || got != "*2\r\n$1\r\nq\r\n$8\r\nover-tls\r\n" {
		t.Fatalf("BLPOP over TLS = %q %v", got, err)
	}
	if got := tlsDo(t, c, r, "GET", "missing"); got != "$-1\r\n" {
		t.Fatalf("GET after the pop = %q", got)
	}
}

// BZPOPMIN, BZPOPMAX and BZMPOP are served by ZADD on another connection,
// in RESP2 and RESP3, and time out with a null array.
func TestBlockingSortedSetPops(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	min2, max3, multi := dialRaw(t, s.Addr()), dialRaw(t, s.Addr()), dialRaw(t, s.Addr())
	max3.do("HELLO", "3")
	min2.send(multibulk("BZPOPMIN", "none", "z", "0"))
	waitForBlocked(t, s, 1)
	max3.send(multibulk("BZPOPMAX", "z", "0"))
	waitForBlocked(t, s, 2)
	multi.send(multibulk("BZMPOP", "0", "1", "z", "MIN", "COUNT", "5"))
	waitForBlocked(t, s, 3)
	writer := dialRaw(t, s.Addr())
	if got := writer.do("ZADD", "z", "1", "a", "2.5", "b", "3", "c", "4", "d"); got != ":4\r\n" {
		t.Fatalf("ZADD = %q", got)
	}
	if got := min2.reply(); got != "*3\r\n$1\r\nz\r\n$1\r\na\r\n$1\r\n1\r\n" {
		t.Fatalf("BZPOPMIN = %q", got)
	}
	if got := max3.reply(); got != "*3\r\n$1\r\nz\r\n$1\r\nd\r\n,4\r\n" {
		t.Fatalf("RESP3 BZPOPMAX = %q", got)
	}
	if got := multi.reply(); got != "*2\r\n$1\r\nz\r\n*2\r\n*2\r\n$1\r\nb\r\n$3\r\n2.5\r\n*2\r\n$1\r\nc\r\n$1\r\n3\r\n" {
		t.Fatalf("BZMPOP = %q", got)
	}
	waitForBlocked(t, s, 0)
	if got := writer.do("EXISTS", "z"); got != ":0\r\n" {
		t.Fatalf("EXISTS z = %q", got)
	}
	for _, tt := range []struct{ args, want string }{
		{"BZPOPMIN z 0.01", "*-1\r\n"},
		{"BZMPOP 0.01 1 z MAX", "*-1\r\n"},
		{"BZMPOP 0.01 0 z MAX", "-ERR numkeys should be greater than 0\r\n"},
		{"BZPOPMIN z -2", "-ERR timeout is negative\r\n"},
	} {
		if got := writer.do(strings.Fields(tt.args)...); got != tt.want {
			t.Errorf("%s = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// One RPUSH serves waiters on both loops; each gets its element (in the
// order they blocked) and the pipelined PING behind its BLPOP. On gnet a
// served waiter is delivered by its own loop without a Wake per waiter:
// those on the pusher's loop right after the push's callback (local),
// those on the other loop by one drain for the whole batch. On netpoll,
// which has no such callback, each is woken and neither count moves.
func TestBlockingServedWaitersWakeEachLoopOnce(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	pusher := dialRaw(t, s.Addr())
	home := clientLoop(t, s, pusher)
	const each = 3
	var waiters []*rawConn
	var other *loopState
	same, away := 0, 0
	for i := 0; i < 64 && (same < each || away < each); i++ {
		c := dialRaw(t, s.Addr())
		switch ls := clientLoop(t, s, c); {
		case ls == home && same < each:
			same++
		case ls != home && away < each:
			away, other = away+1, ls
		default:
			continue
		}
		c.send(multibulk("BLPOP", "q", "0") + multibulk("PING"))
		waiters = append(waiters, c)
		waitForBlocked(t, s, int64(len(waiters)))
	}
	if same < each || away < each {
		t.Fatalf("connections did not spread over the loops: %d on the pusher's, %d on the other", same, away)
	}
	inHome, drainHome := home.wakes.inlined.Load(), home.wakes.drains.Load()
	inOther, drainOther := other.wakes.inlined.Load(), other.wakes.drains.Load()
	args := []string{"RPUSH", "q"}
	for i := range waiters {
		args = append(args, strconv.Itoa(i))
	}
	if got := pusher.do(args...); got != fmt.Sprintf(":%d\r\n", len(waiters)) {
		t.Fatalf("RPUSH = %q", got)
	}
	for i, w := range waiters {
		if got, want := w.reply(), fmt.Sprintf("*2\r\n$1\r\nq\r\n$1\r\n%d\r\n", i); got != want {
			t.Fatalf("waiter %d: %q, want %q", i, got, want)
		}
		if got := w.reply(); got != "+PONG\r\n" {
			t.Fatalf("waiter %d: the pipelined PING = %q", i, got)
		}
	}
	waitForBlocked(t, s, 0)
	wantLocal, wantDrains := int64(each), int64(1)
	if s.opts.Engine != "gnet" {
		wantLocal, wantDrains = 0, 0
	}
	if d := home.wakes.inlined.Load() - inHome; d != wantLocal {
		t.Errorf("%s: %d waiters delivered on the pusher's loop after its callback, want %d", s.opts.Engine, d, wantLocal)
	}
	if d := home.wakes.drains.Load() - drainHome; d != 0 {
		t.Errorf("the pusher's loop drained %d times, want 0", d)
	}
	if d := other.wakes.drains.Load() - drainOther; d != wantDrains {
		t.Errorf("%s: the other loop drained %d times for one batch, want %d", s.opts.Engine, d, wantDrains)
	}
	if d := other.wakes.inlined.Load() - inOther; d != 0 {
		t.Errorf("the other loop put %d waiters on its local list, want 0", d)
	}
}

// A waiter on the pusher's loop gets its reply before the pusher gets
// its own, as from Redis (which writes the client it served last first):
// on gnet the pusher's callback delivers its loop's served waiters before
// it writes. Once the pusher has read its reply, the waiter's is in the
// waiter's socket already, every time.
func TestBlockingServedWaiterRepliedBeforeThePusher(t *testing.T) {
	if testEngine != "" && testEngine != "gnet" {
		t.Skip("only gnet delivers served waiters in the writer's callback")
	}
	s, _ := startServer(t, Options{Loops: 2})
	pusher := dialRaw(t, s.Addr())
	home := clientLoop(t, s, pusher)
	var waiter *rawConn
	for i := 0; i < 64 && waiter == nil; i++ {
		if c := dialRaw(t, s.Addr()); clientLoop(t, s, c) == home {
			waiter = c
		}
	}
	if waiter == nil {
		t.Fatal("no connection landed on the pusher's loop")
	}
	sc, ok := waiter.c.(syscall.Conn)
	if !ok {
		t.Fatal("not a socket")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	buffered := func() int { // bytes in the waiter's socket now, without waiting
		var n int
		buf := make([]byte, 64)
		if err := rc.Read(func(fd uintptr) bool {
			n, _, _ = syscall.Recvfrom(int(fd), buf, syscall.MSG_DONTWAIT|syscall.MSG_PEEK)
			return true
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i := range 50 {
		waiter.send(multibulk("BLPOP", "q", "0"))
		waitForBlocked(t, s, 1)
		if got := pusher.do("RPUSH", "q", strconv.Itoa(i)); got != ":1\r\n" {
			t.Fatalf("RPUSH = %q", got)
		}
		if n := buffered(); n <= 0 {
			t.Fatalf("round %d: the pusher had its reply before the waiter's was written", i)
		}
		if got, want := waiter.reply(), fmt.Sprintf("*2\r\n$1\r\nq\r\n$%d\r\n%d\r\n", len(strconv.Itoa(i)), i); got != want {
			t.Fatalf("round %d: waiter got %q, want %q", i, got, want)
		}
	}
}

// With more loops than CPUs, a push that wakes other loops for its
// waiters' replies yields the pusher's CPU once, whatever the number of
// loops woken, and a push served on its own loop does not; with a CPU per
// loop nothing yields. A reply the pusher's loop wrote to the waiter's
// socket itself (direct.go) leaves nothing urgent to the waiter's loop:
// nothing yields for it.
func TestBlockingPusherYieldsToTheLoopItWokeWhenLoopsShareCPUs(t *testing.T) {
	if testEngine != "" && testEngine != "gnet" {
		t.Skip("only gnet delivers served waiters in the writer's callback")
	}
	for _, direct := range []bool{false, true} {
		directWrites.Store(direct)
		yieldsWithLoops(t, direct)
	}
	directWrites.Store(true)
}

func yieldsWithLoops(t *testing.T, direct bool) {
	for _, loops := range []int{runtime.NumCPU(), runtime.NumCPU() + 1} {
		if loops < 2 {
			continue // no other loop to wake
		}
		s, _ := startServer(t, Options{Loops: loops})
		pusher := dialRaw(t, s.Addr())
		home := clientLoop(t, s, pusher)
		var local *rawConn
		away := map[*loopState]*rawConn{}
		for i := 0; i < 128 && (local == nil || len(away) < min(2, loops-1)); i++ {
			c := dialRaw(t, s.Addr())
			switch ls := clientLoop(t, s, c); {
			case ls == home && local == nil:
				local = c
			case ls != home && away[ls] == nil:
				away[ls] = c
			}
		}
		if local == nil || len(away) < min(2, loops-1) {
			t.Fatalf("%d loops: connections did not spread: %d on the pusher's, %d other loops", loops, b2i(local != nil), len(away))
		}
		want := int64(0)
		if loops > runtime.NumCPU() && !direct {
			want = 1
		}
		push := func(name string, waiters []*rawConn, yields int64) {
			t.Helper()
			for _, w := range waiters {
				w.send(multibulk("BLPOP", "q", "0"))
			}
			waitForBlocked(t, s, int64(len(waiters)))
			if direct {
				waitArmed(t, s, len(waiters))
			}
			before, wrote := home.wakes.yields.Load(), home.wakes.direct.Load()
			args := []string{"RPUSH", "q"}
			for range waiters {
				args = append(args, "x")
			}
			if got := pusher.do(args...); got != fmt.Sprintf(":%d\r\n", len(waiters)) {
				t.Fatalf("RPUSH = %q", got)
			}
			for _, w := range waiters {
				if got := w.reply(); got != "*2\r\n$1\r\nq\r\n$1\r\nx\r\n" {
					t.Fatalf("%d loops, %s: waiter got %q", loops, name, got)
				}
			}
			if d := home.wakes.yields.Load() - before; d != yields {
				t.Errorf("%d loops on %d CPUs, direct replies %v, %s: the pusher's loop yielded %d times, want %d", loops, runtime.NumCPU(), direct, name, d, yields)
			}
			if d, want := home.wakes.direct.Load()-wrote, b2i(direct)*int64(len(waiters)); d != want {
				t.Errorf("%d loops, direct replies %v, %s: the pusher's loop wrote %d replies itself, want %d", loops, direct, name, d, want)
			}
		}
		var others []*rawConn
		for _, c := range away {
			others = append(others, c)
		}
		push("a waiter on another loop", others[:1], want)
		push(fmt.Sprintf("waiters on %d other loops", len(others)), others, want)
		push("a waiter on the pusher's loop", []*rawConn{local}, 0)
	}
}
