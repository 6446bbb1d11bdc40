package server

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// RDB files moving between loopkv and redis-server, both ways.

// TestLoadsWhatRedisSaves: redis-server SAVEs the dataset, loopkv starts
// on that file and holds the same keys, types, encodings, expiry times
// and values.
func TestLoadsWhatRedisSaves(t *testing.T) {
	rdir := t.TempDir()
	ref := dialRaw(t, startRefRedis(t, "--dir", rdir))
	fill(t, ref, persistDataset(time.Now().Add(time.Hour).UnixMilli()))
	if r := ref.do("SAVE"); r != "+OK\r\n" {
		t.Fatalf("redis SAVE: %q", r)
	}
	dir := t.TempDir()
	copyFile(t, filepath.Join(rdir, "dump.rdb"), dir, "dump.rdb")
	s, _ := startServer(t, Options{Loops: 1, Persist: PersistOptions{Dir: dir, LoadOnStart: true}})
	ours := dialRaw(t, s.Addr())
	sameContents(t, contents(t, ours), contents(t, ref))
	if k := infoField(ours.do("INFO", "persistence"), "rdb_last_load_keys_loaded:"); k != "rdb_last_load_keys_loaded:48" {
		t.Errorf("%s, want 48", k)
	}
}

// TestCorruptRDBRefusesStart: a file with a wrong checksum, a truncated
// file and one with an unknown value type stop Serve with an error naming
// the file and the byte offset, and leave the keyspace empty.
func TestCorruptRDBRefusesStart(t *testing.T) {
	rdir := t.TempDir()
	ref := dialRaw(t, startRefRedis(t, "--dir", rdir))
	fill(t, ref, persistDataset(time.Now().Add(time.Hour).UnixMilli()))
	ref.do("SAVE")
	good, err := os.ReadFile(filepath.Join(rdir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	// The first key of the file: the type byte after the first RESIZEDB's
	// two lengths (opcode 0xFB, then one-byte lengths in this dataset).
	firstType := bytes.IndexByte(good, 0xFB) + 3
	for _, tc := range []struct {
		name string
		edit func(b []byte) []byte
	}{
		{"checksum", func(b []byte) []byte { b[len(b)-1] ^= 0xFF; return b }},
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }},
		{"unknown type", func(b []byte) []byte { b[firstType] = 0x3F; return b }},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "dump.rdb")
		if err := os.WriteFile(path, tc.edit(bytes.Clone(good)), 0o644); err != nil {
			t.Fatal(err)
		}
		s := New(Options{Port: freePort(t), Loops: 1, Engine: testEngine, Persist: PersistOptions{Dir: dir, LoadOnStart: true}})
		err := s.Serve()
		if err == nil {
			t.Fatalf("%s: Serve started", tc.name)
		}
		if !strings.Contains(err.Error(), path) || !regexp.MustCompile(`byte offset \d+`).MatchString(err.Error()) {
			t.Errorf("%s: %v: want the file and the byte offset", tc.name, err)
		}
		if n := s.store.DBSize(0) + s.store.DBSize(3); n != 0 {
			t.Errorf("%s: %d keys loaded from a bad file", tc.name, n)
		}
		t.Logf("%s: %v", tc.name, err)
	}
}

// TestRedisLoadsWhatLoopkvSaves: loopkv SAVEs (and BGSAVEs) the dataset,
// redis-check-rdb accepts the file, and redis-server started on it holds
// the same keys, types, encodings, expiry times and values.
func TestRedisLoadsWhatLoopkvSaves(t *testing.T) {
	check := needTool(t, "redis-check-rdb")
	for _, how := range []string{"SAVE", "BGSAVE"} {
		dir := t.TempDir()
		s, _ := startServer(t, Options{Loops: 2, Persist: PersistOptions{Dir: dir}})
		ours := dialRaw(t, s.Addr())
		fill(t, ours, persistDataset(time.Now().Add(time.Hour).UnixMilli()))
		before := ours.do("LASTSAVE")
		time.Sleep(1100*time.Millisecond - time.Duration(time.Now().Nanosecond())) // LASTSAVE moves to the next second
		want := "+OK\r\n"
		if how == "BGSAVE" {
			want = "+Background saving started\r\n"
		}
		if r := ours.do(how); r != want {
			t.Fatalf("%s: %q", how, r)
		}
		waitBgsave(t, ours)
		if after := ours.do("LASTSAVE"); after == before {
			t.Errorf("%s: LASTSAVE still %q", how, after)
		}
		info := ours.do("INFO", "persistence")
		for _, f := range []string{"rdb_changes_since_last_save:0", "rdb_saves:1", "rdb_last_bgsave_status:ok"} {
			if infoField(info, f) != f {
				t.Errorf("%s: %s, want %s", how, infoField(info, strings.Split(f, ":")[0]+":"), f)
			}
		}
		path := filepath.Join(dir, "dump.rdb")
		if out, err := exec.Command(check, path).CombinedOutput(); err != nil {
			t.Fatalf("redis-check-rdb: %v\n%s", err, out)
		}
		rdir := t.TempDir()
		copyFile(t, path, rdir, "dump.rdb")
		ref := dialRaw(t, startRefRedis(t, "--dir", rdir, "--hash-max-listpack-entries", "128"))
		sameContents(t, contents(t, ref), contents(t, ours))
	}
}
