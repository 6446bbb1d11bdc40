package store

import (
	"hash/maphash"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
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
// concurrent use. A Store returned by Lock is a view of the same keyspace
// whose operations run under locks it already holds (a transaction); see
// Lock.
type Store struct {
	*keyspace
	held *shardSet // the shards a Lock view holds; nil for the keyspace itself
	j    *Journal  // where the view records the keys it removes by itself; nil for none (journal.go)
}

// keyspace is a Store's state.
type keyspace struct {
	// immutable after New
	seed      maphash.Seed
	databases int
	sbits     uint // log2(len(shards)); a key's shard is its slot >> (14 - sbits)
	shards    []shard

	// owned by ActiveExpireCycle
	expireNext atomic.Uint64  // next shard*databases+db table to sample
	avgTTL     []atomic.Int64 // per database, Redis's running estimate
	rehashNext atomic.Uint64  // next shard RehashCycle visits

	limits atomic.Pointer[Limits] // nil: DefaultLimits
	lfu    lfuMode                // what access fields count (lfu.go)

	// used is the sum of every shard's acct.used, so that UsedMemory reads
	// it without locking.
	used atomic.Int64

	// guarded by evictMu (see evict.go)
	evictMu sync.Mutex
	evict   evictState

	// paused is set by SetPaused: no key is deleted for its TTL or for memory
	paused atomic.Bool
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
	s := &Store{keyspace: &keyspace{
		seed:      maphash.MakeSeed(),
		databases: opts.Databases,
		sbits:     uint(sbits),
		shards:    make([]shard, 1<<sbits),
		avgTTL:    make([]atomic.Int64, opts.Databases),
	}}
	for i := range s.shards {
		sh := &s.shards[i]
		sh.idx = i
		sh.dbs = make([]keyTable, opts.Databases)
		for db := range sh.dbs {
			sh.dbs[db].init(&s.used)
		}
		sh.rnd = uint64(i)*0x9E3779B97F4A7C15 | 1
	}
	s.evict.rnd = uint64(len(s.shards))*0x9E3779B97F4A7C15 | 1
	s.lfu.logFactor.Store(DefaultLFULogFactor)
	s.lfu.decayTime.Store(DefaultLFUDecayTime)
	return s
}

// maxShards is the most lock shards: each holds at least 16 hash slots.
const maxShards = 1024

// Databases returns the number of logical databases; valid indexes are
// 0 <= db < Databases().
func (s *Store) Databases() int { return s.databases }

func (s *Store) hash(key []byte) uint32 {
	return uint32(maphash.Bytes(s.seed, key)) & (1<<dictMaxBits - 1)
}

func (s *Store) shardOf(slot uint16) int { return int(slot) >> (14 - s.sbits) }

func (s *Store) shardIndex(key []byte) int { return s.shardOf(KeySlot(key)) }

// shardSet is a set of shard indexes, locked together in increasing order.
type shardSet [maxShards / 64]uint64

func (m *shardSet) add(i int) { m[i/64] |= 1 << (i % 64) }

// lockKeys adds the shards of keys[0], keys[step], keys[2*step] ... to m
// and locks them all, in index order; the caller defers unlockSet(m).
func (s *Store) lockKeys(m *shardSet, keys [][]byte, step int) {
	for i := 0; i < len(keys); i += step {
		m.add(s.shardIndex(keys[i]))
	}
	s.lockSet(m)
}

func (m *shardSet) has(i int) bool { return m[i/64]&(1<<(i%64)) != 0 }

// lockKeysRead is lockKeys (step 1) for a read: its lookups (findReadInto)
// save nothing for a pending snapshot.
func (s *Store) lockKeysRead(m *shardSet, keys [][]byte) {
	for _, k := range keys {
		m.add(s.shardIndex(k))
	}
	s.lockSet(m)
}

func (s *Store) lockSet(m *shardSet) {
	for w, word := range m {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &^= 1 << b
			s.lockShard(&s.shards[w*64+b])
		}
	}
}

func (s *Store) unlockSet(m *shardSet) {
	for w, word := range m {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &^= 1 << b
			s.unlockShard(&s.shards[w*64+b])
		}
	}
}

// lockShard locks sh unless this view holds it already. A pending
// snapshot asks nothing of the lock: the lookups of keys a write changes
// save their records for it (kv.cow, snapshot.go), so a snapshot taken
// inside a transaction sees none of the transaction's later changes.
func (s *Store) lockShard(sh *shard) {
	if s.held == nil || !s.held.has(sh.idx) {
		sh.mu.Lock()
	}
}

func (s *Store) unlockShard(sh *shard) {
	if s.held == nil || !s.held.has(sh.idx) {
		sh.mu.Unlock()
	}
}

// Lock locks the shards of keys, or every shard when all, and returns a
// view of the store whose operations run under those locks: a transaction
// (EXEC) runs its commands on the view and no other client sees any of
// them until Unlock. The view must be used by one goroutine, and only for
// operations on keys whose shards it holds (all, for an operation that
// walks the keyspace: FLUSHDB, SWAPDB, KEYS, SCAN, RANDOMKEY, DBSIZE).
func (s *Store) Lock(keys [][]byte, all bool) *Store {
	return s.LockInto(new(LockedView), keys, all)
}

// LockedView is the memory of a Lock view, for a caller that runs one
// transaction at a time and keeps it between them, so that locking
// allocates nothing: LockInto fills it, Unlock empties it again.
type LockedView struct {
	v    Store
	held shardSet
}

// LockInto is Lock with the view in lv, which must not be in use (locked
// and not yet unlocked). The view it returns is &lv's, valid until Unlock.
func (s *Store) LockInto(lv *LockedView, keys [][]byte, all bool) *Store {
	if lv.v.held != nil {
		panic("store: LockInto of a view still locked")
	}
	lv.held = shardSet{}
	lv.v = Store{keyspace: s.keyspace, held: &lv.held, j: s.j}
	held := &lv.held
	if all {
		for i := range s.shards {
			held.add(i)
		}
	} else {
		for _, k := range keys {
			held.add(s.shardIndex(k))
		}
	}
	for w, word := range held {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &^= 1 << b
			s.shards[w*64+b].mu.Lock()
		}
	}
	return &lv.v
}

// Unlock releases a Lock view's shards; the view must not be used after.
func (v *Store) Unlock() {
	held := v.held
	v.held = nil
	for w, word := range held {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &^= 1 << b
			v.shards[w*64+b].mu.Unlock()
		}
	}
	*held = shardSet{}
}

// kv is the keyed-operation primitive: one key of one database, found
// under its shard's lock with expiry applied. Every operation on a key
// starts with acquire (or find, under locks already held), checks the
// type with kind, and then reads or changes the value through kv's
// methods, which keep the table, the TTL index, the slot counts and the
// memory accounting in step. A kv is valid until the lock is released.
type kv struct {
	s    *Store
	sh   *shard
	t    *keyTable
	h    uint32
	slot uint16
	r    ref // noRef when the key does not exist
	now  int64
	db   int
	// replaced: del ran, so a create overwrites the key (no "new" in the journal)
	replaced bool
}

// acquire locks key's shard and finds key; the caller defers k.release().
// read counts a keyspace hit or miss.
func (s *Store) acquire(db int, key []byte, now int64, read bool) (k kv) {
	s.acquireInto(&k, db, key, now, read)
	return k
}

// acquireInto is acquire into *k.
func (s *Store) acquireInto(k *kv, db int, key []byte, now int64, read bool) {
	slot := KeySlot(key)
	sh := &s.shards[s.shardOf(slot)]
	s.lockShard(sh)
	s.lookupInto(k, sh, db, key, slot, now, read, true)
	k.cow()
}

// acquireReadInto is acquireInto for a read, which saves nothing for a
// pending snapshot; it counts a keyspace hit or miss.
func (s *Store) acquireReadInto(k *kv, db int, key []byte, now int64) {
	slot := KeySlot(key)
	sh := &s.shards[s.shardOf(slot)]
	s.lockShard(sh)
	s.lookupInto(k, sh, db, key, slot, now, true, true)
}

// acquirePeek is acquireReadInto that leaves the key's access field alone,
// as Redis's LOOKUP_NOTOUCH lookups (EXISTS, TYPE, TTL) do, into *k.
func (s *Store) acquirePeek(k *kv, db int, key []byte, now int64) {
	slot := KeySlot(key)
	sh := &s.shards[s.shardOf(slot)]
	s.lockShard(sh)
	s.lookupInto(k, sh, db, key, slot, now, true, false)
}

func (k *kv) release() { k.s.unlockShard(k.sh) }

// access is what an operation on a value of one type needs of its key.
type access uint8

const (
	forRead   access = iota // a read: counts a keyspace hit or miss; a missing key is NotFound
	forTake                 // a read that changes or deletes the key (GETDEL, GETEX): as forRead
	forUpdate               // a change of an existing value (SREM, HDEL): a missing key is NotFound
	forWrite                // a change that creates a missing key (SET, HSET, SADD): not an error
)

// openInto is acquire for an operation on a value of type t: it returns
// WrongType when the key holds another type, and NotFound as a says. Every
// typed operation starts here. The caller releases k.
//
// It fills *k in place: a kv returned by value is copied on from the
// stack in 16-byte moves that stall on the narrower stores that made it
// (the copy was half of SPOP's own time on a missing key).
func (s *Store) openInto(k *kv, db int, key []byte, now int64, t Type, a access) Status {
	switch a {
	case forRead:
		s.acquireReadInto(k, db, key, now)
	default:
		s.acquireInto(k, db, key, now, a == forTake)
	}
	if !k.exists() {
		if a == forWrite {
			return OK
		}
		return NotFound
	}
	return k.check(t)
}

// find is acquire for a caller that already holds key's shard lock.
func (s *Store) find(db int, key []byte, now int64, read bool) kv {
	var k kv
	s.findInto(&k, db, key, now, read)
	return k
}

// findInto is find into *k, which it overwrites.
func (s *Store) findInto(k *kv, db int, key []byte, now int64, read bool) {
	s.findReadInto(k, db, key, now, read)
	k.cow()
}

// findReadInto is findInto for a read, which saves nothing for a pending
// snapshot.
func (s *Store) findReadInto(k *kv, db int, key []byte, now int64, read bool) {
	slot := KeySlot(key)
	s.lookupInto(k, &s.shards[s.shardOf(slot)], db, key, slot, now, read, true)
}

// lookupInto finds key in shard sh, which the caller holds, into *k, which
// it overwrites, expiring it when its TTL has passed; read counts a keyspace
// hit or miss, touch counts a found key as accessed (its LRU clock or LFU
// counter). Every lookup fills its kv in place rather than copy one back up
// through each call.
func (s *Store) lookupInto(k *kv, sh *shard, db int, key []byte, slot uint16, now int64, read, touch bool) {
	// field by field: a composite literal is built on the stack and copied
	// in 16-byte moves that stall on the narrower stores just made there
	t := &sh.dbs[db]
	k.s, k.sh, k.t = s, sh, t
	k.h, k.slot, k.now, k.db, k.replaced = s.hash(key), slot, now, db, false
	k.r = t.keys.find(&t.a, k.h, key)
	if k.r != noRef {
		b := k.t.a.at(k.r)
		if k.t.expired(b, now) {
			if !s.paused.Load() { // SetPaused: missing, but left in place
				s.expireRec(sh, k.t, db, k.r)
			}
			k.r = noRef
		} else if touch {
			setRecLRU(b, s.accessField(sh, recLRU(b), now))
		}
	}
	if read {
		if k.r != noRef {
			sh.hits++
		} else {
			sh.misses++
			if s.j != nil && s.j.trackMiss {
				s.j.add(db, key, JournalMiss)
			}
		}
	}
}

func (k *kv) exists() bool { return k.r != noRef }

func (k *kv) rec() []byte { return k.t.a.at(k.r) }

// kind returns the key's type, TypeNone when it does not exist.
func (k *kv) kind() Type {
	if k.r == noRef {
		return TypeNone
	}
	return recType(k.rec())
}

// check returns WrongType when the key exists with another type than t.
func (k *kv) check(t Type) Status {
	if k.r != noRef && recType(k.rec()) != t {
		return WrongType
	}
	return OK
}

func (k *kv) enc() Encoding { return recEnc(k.rec()) }

func (k *kv) setEnc(e Encoding) { setRecEnc(k.rec(), e) }

// val returns the stored bytes of a string, listpack or intset value,
// valid until the value is changed.
func (k *kv) val() []byte { return recVal(k.rec()) }

// expireAt returns the key's TTL as Unix ms, 0 for none.
func (k *kv) expireAt() int64 { return recExpire(k.rec()) }

func (k *kv) setTTL(at int64) { k.t.setTTL(k.r, at) }

// create adds key, which must be k's key and not exist, holding a copy of
// val with room for at least vcap bytes, and expiry at. (kv does not keep
// its key: a []byte field beside the shard pointer would make every key
// argument escape to the heap.)
func (k *kv) create(key []byte, t Type, e Encoding, val []byte, vcap int, at int64) {
	if k.s.paused.Load() {
		k.dropExpired(key)
	}
	r, b := k.t.newRec(k.h, key, t, e, len(val), max(vcap, len(val)), k.s.newField(k.now))
	copy(b[keyHdr+len(key):], val)
	k.t.insert(r, k.h, k.slot, k.s.sbits, at)
	k.r = r
	if !k.replaced {
		k.s.created(k.db, key)
	}
}

// dropExpired deletes, as expired, the record of key that a lookup during
// SetPaused found past its TTL and left in place, so that create does not
// index a second record of key. (No command that creates a key runs in a
// CLIENT PAUSE but a connectionless one; the check costs create one load
// otherwise.)
func (k *kv) dropExpired(key []byte) {
	if r := k.t.keys.find(&k.t.a, k.h, key); r != noRef {
		k.s.expireRec(k.sh, k.t, k.db, r)
	}
}

// del deletes the key.
func (k *kv) del() {
	if j := k.s.j; j != nil && j.trackDel {
		j.add(k.db, recKeyOf(k.rec()), JournalDeleted)
	}
	k.t.remove(k.r, k.s.sbits)
	k.r = noRef
	k.replaced = true
}

// resize makes the value n bytes long, keeping its first min(n, old)
// bytes, and returns it for the caller to fill. It moves the record when
// n does not fit its chunk, and to a smaller chunk when the value would
// use less than half of a large one; extra is the room to reserve beyond
// n when it moves.
func (k *kv) resize(n, extra int) []byte {
	b := k.rec()
	c := recCap(b)
	if n > c || (c > 64 && n+extra < c/4) {
		keep := min(n, recVlenOf(b))
		k.r, b = k.t.relocate(k.r, n, n+extra, keep)
	} else {
		setRecVlen(b, n)
	}
	return recVal(b)
}

// setVal replaces the value with a copy of v.
func (k *kv) setVal(v []byte) {
	copy(k.resize(len(v), 0), v)
}

// obj returns the hash table of a value encoded as one.
func (k *kv) obj() *dict { return &k.t.objs[le.Uint32(k.val())] }

// DBStats describes one database, as INFO keyspace prints it.
type DBStats struct {
	Keys    int   // keys, including expired ones not yet deleted
	Expires int   // keys with a TTL
	AvgTTL  int64 // estimated mean remaining TTL in ms, 0 when unknown
}

// Stats are the store's counters for INFO.
type Stats struct {
	UsedMemory     int64     // bytes of the chunks and bucket arrays in use
	ArenaBytes     int64     // bytes of the arenas' pages, free chunks included
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
		s.lockShard(sh)
		st.ExpiredKeys += sh.expired
		st.EvictedKeys += sh.evicted
		st.KeyspaceHits += sh.hits
		st.KeyspaceMisses += sh.misses
		for db := range sh.dbs {
			st.UsedMemory += sh.dbs[db].acct.used
			st.ArenaBytes += sh.dbs[db].a.bytes()
			st.DBs[db].Keys += sh.dbs[db].keys.count
			st.DBs[db].Expires += len(sh.dbs[db].expires)
		}
		s.unlockShard(sh)
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
		s.lockShard(sh)
		n += sh.dbs[db].keys.count
		s.unlockShard(sh)
	}
	return n
}

// FlushDB deletes every key of db. Each shard's table is detached under
// its lock in constant time; its memory goes back with the next garbage
// collection, and its huge-page slots at once, both off the loops (FLUSHDB
// ASYNC and SYNC alike).
func (s *Store) FlushDB(db int) {
	for i := range s.shards {
		sh := &s.shards[i]
		s.lockShard(sh)
		sh.flush(db)
		s.unlockShard(sh)
	}
	s.avgTTL[db].Store(0)
}

// FlushAll deletes every key of every database.
func (s *Store) FlushAll() {
	for i := range s.shards {
		sh := &s.shards[i]
		s.lockShard(sh)
		for db := range sh.dbs {
			sh.flush(db)
		}
		s.unlockShard(sh)
	}
	for db := range s.avgTTL {
		s.avgTTL[db].Store(0)
	}
}

// flush empties one table. Caller holds sh.mu.
func (sh *shard) flush(db int) {
	t := &sh.dbs[db]
	t.finishWalk()
	total := t.acct.total
	total.Add(-t.acct.used)
	t.a.drop()
	*t = keyTable{}
	t.init(total)
}

// SwapDB exchanges the contents of databases a and b, atomically.
func (s *Store) SwapDB(a, b int) {
	var m shardSet
	for i := range s.shards {
		m.add(i)
	}
	s.lockSet(&m)
	defer s.unlockSet(&m)
	for i := range s.shards {
		sh := &s.shards[i]
		sh.dbs[a], sh.dbs[b] = sh.dbs[b], sh.dbs[a]
		sh.dbs[a].a.acct, sh.dbs[b].a.acct = &sh.dbs[a].acct, &sh.dbs[b].acct
		sh.dbs[a].movedWalk()
		sh.dbs[b].movedWalk()
	}
	x, y := s.avgTTL[a].Load(), s.avgTTL[b].Load()
	s.avgTTL[a].Store(y)
	s.avgTTL[b].Store(x)
}

// RehashCycle frees deleted big values (lazy free) and moves hash-table
// buckets of tables being resized, for about budget, as Redis's
// databasesCron does with dictRehashMilliseconds, so that tables finish
// growing even when they are rarely touched.
func (s *Store) RehashCycle(budget time.Duration) {
	start := time.Now()
	n := len(s.shards)
	first := int(s.rehashNext.Add(1)) % n
	for i := 0; i < n; i++ {
		sh := &s.shards[(first+i)%n]
		for more := true; more; {
			// one lock hold does a bounded slice of work (rehashHold), so
			// that the cycle never holds a shard for its whole budget
			s.lockShard(sh) // a table a snapshot walks takes no rehash step (dict.frozen)
			more = sh.rehashSome(time.Now().Add(rehashHold))
			s.unlockShard(sh)
			if time.Since(start) > budget {
				return
			}
		}
	}
}

// rehashHold bounds one lock hold of RehashCycle.
const rehashHold = 200 * time.Microsecond

// rehashSome frees trash and moves buckets of sh's tables until until,
// and reports whether work is left. Caller holds sh.mu.
func (sh *shard) rehashSome(until time.Time) bool {
	for db := range sh.dbs {
		t := &sh.dbs[db]
		for len(t.trash) > 0 || t.keys.stepping() {
			if len(t.trash) > 0 {
				t.sweepTrash(256)
			} else {
				t.keys.step(&t.a, 100)
			}
			if time.Now().After(until) {
				return len(t.trash) > 0 || t.keys.stepping() || db+1 < len(sh.dbs)
			}
		}
	}
	return false
}
