package server

import (
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
		{"NotifyBitmapsMatchRedis", TestNotifyBitmapsMatchRedis},
		{"BitmapPropagationMatchesRedisAOF", TestBitmapPropagationMatchesRedisAOF},
	}...)
}

// bitmapChangeScript holds writes that change the value, writes that do
// not (Redis 7.0 then counts, announces and propagates nothing), reads,
// and errors.
var bitmapChangeScript = []string{
	"SETBIT b 0 1", "SETBIT b 0 1", "SETBIT b 0 0", "SETBIT b 100 0", "SETBIT b 100 0", "SETBIT b 3 1",
	"SET n 123", "SETBIT n 0 0", "SETBIT l2 -1 1",
	"BITFIELD b GET u8 0", "BITFIELD b SET u8 0 1", "BITFIELD b SET u8 0 1", "BITFIELD b SET u8 0 2 SET u8 8 3 SET u8 0 2",
	"BITFIELD b SET u8 0 2 SET u8 200 0 SET u8 0 2", "BITFIELD b INCRBY u8 0 0", "BITFIELD b OVERFLOW SAT INCRBY u8 0 999 INCRBY u8 0 1",
	"BITFIELD f OVERFLOW FAIL SET u8 0 999", "BITFIELD f2 OVERFLOW FAIL SET u8 0 999 SET u8 0 0", "BITFIELD b", "BITFIELD b GET x8 0",
	"BITFIELD_RO b GET u8 0", "BITOP NOT d b", "BITOP AND d missing", "BITOP AND d missing", "SET s abc", "BITOP OR s b",
	"LPUSH l x", "BITOP OR l b", "BITOP OR d l", "GETBIT b 0", "BITCOUNT b", "BITPOS b 1", "LCS b d", "SUBSTR b 0 1",
	"SET t v PXAT 4000000000000", "SETBIT t 1 1", "BITFIELD t SET i8 8 -1", "PEXPIRETIME t", // an absolute time: the same in both streams
}

func TestNotifyBitmapsMatchRedis(t *testing.T) {
	s, _ := startServer(t, Options{})
	ref := startRefRedis(t)
	for _, proto := range []int{2, 3} {
		diffNotify(t, s.Addr(), ref, proto, "KEA", bitmapChangeScript)
	}
	diffNotify(t, s.Addr(), ref, 2, "K$", bitmapChangeScript)
	diffNotify(t, s.Addr(), ref, 2, "Eg", bitmapChangeScript)
}

// TestBitmapPropagationMatchesRedisAOF runs bitmapChangeScript on loopkv
// with a sink attached and on a redis-server with appendonly yes, and
// compares the stream with the incremental AOF file redis-server wrote,
// byte for byte: the same commands, as sent, only for the calls that
// changed something.
func TestBitmapPropagationMatchesRedisAOF(t *testing.T) {
	dir := t.TempDir()
	ref := startRefRedis(t, "--dir", dir, "--appendonly", "yes", "--appendfsync", "always")
	s, _ := startServer(t, Options{})
	sink := attachSink(s)
	a, b := dialRaw(t, s.Addr()), dialRaw(t, ref)
	for _, line := range bitmapChangeScript {
		args := strings.Fields(line)
		if got, want := a.do(args...), b.do(args...); got != want {
			t.Errorf("%s: loopkv %q, redis %q", line, got, want)
		}
	}
	want := readIncrAOF(t, filepath.Join(dir, "appendonlydir"))
	if got := string(sink.bytes()); got != want {
		t.Errorf("stream differs from redis-server's AOF\nloopkv: %q\nredis:  %q", got, want)
	}
	if !strings.Contains(want, "SETBIT") || !strings.Contains(want, "BITFIELD") || !strings.Contains(want, "BITOP") {
		t.Errorf("redis-server's AOF lacks the bitmap writes: %q", want)
	}
}

// readIncrAOF returns the incremental AOF file of an appendonly directory,
// waiting briefly for the writes of the last commands.
func readIncrAOF(t *testing.T, dir string) string {
	t.Helper()
	var last string
	for i := 0; i < 50; i++ {
		files, _ := filepath.Glob(filepath.Join(dir, "*.incr.aof"))
		if len(files) != 1 {
			t.Fatalf("incr AOF files in %s: %v", dir, files)
		}
		b, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		if string(b) == last && i > 2 {
			break
		}
		last = string(b)
		time.Sleep(10 * time.Millisecond)
	}
	return last
}
