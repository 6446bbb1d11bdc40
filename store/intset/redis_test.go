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
