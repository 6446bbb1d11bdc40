package server

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
)

func init() {
	engineSuite = append(engineSuite, struct {
		name string
		fn   func(*testing.T)
	}{"AOFRestartShowsItsBaseUsedMem", TestAOFRestartShowsItsBaseUsedMem})
}

// TestInfoLoadingFieldsMatchRedis: while a start-up load runs, INFO
// persistence ends with Redis 7.0's loading_* fields (loading_start_time,
// loading_total_bytes, loading_rdb_used_mem, loading_loaded_bytes,
// loading_loaded_perc, loading_eta_seconds), for an RDB file and for an
// AOF (RDB base and incr file). redis-server 7.0.15 and loopkv load the
// same files, both slowed by key-load-delay, and while both load, the
// sections have the same fields in the same order, each value of the same
// form; both give the same total (the file's size, or the AOF files' sum)
// and the file's used-mem, and their progress and percentage agree with
// Redis's formula. Once loaded, the fields are gone from both.
func TestInfoLoadingFieldsMatchRedis(t *testing.T) {
	src, ref := refDataset(t)
	ref.do("CONFIG", "SET", "appendonly", "yes") // its first base is the dataset, as RDB
	waitRewrite(t, ref)
	for i := range 50 {
		ref.do("SET", "after"+strconv.Itoa(i), "v") // the incr file
	}
	ref.do("CONFIG", "SET", "appendonly", "no")
	for _, aof := range []bool{false, true} {
		name := map[bool]string{false: "rdb", true: "aof"}[aof]
		rdir, ldir := t.TempDir(), t.TempDir()
		var total int64
		if aof {
			for _, d := range []string{rdir, ldir} {
				total = copyAOFDir(t, filepath.Join(src, "appendonlydir"), filepath.Join(d, "appendonlydir"))
			}
		} else {
			for _, d := range []string{rdir, ldir} {
				copyFile(t, filepath.Join(src, "dump.rdb"), d, "dump.rdb")
			}
			fi, err := os.Stat(filepath.Join(src, "dump.rdb"))
			if err != nil {
				t.Fatal(err)
			}
			total = fi.Size()
		}
		before := time.Now().Unix()
		args := []string{"--key-load-delay", "100", "--loading-process-events-interval-bytes", "1024"}
		o := Options{Loops: 1, Persist: PersistOptions{Dir: ldir, LoadOnStart: true},
			Config: map[string]string{"key-load-delay": "100"}}
		if aof {
			args = append(args, "--appendonly", "yes")
			o.AOF = AOFOptions{AppendOnly: "yes"}
		}
		rc := dialRaw(t, startRefRedisIn(t, rdir, args...))
		lc := dialRaw(t, startLoadingServer(t, o))
		want := whileLoading(t, rc)
		got := whileLoading(t, lc)
		checkLoadingFields(t, name+": redis-server", want, total, before)
		checkLoadingFields(t, name+": loopkv", got, total, before)
		sameInfoForm(t, name+" while loading", got, want)
		for _, f := range []string{"loading_total_bytes", "loading_rdb_used_mem"} {
			if g, w := infoValueOf(got, f), infoValueOf(want, f); g != w {
				t.Errorf("%s: %s = %s, redis-server's %s", name, f, g, w)
			}
		}
		want, got = loadedInfo(t, rc), loadedInfo(t, lc)
		sameInfoForm(t, name+" once loaded", got, want)
		for _, l := range got {
			if strings.HasPrefix(l[0], "loading_") {
				t.Errorf("%s: once loaded, INFO still shows %s", name, l[0])
			}
		}
	}
}

// refDataset has a redis-server write 8000 keys to dump.rdb in a new
// directory; it returns the directory and a connection to that server.
func refDataset(t *testing.T) (string, *rawConn) {
	t.Helper()
	needTool(t, "redis-server")
	dir := t.TempDir()
	c := dialRaw(t, startRefRedisIn(t, dir, "--enable-debug-command", "yes"))
	c.do("DEBUG", "POPULATE", "8000", "key", "20")
	if r := c.do("SAVE"); r != "+OK\r\n" {
		t.Fatalf("redis SAVE: %q", r)
	}
	return dir, c
}

// startLoadingServer starts a server with o that has data to load, and
// returns its address as soon as it listens, while it loads.
func startLoadingServer(t *testing.T, o Options) string {
	t.Helper()
	s, _ := startLoading(t, o)
	return s.Addr()
}

// startLoading is startLoadingServer that returns the server and the
// channel of its Serve's error.
func startLoading(t *testing.T, o Options) (*Server, <-chan error) {
	t.Helper()
	o.Port, o.Engine, o.Logger = freePort(t), testEngine, zap.NewNop()
	s := New(o)
	errc := make(chan error, 1)
	go func() { errc <- s.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Stop(ctx); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	for deadline := time.Now().Add(10 * time.Second); !answersPing(s.Addr()); time.Sleep(5 * time.Millisecond) {
		select {
		case err := <-errc:
			t.Fatalf("serve: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no listener during the load")
		}
	}
	return s, errc
}

// copyAOFDir copies an appendonlydir and returns the size of the files its
// manifest lists (Redis's loading_total_bytes for them).
func copyAOFDir(t *testing.T, from, to string) int64 {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	man, err := os.ReadFile(filepath.Join(from, "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	ents, _ := os.ReadDir(from)
	for _, e := range ents {
		copyFile(t, filepath.Join(from, e.Name()), to, e.Name())
		if fi, err := e.Info(); err == nil && strings.Contains(string(man), "file "+e.Name()+" ") {
			total += fi.Size()
		}
	}
	return total
}

// infoPairs is an INFO section as its field and value pairs, in order.
func infoPairs(raw string) [][2]string {
	nd, _ := diffParseNode([]byte(raw))
	var out [][2]string
	for _, l := range strings.Split(nd.body, "\r\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && !strings.HasPrefix(l, "#") {
			out = append(out, [2]string{k, v})
		}
	}
	return out
}

func infoValueOf(info [][2]string, field string) string {
	for _, l := range info {
		if l[0] == field {
			return l[1]
		}
	}
	return ""
}

// whileLoading polls INFO persistence until it shows a load under way
// with some bytes read, and returns it.
func whileLoading(t *testing.T, c *rawConn) [][2]string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		info := infoPairs(c.do("INFO", "persistence"))
		if infoValueOf(info, "loading") != "1" {
			t.Fatalf("not loading: %v", info)
		}
		if n, _ := strconv.ParseInt(infoValueOf(info, "loading_loaded_bytes"), 10, 64); n > 0 {
			return info
		}
	}
	t.Fatal("no load progress in 10 s")
	return nil
}

// loadedInfo waits for the load to end and returns INFO persistence.
func loadedInfo(t *testing.T, c *rawConn) [][2]string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if info := infoPairs(c.do("INFO", "persistence")); infoValueOf(info, "loading") == "0" {
			return info
		}
	}
	t.Fatal("still loading after 30 s")
	return nil
}

// infoForms are the forms an INFO value takes, by how Redis prints it.
var infoForms = []struct {
	name string
	re   *regexp.Regexp
}{
	{"integer", regexp.MustCompile(`^-?[0-9]+$`)},
	{"%.2f", regexp.MustCompile(`^-?[0-9]+\.[0-9]{2}$`)},
	{"word", regexp.MustCompile(`^[a-z]+$`)},
}

func infoForm(v string) string {
	for _, f := range infoForms {
		if f.re.MatchString(v) {
			return f.name
		}
	}
	return strconv.Quote(v)
}

// sameInfoForm fails unless got has want's fields, in its order, each
// value of the same form.
func sameInfoForm(t *testing.T, what string, got, want [][2]string) {
	t.Helper()
	names := func(info [][2]string) (n []string) {
		for _, l := range info {
			n = append(n, l[0])
		}
		return n
	}
	if g, w := strings.Join(names(got), " "), strings.Join(names(want), " "); g != w {
		t.Errorf("%s: fields\n got  %s\n want %s", what, g, w)
		return
	}
	for i, l := range got {
		if g, w := infoForm(l[1]), infoForm(want[i][1]); g != w {
			t.Errorf("%s: %s:%s is %s, redis-server's %s:%s is %s", what, l[0], l[1], g, want[i][0], want[i][1], w)
		}
	}
}

// checkLoadingFields checks the loading_* values of one server against
// the files' total size, the test's start and Redis's formulas.
func checkLoadingFields(t *testing.T, who string, info [][2]string, total, before int64) {
	t.Helper()
	num := func(f string) int64 {
		n, err := strconv.ParseInt(infoValueOf(info, f), 10, 64)
		if err != nil {
			t.Errorf("%s: %s = %q", who, f, infoValueOf(info, f))
		}
		return n
	}
	if v := infoValueOf(info, "async_loading"); v != "0" {
		t.Errorf("%s: async_loading = %q", who, v)
	}
	if st := num("loading_start_time"); st < before || st > time.Now().Unix() {
		t.Errorf("%s: loading_start_time %d, the load began at %d or later", who, st, before)
	}
	if n := num("loading_total_bytes"); n != total {
		t.Errorf("%s: loading_total_bytes %d, the files have %d", who, n, total)
	}
	if n := num("loading_rdb_used_mem"); n <= 0 {
		t.Errorf("%s: loading_rdb_used_mem %d, the file has a used-mem field", who, n)
	}
	loaded := num("loading_loaded_bytes")
	if loaded <= 0 || loaded > total {
		t.Errorf("%s: loading_loaded_bytes %d of %d", who, loaded, total)
	}
	perc, err := strconv.ParseFloat(infoValueOf(info, "loading_loaded_perc"), 64)
	if want := float64(loaded) / float64(total+1) * 100; err != nil || math.Abs(perc-want) > 0.006 {
		t.Errorf("%s: loading_loaded_perc %q, %d of %d bytes is %.2f", who, infoValueOf(info, "loading_loaded_perc"), loaded, total, want)
	}
	if eta := num("loading_eta_seconds"); eta < 0 {
		t.Errorf("%s: loading_eta_seconds %d", who, eta)
	}
}

// TestShutdownWhileLoadingKeepsTheFile: SHUTDOWN SAVE while the start-up
// load runs makes no save, as Redis's prepareForShutdown (a save then
// would write the part loaded so far over the file), and stops the load:
// the file is as it was, for redis-server and loopkv alike.
func TestShutdownWhileLoadingKeepsTheFile(t *testing.T) {
	src, _ := refDataset(t)
	orig, err := os.ReadFile(filepath.Join(src, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	rdir, ldir := t.TempDir(), t.TempDir()
	for _, d := range []string{rdir, ldir} {
		copyFile(t, filepath.Join(src, "dump.rdb"), d, "dump.rdb")
	}
	rc := dialRaw(t, startRefRedisIn(t, rdir, "--key-load-delay", "100", "--loading-process-events-interval-bytes", "1024",
		"--save", "900 1"))
	o := Options{Loops: 1, Persist: PersistOptions{Dir: ldir, LoadOnStart: true, Save: "900 1"},
		Config: map[string]string{"key-load-delay": "100"}}
	lc := dialRaw(t, startLoadingServer(t, o))
	for _, c := range []*rawConn{rc, lc} {
		whileLoading(t, c)
		c.send(multibulk("SHUTDOWN", "SAVE"))
		if r := c.expectClosed(); r != "" {
			t.Errorf("SHUTDOWN SAVE while loading answered %q", r)
		}
	}
	for _, d := range []string{rdir, ldir} {
		got, err := os.ReadFile(filepath.Join(d, "dump.rdb"))
		if err != nil || string(got) != string(orig) {
			t.Errorf("%s: dump.rdb has %d bytes after SHUTDOWN SAVE while loading, was %d (%v)", d, len(got), len(orig), err)
		}
	}
}

// TestAOFRestartShowsItsBaseUsedMem: loopkv's own AOF base carries the
// used-mem aux field, as Redis's does, so that a restart's INFO shows it as
// loading_rdb_used_mem while the base loads.
func TestAOFRestartShowsItsBaseUsedMem(t *testing.T) {
	dir := t.TempDir()
	src, _ := startServer(t, Options{Loops: 1, Persist: PersistOptions{Dir: dir}, AOF: AOFOptions{AppendOnly: "yes"}})
	c := dialRaw(t, src.Addr())
	var fill strings.Builder
	for i := range 3000 {
		fill.WriteString(multibulk("SET", "k"+strconv.Itoa(i), "v"))
	}
	c.send(fill.String())
	for range 3000 {
		c.reply()
	}
	if r := c.do("BGREWRITEAOF"); !strings.HasPrefix(r, "+") {
		t.Fatalf("BGREWRITEAOF: %q", r)
	}
	waitRewrite(t, c)
	stopServer(t, src)
	lc := dialRaw(t, startLoadingServer(t, Options{Loops: 1, Persist: PersistOptions{Dir: dir},
		AOF: AOFOptions{AppendOnly: "yes"}, Config: map[string]string{"key-load-delay": "200"}}))
	info := whileLoading(t, lc)
	if n, err := strconv.ParseInt(infoValueOf(info, "loading_rdb_used_mem"), 10, 64); err != nil || n <= 0 {
		t.Errorf("loading_rdb_used_mem %q while loopkv's AOF base loads, want its used-mem", infoValueOf(info, "loading_rdb_used_mem"))
	}
}
