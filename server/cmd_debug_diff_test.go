package server

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"DebugMatchesRedis", TestDebugMatchesRedis},
		{"DebugDigestMatchesRedisOnEveryEncoding", TestDebugDigestMatchesRedisOnEveryEncoding},
		{"DebugReloadKeepsKeysTTLsAndEncodings", TestDebugReloadKeepsKeysTTLsAndEncodings},
		{"DebugGateMatchesRedis", TestDebugGateMatchesRedis},
		{"DebugSleepParksOnlyItsClient", TestDebugSleepParksOnlyItsClient},
		{"DebugSetActiveExpireStopsTheCycle", TestDebugSetActiveExpireStopsTheCycle},
	}...)
}

// newDebugPair starts redis-server and loopkv with DEBUG enabled (and
// protected configs, so that dbfilename can be changed), each with its own
// directory, and returns a connection to each.
func newDebugPair(t *testing.T, opts Options) *obsPair {
	t.Helper()
	if opts.Config == nil {
		opts.Config = map[string]string{"enable-debug-command": "yes"}
	}
	opts.Persist.Dir = t.TempDir()
	opts.Persist.EnableProtectedConfigs = "yes"
	s, _ := startServer(t, opts)
	ref := startRefRedis(t, "--enable-debug-command", "yes", "--enable-protected-configs", "yes")
	return &obsPair{ref: dialRaw(t, ref), ours: dialRaw(t, s.Addr())}
}

// debugObjectShape hides what DEBUG OBJECT prints that no two servers
// share: the address, the LRU clock and the idle seconds.
var debugObjectShape = regexp.MustCompile(`at:0x[0-9a-f]+|lru:[0-9]+|lru_seconds_idle:[0-9]+`)

func shapeOfDebugObject(r string) string {
	return debugObjectShape.ReplaceAllStringFunc(r, func(m string) string { return m[:strings.IndexByte(m, ':')+1] })
}

func TestDebugMatchesRedis(t *testing.T) {
	p := newDebugPair(t, Options{})
	resp3 := false
	for _, line := range []string{
		"DEBUG HELP", "DEBUG help", "DEBUG HELP x", "DEBUG", "DEBUG FOO", "DEBUG OBJECT", "DEBUG OBJECT a b",
		"DEBUG OBJECT missing", "DEBUG SLEEP", "DEBUG SLEEP 0", "DEBUG SLEEP abc", "DEBUG SLEEP -1", "DEBUG SLEEP 0.001",
		"DEBUG SLEEP 1e-3", "DEBUG SLEEP 0 1",
		"DEBUG SET-ACTIVE-EXPIRE", "DEBUG SET-ACTIVE-EXPIRE 0", "DEBUG SET-ACTIVE-EXPIRE 1", "DEBUG SET-ACTIVE-EXPIRE 2 3",
		"DEBUG DIGEST", "DEBUG DIGEST x", "DEBUG DIGEST-VALUE", "DEBUG DIGEST-VALUE missing other",
		"DEBUG RELOAD FOO", "DEBUG RELOAD MERGE X", "DEBUG ERROR", "DEBUG ERROR boom", "DEBUG ERROR -MYERR custom", "DEBUG ERROR \"a\\r\\nb\"",
		"DEBUG LOG hello", "DEBUG LOG", "DEBUG CHANGE-REPL-ID", "DEBUG CHANGE-REPL-ID x",
		"DEBUG QUICKLIST-PACKED-THRESHOLD 100", "DEBUG QUICKLIST-PACKED-THRESHOLD 1gb", "DEBUG QUICKLIST-PACKED-THRESHOLD x",
		"DEBUG QUICKLIST-PACKED-THRESHOLD 5gb", "DEBUG QUICKLIST-PACKED-THRESHOLD", "DEBUG JMAP", "DEBUG STRINGMATCH-LEN",
		"DEBUG PROTOCOL string", "DEBUG PROTOCOL integer", "DEBUG PROTOCOL double", "DEBUG PROTOCOL bignum", "DEBUG PROTOCOL null", "DEBUG PROTOCOL array", "DEBUG PROTOCOL set", "DEBUG PROTOCOL map", "DEBUG PROTOCOL attrib", "DEBUG PROTOCOL push", "DEBUG PROTOCOL verbatim", "DEBUG PROTOCOL true", "DEBUG PROTOCOL false", "DEBUG PROTOCOL nosuch", "DEBUG PROTOCOL", "DEBUG protocol STRING x",
		"MULTI", "DEBUG SLEEP 0.01", "DEBUG DIGEST", "DEBUG NOSUCH", "EXEC",
		"HELLO 3", "DEBUG DIGEST-VALUE missing", "DEBUG HELP", "DEBUG OBJECT missing", "DEBUG FOO",
		"DEBUG PROTOCOL string", "DEBUG PROTOCOL integer", "DEBUG PROTOCOL double", "DEBUG PROTOCOL bignum", "DEBUG PROTOCOL null", "DEBUG PROTOCOL array", "DEBUG PROTOCOL set", "DEBUG PROTOCOL map", "DEBUG PROTOCOL attrib", "DEBUG PROTOCOL push", "DEBUG PROTOCOL verbatim", "DEBUG PROTOCOL true", "DEBUG PROTOCOL false", "DEBUG PROTOCOL nosuch", "HELLO 2",
	} {
		args := diffSplit(t, line)
		g, w := p.ours.do(args...), p.ref.do(args...)
		if line == "HELLO 3" || line == "HELLO 2" {
			resp3 = line == "HELLO 3"
			continue // the servers' names and versions differ
		}
		if resp3 && (line == "DEBUG PROTOCOL push" || line == "DEBUG PROTOCOL attrib") { // then the reply
			g, w = g+p.ours.reply(), w+p.ref.reply()
		}
		if g != w {
			t.Errorf("%s:\n got  %q\n want %q", line, g, w)
		}
	}
	// DEBUG OBJECT of every encoding: the same fields, serializedlength included
	for _, line := range []string{
		"SET int 12345", "SET shared 7", "SET emb hello", "SET raw " + strings.Repeat("r", 60),
		"SET lzf " + strings.Repeat("abc", 40), "RPUSH list a b c 1 2 3", "RPUSH biglist " + strings.Repeat("x ", 300),
		"HSET h f v n 1", "SADD si 1 2 3", "SADD sh " + strings.Repeat("m", 70), "ZADD z 1 a 2.5 b", "ZADD zs 1 " + strings.Repeat("z", 70),
		"SET ttl v EX 100",
	} {
		p.both(t, strings.Fields(line)...)
	}
	for _, k := range []string{"int", "shared", "emb", "raw", "lzf", "list", "biglist", "h", "si", "sh", "z", "zs", "ttl"} {
		g, w := p.ours.do("DEBUG", "OBJECT", k), p.ref.do("DEBUG", "OBJECT", k)
		if shapeOfDebugObject(g) != shapeOfDebugObject(w) {
			t.Errorf("DEBUG OBJECT %s:\n got  %q\n want %q", k, g, w)
		}
	}
}

// debugDataset has every type in every encoding, with and without TTLs,
// in two databases.
var debugDataset = []string{
	"SET s hello", "SET i 12345", "SET neg -7", "SET big 12345678901234567890", "SET raw " + strings.Repeat("q", 50),
	"SET st v", "EXPIRE st 1000", "SET e \"\"",
	"HSET hl f1 v1 f2 2 f3 " + strings.Repeat("w", 10), "HSET hh big " + strings.Repeat("h", 70) + " f 1", "EXPIRE hh 500",
	"SADD si 1 2 3 -5 100000", "SADD ss a b c", "SADD sh x " + strings.Repeat("s", 70), "EXPIRE si 800",
	"RPUSH l a b 1 2 " + strings.Repeat("l", 70), "LPUSH l2 z y x", "PEXPIRE l2 900000",
	"ZADD zl 1 a 2.5 b 0.1 c -3 d 1e20 e", "ZADD zinf inf x -inf y 0 z", "ZADD zs 1 m " + "3.14159 " + strings.Repeat("k", 70),
	"EXPIRE zs 600", "SELECT 3", "SET s other", "RPUSH l a", "HSET h a b", "SELECT 0",
}

func TestDebugDigestMatchesRedisOnEveryEncoding(t *testing.T) {
	p := newDebugPair(t, Options{})
	p.both(t, "DEBUG", "DIGEST")
	for _, line := range debugDataset {
		p.both(t, diffSplit(t, line)...)
	}
	for _, k := range []string{"s", "i", "neg", "big", "raw", "st", "e", "hl", "hh", "si", "sh", "l", "l2", "zl", "zinf", "zs"} {
		p.both(t, "OBJECT", "ENCODING", k) // (ss: 7.0 has no listpack sets)
	}
	p.both(t, "DEBUG", "DIGEST")
	p.both(t, "DEBUG", "DIGEST-VALUE", "s", "i", "neg", "big", "raw", "st", "e", "hl", "hh", "si", "ss", "sh", "l", "l2",
		"zl", "zinf", "zs", "missing")
	p.ours.do("HELLO", "3") // (the servers' names and ids differ)
	p.ref.do("HELLO", "3")
	p.both(t, "DEBUG", "DIGEST-VALUE", "zl", "missing")
	p.both(t, "DEBUG", "DIGEST")
	p.both(t, "MULTI")
	p.both(t, "DEBUG", "DIGEST")
	p.both(t, "DEBUG", "DIGEST-VALUE", "zl", "hh")
	p.both(t, "EXEC")
	p.both(t, "DEL", "st")
	p.both(t, "DEBUG", "DIGEST")
	p.both(t, "MOVE", "s", "5")
	p.both(t, "DEBUG", "DIGEST")
	// a key whose TTL passed but that no cycle removed is still counted
	p.both(t, "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	p.both(t, "SET", "gone", "v", "PX", "1")
	time.Sleep(5 * time.Millisecond)
	p.both(t, "DEBUG", "DIGEST")
	p.both(t, "DEBUG", "SET-ACTIVE-EXPIRE", "1")
}

func TestDebugReloadKeepsKeysTTLsAndEncodings(t *testing.T) {
	p := newDebugPair(t, Options{})
	for _, line := range debugDataset {
		p.both(t, diffSplit(t, line)...)
	}
	before := p.ref.do("DEBUG", "DIGEST")
	p.both(t, "DEBUG", "DIGEST")
	p.both(t, "DEBUG", "RELOAD")
	p.both(t, "DEBUG", "DIGEST")
	if g := p.ours.do("DEBUG", "DIGEST"); g != before {
		t.Errorf("digest after DEBUG RELOAD %q, before %q", g, before)
	}
	for _, k := range []string{"s", "i", "raw", "hl", "hh", "si", "sh", "l", "zl", "zs"} {
		p.both(t, "OBJECT", "ENCODING", k)
	}
	for _, k := range []string{"st", "hh", "si", "zs"} {
		if r := p.ours.do("TTL", k); !strings.HasPrefix(r, ":") || r == ":-1\r\n" || r == ":-2\r\n" {
			t.Errorf("TTL %s after DEBUG RELOAD: %q", k, r)
		}
	}
	p.both(t, "DBSIZE")
	// the flush breaks a WATCH of an existing key
	for _, args := range [][]string{{"WATCH", "s"}, {"DEBUG", "RELOAD"}, {"MULTI"}, {"SET", "s", "x"}, {"EXEC"}, {"GET", "s"},
		{"WATCH", "s"}, {"DEBUG", "RELOAD", "NOSAVE", "NOFLUSH", "MERGE"}, {"MULTI"}, {"GET", "s"}, {"EXEC"}} {
		p.both(t, args...)
	}
	// NOSAVE reloads the file as it is; NOFLUSH MERGE keeps new keys and
	// takes the file's on a conflict
	p.both(t, "SET", "after", "1")
	p.both(t, "SET", "s", "changed")
	p.both(t, "DEBUG", "RELOAD", "NOSAVE")
	p.both(t, "EXISTS", "after")
	p.both(t, "GET", "s")
	p.both(t, "SET", "after", "1")
	p.both(t, "SET", "s", "changed")
	p.both(t, "DEBUG", "RELOAD", "NOSAVE", "NOFLUSH", "MERGE")
	p.both(t, "GET", "after")
	p.both(t, "GET", "s")
	p.both(t, "DEBUG", "DIGEST")
	p.both(t, "DEBUG", "reload", "merge", "nosave")
	p.both(t, "DEBUG", "DIGEST")
	// a save that fails (dbfilename names a directory) and a missing file
	p.both(t, "CONFIG", "SET", "dbfilename", "sub")
	oursDir := strings.TrimSuffix(strings.SplitN(p.ours.do("CONFIG", "GET", "dir"), "\r\n", 5)[4], "\r\n")
	refDir := strings.SplitN(p.ref.do("CONFIG", "GET", "dir"), "\r\n", 5)[4]
	for _, d := range []string{oursDir, strings.TrimSuffix(refDir, "\r\n")} {
		if err := os.Mkdir(filepath.Join(d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p.both(t, "DEBUG", "RELOAD")
	p.both(t, "DBSIZE")
	p.both(t, "CONFIG", "SET", "dbfilename", "none.rdb")
	p.both(t, "DEBUG", "RELOAD", "NOSAVE")
	p.both(t, "DBSIZE")
	p.both(t, "DEBUG", "RELOAD", "NOSAVE", "NOFLUSH", "MERGE")
	p.both(t, "PING")
}

// TestDebugGateMatchesRedis compares DEBUG's refusal under
// enable-debug-command no and local: after the arity check, before
// authentication, and in MULTI (EXECABORT).
func TestDebugGateMatchesRedis(t *testing.T) {
	for _, mode := range []string{"no", "local"} {
		t.Run(mode, func(t *testing.T) {
			s, _ := startServer(t, Options{RequirePass: "pw", Config: map[string]string{"enable-debug-command": mode}})
			ref := startRefRedis(t, "--enable-debug-command", mode, "--requirepass", "pw")
			p := &obsPair{ref: dialRaw(t, ref), ours: dialRaw(t, s.Addr())}
			cases := [][]string{{"DEBUG"}, {"DEBUG", "HELP"}, {"DEBUG", "SLEEP", "0"}, {"AUTH", "pw"},
				{"DEBUG", "HELP"}, {"DEBUG", "DIGEST"}, {"MULTI"}, {"DEBUG", "DIGEST"}, {"EXEC"}, {"CONFIG", "GET", "enable-debug-command"}}
			for _, args := range cases {
				p.both(t, args...)
			}
		})
	}
	ip := nonLoopbackIP()
	if ip == "" {
		t.Log("no non-loopback address: local's refusal of a remote client not checked")
		return
	}
	s, _ := startServer(t, Options{Bind: "0.0.0.0", ProtectedMode: "no",
		Config: map[string]string{"enable-debug-command": "local"}})
	_, port, _ := net.SplitHostPort(s.Addr())
	remote := dialRaw(t, net.JoinHostPort(ip, port))
	if r := remote.do("DEBUG", "DIGEST"); r != "-"+errDebugNotAllowed+"\r\n" {
		t.Errorf("DEBUG DIGEST from %s under local: %q", ip, r)
	}
	local := dialRaw(t, net.JoinHostPort("127.0.0.1", port))
	if r := local.do("DEBUG", "DIGEST"); !strings.HasPrefix(r, "+0000") {
		t.Errorf("DEBUG DIGEST from 127.0.0.1 under local: %q", r)
	}
}

// nonLoopbackIP is an IPv4 address of this machine that is not loopback,
// or "".
func nonLoopbackIP() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	return ""
}

// TestDebugSleepParksOnlyItsClient: while one client sleeps, another on
// the same loop is served, and the sleeper's pipelined commands follow its
// +OK in order.
func TestDebugSleepParksOnlyItsClient(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 1, Config: map[string]string{"enable-debug-command": "yes"}})
	a, b := dialRaw(t, s.Addr()), dialRaw(t, s.Addr())
	a.send(multibulk("DEBUG", "SLEEP", "2") + multibulk("PING"))
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(b.do("INFO", "clients"), "blocked_clients:1\r\n") {
		if time.Now().After(deadline) {
			t.Fatal("the sleeping client never counted as blocked")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if r := b.do("PING"); r != "+PONG\r\n" {
		t.Fatalf("PING while another client sleeps: %q", r)
	}
	if r := a.reply(); r != "+OK\r\n" {
		t.Fatalf("DEBUG SLEEP: %q", r)
	}
	if r := a.reply(); r != "+PONG\r\n" {
		t.Fatalf("PING after DEBUG SLEEP: %q", r)
	}
	if !strings.Contains(b.do("INFO", "clients"), "blocked_clients:0\r\n") {
		t.Error("the sleeper still counts as blocked")
	}
}

// TestDebugSetActiveExpireStopsTheCycle: with the cycle off an expired key
// stays in the keyspace (DBSIZE counts it) until read; back on, the cycle
// removes it.
func TestDebugSetActiveExpireStopsTheCycle(t *testing.T) {
	s, _ := startServer(t, Options{Config: map[string]string{"enable-debug-command": "yes"}})
	c := dialRaw(t, s.Addr())
	c.do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	c.do("SET", "k", "v", "PX", "1")
	c.do("SET", "k2", "v", "PX", "1")
	time.Sleep(350 * time.Millisecond) // three ticks of the cycle
	if r := c.do("DBSIZE"); r != ":2\r\n" {
		t.Fatalf("DBSIZE with the active expiry cycle off: %q", r)
	}
	if r := c.do("GET", "k"); r != "$-1\r\n" {
		t.Fatalf("GET of an expired key: %q", r)
	}
	if r := c.do("DBSIZE"); r != ":1\r\n" {
		t.Fatalf("DBSIZE after the lazy expiry of one key: %q", r)
	}
	c.do("DEBUG", "SET-ACTIVE-EXPIRE", "1")
	deadline := time.Now().Add(5 * time.Second)
	for c.do("DBSIZE") != ":0\r\n" {
		if time.Now().After(deadline) {
			t.Fatal("the active expiry cycle did not remove the expired key once back on")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
