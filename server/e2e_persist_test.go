package server

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRDBChecksumNoSkipsTheCheckOnLoad: under rdbchecksum no, Redis does
// not verify a file's CRC64 trailer on load; loopkv started on the same file
// with a wrong checksum loads what redis-server loads. (persistDataset sets
// hash-max-listpack-entries 128, loopkv's default; Redis 7.0's is 512.)
func TestRDBChecksumNoSkipsTheCheckOnLoad(t *testing.T) {
	src := t.TempDir()
	ref := dialRaw(t, startRefRedis(t, "--dir", src))
	fill(t, ref, persistDataset(time.Now().Add(time.Hour).UnixMilli()))
	if r := ref.do("SAVE"); r != "+OK\r\n" {
		t.Fatalf("redis SAVE: %q", r)
	}
	b, err := os.ReadFile(filepath.Join(src, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 0xFF
	rdir, dir := t.TempDir(), t.TempDir()
	for _, d := range []string{rdir, dir} {
		if err := os.WriteFile(filepath.Join(d, "dump.rdb"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	theirs := dialRaw(t, startRefRedis(t, "--dir", rdir, "--rdbchecksum", "no", "--hash-max-listpack-entries", "128"))
	s, _ := startServer(t, Options{Loops: 1, Persist: PersistOptions{Dir: dir, LoadOnStart: true, RDBChecksum: "no"}})
	sameContents(t, contents(t, dialRaw(t, s.Addr())), contents(t, theirs))
}
