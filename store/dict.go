package store

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

var le = binary.LittleEndian

// Every record a dict links starts with the same 16 bytes:
//
//	0  next  ref     the next record of the bucket chain
//	4  hash  uint32  the key's hash (key records keep type and encoding in its top byte)
//	8  klen  uint32
//	12 vlen  uint32
//
// then a header of the record's kind, then the key, then the value.
const (
	recNext = 0
	recHash = 4
	recKlen = 8
	recVlen = 12
)

func recNextOf(b []byte) ref     { return ref(le.Uint32(b[recNext:])) }
func setRecNext(b []byte, r ref) { le.PutUint32(b[recNext:], uint32(r)) }
func recKlenOf(b []byte) int     { return int(le.Uint32(b[recKlen:])) }
func recVlenOf(b []byte) int     { return int(le.Uint32(b[recVlen:])) }
func setRecVlen(b []byte, n int) { le.PutUint32(b[recVlen:], uint32(n)) }
func recKey(b []byte, hdr int) []byte {
	return b[hdr : hdr+recKlenOf(b) : hdr+recKlenOf(b)]
}

// dict is a chained hash table whose records live in an arena and link by
// refs, so that its only pointers are its two bucket arrays. It grows and
// shrinks incrementally as Redis's dict does: during a rehash both tables
// are live, every operation moves one bucket from tab[0] to tab[1], and
// RehashCycle moves more for a bounded time, so no single operation pays
// for rehashing the whole table. Caller holds the shard lock.
type dict struct {
	tab    [2][]ref
	count  int
	rehash int    // next bucket of tab[0] to move; -1 when not rehashing
	hmask  uint32 // bits of the hash word that are hash
	hdr    int    // offset of the key in a record
	// frozen: a snapshot walks the bucket arrays in order, so no rehash
	// step moves records between them (snapshot.go)
	frozen bool
}

const (
	dictMinSize = 4
	dictMaxBits = 24 // hash bits a key record keeps
)

func newDict(hdr int, hmask uint32) dict { return dict{rehash: -1, hdr: hdr, hmask: hmask} }

func (d *dict) rehashing() bool { return d.rehash >= 0 }

// stepping reports whether rehash steps have buckets to move.
func (d *dict) stepping() bool { return d.rehash >= 0 && !d.frozen }

func (d *dict) hashOf(b []byte) uint32 { return le.Uint32(b[recHash:]) & d.hmask }

// find returns the record holding key, noRef when there is none.
func (d *dict) find(a *arena, h uint32, key []byte) ref {
	if d.count == 0 {
		return noRef
	}
	if d.rehashing() {
		d.step(a, 1)
	}
	for t := 0; t < 2; t++ {
		tb := d.tab[t]
		if len(tb) == 0 {
			continue
		}
		for r := tb[h&uint32(len(tb)-1)]; r != noRef; {
			b := a.at(r)
			if d.hashOf(b) == h && bytes.Equal(recKey(b, d.hdr), key) {
				return r
			}
			r = recNextOf(b)
		}
		if !d.rehashing() {
			break
		}
	}
	return noRef
}

// add links record r, whose key is not present, with hash h. Bucket
// arrays are counted in a's accounting, as its chunks are.
func (d *dict) add(a *arena, r ref, h uint32) {
	if !d.rehashing() && d.count >= len(d.tab[0]) {
		d.resize(a, max(dictMinSize, 2*len(d.tab[0])))
	}
	if d.rehashing() {
		d.step(a, 1)
	}
	t := 0
	if d.rehashing() {
		t = 1
	}
	tb := d.tab[t]
	i := h & uint32(len(tb)-1)
	setRecNext(a.at(r), tb[i])
	tb[i] = r
	d.count++
}

// unlink removes record r, which has hash h, from its chain.
func (d *dict) unlink(a *arena, r ref, h uint32) {
	d.swap(a, r, h, recNextOf(a.at(r)))
	d.count--
	if d.count == 0 {
		a.acct.add(-d.arrayBytes())
		a.freeBuckets(d.tab[0])
		a.freeBuckets(d.tab[1])
		*d = newDict(d.hdr, d.hmask)
		return
	}
	if !d.rehashing() && len(d.tab[0]) > dictMinSize && d.count*8 < len(d.tab[0]) {
		d.resize(a, max(dictMinSize, 1<<bits.Len(uint(d.count))))
	}
}

// relink puts record nr where r, with the same key and hash h, was linked:
// a record that moved to a bigger chunk.
func (d *dict) relink(a *arena, r, nr ref, h uint32) {
	setRecNext(a.at(nr), recNextOf(a.at(r)))
	d.swap(a, r, h, nr)
}

// swap makes the link that points at r point at with.
func (d *dict) swap(a *arena, r ref, h uint32, with ref) {
	for t := 0; t < 2; t++ {
		tb := d.tab[t]
		if len(tb) == 0 {
			continue
		}
		i := h & uint32(len(tb)-1)
		if tb[i] == r {
			tb[i] = with
			return
		}
		for p := tb[i]; p != noRef; {
			b := a.at(p)
			n := recNextOf(b)
			if n == r {
				setRecNext(b, with)
				return
			}
			p = n
		}
	}
	panic("store: record not in its dict")
}

func (d *dict) arrayBytes() int64 { return int64(4 * (len(d.tab[0]) + len(d.tab[1]))) }

// resize starts a rehash into a table of n buckets (a power of two).
func (d *dict) resize(a *arena, n int) {
	n = min(n, 1<<dictMaxBits)
	if n == len(d.tab[0]) {
		return
	}
	a.acct.add(int64(4 * n))
	if len(d.tab[0]) == 0 {
		d.tab[0] = a.buckets(n, d.hdr == keyHdr)
		return
	}
	d.tab[1] = a.buckets(n, d.hdr == keyHdr)
	d.rehash = 0
}

// step moves up to n non-empty buckets of tab[0] into tab[1], visiting at
// most 10n empty ones, and finishes the rehash when tab[0] is empty.
func (d *dict) step(a *arena, n int) {
	if d.frozen {
		return
	}
	empty := n * 10
	old, nt := d.tab[0], d.tab[1]
	mask := uint32(len(nt) - 1)
	for ; n > 0 && d.rehash < len(old); d.rehash++ {
		r := old[d.rehash]
		if r == noRef {
			if empty--; empty == 0 {
				break
			}
			continue
		}
		for r != noRef {
			b := a.at(r)
			next := recNextOf(b)
			i := d.hashOf(b) & mask
			setRecNext(b, nt[i])
			nt[i] = r
			r = next
		}
		old[d.rehash] = noRef
		n--
	}
	if d.rehash >= len(old) {
		a.freeBuckets(old)
		d.tab[0], d.tab[1] = nt, nil
		d.rehash = -1
		a.acct.add(-int64(4 * len(old)))
	}
}

// scan visits the records of the bucket at cursor v and returns the next
// cursor, 0 at the end, walking buckets in reverse-binary order as Redis's
// dictScan does: during a rehash it visits the bucket of the smaller table
// and every bucket of the larger one that expands it, so a record present
// for the whole iteration is returned at least once.
func (d *dict) scan(a *arena, v uint64, fn func(r ref)) uint64 {
	if d.count == 0 {
		return 0
	}
	chain := func(tb []ref, i uint64) {
		for r := tb[i]; r != noRef; {
			next := recNextOf(a.at(r))
			fn(r)
			r = next
		}
	}
	if !d.rehashing() {
		m := uint64(len(d.tab[0]) - 1)
		chain(d.tab[0], v&m)
		return nextCursor(v, m)
	}
	small, big := d.tab[0], d.tab[1]
	if len(small) > len(big) {
		small, big = big, small
	}
	m0, m1 := uint64(len(small)-1), uint64(len(big)-1)
	chain(small, v&m0)
	for {
		chain(big, v&m1)
		v = nextCursor(v, m1)
		if v&(m0^m1) == 0 {
			break
		}
	}
	return v
}

// nextCursor increments the reversed bits of v under mask.
func nextCursor(v, mask uint64) uint64 {
	v |= ^mask
	v = bits.Reverse64(v)
	v++
	return bits.Reverse64(v)
}

// random returns a record chosen from a random non-empty bucket, then a
// random place in its chain (Redis's dictGetRandomKey), or noRef.
func (d *dict) random(a *arena, rnd func() uint64) ref {
	if d.count == 0 {
		return noRef
	}
	if d.rehashing() {
		d.step(a, 1)
	}
	var head ref
	for head == noRef {
		if d.rehashing() {
			// buckets below rehash are empty in tab[0]
			n0, n1 := len(d.tab[0]), len(d.tab[1])
			i := d.rehash + int(rnd()%uint64(n0+n1-d.rehash))
			if i < n0 {
				head = d.tab[0][i]
			} else {
				head = d.tab[1][i-n0]
			}
		} else {
			head = d.tab[0][rnd()&uint64(len(d.tab[0])-1)]
		}
	}
	n := 0
	for r := head; r != noRef; r = recNextOf(a.at(r)) {
		n++
	}
	r := head
	for k := rnd() % uint64(n); k > 0; k-- {
		r = recNextOf(a.at(r))
	}
	return r
}

// each calls fn with every record until fn returns false. fn must not add
// or remove records.
func (d *dict) each(a *arena, fn func(r ref) bool) {
	for t := 0; t < 2; t++ {
		for _, r := range d.tab[t] {
			for r != noRef {
				next := recNextOf(a.at(r))
				if !fn(r) {
					return
				}
				r = next
			}
		}
	}
}
