package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPersistCommandsDoNotAllocate: DUMP of a string and of a listpack
// hash, and LASTSAVE, allocate nothing once warm.
func TestPersistCommandsDoNotAllocate(t *testing.T) {
	for _, tt := range []struct {
		setup []string
		cmd   []string
	}{
		{[]string{"SET k value"}, []string{"DUMP", "k"}},
		{[]string{"HSET h a 1 b 2"}, []string{"DUMP", "h"}},
		{nil, []string{"DUMP", "missing"}},
		{nil, []string{"LASTSAVE"}},
	} {
		s, cl, scratch := newAllocServer(t, tt.setup)
		in := diffEncode(tt.cmd)
		out := make([]byte, 0, 16<<10)
		s.execute(cl, in, out, allocNow, scratch)
		if allocs := testing.AllocsPerRun(100, func() { s.execute(cl, in, out[:0], allocNow, scratch) }); allocs != 0 {
			t.Errorf("%q: %v allocs, want 0", tt.cmd, allocs)
		}
	}
}

// TestChangesSinceLastSaveMatchRedis: rdb_changes_since_last_save counts
// as Redis's server.dirty and a SAVE brings it back to 0.
func TestChangesSinceLastSaveMatchRedis(t *testing.T) {
	p := newPersistPair(t, Options{})
	changes := func() [2]string {
		return [2]string{infoField(p.ours.do("INFO", "persistence"), "rdb_changes_since_last_save:"),
			infoField(p.ref.do("INFO", "persistence"), "rdb_changes_since_last_save:")}
	}
	for _, args := range [][]string{{"SET", "a", "1"}, {"SET", "b", "2"}, {"INCR", "a"}, {"MSET", "x", "1", "y", "2"},
		{"DEL", "b", "nosuch"}, {"GET", "a"}, {"SETNX", "a", "3"}} {
		p.both(t, args...)
		if c := changes(); c[0] != c[1] {
			t.Errorf("after %q: %s, want %s", args, c[0], c[1])
		}
	}
	p.both(t, "SAVE")
	if c := changes(); c[0] != "rdb_changes_since_last_save:0" || c[1] != c[0] {
		t.Errorf("after SAVE: %q", c)
	}
}

// TestSaveRulesStartABackgroundSave: with "save 1 1" a change starts a
// background save once a second has passed since the last one.
func TestSaveRulesStartABackgroundSave(t *testing.T) {
	dir := t.TempDir()
	s, _ := startServer(t, Options{Loops: 1, Persist: PersistOptions{Dir: dir, Save: "1 1"}})
	c := dialRaw(t, s.Addr())
	c.do("SET", "k", "v")
	deadline := time.Now().Add(10 * time.Second)
	for infoField(c.do("INFO", "persistence"), "rdb_saves:") == "rdb_saves:0" {
		if time.Now().After(deadline) {
			t.Fatal("no save after 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	waitBgsave(t, c)
	if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); err != nil {
		t.Fatal(err)
	}
	if st := infoField(c.do("INFO", "persistence"), "rdb_last_bgsave_status:"); st != "rdb_last_bgsave_status:ok" {
		t.Error(st)
	}
}

// TestFullDiskFailsTheSave: on a 64 KiB tmpfs a save of a larger keyspace
// fails with ENOSPC, the status turns to err, writes get MISCONF, and the
// previous file is left whole. Needs root (mount); skipped otherwise.
func TestFullDiskFailsTheSave(t *testing.T) {
	dir := t.TempDir()
	mountTmpfs(t, dir, "size=64k")
	s, _ := startServer(t, Options{Loops: 1, Persist: PersistOptions{Dir: dir, Save: "3600 1", RDBCompression: "no"}})
	c := dialRaw(t, s.Addr())
	c.do("SET", "small", "v")
	if r := c.do("SAVE"); r != "+OK\r\n" {
		t.Fatalf("first SAVE: %q", r)
	}
	good, _ := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	c.do("SET", "big", strings.Repeat("x", 200<<10))
	if r := c.do("BGSAVE"); r != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", r)
	}
	waitBgsave(t, c)
	if st := infoField(c.do("INFO", "persistence"), "rdb_last_bgsave_status:"); st != "rdb_last_bgsave_status:err" {
		t.Errorf("%s after a save into a full disk", st)
	}
	if r := c.do("SET", "k", "v"); !strings.HasPrefix(r, "-MISCONF ") {
		t.Errorf("SET: %q", r)
	}
	if r := c.do("GET", "small"); r != "$1\r\nv\r\n" {
		t.Errorf("GET: %q", r)
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "dump.rdb")); string(now) != string(good) {
		t.Error("the failed save changed the last good file")
	}
	if check, err := exec.LookPath("redis-check-rdb"); err == nil {
		if out, err := exec.Command(check, filepath.Join(dir, "dump.rdb")).CombinedOutput(); err != nil {
			t.Errorf("redis-check-rdb on the last good file: %v\n%s", err, out)
		}
	}
}

// TestInfoPersistenceFieldsMatchRedis: loading and the rdb_* fields, by
// name and in Redis 7.0's order.
func TestInfoPersistenceFieldsMatchRedis(t *testing.T) {
	p := newPersistPair(t, Options{})
	names := func(info string) []string {
		var out []string
		for _, l := range strings.Split(info, "\r\n") {
			if k, _, ok := strings.Cut(l, ":"); ok && !strings.HasPrefix(k, "aof_") && !strings.HasPrefix(k, "module_") {
				out = append(out, k)
			}
		}
		return out
	}
	got, want := names(p.ours.do("INFO", "persistence")), names(p.ref.do("INFO", "persistence"))
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("fields\n got %q\nwant %q", got, want)
	}
}

// TestSaveParksOnlyItsClient: while a SAVE is held open, its client waits
// (a blocked client) and the other clients of the same loop are served; a
// second SAVE and BGSAVE (with or without SCHEDULE) are refused as Redis
// refuses them during a save; then the SAVE answers +OK.
func TestSaveParksOnlyItsClient(t *testing.T) {
	hold, entered := make(chan struct{}), make(chan struct{}, 4)
	saveStartHook = func() { entered <- struct{}{}; <-hold }
	defer func() { saveStartHook = nil }()
	s, _ := startServer(t, Options{Loops: 1, Persist: PersistOptions{Dir: t.TempDir()}})
	saver, other := dialRaw(t, s.Addr()), dialRaw(t, s.Addr())
	saver.do("SET", "k", "v")
	saver.send(multibulk("SAVE") + multibulk("GET", "k"))
	<-entered
	for _, tt := range [][2]string{
		{"PING", "+PONG\r\n"}, {"SAVE", "-ERR Background save already in progress\r\n"},
		{"BGSAVE", "-ERR Background save already in progress\r\n"},
		{"BGSAVE SCHEDULE", "-ERR Background save already in progress\r\n"},
		{"SET k2 v2", "+OK\r\n"},
	} {
		if got := other.do(strings.Fields(tt[0])...); got != tt[1] {
			t.Errorf("%s during SAVE: %q, want %q", tt[0], got, tt[1])
		}
	}
	if b := infoField(other.do("INFO", "clients"), "blocked_clients:"); b != "blocked_clients:1" {
		t.Errorf("%s while SAVE waits", b)
	}
	if p := infoField(other.do("INFO", "persistence"), "rdb_bgsave_in_progress:"); p != "rdb_bgsave_in_progress:0" {
		t.Errorf("%s during a foreground SAVE", p)
	}
	close(hold)
	if got := saver.reply(); got != "+OK\r\n" {
		t.Errorf("SAVE: %q", got)
	}
	if got := saver.reply(); got != "$1\r\nv\r\n" {
		t.Errorf("GET after SAVE: %q", got)
	}
	if b := infoField(other.do("INFO", "clients"), "blocked_clients:"); b != "blocked_clients:0" {
		t.Errorf("%s after SAVE", b)
	}
}

// TestBgsaveInProgressReported: while a BGSAVE is held open INFO reports
// it running and its age, and it ends with status ok.
func TestBgsaveInProgressReported(t *testing.T) {
	hold, entered := make(chan struct{}), make(chan struct{}, 4)
	saveStartHook = func() { entered <- struct{}{}; <-hold }
	defer func() { saveStartHook = nil }()
	s, _ := startServer(t, Options{Loops: 1, Persist: PersistOptions{Dir: t.TempDir()}})
	c := dialRaw(t, s.Addr())
	c.do("SET", "k", "before")
	if r := c.do("BGSAVE"); r != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", r)
	}
	<-entered
	c.do("SET", "k", "during") // the snapshot keeps a copy of what it overwrites
	info := c.do("INFO", "persistence")
	if got := infoField(info, "current_cow_size:"); got == "current_cow_size:0" || got == "" {
		t.Errorf("%q after a write during the save", got)
	}
	for _, f := range []string{"rdb_bgsave_in_progress:1", "rdb_current_bgsave_time_sec:0", "rdb_saves:1"} {
		if got := infoField(info, strings.Split(f, ":")[0]+":"); got != f {
			t.Errorf("%s, want %s", got, f)
		}
	}
	close(hold)
	waitBgsave(t, c)
	info = c.do("INFO", "persistence")
	for _, f := range []string{"rdb_current_bgsave_time_sec:-1", "rdb_last_bgsave_status:ok", "rdb_last_bgsave_time_sec:0", "current_cow_size:0"} {
		if got := infoField(info, strings.Split(f, ":")[0]+":"); got != f {
			t.Errorf("%s, want %s", got, f)
		}
	}
	if got := infoField(info, "rdb_last_cow_size:"); got == "rdb_last_cow_size:0" || got == "" {
		t.Errorf("%q after a save that copied", got)
	}
}
