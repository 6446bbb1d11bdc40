package aof

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc64"
	"io"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/loopkv/loopkv/internal/redisref"
	"github.com/loopkv/loopkv/rdb"
	"github.com/loopkv/loopkv/store"
)

// execTx runs the commands in one MULTI/EXEC on the server c is connected
// to, through go-redis (redisref reads no array replies).
func execTx(t *testing.T, c *redisref.Conn, cmds ...[]string) {
	t.Helper()
	info, err := c.Do("INFO", "server")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(string(info), "tcp_port:")
	port, _, _ = strings.Cut(port, "\r\n")
	rc := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + port})
	defer rc.Close()
	_, err = rc.TxPipelined(context.Background(), func(p redis.Pipeliner) error {
		for _, cmd := range cmds {
			args := make([]any, len(cmd))
			for i, a := range cmd {
				args[i] = a
			}
			p.Do(context.Background(), args...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// redisCRC is Redis's CRC-64 (Jones polynomial, reflected, no inversion).
var redisCRC = crc64.MakeTable(bits.Reverse64(0xad93d23594c935a9))

// rdbStrings writes a minimal RDB version 10 file holding string keys in
// db 0, with its CRC-64 trailer, as a stand-in for package rdb.
func rdbStrings(kv ...string) []byte {
	b := []byte("REDIS0010")
	str := func(s string) { b = append(append(b, byte(len(s))), s...) } // lengths < 64
	b = append(b, 0xFA)                                                 // aux
	str("redis-ver")
	str("7.0.15")
	b = append(b, 0xFE, 0, 0xFB, byte(len(kv)/2), 0) // SELECTDB 0, RESIZEDB
	for i := 0; i < len(kv); i += 2 {
		b = append(b, 0) // RDB_TYPE_STRING
		str(kv[i])
		str(kv[i+1])
	}
	b = append(b, 0xFF)
	var crc uint64
	for _, c := range b {
		crc = redisCRC[byte(crc)^c] ^ crc>>8
	}
	return binary.LittleEndian.AppendUint64(b, crc)
}

// writeTestLog writes a log with a base (RDB or AOF commands) and an incr
// file of SET and RPUSH commands, closes it, and returns the server dir.
func writeTestLog(t *testing.T, rdbBase bool) string {
	t.Helper()
	dir := t.TempDir()
	l, err := Open(Options{Dir: dir, Fsync: Always, InitialBase: func(w io.Writer) error {
		var err error
		if rdbBase {
			_, err = w.Write(rdbStrings("base", "from-rdb"))
		} else {
			_, err = w.Write(command("SET", "base", "from-aof"))
		}
		return err
	}})
	if err != nil {
		t.Fatal(err)
	}
	l.Append(command("SET", "s", "hello world"))
	l.Append(append(command("RPUSH", "list", "a", "b"), command("RPUSH", "list", "c")...))
	l.Append(append(append(command("MULTI"), command("SET", "tx", "1")...), command("EXEC")...))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRedisCheckAofAcceptsOurFiles(t *testing.T) {
	bin, err := exec.LookPath("redis-check-aof")
	if err != nil {
		t.Skip("redis-check-aof not installed (make deps)")
	}
	for _, rdb := range []bool{false, true} {
		dir := writeTestLog(t, rdb)
		manifest := filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest")
		out, err := exec.Command(bin, manifest).CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("is valid")) {
			t.Errorf("rdb base %v: redis-check-aof: %v\n%s", rdb, err, out)
		}
	}
}

func TestRedisServerLoadsOurDirectory(t *testing.T) {
	for _, rdb := range []bool{false, true} {
		dir := writeTestLog(t, rdb)
		c := redisref.Start(t, "--appendonly", "yes", "--dir", dir)
		want := map[string]string{"base": "from-aof", "s": "hello world", "tx": "1"}
		if rdb {
			want["base"] = "from-rdb"
		}
		for k, v := range want {
			if got, err := c.Do("GET", k); err != nil || string(got) != v {
				t.Errorf("rdb base %v: GET %s = %q, %v; want %q", rdb, k, got, err, v)
			}
		}
		for i, v := range []string{"a", "b", "c"} {
			if got, err := c.Do("LINDEX", "list", strconv.Itoa(i)); err != nil || string(got) != v {
				t.Errorf("rdb base %v: LINDEX list %d = %q, %v", rdb, i, got, err)
			}
		}
	}
}

// kvModel replays the commands of these tests: SET, RPUSH, SELECT 0,
// MULTI and EXEC.
type kvModel struct {
	str  map[string]string
	list map[string][]string
	rdb  int
	txs  int // EXECs seen
}

func (m *kvModel) apply(args [][]byte) error {
	switch strings.ToUpper(string(args[0])) {
	case "SET":
		m.str[string(args[1])] = string(args[2])
	case "RPUSH":
		for _, a := range args[2:] {
			m.list[string(args[1])] = append(m.list[string(args[1])], string(a))
		}
	case "EXEC":
		m.txs++
	case "SELECT", "MULTI":
	default:
		return &LoadError{Reason: "unexpected command " + string(args[0])}
	}
	return nil
}

func TestLoadDirectoryRedisServerWrote(t *testing.T) {
	for _, preamble := range []string{"yes", "no"} {
		dir := t.TempDir()
		// always: with everysec Redis may postpone a write behind a running
		// fsync for up to two seconds and reply before it.
		c := redisref.Start(t, "--appendonly", "yes", "--appendfsync", "always", "--dir", dir, "--aof-use-rdb-preamble", preamble)
		do := func(args ...string) {
			t.Helper()
			if _, err := c.Do(args...); err != nil {
				t.Fatalf("%q: %v", args, err)
			}
		}
		do("SET", "before", "rewrite")
		do("RPUSH", "l", "x", "y")
		do("BGREWRITEAOF")
		for {
			info, err := c.Do("INFO", "persistence")
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(info, []byte("aof_rewrite_in_progress:0")) && bytes.Contains(info, []byte("aof_rewrite_scheduled:0")) {
				break
			}
		}
		do("SET", "after", "rewrite")
		do("RPUSH", "l", "z")
		execTx(t, c, []string{"SET", "in", "tx"}, []string{"RPUSH", "l", "w"})

		m := &kvModel{str: map[string]string{}, list: map[string][]string{}}
		l, err := Open(Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		var rst rdb.Stats
		st, err := l.Load(func(r io.Reader, rdbFormat bool) error {
			m.rdb++
			var err error
			rst, err = rdb.Load(r, store.New(store.Options{}), rdb.LoadOptions{})
			return err
		}, m.apply)
		l.Close()
		if err != nil {
			t.Fatalf("preamble %s: %v", preamble, err)
		}
		if preamble == "yes" {
			// The RDB base holds "before" and l's first two elements.
			if m.rdb != 1 || !st.BaseRDB || rst.Keys != 2 || rst.Aux["aof-base"] != "1" {
				t.Errorf("preamble yes: base not given to the RDB loader: %+v, %+v", st, rst)
			}
			m.str["before"] = "rewrite"
			m.list["l"] = append([]string{"x", "y"}, m.list["l"]...)
		}
		if m.str["before"] != "rewrite" || m.str["after"] != "rewrite" || m.str["in"] != "tx" ||
			strings.Join(m.list["l"], ",") != "x,y,z,w" || m.txs != 1 {
			man, _ := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
			ents, _ := os.ReadDir(filepath.Join(dir, "appendonlydir"))
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Errorf("preamble %s: loaded %v %v, %d transactions; stats %+v; manifest %q; files %q", preamble, m.str, m.list, m.txs, st, man, names)
		}
	}
}

// TestRedisReadsOurLogAfterRewrites checks a log that went through a failed
// rewrite (two incr files) and then good ones (base seq 2, history deleted)
// with redis-check-aof at each step, then starts redis-server on it.
func TestRedisReadsOurLogAfterRewrites(t *testing.T) {
	bin, err := exec.LookPath("redis-check-aof")
	if err != nil {
		t.Skip("redis-check-aof not installed (make deps)")
	}
	dir := t.TempDir()
	manifest := filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest")
	check := func(step string) {
		t.Helper()
		if out, err := exec.Command(bin, manifest).CombinedOutput(); err != nil || !bytes.Contains(out, []byte("is valid")) {
			t.Fatalf("%s: redis-check-aof: %v\n%s", step, err, out)
		}
	}
	l, err := Open(Options{Dir: dir, Fsync: Always})
	if err != nil {
		t.Fatal(err)
	}
	m := &model{kv: map[string]string{}, l: l}
	for i := range 50 {
		m.set("k"+strconv.Itoa(i), "v")
	}
	if err := m.rewrite(errors.New("failed on purpose")); err != nil {
		t.Fatal(err)
	}
	waitRewrite(l)
	for i := 50; i < 100; i++ {
		m.set("k"+strconv.Itoa(i), "v")
	}
	check("two incr files")
	for range 2 {
		if err := m.rewrite(nil); err != nil {
			t.Fatal(err)
		}
		m.set("k"+strconv.Itoa(len(m.kv)), "v")
		waitRewrite(l)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	check("after two rewrites")
	c := redisref.Start(t, "--appendonly", "yes", "--dir", dir)
	if n, err := c.Do("DBSIZE"); err != nil || string(n) != strconv.Itoa(len(m.kv)) {
		t.Fatalf("redis-server loaded %s keys (%v), want %d", n, err, len(m.kv))
	}
}
