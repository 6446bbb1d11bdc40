package server

import (
	"net"
	"strings"
	"testing"
	"time"
)

// TestClientReplyOverSocketsMatchesRedis runs a muted client beside a
// second connection on loopkv (two loops) and on redis-server and
// compares the muted client's byte streams: another client's messages and
// invalidations reach it while it is muted, the served reply of its
// blocked BLPOP (written by the serving loop itself when it can) does
// not, and a long muted pipeline leaves nothing but the final replies.
func TestClientReplyOverSocketsMatchesRedis(t *testing.T) {
	s, _ := startServer(t, Options{})
	ref := startRefRedis(t)
	got, want := mutedClientStream(t, s.Addr()), mutedClientStream(t, ref)
	if got != want {
		t.Errorf("muted client's stream:\n  got  %q\n  want %q", got, want)
	}
	if !strings.Contains(want, "invalidate") || !strings.Contains(want, "m1") {
		t.Fatalf("the reference sent no pushes: %q", want)
	}
}

// mutedClientStream runs the scenario against addr and returns what the
// muted client read after its first three replies.
func mutedClientStream(t *testing.T, addr string) string {
	a, b := dialRaw(t, addr), dialRaw(t, addr)
	var in strings.Builder
	for _, cmd := range [][]string{
		{"CLIENT", "REPLY", "SKIP"}, {"HELLO", "3"}, {"SUBSCRIBE", "ch"}, {"CLIENT", "TRACKING", "ON"}, {"GET", "k"},
		{"CLIENT", "REPLY", "OFF"}, {"GET", "k2"}, {"SET", "x", "1"}, {"BLPOP", "l", "0"},
	} {
		in.WriteString(multibulk(cmd...))
	}
	a.send(in.String())
	if got, want := a.reply()+a.reply()+a.reply(), ">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n+OK\r\n_\r\n"; got != want {
		t.Fatalf("%s: before muting: %q, want %q", addr, got, want)
	}
	waitFor(t, func() bool { return strings.Contains(b.do("INFO", "clients"), "blocked_clients:1\r\n") }, "the muted BLPOP to block")
	for _, cmd := range [][]string{{"PUBLISH", "ch", "m1"}, {"SET", "k", "v"}, {"LPUSH", "l", "e"}} {
		b.do(cmd...)
	}
	waitFor(t, func() bool { return strings.Contains(b.do("INFO", "clients"), "blocked_clients:0\r\n") }, "the muted BLPOP to be served")
	// a pipeline of muted commands, then the end of muting
	in.Reset()
	for i := 0; i < 3000; i++ {
		in.WriteString(multibulk("SET", "x", strings.Repeat("v", 100)))
		in.WriteString(multibulk("GET", "x"))
	}
	in.WriteString(multibulk("LLEN", "l"))
	in.WriteString(multibulk("CLIENT", "REPLY", "ON"))
	in.WriteString(multibulk("LLEN", "l"))
	in.WriteString(multibulk("ECHO", "__end__"))
	a.send(in.String())
	var out strings.Builder
	for !strings.HasSuffix(out.String(), "$7\r\n__end__\r\n") {
		out.WriteString(a.reply())
	}
	return out.String()
}

// TestClientReplyOffProtocolErrorLeavesTheConnectionStalled checks, on
// loopkv and redis-server, a muted client's protocol error: it is not
// sent, and the connection stays open but runs nothing more (CLIENT LIST
// flags=c), whatever it sends, until CLIENT KILL or the query buffer
// limit closes it.
func TestClientReplyOffProtocolErrorLeavesTheConnectionStalled(t *testing.T) {
	s, _ := startServer(t, Options{})
	for _, addr := range []string{s.Addr(), startRefRedis(t)} {
		for _, bad := range []string{"*x\r\n", "*1\r\n$abc\r\n", "\"unbalanced\r\n"} {
			rc, other := dialRaw(t, addr), dialRaw(t, addr)
			id := strings.TrimSpace(rc.do("CLIENT", "ID")[1:])
			rc.send(multibulk("CLIENT", "REPLY", "OFF") + bad + multibulk("SET", "after", "1"))
			line := func() string { return clientListLine(other.do("CLIENT", "LIST"), id) }
			waitFor(t, func() bool { return strings.Contains(line(), " flags=c ") }, addr+": flags=c after "+bad)
			expectOpenAndSilent(t, rc, addr)
			rc.send(multibulk("CLIENT", "REPLY", "ON") + multibulk("SET", "after", "2") + multibulk("PING"))
			expectOpenAndSilent(t, rc, addr)
			if got := other.do("EXISTS", "after"); got != ":0\r\n" {
				t.Errorf("%s: %q: the commands after the error ran: EXISTS %q", addr, bad, got)
			}
			if bad == "*x\r\n" {
				other.do("CLIENT", "KILL", "ID", id)
			} else { // past the query buffer limit
				other.do("CONFIG", "SET", "client-query-buffer-limit", "1mb")
				_, _ = rc.c.Write([]byte(strings.Repeat("x", 3<<20))) // may be cut by the close
			}
			if got := rc.expectClosed(); got != "" {
				t.Errorf("%s: %q: the muted client got %q", addr, bad, got)
			}
			other.do("CONFIG", "SET", "client-query-buffer-limit", "1gb")
		}
	}
}

// clientListLine is the line of CLIENT LIST reply list for client id.
func clientListLine(list, id string) string {
	for _, l := range strings.Split(list, "\n") {
		if strings.HasPrefix(l, "id="+id+" ") {
			return l
		}
	}
	return ""
}

// expectOpenAndSilent fails unless rc's connection stays open with
// nothing to read for a short wait.
func expectOpenAndSilent(t *testing.T, rc *rawConn, addr string) {
	t.Helper()
	_ = rc.c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	b, err := rc.r.Peek(1)
	if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
		t.Fatalf("%s: the stalled connection: read %q, %v; want it open and silent", addr, b, err)
	}
	_ = rc.c.SetReadDeadline(time.Now().Add(20 * time.Second))
}
