package server

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"AOFRestartKeepsWrites", TestAOFRestartKeepsWrites},
		{"AOFConfigAndRewrite", TestAOFConfigAndRewrite},
		{"AOFConfigInsideExec", TestAOFConfigInsideExec},
		{"ScheduledRewriteRunsOnce", TestScheduledRewriteRunsOnce},
		{"AOFAlwaysRepliesAfterTheWrite", TestAOFAlwaysRepliesAfterTheWrite},
		{"AOFAlwaysAcrossReopen", TestAOFAlwaysAcrossReopen},
		{"AOFAutoRewriteOnGrowth", TestAOFAutoRewriteOnGrowth},
		{"FullDiskFailsTheAOFWrite", TestFullDiskFailsTheAOFWrite},
		{"AOFAlwaysLoopServesOthersDuringTheFsync", TestAOFAlwaysLoopServesOthersDuringTheFsync},
	}...)
}

// aofServer starts a server with appendonly yes in dir.
func aofServer(t *testing.T, dir, fsync string) (*Server, *rawConn) {
	t.Helper()
	s, _ := startServer(t, Options{Persist: PersistOptions{Dir: dir},
		AOF: AOFOptions{AppendOnly: "yes", AppendFsync: fsync}})
	return s, dialRaw(t, s.Addr())
}

func stopServer(t *testing.T, s *Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestAOFRestartKeepsWrites writes through a server with appendonly yes
// (appendfsync always), rewrites, writes more, stops it, and checks that
// a new server on the same directory, and redis-server, load the same
// keyspace.
func TestAOFRestartKeepsWrites(t *testing.T) {
	for _, preamble := range []string{"yes", "no"} {
		t.Run("aof-use-rdb-preamble="+preamble, func(t *testing.T) { aofRestart(t, preamble) })
	}
}

func aofRestart(t *testing.T, preamble string) {
	dir := t.TempDir()
	s, rc := aofServer(t, dir, "always")
	rc.do("CONFIG", "SET", "aof-use-rdb-preamble", preamble)
	rc.do("ZADD", "zinf", "-inf", "lo", "inf", "hi", "0.1", "mid")
	rc.do("HSET", "big", "f1", "v1", "f2", "v2")
	for i := 0; i < 150; i++ {
		rc.do("RPUSH", "long", strconv.Itoa(i))
	}
	for _, cmd := range [][]string{
		{"SET", "a", "1"}, {"SET", "t", "v", "EX", "1000"}, {"RPUSH", "l", "x", "y", "z"},
		{"SADD", "s", "m1", "m2"}, {"SPOP", "s"}, {"HSET", "h", "f", "v"}, {"ZADD", "z", "1", "a", "2", "b"},
		{"SELECT", "3"}, {"INCRBYFLOAT", "f", "1.5"}, {"MULTI"}, {"INCR", "n"}, {"INCR", "n"}, {"EXEC"},
	} {
		if r := rc.do(cmd...); strings.HasPrefix(r, "-") {
			t.Fatalf("%v: %q", cmd, r)
		}
	}
	if r := rc.do("BGREWRITEAOF"); r != "+Background append only file rewriting started\r\n" {
		t.Fatalf("BGREWRITEAOF: %q", r)
	}
	waitRewrite(t, rc)
	base := ".base.rdb"
	if preamble == "no" {
		base = ".base.aof"
	}
	if m, _ := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest")); !strings.Contains(string(m), base) {
		t.Fatalf("manifest after the rewrite, want a %s base:\n%s", base, m)
	}
	rc.do("SELECT", "0")
	rc.do("RPUSH", "l", "after")
	rc.do("DEL", "a")
	want := dumpKeyspace(t, rc)
	if !strings.Contains(want, "after") || !strings.Contains(want, "db3 n") {
		t.Fatalf("unexpected keyspace:\n%s", want)
	}
	stopServer(t, s)

	_, rc2 := aofServer(t, dir, "always")
	if got := dumpKeyspace(t, rc2); got != want {
		t.Errorf("after restart:\n%s\nwant:\n%s", got, want)
	}
	if got := dumpKeyspace(t, dialRaw(t, startRefRedis(t, "--dir", dir, "--appendonly", "yes"))); got != want {
		t.Errorf("redis-server loading our AOF:\n%s\nwant:\n%s", got, want)
	}
}

// waitRewrite waits until INFO persistence shows no rewrite running.
func waitRewrite(t *testing.T, rc *rawConn) {
	t.Helper()
	for i := 0; ; i++ {
		info := rc.do("INFO", "persistence")
		if strings.Contains(info, "aof_rewrite_in_progress:0") && !strings.Contains(info, "aof_rewrite_scheduled:1") {
			return
		}
		if i > 1000 {
			t.Fatalf("rewrite still running:\n%s", info)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAOFConfigAndRewrite: CONFIG SET appendonly yes at run time writes
// the dataset as the AOF's base, the AOF settings answer CONFIG GET as
// Redis's do, and INFO persistence has Redis 7.0's aof fields.
func TestAOFConfigAndRewrite(t *testing.T) {
	dir := t.TempDir()
	s, _ := startServer(t, Options{Persist: PersistOptions{Dir: dir}})
	rc := dialRaw(t, s.Addr())
	rc.do("SET", "before", "1")
	if r := rc.do("CONFIG", "SET", "appendonly", "yes"); r != "+OK\r\n" {
		t.Fatalf("CONFIG SET appendonly yes: %q", r)
	}
	rc.do("SET", "after", "2")
	waitRewrite(t, rc)
	info := rc.do("INFO", "persistence")
	for _, f := range []string{"aof_enabled:1", "aof_last_write_status:ok", "aof_last_bgrewrite_status:ok", "aof_current_size:", "aof_base_size:"} {
		if !strings.Contains(info, f) {
			t.Errorf("INFO persistence lacks %q:\n%s", f, info)
		}
	}
	ref := dialRaw(t, startRefRedis(t))
	for _, p := range []string{"appendfsync", "appenddirname", "appendfilename", "auto-aof-rewrite-percentage",
		"auto-aof-rewrite-min-size", "aof-load-truncated", "aof-use-rdb-preamble", "aof-timestamp-enabled"} {
		if a, b := rc.do("CONFIG", "GET", p), ref.do("CONFIG", "GET", p); a != b {
			t.Errorf("CONFIG GET %s: loopkv %q, redis %q", p, a, b)
		}
	}
	for _, kv := range [][2]string{{"appendfsync", "sometimes"}, {"appenddirname", "x"}, {"auto-aof-rewrite-percentage", "-1"}} {
		a, b := rc.do("CONFIG", "SET", kv[0], kv[1]), ref.do("CONFIG", "SET", kv[0], kv[1])
		if a != b {
			t.Errorf("CONFIG SET %s %s: loopkv %q, redis %q", kv[0], kv[1], a, b)
		}
	}
	want := dumpKeyspace(t, rc)
	stopServer(t, s)
	if _, err := os.Stat(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest")); err != nil {
		t.Fatal(err)
	}
	_, rc2 := aofServer(t, dir, "everysec")
	if got := dumpKeyspace(t, rc2); got != want {
		t.Errorf("after restart:\n%s\nwant:\n%s", got, want)
	}
}

// TestAOFConfigInsideExec: CONFIG SET appendfsync and appendonly inside a
// transaction, which holds the order lock, take effect once it ends.
func TestAOFConfigInsideExec(t *testing.T) {
	_, rc := aofServer(t, t.TempDir(), "everysec")
	rc.do("MULTI")
	rc.do("SET", "a", "1")
	rc.do("CONFIG", "SET", "appendfsync", "always")
	rc.do("CONFIG", "SET", "appendonly", "no")
	if r := rc.do("EXEC"); r != "*3\r\n+OK\r\n+OK\r\n+OK\r\n" {
		t.Fatalf("EXEC: %q", r)
	}
	for i := 0; !strings.Contains(rc.do("INFO", "persistence"), "aof_enabled:0"); i++ {
		if i > 200 {
			t.Fatal("appendonly no did not take effect")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if r := rc.do("SET", "b", "2"); r != "+OK\r\n" {
		t.Fatalf("SET after: %q", r)
	}
}

// TestAOFAlwaysRepliesAfterTheWrite: with appendfsync always, on both
// engines, plaintext and TLS, a write's reply comes only once the AOF
// file holds the write; a blocked BLPOP served by another client's push
// is answered after the pop is in the file too.
func TestAOFAlwaysRepliesAfterTheWrite(t *testing.T) {
	p := newTestPKI(t)
	dir := t.TempDir()
	s := startTLSServer(t, p, Options{Persist: PersistOptions{Dir: dir}, AOF: AOFOptions{AppendOnly: "yes", AppendFsync: "always"}})
	incr := filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof")
	inFile := func(what string) bool {
		b, err := os.ReadFile(incr)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Contains(string(b), what)
	}
	tc := dialTLS(t, s.TLSAddr(), p.clientConfig())
	tr := bufio.NewReader(tc)
	plain := dialRaw(t, s.Addr())
	for i := 0; i < 20; i++ {
		key := "held:" + strconv.Itoa(i)
		var r string
		if i%2 == 0 {
			r = tlsDo(t, tc, tr, "SET", key, "v")
		} else {
			r = plain.do("SET", key, "v")
		}
		if r != "+OK\r\n" {
			t.Fatalf("SET: %q", r)
		}
		if !inFile(key) {
			t.Fatalf("%s answered before the AOF held it", key)
		}
	}
	// a pipeline: every reply, and the last one's write, after the fsync
	var batch strings.Builder
	for i := 0; i < 50; i++ {
		batch.WriteString(multibulk("RPUSH", "pipe", strconv.Itoa(i)))
	}
	if _, err := tc.Write([]byte(batch.String())); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		if r, err := readRaw(tr); err != nil || r != ":"+strconv.Itoa(i+1)+"\r\n" {
			t.Fatalf("RPUSH %d: %q %v", i, r, err)
		}
	}
	if !inFile("$2\r\n49\r\n") {
		t.Fatal("the pipeline was answered before the AOF held it")
	}
	blocked := dialRaw(t, s.Addr())
	blocked.send(multibulk("BLPOP", "bq", "0"))
	for i := 0; s.blocked.n.Load() == 0; i++ {
		if i > 500 {
			t.Fatal("BLPOP did not block")
		}
		time.Sleep(2 * time.Millisecond)
	}
	if r := tlsDo(t, tc, tr, "RPUSH", "bq", "item"); r != ":1\r\n" {
		t.Fatalf("RPUSH: %q", r)
	}
	if r := blocked.reply(); r != "*2\r\n$2\r\nbq\r\n$4\r\nitem\r\n" {
		t.Fatalf("BLPOP: %q", r)
	}
	if !inFile("LPOP\r\n$2\r\nbq") {
		t.Fatal("the served BLPOP is not in the AOF")
	}
}

// TestAOFAlwaysAcrossReopen: CONFIG SET appendfsync, which reopens the
// log (its sequence numbers start again), while clients write with
// appendfsync always: every write is answered and kept.
func TestAOFAlwaysAcrossReopen(t *testing.T) {
	dir := t.TempDir()
	s, rc := aofServer(t, dir, "always")
	done := make(chan int)
	for g := 0; g < 4; g++ {
		go func() {
			c := dialRaw(t, s.Addr())
			n := 0
			for i := 0; i < 200; i++ {
				if c.do("SET", "w:"+strconv.Itoa(g)+":"+strconv.Itoa(i), "v") == "+OK\r\n" {
					n++
				}
			}
			done <- n
		}()
	}
	for i := 0; i < 6; i++ {
		mode := []string{"everysec", "always"}[i%2]
		if r := rc.do("CONFIG", "SET", "appendfsync", mode); r != "+OK\r\n" {
			t.Fatalf("CONFIG SET appendfsync %s: %q", mode, r)
		}
		time.Sleep(5 * time.Millisecond)
	}
	total := 0
	for g := 0; g < 4; g++ {
		total += <-done
	}
	if total != 800 {
		t.Fatalf("%d of 800 writes answered +OK", total)
	}
	stopServer(t, s)
	_, rc2 := aofServer(t, dir, "always")
	if r := rc2.do("DBSIZE"); r != ":800\r\n" {
		t.Fatalf("DBSIZE after restart: %q", r)
	}
}

// TestScheduledRewriteRunsOnce: a BGREWRITEAOF scheduled behind a BGSAVE,
// then asked for again as the save ends, rewrites once: whichever starts
// the rewrite clears the schedule, as Redis's rewriteAppendOnlyFileBackground.
func TestScheduledRewriteRunsOnce(t *testing.T) {
	hold, entered := make(chan struct{}), make(chan struct{}, 4)
	saveStartHook = func() { entered <- struct{}{}; <-hold }
	defer func() { saveStartHook = nil }()
	_, rc := aofServer(t, t.TempDir(), "everysec")
	rc.do("SET", "k", "v")
	if r := rc.do("BGSAVE"); r != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", r)
	}
	<-entered
	if r := rc.do("BGREWRITEAOF"); r != "+Background append only file rewriting scheduled\r\n" {
		t.Fatalf("BGREWRITEAOF during BGSAVE: %q", r)
	}
	close(hold)
	waitBgsave(t, rc)
	rc.do("BGREWRITEAOF") // started, or already in progress if the ticker came first
	waitRewrite(t, rc)
	time.Sleep(350 * time.Millisecond) // three ticks: a schedule left set would start a second rewrite
	waitRewrite(t, rc)
	info := rc.do("INFO", "persistence")
	for _, f := range []string{"aof_rewrite_scheduled:0", "aof_rewrites:1"} {
		if got := infoField(info, strings.Split(f, ":")[0]+":"); got != f {
			t.Errorf("%s, want %s", got, f)
		}
	}
}

// TestAOFAutoRewriteOnGrowth: once the log passes auto-aof-rewrite-min-size
// and has grown auto-aof-rewrite-percentage over its base, the server
// rewrites it by itself; the new base holds the keyspace, and a restart
// loads it.
func TestAOFAutoRewriteOnGrowth(t *testing.T) {
	dir := t.TempDir()
	s, rc := aofServer(t, dir, "everysec")
	for _, kv := range [][2]string{{"auto-aof-rewrite-percentage", "100"}, {"auto-aof-rewrite-min-size", "4kb"}} {
		if r := rc.do("CONFIG", "SET", kv[0], kv[1]); r != "+OK\r\n" {
			t.Fatalf("CONFIG SET %s: %q", kv[0], r)
		}
	}
	if got := infoValue(t, rc, "aof_rewrites"); got != "0" {
		t.Fatalf("aof_rewrites before any growth = %s", got)
	}
	base0, _ := strconv.Atoi(infoValue(t, rc, "aof_base_size"))
	val := strings.Repeat("v", 100)
	for i := 0; i < 100; i++ { // about 13 KiB of SETs: past the minimum and 100 % over the base
		if r := rc.do("SET", "k"+strconv.Itoa(i), val); r != "+OK\r\n" {
			t.Fatalf("SET: %q", r)
		}
	}
	waitFor(t, func() bool { return infoValue(t, rc, "aof_rewrites") == "1" }, "an automatic AOF rewrite")
	waitRewrite(t, rc)
	if base, _ := strconv.Atoi(infoValue(t, rc, "aof_base_size")); base <= base0 {
		t.Fatalf("aof_base_size %d after the rewrite, %d before the writes", base, base0)
	}
	stopServer(t, s)
	s2, rc2 := aofServer(t, dir, "everysec")
	defer stopServer(t, s2)
	if got := rc2.do("DBSIZE"); got != ":100\r\n" {
		t.Fatalf("DBSIZE after restart = %q", got)
	}
	if got := rc2.do("GET", "k99"); got != "$100\r\n"+val+"\r\n" {
		t.Fatalf("GET k99 after restart = %q", got)
	}
}

// TestFullDiskFailsTheAOFWrite: an AOF write into a full disk (everysec)
// turns aof_last_write_status to err and writes get Redis's MISCONF, from
// the first command after the failure (not the next server tick), while
// reads go on; once space is freed, the failed write is retried and writes
// are accepted again.
func TestFullDiskFailsTheAOFWrite(t *testing.T) {
	dir := t.TempDir()
	mountTmpfs(t, dir, "size=1m")
	s, _ := startServer(t, Options{Loops: 1, Persist: PersistOptions{Dir: dir},
		AOF: AOFOptions{AppendOnly: "yes", AppendFsync: "everysec"}})
	rc := dialRaw(t, s.Addr())
	rc.do("SET", "small", "v")
	waitFor(t, func() bool {
		return infoValue(t, rc, "aof_pending_bio_fsync") == "0" && infoValue(t, rc, "aof_buffer_length") == "0"
	}, "the first write on disk")
	fill := filepath.Join(dir, "fill")
	if err := os.WriteFile(fill, make([]byte, 1<<20), 0o600); err == nil {
		t.Fatal("a 1 MiB file fit in the 1 MiB tmpfs beside the AOF")
	}
	if r := rc.do("SET", "big", strings.Repeat("x", 64<<10)); r != "+OK\r\n" { // everysec: accepted, written later
		t.Fatalf("SET big = %q", r)
	}
	misconf := "-" + errAOFWritePrefix + "No space left on device\r\n"
	for i := 0; ; i++ { // the write is tried within a second (everysec); poll without a pause
		if infoValue(t, rc, "aof_last_write_status") == "err" {
			break
		}
		if i == 1e6 {
			t.Fatal("aof_last_write_status never turned to err")
		}
	}
	if r := rc.do("SET", "k", "v"); r != misconf {
		t.Errorf("SET right after the failed write = %q, want %q", r, misconf)
	}
	if r := rc.do("GET", "small"); r != "$1\r\nv\r\n" {
		t.Errorf("GET = %q", r)
	}
	if err := os.Remove(fill); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return rc.do("SET", "k", "v") == "+OK\r\n" }, "writes accepted once the pending write is retried into the room")
	if got := infoValue(t, rc, "aof_last_write_status"); got != "ok" {
		t.Errorf("aof_last_write_status = %s once writes are accepted again", got)
	}
}

// TestAOFAlwaysLoopServesOthersDuringTheFsync: with appendfsync always, a
// write's reply waits for the fsync that covers it, and meanwhile its loop
// (the only one) goes on serving the other connections.
func TestAOFAlwaysLoopServesOthersDuringTheFsync(t *testing.T) {
	gate, entered := make(chan struct{}), make(chan struct{}, 1)
	var holding atomic.Bool
	aofFsyncHook = func() {
		if holding.Load() {
			entered <- struct{}{}
			<-gate
		}
	}
	defer func() { aofFsyncHook = nil }()
	s, _ := startServer(t, Options{Loops: 1, Persist: PersistOptions{Dir: t.TempDir()},
		AOF: AOFOptions{AppendOnly: "yes", AppendFsync: "always"}})
	defer stopServer(t, s)
	w, r := dialRaw(t, s.Addr()), dialRaw(t, s.Addr())
	holding.Store(true)
	w.send(multibulk("SET", "k", "v"))
	<-entered // the writer goroutine is in the fsync that covers SET k
	if got := r.do("PING"); got != "+PONG\r\n" {
		t.Fatalf("PING during the held fsync = %q", got)
	}
	if got := r.do("GET", "other"); got != "$-1\r\n" {
		t.Fatalf("GET during the held fsync = %q", got)
	}
	holding.Store(false)
	close(gate)
	if got := w.reply(); got != "+OK\r\n" {
		t.Fatalf("SET after the fsync = %q", got)
	}
}
