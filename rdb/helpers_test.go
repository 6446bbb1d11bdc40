package rdb

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/loopkv/loopkv/store"
)

// redisServer is a redis-server 7 started by startRedis on a unix socket.
type redisServer struct {
	dir, file string
	c         *redis.Client
}

// startRedis runs redis-server with dir and dbfilename (loading the file
// when it exists) and extra config arguments, until the test ends.
func startRedis(t *testing.T, dir, file string, extra ...string) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed (make deps)")
	}
	sock := filepath.Join(dir, "redis.sock")
	logFile := filepath.Join(dir, "redis.log")
	args := append([]string{"--port", "0", "--unixsocket", sock, "--save", "", "--appendonly", "no",
		"--dir", dir, "--dbfilename", file, "--logfile", logFile,
		"--hash-max-listpack-entries", "128"}, extra...) // the store's default (Debian's build says 512)
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	c := redis.NewClient(&redis.Options{Network: "unix", Addr: sock, Protocol: 2, PoolSize: 1})
	t.Cleanup(func() { c.Close() })
	for i := 0; ; i++ {
		select {
		case <-exited:
			log, _ := os.ReadFile(logFile)
			t.Fatalf("redis-server exited:\n%s", log)
		default:
		}
		if c.Ping(context.Background()).Err() == nil {
			return &redisServer{dir: dir, file: file, c: c}
		}
		if i == 500 {
			t.Fatal("redis-server did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// keyDump is one key as both sides show it.
type keyDump struct {
	Type  string
	Enc   string
	Items []string // string: its value; list: elements; set: sorted members; hash: sorted f=v; zset: m=score by rank
	TTL   bool     // has a TTL
	At    int64    // the TTL's Unix ms (store) or PTTL (redis), compared loosely
}

// storeDump reads every key of db from s.
func storeDump(t testing.TB, s *store.Store, db int) map[string]keyDump {
	t.Helper()
	now := time.Now().UnixMilli()
	var keys []string
	for cur := uint64(0); ; {
		cur = s.Scan(db, cur, now, store.ScanOptions{Count: 1000}, func(k []byte) { keys = append(keys, string(k)) })
		if cur == 0 {
			break
		}
	}
	out := map[string]keyDump{}
	for _, k := range keys {
		kb := []byte(k)
		info, ok := s.Object(db, kb, now)
		if !ok {
			continue
		}
		d := keyDump{Type: info.Type.String(), Enc: info.Encoding.String()}
		if at := s.ExpireAt(db, kb, now); at > 0 {
			d.TTL, d.At = true, at-now
		}
		app := func(dst, v []byte) []byte { d.Items = append(d.Items, string(v)); return dst }
		switch info.Type {
		case store.TypeString:
			s.Get(db, kb, now, nil, app)
		case store.TypeList:
			s.LRange(db, kb, 0, -1, now, nil, func(b []byte, _ int) []byte { return b }, app)
		case store.TypeSet:
			scanAll(func(c uint64) uint64 {
				c, _ = s.SScan(db, kb, c, now, store.ScanOptions{Count: 1000}, func(m []byte) { d.Items = append(d.Items, string(m)) })
				return c
			})
			slices.Sort(d.Items)
		case store.TypeHash:
			scanAll(func(c uint64) uint64 {
				c, _ = s.HScan(db, kb, c, now, store.ScanOptions{Count: 1000}, func(f, v []byte) { d.Items = append(d.Items, string(f)+"="+string(v)) })
				return c
			})
			slices.Sort(d.Items)
		case store.TypeZSet:
			var ms []zm
			scanAll(func(c uint64) uint64 {
				c, _ = s.ZScan(db, kb, c, now, store.ScanOptions{Count: 1000}, func(m, sc []byte) {
					f, _ := strconv.ParseFloat(string(sc), 64)
					ms = append(ms, zm{string(m), f})
				})
				return c
			})
			d.Items = zItems(ms)
		case store.TypeStream: // stream_fuzz_test.go
			d.Items = streamItems(s, db, kb, now)
		}
		out[k] = d
	}
	return out
}

type zm struct {
	m string
	s float64
}

// zItems orders members by score then member, as ZRANGE does.
func zItems(ms []zm) []string {
	slices.SortFunc(ms, func(a, b zm) int {
		if a.s != b.s {
			if a.s < b.s {
				return -1
			}
			return 1
		}
		return cmpStr(a.m, b.m)
	})
	var out []string
	for _, x := range ms {
		out = append(out, x.m+"="+string(store.AppendScore(nil, x.s)))
	}
	return out
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func scanAll(step func(cursor uint64) uint64) {
	for c := step(0); c != 0; c = step(c) {
	}
}

// redisDump reads every key of the selected db 0 (or db) from redis.
func redisDump(t *testing.T, c *redis.Client, db int) map[string]keyDump {
	t.Helper()
	ctx := context.Background()
	if db != 0 {
		cc := *c.Options()
		cc.DB = db
		c = redis.NewClient(&cc)
		defer c.Close()
	}
	keys, err := c.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]keyDump{}
	for _, k := range keys {
		typ := c.Type(ctx, k).Val()
		d := keyDump{Type: typ, Enc: c.ObjectEncoding(ctx, k).Val()}
		if p := c.PTTL(ctx, k).Val(); p > 0 {
			d.TTL, d.At = true, p.Milliseconds()
		}
		switch typ {
		case "string":
			d.Items = []string{c.Get(ctx, k).Val()}
		case "list":
			d.Items = c.LRange(ctx, k, 0, -1).Val()
		case "set":
			d.Items = c.SMembers(ctx, k).Val()
			slices.Sort(d.Items)
		case "hash":
			for f, v := range c.HGetAll(ctx, k).Val() {
				d.Items = append(d.Items, f+"="+v)
			}
			slices.Sort(d.Items)
		case "zset":
			var ms []zm
			for _, z := range c.ZRangeWithScores(ctx, k, 0, -1).Val() {
				ms = append(ms, zm{z.Member.(string), z.Score})
			}
			d.Items = zItems(ms)
		}
		out[k] = d
	}
	return out
}

// compareDumps checks that both sides hold the same keys, types, contents
// and TTLs (within a minute), and encodings except where loopkv follows
// Redis 7.2 on purpose (listpack sets, which 7.0 keeps as hash tables).
func compareDumps(t *testing.T, ours, theirs map[string]keyDump) {
	t.Helper()
	if len(ours) != len(theirs) {
		t.Errorf("store has %d keys, redis %d", len(ours), len(theirs))
	}
	for k, a := range ours {
		b, ok := theirs[k]
		if !ok {
			t.Errorf("key %q missing in redis", k)
			continue
		}
		encOK := a.Enc == b.Enc || a.Type == "set" && a.Enc == "listpack" && b.Enc == "hashtable" ||
			a.Type == "string" && (a.Enc == "raw" || a.Enc == "embstr") && (b.Enc == "raw" || b.Enc == "embstr")
		if a.Type != b.Type || !encOK || a.TTL != b.TTL || !slices.Equal(a.Items, b.Items) {
			t.Errorf("key %q: store %s/%s ttl=%v %s; redis %s/%s ttl=%v %s", k, a.Type, a.Enc, a.TTL,
				short(a.Items), b.Type, b.Enc, b.TTL, short(b.Items))
			continue
		}
		if a.TTL && (a.At-b.At > 60000 || b.At-a.At > 60000) {
			t.Errorf("key %q: TTL store %d ms, redis %d ms", k, a.At, b.At)
		}
	}
}

func short(items []string) string {
	s := fmt.Sprintf("%q", items)
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
