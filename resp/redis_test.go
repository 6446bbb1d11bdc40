package resp

import (
	"bytes"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// startRedis runs redis-server, the reference peer, on a free loopback port
// for the duration of the test, or skips the test if it is not installed.
func startRedis(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--protected-mode", "no")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr
		}
	}
	t.Fatal("redis-server did not start")
	return ""
}

// exchange sends in on a new connection and returns the replies received
// until there are max of them, the server closes, or it is silent for a
// moment.
func exchange(t *testing.T, addr string, in []byte, max int) []Value {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go c.Write(in) // a large input may fill the socket while the server replies
	var got []byte
	buf := make([]byte, 4096)
	for replies := 0; replies < max; {
		c.SetReadDeadline(time.Now().Add(time.Second))
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			break
		}
		replies = 0
		for rest := got; ; replies++ {
			k, err := ReadReply(rest)
			if k == 0 || err != nil {
				break
			}
			rest = rest[k:]
		}
	}
	var vals []Value
	for len(got) > 0 {
		v, n, err := ParseReply(got)
		if err != nil || n == 0 {
			t.Fatalf("reply %q: %v", got, err)
		}
		vals = append(vals, v)
		got = got[n:]
	}
	return vals
}

// redisDiffers names the error cases where Redis 7.0 answers otherwise, and
// why (see the package doc).
var redisDiffers = map[string]string{
	"*1048577\r\n":       "Redis 7.0 allows INT_MAX arguments; MaxArgs is ours",
	"ECHO \"a\x00\"\r\n": "Redis's strchr stops at the NUL and waits for a newline forever",
}

func TestParseErrorsMatchRedisServer(t *testing.T) {
	addr := startRedis(t)
	for i, tt := range parseErrorTests {
		if tt.lim != (Limits{}) || redisDiffers[tt.in] != "" || len(tt.in) > 1000 && tt.in[len(tt.in)-1] == '\n' {
			continue // custom limits; documented differences; "too big" versus chunking
		}
		vals := exchange(t, addr, []byte(tt.in), 1)
		want := "ERR " + string(bytes.ReplaceAll([]byte(tt.err), []byte("\r"), []byte(" ")))
		if len(vals) != 1 || vals[0].Kind != '-' || string(vals[0].Str) != want {
			t.Errorf("#%d %.40q: redis-server replied %v, want %q", i, tt.in, vals, want)
		}
	}
}

// inlineSplitTests are argument strings for an inline RPUSH; redis-server
// and splitArgs must read the same elements from them.
var inlineSplitTests = []string{
	`a b  c`, "a\tb", "\va\fb", "a\vb", `"a b"`, `a"b c"`, `"a\x41\x4"`, `"\x4g\xFF\xfe"`,
	`"\n\r\t\b\a\\\"\q"`, `'a\'b'`, `'a\nb' "c\'d"`, `"" ''`, `"a"` + "\vb", `it's"`, `a\b`,
	`"a"x`, `'a'x`, `"a`, `'a`, `"a\"`, `a"b`, `"\`,
}

func TestSplitArgsMatchesRedisServer(t *testing.T) {
	addr := startRedis(t)
	for i, s := range inlineSplitTests {
		line := []byte("RPUSH t " + s)
		want := exchange(t, addr, append(bytes.Clone(line), "\r\n"+mb("LRANGE", "t", "0", "-1")+mb("DEL", "t")...), 3)
		args, ok := splitArgs(nil, line)
		switch {
		case !ok:
			if len(want) != 1 || string(want[0].Str) != "ERR "+ErrUnbalancedQuotes.Error() {
				t.Errorf("#%d %q: unbalanced here, redis-server replied %v", i, s, want)
			}
		case len(want) != 3 || want[1].Kind != '*':
			t.Errorf("#%d %q: split into %q, redis-server replied %v", i, s, args, want)
		default:
			var got, ref []string
			for _, a := range args[2:] {
				got = append(got, string(a))
			}
			for _, e := range want[1].Elems {
				ref = append(ref, string(e.Str))
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", ref) {
				t.Errorf("#%d %q: split into %q, redis-server into %q", i, s, got, ref)
			}
		}
	}
}

// TestReadReplySplitsRedisServerReplies reads RESP3 and RESP2 replies of
// every kind redis-server sends and checks each one's decoded kind.
func TestReadReplySplitsRedisServerReplies(t *testing.T) {
	addr := startRedis(t)
	var in []byte
	var want []string
	add := func(kind string, args ...string) {
		in = append(in, mb(args...)...)
		want = append(want, kind)
	}
	add("%", "HELLO", "3")
	add(":", "ZADD", "z", "1.5", "a", "2", "b")
	add(",", "ZSCORE", "z", "a")
	add("*", "ZRANGE", "z", "0", "-1", "WITHSCORES")
	add(":", "HSET", "h", "f", "v", "g", "w")
	add("%", "HGETALL", "h")
	add(":", "SADD", "s", "x", "y")
	add("~", "SMEMBERS", "s")
	add("_", "GET", "missing")
	add("=", "INFO", "server")
	add("-", "NOSUCHCOMMAND")
	add("+", "PING")
	add("$", "ECHO", "a\r\nb")
	add("*", "HELLO", "2")
	add("$", "GET", "missing")
	add("$", "ZSCORE", "z", "b")
	add("*", "HGETALL", "h")
	vals := exchange(t, addr, in, len(want))
	if len(vals) != len(want) {
		t.Fatalf("%d replies, want %d: %v", len(vals), len(want), vals)
	}
	for i, v := range vals {
		if string(v.Kind) != want[i] {
			t.Errorf("#%d: %.80s, want kind %s", i, v, want[i])
		}
	}
	if v := vals[2]; v.Float != 1.5 {
		t.Errorf("ZSCORE: %v, want 1.5", v)
	}
	if v := vals[5]; len(v.Elems) != 4 {
		t.Errorf("HGETALL in RESP3: %v, want 2 pairs", v)
	}
	if v := vals[14]; !v.Null {
		t.Errorf("GET missing in RESP2: %v, want $null", v)
	}
}
