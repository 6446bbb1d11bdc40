package server

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// diffDirective runs "#enc K" (compare redis's OBJECT ENCODING K with the
// encoding of K in our store, through setEnc72 for a set; "#enc K enc"
// expects enc where a Redis 7.2 set rule gives another encoding than
// redis-server 7.0's) and "#config name value" (CONFIG SET on
// redis; the same store.Limits field here) for runDiff.
func diffDirective(t *testing.T, ref *redisRef, ours *ourServer, name string, i int, f []string) {
	t.Helper()
	switch f[0] {
	case "#enc":
		want := string(ref.do(t, []string{"OBJECT", "ENCODING", f[1]}))
		if len(f) == 3 { // "#enc K enc": a Redis 7.2 rule 7.0 lacks (sets)
			want = fmt.Sprintf("$%d\r\n%s\r\n", len(f[2]), f[2])
		} else {
			want = setEnc72(t, ref, ours.s.store.Limits(), f[1], want)
		}
		got := "$-1\r\n"
		if ours.cl.proto >= 3 {
			got = "_\r\n"
		}
		if info, ok := ours.s.store.Object(ours.cl.db, []byte(f[1]), time.Now().UnixMilli()); ok {
			got = fmt.Sprintf("$%d\r\n%s\r\n", len(info.Encoding.String()), info.Encoding)
		}
		if got != want {
			t.Errorf("%s #%d: OBJECT ENCODING %s: got %q, want %q", name, i, f[1], got, want)
		}
	case "#config":
		if reply := ref.do(t, []string{"CONFIG", "SET", f[1], f[2]}); string(reply) != "+OK\r\n" {
			t.Fatalf("%s #%d: CONFIG SET %s %s: %q", name, i, f[1], f[2], reply)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			t.Fatal(err)
		}
		if f[1] == "proto-max-bulk-len" { // bit offsets and LCS (cmd_bitmap_diff_test.go)
			ours.s.cfg.protoMaxBulk.Store(int64(n))
			return
		}
		l := ours.s.store.Limits()
		switch f[1] {
		case "hash-max-listpack-entries":
			l.HashMaxListpackEntries = n
		case "hash-max-listpack-value":
			l.HashMaxListpackValue = n
		case "zset-max-listpack-entries":
			l.ZSetMaxListpackEntries = n
		case "zset-max-listpack-value":
			l.ZSetMaxListpackValue = n
		case "hll-sparse-max-bytes":
			l.HLLSparseMaxBytes = n
		case "stream-node-max-entries":
			l.StreamNodeMaxEntries = n
		case "stream-node-max-bytes":
			l.StreamNodeMaxBytes = n
		default:
			t.Fatalf("#config %s: unknown setting", f[1])
		}
		ours.s.store.SetLimits(l)
	}
}

// hashFill returns "HSET key f0 v0 f1 v1 ..." with n fields, fields named
// prefix+i and values of vlen bytes.
func hashFill(key, prefix string, from, n, vlen int) string {
	var b strings.Builder
	b.WriteString("HSET " + key)
	for i := from; i < from+n; i++ {
		v := strconv.Itoa(i)
		v += strings.Repeat("x", max(0, vlen-len(v)))
		fmt.Fprintf(&b, " %s%d %s", prefix, i, v)
	}
	return b.String()
}

// hashFields returns "prefix<from> prefix<from+1> ..." for n fields.
func hashFields(prefix string, from, n int) string {
	var f []string
	for i := from; i < from+n; i++ {
		f = append(f, prefix+strconv.Itoa(i))
	}
	return strings.Join(f, " ")
}

var long64, long65 = strings.Repeat("a", 64), strings.Repeat("b", 65)

var hashDiffCases = []diffCase{
	{"hset-hget-basic", []string{
		"HSET h f v", "HGET h f", "HGET h missing", "HGET missing f", "HSET h f w g x", "HGET h f", "HGET h g",
		"HLEN h", "HLEN missing", "HSET h f", "HSET h f v g", "HSET h", "HMSET h a 1 b 2", "HMSET h a", "HMSET h a 1 b",
		"HGETALL h", "HKEYS h", "HVALS h", "TYPE h", "OBJECT ENCODING h", "HSET h 1 2 -3 -4 9223372036854775807 9223372036854775808",
		"HGETALL h", "HGET h 1", "HGET h -3", "HGET h 9223372036854775807", "HSET h \"\" \"\"", "HGET h \"\"", "HSTRLEN h \"\"",
		"HSET h \"a\\x00b\" \"\\r\\n\"", "HGET h \"a\\x00b\"", "HGETALL h", "OBJECT ENCODING h",
	}},
	{"hsetnx", []string{
		"HSETNX h f v", "HSETNX h f w", "HGET h f", "HSETNX h g " + long65, "OBJECT ENCODING h", "HSETNX h2 a 1",
		"HSETNX h2 a " + long65, "OBJECT ENCODING h2", "HSETNX h2 " + long65 + " 1", "OBJECT ENCODING h2", "HSETNX h2 a", "HSETNX h2 a b c",
	}},
	{"hmget-hdel-hexists", []string{
		"HSET h a 1 b 2 c 3", "HMGET h a b missing c", "HMGET missing a b", "HMGET h", "HDEL h a missing a", "HEXISTS h a",
		"HEXISTS h b", "HEXISTS missing a", "HDEL h b c", "EXISTS h", "HDEL h b", "HDEL missing x", "HDEL h",
		"HSET h a 1", "HDEL h x a y", "EXISTS h", "HEXISTS h", "HEXISTS h a b",
	}},
	{"hstrlen", []string{
		"HSET h a hello b 12345 c -1 d \"\" e 9223372036854775807 f -9223372036854775808 g 007", "HSTRLEN h a", "HSTRLEN h b",
		"HSTRLEN h c", "HSTRLEN h d", "HSTRLEN h e", "HSTRLEN h f", "HSTRLEN h g", "HSTRLEN h missing", "HSTRLEN missing a",
		"HSTRLEN h", "HSTRLEN h a b",
	}},
	{"hincrby", []string{
		"HINCRBY h f 1", "HINCRBY h f 10", "HINCRBY h f -100", "HGET h f", "HINCRBY h f abc", "HINCRBY h f 1.5",
		"HINCRBY h f \"\"", "HINCRBY h f 9223372036854775808", "HSET h s abc", "HINCRBY h s 1", "HSET h n 9223372036854775807",
		"HINCRBY h n 1", "HINCRBY h n 0", "HINCRBY h n -1", "HSET h m -9223372036854775808", "HINCRBY h m -1", "HINCRBY h m 1",
		"HSET h z \" 1\"", "HINCRBY h z 1", "HSET h y 1.0", "HINCRBY h y 1", "HSET h x 01", "HINCRBY h x 1", "HINCRBY new f -5",
		"HGETALL new", "HINCRBY h", "HINCRBY h f 1 2", "HINCRBY h " + long65 + " 1", "OBJECT ENCODING h", "HINCRBY h2 " + long64 + " 1", "OBJECT ENCODING h2",
		"HSET h3 a 1", "HINCRBY h3 a 99999999999", "HGET h3 a", "HINCRBY h3 a 1", "HGETALL h3", "OBJECT ENCODING h3",
		"HSET h4 big " + strings.Repeat("9", 19), "HINCRBY h4 big 1", "HSET h4 neg -42", "HINCRBY h4 neg 42", "HGETALL h4",
	}},
	{"hincrbyfloat", []string{
		"HINCRBYFLOAT h f 10.5", "HINCRBYFLOAT h f 0.1", "HINCRBYFLOAT h f -5", "HSET h e 5.0e3", "HINCRBYFLOAT h e 2.0e2",
		"HGET h e", "HINCRBYFLOAT h f abc", "HINCRBYFLOAT h f \"\"", "HINCRBYFLOAT h f inf", "HINCRBYFLOAT h f -inf",
		"HINCRBYFLOAT h f nan", "HINCRBYFLOAT h f 1e400", "HSET h s abc", "HINCRBYFLOAT h s 1", "HSET h i inf",
		"HINCRBYFLOAT h i 1", "HSET h j 1e308", "HINCRBYFLOAT h j 1e308", "HINCRBYFLOAT h j 1e4932", "HINCRBYFLOAT h k 1e4931",
		"HINCRBYFLOAT h k 1e4931", "HINCRBYFLOAT h k 9e4931", "HSET h n 7", "HINCRBYFLOAT h n 0.5", "HINCRBY h n 1",
		"HINCRBYFLOAT h m 0.1", "HINCRBYFLOAT h m 0.2", "HINCRBYFLOAT h z -0", "HINCRBYFLOAT h q 3.0000000000000000001",
		"HINCRBYFLOAT h r 1e-20", "HINCRBYFLOAT h t 0x10", "HINCRBYFLOAT h t \" 1\"", "S HGETALL h", "OBJECT ENCODING h",
		"HINCRBYFLOAT h2 f 1e70", "OBJECT ENCODING h2", "HGET h2 f", "HINCRBYFLOAT h2", "HINCRBYFLOAT h2 f 1 2",
	}},
	{"wrong-type", []string{
		"SET s v", "HSET s f v", "HSETNX s f v", "HMSET s f v", "HGET s f", "HMGET s f g", "HDEL s f", "HEXISTS s f",
		"HLEN s", "HSTRLEN s f", "HKEYS s", "HVALS s", "HGETALL s", "HINCRBY s f 1", "HINCRBY s f x", "HINCRBYFLOAT s f 1",
		"HINCRBYFLOAT s f x", "HINCRBYFLOAT s f inf", "HRANDFIELD s", "HRANDFIELD s 1", "HRANDFIELD s -1 WITHVALUES",
		"HSCAN s 0", "HSCAN s 0 COUNT 0", "HSCAN s x", "HSET h f v", "GET h", "INCR h", "APPEND h x", "STRLEN h", "GETRANGE h 0 1",
		"SET h v XX GET", "TYPE h", "SET h v", "TYPE h", "GET h",
	}},
	{"wrong-arity", []string{
		"HSET", "HSET h", "HSETNX h f", "HMSET h", "HGET h", "HGET h f g", "HMGET h", "HDEL h", "HEXISTS h", "HLEN",
		"HLEN h x", "HSTRLEN h", "HKEYS", "HKEYS h x", "HVALS", "HGETALL", "HGETALL h x", "HINCRBY h f", "HINCRBYFLOAT h f",
		"HRANDFIELD", "HSCAN h", "HSCAN",
	}},
	{"listpack-entries-boundary", []string{
		hashFill("h", "f", 0, 128, 4), "OBJECT ENCODING h", "HLEN h", "HGETALL h", "HSET h f0 new", "OBJECT ENCODING h", hashFill("h", "f", 128, 1, 4),
		"OBJECT ENCODING h", "HLEN h", "S HGETALL h", "HDEL h f0 f1 f2", "OBJECT ENCODING h", "HLEN h", "HGET h f100",
		hashFill("g", "f", 0, 127, 4), "HSET g a 1 b 2", "OBJECT ENCODING g", "HLEN g", hashFill("e", "f", 0, 129, 1), "OBJECT ENCODING e",
	}},
	{"listpack-value-boundary", []string{
		"HSET h f " + long64, "OBJECT ENCODING h", "HSET h " + long64 + " v", "OBJECT ENCODING h", "HSET h f " + long65, "OBJECT ENCODING h", "HGET h f",
		"HDEL h f " + long64, "OBJECT ENCODING h", "HSET k " + long65 + " v", "OBJECT ENCODING k", "HSET m a 1 b " + long65 + " c 3", "OBJECT ENCODING m",
		"S HGETALL m", "HMSET n a 1", "HMSET n b " + long65, "OBJECT ENCODING n", "HSET p a 1", "HINCRBYFLOAT p b 1e70", "OBJECT ENCODING p",
	}},
	{"listpack-order-and-updates", []string{
		"HSET h c 3 a 1 b 2", "HGETALL h", "HSET h a 10 d 4", "HGETALL h", "HDEL h c", "HGETALL h", "HSET h c 5", "HKEYS h",
		"HVALS h", "HSET h a " + strings.Repeat("z", 60), "HGETALL h", "HSET h a 1", "HGETALL h", "HINCRBY h b 5", "HGETALL h",
		"HINCRBY h b 1000000", "HGETALL h", "HINCRBY h b -99999999999999", "HGETALL h", "HINCRBYFLOAT h d 0.5", "HGETALL h",
	}},
	{"hashtable-ops", []string{
		hashFill("h", "f", 0, 200, 8), "OBJECT ENCODING h", "HLEN h", "HGET h f150", "HGET h f1000", "HMGET h f1 f2 nope",
		"HSET h f1 changed f2 " + long65, "HGET h f1", "HGET h f2", "HSTRLEN h f2", "HEXISTS h f199", "HINCRBY h cnt 5",
		"HINCRBY h cnt 5", "HINCRBYFLOAT h fl 1.5", "HINCRBY h f3 1", "HDEL h f0 f1 nope", "HLEN h", "S HKEYS h", "S HVALS h",
		"S HGETALL h", "HSETNX h f5 x", "HSETNX h f500 x", "HLEN h", "OBJECT ENCODING h",
	}},
	{"hashtable-never-converts-back", []string{
		hashFill("h", "f", 0, 130, 2), "OBJECT ENCODING h", "HDEL h " + hashFields("f", 2, 128), "HLEN h",
		"OBJECT ENCODING h", "S HGETALL h", "HDEL h f0 f1", "EXISTS h", "HSET h a " + long65, "HDEL h a", "EXISTS h",
	}},
	{"config-thresholds", []string{
		"CONFIG SET hash-max-listpack-entries 2", "HSET h a 1 b 2", "OBJECT ENCODING h", "HSET h c 3", "OBJECT ENCODING h",
		"CONFIG SET hash-max-listpack-entries 0", "HSET z a b", "OBJECT ENCODING z", "HINCRBY y a 1", "OBJECT ENCODING y",
		"CONFIG SET hash-max-listpack-entries 128", "CONFIG SET hash-max-listpack-value 3", "HSET k abcd 1", "OBJECT ENCODING k",
		"CONFIG SET hash-max-listpack-value 64", "HSET j abcdef 1", "CONFIG SET hash-max-listpack-value 3", "HINCRBY j abcdef 1",
		"OBJECT ENCODING j", "CONFIG SET hash-max-listpack-value 64", "HSET q a 1", "CONFIG SET hash-max-listpack-value 3",
		"HINCRBYFLOAT q a 1.5", "OBJECT ENCODING q", "HINCRBYFLOAT q a 1000", "OBJECT ENCODING q", "HSETNX q2 a 1", "HSETNX q2 a 12345", "OBJECT ENCODING q2",
		"CONFIG SET hash-max-listpack-value 64",
	}},
	{"resp3", []string{
		"#proto 3", "HSET h a 1 b 2", "HGETALL h", "HGETALL missing", "HKEYS missing", "HVALS h", "HGET h missing",
		"HMGET h a missing", "HRANDFIELD missing", "HRANDFIELD missing 3", "HRANDFIELD missing 3 WITHVALUES",
		"HRANDFIELD h 5 WITHVALUES", "HRANDFIELD h 5", "HRANDFIELD h 0 WITHVALUES", "HRANDFIELD h 2 WITHVALUES",
		"HSCAN h 0", "HSCAN missing 0", "HINCRBYFLOAT h c 1.5", hashFill("big", "f", 0, 150, 3), "S HGETALL big",
		"HLEN big", "HSCAN missing 0 COUNT 0",
	}},
	{"hrandfield-deterministic", []string{
		"HRANDFIELD missing", "HRANDFIELD missing 0", "HRANDFIELD missing -5", "HSET h a 1 b 2 c 3", "HRANDFIELD h 3",
		"HRANDFIELD h 10", "HRANDFIELD h 10 WITHVALUES", "HRANDFIELD h 3 withvalues", "HRANDFIELD h 0", "HRANDFIELD h 0 WITHVALUES",
		"HRANDFIELD h 9223372036854775807", "HRANDFIELD h -9223372036854775808", "HRANDFIELD h -9223372036854775808 WITHVALUES",
		"HRANDFIELD h 9223372036854775807 WITHVALUES", "HRANDFIELD h -9223372036854775807 WITHVALUES",
		"HRANDFIELD h 4611686018427387903 WITHVALUES", "HRANDFIELD h 4611686018427387904 WITHVALUES",
		"HRANDFIELD h -4611686018427387904 WITHVALUES", "HRANDFIELD h 1 WITHVALUES x", "HRANDFIELD h 1 foo",
		"HRANDFIELD missing 1 foo", "HRANDFIELD h 1.5", "HRANDFIELD h abc", "HRANDFIELD h abc foo", "HRANDFIELD missing abc",
		"HSET one only 1", "HRANDFIELD one", "HRANDFIELD one -3", "HRANDFIELD one -2 WITHVALUES", "HRANDFIELD one 1 WITHVALUES",
		hashFill("big", "f", 0, 140, 1), "S HRANDFIELD big 140", "S HRANDFIELD big 1000 WITHVALUES",
	}},
	{"hscan", []string{
		"HSET h a 1 b 2 c 3 aa 4", "HSCAN h 0", "HSCAN h 0 MATCH a*", "HSCAN h 0 MATCH * COUNT 1", "HSCAN h 5",
		"HSCAN h 0 COUNT 0", "HSCAN h 0 COUNT -1", "HSCAN h 0 COUNT abc", "HSCAN h 0 MATCH", "HSCAN h 0 TYPE string",
		"HSCAN h 0 FOO bar", "HSCAN h abc", "HSCAN h -1", "HSCAN h 18446744073709551616", "HSCAN missing 0",
		"HSCAN missing 0 COUNT 0", "HSCAN missing abc", "HSCAN missing 0 FOO", "HSCAN h 0 match [ab]", "HSCAN h 0 MATCH nomatch",
	}},
	{"expiry", []string{
		"HSET h a 1", "EXPIRE h 1000", "TTL h", "HSET h b 2", "TTL h", "HDEL h a", "TTL h", "HINCRBY h c 1", "TTL h",
		"PEXPIREAT h 1", "HGET h b", "EXISTS h", "HSET h a 1", "PEXPIREAT h 1", "HSET h b 2", "HGETALL h", "TTL h",
		"HSET t a 1", "PEXPIREAT t 1", "HLEN t", "HSET u a 1", "PEXPIREAT u 1", "HINCRBY u a 1", "HGETALL u",
	}},
	{"keyspace-with-hashes", []string{
		"HSET h a 1 b 2", "RENAME h g", "HGETALL g", "COPY g c", "HGETALL c", "OBJECT ENCODING c", hashFill("big", "f", 0, 150, 2),
		"COPY big big2", "HLEN big2", "OBJECT ENCODING big2", "S HGETALL big2", "DEL big", "HLEN big2", "COPY g g DB 1", "#db 1", "HGETALL g",
		"#db 0", "DEL g", "EXISTS g", "S SCAN 0 TYPE hash COUNT 1000", "S KEYS *", "DEL big2 c", "DBSIZE",
	}},
}

// TestHashCommandsMatchRedis sets redis's hash-max-listpack-entries to 128
// first: redis.conf (and our default) says 128, but redis-server without a
// config file starts with its compiled-in 512.
func TestHashCommandsMatchRedis(t *testing.T) {
	cases := append([]diffCase(nil), hashDiffCases...)
	cases[0].cmds = append([]string{"CONFIG SET hash-max-listpack-entries 128"}, cases[0].cmds...)
	runDiff(t, cases)
}

// hashRandCase is a HRANDFIELD whose reply is random: both servers must
// give the same shape, fields of the hash, distinct ones for a positive
// count, and values that are the fields' own.
type hashRandCase struct {
	fields     int // the hash has fields f0 ... f(n-1) with values v0 ...
	count      int
	withValues bool
}

var hashRandCases = []hashRandCase{
	{5, 3, false}, {5, 3, true}, {5, -10, false}, {5, -10, true}, {5, 1, false}, {5, 1, true}, {5, -1, true},
	{100, 50, true}, {100, 99, false}, {200, 150, true}, {200, 20, false}, {200, 5, true}, {200, -300, true},
	{200, 199, false}, {1000, 10, true}, {1000, -5, false}, {300, 1, true},
}

func TestHashRandFieldShapesMatchRedis(t *testing.T) {
	ref := startDiffRedis(t)
	ref.do(t, []string{"CONFIG", "SET", "hash-max-listpack-entries", "128"})
	ours := newOurServer()
	for _, proto := range []string{"2", "3"} {
		ref.do(t, []string{"HELLO", proto})
		ours.cl.proto, _ = strconv.Atoi(proto)
		for i, c := range hashRandCases {
			args := diffSplit(t, hashFill("h", "f", 0, c.fields, 0))
			ref.do(t, []string{"DEL", "h"})
			ours.do(t, []string{"DEL", "h"})
			ref.do(t, args)
			ours.do(t, args)
			cmd := []string{"HRANDFIELD", "h", strconv.Itoa(c.count)}
			if c.withValues {
				cmd = append(cmd, "WITHVALUES")
			}
			want, got := ref.do(t, cmd), ours.do(t, cmd)
			ws, gs := randShape(t, want, c), randShape(t, got, c)
			if ws != gs {
				t.Errorf("RESP%s #%d %v: got shape %s, want %s\n  got  %.200q\n  want %.200q", proto, i, cmd, gs, ws, got, want)
			}
		}
	}
}

// randShape checks a HRANDFIELD reply's entries against the hash that
// hashFill(…, 0) builds and returns its shape: the headers of the reply and
// of its first entry, and whether entries repeat.
func randShape(t *testing.T, raw []byte, c hashRandCase) string {
	nd, rest := diffParseNode(raw)
	if len(rest) != 0 {
		return "trailing bytes"
	}
	var fields []string
	shape := nd.head
	for i := 0; i < len(nd.kids); i++ {
		k := nd.kids[i]
		var f, v string
		switch {
		case k.head == "*2": // RESP3 WITHVALUES: [field, value]
			f, v = k.kids[0].body, k.kids[1].body
		case c.withValues:
			f, v = k.body, nd.kids[i+1].body
			i++
		default:
			f = k.body
		}
		if c.withValues && strings.TrimPrefix(f, "f") != strings.TrimRight(v, "x") {
			return fmt.Sprintf("field %q with value %q", f, v)
		}
		if n, err := strconv.Atoi(strings.TrimPrefix(f, "f")); err != nil || n >= c.fields || !strings.HasPrefix(f, "f") {
			return fmt.Sprintf("unknown field %q", f)
		}
		if i == 0 && k.head == "*2" {
			shape += " pairs"
		}
		fields = append(fields, f)
	}
	seen := map[string]bool{}
	dup := false
	for _, f := range fields {
		dup = dup || seen[f]
		seen[f] = true
	}
	if c.count > 0 && dup {
		return "repeats for a positive count"
	}
	return fmt.Sprintf("%s entries=%d", shape, len(fields))
}

// TestHashScanReturnsEveryFieldOnce iterates big hashes with HSCAN on both
// servers to the end and compares the fields and values seen.
func TestHashScanMatchesRedis(t *testing.T) {
	ref := startDiffRedis(t)
	ref.do(t, []string{"CONFIG", "SET", "hash-max-listpack-entries", "128"})
	ours := newOurServer()
	for _, n := range []int{10, 129, 1000} {
		for _, opts := range [][]string{nil, {"COUNT", "7"}, {"MATCH", "f1*"}, {"MATCH", "f1*", "COUNT", "100"}} {
			args := diffSplit(t, hashFill("h", "f", 0, n, 3))
			for _, s := range []interface {
				do(*testing.T, []string) []byte
			}{ref, ours} {
				s.do(t, []string{"DEL", "h"})
				s.do(t, args)
			}
			want, got := hscanAll(t, ref.do, opts), hscanAll(t, ours.do, opts)
			if got != want {
				t.Errorf("n=%d HSCAN %v: got %.300s\nwant %.300s", n, opts, got, want)
			}
		}
	}
}

// hscanAll runs HSCAN h to the end and returns the sorted field=value
// pairs seen (a field seen twice counts once, as SCAN allows).
func hscanAll(t *testing.T, do func(*testing.T, []string) []byte, opts []string) string {
	seen := map[string]bool{}
	cursor := "0"
	for calls := 0; ; calls++ {
		if calls > 10000 {
			t.Fatal("HSCAN does not finish")
		}
		nd, _ := diffParseNode(do(t, append([]string{"HSCAN", "h", cursor}, opts...)))
		if len(nd.kids) != 2 {
			t.Fatalf("HSCAN reply %+v", nd)
		}
		for i := 0; i+1 < len(nd.kids[1].kids); i += 2 {
			seen[nd.kids[1].kids[i].body+"="+nd.kids[1].kids[i+1].body] = true
		}
		if cursor = nd.kids[0].body; cursor == "0" {
			break
		}
	}
	var all []string
	for k := range seen {
		all = append(all, k)
	}
	return fmt.Sprint(len(all), " ", strings.Join(sortStrings(all), " "))
}

func sortStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// TestHashRandFieldHugeCountsAreBounded: counts whose reply cannot fit the
// output buffer limit close the client without building the reply, and a
// reply that passes it is cut, not grown without bound.
func TestHashRandFieldHugeCountsAreBounded(t *testing.T) {
	ours := newOurServer()
	ours.do(t, []string{"HSET", "h", "a", "1", "b", "2"})
	for _, args := range [][]string{
		{"HRANDFIELD", "h", "-9223372036854775807"},
		{"HRANDFIELD", "h", "-4611686018427387903", "WITHVALUES"},
		{"HRANDFIELD", "h", "-100000000"},
	} {
		ours.cl.quit = false
		out := ours.do(t, args)
		if !ours.cl.quit || len(out) != 0 {
			t.Errorf("%v: quit %v, %d bytes of reply; want a close and no reply", args, ours.cl.quit, len(out))
		}
	}
	// a count that passes the precheck but not the byte budget: long fields
	ours.cl.quit = false
	long := strings.Repeat("x", 1000)
	ours.do(t, []string{"HSET", "g", long, long})
	ours.s.cfg.outBufLimit.Store(1 << 20)
	out := ours.do(t, []string{"HRANDFIELD", "g", "-100000"})
	if !ours.cl.quit || len(out) != 0 {
		t.Errorf("HRANDFIELD g -100000 past a 1 MiB limit: quit %v, %d bytes", ours.cl.quit, len(out))
	}
	// past randChunk: drawn in chunks, one header, every entry
	ours.cl.quit = false
	for _, proto := range []int{2, 3} {
		ours.cl.proto = proto
		nd, rest := diffParseNode(ours.do(t, []string{"HRANDFIELD", "h", "-10000", "WITHVALUES"}))
		want := map[int]int{2: 20000, 3: 10000}[proto]
		if ours.cl.quit || len(rest) != 0 || len(nd.kids) != want || nd.head != "*"+strconv.Itoa(want) {
			t.Errorf("RESP%d HRANDFIELD h -10000 WITHVALUES: header %s, %d elements, want %d", proto, nd.head, len(nd.kids), want)
		}
	}
	ours.cl.proto = 2
	ours.cl.quit = false
	out = ours.do(t, []string{"HRANDFIELD", "g", "-100"})
	if ours.cl.quit || !bytes.HasPrefix(out, []byte("*100\r\n")) {
		t.Errorf("HRANDFIELD g -100 within the limit: quit %v, reply %.40q", ours.cl.quit, out)
	}
}

// TestHashRandomOpsMatchRedis sends one seeded random sequence of hash and
// string commands to redis-server and to us and compares every reply
// (HGETALL, HKEYS and HVALS as multisets) and each key's OBJECT ENCODING,
// around both thresholds: up to 140 fields, values of 60 to 70 bytes.
func TestHashRandomOpsMatchRedis(t *testing.T) {
	runDiff(t, []diffCase{
		{"random-ops-seed-12", append([]string{"CONFIG SET hash-max-listpack-entries 128"}, hashRandomLines(12)...)},
		{"random-ops-seed-13-resp3", append([]string{"#proto 3"}, hashRandomLines(13)...)},
	})
}

// hashRandomLines are TestHashRandomOpsMatchRedis's commands for seed.
func hashRandomLines(seed uint64) []string {
	rnd := rand.New(rand.NewPCG(seed, seed))
	field := func() string { return "f" + strconv.Itoa(rnd.IntN(132)) }
	value := func() string {
		switch rnd.IntN(8) {
		case 0, 1:
			return strconv.Itoa(rnd.IntN(2000) - 1000)
		case 2:
			if rnd.IntN(300) == 0 { // rare, so that hashes also reach 128 fields as listpacks
				return strings.Repeat("v", 60+rnd.IntN(11))
			}
			return strings.Repeat("w", 60+rnd.IntN(5))
		case 3:
			return "1.5"
		}
		return "x" + strconv.Itoa(rnd.IntN(100))
	}
	keys := []string{"a", "b"}
	var lines []string
	for i := 0; i < 2000; i++ {
		k := keys[rnd.IntN(len(keys))]
		var line string
		switch rnd.IntN(16) {
		case 0, 1, 2, 14, 15:
			line = "HSET " + k
			for n := 1 + rnd.IntN(16); n > 0; n-- {
				line += " " + field() + " " + value()
			}
		case 3:
			line = "HSETNX " + k + " " + field() + " " + value()
		case 4:
			line = "HDEL " + k + " " + field() + " " + field()
		case 6:
			line = "HGET " + k + " " + field()
		case 7:
			line = "HINCRBY " + k + " " + field() + " " + strconv.Itoa(rnd.IntN(100)-50)
		case 8:
			line = "HINCRBYFLOAT " + k + " " + field() + " 0.25"
		case 9:
			line = "HMGET " + k + " " + field() + " " + field()
		case 10:
			line = "S HGETALL " + k
		case 5, 11:
			line = []string{"HLEN ", "S HKEYS ", "S HVALS ", "OBJECT ENCODING ", "OBJECT ENCODING "}[rnd.IntN(5)] + k
		case 12:
			line = "HSTRLEN " + k + " " + field()
		case 13:
			if rnd.IntN(10) == 0 { // now and then a fresh start, or a string
				line = []string{"SET ", "DEL "}[rnd.IntN(2)] + k + []string{" str", ""}[rnd.IntN(2)]
			} else {
				line = []string{"HEXISTS " + k + " f1", "TYPE " + k}[rnd.IntN(2)]
			}
		}
		lines = append(lines, line)
		if strings.HasPrefix(line, "H") && !strings.HasPrefix(line, "HGET") && !strings.HasPrefix(line, "HM") {
			lines = append(lines, "OBJECT ENCODING "+k) // after every write
		}
	}
	return lines
}
