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

// rawListpack builds a listpack from entries given as encoding+data, adding
// each backlen and the header, so that tests can write encodings Redis
// would not choose (a string "12", an integer in a wider encoding).
func rawListpack(entries ...[]byte) []byte {
	lp := New(nil)
	for _, e := range entries {
		lp = splice(lp, End(lp), 0, len(e)+backlenSize(len(e)))
		off := len(lp) - 1 - len(e) - backlenSize(len(e))
		copy(lp[off:], e)
		putBacklen(lp[off+len(e):], len(e))
		addCount(lp, 1)
	}
	return lp
}

// damage changes one to three bytes of lp, mostly in its entries.
func damage(rng *rand.Rand, lp []byte) {
	interesting := []byte{0x00, 0x01, 0x3F, 0x7F, 0x80, 0x81, 0xBF, 0xC0, 0xDF, 0xE0, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xFE, 0xFF}
	for n := 1 + rng.IntN(3); n > 0; n-- {
		i := rng.IntN(len(lp))
		if i < HeaderSize && rng.IntN(5) > 0 {
			i = HeaderSize + rng.IntN(len(lp)-HeaderSize)
		}
		if rng.IntN(2) == 0 {
			lp[i] = interesting[rng.IntN(len(interesting))]
		} else {
			lp[i] ^= 1 << rng.IntN(8)
		}
	}
}

// TestValidateAgreesWithRedis restores listpacks, intact and damaged at
// random (fixed seed), into redis-server with deep payload sanitization, as
// a list (its verdict must equal Validate's) and as a hash (ValidatePairs').
func TestValidateAgreesWithRedis(t *testing.T) {
	c := redisref.Start(t, "--enable-debug-command", "yes", "--hash-max-listpack-entries", "1000",
		"--hash-max-listpack-value", "10000", "--list-max-listpack-size", "-5")
	if err := c.SkipChecksums(); err != nil {
		t.Fatal(err)
	}
	vs := sampleValues()
	bases := [][]byte{
		build("f", "v", "12", "-5", "long", strings.Repeat("z", 130)),
		build(vs[:24]...),
		build(vs[24:30]...),
		rawListpack([]byte{0x82, '1', '2'}, []byte{0x01}, []byte{0x0C}, []byte{0x02}), // "12" as a string and 12: one field
		rawListpack([]byte{0xF4, 5, 0, 0, 0, 0, 0, 0, 0}, []byte{0x81, 'x'}),          // 5 in 64 bits
		build("a", "1", "a", "2"),           // repeated field
		build("a", "1", "b"),                // odd
		build("-0", "0", "0", "-0"),         // different fields
		build(vs[len(vs)-1], "x", "y", "z"), // 32-bit string length
	}
	seed := uint64(20261201)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	accepted := 0
	for i := 0; i < 3000; i++ {
		lp := append([]byte(nil), bases[i%len(bases)]...)
		if i >= len(bases) {
			damage(rng, lp)
		}
		list := redisref.AppendString(redisref.AppendLen(redisref.AppendLen(nil, 1), 2), lp)
		for _, kind := range []struct {
			typ      byte
			body     []byte
			validate func([]byte) error
		}{
			{redisref.TypeListQuicklist, list, Validate},
			{redisref.TypeHashListpack, redisref.AppendString(nil, lp), ValidatePairs},
		} {
			redisErr := c.Restore("k", kind.typ, kind.body)
			ours := kind.validate(lp)
			if redisErr == nil && kind.typ == redisref.TypeListQuicklist && i >= len(bases) {
				accepted++
			}
			if (redisErr == nil) == (ours == nil) {
				continue
			}
			t.Fatalf("#%d type %d: Redis says %v, we say %v\n%x", i, kind.typ, redisErr, ours, lp)
		}
	}
	t.Logf("%d of %d damaged listpacks valid as lists", accepted, 3000-len(bases))
}
