package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Streams moving between loopkv and redis-server 7.0 as RDB files and
// DUMP payloads, both ways.

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"StreamRDBBothWaysWithRedis", TestStreamRDBBothWaysWithRedis},
		{"StreamDumpRestoreBothWaysWithRedis", TestStreamDumpRestoreBothWaysWithRedis},
	}...)
}

// streamDataset returns commands building streams of every shape: one
// node, many nodes (entries with the master's fields and with others),
// entries deleted and trimmed, an emptied stream, XSETID's metadata, long
// (LZF-compressible) and integer values, a TTL, in two databases.
func streamDataset(ttlAt int64) [][]string {
	big := strings.Repeat("abcdefgh", 100)
	var cmds [][]string
	for _, db := range []string{"0", "3"} {
		cmds = append(cmds, []string{"SELECT", db},
			[]string{"XADD", "st:small", "1-1", "a", "1", "b", "two"},
			[]string{"XADD", "st:small", "1-2", "a", "3", "b", "four"},
			[]string{"XADD", "st:small", "5-0", "other", "-12345678901"},
			[]string{"XADD", "st:empty", "7-7", "x", "y"}, []string{"XDEL", "st:empty", "7-7"},
			[]string{"XADD", "st:ttl", "1-1", "k", "v"}, []string{"PEXPIREAT", "st:ttl", strconv.FormatInt(ttlAt, 10)},
			[]string{"XADD", "st:meta", "3-3", "f", big}, []string{"XSETID", "st:meta", "100-5", "ENTRIESADDED", "50", "MAXDELETEDID", "2-0"})
		for i := range 700 {
			f := []string{"XADD", "st:big", "1000-" + strconv.Itoa(i), "field", strconv.Itoa(i * 3), "name", "n" + strconv.Itoa(i)}
			if i%7 == 0 {
				f = append(f, "extra", big[:i%50])
			}
			cmds = append(cmds, f)
		}
		cmds = append(cmds, []string{"XDEL", "st:big", "1000-3", "1000-150", "1000-151", "1000-699"},
			[]string{"XTRIM", "st:big", "MAXLEN", "600"}, []string{"XTRIM", "st:big", "MINID", "1000-120"})
	}
	return append(cmds, []string{"SELECT", "0"})
}

// TestStreamRDBBothWaysWithRedis: redis-server SAVEs the streams and
// loopkv loads them; loopkv SAVEs them, redis-check-rdb accepts the file
// and redis-server loads it; each side then holds the same entries and
// metadata (XRANGE, XINFO STREAM FULL).
func TestStreamRDBBothWaysWithRedis(t *testing.T) {
	at := time.Now().Add(time.Hour).UnixMilli()
	rdir := t.TempDir()
	ref := dialRaw(t, startRefRedis(t, "--dir", rdir))
	fill(t, ref, streamDataset(at))
	if r := ref.do("SAVE"); r != "+OK\r\n" {
		t.Fatalf("redis SAVE: %q", r)
	}
	dir := t.TempDir()
	copyFile(t, filepath.Join(rdir, "dump.rdb"), dir, "dump.rdb")
	s, _ := startServer(t, Options{Loops: 1, Persist: PersistOptions{Dir: dir, LoadOnStart: true}})
	ours := dialRaw(t, s.Addr())
	want := contents(t, ref)
	sameContents(t, contents(t, ours), want)

	// and back: loopkv's own file, of the streams it loaded
	if r := ours.do("SAVE"); r != "+OK\r\n" {
		t.Fatalf("SAVE: %q", r)
	}
	path := filepath.Join(dir, "dump.rdb")
	check := needTool(t, "redis-check-rdb")
	if out, err := exec.Command(check, path).CombinedOutput(); err != nil {
		t.Fatalf("redis-check-rdb: %v\n%s", err, out)
	}
	rdir2 := t.TempDir()
	copyFile(t, path, rdir2, "dump.rdb")
	ref2 := dialRaw(t, startRefRedis(t, "--dir", rdir2))
	sameContents(t, contents(t, ref2), want)

	// streams built by loopkv's own commands, saved by BGSAVE
	dir3 := t.TempDir()
	s3, _ := startServer(t, Options{Loops: 2, Persist: PersistOptions{Dir: dir3}})
	ours3 := dialRaw(t, s3.Addr())
	fill(t, ours3, streamDataset(at))
	if r := ours3.do("BGSAVE"); r != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", r)
	}
	waitBgsave(t, ours3)
	rdir3 := t.TempDir()
	copyFile(t, filepath.Join(dir3, "dump.rdb"), rdir3, "dump.rdb")
	ref3 := dialRaw(t, startRefRedis(t, "--dir", rdir3))
	sameContents(t, contents(t, ref3), contents(t, ours3))
	sameContents(t, contents(t, ours3), want)
}

// TestStreamDumpRestoreBothWaysWithRedis: DUMP payloads of the streams
// RESTORE on the other side to the same entries and metadata.
func TestStreamDumpRestoreBothWaysWithRedis(t *testing.T) {
	at := time.Now().Add(time.Hour).UnixMilli()
	for _, dir := range []string{"redis to loopkv", "loopkv to redis"} {
		s, _ := startServer(t, Options{Loops: 1})
		ours := dialRaw(t, s.Addr())
		ref := dialRaw(t, startRefRedis(t))
		from, to := ref, ours
		if dir == "loopkv to redis" {
			from, to = ours, ref
		}
		fill(t, from, streamDataset(at))
		moveAll(t, from, to)
		sameContents(t, contents(t, to), contents(t, from))
	}
}

func init() {
	engineSuite = append(engineSuite, struct {
		name string
		fn   func(*testing.T)
	}{"StreamAOFRestartKeepsStreams", TestStreamAOFRestartKeepsStreams})
}

// TestStreamAOFRestartKeepsStreams: streams written with generated IDs
// and approximate trims, through an AOF rewrite (RDB and command bases)
// and writes after it, come back the same when loopkv restarts on the AOF
// and when redis-server loads it.
func TestStreamAOFRestartKeepsStreams(t *testing.T) {
	for _, preamble := range []string{"yes", "no"} {
		t.Run("aof-use-rdb-preamble="+preamble, func(t *testing.T) {
			dir := t.TempDir()
			s, rc := aofServer(t, dir, "always")
			rc.do("CONFIG", "SET", "aof-use-rdb-preamble", preamble)
			cmds := streamDataset(time.Now().Add(time.Hour).UnixMilli())
			for i := range 300 {
				cmds = append(cmds, []string{"XADD", "st:auto", "MAXLEN", "~", "150", "*", "i", strconv.Itoa(i)})
			}
			cmds = append(cmds, []string{"XADD", "st:seq", "5-*", "late", "x"}, []string{"XADD", "st:seq", "5-*", "later", "y"}, []string{"XTRIM", "st:big", "MAXLEN", "~", "300"},
				[]string{"XADD", "st:mk", "MINID", "~", "0", "*", "a", "b"})
			fill(t, rc, cmds)
			if r := rc.do("BGREWRITEAOF"); r != "+Background append only file rewriting started\r\n" {
				t.Fatalf("BGREWRITEAOF: %q", r)
			}
			waitRewrite(t, rc)
			fill(t, rc, [][]string{{"XADD", "st:auto", "*", "after", "1"}, {"XDEL", "st:small", "1-2"},
				{"XTRIM", "st:auto", "MINID", "~", "9999999999999"}, {"XSETID", "st:empty", "9-9"}})
			want := contents(t, rc)
			stopServer(t, s)
			_, rc2 := aofServer(t, dir, "always")
			sameContents(t, contents(t, rc2), want)
			sameContents(t, contents(t, dialRaw(t, startRefRedis(t, "--dir", dir, "--appendonly", "yes"))), want)
		})
	}
}

func init() {
	engineSuite = append(engineSuite, struct {
		name string
		fn   func(*testing.T)
	}{"StreamLoadsRedisAOF", TestStreamLoadsRedisAOF})
}

// TestStreamLoadsRedisAOF: redis-server's own AOF of stream writes (its
// ~ trims written as = with LIMIT, which only an AOF client may send)
// loads into loopkv as the same streams.
func TestStreamLoadsRedisAOF(t *testing.T) {
	dir := t.TempDir()
	ref := dialRaw(t, startRefRedis(t, "--dir", dir, "--appendonly", "yes", "--aof-use-rdb-preamble", "no"))
	var cmds [][]string
	for i := range 400 {
		cmds = append(cmds, []string{"XADD", "st", "MAXLEN", "~", "120", "LIMIT", "50", "*", "i", strconv.Itoa(i)})
	}
	cmds = append(cmds, []string{"XADD", "st2", "MINID", "~", "0", "1-1", "a", "b"}, []string{"XTRIM", "st", "MAXLEN", "~", "10"},
		[]string{"XDEL", "st2", "1-1"}, []string{"XSETID", "st2", "5-5"})
	fill(t, ref, cmds)
	want := contents(t, ref)
	time.Sleep(100 * time.Millisecond) // redis writes its AOF buffer before it sleeps
	dir2 := t.TempDir()
	files, err := filepath.Glob(filepath.Join(dir, "appendonlydir", "*"))
	if err != nil || len(files) < 2 {
		t.Fatalf("redis's AOF files: %v, %v", files, err)
	}
	if err := os.Mkdir(filepath.Join(dir2, "appendonlydir"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		copyFile(t, f, filepath.Join(dir2, "appendonlydir"), filepath.Base(f))
	}
	incr, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.incr.aof"))
	if len(incr) != 1 {
		t.Fatalf("redis's incr files: %v", incr)
	}
	if b, _ := os.ReadFile(incr[0]); !strings.Contains(string(b), "$1\r\n=\r\n$3\r\n120\r\n$5\r\nLIMIT\r\n") {
		t.Fatalf("redis's incr file has no MAXLEN = 120 LIMIT: %.400q", b)
	}
	_, rc := aofServer(t, dir2, "everysec")
	sameContents(t, contents(t, rc), want)
}
