package store

import (
	"hash/maphash"
	"unsafe"

	"github.com/loopkv/loopkv/store/listpack"
)

// Aggregate values (hashes, sets, and later sorted sets and lists) share
// the machinery of this file. A small aggregate is one compact byte string
// in its key record (a listpack, or an intset for small all-integer sets),
// edited in place inside the record's chunk: room reserves capacity and
// setLen commits the new length. Past its type's thresholds (Limits) it is
// converted once to a hash table of field records (toHashtable), a dict
// living in the same arena as the keys, so that a big hash costs the
// garbage collector one bucket array, not one object per field.

// Limits are the thresholds at which compact encodings convert to hash
// tables, Redis's settings of the same names.
type Limits struct {
	HashMaxListpackEntries int // hash-max-listpack-entries, default 128
	HashMaxListpackValue   int // hash-max-listpack-value, default 64
	SetMaxIntsetEntries    int // set-max-intset-entries, default 512
	SetMaxListpackEntries  int // set-max-listpack-entries, default 128
	SetMaxListpackValue    int // set-max-listpack-value, default 64
	ZSetMaxListpackEntries int // zset-max-listpack-entries, default 128
	ZSetMaxListpackValue   int // zset-max-listpack-value, default 64
	ListMaxListpackSize    int // list-max-listpack-size, default -2 (8 KiB nodes)
	ListCompressDepth      int // list-compress-depth, default 0
	HLLSparseMaxBytes      int // hll-sparse-max-bytes, default 3000
	StreamNodeMaxBytes     int // stream-node-max-bytes, default 4096 (0: no limit)
	StreamNodeMaxEntries   int // stream-node-max-entries, default 100 (0: no limit)
}

// DefaultLimits are Redis 7.0's defaults.
var DefaultLimits = Limits{
	HashMaxListpackEntries: 128, HashMaxListpackValue: 64,
	SetMaxIntsetEntries: 512, SetMaxListpackEntries: 128, SetMaxListpackValue: 64,
	ZSetMaxListpackEntries: 128, ZSetMaxListpackValue: 64,
	ListMaxListpackSize: -2,
	HLLSparseMaxBytes:   3000,
	StreamNodeMaxBytes:  4096, StreamNodeMaxEntries: 100,
}

// SetLimits changes the conversion thresholds (CONFIG SET). Values already
// converted stay as they are, as in Redis.
func (s *Store) SetLimits(l Limits) { s.limits.Store(&l) }

// Limits returns the conversion thresholds in force.
func (s *Store) Limits() Limits { return *s.limitsNow() }

func (s *Store) limitsNow() *Limits {
	if l := s.limits.Load(); l != nil {
		return l
	}
	return &DefaultLimits
}

// room returns the compact value with its length unchanged and capacity for
// at least add more bytes, moving the record to a bigger chunk when needed
// (reserving as much again, so that a growing value moves O(log n) times).
// The caller edits it with a listpack or intset mutator, which then works
// in place, and commits the new length with setLen.
func (k *kv) room(add int) []byte {
	b := k.rec()
	n := recVlenOf(b)
	if n+add > recCap(b) {
		k.r, b = k.t.relocate(k.r, n, n+add+n/2, n)
	}
	off := keyHdr + recKlenOf(b)
	return b[off : off+n : off+recCap(b)]
}

// setLen commits the compact value's new length after an in-place edit of
// the slice room returned. edited must be that slice's result: a mutator
// that had to allocate (room too small) would have lost the edit.
func (k *kv) setLen(edited []byte) {
	b := k.rec()
	off := keyHdr + recKlenOf(b)
	if len(edited) > 0 && unsafe.SliceData(edited) != &b[off] {
		panic("store: compact value edited out of place")
	}
	setRecVlen(b, len(edited))
	if c := recCap(b); c > 256 && len(edited) < c/4 {
		k.r, _ = k.t.relocate(k.r, len(edited), len(edited)+len(edited)/2, len(edited))
	}
}

// createCompact creates key as an empty compact value of type t and
// encoding e (a listpack or an intset written by init into the record).
func (k *kv) createCompact(key []byte, t Type, e Encoding, init func(dst []byte) []byte, vcap int) {
	var tmp [16]byte
	v := init(tmp[:0])
	k.create(key, t, e, v, max(vcap, 64), 0)
}

// lpAppend appends elems to a listpack value.
func (k *kv) lpAppend(elems ...[]byte) {
	add := 0
	for _, e := range elems {
		add += listpack.EncodedSize(e)
	}
	lp := k.room(add)
	for _, e := range elems {
		lp = listpack.AppendString(lp, e)
	}
	k.setLen(lp)
}

// lpRemove deletes from a listpack value the first entry equal to e among
// every (skip+1)th from the first (skip 1: a hash's fields), with the
// count-1 entries after it, and reports whether e was there.
func (k *kv) lpRemove(e []byte, skip, count int) bool {
	lp := k.val()
	off := listpack.Find(lp, listpack.First(lp), e, skip)
	if off < 0 {
		return false
	}
	k.setLen(listpack.Delete(k.room(0), off, count))
	return true
}

// Field records: the values of a hash table (hash fields with their values,
// set members with an empty value) are dict records of fieldHdr bytes,
// then the field, then the value, each in a chunk of exactly its size.

// fieldHash hashes a field of an aggregate with the store's seed.
func (s *Store) fieldHash(f []byte) uint32 { return uint32(maphash.Bytes(s.seed, f)) }

func fieldVal(b []byte) []byte {
	off := fieldHdr + recKlenOf(b)
	return b[off : off+recVlenOf(b) : off+recVlenOf(b)]
}

// newField allocates a field record.
func (t *keyTable) newField(h uint32, f, v []byte) ref {
	r, _, b := t.a.alloc(fieldHdr + len(f) + len(v))
	le.PutUint32(b[recHash:], h)
	le.PutUint32(b[recKlen:], uint32(len(f)))
	setRecVlen(b, len(v))
	copy(b[fieldHdr:], f)
	copy(b[fieldHdr+len(f):], v)
	return r
}

func (t *keyTable) freeField(r ref) {
	b := t.a.at(r)
	n := fieldHdr + recKlenOf(b) + recVlenOf(b)
	t.a.release(r, classOf(n), n)
}

// newHashtable makes a value an empty hash table and returns the 4-byte
// value that names it.
func (t *keyTable) newHashtable() [4]byte {
	var idx [4]byte
	le.PutUint32(idx[:], uint32(t.newObj(newDict(fieldHdr, ^uint32(0)))))
	return idx
}

// fieldGet returns the value of field f of a hash-table value, ok false
// when f is absent.
func (k *kv) fieldGet(f []byte) (v []byte, ok bool) {
	d := k.obj()
	r := d.find(&k.t.a, k.s.fieldHash(f), f)
	if r == noRef {
		return nil, false
	}
	return fieldVal(k.t.a.at(r)), true
}

// fieldPut sets field f of a hash-table value to v and reports whether f
// is new. A value of another size moves the record.
func (k *kv) fieldPut(f, v []byte) bool {
	d := k.obj()
	h := k.s.fieldHash(f)
	r := d.find(&k.t.a, h, f)
	if r == noRef {
		d.add(&k.t.a, k.t.newField(h, f, v), h)
		return true
	}
	b := k.t.a.at(r)
	if recVlenOf(b) == len(v) {
		copy(fieldVal(b), v)
		return false
	}
	nr := k.t.newField(h, f, v)
	d.relink(&k.t.a, r, nr, h)
	k.t.freeField(r)
	return false
}

// fieldDel deletes field f of a hash-table value and reports whether it
// was there. The caller deletes the key when the count reaches 0.
func (k *kv) fieldDel(f []byte) bool {
	d := k.obj()
	h := k.s.fieldHash(f)
	r := d.find(&k.t.a, h, f)
	if r == noRef {
		return false
	}
	d.unlink(&k.t.a, r, h)
	k.t.freeField(r)
	return true
}

// fieldEach calls fn with every field and value of a hash-table value until
// fn returns false. fn must not change the value.
func (k *kv) fieldEach(fn func(f, v []byte) bool) {
	a := &k.t.a
	k.obj().each(a, func(r ref) bool {
		b := a.at(r)
		return fn(recKey(b, fieldHdr), fieldVal(b))
	})
}

// fieldRandom returns a random field and its value of a non-empty
// hash-table value; the views are valid until the value changes.
func (k *kv) fieldRandom() (f, v []byte) {
	r := k.obj().random(&k.t.a, k.sh.rand)
	b := k.t.a.at(r)
	return recKey(b, fieldHdr), fieldVal(b)
}

// count returns the number of entries of a hash-table value.
func (k *kv) fieldCount() int { return k.obj().count }

// toHashtable converts a compact value to a hash table of the entries each
// yields (lpEachPair for a hash's listpack; for a set's listpack or intset,
// each member with an empty value).
func (k *kv) toHashtable(each func(fn func(f, v []byte))) {
	idx := k.t.newHashtable()
	// fill the new table first: the compact value stays valid meanwhile.
	// The closure captures no k, so that the callers' kv stays on their
	// stack (a captured k would escape with the closure).
	s, t := k.s, k.t
	d := &t.objs[le.Uint32(idx[:])]
	each(func(f, v []byte) {
		h := s.fieldHash(f)
		d.add(&t.a, t.newField(h, f, v), h)
	})
	k.setVal(idx[:])
	k.setEnc(EncHashtable)
}

// lpEachPair calls fn with each field/value pair of a listpack (values are
// views; integers are formatted into scratch, so fn must copy before the
// next call).
func lpEachPair(lp []byte, fn func(f, v []byte)) {
	var fs, vs [20]byte
	for off := listpack.First(lp); off >= 0; {
		f := listpack.Value(lp, off, fs[:0])
		off = listpack.Next(lp, off)
		v := listpack.Value(lp, off, vs[:0])
		off = listpack.Next(lp, off)
		fn(f, v)
	}
}

// lpEach calls fn with each element of a listpack.
func lpEach(lp []byte, fn func(e []byte)) {
	var es [20]byte
	for off := listpack.First(lp); off >= 0; off = listpack.Next(lp, off) {
		fn(listpack.Value(lp, off, es[:0]))
	}
}

// lpRandomEntries calls fn with the offsets of n entries of a non-empty
// listpack picked at random, repeats allowed, until fn returns false: each
// the first of a group of stride entries (2 for a hash's field/value
// pairs). As Redis's lpRandomPairs it finds the entries without walking
// the listpack for each pick (up to 256 groups).
func lpRandomEntries(lp []byte, stride int, n uint64, rand func() uint64, fn func(off int) bool) {
	groups := listpack.Len(lp) / stride
	var offs [256]int32
	if groups <= len(offs) {
		i := 0
		for off := listpack.First(lp); off >= 0; i++ {
			offs[i] = int32(off)
			for j := 0; j < stride && off >= 0; j++ {
				off = listpack.Next(lp, off)
			}
		}
	}
	for ; n > 0; n-- {
		i := int(rand() % uint64(groups))
		off := 0
		if groups <= len(offs) {
			off = int(offs[i])
		} else {
			off = listpack.Seek(lp, stride*i)
		}
		if !fn(off) {
			return
		}
	}
}
