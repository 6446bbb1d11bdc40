package server

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"PersistCommandErrorsMatchRedis", TestPersistCommandErrorsMatchRedis},
		{"ProtectedConfigsRefuseDir", TestProtectedConfigsRefuseDir},
		{"FailedBgsaveStopsWrites", TestFailedBgsaveStopsWrites},
		{"ShutdownSavesAsRedis", TestShutdownSavesAsRedis},
		{"ShutdownNosaveAndForceStop", TestShutdownNosaveAndForceStop},
		{"DumpRestoreBothWaysWithRedis", TestDumpRestoreBothWaysWithRedis},
		{"RestoreErrorsMatchRedis", TestRestoreErrorsMatchRedis},
		{"BgsaveUnderWriteLoadIsAPointInTime", TestBgsaveUnderWriteLoadIsAPointInTime},
		{"SaveRulesStartABackgroundSave", TestSaveRulesStartABackgroundSave},
		{"FullDiskFailsTheSave", TestFullDiskFailsTheSave},
		{"ChangesSinceLastSaveMatchRedis", TestChangesSinceLastSaveMatchRedis},
		{"InfoPersistenceFieldsMatchRedis", TestInfoPersistenceFieldsMatchRedis},
		{"LoadsWhatRedisSaves", TestLoadsWhatRedisSaves},
		{"RedisLoadsWhatLoopkvSaves", TestRedisLoadsWhatLoopkvSaves},
		{"SaveParksOnlyItsClient", TestSaveParksOnlyItsClient},
		{"BgsaveInProgressReported", TestBgsaveInProgressReported},
	}...)
}

// The persistence commands against redis-server: replies and errors in
// RESP2 and RESP3, the settings, and a save that fails for real.

// persistPair is a loopkv and a redis-server, each saving into its own
// directory, with protected configs enabled so that CONFIG SET dir works.
type persistPair struct {
	obsPair
	srv          *Server
	ourDir, rDir string
}

func newPersistPair(t *testing.T, opts Options) *persistPair {
	t.Helper()
	p := &persistPair{ourDir: t.TempDir(), rDir: t.TempDir()}
	opts.Persist.Dir, opts.Persist.EnableProtectedConfigs = p.ourDir, "yes"
	if opts.Loops == 0 {
		opts.Loops = 1
	}
	p.srv, _ = startServer(t, opts)
	p.ours = dialRaw(t, p.srv.Addr())
	p.ref = dialRaw(t, startRefRedis(t, "--dir", p.rDir, "--enable-protected-configs", "yes"))
	return p
}

// bothProtos runs each command on both servers in RESP2, then in RESP3.
func (p *persistPair) bothProtos(t *testing.T, cmds [][]string) {
	t.Helper()
	for _, proto := range []string{"2", "3"} {
		p.ref.do("HELLO", proto)
		p.ours.do("HELLO", proto)
		for _, args := range cmds {
			p.both(t, args...)
		}
	}
}

// waitSaves waits until neither server runs a background save.
func (p *persistPair) waitSaves(t *testing.T) {
	t.Helper()
	waitBgsave(t, p.ours)
	waitBgsave(t, p.ref)
}

// waitBgsave waits until c's server runs no background save.
func waitBgsave(t *testing.T, c *rawConn) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for strings.Contains(c.do("INFO", "persistence"), "rdb_bgsave_in_progress:1") {
		if time.Now().After(deadline) {
			t.Fatal("background save still running after 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var persistArgErrors = [][]string{
	{"BGSAVE", "foo"}, {"BGSAVE", "SCHEDULE", "x"}, {"BGSAVE", "schedule", "schedule"},
	{"SAVE", "x"}, {"LASTSAVE", "x"},
	{"SHUTDOWN", "foo"}, {"SHUTDOWN", "NOSAVE", "SAVE"}, {"SHUTDOWN", "ABORT", "NOW"}, {"SHUTDOWN", "ABORT"},
	{"SHUTDOWN", "abort", "abort"}, {"SHUTDOWN", "SAVE", "NOW", "FORCE", "x"},
	{"CONFIG", "GET", "save"}, {"CONFIG", "GET", "dbfilename"}, {"CONFIG", "GET", "rdbcompression"},
	{"CONFIG", "GET", "rdbchecksum"}, {"CONFIG", "GET", "stop-writes-on-bgsave-error"}, {"CONFIG", "GET", "rdb-del-sync-files"},
	{"CONFIG", "GET", "enable-protected-configs"},
	{"CONFIG", "SET", "save", "1"}, {"CONFIG", "SET", "save", "a 1"}, {"CONFIG", "SET", "save", "1 2 3"},
	{"CONFIG", "SET", "save", "-1 2"}, {"CONFIG", "SET", "save", "1 0"}, {"CONFIG", "SET", "save", " 3600  1 "},
	{"CONFIG", "SET", "save", "0 1 10 5"}, {"CONFIG", "GET", "save"}, {"CONFIG", "SET", "save", ""}, {"CONFIG", "GET", "save"},
	{"CONFIG", "SET", "rdbchecksum", "no"}, {"CONFIG", "SET", "rdbcompression", "maybe"},
	{"CONFIG", "SET", "rdbcompression", "no"}, {"CONFIG", "GET", "rdbcompression"}, {"CONFIG", "SET", "rdbcompression", "yes"},
	{"CONFIG", "SET", "stop-writes-on-bgsave-error", "x"}, {"CONFIG", "SET", "rdb-del-sync-files", "yes"},
	{"CONFIG", "SET", "rdb-del-sync-files", "no"},
	{"CONFIG", "SET", "dbfilename", "a/b.rdb"}, {"CONFIG", "SET", "dbfilename", "x.rdb"}, {"CONFIG", "GET", "dbfilename"},
	{"CONFIG", "SET", "dbfilename", "dump.rdb"},
	{"CONFIG", "SET", "dir", "/nonexistent/dir"}, {"CONFIG", "SET", "dir", "/etc/hostname"},
	{"MULTI"}, {"SAVE"}, {"BGSAVE", "SCHEDULE"}, {"SHUTDOWN"}, {"EXEC"},
}

func TestPersistCommandErrorsMatchRedis(t *testing.T) {
	p := newPersistPair(t, Options{})
	p.bothProtos(t, persistArgErrors)
	if got, want := p.ours.do("LASTSAVE")[0], p.ref.do("LASTSAVE")[0]; got != want {
		t.Errorf("LASTSAVE: reply type %c, want %c", got, want)
	}
}

func TestProtectedConfigsRefuseDir(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 1, Persist: PersistOptions{Dir: t.TempDir()}})
	p := &obsPair{ref: dialRaw(t, startRefRedis(t)), ours: dialRaw(t, s.Addr())}
	for _, args := range [][]string{{"CONFIG", "SET", "dir", "/tmp"}, {"CONFIG", "SET", "dbfilename", "a.rdb"},
		{"CONFIG", "GET", "enable-protected-configs"}, {"CONFIG", "SET", "enable-protected-configs", "yes"}} {
		p.both(t, args...)
	}
}

// TestFailedBgsaveStopsWrites makes a background save fail for real (its
// directory is replaced by a file) on both servers: the status turns to
// err, and with save rules and stop-writes-on-bgsave-error writes (and
// PING, and an EXEC of writes) get MISCONF while reads go on.
func TestFailedBgsaveStopsWrites(t *testing.T) {
	p := newPersistPair(t, Options{})
	base := [2]string{t.TempDir(), t.TempDir()}
	dirs := [2]string{filepath.Join(base[0], "d"), filepath.Join(base[1], "d")}
	for i, c := range []*rawConn{p.ours, p.ref} {
		if err := os.Mkdir(dirs[i], 0o755); err != nil {
			t.Fatal(err)
		}
		if r := c.do("CONFIG", "SET", "dir", dirs[i]); r != "+OK\r\n" {
			t.Fatalf("CONFIG SET dir: %q", r)
		}
	}
	p.both(t, "SET", "k", "v")
	for _, d := range dirs {
		if err := os.Remove(d); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(d, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p.both(t, "SAVE")
	p.both(t, "BGSAVE")
	p.waitSaves(t)
	for _, c := range []*rawConn{p.ours, p.ref} {
		if st := infoField(c.do("INFO", "persistence"), "rdb_last_bgsave_status:"); st != "rdb_last_bgsave_status:err" {
			t.Fatalf("%s, want rdb_last_bgsave_status:err", st)
		}
	}
	p.bothProtos(t, [][]string{
		{"SET", "k", "v2"}, // no save rules yet: writes go on
		{"CONFIG", "SET", "save", "3600 1"},
		{"SET", "k", "v3"}, {"GET", "k"}, {"PING"}, {"DEL", "k"}, {"EXISTS", "k"},
		{"MULTI"}, {"GET", "k"}, {"EXEC"},
		{"MULTI"}, {"SET", "k", "x"}, {"EXEC"},
		{"CONFIG", "SET", "stop-writes-on-bgsave-error", "no"}, {"SET", "k", "v4"}, {"PING"},
		{"CONFIG", "SET", "stop-writes-on-bgsave-error", "yes"}, {"SET", "k", "v5"},
		{"CONFIG", "SET", "save", ""}, {"SET", "k", "v6"},
	})
}

// TestShutdownSavesAsRedis: SHUTDOWN saves when save rules are set or SAVE
// is given, refuses to stop when that save fails (as redis-server does,
// with its words) unless NOSAVE or FORCE, and stops without a reply once
// the file is written.
func TestShutdownSavesAsRedis(t *testing.T) {
	p := newPersistPair(t, Options{})
	bad := [2]string{filepath.Join(t.TempDir(), "f"), filepath.Join(t.TempDir(), "f")}
	for i, c := range []*rawConn{p.ours, p.ref} {
		_ = os.Mkdir(bad[i], 0o755)
		c.do("CONFIG", "SET", "dir", bad[i])
		_ = os.Remove(bad[i])
		_ = os.WriteFile(bad[i], nil, 0o644) // the directory is now a file: saves fail
	}
	p.both(t, "SET", "k", "v")
	p.both(t, "CONFIG", "SET", "save", "3600 1")
	p.both(t, "SHUTDOWN")
	p.both(t, "SHUTDOWN", "SAVE")
	p.both(t, "CONFIG", "SET", "save", "")
	p.both(t, "SHUTDOWN", "SAVE", "NOW")
	p.both(t, "GET", "k") // both still serve

	// SHUTDOWN SAVE into a good directory writes the file, then stops.
	good := t.TempDir()
	p.ours.do("CONFIG", "SET", "dir", good)
	p.ours.send(multibulk("SHUTDOWN", "SAVE"))
	select {
	case <-p.srv.done: // Serve returned
	case <-time.After(10 * time.Second):
		t.Fatal("SHUTDOWN SAVE: still serving after 10 s")
	}
	// No reply: the connection ends (gnet) or stays silent (netpoll's
	// stopped loops leave the socket to the process's exit).
	_ = p.ours.c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if b, _ := io.ReadAll(p.ours.r); len(b) > 0 {
		t.Errorf("SHUTDOWN SAVE answered %q", b)
	}
	if _, err := os.Stat(filepath.Join(good, "dump.rdb")); err != nil {
		t.Errorf("SHUTDOWN SAVE: %v", err)
	}
}

// TestShutdownNosaveAndForceStop: with a failing save, NOSAVE and FORCE
// still stop the server.
func TestShutdownNosaveAndForceStop(t *testing.T) {
	for _, args := range [][]string{{"SHUTDOWN", "NOSAVE"}, {"SHUTDOWN", "FORCE"}, {"SHUTDOWN", "SAVE", "FORCE"}} {
		d := filepath.Join(t.TempDir(), "d")
		_ = os.Mkdir(d, 0o755)
		s, errc := startServer(t, Options{Loops: 1, Persist: PersistOptions{Dir: d, Save: "3600 1"}})
		_ = os.Remove(d)
		_ = os.WriteFile(d, nil, 0o644)
		c := dialRaw(t, s.Addr())
		c.do("SET", "k", "v")
		c.send(multibulk(args...))
		if got := c.expectClosed(); got != "" {
			t.Errorf("%q answered %q", args, got)
		}
		select {
		case err := <-errc:
			if err != nil {
				t.Errorf("%q: Serve returned %v", args, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%q: server still running", args)
		}
	}
}
