package store

import (
	"bytes"
	"math/bits"
	"sync"
	"sync/atomic"
)

// entryOverhead approximates the bytes an entry costs beyond its key and
// value: the struct, the slice headers and its bucket slot.
const entryOverhead = 96

// entry is one key. Its fields are guarded by the lock of its shard.
type entry struct {
	next     *entry
	hash     uint64
	key      []byte
	val      []byte // len is the value; cap is reused by in-place writes
	expireAt int64  // Unix ms; 0 means no TTL
	ttlIdx   int32  // index in table.expires, -1 when expireAt == 0
	lru      uint32 // lruClock of the last access, for eviction (evict.go)
}

// mem is the entry's share of UsedMemory.
func (e *entry) mem() int64 { return int64(entryOverhead + len(e.key) + cap(e.val)) }

// table is one database's part of one shard: chained buckets whose count is 0
// or a power of two, and the entries that carry a TTL for active expiry.
type table struct {
	buckets []*entry
	count   int      // entries in buckets
	expires []*entry // entries with expireAt != 0; expires[i].ttlIdx == i
}

// shard is one lock's worth of the keyspace, holding a table per database.
type shard struct {
	mu     sync.Mutex
	tables []table // one per database
	// guarded by mu
	used    int64  // approximate bytes of the shard's entries
	hits    int64  // keyspace_hits
	misses  int64  // keyspace_misses
	expired int64  // keys deleted because their TTL passed
	evicted int64  // keys deleted by Evict
	rnd     uint64 // xorshift state for sampling
	// immutable after New
	total *atomic.Int64 // the Store's used, which account keeps in step
	_     [64]byte
}

// rand returns the next pseudo-random number of the shard. Caller holds mu.
func (sh *shard) rand() uint64 {
	x := sh.rnd
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	sh.rnd = x
	return x
}

// find returns the entry for key, or nil.
func (t *table) find(h uint64, key []byte) *entry {
	if len(t.buckets) == 0 {
		return nil
	}
	for e := t.buckets[h&uint64(len(t.buckets)-1)]; e != nil; e = e.next {
		if e.hash == h && bytes.Equal(e.key, key) {
			return e
		}
	}
	return nil
}

// insert links e, which must not be present, growing the table when its
// load factor passes 1.
func (t *table) insert(e *entry) {
	if t.count >= len(t.buckets) {
		n := 4
		if len(t.buckets) > 0 {
			n = len(t.buckets) * 2
		}
		t.resize(n)
	}
	i := e.hash & uint64(len(t.buckets)-1)
	e.next = t.buckets[i]
	t.buckets[i] = e
	t.count++
	if e.expireAt != 0 {
		t.addTTL(e)
	}
}

// remove unlinks e, shrinking the table when it is less than 1/8 full.
func (t *table) remove(e *entry) {
	i := e.hash & uint64(len(t.buckets)-1)
	p := &t.buckets[i]
	for *p != e {
		p = &(*p).next
	}
	*p = e.next
	e.next = nil
	t.count--
	if e.expireAt != 0 {
		t.dropTTL(e)
	}
	if len(t.buckets) > 4 && t.count < len(t.buckets)/8 {
		n := len(t.buckets)
		for n > 4 && t.count < n/2 {
			n /= 2
		}
		t.resize(n)
	}
	if t.count == 0 {
		t.buckets = nil
		t.expires = nil
	}
}

// resize rehashes every entry into n buckets.
func (t *table) resize(n int) {
	nb := make([]*entry, n)
	mask := uint64(n - 1)
	for _, e := range t.buckets {
		for e != nil {
			next := e.next
			i := e.hash & mask
			e.next = nb[i]
			nb[i] = e
			e = next
		}
	}
	t.buckets = nb
}

// setTTL sets or clears (at == 0) e's expiry, keeping expires in step.
func (t *table) setTTL(e *entry, at int64) {
	switch {
	case e.expireAt == 0 && at != 0:
		e.expireAt = at
		t.addTTL(e)
	case e.expireAt != 0 && at == 0:
		t.dropTTL(e)
		e.expireAt = 0
	default:
		e.expireAt = at
	}
}

func (t *table) addTTL(e *entry) {
	e.ttlIdx = int32(len(t.expires))
	t.expires = append(t.expires, e)
}

func (t *table) dropTTL(e *entry) {
	i := e.ttlIdx
	last := len(t.expires) - 1
	t.expires[i] = t.expires[last]
	t.expires[i].ttlIdx = i
	t.expires[last] = nil
	t.expires = t.expires[:last]
	e.ttlIdx = -1
}

// scanStep visits bucket v&mask and returns the next reverse-binary cursor,
// 0 when the table has been walked. Redis dict.c dictScan, single table.
func (t *table) scanStep(v uint64, fn func(e *entry)) uint64 {
	if len(t.buckets) == 0 {
		return 0
	}
	mask := uint64(len(t.buckets) - 1)
	for e := t.buckets[v&mask]; e != nil; e = e.next {
		fn(e)
	}
	v |= ^mask
	v = bits.Reverse64(v)
	v++
	return bits.Reverse64(v)
}
