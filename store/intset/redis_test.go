package intset

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/loopkv/loopkv/internal/redisref"
)

// dumpIntset returns the intset in DUMP key, which must be an intset set.
func dumpIntset(t *testing.T, c *redisref.Conn, key string) []byte {
	t.Helper()
	typ, body, err := c.Dump(key)
	if err != nil {
		t.Fatal(err)
	}
	if typ != redisref.TypeSetIntset {
		t.Fatalf("DUMP %s: RDB type %d, want %d", key, typ, redisref.TypeSetIntset)
	}
	is, rest, err := redisref.ReadString(body)
	if err != nil || len(rest) != 0 {
		t.Fatalf("DUMP %s: %v, %d bytes left over", key, err, len(rest))
	}
	if err := Validate(is); err != nil {
		t.Fatalf("Validate refuses Redis's intset: %v\n%x", err, is)
	}
	return is
}

// TestIntsetMatchesRedis replays a seeded random sequence of SADD and SREM
// of values at every width's limits on redis-server and on an intset, and
// compares the bytes after each command, upgrades included.
func TestIntsetMatchesRedis(t *testing.T) {
	c := redisref.Start(t, "--rdbcompression", "no", "--set-max-intset-entries", "1000")
	pool := []int64{0, 1, -1, 7, 100, math.MaxInt16, math.MinInt16, math.MaxInt16 + 1, math.MinInt16 - 1,
		math.MaxInt32, math.MinInt32, math.MaxInt32 + 1, math.MinInt32 - 1, math.MaxInt64, math.MinInt64}
	seed := uint64(20261201)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	pick := func() int64 {
		if rng.IntN(2) == 0 {
			return pool[rng.IntN(len(pool))]
		}
		return pool[rng.IntN(len(pool))]/int64(1+rng.IntN(1000)) + int64(rng.IntN(50))
	}
	is := New(nil)
	for step := 0; step < 300; step++ {
		v := pick()
		var cmd string
		if Len(is) == 0 || rng.IntN(3) > 0 {
			cmd = "SADD"
			is, _ = Add(is, v)
		} else {
			cmd = "SREM"
			if rng.IntN(2) == 0 {
				v = Get(is, rng.IntN(Len(is)))
			}
			is, _ = Remove(is, v)
		}
		if _, err := c.Do(cmd, "s", strconv.FormatInt(v, 10)); err != nil {
			t.Fatal(err)
		}
		if Len(is) == 0 {
			is = New(is) // Redis deleted the key; the next SADD starts at width 2
			continue
		}
		if got := dumpIntset(t, c, "s"); !bytes.Equal(is, got) {
			t.Fatalf("%d: %s %d: intset differs from Redis's\nours  %x\nredis %x", step, cmd, v, is, got)
		}
	}
}

// TestValidateAgreesWithRedis restores intsets, intact and with one to
// three bytes damaged at random (fixed seed), into redis-server with deep
// payload sanitization: Redis must accept exactly those Validate accepts.
func TestValidateAgreesWithRedis(t *testing.T) {
	c := redisref.Start(t, "--enable-debug-command", "yes", "--set-max-intset-entries", "1000")
	if err := c.SkipChecksums(); err != nil {
		t.Fatal(err)
	}
	var bases [][]byte
	for _, vals := range [][]int64{{1, 2, 3}, {-300, 0, 300, 32767}, {-70000, 5, 1 << 20}, {math.MinInt64, -1, 1 << 40}} {
		is := New(nil)
		for _, v := range vals {
			is, _ = Add(is, v)
		}
		bases = append(bases, is)
	}
	seed := uint64(20261201)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	accepted := 0
	for i := 0; i < 2000; i++ {
		is := append([]byte(nil), bases[i%len(bases)]...)
		for n := 1 + rng.IntN(3); n > 0 && i >= len(bases); n-- {
			j := rng.IntN(len(is))
			if rng.IntN(2) == 0 {
				is[j] = []byte{0, 1, 2, 4, 8, 0x7F, 0x80, 0xFF}[rng.IntN(8)]
			} else {
				is[j] ^= 1 << rng.IntN(8)
			}
		}
		redisErr := c.Restore("k", redisref.TypeSetIntset, redisref.AppendString(nil, is))
		ours := Validate(is)
		if ours == nil && Len(is) == 0 {
			ours = errEmptyForTest // Redis refuses an empty set; Validate leaves that to the loader
		}
		if (redisErr == nil) != (ours == nil) {
			t.Fatalf("#%d: Redis says %v, we say %v\n%x", i, redisErr, ours, is)
		}
		if redisErr == nil && i >= len(bases) {
			accepted++
		}
	}
	t.Logf("%d of %d damaged intsets valid", accepted, 2000-len(bases))
}

var errEmptyForTest = &CorruptError{4, "empty"}
