package server

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

func init() {
	engineSuite = append(engineSuite, struct {
		name string
		fn   func(*testing.T)
	}{"GoRedisHashes", TestGoRedisHashes})
}

// TestGoRedisHashes drives every hash command through go-redis, in RESP2
// and RESP3, over plaintext and TLS, on a small (listpack) hash and one of
// 300 fields (a hash table), and checks the decoded replies.
func TestGoRedisHashes(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{})
	for _, tr := range []string{"plain", "tls"} {
		for _, proto := range []int{2, 3} {
			o := redis.Options{Addr: s.Addr(), Protocol: proto}
			if tr == "tls" {
				o.Addr, o.TLSConfig = s.TLSAddr(), p.clientConfig()
			}
			t.Run(fmt.Sprintf("%s/RESP%d", tr, proto), func(t *testing.T) {
				c := newGoRedis(t, o)
				key := fmt.Sprintf("%s%d", tr, proto)
				goRedisHashChecks(t, c, key+":small", 3)
				goRedisHashChecks(t, c, key+":big", 300)
			})
		}
	}
}

func goRedisHashChecks(t *testing.T, c *redis.Client, key string, n int) {
	t.Helper()
	ctx := context.Background()
	want := map[string]string{}
	var fv []any
	for i := 0; i < n; i++ {
		f, v := fmt.Sprint("f", i), strings.Repeat("v", i%70)
		want[f] = v
		fv = append(fv, f, v)
	}
	if added, err := c.HSet(ctx, key, fv...).Result(); err != nil || added != int64(n) {
		t.Fatalf("HSET %s: %d, %v; want %d", key, added, err, n)
	}
	all, err := c.HGetAll(ctx, key).Result()
	if err != nil || fmt.Sprint(all) != fmt.Sprint(want) {
		t.Fatalf("HGETALL %s: %d fields, %v", key, len(all), err)
	}
	if v, err := c.HGet(ctx, key, "f2").Result(); err != nil || v != want["f2"] {
		t.Errorf("HGET f2 = %q, %v", v, err)
	}
	if err := c.HGet(ctx, key, "nope").Err(); err != redis.Nil {
		t.Errorf("HGET of a missing field: %v, want redis.Nil", err)
	}
	vals, err := c.HMGet(ctx, key, "f1", "nope", "f0").Result()
	if err != nil || len(vals) != 3 || vals[0] != want["f1"] || vals[1] != nil || vals[2] != want["f0"] {
		t.Errorf("HMGET = %#v, %v", vals, err)
	}
	keys, err := c.HKeys(ctx, key).Result()
	sort.Strings(keys)
	if err != nil || len(keys) != n || keys[0] != "f0" {
		t.Errorf("HKEYS: %d keys, %v", len(keys), err)
	}
	if vs, err := c.HVals(ctx, key).Result(); err != nil || len(vs) != n {
		t.Errorf("HVALS: %d values, %v", len(vs), err)
	}
	if l, err := c.HLen(ctx, key).Result(); err != nil || l != int64(n) {
		t.Errorf("HLEN = %d, %v", l, err)
	}
	if ok, err := c.HExists(ctx, key, "f1").Result(); err != nil || !ok {
		t.Errorf("HEXISTS f1 = %v, %v", ok, err)
	}
	if l, err := c.HStrLen(ctx, key, "f2").Result(); err != nil || l != 2 {
		t.Errorf("HSTRLEN f2 = %d, %v", l, err)
	}
	if ok, err := c.HSetNX(ctx, key, "f1", "x").Result(); err != nil || ok {
		t.Errorf("HSETNX of an existing field = %v, %v", ok, err)
	}
	if v, err := c.HIncrBy(ctx, key, "counter", -7).Result(); err != nil || v != -7 {
		t.Errorf("HINCRBY = %d, %v", v, err)
	}
	if v, err := c.HIncrByFloat(ctx, key, "counter", 2.5).Result(); err != nil || v != -4.5 {
		t.Errorf("HINCRBYFLOAT = %v, %v", v, err)
	}
	if err := c.HIncrBy(ctx, key, "f2", 1).Err(); err == nil || err.Error() != "ERR hash value is not an integer" {
		t.Errorf("HINCRBY of a string: %v", err)
	}
	fields, err := c.HRandField(ctx, key, 2).Result()
	if err != nil || len(fields) != 2 || fields[0] == fields[1] {
		t.Errorf("HRANDFIELD 2 = %q, %v", fields, err)
	}
	pairs, err := c.HRandFieldWithValues(ctx, key, -5).Result()
	if err != nil || len(pairs) != 5 {
		t.Errorf("HRANDFIELD -5 WITHVALUES: %d pairs, %v", len(pairs), err)
	}
	for _, kv := range pairs {
		if w, ok := want[kv.Key]; kv.Key != "counter" && (!ok || w != kv.Value) {
			t.Errorf("HRANDFIELD pair %q=%q is not in the hash", kv.Key, kv.Value)
		}
	}
	seen := map[string]bool{}
	it := c.HScan(ctx, key, 0, "f1*", 10).Iterator()
	for i := 0; it.Next(ctx); i++ {
		if i%2 == 0 {
			seen[it.Val()] = true
		}
	}
	wantScan := 0
	for f := range want {
		if strings.HasPrefix(f, "f1") {
			wantScan++
		}
	}
	if err := it.Err(); err != nil || len(seen) != wantScan {
		t.Errorf("HSCAN MATCH f1*: %d fields, want %d, %v", len(seen), wantScan, err)
	}
	if d, err := c.HDel(ctx, key, "f0", "nope").Result(); err != nil || d != 1 {
		t.Errorf("HDEL = %d, %v", d, err)
	}
	if err := c.Get(ctx, key).Err(); err == nil || !strings.HasPrefix(err.Error(), "WRONGTYPE") {
		t.Errorf("GET of a hash: %v, want WRONGTYPE", err)
	}
	if typ, err := c.Type(ctx, key).Result(); err != nil || typ != "hash" {
		t.Errorf("TYPE = %q, %v", typ, err)
	}
	if err := c.Del(ctx, key).Err(); err != nil {
		t.Errorf("DEL: %v", err)
	}
}

func init() {
	engineSuite = append(engineSuite, struct {
		name string
		fn   func(*testing.T)
	}{"RedisCLIHashesMatchRedis", TestRedisCLIHashesMatchRedis})
}

// redisCLIHashCommands are run by redis-cli, one invocation each, against
// redis-server and against us over plaintext and TLS; redis-cli's output
// (its rendering of RESP2 and RESP3 replies) must be the same.
var redisCLIHashCommands = [][]string{
	{"hset", "h", "a", "1", "b", "two", "c", "3.5"},
	{"hgetall", "h"},
	{"-3", "hgetall", "h"},
	{"hmget", "h", "a", "nope", "b"},
	{"-3", "hmget", "h", "a", "nope"},
	{"hkeys", "h"},
	{"hvals", "h"},
	{"hincrby", "h", "a", "41"},
	{"hincrbyfloat", "h", "c", "0.25"},
	{"hincrby", "h", "b", "1"},
	{"hrandfield", "h", "5", "withvalues"},
	{"-3", "hrandfield", "h", "5", "withvalues"},
	{"hscan", "h", "0"},
	{"-3", "hscan", "h", "0", "match", "[ab]"},
	{"hlen", "h"},
	{"hstrlen", "h", "b"},
	{"hexists", "h", "z"},
	{"hdel", "h", "a", "b", "c"},
	{"exists", "h"},
	{"hset", "h"},
	{"set", "s", "x"},
	{"hget", "s", "f"},
}

func TestRedisCLIHashesMatchRedis(t *testing.T) {
	cli := needTool(t, "redis-cli")
	ref := startDiffRedis(t)
	ref.do(t, []string{"CONFIG", "SET", "hash-max-listpack-entries", "128"})
	refPort := strconv.Itoa(ref.conn.RemoteAddr().(*net.TCPAddr).Port)
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{})
	targets := map[string][]string{
		"plain": {"-p", strconv.Itoa(s.opts.Port)},
		"tls":   {"--tls", "--cacert", p.caFile, "-p", strconv.Itoa(s.opts.TLS.Port)},
	}
	for _, name := range []string{"plain", "tls"} {
		// each target works in its own database of both servers
		run := func(conn []string, args []string) string {
			out, err := exec.Command(cli, append(append(conn, "-n", map[string]string{"plain": "1", "tls": "2"}[name], "--no-raw"), args...)...).CombinedOutput()
			if err != nil {
				t.Fatalf("redis-cli %q: %v: %s", args, err, out)
			}
			return string(out)
		}
		for i, args := range redisCLIHashCommands {
			want, got := run([]string{"-p", refPort}, args), run(targets[name], args)
			if got != want {
				t.Errorf("%s #%d %q:\n got  %q\n want %q", name, i, args, got, want)
			}
		}
	}
}
