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
// load factor of 0.6), the first line of the next record. In a table being
// rehashed it also reads what the lookup's rehash step will: the head
// record of the next non-empty bucket of the old array, then the new
// array's bucket word it moves to (a filled server's first seconds are
// such steps). It returns a sum of the bytes read so that the compiler
// keeps the loads (it is never inlined, so its result cannot be found
// unused). Caller holds the shards' locks.
//
//go:noinline
func (s *Store) touch(db int, sh []uint16, hs []uint32) uint32 {
	var (
		refs  [PrefetchMax][2]ref
		steps [PrefetchMax]ref   // the head the key's rehash step moves
		next  [PrefetchMax]int32 // the old bucket after it
		dest  [PrefetchMax]uint32
	)
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
		if d.stepping() {
			steps[i], next[i] = d.nextStep(sh[:i], next[:i], x)
		}
	}
	// the second: the records they name, each a line or two, keeping the
	// next record of a chain whose head holds another hash, and the hash
	// of a record a step moves
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
		if r := steps[i]; r != noRef {
			dest[i] = t.keys.hashOf(t.a.at(r))
		}
	}
	// the third: those next records and the buckets steps move to
	for i, x := range sh {
		t := &s.shards[x].dbs[db]
		for _, r := range refs[i] {
			if r != noRef {
				b := t.a.at(r)
				sum += uint32(b[recHash]) + uint32(b[min(63, len(b)-1)])
			}
		}
		if steps[i] != noRef && len(t.keys.tab[1]) > 0 {
			nt := t.keys.tab[1]
			sum += uint32(nt[dest[i]&uint32(len(nt)-1)])
		}
	}
	return sum
}

// nextStep returns the head of the bucket that the next rehash step of d
// (shard x's) moves after the steps of the earlier keys of the batch, in
// shards sh with old buckets next, and the old bucket after it. It looks
// at no more buckets than a step does.
func (d *dict) nextStep(sh []uint16, next []int32, x uint16) (ref, int32) {
	from := d.rehash
	for j := len(sh) - 1; j >= 0; j-- {
		if sh[j] == x {
			from = int(next[j])
			break
		}
	}
	old := d.tab[0]
	end := min(len(old), from+11) // a step visits at most ten empty buckets
	for k := from; k < end; k++ {
		if old[k] != noRef {
			return old[k], int32(k + 1)
		}
	}
	return noRef, int32(end)
}
