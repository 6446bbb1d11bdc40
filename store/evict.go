package store

import (
	"bytes"
	"math"
	"strings"
	"time"
)

// Policy is a maxmemory-policy: which keys Evict may delete to bring used
// memory back under the limit.
type Policy uint8

const (
	NoEviction     Policy = iota // delete nothing; writes are refused (Redis's default)
	AllKeysLRU                   // the least recently used of any keys
	AllKeysRandom                // any key at random
	VolatileLRU                  // the least recently used of the keys with a TTL
	VolatileRandom               // a key with a TTL at random
	VolatileTTL                  // the key with a TTL that expires soonest
	AllKeysLFU                   // the least frequently used of any keys (lfu.go)
	VolatileLFU                  // the least frequently used of the keys with a TTL
)

var policyNames = [...]string{
	NoEviction:     "noeviction",
	AllKeysLRU:     "allkeys-lru",
	AllKeysRandom:  "allkeys-random",
	VolatileLRU:    "volatile-lru",
	VolatileRandom: "volatile-random",
	VolatileTTL:    "volatile-ttl",
	AllKeysLFU:     "allkeys-lfu",
	VolatileLFU:    "volatile-lfu",
}

// String returns the policy's name as maxmemory-policy spells it.
func (p Policy) String() string {
	if int(p) < len(policyNames) {
		return policyNames[p]
	}
	return "Policy(?)"
}

// ParsePolicy returns the policy named name, in any case. It reports false
// for unknown names.
func ParsePolicy(name string) (Policy, bool) {
	for p, n := range policyNames {
		if strings.EqualFold(name, n) {
			return Policy(p), true
		}
	}
	return NoEviction, false
}

func (p Policy) volatile() bool {
	return p == VolatileLRU || p == VolatileRandom || p == VolatileTTL || p == VolatileLFU
}

// LFU reports whether p ranks keys by access frequency: the store must
// then count accesses (SetLFU).
func (p Policy) LFU() bool { return p == AllKeysLFU || p == VolatileLFU }

// Eviction defaults, Redis's.
const (
	// DefaultSamples is maxmemory-samples' default: keys sampled per
	// database for each key evicted.
	DefaultSamples = 5
	// DefaultEvictBudget is how long one Evict call may run, Redis's
	// evictionTimeLimitUs for maxmemory-eviction-tenacity 10.
	DefaultEvictBudget = 500 * time.Microsecond
	// evictPoolSize is Redis's EVPOOL_SIZE.
	evictPoolSize = 16
)

// EvictOptions are the memory limit and how Evict honours it.
type EvictOptions struct {
	MaxMemory int64         // bytes of UsedMemory allowed; 0 or less means no limit
	Policy    Policy        // which keys may go
	Samples   int           // keys sampled per database and key evicted, default DefaultSamples
	Budget    time.Duration // time one call may spend evicting, default DefaultEvictBudget
}

// UsedMemory returns the approximate bytes of every key, value and entry
// overhead, as Stats().UsedMemory does, without locking. It counts only the
// keyspace, not connection buffers nor the Go runtime's own overhead.
func (s *Store) UsedMemory() int64 { return s.used.Load() }

// Evict deletes keys chosen by o.Policy until UsedMemory is at most
// o.MaxMemory, as Redis's performEvictions does before each command, and
// returns how many it deleted. It returns OutOfMemory when memory is above
// the limit and the policy is NoEviction or no key it allows remains. It
// returns OK when memory is within the limit, and also when o.Budget ran
// out with keys still to evict (Redis's EVICT_RUNNING, which lets the
// command run): the next call continues, and while SetPaused, deleting
// nothing. now is Unix ms, for the LRU clock.
//
// The LRU policies keep Redis's approximation: each round samples
// o.Samples keys per database into a pool of the 16 best candidates seen
// so far and evicts the pool's best; volatile-ttl ranks keys by expiry
// time instead of idle time, the LFU policies by their decayed access
// counters (which the store keeps while SetLFU is on). Only one Evict runs at a time.
func (s *Store) Evict(now int64, o EvictOptions) (evicted int, st Status) {
	if o.MaxMemory <= 0 || s.used.Load() <= o.MaxMemory {
		return 0, OK
	}
	if s.paused.Load() {
		return 0, OK // SetPaused: as if under the limit, as Redis's performEvictions answers in a pause
	}
	if o.Policy == NoEviction || int(o.Policy) >= len(policyNames) {
		return 0, OutOfMemory
	}
	if o.Samples <= 0 {
		o.Samples = DefaultSamples
	}
	if o.Budget <= 0 {
		o.Budget = DefaultEvictBudget
	}
	s.evictMu.Lock()
	defer s.evictMu.Unlock()
	start := time.Now()
	for s.used.Load() > o.MaxMemory {
		var ok bool
		if o.Policy == AllKeysRandom || o.Policy == VolatileRandom {
			ok = s.evictRandom(o.Policy.volatile())
		} else {
			ok = s.evictBest(now, o.Policy, o.Samples)
		}
		if !ok {
			return evicted, OutOfMemory
		}
		evicted++
		if evicted%16 == 0 && time.Since(start) > o.Budget {
			break
		}
	}
	return evicted, OK
}

// evictState is Evict's eviction pool and random source, guarded by
// Store.evictMu.
type evictState struct {
	pool   [evictPoolSize]poolEntry // pool[:n] sorted by idle, best candidate last
	n      int
	policy Policy // the policy that filled the pool
	rnd    uint64 // xorshift state
}

// poolEntry is a sampled candidate, named by its key: it is looked up
// again under its shard's lock before it is evicted, since it may have
// been deleted since it was sampled. key is a buffer the pool reuses.
type poolEntry struct {
	idle  uint64 // higher is a better candidate
	key   []byte
	shard int
	db    int
}

func (ev *evictState) rand() uint64 {
	x := ev.rnd
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	ev.rnd = x
	return x
}

// evictBest evicts the best candidate of the pool, refilling it first, and
// reports false when no candidate is left. Caller holds s.evictMu.
func (s *Store) evictBest(now int64, p Policy, samples int) bool {
	ev := &s.evict
	if ev.policy != p {
		ev.pool, ev.n, ev.policy = [evictPoolSize]poolEntry{}, 0, p
	}
	for {
		sampled := s.populatePool(now, p, samples)
		if !sampled && ev.n == 0 {
			return false
		}
		for ev.n > 0 {
			ev.n--
			pe := &ev.pool[ev.n]
			sh := &s.shards[pe.shard]
			s.lockShard(sh) // evicting saves the victim for a pending snapshot (unlinkRec)
			t := &sh.dbs[pe.db]
			r := t.keys.find(&t.a, s.hash(pe.key), pe.key)
			if r != noRef && (!p.volatile() || recExpire(t.a.at(r)) != 0) {
				s.evictRec(sh, t, pe.db, r)
				s.unlockShard(sh)
				return true
			}
			s.unlockShard(sh)
		}
		if !sampled {
			return false
		}
	}
}

// populatePool samples, from consecutive shards starting at a random one,
// one candidate of each database per shard until samples shards have given
// some, and adds them to the pool (Redis's evictionPoolPopulate). It
// reports whether it found any candidate. Caller holds s.evictMu.
func (s *Store) populatePool(now int64, p Policy, samples int) bool {
	ev := &s.evict
	clock := lruClock(now)
	n := len(s.shards)
	first := int(ev.rand() % uint64(n))
	got := 0
	for i := 0; i < n && got < samples; i++ {
		si := (first + i) % n
		sh := &s.shards[si]
		s.lockShard(sh)
		found := false
		for db := range sh.dbs {
			t := &sh.dbs[db]
			r := sh.candidate(t, p.volatile())
			if r == noRef {
				continue
			}
			found = true
			b := t.a.at(r)
			var idle uint64
			switch {
			case p == VolatileTTL:
				idle = math.MaxUint64 - uint64(recExpire(b)) // soonest expiry is best
			case p.LFU():
				idle = 255 - uint64(s.lfu.decayed(recLRU(b), now)) // least used is best
			default:
				idle = lruIdle(clock, recLRU(b))
			}
			ev.insert(idle, recKeyOf(b), si, db)
		}
		s.unlockShard(sh)
		if found {
			got++
		}
	}
	return got > 0
}

// insert adds a candidate to the pool, keeping it sorted and dropping the
// worst entry when full, as Redis's evictionPoolPopulate does. A key
// already in the pool is not added twice. The key is copied into the
// buffer of the slot it takes.
func (ev *evictState) insert(idle uint64, key []byte, shard, db int) {
	k := 0
	for k < ev.n && ev.pool[k].idle < idle {
		k++
	}
	for i := 0; i < ev.n; i++ {
		if ev.pool[i].shard == shard && ev.pool[i].db == db && bytes.Equal(ev.pool[i].key, key) {
			return
		}
	}
	switch {
	case k == 0 && ev.n == evictPoolSize:
		return // worse than every candidate in a full pool
	case ev.n < evictPoolSize:
		spare := ev.pool[ev.n].key
		copy(ev.pool[k+1:ev.n+1], ev.pool[k:ev.n])
		ev.pool[k].key = spare
		ev.n++
	default: // full: drop the worst (leftmost) to make room
		k--
		spare := ev.pool[0].key
		copy(ev.pool[:k], ev.pool[1:k+1])
		ev.pool[k].key = spare
	}
	pe := &ev.pool[k]
	pe.idle, pe.shard, pe.db = idle, shard, db
	pe.key = append(pe.key[:0], key...)
}

// evictRandom deletes a random candidate key, trying shards from a random
// one and databases in order, and reports false when there is none. Caller
// holds s.evictMu.
func (s *Store) evictRandom(volatile bool) bool {
	n := len(s.shards)
	first := int(s.evict.rand() % uint64(n))
	for i := 0; i < n; i++ {
		sh := &s.shards[(first+i)%n]
		s.lockShard(sh)
		for db := range sh.dbs {
			t := &sh.dbs[db]
			if r := sh.candidate(t, volatile); r != noRef {
				s.evictRec(sh, t, db, r)
				s.unlockShard(sh)
				return true
			}
		}
		s.unlockShard(sh)
	}
	return false
}

// candidate returns a random record of t, or of its keys with a TTL when
// volatile, or noRef when there is none. Caller holds sh.mu.
func (sh *shard) candidate(t *keyTable, volatile bool) ref {
	if volatile {
		if len(t.expires) == 0 {
			return noRef
		}
		return t.expires[sh.rand()%uint64(len(t.expires))]
	}
	return t.keys.random(&t.a, sh.rand)
}

// The LRU clock, as Redis keeps it in each object: 24 bits of seconds
// (LRU_CLOCK_RESOLUTION 1000 ms), wrapping every 194 days.
const (
	lruClockBits       = 24
	lruClockMax        = 1<<lruClockBits - 1
	lruClockResolution = 1000 // ms
)

// lruClock is the LRU clock at Unix ms now.
func lruClock(now int64) uint32 { return uint32(now/lruClockResolution) & lruClockMax }

// lruIdle returns the ms since an entry stamped lru was last accessed, at
// clock; Redis's estimateObjectLruTime.
func lruIdle(clock, lru uint32) uint64 {
	if clock >= lru {
		return uint64(clock-lru) * lruClockResolution
	}
	return uint64(clock+(lruClockMax-lru)) * lruClockResolution
}
