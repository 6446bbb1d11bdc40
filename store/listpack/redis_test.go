package listpack

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/loopkv/loopkv/internal/redisref"
)

// startRedis runs redis-server 7 with listpacks allowed to hold the test's
// largest values, and without LZF, so that DUMP shows each listpack as
// Redis holds it.
func startRedis(t *testing.T) *redisref.Conn {
	return redisref.Start(t, "--rdbcompression", "no",
		"--hash-max-listpack-entries", "1000", "--hash-max-listpack-value", "10000",
		"--zset-max-listpack-entries", "1000", "--zset-max-listpack-value", "10000",
		"--list-max-listpack-size", "-5")
}

func do(t *testing.T, c *redisref.Conn, args ...string) []byte {
	t.Helper()
	r, err := c.Do(args...)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return r
}

// dumpListpack returns the listpack in DUMP key, which must have RDB type
// typ: the one string of a listpack hash or sorted set, or the one packed
// node of a quicklist.
func dumpListpack(t *testing.T, c *redisref.Conn, key string, typ byte) []byte {
	t.Helper()
	gotTyp, body, err := c.Dump(key)
	if err != nil {
		t.Fatal(err)
	}
	if gotTyp != typ {
		t.Fatalf("DUMP %s: RDB type %d, want %d", key, gotTyp, typ)
	}
	if typ == redisref.TypeListQuicklist {
		var nodes, container uint64
		if nodes, body, err = redisref.ReadLen(body); err == nil && nodes != 1 {
			t.Fatalf("DUMP %s: %d quicklist nodes, want 1", key, nodes)
		}
		if container, body, err = redisref.ReadLen(body); err == nil && container != 2 {
			t.Fatalf("DUMP %s: container %d, want 2 (packed)", key, container)
		}
	}
	lp, rest, err := redisref.ReadString(body)
	if err != nil || len(rest) != 0 {
		t.Fatalf("DUMP %s: %v, %d bytes left over", key, err, len(rest))
	}
	if err := Validate(lp); err != nil {
		t.Fatalf("Validate refuses Redis's listpack for %s: %v\n%x", key, err, lp)
	}
	return lp
}

// compareListpack fails when ours differs from Redis's bytes.
func compareListpack(t *testing.T, what string, ours, redis []byte) {
	t.Helper()
	if !bytes.Equal(ours, redis) {
		t.Fatalf("%s: listpack differs from Redis's\nours  %x\nredis %x", what, ours, redis)
	}
}

// sampleValues holds every integer width at its limits, strings that look
// almost like integers, and strings at the length-encoding limits.
func sampleValues() []string {
	var vs []string
	for _, tt := range intEncodingTests {
		vs = append(vs, strconv.FormatInt(tt.v, 10))
	}
	vs = append(vs, "", "-0", "012", "+1", " 1", "1.5", "9223372036854775808", "-9223372036854775809",
		"bin\x00\xff\r\n", strings.Repeat("a", 63), strings.Repeat("b", 64), strings.Repeat("c", 125),
		strings.Repeat("d", 126), strings.Repeat("e", 4095), strings.Repeat("f", 4096))
	return vs
}

// TestHashListpackMatchesRedis: HSET of field/value pairs in one command
// gives the listpack AppendString builds from the same pairs.
func TestHashListpackMatchesRedis(t *testing.T) {
	c := startRedis(t)
	vs := sampleValues()
	args := []string{"HSET", "h"}
	var ours []byte = New(nil)
	for i, v := range vs {
		f := "f" + strconv.Itoa(i)
		if i%3 == 0 {
			f = strconv.Itoa(i * 1000) // integer fields too
		}
		args = append(args, f, v)
		ours = AppendString(AppendString(ours, []byte(f)), []byte(v))
	}
	do(t, c, args...)
	compareListpack(t, "HSET", ours, dumpListpack(t, c, "h", redisref.TypeHashListpack))

	// Overwrite values in place (Replace) and delete fields (Delete).
	for i := 0; i < len(vs); i += 4 {
		f := args[2+2*i]
		nv := vs[(i*7+3)%len(vs)]
		do(t, c, "HSET", "h", f, nv)
		off := Find(ours, First(ours), []byte(f), 1)
		ours = Replace(ours, Next(ours, off), []byte(nv))
	}
	compareListpack(t, "HSET over existing fields", ours, dumpListpack(t, c, "h", redisref.TypeHashListpack))
	for i := 1; i < len(vs); i += 5 {
		f := args[2+2*i]
		do(t, c, "HDEL", "h", f)
		ours = Delete(ours, Find(ours, First(ours), []byte(f), 1), 2)
	}
	compareListpack(t, "HDEL", ours, dumpListpack(t, c, "h", redisref.TypeHashListpack))
}

// TestZsetListpackMatchesRedis: a small sorted set is member/score pairs in
// score order, integral scores stored as integers.
func TestZsetListpackMatchesRedis(t *testing.T) {
	c := startRedis(t)
	do(t, c, "ZADD", "z", "1", "a", "2", "b", "3.5", "c", "-10", "d", "100000", "e", "-0.25", "f")
	ours := build("d", "-10", "f", "-0.25", "a", "1", "b", "2", "c", "3.5", "e", "100000")
	compareListpack(t, "ZADD", ours, dumpListpack(t, c, "z", redisref.TypeZsetListpack))
}

// TestListListpackMatchesRedis replays a seeded random sequence of list
// commands on redis-server and on a listpack, comparing the bytes after
// each one: LPUSH/RPUSH (Insert at the front, append), LINSERT (Find, then
// Insert), LSET (Seek, Replace), LREM and LTRIM (Delete).
func TestListListpackMatchesRedis(t *testing.T) {
	c := startRedis(t)
	vs := sampleValues()[:30] // the longest strings would make a second quicklist node
	seed := uint64(20261201)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	pick := func() string { return vs[rng.IntN(len(vs))] }
	var ours []byte = New(nil)
	for step := 0; step < 300; step++ {
		n := Len(ours)
		var cmd []string
		switch op := rng.IntN(7); {
		case n == 0 || op == 0:
			v := pick()
			cmd = []string{"RPUSH", "l", v}
			ours = AppendString(ours, []byte(v))
		case op == 1:
			v := pick()
			cmd = []string{"LPUSH", "l", v}
			ours = Insert(ours, First(ours), []byte(v))
		case op == 2:
			pivot, v := string(Value(ours, Seek(ours, rng.IntN(n)), nil)), pick()
			off := Find(ours, First(ours), []byte(pivot), 0)
			if rng.IntN(2) == 0 {
				cmd = []string{"LINSERT", "l", "BEFORE", pivot, v}
			} else {
				cmd = []string{"LINSERT", "l", "AFTER", pivot, v}
				if off = Next(ours, off); off < 0 {
					off = End(ours)
				}
			}
			ours = Insert(ours, off, []byte(v))
		case op == 3:
			i, v := rng.IntN(2*n)-n, pick()
			cmd = []string{"LSET", "l", strconv.Itoa(i), v}
			ours = Replace(ours, Seek(ours, i), []byte(v))
		case op == 4:
			v := string(Value(ours, Seek(ours, rng.IntN(n)), nil))
			cmd = []string{"LREM", "l", "1", v}
			ours = Delete(ours, Find(ours, First(ours), []byte(v), 0), 1)
		case op == 5 && n > 20:
			start, k := rng.IntN(3), 1+rng.IntN(3) // keep [start, n-k]
			cmd = []string{"LTRIM", "l", strconv.Itoa(start), strconv.Itoa(-k)}
			if k > 1 {
				ours = Delete(ours, Seek(ours, n-k+1), k-1)
			}
			ours = Delete(ours, First(ours), start)
		default:
			v := pick()
			cmd = []string{"RPUSH", "l", v}
			ours = AppendString(ours, []byte(v))
		}
		do(t, c, cmd...)
		if Len(ours) == 0 {
			continue // Redis deleted the key
		}
		compareListpack(t, strconv.Itoa(step)+": "+strings.Join(cmd[:min(len(cmd), 4)], " "), ours,
			dumpListpack(t, c, "l", redisref.TypeListQuicklist))
	}
}
