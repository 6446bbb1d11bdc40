package store

import (
	"testing"
	"time"
)

// TestLFUCounterCountsEveryAccessAtLogFactorZero: with lfu-log-factor 0
// every access raises the counter by one, from LFUInitVal for a new key,
// up to 255; OBJECT's view of it (Object) does not count as an access.
func TestLFUCounterCountsEveryAccessAtLogFactorZero(t *testing.T) {
	s := New(Options{})
	s.SetLFU(true, 0, 1)
	set(s, 0, "k", "v", t0)
	for i := 0; i < 300; i++ {
		info, ok := s.Object(0, []byte("k"), t0)
		want := min(LFUInitVal+i, 255)
		if !ok || int(info.Freq) != want {
			t.Fatalf("after %d GETs: Object = %+v, %v; want Freq %d", i, info, ok, want)
		}
		get(s, 0, "k", t0)
	}
}

// TestLFUCounterGrowsLogarithmically: at the default log factor (10) the
// counter after n accesses stays near Redis's published table (100 hits:
// ~10, 1,000: ~18, 10,000: ~50 less decay-free noise); the bounds are wide
// enough for the random increments and tight enough to fail a linear or
// a stuck counter.
func TestLFUCounterGrowsLogarithmically(t *testing.T) {
	s := New(Options{})
	s.SetLFU(true, DefaultLFULogFactor, 1)
	set(s, 0, "k", "v", t0)
	hits := 0
	for _, c := range []struct{ hits, lo, hi int }{{100, 7, 14}, {1000, 14, 24}, {10000, 35, 70}} {
		for ; hits < c.hits; hits++ {
			get(s, 0, "k", t0)
		}
		info, _ := s.Object(0, []byte("k"), t0)
		if int(info.Freq) < c.lo || int(info.Freq) > c.hi {
			t.Errorf("after %d GETs Freq = %d, want %d..%d", c.hits, info.Freq, c.lo, c.hi)
		}
	}
}

// TestLFUCounterDecays: the counter loses one per lfu-decay-time minutes
// since it was last bumped, read without being stored (Object twice gives
// the same answer), never below 0, not at all with decay time 0, and across
// the 16-bit minute clock's wrap.
func TestLFUCounterDecays(t *testing.T) {
	s := New(Options{})
	s.SetLFU(true, 0, 2)
	set(s, 0, "k", "v", t0)
	if !s.SetFreq(0, []byte("k"), t0, 20) {
		t.Fatal("SetFreq: key missing")
	}
	for _, c := range []struct {
		minutes int64
		want    uint8
	}{{0, 20}, {1, 20}, {2, 19}, {7, 17}, {7, 17}, {39, 1}, {40, 0}, {1000, 0}} {
		info, _ := s.Object(0, []byte("k"), t0+c.minutes*60_000)
		if info.Freq != c.want {
			t.Errorf("%d minutes later: Freq = %d, want %d", c.minutes, info.Freq, c.want)
		}
	}
	s.SetLFU(true, 0, 0)
	if info, _ := s.Object(0, []byte("k"), t0+1000*60_000); info.Freq != 20 {
		t.Errorf("decay time 0: Freq = %d, want 20", info.Freq)
	}
	// the minute clock wraps every 65,536 minutes: a counter stamped just
	// before the wrap decays by the minutes across it, less one, as
	// Redis's LFUTimeElapsed counts them (65535 - then + now)
	s.SetLFU(true, 0, 1)
	wrap := (t0/60_000/65536 + 1) * 65536 * 60_000 // a multiple of 2^16 minutes
	s.SetFreq(0, []byte("k"), wrap-3*60_000, 50)
	if info, _ := s.Object(0, []byte("k"), wrap+2*60_000); info.Freq != 46 {
		t.Errorf("across the wrap: Freq = %d, want 46", info.Freq)
	}
	// an access decays first, then counts
	get(s, 0, "k", wrap+2*60_000)
	if info, _ := s.Object(0, []byte("k"), wrap+2*60_000); info.Freq != 47 {
		t.Errorf("after an access: Freq = %d, want 47", info.Freq)
	}
}

// TestEvictAllKeysLFUKeepsFrequentlyUsedKeys writes 1000 keys, reads 200
// of them ten times each, and then needs a quarter of the memory back:
// every evicted key must be one of the never-read ones. Under volatile-lfu
// only keys with a TTL go.
func TestEvictAllKeysLFUKeepsFrequentlyUsedKeys(t *testing.T) {
	for _, p := range []Policy{AllKeysLFU, VolatileLFU} {
		s := New(Options{})
		s.SetLFU(true, 0, 1)
		ttl := func(i int) int64 { return 0 }
		if p == VolatileLFU {
			ttl = func(i int) int64 {
				if i%2 == 0 {
					return t0 + time.Hour.Milliseconds()
				}
				return 0
			}
		}
		keys := fillKeys(s, "k", 1000, t0, ttl)
		hot := map[string]bool{}
		for i := 0; i < len(keys); i += 5 {
			hot[keys[i]] = true
			for range 10 {
				get(s, 0, keys[i], t0)
			}
		}
		limit := limitFreeing(s, 0.2)
		n, st := s.Evict(t0, EvictOptions{MaxMemory: limit, Policy: p, Budget: time.Minute})
		if st != OK || n < 100 {
			t.Fatalf("%v: Evict = %d, %v", p, n, st)
		}
		for i, k := range keys {
			if lookupExists(s, k) {
				continue
			}
			if hot[k] {
				t.Errorf("%v: evicted %s, read ten times", p, k)
			}
			if p == VolatileLFU && i%2 != 0 {
				t.Errorf("%v: evicted %s, which has no TTL", p, k)
			}
		}
	}
}

// lookupExists reports whether key exists in db 0 without counting an
// access (Object).
func lookupExists(s *Store, key string) bool {
	_, ok := s.Object(0, []byte(key), t0)
	return ok
}

// TestLRUModeKeepsTheClock: with SetLFU off (the default), the access
// field is the LRU clock: Object reports idle time, and a new key's
// counter reads as whatever the clock's low byte is, not LFUInitVal.
func TestLRUModeKeepsTheClock(t *testing.T) {
	s := New(Options{})
	set(s, 0, "k", "v", t0)
	info, _ := s.Object(0, []byte("k"), t0+5000)
	if info.Idle != 5000 {
		t.Fatalf("Idle = %d, want 5000", info.Idle)
	}
	s.SetLFU(true, 0, 1)
	set(s, 0, "n", "v", t0)
	if info, _ := s.Object(0, []byte("n"), t0); info.Freq != LFUInitVal {
		t.Fatalf("new key under LFU: Freq = %d, want %d", info.Freq, LFUInitVal)
	}
}

func set(s *Store, db int, key, val string, now int64) {
	s.Set(db, []byte(key), []byte(val), now, SetOptions{})
}
