package server

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"PropagationMatchesRedis", TestPropagationMatchesRedis},
		{"PropagationRestoreIsAbsolute", TestPropagationRestoreIsAbsolute},
	}...)
}

// streamSink collects what the change stream feeds, as the AOF log would.
type streamSink struct {
	mu  sync.Mutex
	buf []byte
	n   uint64
}

func (k *streamSink) feed(b []byte) uint64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.buf = append(k.buf, b...)
	k.n++
	return k.n
}

func (k *streamSink) bytes() []byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]byte(nil), k.buf...)
}

// attachSink feeds s's change stream to a new streamSink.
func attachSink(s *Server) *streamSink {
	k := &streamSink{}
	s.prop.mu.Lock()
	s.prop.attach(k.feed)
	s.prop.mu.Unlock()
	return k
}

// propStep is one command of the propagation script, run on a named
// connection of both servers. A name starting with "bg" sends the command
// without reading its reply (a client that blocks); "wait:NAME" reads the
// reply NAME's blocked command got. noCmp skips comparing the replies.
type propStep struct {
	conn  string
	cmd   string
	noCmp bool
}

var propScript = []propStep{
	{"a", "SET s1 v", false},
	{"a", "SET s2 v EX 1000", false},
	{"a", "SET s3 v PX 1000000 NX", false},
	{"a", "SET s3 w PX 1000000 NX", false}, // not set
	{"a", "SET s4 v EXAT 4000000000", false},
	{"a", "SET s5 v PXAT 4000000000000 GET", false},
	{"a", "SET s1 w KEEPTTL GET", false},
	{"a", "SETEX s6 1000 v", false},
	{"a", "PSETEX s7 1000000 v", false},
	{"a", "SET s8 v", false},
	{"a", "EXPIRE s8 1000", false},
	{"a", "EXPIRE s8 1000 NX", false},
	{"a", "PEXPIRE s1 2000000 NX", false},
	{"a", "EXPIREAT s2 4000000000 GT", false},
	{"a", "PEXPIREAT s6 4000000000000", false},
	{"a", "SET gone v", false},
	{"a", "EXPIRE gone -1", false},
	{"a", "EXPIRE nosuch 10", false},
	{"a", "SET g1 v", false},
	{"a", "GETEX g1 EX 1000", false},
	{"a", "GETEX g1 PERSIST", false},
	{"a", "GETEX g1", false},
	{"a", "SET g2 v", false},
	{"a", "GETEX g2 PXAT 1", false},
	{"a", "GETEX nosuch EX 10", false},
	{"a", "SET f 10.5", false},
	{"a", "EXPIRE f 1000", false},
	{"a", "INCRBYFLOAT f 0.1", false},
	{"a", "INCRBYFLOAT f 5.0e3", false},
	{"a", "HSET h a 1", false},
	{"a", "HINCRBYFLOAT h a 2.5", false},
	{"a", "HINCRBYFLOAT h b -1.25", false},
	{"a", "SADD set1 only", false},
	{"a", "SPOP set1", false},
	{"a", "SADD set2 a b c d", false},
	{"a", "SPOP set2 10", true},
	{"a", "SADD set3 x y", false},
	{"a", "SPOP set3 0", false},
	{"a", "SPOP nosuch", false},
	{"a", "RPUSH l a b c d e", false},
	{"a", "BLPOP l 0", false},
	{"a", "BRPOP l 0", false},
	{"a", "BLMOVE l l2 LEFT RIGHT 0", false},
	{"a", "BRPOPLPUSH l l2 0", false},
	{"a", "LMPOP 2 nosuch l RIGHT COUNT 5", false},
	{"a", "RPUSH l x y z", false},
	{"a", "BLMPOP 0 1 l LEFT COUNT 2", false},
	{"a", "ZADD z 1 a 2 b 3 c 4 d 5 e", false},
	{"a", "BZPOPMIN z 0", false},
	{"a", "BZPOPMAX z 0", false},
	{"a", "ZMPOP 1 z MIN COUNT 1", false},
	{"a", "BZMPOP 0 1 z MAX COUNT 9", false},
	{"a", "RPUSH sl 3 1 2", false},
	{"a", "SORT sl", false},
	{"a", "SORT sl STORE sorted", false},
	{"a", "DEL nosuch", false},
	{"a", "SELECT 2", false},
	{"a", "SET d2 v EX 1000", false},
	{"a", "MULTI", false},
	{"a", "SET t1 1", false},
	{"a", "INCR t1", false},
	{"a", "SELECT 3", false},
	{"a", "SET t3 x PX 1000000", false},
	{"a", "SADD ts m", false},
	{"a", "SPOP ts", false},
	{"a", "EXEC", false},
	{"a", "MULTI", false},
	{"a", "GET t1", false},
	{"a", "EXEC", false},
	{"a", "MULTI", false},
	{"a", "INCR one", false},
	{"a", "EXEC", false},
	{"a", "SELECT 0", false},
	// blocked clients served by another client's write, in other dbs and protocols
	{"b", "SELECT 4", false},
	{"bgb", "BLPOP q 0", false},
	{"c", "HELLO 3", true},
	{"c", "SELECT 4", false},
	{"bgc", "BZPOPMAX zq 0", false},
	{"d", "SELECT 4", false},
	{"bgd", "BLMOVE mq mq2 RIGHT LEFT 0", false},
	{"e", "SELECT 4", false},
	{"bge", "BLMPOP 0 1 q2 RIGHT COUNT 3", false},
	{"f", "SELECT 4", false},
	{"bgf", "BZMPOP 0 1 zq2 MIN COUNT 2", false},
	{"a", "SELECT 4", false},
	{"a", "RPUSH q a b", false},
	{"wait:b", "", false},
	{"a", "ZADD zq 1 m1 2 m2", false},
	{"wait:c", "", false},
	{"a", "MULTI", false},
	{"a", "RPUSH mq x y", false},
	{"a", "RPUSH q2 1 2 3 4", false},
	{"a", "ZADD zq2 1 a 2 b 3 c", false},
	{"a", "EXEC", false},
	{"wait:d", "", false},
	{"wait:e", "", false},
	{"wait:f", "", false},
	{"a", "SELECT 8", false},
	{"a", "SET doomed 1", false},
	{"a", "FLUSHDB", false},
	{"a", "SET after flush", false},
	{"a", "SELECT 5", false},
	{"a", "SET x 1", false},
	{"a", "MOVE x 6", false},
	{"a", "SWAPDB 5 6", false},
	{"a", "COPY x y DB 7", false},
	// keys the store removes by itself: DEL before the command that found them expired
	{"a", "SELECT 9", false},
	{"a", "RPUSH gl a b", false},
	{"a", "PEXPIRE gl 40", false},
	{"a", "SET gs v PX 40", false},
	{"a", "SADD gt m", false},
	{"a", "PEXPIRE gt 40", false},
	{"a", "HSET gh f v", false},
	{"a", "PEXPIRE gh 40", false},
	{"sleep:60", "", false},
	{"a", "RPUSH gl c", false}, // a write: DEL gl, then RPUSH
	{"a", "GET gs", false},     // a read: DEL gs
	{"a", "MULTI", false},
	{"a", "SCARD gt", false},
	{"a", "HSET gh g w", false},
	{"a", "EXEC", false},
}

// TestPropagationMatchesRedis runs propScript on loopkv with a sink
// attached and on redis-server, then replays the stream loopkv fed into a
// fresh redis-server. Each of loopkv's rewrites is so checked against
// Redis executing it: the replayed keyspace equals loopkv's, TTLs to the
// millisecond (the stream's times are absolute), and equals the
// reference's keyspace, TTLs to the presence (the two ran at other
// instants).
func TestPropagationMatchesRedis(t *testing.T) {
	ref := startRefRedis(t)
	s, _ := startServer(t, Options{})
	sink := attachSink(s)
	ours := s.Addr()
	conns := map[string][2]*rawConn{}
	get := func(name string) [2]*rawConn {
		if c, ok := conns[name]; ok {
			return c
		}
		c := [2]*rawConn{dialRaw(t, ours), dialRaw(t, ref)}
		conns[name] = c
		return c
	}
	for i, st := range propScript {
		switch {
		case strings.HasPrefix(st.conn, "sleep:"):
			ms, _ := strconv.Atoi(st.conn[len("sleep:"):])
			time.Sleep(time.Duration(ms) * time.Millisecond)
		case strings.HasPrefix(st.conn, "wait:"):
			c := get(st.conn[len("wait:"):])
			a, b := c[0].reply(), c[1].reply()
			if a != b {
				t.Fatalf("step %d: %s's blocked reply: loopkv %q, redis %q", i, st.conn, a, b)
			}
		case strings.HasPrefix(st.conn, "bg"):
			c := get(st.conn[2:])
			args := strings.Fields(st.cmd)
			before := int(s.blocked.n.Load())
			c[0].send(multibulk(args...))
			c[1].send(multibulk(args...))
			waitForBlock(t, s, ref, before)
		default:
			c := get(st.conn)
			args := strings.Fields(st.cmd)
			a, b := c[0].do(args...), c[1].do(args...)
			if !st.noCmp && a != b {
				t.Fatalf("step %d %q: loopkv %q, redis %q", i, st.cmd, a, b)
			}
		}
	}
	stream := sink.bytes()
	rc := dialRaw(t, loadStreamIntoRedis(t, stream))

	mine := dumpKeyspace(t, dialRaw(t, ours))
	if got := dumpKeyspace(t, rc); got != mine {
		t.Errorf("replayed stream differs from loopkv's keyspace\nloopkv:\n%s\nreplayed:\n%s\nstream:\n%q", mine, got, stream)
	}
	if r := dumpKeyspace(t, dialRaw(t, ref)); ttlPresence(r) != ttlPresence(mine) {
		t.Errorf("loopkv's keyspace differs from redis-server's\nloopkv:\n%s\nredis:\n%s", mine, r)
	}
	for _, bad := range []string{"EXPIRE\r\n", "SETEX", "PSETEX", "INCRBYFLOAT", "SPOP", "BLPOP", "BZPOP", "BLMOVE", "BLMPOP", "EX\r\n$4\r\n1000\r\n"} {
		if strings.Contains(strings.ToUpper(string(stream)), bad) {
			t.Errorf("stream holds %q, which is not deterministic", bad)
		}
	}
	// writes that changed nothing (c.dirty stayed 0) are not in the stream
	for _, noop := range []string{"$2\r\ns3\r\n$1\r\nw\r\n", "$6\r\nnosuch\r\n"} {
		if strings.Contains(string(stream), noop) {
			t.Errorf("stream holds the no-op %q", noop)
		}
	}
}

// waitForBlock waits until loopkv and the reference each count one more
// blocked client than before.
func waitForBlock(t *testing.T, s *Server, ref string, before int) {
	t.Helper()
	rc := dialRaw(t, ref)
	for i := 0; i < 500; i++ {
		info := rc.do("INFO", "clients")
		if int(s.blocked.n.Load()) > before && strings.Contains(info, "blocked_clients:"+strconv.Itoa(before+1)+"\r\n") {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the client did not block")
}

// loadStreamIntoRedis starts a redis-server that loads stream as its
// append-only file (the incr file of a Redis 7 AOF directory, no base), as
// it loads an AOF at start: without expiring keys while it replays. It
// returns the server's address.
func loadStreamIntoRedis(t *testing.T, stream []byte) string {
	t.Helper()
	dir := t.TempDir()
	aofDir := filepath.Join(dir, "appendonlydir")
	if err := os.Mkdir(aofDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(aofDir, "appendonly.aof.1.incr.aof"), stream, 0o644); err != nil {
		t.Fatal(err)
	}
	manifest := "file appendonly.aof.1.incr.aof seq 1 type i\n"
	if err := os.WriteFile(filepath.Join(aofDir, "appendonly.aof.manifest"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := startRefRedis(t, "--dir", dir, "--appendonly", "yes")
	rc := dialRaw(t, addr)
	for i := 0; strings.Contains(rc.do("INFO", "persistence"), "loading:1"); i++ {
		if i > 500 {
			t.Fatal("redis-server still loading the stream")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return addr
}

// dumpKeyspace prints every key of databases 0-15 with its type, value
// and PEXPIRETIME, in a stable order.
func dumpKeyspace(t *testing.T, rc *rawConn) string {
	t.Helper()
	var b strings.Builder
	for db := 0; db < 16; db++ {
		rc.do("SELECT", strconv.Itoa(db))
		keys := rawItems(rc.do("KEYS", "*"))
		sort.Strings(keys)
		for _, k := range keys {
			typ := strings.TrimSpace(strings.TrimPrefix(rc.do("TYPE", k), "+"))
			var v []string
			switch typ {
			case "string":
				v = rawItems(rc.do("GET", k))
			case "list":
				v = rawItems(rc.do("LRANGE", k, "0", "-1"))
			case "set":
				v = rawItems(rc.do("SMEMBERS", k))
				sort.Strings(v)
			case "zset":
				v = rawItems(rc.do("ZRANGE", k, "0", "-1", "WITHSCORES"))
			case "hash":
				v = rawItems(rc.do("HGETALL", k))
				pairs := make([]string, 0, len(v)/2)
				for i := 0; i+1 < len(v); i += 2 {
					pairs = append(pairs, v[i]+"="+v[i+1])
				}
				sort.Strings(pairs)
				v = pairs
			}
			at := strings.TrimSpace(strings.TrimPrefix(rc.do("PEXPIRETIME", k), ":"))
			fmt.Fprintf(&b, "db%d %s %s %q ttl=%s\n", db, k, typ, v, at)
		}
	}
	rc.do("SELECT", "0")
	return b.String()
}

// ttlPresence replaces each ttl= time by whether there is one.
func ttlPresence(dump string) string {
	lines := strings.Split(dump, "\n")
	for i, l := range lines {
		if j := strings.LastIndex(l, " ttl="); j >= 0 {
			lines[i] = l[:j] + " ttl:" + strconv.FormatBool(l[j+5:] != "-1")
		}
	}
	return strings.Join(lines, "\n")
}

// rawItems splits a raw array reply (or a single bulk) into its bulk
// strings.
func rawItems(raw string) []string {
	r := bufio.NewReader(strings.NewReader(raw))
	var out []string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return out
		}
		if line[0] != '$' {
			continue
		}
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		if n < 0 {
			continue
		}
		body := make([]byte, n+2)
		if _, err := io.ReadFull(r, body); err != nil {
			return out
		}
		out = append(out, string(body[:n]))
	}
}

// TestPropagationRestoreIsAbsolute: RESTORE with a relative TTL goes to
// the stream with the absolute time and ABSTTL, and redis-server loading
// the stream gets the key with loopkv's expiry time.
func TestPropagationRestoreIsAbsolute(t *testing.T) {
	s, _ := startServer(t, Options{})
	sink := attachSink(s)
	rc := dialRaw(t, s.Addr())
	rc.do("HSET", "h", "f", "v")
	payload := rawItems(rc.do("DUMP", "h"))[0]
	if r := rc.do("RESTORE", "r", "100000", payload); r != "+OK\r\n" {
		t.Fatalf("RESTORE: %q", r)
	}
	if r := rc.do("RESTORE", "r2", "0", payload, "REPLACE"); r != "+OK\r\n" {
		t.Fatalf("RESTORE: %q", r)
	}
	stream := sink.bytes()
	if !strings.Contains(string(stream), "ABSTTL") {
		t.Errorf("no ABSTTL in %q", stream)
	}
	mine := dumpKeyspace(t, rc)
	if got := dumpKeyspace(t, dialRaw(t, loadStreamIntoRedis(t, stream))); got != mine {
		t.Errorf("replayed:\n%s\nloopkv:\n%s", got, mine)
	}
}
