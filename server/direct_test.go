package server

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"BlockingDirectRepliesAcrossLoopsMatchRedis", TestBlockingDirectRepliesAcrossLoopsMatchRedis},
		{"BlockingDirectReplyRaces", TestBlockingDirectReplyRaces},
		{"BlockingDirectReplyPipelinedAfterTheWait", TestBlockingDirectReplyPipelinedAfterTheWait},
		{"BlockingDirectReplyFullSocketAndShortWrite", TestBlockingDirectReplyFullSocketAndShortWrite},
	}...)
}

// loopPair returns a pusher and a waiter connection on different loops of
// s (2 loops), and the pusher's loop.
func loopPair(t *testing.T, s *Server) (pusher, waiter *rawConn, home *loopState) {
	t.Helper()
	pusher = dialRaw(t, s.Addr())
	home = clientLoop(t, s, pusher)
	for i := 0; i < 64 && waiter == nil; i++ {
		if c := dialRaw(t, s.Addr()); clientLoop(t, s, c) != home {
			waiter = c
		}
	}
	if waiter == nil {
		t.Fatal("no connection landed on the other loop")
	}
	return pusher, waiter, home
}

// waitArmed waits until n blocked connections may have their reply
// written by a serving loop (gnet; nothing on netpoll): blocked counts a
// waiter when it blocks, and its loop arms the connection once it has
// written what the waiter's batch answered before it.
func waitArmed(t *testing.T, s *Server, n int) {
	t.Helper()
	if s.opts.Engine != "gnet" {
		return
	}
	waitFor(t, func() bool {
		armed := 0
		for _, cs := range s.clients.snapshot() {
			if d := cs.direct; d != nil {
				d.mu.Lock()
				armed += int(b2i(d.armed != nil))
				d.mu.Unlock()
			}
		}
		return armed == n
	}, fmt.Sprintf("%d armed connections", n))
}

// refBlocked waits until redis-server at rc has n blocked clients.
func refBlocked(t *testing.T, rc *rawConn, n int) {
	t.Helper()
	want := fmt.Sprintf("blocked_clients:%d\r\n", n)
	waitFor(t, func() bool { return strings.Contains(rc.do("INFO", "clients"), want) }, want)
}

// Every blocking pop served across loops answers, byte for byte, what
// redis-server answers for the same commands, in RESP2 and RESP3, and
// the command pipelined behind it follows. On gnet the pusher's loop
// writes each reply to the waiter's socket itself (wakes.direct); on
// netpoll the waiter's loop writes it, as before.
func TestBlockingDirectRepliesAcrossLoopsMatchRedis(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	ref := startRefRedis(t)
	pusher, waiter, home := loopPair(t, s)
	refPusher, refWaiter := dialRaw(t, ref), dialRaw(t, ref)
	cases := []struct{ block, push []string }{
		{[]string{"BLPOP", "none", "q", "0"}, []string{"RPUSH", "q", "a", "b"}},
		{[]string{"BRPOP", "q", "0"}, []string{"RPUSH", "q", "c", "d"}},
		{[]string{"BLMOVE", "q", "dst", "LEFT", "RIGHT", "0"}, []string{"RPUSH", "q", "e"}},
		{[]string{"BRPOPLPUSH", "q", "dst", "0"}, []string{"LPUSH", "q", "f", "g"}},
		{[]string{"BLMPOP", "0", "2", "x", "q", "RIGHT", "COUNT", "2"}, []string{"RPUSH", "q", "h", "i", "j"}},
		{[]string{"BZPOPMIN", "z", "0"}, []string{"ZADD", "z", "1.5", "m", "2", "n"}},
		{[]string{"BZPOPMAX", "z", "0"}, []string{"ZADD", "z", "-inf", "lo", "3.25", "hi"}},
		{[]string{"BZMPOP", "0", "1", "z", "MIN", "COUNT", "5"}, []string{"ZADD", "z", "1", "a", "2", "b"}},
		// SORT's STORE key is found by parsing: "store" as GET's pattern is not it
		{[]string{"BLPOP", "q", "0"}, []string{"SORT", "src", "ALPHA", "LIMIT", "0", "2", "GET", "store", "GET", "#", "STORE", "q"}},
	}
	for _, c := range []*rawConn{pusher, refPusher} {
		c.do("RPUSH", "src", "c", "a", "b")
		c.do("SET", "store", "not the destination")
	}
	for _, proto := range []string{"2", "3"} {
		waiter.do("HELLO", proto)
		refWaiter.do("HELLO", proto)
		for _, tc := range cases {
			name := fmt.Sprintf("RESP%s %s", proto, tc.block[0])
			before := home.wakes.direct.Load()
			waiter.send(multibulk(tc.block...) + multibulk("PING"))
			refWaiter.send(multibulk(tc.block...) + multibulk("PING"))
			waitForBlocked(t, s, 1)
			waitArmed(t, s, 1)
			refBlocked(t, refPusher, 1)
			if got, want := pusher.do(tc.push...), refPusher.do(tc.push...); got != want {
				t.Fatalf("%s: %v = %q, redis %q", name, tc.push, got, want)
			}
			for _, what := range []string{tc.block[0], "the pipelined PING"} {
				if got, want := waiter.reply(), refWaiter.reply(); got != want {
					t.Fatalf("%s: %s = %q, redis %q", name, what, got, want)
				}
			}
			want := int64(1)
			if s.opts.Engine != "gnet" {
				want = 0
			}
			if d := home.wakes.direct.Load() - before; d != want {
				t.Errorf("%s on %s: the pusher's loop wrote %d replies to the waiter's socket, want %d", name, s.opts.Engine, d, want)
			}
			for _, k := range []string{"q", "dst", "z"} {
				if got, want := pusher.do("LRANGE", k, "0", "-1"), refPusher.do("LRANGE", k, "0", "-1"); got != want {
					t.Fatalf("%s: LRANGE %s = %q, redis %q", name, k, got, want)
				}
			}
			pusher.do("DEL", "q", "dst", "z")
			refPusher.do("DEL", "q", "dst", "z")
		}
	}
}

// Served while it goes away: a waiter that disconnects, or is killed with
// CLIENT KILL, as a push on the other loop serves it, and a subscribed
// RESP3 waiter sent messages while it is served. Each round either serves
// the waiter or leaves the element; the server stays whole, no waiter is
// left counted, and the messages and the reply arrive whole. Run with
// -race.
func TestBlockingDirectReplyRaces(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	pusher, _, home := loopPair(t, s)
	killer := dialRaw(t, s.Addr())
	other := func() *rawConn {
		for i := 0; i < 64; i++ {
			if c := dialRaw(t, s.Addr()); clientLoop(t, s, c) != home {
				return c
			}
		}
		t.Fatal("no connection landed on the other loop")
		return nil
	}
	for round := range 30 {
		w := other()
		id := strings.TrimSpace(strings.TrimPrefix(w.do("CLIENT", "ID"), ":"))
		w.send(multibulk("BLPOP", "q", "0"))
		waitForBlocked(t, s, 1)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			if round%2 == 0 {
				_ = w.c.Close()
			} else {
				killer.send(multibulk("CLIENT", "KILL", "ID", id))
			}
		}()
		if got := pusher.do("RPUSH", "q", "x"); got != ":1\r\n" {
			t.Fatalf("round %d: RPUSH = %q", round, got)
		}
		wg.Wait()
		if round%2 == 1 {
			if got := killer.reply(); got != ":1\r\n" && got != ":0\r\n" {
				t.Fatalf("round %d: CLIENT KILL = %q", round, got)
			}
		}
		waitForBlocked(t, s, 0)
		pusher.do("DEL", "q")
	}
	// messages to a blocked RESP3 subscriber while pushes serve it
	w := other()
	w.do("HELLO", "3")
	w.send(multibulk("SUBSCRIBE", "ch"))
	if got := w.reply(); !strings.HasPrefix(got, ">3\r\n$9\r\nsubscribe\r\n") {
		t.Fatalf("SUBSCRIBE = %q", got)
	}
	publisher := dialRaw(t, s.Addr())
	for round := range 100 {
		w.send(multibulk("BLPOP", "q", "0"))
		waitForBlocked(t, s, 1)
		msg := "m" + strconv.Itoa(round)
		done := make(chan string, 1)
		go func() { done <- publisher.do("PUBLISH", "ch", msg) }()
		if got := pusher.do("RPUSH", "q", strconv.Itoa(round)); got != ":1\r\n" {
			t.Fatalf("round %d: RPUSH = %q", round, got)
		}
		if got := <-done; got != ":1\r\n" {
			t.Fatalf("round %d: PUBLISH = %q", round, got)
		}
		wantPop := fmt.Sprintf("*2\r\n$1\r\nq\r\n$%d\r\n%d\r\n", len(strconv.Itoa(round)), round)
		wantMsg := fmt.Sprintf(">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$%d\r\n%s\r\n", len(msg), msg)
		a, b := w.reply(), w.reply()
		if !(a == wantPop && b == wantMsg || a == wantMsg && b == wantPop) {
			t.Fatalf("round %d: the subscriber read %q then %q, want %q and %q in either order", round, a, b, wantPop, wantMsg)
		}
	}
	if got := pusher.do("PING"); got != "+PONG\r\n" {
		t.Fatalf("PING = %q", got)
	}
}

// A waiter's commands pipelined behind its BLPOP, a second BLPOP among
// them, answer after the reply the pusher's loop wrote, in order.
func TestBlockingDirectReplyPipelinedAfterTheWait(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	pusher, waiter, home := loopPair(t, s)
	before := home.wakes.direct.Load()
	const rounds = 20
	for i := range rounds {
		v := strconv.Itoa(i)
		waiter.send(multibulk("BLPOP", "q", "0") + multibulk("SET", "k", v) + multibulk("GET", "k") +
			multibulk("BRPOP", "q", "0") + multibulk("INCR", "n"))
		waitForBlocked(t, s, 1)
		waitArmed(t, s, 1)
		if got := pusher.do("RPUSH", "q", "a"+v); got != ":1\r\n" {
			t.Fatalf("RPUSH = %q", got)
		}
		if got, want := waiter.reply(), fmt.Sprintf("*2\r\n$1\r\nq\r\n$%d\r\na%s\r\n", len(v)+1, v); got != want {
			t.Fatalf("round %d: BLPOP = %q, want %q", i, got, want)
		}
		waitForBlocked(t, s, 1) // the BRPOP
		waitArmed(t, s, 1)
		if got := pusher.do("RPUSH", "q", "b"+v); got != ":1\r\n" {
			t.Fatalf("RPUSH = %q", got)
		}
		for _, want := range []string{"+OK\r\n", fmt.Sprintf("$%d\r\n%s\r\n", len(v), v),
			fmt.Sprintf("*2\r\n$1\r\nq\r\n$%d\r\nb%s\r\n", len(v)+1, v), fmt.Sprintf(":%d\r\n", i+1)} {
			if got := waiter.reply(); got != want {
				t.Fatalf("round %d: %q, want %q", i, got, want)
			}
		}
	}
	if s.opts.Engine == "gnet" {
		if d := home.wakes.direct.Load() - before; d != 2*rounds {
			t.Errorf("the pusher's loop wrote %d replies itself, want %d", d, 2*rounds)
		}
	}
}

// A waiter that reads nothing: with its earlier replies still queued in
// the server (a full socket) its reply goes through its own loop behind
// them; with the socket free but too small for the reply, the pusher's
// loop writes the front and the waiter's loop the rest. The client then
// reads every byte, in order.
func TestBlockingDirectReplyFullSocketAndShortWrite(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	pusher, waiter, home := loopPair(t, s)
	// a fixed receive buffer: the kernel's tuning would grow it to tens
	// of MB as the client reads (tcp_rmem); the send side grows to 4 MB
	if err := waiter.c.(*net.TCPConn).SetReadBuffer(256 << 10); err != nil {
		t.Fatal(err)
	}
	// values made in the server (SETRANGE pads with zero bytes): a large
	// command is slow to send, not what this is about
	big := strings.Repeat("\x00", 1<<20-1) + "v"
	if got := pusher.do("SETRANGE", "big", strconv.Itoa(len(big)-1), "v"); got != fmt.Sprintf(":%d\r\n", len(big)) {
		t.Fatalf("SETRANGE = %q", got)
	}
	const gets = 8 // more than the sockets hold: the rest waits in the server
	var req strings.Builder
	for range gets {
		req.WriteString(multibulk("GET", "big"))
	}
	req.WriteString(multibulk("BLPOP", "q", "0"))
	waiter.send(req.String())
	waitForBlocked(t, s, 1)
	direct, cut := home.wakes.direct.Load(), home.wakes.directCut.Load()
	if got := pusher.do("RPUSH", "q", "after"); got != ":1\r\n" {
		t.Fatalf("RPUSH = %q", got)
	}
	if d, c := home.wakes.direct.Load()-direct, home.wakes.directCut.Load()-cut; d != 0 || c != 0 {
		t.Errorf("behind queued replies: the pusher's loop wrote %d replies and %d fronts itself, want 0", d, c)
	}
	wantGet := fmt.Sprintf("$%d\r\n%s\r\n", len(big), big)
	for i := range gets {
		if got := waiter.reply(); got != wantGet {
			t.Fatalf("GET %d: %d bytes, want %d", i, len(got), len(wantGet))
		}
	}
	if got := waiter.reply(); got != "*2\r\n$1\r\nq\r\n$5\r\nafter\r\n" {
		t.Fatalf("BLPOP behind the GETs = %q", got)
	}

	// a reply larger than the socket takes, to a waiter not reading: SORT
	// ... GET huge* STORE pre makes a list of huge's value, built here,
	// and RENAME pre q gives it to the waiter
	huge := strings.Repeat("\x00", 6<<20-1) + "h"
	pusher.do("SETRANGE", "huge", strconv.Itoa(len(huge)-1), "h")
	pusher.do("RPUSH", "src", "")
	if got := pusher.do("SORT", "src", "BY", "nosort", "GET", "huge*", "STORE", "pre"); got != ":1\r\n" {
		t.Fatalf("SORT ... STORE pre = %q", got)
	}
	waiter.send(multibulk("BLPOP", "q", "0") + multibulk("PING"))
	waitForBlocked(t, s, 1)
	waitArmed(t, s, 1)
	direct, cut = home.wakes.direct.Load(), home.wakes.directCut.Load()
	if got := pusher.do("RENAME", "pre", "q"); got != "+OK\r\n" {
		t.Fatalf("RENAME pre q = %q", got)
	}
	if s.opts.Engine == "gnet" {
		if d, c := home.wakes.direct.Load()-direct, home.wakes.directCut.Load()-cut; d != 0 || c != 1 {
			t.Errorf("a reply larger than the socket: %d written whole, %d cut by the pusher's loop, want 0 and 1", d, c)
		}
	}
	want := fmt.Sprintf("*2\r\n$1\r\nq\r\n$%d\r\n%s\r\n", len(huge), huge)
	got := make([]byte, len(want))
	if _, err := io.ReadFull(waiter.r, got); err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("the cut reply differs from byte %d", firstDiff(string(got), want))
	}
	if got := waiter.reply(); got != "+PONG\r\n" {
		t.Fatalf("PING after the cut reply = %q", got)
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
