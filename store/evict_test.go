package store

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// fillKeys sets n keys "<prefix><i>" with a 32-byte value in db 0 at now,
// with TTL ttl(i) (0 for none), and returns their names.
func fillKeys(s *Store, prefix string, n int, now int64, ttl func(i int) int64) []string {
	keys := make([]string, n)
	val := make([]byte, 32)
	for i := range keys {
		keys[i] = fmt.Sprintf("%s%d", prefix, i)
		var at int64
		if ttl != nil {
			at = ttl(i)
		}
		s.Set(0, []byte(keys[i]), val, now, SetOptions{ExpireAt: at})
	}
	return keys
}

// survivors splits keys into those still present and those gone at now.
func survivors(s *Store, keys []string, now int64) (kept, gone []string) {
	for _, k := range keys {
		if s.Exists(0, []byte(k), now) {
			kept = append(kept, k)
		} else {
			gone = append(gone, k)
		}
	}
	return kept, gone
}

// limitFreeing returns a MaxMemory that forces Evict to free about frac of
// the store's current memory.
func limitFreeing(s *Store, frac float64) int64 {
	return int64(float64(s.UsedMemory()) * (1 - frac))
}

func TestEvictUnderTheLimitDeletesNothing(t *testing.T) {
	s := New(Options{})
	keys := fillKeys(s, "k", 100, t0, nil)
	for _, p := range []Policy{NoEviction, AllKeysLRU, AllKeysRandom, VolatileLRU, VolatileRandom, VolatileTTL} {
		for _, limit := range []int64{0, s.UsedMemory(), s.UsedMemory() + 1} {
			if n, st := s.Evict(t0, EvictOptions{MaxMemory: limit, Policy: p}); n != 0 || st != OK {
				t.Errorf("%v limit %d: Evict = %d, %v; want 0, OK", p, limit, n, st)
			}
		}
	}
	if _, gone := survivors(s, keys, t0); len(gone) != 0 {
		t.Fatalf("%d keys gone", len(gone))
	}
}

func TestEvictNoEvictionRefusesAndKeepsEveryKey(t *testing.T) {
	s := New(Options{})
	keys := fillKeys(s, "k", 100, t0, nil)
	n, st := s.Evict(t0, EvictOptions{MaxMemory: s.UsedMemory() - 1, Policy: NoEviction})
	if n != 0 || st != OutOfMemory {
		t.Fatalf("Evict = %d, %v; want 0, OutOfMemory", n, st)
	}
	if _, gone := survivors(s, keys, t0); len(gone) != 0 || s.Stats().EvictedKeys != 0 {
		t.Fatalf("%d keys gone, evicted_keys %d", len(gone), s.Stats().EvictedKeys)
	}
}

// TestEvictAllKeysLRUKeepsRecentlyUsedKeys writes 1000 keys, reads 200 of
// them 100 s later, and then needs a quarter of the memory back: the
// evicted keys must all be ones not read since they were written.
func TestEvictAllKeysLRUKeepsRecentlyUsedKeys(t *testing.T) {
	s := New(Options{})
	keys := fillKeys(s, "k", 1000, t0, nil)
	later := t0 + 100_000
	hot := map[string]bool{}
	for i := 0; i < len(keys); i += 5 {
		hot[keys[i]] = true
		get(s, 0, keys[i], later)
	}
	limit := limitFreeing(s, 0.25)
	n, st := s.Evict(later, EvictOptions{MaxMemory: limit, Policy: AllKeysLRU, Budget: time.Minute})
	if st != OK || s.UsedMemory() > limit {
		t.Fatalf("Evict = %d, %v; used %d, limit %d", n, st, s.UsedMemory(), limit)
	}
	_, gone := survivors(s, keys, later)
	if len(gone) != n || n < 200 {
		t.Fatalf("evicted %d, %d keys gone", n, len(gone))
	}
	for _, k := range gone {
		if hot[k] {
			t.Errorf("evicted %s, read at the later time", k)
		}
	}
	if ev := s.Stats().EvictedKeys; ev != int64(n) {
		t.Errorf("EvictedKeys = %d, want %d", ev, n)
	}
}

// TestEvictAllKeysLRUPrefersTheOldest gives each key its own last-access
// second and checks, with 64 samples, that the evicted keys are the
// oldest ones, give or take the approximation.
func TestEvictAllKeysLRUPrefersTheOldest(t *testing.T) {
	s := New(Options{})
	keys := fillKeys(s, "k", 200, t0, nil)
	for i, k := range keys {
		get(s, 0, k, t0+int64(i)*1000) // key i last used at second i
	}
	now := t0 + 1000*1000
	n, st := s.Evict(now, EvictOptions{MaxMemory: limitFreeing(s, 0.1), Policy: AllKeysLRU, Samples: 64, Budget: time.Minute})
	if st != OK || n < 20 {
		t.Fatalf("Evict = %d, %v", n, st)
	}
	for i, k := range keys[60:] {
		if !s.Exists(0, []byte(k), now) {
			t.Errorf("evicted key %d of 200 by age (%s) while older keys remain", i+60, k)
		}
	}
}

// TestEvictVolatileTTLPicksSoonestExpiring mixes keys without TTL, keys
// expiring in a minute and keys expiring in a day: volatile-ttl must evict
// only from the first-expiring group and never a key without TTL.
func TestEvictVolatileTTLPicksSoonestExpiring(t *testing.T) {
	s := New(Options{})
	persistent := fillKeys(s, "p", 200, t0, nil)
	soon := fillKeys(s, "soon", 180, t0, func(i int) int64 { return t0 + 60_000 + int64(i) })
	late := fillKeys(s, "late", 20, t0, func(i int) int64 { return t0 + 86_400_000 + int64(i) })
	n, st := s.Evict(t0, EvictOptions{MaxMemory: limitFreeing(s, 0.08), Policy: VolatileTTL, Budget: time.Minute})
	if st != OK || n < 25 {
		t.Fatalf("Evict = %d, %v", n, st)
	}
	if _, gone := survivors(s, persistent, t0); len(gone) != 0 {
		t.Errorf("evicted keys without TTL: %v", gone)
	}
	if _, gone := survivors(s, late, t0); len(gone) != 0 {
		t.Errorf("evicted late-expiring keys: %v", gone)
	}
	if _, gone := survivors(s, soon, t0); len(gone) != n {
		t.Errorf("%d soon-expiring keys gone, evicted %d", len(gone), n)
	}
}

// TestEvictVolatileTTLOrder gives 100 keys distinct expiry times and checks
// that with 64 samples the 10% evicted are among the 30 soonest.
func TestEvictVolatileTTLOrder(t *testing.T) {
	s := New(Options{})
	keys := fillKeys(s, "k", 100, t0, func(i int) int64 { return t0 + 10_000 + int64(i)*1000 })
	n, st := s.Evict(t0, EvictOptions{MaxMemory: limitFreeing(s, 0.1), Policy: VolatileTTL, Samples: 64, Budget: time.Minute})
	if st != OK || n < 10 {
		t.Fatalf("Evict = %d, %v", n, st)
	}
	for i, k := range keys[30:] {
		if !s.Exists(0, []byte(k), t0) {
			t.Errorf("evicted the key expiring %d-th of 100", i+31)
		}
	}
}

// Volatile policies evict only keys with a TTL; with none left the store
// is out of memory.
func TestEvictVolatilePoliciesNeverTouchKeysWithoutTTL(t *testing.T) {
	for _, p := range []Policy{VolatileLRU, VolatileRandom, VolatileTTL} {
		s := New(Options{})
		persistent := fillKeys(s, "p", 100, t0, nil)
		volatile := fillKeys(s, "v", 10, t0, func(int) int64 { return t0 + 3_600_000 })
		n, st := s.Evict(t0, EvictOptions{MaxMemory: limitFreeing(s, 0.5), Policy: p, Budget: time.Minute})
		if n != len(volatile) || st != OutOfMemory {
			t.Errorf("%v: Evict = %d, %v; want %d, OutOfMemory", p, n, st, len(volatile))
		}
		if _, gone := survivors(s, persistent, t0); len(gone) != 0 {
			t.Errorf("%v: evicted keys without TTL: %v", p, gone)
		}
		if kept, _ := survivors(s, volatile, t0); len(kept) != 0 {
			t.Errorf("%v: kept keys with a TTL: %v", p, kept)
		}
	}
}

func TestEvictRandomPoliciesFreeEnough(t *testing.T) {
	for _, p := range []Policy{AllKeysRandom, AllKeysLRU, VolatileRandom, VolatileLRU} {
		s := New(Options{Databases: 4})
		for db := 0; db < 4; db++ {
			for i := 0; i < 100; i++ {
				s.Set(db, []byte(fmt.Sprint("k", i)), []byte("value"), t0, SetOptions{ExpireAt: t0 + 1_000_000})
			}
		}
		limit := limitFreeing(s, 0.5)
		n, st := s.Evict(t0, EvictOptions{MaxMemory: limit, Policy: p, Budget: time.Minute})
		if st != OK || s.UsedMemory() > limit || n < 150 {
			t.Errorf("%v: Evict = %d, %v; used %d, limit %d", p, n, st, s.UsedMemory(), limit)
		}
		st2 := s.Stats()
		keys := 0
		for _, d := range st2.DBs {
			keys += d.Keys
		}
		if keys+n != 400 || st2.EvictedKeys != int64(n) {
			t.Errorf("%v: %d keys left + %d evicted != 400 (evicted_keys %d)", p, keys, n, st2.EvictedKeys)
		}
	}
}

// Evict gives up when everything is gone and memory is still above the
// limit.
func TestEvictEverythingThenOutOfMemory(t *testing.T) {
	s := New(Options{})
	fillKeys(s, "k", 50, t0, nil)
	n, st := s.Evict(t0, EvictOptions{MaxMemory: 1, Policy: AllKeysLRU, Budget: time.Minute})
	if n != 50 || st != OK || s.UsedMemory() != 0 {
		t.Fatalf("Evict to 1 byte = %d, %v, used %d; want 50, OK, 0", n, st, s.UsedMemory())
	}
	s.Set(0, []byte("big"), make([]byte, 100), t0, SetOptions{})
	s.Set(0, []byte("big"), make([]byte, 10), t0, SetOptions{}) // in place, no TTL
	if n, st := s.Evict(t0, EvictOptions{MaxMemory: 1, Policy: VolatileTTL}); n != 0 || st != OutOfMemory {
		t.Fatalf("volatile-ttl with no TTL keys = %d, %v; want 0, OutOfMemory", n, st)
	}
}

// A budget that runs out stops Evict with OK and memory still above the
// limit, as Redis's EVICT_RUNNING; the next call carries on.
func TestEvictBudgetStopsEarlyAndResumes(t *testing.T) {
	s := New(Options{})
	fillKeys(s, "k", 500, t0, nil)
	limit := limitFreeing(s, 0.5)
	n, st := s.Evict(t0, EvictOptions{MaxMemory: limit, Policy: AllKeysRandom, Budget: time.Nanosecond})
	if st != OK || n != 16 || s.UsedMemory() <= limit {
		t.Fatalf("Evict with 1ns budget = %d, %v, used %d; want 16, OK, above %d", n, st, s.UsedMemory(), limit)
	}
	for i := 0; i < 100 && s.UsedMemory() > limit; i++ {
		s.Evict(t0, EvictOptions{MaxMemory: limit, Policy: AllKeysRandom, Budget: time.Nanosecond})
	}
	if s.UsedMemory() > limit {
		t.Fatalf("used %d still above %d", s.UsedMemory(), limit)
	}
}

// Reads and writes stamp the key's LRU clock; creation does too.
func TestAccessUpdatesLRUClock(t *testing.T) {
	s := New(Options{})
	key := []byte("k")
	s.Set(0, key, []byte("v"), t0, SetOptions{})
	lru := func() uint32 {
		sh := &s.shards[s.shardIndex(key)]
		sh.mu.Lock()
		defer sh.mu.Unlock()
		t := &sh.dbs[0]
		return recLRU(t.a.at(t.keys.find(&t.a, s.hash(key), key)))
	}
	if got := lru(); got != lruClock(t0) {
		t.Fatalf("lru after SET = %d, want %d", got, lruClock(t0))
	}
	ops := []struct {
		name string
		op   func(now int64)
	}{
		{"GET", func(now int64) { get(s, 0, "k", now) }},
		{"SET", func(now int64) { s.Set(0, key, []byte("w"), now, SetOptions{}) }},
		{"INCRBY", func(now int64) { s.Set(0, key, []byte("1"), now, SetOptions{}); s.IncrBy(0, key, now, 1) }},
	}
	for i, tt := range ops {
		now := t0 + int64(i+1)*5000
		tt.op(now)
		if got := lru(); got != lruClock(now) {
			t.Errorf("#%d %s: lru = %d, want %d", i, tt.name, got, lruClock(now))
		}
	}
	// EXISTS, TYPE and TTL look without touching (Redis's LOOKUP_NOTOUCH)
	was := lru()
	for i, op := range []func(now int64){
		func(now int64) { s.Exists(0, key, now) },
		func(now int64) { s.CountExisting(0, [][]byte{key, key}, now) },
		func(now int64) { s.TypeOf(0, key, now) },
		func(now int64) { s.ExpireAt(0, key, now) },
		func(now int64) { s.Object(0, key, now) },
	} {
		op(t0 + 100_000 + int64(i)*5000)
		if got := lru(); got != was {
			t.Errorf("no-touch lookup #%d: lru = %d, want %d", i, got, was)
		}
	}
}

var lruIdleTests = []struct {
	clock, lru uint32
	want       uint64
}{
	{10, 10, 0},
	{10, 4, 6000},
	{3, lruClockMax - 2, 5000}, // the clock wrapped
	{lruClockMax, 0, lruClockMax * 1000},
}

func TestLRUIdleHandlesClockWrap(t *testing.T) {
	for i, tt := range lruIdleTests {
		if got := lruIdle(tt.clock, tt.lru); got != tt.want {
			t.Errorf("#%d: lruIdle(%d, %d) = %d, want %d", i, tt.clock, tt.lru, got, tt.want)
		}
	}
}

var policyNameTests = []struct {
	name string
	p    Policy
	ok   bool
}{
	{"noeviction", NoEviction, true},
	{"ALLKEYS-LRU", AllKeysLRU, true},
	{"allkeys-random", AllKeysRandom, true},
	{"volatile-lru", VolatileLRU, true},
	{"Volatile-Random", VolatileRandom, true},
	{"volatile-ttl", VolatileTTL, true},
	{"allkeys-lfu", AllKeysLFU, true},
	{"Volatile-LFU", VolatileLFU, true},
	{"lru", NoEviction, false},
}

func TestParsePolicyRoundTrips(t *testing.T) {
	for i, tt := range policyNameTests {
		p, ok := ParsePolicy(tt.name)
		if p != tt.p || ok != tt.ok {
			t.Errorf("#%d: ParsePolicy(%q) = %v, %v; want %v, %v", i, tt.name, p, ok, tt.p, tt.ok)
		}
		if ok && p.String() != strings.ToLower(tt.name) {
			t.Errorf("#%d: %v.String() = %q", i, p, p.String())
		}
	}
}

// UsedMemory, read without locks, agrees with Stats at rest after every
// kind of write, growth, shrink, delete and flush.
func TestUsedMemoryMatchesStats(t *testing.T) {
	s := New(Options{})
	check := func(step string) {
		t.Helper()
		if a, b := s.UsedMemory(), s.Stats().UsedMemory; a != b {
			t.Fatalf("%s: UsedMemory %d, Stats %d", step, a, b)
		}
	}
	fillKeys(s, "k", 100, t0, nil)
	check("fill")
	s.Set(0, []byte("k1"), make([]byte, 4096), t0, SetOptions{})
	check("grow by SET")
	s.Append(0, []byte("k2"), make([]byte, 4096), t0)
	check("APPEND")
	s.SetRange(0, []byte("k3"), 10000, []byte("x"), t0)
	check("SETRANGE")
	s.Set(0, []byte("k1"), []byte("x"), t0, SetOptions{})
	check("shrink")
	s.Copy(0, []byte("k2"), 1, []byte("c"), t0, false)
	s.Rename(0, []byte("k3"), []byte("r"), t0, false)
	check("COPY, RENAME")
	s.Del(0, []byte("k4"), t0)
	check("DEL")
	s.Evict(t0, EvictOptions{MaxMemory: s.UsedMemory() / 2, Policy: AllKeysLRU})
	check("Evict")
	s.FlushAll()
	check("FLUSHALL")
	if s.UsedMemory() != 0 {
		t.Fatalf("UsedMemory %d after FLUSHALL", s.UsedMemory())
	}
}

func BenchmarkEvict(b *testing.B) {
	for _, p := range []Policy{AllKeysLRU, AllKeysRandom, VolatileTTL} {
		b.Run("policy="+p.String(), func(b *testing.B) {
			s := New(Options{})
			val := make([]byte, 32)
			for i := 0; i < 10000; i++ {
				s.Set(0, []byte(fmt.Sprint("k", i)), val, t0, SetOptions{ExpireAt: t0 + 1_000_000 + int64(i)})
			}
			limit := s.UsedMemory()
			o := EvictOptions{MaxMemory: limit, Policy: p, Budget: time.Minute}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				// one new key in, one evicted
				s.Set(0, []byte(fmt.Sprint("n", i)), val, t0, SetOptions{ExpireAt: t0 + 2_000_000})
				i++
				s.Evict(t0, o)
			}
		})
	}
}

// Loops write and evict at once (run with -race): memory ends near the
// limit, and the lock-free counter agrees with the shards' own.
func TestEvictConcurrentWithWriters(t *testing.T) {
	s := New(Options{Databases: 2})
	const limit = 64 << 10
	o := EvictOptions{MaxMemory: limit, Policy: AllKeysLRU, Budget: time.Minute}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			val := make([]byte, 64)
			for i := 0; i < 2000; i++ {
				if _, st := s.Evict(t0+int64(i), o); st != OK {
					t.Errorf("Evict = %v", st)
					return
				}
				key := []byte(fmt.Sprintf("g%d-%d", g, i))
				s.Set(g%2, key, val, t0+int64(i), SetOptions{ExpireAt: t0 + 1_000_000})
				get(s, g%2, string(key), t0+int64(i))
			}
		}(g)
	}
	wg.Wait()
	st := s.Stats()
	if s.UsedMemory() != st.UsedMemory || st.UsedMemory > limit+4*256 {
		t.Fatalf("used %d (Stats %d), limit %d", s.UsedMemory(), st.UsedMemory, limit)
	}
	if keys := st.DBs[0].Keys + st.DBs[1].Keys; int64(keys)+st.EvictedKeys != 8000 {
		t.Fatalf("%d keys + %d evicted != 8000", keys, st.EvictedKeys)
	}
}
