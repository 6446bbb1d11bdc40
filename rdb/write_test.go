package rdb

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopkv/loopkv/store"
)

// fillStore runs fillCommands on s through the store's operations.
func fillStore(t testing.TB, s *store.Store) {
	t.Helper()
	now := time.Now().UnixMilli()
	db := 0
	for _, c := range fillCommands() {
		key := []byte(c[1])
		args := make([][]byte, 0, len(c))
		for _, a := range c[2:] {
			args = append(args, []byte(a))
		}
		var st store.Status
		switch c[0] {
		case "SELECT":
			db, _ = strconv.Atoi(c[1])
		case "SET":
			o := store.SetOptions{}
			if len(c) == 5 { // SET k v PX ms
				ms, _ := strconv.ParseInt(c[4], 10, 64)
				o.ExpireAt = now + ms
			}
			st = s.Set(db, key, args[0], now, o)
		case "RPUSH":
			_, st = s.LPush(db, key, store.ListTail, args, false, now)
		case "SADD":
			_, st = s.SAdd(db, key, args, now)
		case "HSET":
			_, st = s.HSet(db, key, args, now)
		case "ZADD":
			_, st = s.ZAdd(db, key, 0, args, now)
		case "PEXPIRE":
			ms, _ := strconv.ParseInt(c[2], 10, 64)
			s.Expire(db, key, now, now+ms, 0)
		default:
			t.Fatalf("fillStore: %q", c)
		}
		if st != store.OK {
			t.Fatalf("%q: %v", c, st)
		}
	}
}

// checkRDB runs redis-check-rdb on path and fails the test unless it is
// happy with the file.
func checkRDB(t *testing.T, path string) {
	t.Helper()
	bin, err := exec.LookPath("redis-check-rdb")
	if err != nil {
		t.Skip("redis-check-rdb not installed (make deps)")
	}
	out, err := exec.Command(bin, path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "RDB looks OK") {
		t.Fatalf("redis-check-rdb %s: %v\n%s", path, err, out)
	}
}

// TestWriteRedisLoads: a store with every type and encoding is written with
// WriteFile; redis-check-rdb accepts the file and redis-server loads the
// same keys, contents, encodings and TTLs.
func TestWriteRedisLoads(t *testing.T) {
	sizes := map[bool]int64{}
	for _, o := range []Options{{Compress: true, Checksum: true, Idle: true}, {Compress: false, Checksum: false, Idle: true}} {
		t.Run("compress="+strconv.FormatBool(o.Compress), func(t *testing.T) {
			s := store.New(store.Options{})
			fillStore(t, s)
			s.SetIdle(0, []byte("s:embstr"), time.Now().UnixMilli(), 5000)
			dir := t.TempDir()
			path := filepath.Join(dir, "dump.rdb")
			sn := s.Snapshot()
			st, err := WriteFile(path, sn, o)
			sn.Close()
			if err != nil {
				t.Fatal(err)
			}
			fi, _ := os.Stat(path)
			if st.Keys != 23 || st.Expires != 6 || st.Bytes != fi.Size() {
				t.Errorf("stats %+v, file %d bytes", st, fi.Size())
			}
			sizes[o.Compress] = st.Bytes
			checkRDB(t, path)
			r := startRedis(t, dir, "dump.rdb")
			// IDLE went both ways (checked before the reads that reset it).
			if idle := r.c.ObjectIdleTime(context.Background(), "s:embstr").Val(); idle < 4990*time.Second || idle > 5100*time.Second {
				t.Errorf("redis OBJECT IDLETIME %v, want ~5000 s", idle)
			}
			for _, db := range []int{0, 3} {
				compareDumps(t, storeDump(t, s, db), redisDump(t, r.c, db))
			}
			// And back: what we wrote loads into a new store the same.
			s2 := store.New(store.Options{})
			if _, err := LoadFile(path, s2, LoadOptions{Now: time.Now().UnixMilli()}); err != nil {
				t.Fatal(err)
			}
			if info, _ := s2.Object(0, []byte("s:embstr"), time.Now().UnixMilli()); info.Idle < 4990_000 || info.Idle > 5100_000 {
				t.Errorf("reloaded idle %d ms, want ~5000 s", info.Idle)
			}
			for _, db := range []int{0, 3} {
				compareDumps(t, storeDump(t, s2, db), storeDump(t, s, db))
			}
		})
	}
	if sizes[true] >= sizes[false] {
		t.Errorf("LZF did not shrink the file: %d bytes compressed, %d not", sizes[true], sizes[false])
	}
}

// TestWriteFileKeepsTheOldFileOnFailure: a save that fails (here, from a
// closed snapshot) leaves the last good file as it was and no temporary
// file behind.
func TestWriteFileKeepsTheOldFileOnFailure(t *testing.T) {
	s := store.New(store.Options{})
	fillStore(t, s)
	dir := t.TempDir()
	path := filepath.Join(dir, "dump.rdb")
	sn := s.Snapshot()
	if _, err := WriteFile(path, sn, Options{Checksum: true, Aux: map[string]string{"aof-base": "1", "x-extra": "y"}}); err != nil {
		t.Fatal(err)
	}
	sn.Close()
	good, _ := os.ReadFile(path)
	s.Set(0, []byte("new"), []byte("value"), 0, store.SetOptions{})
	sn = s.Snapshot()
	sn.Close()
	if _, err := WriteFile(path, sn, Options{}); err == nil {
		t.Fatal("WriteFile from a closed snapshot succeeded")
	}
	now, _ := os.ReadFile(path)
	if !bytes.Equal(good, now) {
		t.Fatal("the failed save changed the file")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("files left in the directory: %v", ents)
	}
	st, err := LoadFile(path, store.New(store.Options{}), LoadOptions{})
	if err != nil || st.Aux["aof-base"] != "1" || st.Aux["x-extra"] != "y" || st.Aux["redis-ver"] != redisVersion {
		t.Fatalf("aux %v, %v", st.Aux, err)
	}
}

// TestWriteFileModeIsRedis's: dump.rdb gets 0666 less the umask, as
// redis-server's fopen gives it, so others can read it as they read Redis's.
func TestWriteFileModeIsRedis(t *testing.T) {
	s := store.New(store.Options{})
	fillStore(t, s)
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref")
	f, err := os.OpenFile(ref, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	sn := s.Snapshot()
	defer sn.Close()
	path := filepath.Join(dir, "dump.rdb")
	if _, err := WriteFile(path, sn, Options{Checksum: true}); err != nil {
		t.Fatal(err)
	}
	want, _ := os.Stat(ref)
	got, err := os.Stat(path)
	if err != nil || got.Mode().Perm() != want.Mode().Perm() {
		t.Fatalf("dump.rdb mode %v, a 0666 file gets %v (%v)", got.Mode().Perm(), want.Mode().Perm(), err)
	}
}
