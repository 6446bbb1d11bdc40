package store

// PrefetchMax is the most keys one Prefetch call warms; Prefetch ignores
// the keys past it.
const PrefetchMax = 32

// Prefetch warms the cache for lookups of keys in db that are about to
// run: it reads the bucket word of each key's chain (both tables during a
// rehash), then the first cache line of the record that heads it, and of
// the next one when the head is another key's. At millions of keys a
// lookup is two dependent DRAM misses; one lookup after another they
// serialize, but here the reads of different keys are independent, so the
// CPU overlaps their misses (Go has no prefetch instruction: plain loads
// kept alive by a sum do the same). It changes
// nothing: no hit or miss is counted, no LRU clock stamped, no expired
// key deleted, no rehash step taken; a key that is missing, or third or
// later in its chain, only costs the reads. A pipelined batch calls it with
// the first key of each of its commands before running them.
//
// Every read is made under the shard locks, all taken at once in index
// order before the first read and released after the last (see "Batched
// prefetch" in doc.go for why not lock-free and why not one shard at a
// time). It allocates nothing.
func (s *Store) Prefetch(db int, keys [][]byte) {
	if db < 0 || db >= s.databases || len(keys) < 1 {
		return
	}
	n := min(len(keys), PrefetchMax)
	var (
		m  shardSet
		sh [PrefetchMax]uint16
		hs [PrefetchMax]uint32
	)
	for i, k := range keys[:n] {
		x := s.shardIndex(k)
		sh[i], hs[i] = uint16(x), s.hash(k)
		m.add(x)
	}
	s.lockSet(&m)
	s.touch(db, sh[:n], hs[:n])
	s.unlockSet(&m)
}

// touch reads, for key i of shard sh[i] with hash hs[i], its bucket words,
// then the first line of each chain's head record, then, where the head is
// another key's (a chain of two or more: about a quarter of the keys at a
// load factor of 0.6), the first line of the next record. It returns a sum
// of the bytes read so that the compiler keeps the loads (it is never
// inlined, so its result cannot be found unused). Caller holds the shards'
// locks.
//
//go:noinline
func (s *Store) touch(db int, sh []uint16, hs []uint32) uint32 {
	var refs [PrefetchMax][2]ref
	hs = hs[:len(sh)]
	// the first pass: bucket words, no load depending on another
	for i, x := range sh {
		d := &s.shards[x].dbs[db].keys
		if d.count == 0 {
			continue
		}
		for t := range 2 {
			if tb := d.tab[t]; len(tb) > 0 {
				refs[i][t] = tb[hs[i]&uint32(len(tb)-1)]
			}
		}
	}
	// the second: the records they name, each a line or two, keeping the
	// next record of a chain whose head holds another hash
	var sum uint32
	for i, x := range sh {
		t := &s.shards[x].dbs[db]
		for j, r := range refs[i] {
			refs[i][j] = noRef
			if r == noRef {
				continue
			}
			b := t.a.at(r)
			sum += uint32(b[min(63, len(b)-1)])
			if t.keys.hashOf(b) != hs[i] {
				refs[i][j] = recNextOf(b)
			}
		}
	}
	// the third: those next records
	for i, x := range sh {
		a := &s.shards[x].dbs[db].a
		for _, r := range refs[i] {
			if r != noRef {
				b := a.at(r)
				sum += uint32(b[recHash]) + uint32(b[min(63, len(b)-1)])
			}
		}
	}
	return sum
}
