package store

import (
	"hash/maphash"
	"math/bits"
	"sync"
	"sync/atomic"
)

// Options configures a Store. Zero fields take their defaults.
type Options struct {
	Databases int // number of logical databases, default 16
	Shards    int // number of lock shards, rounded up to a power of two in [1, 1024], default 64
}

// EncodeFunc appends v to dst and returns the extended slice, for example
// resp.AppendBulk. The store calls it under a shard lock: it must not keep v
// nor call back into the store.
type EncodeFunc func(dst, v []byte) []byte

// Store is the keyspace shared by all loops. All its methods are safe for
// concurrent use.
type Store struct {
	// immutable after New
	seed      maphash.Seed
	databases int
	shift     uint // 64 - log2(len(shards)); h>>shift is the shard index
	shards    []shard

	// owned by ActiveExpireCycle
	expireNext atomic.Uint64  // next shard*databases+db table to sample
	avgTTL     []atomic.Int64 // per database, Redis's running estimate

	// used is the sum of every shard's used, kept by shard.account so that
	// UsedMemory reads it without locking.
	used atomic.Int64

	// guarded by evictMu (see evict.go)
	evictMu sync.Mutex
	evict   evictState
}

// New returns an empty Store.
func New(opts Options) *Store {
	if opts.Databases <= 0 {
		opts.Databases = 16
	}
	if opts.Shards <= 0 {
		opts.Shards = 64
	}
	if opts.Shards > maxShards {
		opts.Shards = maxShards
	}
	sbits := bits.Len(uint(opts.Shards - 1))
	s := &Store{
		seed:      maphash.MakeSeed(),
		databases: opts.Databases,
		shift:     uint(64 - sbits),
		shards:    make([]shard, 1<<sbits),
		avgTTL:    make([]atomic.Int64, opts.Databases),
	}
	for i := range s.shards {
		s.shards[i].tables = make([]table, opts.Databases)
		s.shards[i].rnd = uint64(i)*0x9E3779B97F4A7C15 | 1
		s.shards[i].total = &s.used
	}
	s.evict.rnd = uint64(len(s.shards))*0x9E3779B97F4A7C15 | 1
	return s
}

const maxShards = 1024

// Databases returns the number of logical databases; valid indexes are
// 0 <= db < Databases().
func (s *Store) Databases() int { return s.databases }

func (s *Store) hash(key []byte) uint64 { return maphash.Bytes(s.seed, key) }

func (s *Store) shardIndex(h uint64) int {
	if s.shift >= 64 {
		return 0
	}
	return int(h >> s.shift)
}

// lock locks and returns the shard of hash h.
func (s *Store) lock(h uint64) *shard {
	sh := &s.shards[s.shardIndex(h)]
	sh.mu.Lock()
	return sh
}

// shardSet is a set of shard indexes, locked together in increasing order.
type shardSet [maxShards / 64]uint64

func (m *shardSet) add(i int) { m[i/64] |= 1 << (i % 64) }

// lockKeys adds the shards of keys[0], keys[step], keys[2*step] ... to m
// and locks them all, in index order; the caller defers unlockSet(m).
func (s *Store) lockKeys(m *shardSet, keys [][]byte, step int) {
	for i := 0; i < len(keys); i += step {
		m.add(s.shardIndex(s.hash(keys[i])))
	}
	s.lockSet(m)
}

func (s *Store) lockSet(m *shardSet) {
	for w, word := range m {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &^= 1 << b
			s.shards[w*64+b].mu.Lock()
		}
	}
}

func (s *Store) unlockSet(m *shardSet) {
	for w, word := range m {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &^= 1 << b
			s.shards[w*64+b].mu.Unlock()
		}
	}
}

// lookup returns the live entry for key, deleting it first when it has
// expired. read counts a keyspace hit or miss. Caller holds sh.mu.
func (sh *shard) lookup(t *table, h uint64, key []byte, now int64, read bool) *entry {
	e := t.find(h, key)
	if e != nil && e.expireAt != 0 && e.expireAt <= now {
		sh.del(t, e)
		sh.expired++
		e = nil
	}
	if e != nil {
		e.lru = lruClock(now)
	}
	if read {
		if e != nil {
			sh.hits++
		} else {
			sh.misses++
		}
	}
	return e
}

// del removes e. Caller holds sh.mu.
func (sh *shard) del(t *table, e *entry) {
	sh.account(-e.mem())
	t.remove(e)
}

// account adds d bytes to the shard's and the store's used memory. Caller
// holds sh.mu.
func (sh *shard) account(d int64) {
	sh.used += d
	sh.total.Add(d)
}

// add creates key with a copy of val and TTL at (0 for none). Key and value
// share one allocation; the value gets a little spare room for small
// counters. now sets its LRU clock. Caller holds sh.mu.
func (sh *shard) add(t *table, h uint64, key, val []byte, at, now int64) *entry {
	vc := len(val)
	if vc < 8 {
		vc = 8
	}
	buf := make([]byte, len(key)+vc)
	copy(buf, key)
	e := &entry{hash: h, key: buf[:len(key):len(key)], expireAt: at, ttlIdx: -1, lru: lruClock(now)}
	e.val = append(buf[len(key):len(key)], val...)
	t.insert(e)
	sh.account(e.mem())
	return e
}

// setVal overwrites e's value with val, in place when it fits and the old
// buffer is not much larger than needed (so that a big value overwritten by
// a small one does not pin its memory). Caller holds sh.mu.
func (sh *shard) setVal(e *entry, val []byte) {
	if cap(e.val) >= len(val) && cap(e.val) <= 2*len(val)+64 {
		e.val = append(e.val[:0], val...)
		return
	}
	before := e.mem()
	e.val = append(make([]byte, 0, len(val)), val...)
	sh.account(e.mem() - before)
}

// DBStats describes one database, as INFO keyspace prints it.
type DBStats struct {
	Keys    int   // keys, including expired ones not yet deleted
	Expires int   // keys with a TTL
	AvgTTL  int64 // estimated mean remaining TTL in ms, 0 when unknown
}

// Stats are the store's counters for INFO.
type Stats struct {
	UsedMemory     int64     // approximate bytes of keys, values and overhead
	DBs            []DBStats // indexed by database
	ExpiredKeys    int64     // keys deleted because their TTL passed
	EvictedKeys    int64     // keys deleted by Evict to honour a memory limit
	KeyspaceHits   int64     // reads that found their key
	KeyspaceMisses int64     // reads that did not
}

// Stats returns the current counters, locking each shard in turn.
func (s *Store) Stats() Stats {
	st := Stats{DBs: make([]DBStats, s.databases)}
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		st.UsedMemory += sh.used
		st.ExpiredKeys += sh.expired
		st.EvictedKeys += sh.evicted
		st.KeyspaceHits += sh.hits
		st.KeyspaceMisses += sh.misses
		for db := range sh.tables {
			st.DBs[db].Keys += sh.tables[db].count
			st.DBs[db].Expires += len(sh.tables[db].expires)
		}
		sh.mu.Unlock()
	}
	for db := range st.DBs {
		st.DBs[db].AvgTTL = s.avgTTL[db].Load()
	}
	return st
}

// DBSize returns the number of keys in db, counting expired keys not yet
// deleted, as Redis's DBSIZE does.
func (s *Store) DBSize(db int) int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += sh.tables[db].count
		sh.mu.Unlock()
	}
	return n
}

// FlushDB deletes every key of db.
func (s *Store) FlushDB(db int) {
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		sh.flush(db)
		sh.mu.Unlock()
	}
	s.avgTTL[db].Store(0)
}

// FlushAll deletes every key of every database.
func (s *Store) FlushAll() {
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for db := range sh.tables {
			sh.flush(db)
		}
		sh.mu.Unlock()
	}
	for db := range s.avgTTL {
		s.avgTTL[db].Store(0)
	}
}

// flush empties one table. Caller holds sh.mu.
func (sh *shard) flush(db int) {
	t := &sh.tables[db]
	var freed int64
	for _, e := range t.buckets {
		for ; e != nil; e = e.next {
			freed += e.mem()
		}
	}
	sh.account(-freed)
	*t = table{}
}
