package store

import (
	"strconv"

	"github.com/loopkv/loopkv/store/intset"
	"github.com/loopkv/loopkv/store/listpack"
)

// Value is a read-only view of one key and its value, for a snapshot's
// walk (Snapshot.Each) and for View: RDB writing, DUMP, DEBUG OBJECT. It
// and every slice it gives are valid only during the callback that
// received it.
type Value struct {
	Key      []byte
	Type     Type     // TypeString, TypeList, TypeSet, TypeZSet, TypeHash
	Enc      Encoding // as OBJECT ENCODING names it
	ExpireAt int64    // Unix ms; 0 for no TTL
	Idle     int64    // seconds since the last access (RDB's IDLE); 0 from View, whose access is now
	Freq     uint8    // the LFU counter, decayed to the view's instant (RDB's FREQ); meaningful under an LFU policy only
	// Raw is a string's bytes (an int-encoded one as its decimal text), or
	// the listpack or intset of a compact aggregate, in Redis's byte
	// format; nil for the hashtable, quicklist and skiplist encodings.
	Raw []byte

	t   *keyTable   // the table (or its snapshot copy) holding the value
	val []byte      // the record's value bytes
	num [2][20]byte // scratch for integers of compact values
}

// fill makes v the view of key record b of table t at Unix ms now, m the
// store's LFU settings.
func (v *Value) fill(t *keyTable, b []byte, now int64, m *lfuMode) {
	v.t = t
	v.Key = recKeyOf(b)
	v.Type = recType(b)
	v.Enc = recEnc(b)
	v.ExpireAt = recExpire(b)
	v.Idle = int64(lruIdle(lruClock(now), recLRU(b)) / lruClockResolution)
	v.Freq = m.decayed(recLRU(b), now)
	v.val = recVal(b)
	v.Raw = nil
	switch {
	case v.Type == TypeString, v.Enc == EncListpack, v.Enc == EncIntset:
		v.Raw = v.val
	}
}

// obj returns the dict of a hashtable or skiplist value.
func (v *Value) obj() *dict { return &v.t.objs[le.Uint32(v.val)] }

// Len returns the number of fields (hash), members (set, sorted set) or
// elements (list); a string's length in bytes.
func (v *Value) Len() int {
	switch {
	case v.Type == TypeString:
		return len(v.val)
	case v.Type == TypeList:
		return listHdr(v.val).count()
	case v.Type == TypeStream:
		return int(streamHdr(v.val).length())
	case v.Enc == EncHashtable:
		return v.obj().count
	case v.Enc == EncSkiplist:
		return zsl{a: &v.t.a, hdr: v.val}.count()
	case v.Enc == EncIntset:
		return intset.Len(v.val)
	case v.Type == TypeSet:
		return listpack.Len(v.val)
	}
	return listpack.Len(v.val) / 2 // a listpack hash or sorted set
}

// Each calls fn with every entry of an aggregate, in every encoding, until
// fn returns false: a hash's field and value (a, b); a set's member (a); a
// sorted set's member and score (a, score), in ascending order; a list's
// elements (a), head to tail. The slices are valid only during the call.
// A string has no entries.
func (v *Value) Each(fn func(a, b []byte, score float64) bool) {
	switch {
	case v.Type == TypeString, v.Type == TypeStream: // a stream's are StreamEntries
	case v.Type == TypeList:
		v.Nodes(func(lp []byte) bool {
			for off := listpack.First(lp); off >= 0; off = listpack.Next(lp, off) {
				if !fn(listpack.Value(lp, off, v.num[0][:0]), nil, 0) {
					return false
				}
			}
			return true
		})
	case v.Enc == EncSkiplist:
		z := zsl{a: &v.t.a, hdr: v.val}
		for x := z.fwd(noRef, 0); x != noRef; x = z.fwd(x, 0) {
			if !fn(z.member(x), nil, z.score(x)) {
				return
			}
		}
	case v.Enc == EncHashtable:
		a, hash := &v.t.a, v.Type == TypeHash
		v.obj().each(a, func(r ref) bool {
			b := a.at(r)
			if hash {
				return fn(recKey(b, fieldHdr), fieldVal(b), 0)
			}
			return fn(recKey(b, fieldHdr), nil, 0)
		})
	case v.Enc == EncIntset:
		for i, n := 0, intset.Len(v.val); i < n; i++ {
			if !fn(strconv.AppendInt(v.num[0][:0], intset.Get(v.val, i), 10), nil, 0) {
				return
			}
		}
	case v.Type == TypeSet:
		lpEachUntil(v.val, v.num[0][:0], func(m []byte) bool { return fn(m, nil, 0) })
	case v.Type == TypeHash:
		lp := v.val
		for off := listpack.First(lp); off >= 0; {
			f := listpack.Value(lp, off, v.num[0][:0])
			off = listpack.Next(lp, off)
			if !fn(f, listpack.Value(lp, off, v.num[1][:0]), 0) {
				return
			}
			off = listpack.Next(lp, off)
		}
	case v.Type == TypeZSet:
		lp := v.val
		for off := listpack.First(lp); off >= 0; {
			soff := listpack.Next(lp, off)
			if !fn(listpack.Value(lp, off, v.num[0][:0]), nil, lpScore(lp, soff)) {
				return
			}
			off = listpack.Next(lp, soff)
		}
	}
}

// lpEachUntil calls fn with each element of a listpack until fn returns
// false; integers are formatted into scratch.
func lpEachUntil(lp, scratch []byte, fn func(e []byte) bool) {
	for off := listpack.First(lp); off >= 0; off = listpack.Next(lp, off) {
		if !fn(listpack.Value(lp, off, scratch[:0])) {
			return
		}
	}
}

// Nodes calls fn with each node's listpack of a list (quicklist), head to
// tail, until fn returns false, as RDB's quicklist 2 encoding stores them.
func (v *Value) Nodes(fn func(lp []byte) bool) {
	if v.Type != TypeList {
		return
	}
	a := &v.t.a
	for r := listHdr(v.val).head(); r != noRef; r = nodeNext(a.at(r)) {
		lp := nodeLP(a.at(r))
		if !fn(lp[:len(lp):len(lp)]) {
			return
		}
	}
}

// View calls fn with key's value under its shard lock, for DUMP and DEBUG
// OBJECT, and reports whether key exists. It counts as a keyspace read and
// stamps the key's LRU clock. fn must not keep v nor call the store.
func (s *Store) View(db int, key []byte, now int64, fn func(v *Value)) bool {
	var k kv
	s.acquireReadInto(&k, db, key, now)
	defer k.release()
	if !k.exists() {
		return false
	}
	v := &k.sh.view
	v.fill(k.t, k.rec(), now, &s.lfu)
	fn(v)
	*v = Value{}
	return true
}
