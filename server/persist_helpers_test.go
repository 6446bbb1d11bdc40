package server

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A dataset of every type in both of its encodings, with TTLs, in two
// databases, and a full comparison of two servers' contents.

// persistDataset returns the commands that build the dataset; ttlAt is the
// absolute expiry (Unix ms) the keys with a TTL get.
func persistDataset(ttlAt int64) [][]string {
	at := strconv.FormatInt(ttlAt, 10)
	many := func(cmd, key string, n int, f func(i int) []string) []string {
		a := []string{cmd, key}
		for i := range n {
			a = append(a, f(i)...)
		}
		return a
	}
	big := strings.Repeat("abcdefgh", 200) // LZF compresses it
	// loopkv's defaults are redis.conf's: Redis 7.0's built-in hash limit is 512
	cmds := [][]string{{"CONFIG", "SET", "hash-max-listpack-entries", "128"}}
	for _, db := range []string{"0", "3"} {
		cmds = append(cmds, [][]string{
			{"SELECT", db},
			{"SET", "str:int", "12345"}, {"SET", "str:neg", "-9223372036854775808"}, {"SET", "str:emb", "short value"},
			{"SET", "str:raw", strings.Repeat("r", 60)}, {"SET", "str:big", big}, {"SET", "str:empty", ""},
			{"SET", "bin\x00key\r\n", "v\x00\xff"}, {"SET", "str:ttl", "t", "PXAT", at},
			{"RPUSH", "list:small", "a", "1", "", "-7", big[:30]},
			many("RPUSH", "list:big", 300, func(i int) []string { return []string{"e" + strconv.Itoa(i) + big[:i%40]} }),
			{"RPUSH", "list:ttl", "x", "y"}, {"PEXPIREAT", "list:ttl", at},
			{"SADD", "set:int", "1", "-5", "300", "70000", "4294967296"},
			{"SADD", "set:str", "a", "b", "c"},
			many("SADD", "set:bigint", 600, func(i int) []string { return []string{strconv.Itoa(i * 7)} }),
			many("SADD", "set:big", 200, func(i int) []string { return []string{"m" + strconv.Itoa(i)} }),
			{"ZADD", "zset:small", "1", "a", "-2.5", "b", "3e10", "c", "inf", "d"},
			many("ZADD", "zset:big", 200, func(i int) []string { return []string{strconv.Itoa(i) + ".25", "z" + strconv.Itoa(i)} }),
			{"ZADD", "zset:ttl", "1", "a"}, {"PEXPIREAT", "zset:ttl", at},
			{"HSET", "hash:small", "f1", "v1", "f2", "2", "f3", ""},
			many("HSET", "hash:big", 200, func(i int) []string { return []string{"f" + strconv.Itoa(i), "v" + strconv.Itoa(i)} }),
			{"HSET", "hash:longval", "f", big},
			{"HSET", "hash:ttl", "a", "b"}, {"PEXPIREAT", "hash:ttl", at},
			many("PFADD", "hll:sparse", 50, func(i int) []string { return []string{"p" + strconv.Itoa(i)} }),
			many("PFADD", "hll:dense", 3000, func(i int) []string { return []string{"p" + strconv.Itoa(i)} }),
			{"PFCOUNT", "hll:dense"},
		}...)
	}
	return append(cmds, []string{"SELECT", "0"})
}

// fill runs cmds on c, pipelined, and fails on an error reply.
func fill(t *testing.T, c *rawConn, cmds [][]string) {
	t.Helper()
	var b strings.Builder
	for _, a := range cmds {
		b.WriteString(multibulk(a...))
	}
	c.send(b.String())
	for _, a := range cmds {
		if r := c.reply(); strings.HasPrefix(r, "-") {
			t.Fatalf("%q: %q", a[:min(len(a), 3)], r)
		}
	}
}

// bulks parses a RESP2 array of bulk strings (or a map in RESP3 shape).
func bulks(t *testing.T, raw string) []string {
	t.Helper()
	if raw == "" || raw[0] != '*' && raw[0] != '%' && raw[0] != '~' {
		t.Fatalf("not an array: %q", raw)
	}
	i := strings.Index(raw, "\r\n")
	n, _ := strconv.Atoi(raw[1:i])
	if raw[0] == '%' {
		n *= 2
	}
	raw = raw[i+2:]
	out := make([]string, 0, n)
	for range n {
		j := strings.Index(raw, "\r\n")
		switch raw[0] {
		case '$':
			l, _ := strconv.Atoi(raw[1:j])
			out = append(out, raw[j+2:j+2+l])
			raw = raw[j+2+l+2:]
		default: // a double or an integer
			out = append(out, raw[1:j])
			raw = raw[j+2:]
		}
	}
	return out
}

// contents is every key of every database of c, with its type, encoding,
// absolute expiry and value (set and hash members sorted).
func contents(t *testing.T, c *rawConn) map[string]string {
	t.Helper()
	c.do("HELLO", "2")
	out := map[string]string{}
	for db := 0; db < 16; db++ {
		c.do("SELECT", strconv.Itoa(db))
		for _, k := range bulks(t, c.do("KEYS", "*")) {
			typ := strings.TrimSpace(c.do("TYPE", k)[1:])
			var val string
			switch typ {
			case "string":
				val = c.do("GET", k)
			case "list":
				val = c.do("LRANGE", k, "0", "-1")
			case "set":
				m := bulks(t, c.do("SMEMBERS", k))
				sort.Strings(m)
				val = strings.Join(m, ",")
			case "zset":
				val = c.do("ZRANGE", k, "0", "-1", "WITHSCORES")
			case "hash":
				m := bulks(t, c.do("HGETALL", k))
				var pairs []string
				for i := 0; i+1 < len(m); i += 2 {
					pairs = append(pairs, m[i]+"="+m[i+1])
				}
				sort.Strings(pairs)
				val = strings.Join(pairs, ",")
			case "stream": // persist_stream_test.go
				val = c.do("XRANGE", k, "-", "+") + c.do("XINFO", "STREAM", k, "FULL", "COUNT", "0")
			}
			enc := strings.TrimSpace(c.do("OBJECT", "ENCODING", k))
			if typ == "set" && enc == "$8\r\nlistpack" {
				enc = "$9\r\nhashtable" // Redis 7.0 has no listpack sets: it loads them as hash tables
			}
			out[fmt.Sprintf("%d/%q", db, k)] = fmt.Sprintf("%s %s ttl=%s %q", typ, enc, strings.TrimSpace(c.do("PEXPIRETIME", k)), val)
		}
	}
	c.do("SELECT", "0")
	return out
}

// sameContents fails unless got and want hold the same keys and values.
func sameContents(t *testing.T, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d keys, want %d", len(got), len(want))
	}
	n := 0
	for k, w := range want {
		if g, ok := got[k]; g != w && n < 10 {
			n++
			t.Errorf("%s: got %.200s (present %v)\n  want %.200s", k, g, ok, w)
		}
	}
}

// waitFile waits until path exists.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s not written", path)
}

// copyFile copies src to dir/name.
func copyFile(t *testing.T, src, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, name)
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}
