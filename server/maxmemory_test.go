package server

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/loopkv/loopkv/store"
)

const oomReply = "-OOM command not allowed when used memory > 'maxmemory'.\r\n"

// memServer is a server with its own store and options, run through
// execute as a connection would run it.
type memServer struct {
	s   *Server
	cl  *client
	now int64
}

func newMemServer(opts Options) *memServer {
	return &memServer{s: &Server{store: store.New(store.Options{}), opts: opts}, cl: &client{proto: 2}, now: allocNow}
}

// do runs one command line (see diffSplit) and returns its raw reply.
func (m *memServer) do(t *testing.T, line string, args ...string) string {
	t.Helper()
	in := diffEncode(append(diffSplit(t, line), args...))
	n, out, _ := m.s.execute(m.cl, in, nil, m.now, make([]byte, 64))
	if n != len(in) {
		t.Fatalf("%s: execute consumed %d of %d bytes", line, n, len(in))
	}
	return string(out)
}

// fillUntilOOM sets k0, k1, ... to a 100-byte value until a SET is refused
// and returns how many were set.
func (m *memServer) fillUntilOOM(t *testing.T) int {
	t.Helper()
	val := strings.Repeat("v", 100)
	for i := 0; i < 10000; i++ {
		switch r := m.do(t, "SET k"+strconv.Itoa(i), val); r {
		case "+OK\r\n":
		case oomReply:
			return i
		default:
			t.Fatalf("SET k%d = %q", i, r)
		}
	}
	t.Fatal("10000 SETs and no OOM")
	return 0
}

// Under noeviction, once the keyspace passes maxmemory every denyoom
// command gets Redis's OOM error, whether or not it would grow memory,
// while reads, DEL, EXPIRE and the like still run, and freeing memory lets
// writes in again.
func TestNoEvictionRefusesDenyOOMCommandsButNotReadsOrDel(t *testing.T) {
	m := newMemServer(Options{MaxMemory: 10 << 10, MaxMemoryPolicy: "noeviction"})
	n := m.fillUntilOOM(t)
	if n < 10 || m.s.store.UsedMemory() <= 10<<10 {
		t.Fatalf("OOM after %d keys, used %d", n, m.s.store.UsedMemory())
	}
	m.do(t, "SET n 1") // refused, so:
	if r := m.do(t, "EXISTS n"); r != ":0\r\n" {
		t.Fatalf("EXISTS n after a refused SET = %q", r)
	}
	refused := []string{"SET k0 x", "SETNX new x", "SETEX k0 100 x", "PSETEX k0 100 x", "GETSET k0 x",
		"MSET a 1 b 2", "MSETNX a 1 b 2", "INCR k1", "DECR k1", "INCRBY k1 2", "DECRBY k1 2",
		"INCRBYFLOAT k1 1.5", "APPEND k0 x", "SETRANGE k0 0 x", "COPY k0 c"}
	for i, line := range refused {
		if r := m.do(t, line); r != oomReply {
			t.Errorf("#%d: %s = %q, want the OOM error", i, line, r)
		}
	}
	allowed := []struct{ line, want string }{
		{"GET k2", "$100\r\n" + strings.Repeat("v", 100) + "\r\n"},
		{"MGET k3 nosuchkey", "*2\r\n$100\r\n" + strings.Repeat("v", 100) + "\r\n$-1\r\n"},
		{"STRLEN k3", ":100\r\n"},
		{"EXPIRE k4 100", ":1\r\n"},
		{"PERSIST k4", ":1\r\n"},
		{"GETEX k4", "$100\r\n" + strings.Repeat("v", 100) + "\r\n"},
		{"RENAME k4 r4", "+OK\r\n"},
		{"GETDEL r4", "$100\r\n" + strings.Repeat("v", 100) + "\r\n"},
		{"DEL k5 k6", ":2\r\n"},
		{"UNLINK k7", ":1\r\n"},
		{"PING", "+PONG\r\n"},
	}
	for i, tt := range allowed {
		if r := m.do(t, tt.line); r != tt.want {
			t.Errorf("#%d: %s = %q, want %q", i, tt.line, r, tt.want)
		}
	}
	if r := m.do(t, "INFO stats"); !strings.Contains(r, "evicted_keys:0\r\n") {
		t.Errorf("noeviction evicted keys: %q", r)
	}
	m.do(t, "FLUSHALL")
	if r := m.do(t, "SET k0 x"); r != "+OK\r\n" {
		t.Fatalf("SET after FLUSHALL = %q", r)
	}
}

// With allkeys-lru no write is refused: each command first evicts keys,
// and a key read all along survives while ten times the limit is written.
func TestAllKeysLRUEvictsAndKeepsTheKeyInUse(t *testing.T) {
	m := newMemServer(Options{MaxMemory: 20 << 10, MaxMemoryPolicy: "allkeys-lru"})
	m.writeAndReadHot(t, 1)
	st := m.s.store.Stats()
	if st.DBs[0].Keys >= 1000 || st.EvictedKeys != int64(1001-st.DBs[0].Keys) {
		t.Errorf("%d keys left, evicted_keys %d", st.DBs[0].Keys, st.EvictedKeys)
	}
	if r := m.do(t, "INFO stats"); !strings.Contains(r, fmt.Sprintf("evicted_keys:%d\r\n", st.EvictedKeys)) {
		t.Errorf("INFO stats lacks evicted_keys:%d", st.EvictedKeys)
	}
}

// allkeys-lfu evicts by access counts: a key read on every step outlives
// a thousand keys written once, over 16 minutes of counter decay.
func TestAllKeysLFUEvictsAndKeepsTheKeyInUse(t *testing.T) {
	m := newMemServer(Options{MaxMemory: 20 << 10, MaxMemoryPolicy: "allkeys-lfu"})
	m.writeAndReadHot(t, 2)
	if r := m.do(t, "OBJECT FREQ hot"); len(r) < 2 || r[0] != ':' || atoiOr(r[1:len(r)-2]) <= store.LFUInitVal {
		t.Errorf("OBJECT FREQ hot = %q, want above the new keys' 5", r)
	}
	if st := m.s.store.Stats(); st.EvictedKeys < 500 {
		t.Errorf("evicted_keys %d", st.EvictedKeys)
	}
}

// volatile-ttl evicts keys with a TTL, soonest first, and never the keys
// without one; when only those are left, writes are refused.
func TestVolatileTTLEvictsOnlyKeysWithTTL(t *testing.T) {
	m := newMemServer(Options{MaxMemory: 20 << 10, MaxMemoryPolicy: "volatile-ttl"})
	for i := 0; i < 50; i++ {
		m.do(t, "SET p"+strconv.Itoa(i)+" value")
	}
	val := strings.Repeat("v", 100)
	for i := 0; i < 300; i++ {
		r := m.do(t, "SET t"+strconv.Itoa(i), val, "EX", strconv.Itoa(100000-i))
		if r != "+OK\r\n" {
			t.Fatalf("SET t%d = %q", i, r)
		}
	}
	for i := 0; i < 50; i++ {
		if r := m.do(t, "EXISTS p"+strconv.Itoa(i)); r != ":1\r\n" {
			t.Fatalf("key without TTL p%d evicted", i)
		}
	}
	// The last keys written expire soonest, so they are the first to go.
	if r := m.do(t, "EXISTS t0 t1 t2"); r != ":3\r\n" {
		t.Errorf("EXISTS of the latest-expiring keys = %q, want 3", r)
	}
	// Tenacity 100 lifts the time limit, so that one command evicts all.
	if r := m.do(t, "CONFIG SET maxmemory-eviction-tenacity 100 maxmemory 1"); r != "+OK\r\n" {
		t.Fatal(r)
	}
	if r := m.do(t, "SET x y"); r != oomReply {
		t.Errorf("SET with only keys without TTL left = %q, want OOM", r)
	}
	if r := m.do(t, "DBSIZE"); r != ":50\r\n" {
		t.Errorf("DBSIZE = %q, want the 50 keys without TTL", r)
	}
}

// CONFIG SET applies the settings at once, CONFIG GET and INFO report them.
func TestMaxMemoryConfigSetGetAndInfo(t *testing.T) {
	m := newMemServer(Options{})
	steps := []struct{ line, want string }{
		{"CONFIG GET maxmemory", "*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n"},
		{"CONFIG GET maxmemory-policy", "*2\r\n$16\r\nmaxmemory-policy\r\n$10\r\nnoeviction\r\n"},
		{"CONFIG GET maxmemory-samples", "*2\r\n$17\r\nmaxmemory-samples\r\n$1\r\n5\r\n"},
		{"CONFIG SET maxmemory 1MB maxmemory-policy Allkeys-LRU maxmemory-samples 10", "+OK\r\n"},
		{"CONFIG GET maxmemory", "*2\r\n$9\r\nmaxmemory\r\n$7\r\n1048576\r\n"},
		{"CONFIG GET maxmemory-policy", "*2\r\n$16\r\nmaxmemory-policy\r\n$11\r\nallkeys-lru\r\n"},
		{"CONFIG GET maxmemory-samples", "*2\r\n$17\r\nmaxmemory-samples\r\n$2\r\n10\r\n"},
		{"CONFIG SET maxmemory 2k", "+OK\r\n"},
		{"CONFIG GET maxmemory", "*2\r\n$9\r\nmaxmemory\r\n$4\r\n2000\r\n"},
		{"CONFIG SET maxmemory-policy allkeys-lfu", "+OK\r\n"},
		{"CONFIG GET maxmemory-policy", "*2\r\n$16\r\nmaxmemory-policy\r\n$11\r\nallkeys-lfu\r\n"},
		{"CONFIG SET maxmemory-policy VOLATILE-LFU", "+OK\r\n"},
		{"CONFIG GET maxmemory-policy", "*2\r\n$16\r\nmaxmemory-policy\r\n$12\r\nvolatile-lfu\r\n"},
		{"CONFIG SET maxmemory-policy allkeys-lru", "+OK\r\n"},
	}
	for i, tt := range steps {
		if r := m.do(t, tt.line); r != tt.want {
			t.Errorf("#%d: %s = %q, want %q", i, tt.line, r, tt.want)
		}
	}
	m.do(t, "CONFIG SET maxmemory 1mb")
	info := m.do(t, "INFO memory")
	for _, want := range []string{"maxmemory:1048576\r\n", "maxmemory_human:1.00M\r\n", "maxmemory_policy:allkeys-lru\r\n"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO memory lacks %q", want)
		}
	}
}

// Lowering maxmemory below use evicts at once, as Redis does.
func TestConfigSetMaxMemoryEvictsAtOnce(t *testing.T) {
	m := newMemServer(Options{MaxMemoryPolicy: "allkeys-random"})
	for i := 0; i < 100; i++ {
		m.do(t, "SET k"+strconv.Itoa(i)+" value")
	}
	m.do(t, "CONFIG SET maxmemory-eviction-tenacity 100 maxmemory 5000")
	if used := m.s.store.UsedMemory(); used > 5000 {
		t.Fatalf("used %d after CONFIG SET maxmemory 5000", used)
	}
}

// maxMemoryDiff runs against redis-server started with --maxmemory 1mb
// --maxmemory-policy noeviction; each reply must equal ours byte for byte.
var maxMemoryDiffLines = []string{
	"CONFIG GET maxmemory",
	"CONFIG GET maxmemory-policy",
	"CONFIG GET maxmemory-samples",
	"CONFIG GET maxmemory-eviction-tenacity",
	"CONFIG SET maxmemory-policy foo",
	"CONFIG SET maxmemory-samples 0",
	"CONFIG SET maxmemory-samples x",
	"CONFIG SET maxmemory-eviction-tenacity 101",
	"CONFIG SET maxmemory foo",
	"CONFIG SET maxmemory -1",
	"CONFIG SET maxmemory 1MB",
	"CONFIG GET maxmemory",
	"CONFIG SET maxmemory-policy VOLATILE-TTL",
	"CONFIG GET maxmemory-policy",
	"CONFIG SET maxmemory-policy noeviction",
}

// TestMaxMemoryMatchesRedis compares the settings' replies and the OOM
// error with redis-server 7 under --maxmemory 1mb: both are filled with
// 300 KB values until a SET is refused (Redis, whose own overhead and
// query buffers count, refuses sooner), then reads and DEL of keys written
// before must work, denyoom commands fail alike, and the INFO fields agree.
func TestMaxMemoryMatchesRedis(t *testing.T) {
	addr := startRefRedis(t, "--maxmemory", "1mb", "--maxmemory-policy", "noeviction")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ref := &redisRef{conn: conn, r: bufio.NewReader(conn)}
	ours := newMemServer(Options{MaxMemory: 1 << 20, MaxMemoryPolicy: "noeviction"})
	for i, line := range maxMemoryDiffLines {
		args := diffSplit(t, line)
		if want, got := ref.do(t, args), ours.do(t, line); got != string(want) {
			t.Errorf("#%d: %s\n  got  %q\n  want %q", i, line, got, want)
		}
	}
	// Keys written with the limit lifted, to read and delete once over it.
	for _, line := range []string{"CONFIG SET maxmemory 0", "SET k0 value", "SET n 1", "CONFIG SET maxmemory 1mb"} {
		ref.do(t, diffSplit(t, line))
		ours.do(t, line)
	}
	big := strings.Repeat("x", 300_000)
	fill := func(do func(args []string) string) (string, int) {
		for i := 0; i < 10; i++ {
			if r := do([]string{"SET", "big" + strconv.Itoa(i), big}); r != "+OK\r\n" {
				return r, i
			}
		}
		return "", 10
	}
	wantErr, wantN := fill(func(a []string) string { return string(ref.do(t, a)) })
	gotErr, gotN := fill(func(a []string) string { return ours.do(t, "", a...) })
	if wantErr != oomReply || gotErr != wantErr {
		t.Fatalf("first refused SET: got %q after %d, redis %q after %d", gotErr, gotN, wantErr, wantN)
	}
	for _, line := range []string{"GET k0", "STRLEN k0", "EXISTS k0 n", "INCR n", "SETNX new v", "APPEND k0 x", "GET n", "DEL k0", "EXISTS k0", "EXPIRE n 100", "PERSIST n"} {
		want, got := string(ref.do(t, diffSplit(t, line))), ours.do(t, line)
		if got != want {
			t.Errorf("%s over the limit: got %q, redis %q", line, got, want)
		}
	}
	wantInfo, gotInfo := ref.do(t, []string{"INFO", "memory"}), ours.do(t, "INFO memory")
	for _, field := range []string{"maxmemory:", "maxmemory_human:", "maxmemory_policy:"} {
		if w, g := infoField(string(wantInfo), field), infoField(gotInfo, field); w == "" || g != w {
			t.Errorf("INFO %s got %q, redis %q", field, g, w)
		}
	}
}

// infoField returns the line of INFO text that starts with field.
func infoField(info, field string) string {
	for _, line := range strings.Split(info, "\r\n") {
		if strings.HasPrefix(line, field) {
			return line
		}
	}
	return ""
}

// Checking the limit costs no allocation, whether there is none, memory
// is under it, or it refuses under noeviction.
func TestCheckMemoryDoesNotAllocate(t *testing.T) {
	cases := []struct {
		name string
		opts Options
		want string
	}{
		{"no limit", Options{}, ""},
		{"under", Options{MaxMemory: 1 << 30}, ""},
		{"noeviction over", Options{MaxMemory: 1, MaxMemoryPolicy: "noeviction"}, errOOM},
	}
	for _, tt := range cases {
		m := newMemServer(tt.opts)
		m.s.lazy()
		m.s.store.Set(0, []byte("k"), []byte("v"), allocNow, store.SetOptions{})
		cmd := commandByName("set")
		var got string
		if a := testing.AllocsPerRun(100, func() { got = m.s.checkMemory(cmd, allocNow) }); a != 0 {
			t.Errorf("%s: %v allocs", tt.name, a)
		}
		if got != tt.want {
			t.Errorf("%s: checkMemory = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// The hot commands stay allocation-free through execute with a memory
// limit in force and not reached.
func TestHotCommandsDoNotAllocateUnderMaxMemory(t *testing.T) {
	for _, tt := range zeroAllocCommands {
		m := newMemServer(Options{MaxMemory: 1 << 30, MaxMemoryPolicy: "allkeys-lru"})
		for _, line := range tt.setup {
			m.do(t, line)
		}
		in := diffEncode(tt.cmd)
		out := make([]byte, 0, 4096)
		scratch := make([]byte, 64)
		m.s.execute(m.cl, in, out, allocNow, scratch)
		if a := testing.AllocsPerRun(100, func() { m.s.execute(m.cl, in, out[:0], allocNow, scratch) }); a != 0 {
			t.Errorf("%s: %v allocs per execute, want 0", tt.name, a)
		}
	}
}

func BenchmarkCheckMemory(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts Options
	}{{"limit=none", Options{}}, {"limit=under", Options{MaxMemory: 1 << 30}}} {
		b.Run(bc.name, func(b *testing.B) {
			m := newMemServer(bc.opts)
			m.s.lazy()
			cmd := commandByName("set")
			b.ReportAllocs()
			for b.Loop() {
				m.s.checkMemory(cmd, allocNow)
			}
		})
	}
	b.Run("limit=lru-evicting", func(b *testing.B) {
		m := newMemServer(Options{MaxMemory: 64 << 10, MaxMemoryPolicy: "allkeys-lru"})
		m.s.lazy()
		val := bytes.Repeat([]byte("v"), 100)
		key := make([]byte, 0, 16)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			key = strconv.AppendInt(append(key[:0], 'k'), int64(i), 10)
			i++
			m.s.store.Set(0, key, val, allocNow+int64(i), store.SetOptions{})
			m.s.checkMemory(commandByName("set"), allocNow+int64(i))
		}
	})
}

func TestSoftMemoryLimitFollowsMaxMemory(t *testing.T) {
	for _, tt := range []struct{ max, want int64 }{
		{100 << 20, 100<<20 + 50<<20 + 64<<20},
		{1 << 30, 1<<30 + 1<<29 + 64<<20},
		{math.MaxInt64, math.MaxInt64},
	} {
		if got := softMemoryLimit(tt.max); got != tt.want {
			t.Errorf("softMemoryLimit(%d) = %d, want %d", tt.max, got, tt.want)
		}
	}
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set")
	}
	defer debug.SetMemoryLimit(math.MaxInt64)
	applySoftMemoryLimit(256 << 20)
	if got := debug.SetMemoryLimit(-1); got != softMemoryLimit(256<<20) {
		t.Fatalf("runtime limit = %d after maxmemory 256mb", got)
	}
	applySoftMemoryLimit(0)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("runtime limit = %d after maxmemory 0", got)
	}
}

// writeAndReadHot sets hot, then, a second apart, a thousand 100-byte
// keys, reading hot gets times after each: hot must never be evicted, and
// used memory must stay at the 20 KiB limit.
func (m *memServer) writeAndReadHot(t *testing.T, gets int) {
	t.Helper()
	if r := m.do(t, "SET hot h"); r != "+OK\r\n" {
		t.Fatal(r)
	}
	val := strings.Repeat("v", 100)
	for i := 0; i < 1000; i++ {
		m.now += 1000
		if r := m.do(t, "SET k"+strconv.Itoa(i), val); r != "+OK\r\n" {
			t.Fatalf("SET k%d = %q", i, r)
		}
		for range gets {
			if r := m.do(t, "GET hot"); r != "$1\r\nh\r\n" {
				t.Fatalf("GET hot after %d SETs = %q", i+1, r)
			}
		}
		if used := m.s.store.UsedMemory(); used > 20<<10+300 {
			t.Fatalf("used %d after %d SETs, limit %d", used, i+1, 20<<10)
		}
	}
}

// atoiOr is strconv.Atoi of s, -1 when it is no number.
func atoiOr(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}
