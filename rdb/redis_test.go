package rdb

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopkv/loopkv/store"
)

// fillCommands are commands that give redis-server (or a store) every type
// in every encoding Redis 7.0 has, with and without TTLs, in dbs 0 and 3.
func fillCommands() [][]string {
	var cmds [][]string
	add := func(args ...string) { cmds = append(cmds, args) }
	long := strings.Repeat("abcdefgh", 30)   // compressible: LZF when on
	binary := "\x00\x01\xff\r\n" + long[:40] // binary-safe
	add("SET", "s:int", "12345")
	add("SET", "s:neg", "-7")
	add("SET", "s:int64", "4611686018427387904")
	add("SET", "s:embstr", "hello world")
	add("SET", "s:raw", long)
	add("SET", "s:bin", binary)
	add("SET", "s:empty", "")
	add("SET", "s:ttl", "v", "PX", "3600000")
	add("SET", "s:notcanon", "007")
	var text strings.Builder // 100 KB of text LZF finds matches in, near and far
	for i := 0; text.Len() < 100<<10; i++ {
		text.WriteString("line " + strconv.Itoa(i%977) + " of a long compressible value; ")
	}
	add("SET", "s:bigtext", text.String())
	add("RPUSH", "l:small", "a", "1", "-2", "99999999999", long)
	add("PEXPIRE", "l:small", "7200000")
	big := []string{"RPUSH", "l:big"}
	for i := range 1500 {
		big = append(big, "element-"+strconv.Itoa(i))
	}
	add(big...)
	add("SADD", "set:intset", "1", "2", "3", "-100", "4294967296")
	add("SADD", "set:strs", "a", "b", "c")
	add("PEXPIRE", "set:strs", "5000000")
	bigSet := []string{"SADD", "set:bigint"}
	for i := range 600 {
		bigSet = append(bigSet, strconv.Itoa(i*7))
	}
	add(bigSet...)
	add("ZADD", "z:lp", "1", "a", "2.5", "b", "-inf", "c", "inf", "d", "3", "e")
	bigZ := []string{"ZADD", "z:skip"}
	for i := range 200 {
		bigZ = append(bigZ, strconv.FormatFloat(float64(i)/3, 'g', -1, 64), "m"+strconv.Itoa(i))
	}
	add(bigZ...)
	add("ZADD", "z:long", "1", long)
	add("PEXPIRE", "z:long", "9000000")
	add("HSET", "h:lp", "f1", "v1", "f2", "2", "n", "-3")
	for i := range 200 { // one field per HSET: redis 7.0 converts then, not on a many-field HSET
		add("HSET", "h:big", "field"+strconv.Itoa(i), "value"+strconv.Itoa(i))
	}
	add("HSET", "h:longval", "f", long)
	add("PEXPIRE", "h:longval", "1000000")
	add("SELECT", "3")
	add("SET", "db3:s", "x")
	add("HSET", "db3:h", "a", "b")
	add("PEXPIRE", "db3:h", "100000")
	add("SELECT", "0")
	return cmds
}

func fillRedis(t *testing.T, r *redisServer) {
	t.Helper()
	ctx := context.Background()
	conn := r.c.Conn()
	defer conn.Close()
	for _, c := range fillCommands() {
		args := make([]any, len(c))
		for i, a := range c {
			args[i] = a
		}
		if err := conn.Do(ctx, args...).Err(); err != nil {
			t.Fatalf("%q: %v", c, err)
		}
	}
}

// TestLoadRedisSave: redis-server fills every type and encoding and SAVEs;
// Load gives a store with the same keys, contents, encodings and TTLs.
func TestLoadRedisSave(t *testing.T) {
	for _, comp := range []string{"yes", "no"} {
		t.Run("rdbcompression="+comp, func(t *testing.T) {
			dir := t.TempDir()
			r := startRedis(t, dir, "dump.rdb", "--rdbcompression", comp)
			fillRedis(t, r)
			if err := r.c.Save(context.Background()).Err(); err != nil {
				t.Fatal(err)
			}
			s := store.New(store.Options{})
			st, err := LoadFile(filepath.Join(dir, "dump.rdb"), s, LoadOptions{Now: time.Now().UnixMilli()})
			if err != nil {
				t.Fatal(err)
			}
			if st.Version != 10 || st.Aux["redis-ver"] == "" || st.Keys != 23 {
				t.Errorf("stats %+v", st)
			}
			// Compare with redis as it loads the same file: both convert
			// what is over the limits then (redis 7.0's HSET does not).
			r2 := reloadRedis(t, filepath.Join(dir, "dump.rdb"))
			for _, db := range []int{0, 3} {
				compareDumps(t, storeDump(t, s, db), redisDump(t, r2.c, db))
			}
		})
	}
}

// reloadRedis starts a redis-server that loads a copy of the RDB file at path.
func reloadRedis(t *testing.T, path string, extra ...string) *redisServer {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "load.rdb"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return startRedis(t, dir, "load.rdb", extra...)
}

// TestLoadRedisQuicklistNodes: redis-server's compressed quicklist nodes
// (list-compress-depth 1: LZF blobs) and plain nodes (an element over the
// packed threshold) load as redis-server loads them.
func TestLoadRedisQuicklistNodes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	r := startRedis(t, dir, "dump.rdb", "--list-compress-depth", "1", "--enable-debug-command", "yes")
	if err := r.c.Do(ctx, "DEBUG", "QUICKLIST-PACKED-THRESHOLD", "100").Err(); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("plain node element ", 20)
	args := []any{"RPUSH", "l:mixed", "head"}
	for i := range 3000 {
		args = append(args, "element number "+strconv.Itoa(i))
		if i%1000 == 500 {
			args = append(args, big)
		}
	}
	if err := r.c.Do(ctx, args...).Err(); err != nil {
		t.Fatal(err)
	}
	if err := r.c.Do(ctx, "RPUSH", "l:plainonly", big, big+"2").Err(); err != nil {
		t.Fatal(err)
	}
	// The plain-only list is two plain nodes (and so tests what it means to).
	if p := r.c.Dump(ctx, "l:plainonly").Val(); len(p) < 3 || p[0] != typeListQuicklist2 || p[1] != 2 || p[2] != containerPlain {
		t.Fatalf("DUMP l:plainonly starts %x, want 12 02 01", p[:min(len(p), 3)])
	}
	if err := r.c.Save(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	s := store.New(store.Options{})
	if _, err := LoadFile(filepath.Join(dir, "dump.rdb"), s, LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	compareDumps(t, storeDump(t, s, 0), redisDump(t, r.c, 0))
}
