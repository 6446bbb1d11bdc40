package store

import (
	"bytes"

	"github.com/loopkv/loopkv/store/listpack"
)

// The list operations of Redis 7.0's t_list.c. Each starts with open and
// works on the quicklist through list.go. Replies are appended to dst under
// the shard lock: head (when not nil) with the number of elements, then
// each element through enc.

// listFill is list-max-listpack-size in force.
func (s *Store) listFill() int { return s.limitsNow().ListMaxListpackSize }

// LPush adds elems at end e one by one (so LPUSH k a b c leaves c first),
// creating key unless onlyExisting (LPUSHX, RPUSHX), and returns the new
// length: 0 when onlyExisting and key does not exist.
func (s *Store) LPush(db int, key []byte, e ListEnd, elems [][]byte, onlyExisting bool, now int64) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeList, forWrite)
	defer k.release()
	if st != OK {
		return 0, st
	}
	if !k.exists() {
		if onlyExisting {
			return 0, OK
		}
		k.listCreate(key)
	}
	fill := s.listFill()
	for _, el := range elems {
		k.listPush(el, e, fill)
	}
	return k.listHdr().count(), OK
}

// LLen returns the length of key's list, 0 when it does not exist.
func (s *Store) LLen(db int, key []byte, now int64) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeList, forRead)
	defer k.release()
	if st != OK {
		return 0, okIfMissing(st)
	}
	return k.listHdr().count(), OK
}

// okIfMissing turns NotFound into OK, for replies where a missing key is
// an empty value.
func okIfMissing(st Status) Status {
	if st == NotFound {
		return OK
	}
	return st
}

// LPop removes up to count elements from end e of key's list and appends
// them through head and enc (head gets the number actually popped). It
// returns NotFound, leaving dst alone, when key does not exist; the key is
// deleted when its last element goes.
func (s *Store) LPop(db int, key []byte, e ListEnd, count int, now int64, dst []byte, head func([]byte, int) []byte, enc EncodeFunc) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeList, forUpdate)
	defer k.release()
	if st != OK {
		return dst, st
	}
	return k.listPopN(e, count, dst, head, enc), OK
}

// listPopN pops up to count elements from end e into dst.
func (k *kv) listPopN(e ListEnd, count int, dst []byte, head func([]byte, int) []byte, enc EncodeFunc) []byte {
	n := min(count, k.listHdr().count())
	if head != nil {
		dst = head(dst, n)
	}
	i := 0
	k.listEach(e == ListTail, func(el []byte) bool {
		if i == n {
			return false
		}
		dst = enc(dst, el)
		i++
		return true
	})
	k.listDrop(e, n)
	if k.listHdr().count() == 0 {
		k.del()
	}
	return dst
}

// LIndex appends the element at index (negative counts from the tail)
// through enc. It returns NotFound when key does not exist or index is out
// of range.
func (s *Store) LIndex(db int, key []byte, index int64, now int64, dst []byte, enc EncodeFunc) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeList, forRead)
	defer k.release()
	if st != OK {
		return dst, st
	}
	p, ok := k.listSeek(clampIndex(index))
	if !ok {
		return dst, NotFound
	}
	return enc(dst, k.listGet(p)), OK
}

// clampIndex keeps a client's index within int range for listSeek; any
// index that far out is out of range anyway.
func clampIndex(i int64) int {
	const lim = 1 << 40
	return int(max(min(i, lim), -lim))
}

// LSet replaces the element at index. It returns NotFound when key does
// not exist and OutOfRange when index is out of range.
func (s *Store) LSet(db int, key []byte, index int64, elem []byte, now int64) Status {
	var k kv
	st := s.openInto(&k, db, key, now, TypeList, forUpdate)
	defer k.release()
	if st != OK {
		return st
	}
	p, ok := k.listSeek(clampIndex(index))
	if !ok {
		return OutOfRange
	}
	k.listReplace(p, elem, s.listFill())
	return OK
}

// listRange normalises start and stop as LRANGE and LTRIM do and returns
// the first index and the number of elements, 0 when the range is empty.
func listRange(start, stop int64, n int) (int, int) {
	ln := int64(n)
	if start < 0 {
		start += ln
	}
	if stop < 0 {
		stop += ln
	}
	start = max(start, 0)
	if start > stop || start >= ln {
		return 0, 0
	}
	stop = min(stop, ln-1)
	return int(start), int(stop - start + 1)
}

// LRange appends the elements from start to stop (inclusive, negative
// from the tail) through head and enc. A missing key is an empty list.
func (s *Store) LRange(db int, key []byte, start, stop int64, now int64, dst []byte, head func([]byte, int) []byte, enc EncodeFunc) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeList, forRead)
	defer k.release()
	if st != OK {
		if st == NotFound {
			return head(dst, 0), OK
		}
		return dst, st
	}
	first, n := listRange(start, stop, k.listHdr().count())
	dst = head(dst, n)
	if n == 0 {
		return dst, OK
	}
	// Node by node: each node's listpack is found once, and each element
	// decoded once (enc appends to dst and never touches the store).
	p, _ := k.listSeek(first)
	a, scratch := &k.t.a, k.sh.num[0][:0]
	r, off := p.node, p.off
	for {
		lp := nodeLP(a.at(r))
		for off >= 0 {
			var v []byte
			v, off = listpack.ValueNext(lp, off, scratch)
			dst = enc(dst, v)
			if n--; n == 0 {
				return dst, OK
			}
		}
		r = nodeNext(a.at(r)) // n > 0 elements follow, so r is a node, never empty
		off = listpack.First(nodeLP(a.at(r)))
	}
}

// LTrim keeps only the elements from start to stop, deleting the key when
// none remain. A missing key is not an error.
func (s *Store) LTrim(db int, key []byte, start, stop int64, now int64) Status {
	var k kv
	st := s.openInto(&k, db, key, now, TypeList, forUpdate)
	defer k.release()
	if st != OK {
		return okIfMissing(st)
	}
	n := k.listHdr().count()
	first, keep := listRange(start, stop, n)
	k.listDrop(ListHead, first)
	k.listDrop(ListTail, n-first-keep)
	if k.listHdr().count() == 0 {
		k.del()
	}
	return OK
}

// LRem removes the first count elements equal to elem (from the tail when
// count < 0, all when 0) and returns how many it removed.
func (s *Store) LRem(db int, key []byte, count int64, elem []byte, now int64) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeList, forUpdate)
	defer k.release()
	if st != OK {
		return 0, okIfMissing(st)
	}
	removed := 0
	if count >= 0 {
		p, ok := k.listSeek(0)
		for ok && (count == 0 || int64(removed) < count) {
			if bytes.Equal(k.listGet(p), elem) {
				p, ok = k.listDelete(p)
				removed++
				continue
			}
			p, ok = k.listNext(p)
		}
	} else {
		p, ok := k.listSeek(-1)
		for ok && int64(removed) < -count {
			if bytes.Equal(k.listGet(p), elem) {
				prev, pok := k.listPrev(p)
				var pnode ref
				if pok {
					pnode = prev.node
				}
				k.listDelete(p)
				removed++
				if !pok {
					break
				}
				// the previous entry's offset is unchanged: the deletion was
				// after it, in its node or in a later one
				p, ok = listPos{pnode, prev.off}, true
				continue
			}
			p, ok = k.listPrev(p)
		}
	}
	if k.listHdr().count() == 0 {
		k.del()
	}
	return removed, OK
}

// LInsert inserts elem before (or after, when after) the first element
// equal to pivot and returns the new length, -1 when pivot is not there,
// 0 when key does not exist.
func (s *Store) LInsert(db int, key []byte, after bool, pivot, elem []byte, now int64) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeList, forUpdate)
	defer k.release()
	if st != OK {
		return 0, okIfMissing(st)
	}
	for p, ok := k.listSeek(0); ok; p, ok = k.listNext(p) {
		if bytes.Equal(k.listGet(p), pivot) {
			k.listInsert(p, elem, after, s.listFill())
			return k.listHdr().count(), OK
		}
	}
	return -1, OK
}

// LPosOptions are LPOS's RANK, COUNT and MAXLEN.
type LPosOptions struct {
	Rank   int64 // 1-based; negative searches from the tail; never 0
	Count  int64 // matches to return; 0 is all
	MaxLen int64 // elements to compare at most; 0 is all
}

// LPos calls fn with the index of each element equal to elem, as LPOS
// finds them, and returns the number of matches. A missing key has none.
func (s *Store) LPos(db int, key, elem []byte, o LPosOptions, now int64, fn func(index int)) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeList, forRead)
	defer k.release()
	if st != OK {
		return 0, okIfMissing(st)
	}
	n := k.listHdr().count()
	rev := o.Rank < 0
	skip := o.Rank
	if rev {
		skip = -skip
	}
	skip--
	matches, idx := 0, 0
	var p listPos
	var ok bool
	if rev {
		p, ok = k.listSeek(-1)
	} else {
		p, ok = k.listSeek(0)
	}
	for ; ok && (o.MaxLen == 0 || int64(idx) < o.MaxLen); idx++ {
		if bytes.Equal(k.listGet(p), elem) {
			if skip > 0 {
				skip--
			} else {
				pos := idx
				if rev {
					pos = n - 1 - idx
				}
				fn(pos)
				matches++
				if o.Count != 0 && int64(matches) >= o.Count {
					break
				}
			}
		}
		if rev {
			p, ok = k.listPrev(p)
		} else {
			p, ok = k.listNext(p)
		}
	}
	return matches, OK
}

// LMove pops an element from end from of src and pushes it at end to of
// dst (which may be src), appending the element through enc. It returns
// NotFound when src does not exist and WrongType when src or an existing
// dst is not a list (checked before anything moves).
func (s *Store) LMove(db int, src, dst []byte, from, to ListEnd, now int64, out []byte, enc EncodeFunc) ([]byte, Status) {
	var m shardSet
	m.add(s.shardIndex(src))
	m.add(s.shardIndex(dst))
	s.lockSet(&m)
	defer s.unlockSet(&m)
	var ks kv
	s.findInto(&ks, db, src, now, true)
	if !ks.exists() {
		return out, NotFound
	}
	if st := ks.check(TypeList); st != OK {
		return out, st
	}
	var kd kv
	s.findInto(&kd, db, dst, now, false)
	if st := kd.check(TypeList); st != OK {
		return out, st
	}
	sh := ks.sh
	ks.listPop(from, func(e []byte) {
		sh.moving = append(sh.moving[:0], e...) // a copy: the push below may reuse the chunk
		out = enc(out, e)
	})
	el := sh.moving
	if ks.listHdr().count() == 0 {
		ks.del()
	}
	s.findInto(&kd, db, dst, now, false) // src's deletion may have been dst
	if !kd.exists() {
		kd.listCreate(dst)
	}
	kd.listPush(el, to, s.listFill())
	return out, OK
}

// LMPop pops up to count elements from end e of the first non-empty list
// among keys, appending through found (with the key, and the number of
// elements) and enc. It returns NotFound when every key is missing, and
// WrongType at the first key of another type, as Redis's LMPOP.
func (s *Store) LMPop(db int, keys [][]byte, e ListEnd, count int, now int64, dst []byte, found func(dst, key []byte, n int) []byte, enc EncodeFunc) ([]byte, Status) {
	st := s.mpop(db, keys, TypeList, now, func(k *kv, key []byte) {
		n := min(count, k.listHdr().count())
		dst = found(dst, key, n)
		dst = k.listPopN(e, n, dst, nil, enc)
	})
	return dst, st
}

// mpop calls pop with the first of keys that exists, when it holds a
// value of type t, and returns its status: NotFound when every key is
// missing, WrongType at the first of another type (LMPOP, ZMPOP).
func (s *Store) mpop(db int, keys [][]byte, t Type, now int64, pop func(k *kv, key []byte)) Status {
	for _, key := range keys {
		var k kv
		st := s.openInto(&k, db, key, now, t, forUpdate)
		if st == OK {
			pop(&k, key)
		}
		k.release()
		if st != NotFound {
			return st
		}
	}
	return NotFound
}
