package server

import (
	"bufio"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var pauseDiffCases = []diffCase{
	{"client-pause-errors", []string{
		"CLIENT PAUSE", "CLIENT PAUSE x", "CLIENT PAUSE -1", "CLIENT PAUSE 1.5", "CLIENT PAUSE 99999999999999999999",
		"CLIENT PAUSE 10 FOO", "CLIENT PAUSE x FOO", "CLIENT PAUSE x WRITE", "CLIENT PAUSE 10 ALL x", "client pause 10 all all",
		"CLIENT PAUSE 10 FOO x", "CLIENT UNPAUSE x", "CLIENT PAUSE 0", "CLIENT PAUSE 0 write", "CLIENT PAUSE 0 ALL",
		"CLIENT UNPAUSE", "client unpause",
	}},
}

func TestClientPauseErrorsMatchRedis(t *testing.T) { runDiff(t, pauseDiffCases) }

// pauseConn is a connection whose loop the test knows.
type pauseConn struct {
	*rawConn
	ls *loopState
}

// dialOnLoop dials s until a connection lands on a loop other than not
// (nil: any), and returns it.
func dialOnLoop(t *testing.T, s *Server, not *loopState) pauseConn {
	t.Helper()
	for i := 0; i < 16; i++ {
		rc := dialRaw(t, s.Addr())
		id, _ := strconv.ParseUint(strings.TrimSpace(rc.do("CLIENT", "ID")[1:]), 10, 64)
		cs := s.clients.get(id)
		if cs == nil {
			t.Fatalf("client %d not registered", id)
		}
		if cs.ls != not {
			return pauseConn{rc, cs.ls}
		}
		rc.c.Close()
	}
	t.Fatal("every connection landed on one loop")
	return pauseConn{}
}

// expectNoReply fails if rc receives anything within a short wait: a
// held command is not answered.
func expectNoReply(t *testing.T, rc *rawConn, what string) {
	t.Helper()
	_ = rc.c.SetReadDeadline(time.Now().Add(150 * time.Millisecond))
	if _, err := rc.r.Peek(1); err == nil {
		t.Fatalf("%s was answered during the pause", what)
	}
	_ = rc.c.SetReadDeadline(time.Now().Add(20 * time.Second))
}

// TestClientPauseWriteHoldsWritersAndServesReaders pauses writes: two
// writers' commands (one on each loop) are held, with what they
// pipelined after them, while a reader on the other loop is served; CLIENT
// UNPAUSE runs them in the order they arrived.
func TestClientPauseWriteHoldsWritersAndServesReaders(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	admin := dialRaw(t, s.Addr())
	w1 := dialOnLoop(t, s, nil)
	w2 := dialOnLoop(t, s, w1.ls)
	reader := dialOnLoop(t, s, w2.ls)  // on w1's loop
	reader2 := dialOnLoop(t, s, w1.ls) // on w2's loop
	if got := admin.do("CLIENT", "PAUSE", "10000", "WRITE"); got != "+OK\r\n" {
		t.Fatalf("CLIENT PAUSE: %q", got)
	}
	w1.send(multibulk("SET", "k", "1") + multibulk("GET", "k"))
	waitFor(t, func() bool { return strings.Contains(admin.do("INFO", "clients"), "blocked_clients:1\r\n") }, "the first writer to be held")
	w2.send(multibulk("INCR", "k") + multibulk("PING"))
	waitFor(t, func() bool { return strings.Contains(admin.do("INFO", "clients"), "blocked_clients:2\r\n") }, "the second writer to be held")
	for _, r := range []pauseConn{reader, reader2} {
		if got := r.do("GET", "k"); got != "$-1\r\n" {
			t.Fatalf("a read during the pause: %q", got)
		}
		if got := r.do("MULTI") + r.do("GET", "k") + r.do("EXEC"); got != "+OK\r\n+QUEUED\r\n*1\r\n$-1\r\n" {
			t.Fatalf("a read-only transaction during the pause: %q", got)
		}
	}
	expectNoReply(t, w1.rawConn, "the first writer's SET")
	expectNoReply(t, w2.rawConn, "the second writer's INCR")
	if got := admin.do("CLIENT", "UNPAUSE"); got != "+OK\r\n" {
		t.Fatalf("CLIENT UNPAUSE: %q", got)
	}
	if got := w1.reply() + w1.reply(); got != "+OK\r\n$1\r\n1\r\n" {
		t.Fatalf("the first writer after the pause: %q", got)
	}
	if got := w2.reply() + w2.reply(); got != ":2\r\n+PONG\r\n" { // after the first writer's SET
		t.Fatalf("the second writer after the pause: %q", got)
	}
	if got := admin.do("INFO", "clients"); !strings.Contains(got, "blocked_clients:0\r\n") {
		t.Fatalf("after the pause: %q", got)
	}
}

// TestClientPauseAllEndsAtItsTimeout pauses every command: the pausing
// client's own next command and another loop's CLIENT UNPAUSE are held
// too, and the timeout ends the pause; a held client that closes is
// forgotten.
func TestClientPauseAllEndsAtItsTimeout(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	a := dialOnLoop(t, s, nil)
	b := dialOnLoop(t, s, a.ls)
	gone := dialOnLoop(t, s, nil)
	a.send(multibulk("CLIENT", "PAUSE", "400", "ALL") + multibulk("SET", "k", "a"))
	if got := a.reply(); got != "+OK\r\n" {
		t.Fatalf("CLIENT PAUSE: %q", got)
	}
	held := func(n int64) func() bool { return func() bool { return s.paused.n.Load() == n } } // INFO would be held too
	waitFor(t, held(1), "the pausing client's SET to be held")
	gone.send(multibulk("SET", "k", "gone"))
	waitFor(t, held(2), "the closing client's SET to be held")
	b.send(multibulk("CLIENT", "UNPAUSE") + multibulk("APPEND", "k", "b"))
	waitFor(t, held(3), "CLIENT UNPAUSE to be held")
	_ = gone.c.Close()
	waitFor(t, held(2), "the closed client to be forgotten")
	expectNoReply(t, a.rawConn, "the pausing client's SET")
	if got := a.reply(); got != "+OK\r\n" { // the timeout ended the pause
		t.Fatalf("the pausing client's SET: %q", got)
	}
	if got := b.reply() + b.reply(); got != "+OK\r\n:2\r\n" {
		t.Fatalf("the second client after the pause: %q", got)
	}
	if got := a.do("GET", "k"); got != "$2\r\nab\r\n" {
		t.Fatalf("k after the pause: %q", got)
	}
	waitFor(t, func() bool { return strings.Contains(a.do("INFO", "clients"), "blocked_clients:0\r\n") }, "no client held")
}

// TestClientPauseHoldsATLSClient holds a TLS client's write, with the
// command pipelined behind it, in its pending plaintext, and runs both
// when the pause ends.
func TestClientPauseHoldsATLSClient(t *testing.T) {
	pki := newTestPKI(t)
	s := startTLSServer(t, pki, Options{Loops: 2})
	admin := dialRaw(t, s.Addr())
	c := dialTLS(t, s.TLSAddr(), pki.clientConfig())
	r := bufio.NewReader(c)
	if got := tlsDo(t, c, r, "PING"); got != "+PONG\r\n" {
		t.Fatalf("PING: %q", got)
	}
	if got := admin.do("CLIENT", "PAUSE", "10000", "WRITE"); got != "+OK\r\n" {
		t.Fatalf("CLIENT PAUSE: %q", got)
	}
	if _, err := c.Write([]byte(multibulk("GET", "k") + multibulk("SET", "k", "v") + multibulk("GET", "k"))); err != nil {
		t.Fatal(err)
	}
	if got, err := readRaw(r); err != nil || got != "$-1\r\n" {
		t.Fatalf("the read before the held write: %q %v", got, err)
	}
	waitFor(t, func() bool { return s.paused.n.Load() == 1 }, "the TLS client's SET to be held")
	if got := admin.do("GET", "k"); got != "$-1\r\n" {
		t.Fatalf("k during the pause: %q", got)
	}
	admin.do("CLIENT", "UNPAUSE")
	for _, want := range []string{"+OK\r\n", "$1\r\nv\r\n"} {
		if got, err := readRaw(r); err != nil || got != want {
			t.Fatalf("after the pause: %q %v, want %q", got, err, want)
		}
	}
}

// TestClientPauseStopsActiveExpiry checks, on loopkv and redis-server,
// that a key past its TTL is not expired in the background during a
// pause, and is once the pause ends.
func TestClientPauseStopsActiveExpiry(t *testing.T) {
	s, _ := startServer(t, Options{})
	for _, addr := range []string{s.Addr(), startRefRedis(t)} {
		rc := dialRaw(t, addr)
		rc.do("SET", "k", "v", "PX", "200")
		rc.do("CLIENT", "PAUSE", "10000", "WRITE")
		if got := rc.do("DBSIZE"); got != ":1\r\n" { // (a slow setup, under -race)
			t.Fatalf("%s: DBSIZE at the start of the pause: %q; the TTL passed before it", addr, got)
		}
		time.Sleep(600 * time.Millisecond) // past the TTL, and several active expiry cycles (10 a second)
		if got := rc.do("DBSIZE"); got != ":1\r\n" {
			t.Fatalf("%s: DBSIZE during the pause: %q, want the expired key still counted", addr, got)
		}
		rc.do("CLIENT", "UNPAUSE")
		waitFor(t, func() bool { return rc.do("DBSIZE") == ":0\r\n" }, "active expiry after the pause")
	}
}

// pauseExpiryScript is read during a WRITE pause, once the TTLs of k, k2
// and l have passed: each key past its TTL reads as missing, but stays in
// the keyspace (DBSIZE, INFO keyspace, MEMORY USAGE) and is not counted
// expired.
var pauseExpiryScript = [][]string{
	{"GET", "k"}, {"TTL", "k"}, {"PTTL", "k2"}, {"EXISTS", "k", "k2", "l", "keep"}, {"TYPE", "k"}, {"LRANGE", "l", "0", "-1"},
	{"LLEN", "l"}, {"STRLEN", "k2"}, {"OBJECT", "ENCODING", "k"}, {"KEYS", "*"}, {"RANDOMKEY"}, {"DBSIZE"}, {"GET", "k"},
	{"DBSIZE"},
}

// pauseInfo is rc's INFO line of sec that starts with field.
func pauseInfo(rc *rawConn, sec, field string) string { return infoField(rc.do("INFO", sec), field) }

// TestClientPauseKeepsExpiredKeysUntilItEnds runs the same script on
// loopkv and redis-server: during a CLIENT PAUSE WRITE, a read of a key
// past its TTL answers as for a missing key without deleting it, and no
// expired event is published; after the pause the keys are deleted (by
// active expiry) and their expired events follow.
func TestClientPauseKeepsExpiredKeysUntilItEnds(t *testing.T) {
	s, _ := startServer(t, Options{})
	var replies [2][]string
	for i, addr := range []string{s.Addr(), startRefRedis(t)} {
		rc, sub := dialRaw(t, addr), dialRaw(t, addr)
		rc.do("CONFIG", "SET", "notify-keyspace-events", "Ex")
		sub.do("SUBSCRIBE", "__keyevent@0__:expired")
		for _, cmd := range [][]string{{"SET", "k", "v", "PX", "300"}, {"SET", "k2", "v", "PX", "300"}, {"RPUSH", "l", "a"},
			{"PEXPIRE", "l", "300"}, {"SET", "keep", "v"}, {"CLIENT", "PAUSE", "10000", "WRITE"}} {
			rc.do(cmd...)
		}
		if got := rc.do("EXISTS", "k", "k2", "l"); got != ":3\r\n" { // (a slow setup, under -race)
			t.Fatalf("%s: EXISTS at the start of the pause: %q; the TTLs passed before it", addr, got)
		}
		time.Sleep(600 * time.Millisecond) // past the TTLs, and several active expiry cycles
		for _, cmd := range pauseExpiryScript {
			replies[i] = append(replies[i], rc.do(cmd...))
		}
		db0, _, _ := strings.Cut(pauseInfo(rc, "keyspace", "db0:"), ",avg_ttl=") // (the estimates differ)
		replies[i] = append(replies[i], db0, pauseInfo(rc, "stats", "expired_keys:"))
		if got := rc.do("MEMORY", "USAGE", "k"); !strings.HasPrefix(got, ":") {
			t.Errorf("%s: MEMORY USAGE of the expired key during the pause: %q", addr, got)
		}
		expectNoReply(t, sub, "an expired event")
		rc.do("CLIENT", "UNPAUSE")
		var keys []string
		for len(keys) < 3 {
			msg := sub.reply() // *3 $7 message $22 __keyevent@0__:expired $n key
			f := strings.Split(strings.TrimSuffix(msg, "\r\n"), "\r\n")
			keys = append(keys, f[len(f)-1])
		}
		slices.Sort(keys)
		if got := strings.Join(keys, " "); got != "k k2 l" {
			t.Errorf("%s: expired events after the pause: %q", addr, got)
		}
		waitFor(t, func() bool { return rc.do("DBSIZE") == ":1\r\n" }, "the expired keys' deletion")
		if got := pauseInfo(rc, "stats", "expired_keys:"); got != "expired_keys:3" {
			t.Errorf("%s: after the pause: %q", addr, got)
		}
	}
	for j := range replies[0] {
		if replies[0][j] != replies[1][j] {
			t.Errorf("#%d: loopkv %q, redis-server %q", j, replies[0][j], replies[1][j])
		}
	}
}

// TestClientPauseStopsEviction checks, on loopkv and redis-server, that
// no key is evicted during a pause, even when maxmemory drops below the
// memory in use and reads run, and that eviction resumes once it ends.
func TestClientPauseStopsEviction(t *testing.T) {
	s, _ := startServer(t, Options{})
	for _, addr := range []string{s.Addr(), startRefRedis(t)} {
		rc := dialRaw(t, addr)
		rc.do("CONFIG", "SET", "maxmemory-policy", "allkeys-random")
		var pipe strings.Builder
		for i := 0; i < 2000; i++ {
			pipe.WriteString(multibulk("SET", "key:"+strconv.Itoa(i), strings.Repeat("v", 100)))
		}
		rc.send(pipe.String())
		for i := 0; i < 2000; i++ {
			rc.reply()
		}
		used, _ := strconv.Atoi(strings.TrimPrefix(pauseInfo(rc, "memory", "used_memory:"), "used_memory:"))
		rc.do("CLIENT", "PAUSE", "10000", "WRITE")
		if got := rc.do("CONFIG", "SET", "maxmemory", strconv.Itoa(used/2)); got != "+OK\r\n" {
			t.Fatalf("%s: CONFIG SET maxmemory: %q", addr, got)
		}
		rc.do("GET", "key:1")
		if got := rc.do("DBSIZE") + pauseInfo(rc, "stats", "evicted_keys:"); got != ":2000\r\nevicted_keys:0" {
			t.Errorf("%s: during the pause: %q, want every key kept", addr, got)
		}
		rc.do("CLIENT", "UNPAUSE")
		rc.do("GET", "key:1")
		waitFor(t, func() bool { return pauseInfo(rc, "stats", "evicted_keys:") != "evicted_keys:0" }, "eviction after the pause")
		rc.do("CONFIG", "SET", "maxmemory", "0")
	}
}
