package server

import (
	"strings"
	"testing"
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

// TestClientReplyOffMutesTheProtocolError checks that a muted client's
// protocol error is not sent, as in Redis, and that the connection closes.
func TestClientReplyOffMutesTheProtocolError(t *testing.T) {
	s, _ := startServer(t, Options{})
	rc := dialRaw(t, s.Addr())
	rc.send(multibulk("CLIENT", "REPLY", "OFF") + "*x\r\n")
	if got := rc.expectClosed(); got != "" {
		t.Fatalf("a muted client got %q", got)
	}
}
