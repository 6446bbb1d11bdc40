package store

import (
	"bytes"
	"math"
	"strconv"
	"unsafe"

	"github.com/loopkv/loopkv/store/listpack"
)

// Sorted sets (Redis t_zset.c). A small sorted set is a listpack of
// member, score, member, score ... ordered by score, then by member (bytes
// compared as memcmp does), the score written as Redis's d2string writes
// it (an integer entry when the score is integral and within ±2^52).
// It becomes a skiplist once, never back: when a member to insert is
// longer than ZSetMaxListpackValue, when an insert would pass
// ZSetMaxListpackEntries members or listpack.MaxSafeSize bytes, and for a
// new key when the thresholds say so for its first member (as Redis 7.0's
// ZADD checks before it creates the key).
//
// The skiplist is pointer-free, like the rest of the keyspace: each member
// is one record of the key's arena, linked both in a dict keyed by member
// (the value's objs entry, so that lookups, ZSCAN and lazy freeing are the
// hash table's) and in the skiplist, whose levels live in the record's
// value part:
//
//	0  score  float64
//	8  back   ref     the previous member, noRef for the first
//	12 levels uint32
//	16 levels × (forward ref, span uint32)
//
// The key record's value holds the skiplist header, a fixed size so the
// record never moves:
//
//	0  obj    uint32  index of the member dict in keyTable.objs
//	4  level  uint32  levels in use
//	8  tail   ref     the last member
//	12 count  uint32  members
//	16 zslMaxLevel × (forward ref, span uint32)
//
// Ranks are counted with the spans, as Redis's zskiplist does, so ZRANK,
// ZRANGE by rank and ZCOUNT are O(log n). The garbage collector sees the
// dict's bucket arrays only. Deleting the last member deletes the key.

const (
	zslMaxLevel = 32
	zslHdrLevel = 16
	zslHdrSize  = zslHdrLevel + 8*zslMaxLevel
	znScore     = 0
	znBack      = 8
	znLevels    = 12
	znLevel     = 16
)

// zsl is a view of one skiplist: its header (in the key record) and the
// arena of its members. A node ref of noRef names the header.
type zsl struct {
	a   *arena
	hdr []byte
}

func (k *kv) zsl() zsl { return zsl{a: &k.t.a, hdr: k.val()} }

func (z zsl) level() int        { return int(le.Uint32(z.hdr[4:])) }
func (z zsl) setLevel(n int)    { le.PutUint32(z.hdr[4:], uint32(n)) }
func (z zsl) tail() ref         { return ref(le.Uint32(z.hdr[8:])) }
func (z zsl) setTail(r ref)     { le.PutUint32(z.hdr[8:], uint32(r)) }
func (z zsl) node(r ref) []byte { b := z.a.at(r); return b[fieldHdr+recKlenOf(b):] }

// lvl returns level i of node x (the header when x is noRef): forward ref
// and span.
func (z zsl) lvl(x ref, i int) []byte {
	if x == noRef {
		return z.hdr[zslHdrLevel+8*i:]
	}
	return z.node(x)[znLevel+8*i:]
}
func (z zsl) fwd(x ref, i int) ref  { return ref(le.Uint32(z.lvl(x, i))) }
func (z zsl) span(x ref, i int) int { return int(le.Uint32(z.lvl(x, i)[4:])) }
func (z zsl) set(x ref, i int, f ref, span int) {
	l := z.lvl(x, i)
	le.PutUint32(l, uint32(f))
	le.PutUint32(l[4:], uint32(span))
}
func (z zsl) score(x ref) float64 { return math.Float64frombits(le.Uint64(z.node(x)[znScore:])) }
func (z zsl) setScore(x ref, f float64) {
	le.PutUint64(z.node(x)[znScore:], math.Float64bits(f))
}
func (z zsl) member(x ref) []byte { return recKey(z.a.at(x), fieldHdr) }
func (z zsl) back(x ref) ref      { return ref(le.Uint32(z.node(x)[znBack:])) }
func (z zsl) setBack(x, b ref)    { le.PutUint32(z.node(x)[znBack:], uint32(b)) }
func (z zsl) levels(x ref) int    { return int(le.Uint32(z.node(x)[znLevels:])) }

// zless reports whether (s1, m1) sorts before (s2, m2).
func zless(s1 float64, m1 []byte, s2 float64, m2 []byte) bool {
	return s1 < s2 || (s1 == s2 && bytes.Compare(m1, m2) < 0)
}

// randomLevel draws a level as Redis's zslRandomLevel: each next level
// with probability 1/4.
func (sh *shard) zslRandomLevel() int {
	l := 1
	for l < zslMaxLevel {
		r := sh.rand()
		if r&0xFFFF >= 0xFFFF/4 {
			break
		}
		l++
		// use the other bits before drawing again
		for r >>= 16; r != 0 && l < zslMaxLevel; r >>= 16 {
			if r&0xFFFF >= 0xFFFF/4 {
				return l
			}
			l++
		}
	}
	return l
}

// newZNode allocates a member record with lvl levels (not yet linked).
func (t *keyTable) newZNode(h uint32, m []byte, score float64, lvl int) ref {
	vlen := znLevel + 8*lvl
	r, _, b := t.a.alloc(fieldHdr + len(m) + vlen)
	le.PutUint32(b[recHash:], h)
	le.PutUint32(b[recKlen:], uint32(len(m)))
	setRecVlen(b, vlen)
	copy(b[fieldHdr:], m)
	v := b[fieldHdr+len(m):]
	le.PutUint64(v[znScore:], math.Float64bits(score))
	le.PutUint32(v[znBack:], 0)
	le.PutUint32(v[znLevels:], uint32(lvl))
	return r
}

// link inserts node x, whose score and member are set, at its place.
func (z zsl) link(x ref) {
	var update [zslMaxLevel]ref
	var rank [zslMaxLevel]int
	score, m := z.score(x), z.member(x)
	p := noRef
	for i := z.level() - 1; i >= 0; i-- {
		if i < z.level()-1 {
			rank[i] = rank[i+1]
		}
		for f := z.fwd(p, i); f != noRef && zless(z.score(f), z.member(f), score, m); f = z.fwd(p, i) {
			rank[i] += z.span(p, i)
			p = f
		}
		update[i] = p
	}
	lvl := z.levels(x)
	if lvl > z.level() {
		n := z.count()
		for i := z.level(); i < lvl; i++ {
			rank[i] = 0
			update[i] = noRef
			z.set(noRef, i, noRef, n)
		}
		z.setLevel(lvl)
	}
	for i := 0; i < lvl; i++ {
		u := update[i]
		z.set(x, i, z.fwd(u, i), z.span(u, i)-(rank[0]-rank[i]))
		z.set(u, i, x, rank[0]-rank[i]+1)
	}
	for i := lvl; i < z.level(); i++ {
		z.set(update[i], i, z.fwd(update[i], i), z.span(update[i], i)+1)
	}
	if update[0] == noRef {
		z.setBack(x, noRef)
	} else {
		z.setBack(x, update[0])
	}
	if f := z.fwd(x, 0); f != noRef {
		z.setBack(f, x)
	} else {
		z.setTail(x)
	}
	z.addCount(1)
}

// unlink removes node x from the skiplist (its record stays).
func (z zsl) unlink(x ref) {
	var update [zslMaxLevel]ref
	score, m := z.score(x), z.member(x)
	p := noRef
	for i := z.level() - 1; i >= 0; i-- {
		for f := z.fwd(p, i); f != noRef && f != x && zless(z.score(f), z.member(f), score, m); f = z.fwd(p, i) {
			p = f
		}
		update[i] = p
	}
	for i := 0; i < z.level(); i++ {
		u := update[i]
		if z.fwd(u, i) == x {
			z.set(u, i, z.fwd(x, i), z.span(u, i)+z.span(x, i)-1)
		} else {
			z.set(u, i, z.fwd(u, i), z.span(u, i)-1)
		}
	}
	if f := z.fwd(x, 0); f != noRef {
		z.setBack(f, z.back(x))
	} else {
		z.setTail(z.back(x))
	}
	for z.level() > 1 && z.fwd(noRef, z.level()-1) == noRef {
		z.setLevel(z.level() - 1)
	}
	z.addCount(-1)
}

// count is the skiplist's length, kept in hdr[12:16].
func (z zsl) count() int     { return int(le.Uint32(z.hdr[12:])) }
func (z zsl) addCount(d int) { le.PutUint32(z.hdr[12:], uint32(z.count()+d)) }

// rankOf returns the 1-based rank of node x.
func (z zsl) rankOf(x ref) int {
	score, m := z.score(x), z.member(x)
	rank, p := 0, noRef
	for i := z.level() - 1; i >= 0; i-- {
		for f := z.fwd(p, i); f != noRef && (f == x || zless(z.score(f), z.member(f), score, m)); f = z.fwd(p, i) {
			rank += z.span(p, i)
			p = f
			if p == x {
				return rank
			}
		}
	}
	return 0
}

// byRank returns the node of 1-based rank r.
func (z zsl) byRank(r int) ref {
	trav, p := 0, noRef
	for i := z.level() - 1; i >= 0; i-- {
		for f := z.fwd(p, i); f != noRef && trav+z.span(p, i) <= r; f = z.fwd(p, i) {
			trav += z.span(p, i)
			p = f
		}
		if trav == r {
			return p
		}
	}
	return noRef
}

// countBefore returns how many nodes come before the first for which
// stop reports true (stop must be monotonic along the list).
func (z zsl) countBefore(stop func(z zsl, x ref) bool) int {
	rank, p := 0, noRef
	for i := z.level() - 1; i >= 0; i-- {
		for f := z.fwd(p, i); f != noRef && !stop(z, f); f = z.fwd(p, i) {
			rank += z.span(p, i)
			p = f
		}
	}
	return rank
}

// Listpack encoding helpers.

// appendD2String appends score as Redis's d2string writes it into a
// listpack.
func appendD2String(dst []byte, f float64) []byte {
	if f > -4503599627370495 && f < 4503599627370496 && f == math.Trunc(f) {
		return strconv.AppendInt(dst, int64(f), 10)
	}
	return AppendScore(dst, f)
}

// lpScore returns the score entry at off of a listpack zset.
func lpScore(lp []byte, off int) float64 {
	s, n, isInt := listpack.Get(lp, off)
	if isInt {
		return float64(n)
	}
	f, _ := strconv.ParseFloat(unsafe.String(unsafe.SliceData(s), len(s)), 64)
	return f
}

// zlpFind returns the offset of member m in a listpack zset, or -1.
func zlpFind(lp, m []byte) int {
	return listpack.Find(lp, listpack.First(lp), m, 1)
}

// zlpInsertPos returns the offset where (score, m) goes in order.
func zlpInsertPos(lp []byte, score float64, m []byte, scratch []byte) int {
	for off := listpack.First(lp); off >= 0; {
		soff := listpack.Next(lp, off)
		s := lpScore(lp, soff)
		if zless(score, m, s, listpack.Value(lp, off, scratch)) {
			return off
		}
		off = listpack.Next(lp, soff)
	}
	return listpack.End(lp)
}

// Encoding-independent primitives on a zset kv.

// zlen returns the number of members.
func (k *kv) zlen() int {
	if k.enc() == EncSkiplist {
		return k.zsl().count()
	}
	return listpack.Len(k.val()) / 2
}

// zscore returns member m's score, ok false when m is absent.
func (k *kv) zscore(m []byte) (float64, bool) {
	if k.enc() == EncSkiplist {
		r := k.obj().find(&k.t.a, k.s.fieldHash(m), m)
		if r == noRef {
			return 0, false
		}
		return k.zsl().score(r), true
	}
	lp := k.val()
	off := zlpFind(lp, m)
	if off < 0 {
		return 0, false
	}
	return lpScore(lp, listpack.Next(lp, off)), true
}

// zsetCreate creates key as an empty zset, a skiplist when the thresholds
// leave no room for a first member of firstLen bytes.
func (k *kv) zsetCreate(key []byte, l *Limits, firstLen int) {
	if l.ZSetMaxListpackEntries == 0 || firstLen > l.ZSetMaxListpackValue {
		k.zslCreate(key, 0)
		return
	}
	k.createCompact(key, TypeZSet, EncListpack, listpack.New, 0)
}

// zslCreate creates key as an empty skiplist zset with expiry at.
func (k *kv) zslCreate(key []byte, at int64) {
	var hdr [zslHdrSize]byte
	idx := k.t.newObj(newDict(fieldHdr, ^uint32(0)))
	le.PutUint32(hdr[:], uint32(idx))
	le.PutUint32(hdr[4:], 1)
	k.create(key, TypeZSet, EncSkiplist, hdr[:], 0, at)
}

// zslInsert adds member m, absent, to a skiplist zset.
func (k *kv) zslInsert(m []byte, score float64) {
	h := k.s.fieldHash(m)
	r := k.t.newZNode(h, m, score, k.sh.zslRandomLevel())
	k.obj().add(&k.t.a, r, h)
	k.zsl().link(r)
}

// zsetConvert converts a listpack zset to a skiplist.
func (k *kv) zsetConvert() {
	tmp := append([]byte(nil), k.val()...)
	hdr := k.resize(zslHdrSize, 0)
	clear(hdr)
	le.PutUint32(hdr, uint32(k.t.newObj(newDict(fieldHdr, ^uint32(0)))))
	le.PutUint32(hdr[4:], 1)
	k.setEnc(EncSkiplist)
	var scratch [20]byte
	for off := listpack.First(tmp); off >= 0; {
		soff := listpack.Next(tmp, off)
		k.zslInsert(listpack.Value(tmp, off, scratch[:0]), lpScore(tmp, soff))
		off = listpack.Next(tmp, soff)
	}
}

// zinsert adds member m, absent, with score, converting the listpack
// first when the insert would pass its limits (Redis's zsetAdd).
func (k *kv) zinsert(m []byte, score float64, l *Limits) {
	if k.enc() == EncListpack {
		lp := k.val()
		if listpack.Len(lp)/2+1 > l.ZSetMaxListpackEntries || len(m) > l.ZSetMaxListpackValue ||
			!listpack.SafeToAdd(lp, len(m)) {
			k.zsetConvert()
		}
	}
	if k.enc() == EncSkiplist {
		k.zslInsert(m, score)
		return
	}
	k.zlpInsert(m, score)
}

// zlpInsert adds member m, absent, to a listpack zset at its place.
func (k *kv) zlpInsert(m []byte, score float64) {
	var sb [32]byte
	sc := appendD2String(sb[:0], score)
	lp := k.room(listpack.EncodedSize(m) + listpack.EncodedSize(sc))
	off := zlpInsertPos(lp, score, m, k.sh.num[1][:0])
	lp = listpack.Insert(lp, off, m)
	lp = listpack.Insert(lp, off+listpack.EntrySize(lp, off), sc)
	k.setLen(lp)
}

// zupdate changes member m's score (m present, with score old).
func (k *kv) zupdate(m []byte, old, score float64) {
	if k.enc() == EncSkiplist {
		z := k.zsl()
		x := k.obj().find(&k.t.a, k.s.fieldHash(m), m)
		b, f := z.back(x), z.fwd(x, 0)
		if (b == noRef || zless(z.score(b), z.member(b), score, m)) &&
			(f == noRef || zless(score, m, z.score(f), z.member(f))) {
			z.setScore(x, score)
			return
		}
		z.unlink(x)
		z.setScore(x, score)
		z.link(x)
		return
	}
	lp := k.room(0)
	off := zlpFind(lp, m)
	k.setLen(listpack.Delete(lp, off, 2))
	k.zlpInsert(m, score)
}

// zdelete removes member m and reports whether it was there; the caller
// deletes the key when it is left empty.
func (k *kv) zdelete(m []byte) bool {
	if k.enc() == EncSkiplist {
		d := k.obj()
		h := k.s.fieldHash(m)
		x := d.find(&k.t.a, h, m)
		if x == noRef {
			return false
		}
		k.zsl().unlink(x)
		d.unlink(&k.t.a, x, h)
		k.t.freeField(x)
		return true
	}
	lp := k.val()
	off := zlpFind(lp, m)
	if off < 0 {
		return false
	}
	k.setLen(listpack.Delete(k.room(0), off, 2))
	return true
}

// zdeleteRank removes the n members from 0-based rank lo.
func (k *kv) zdeleteRank(lo, n int) {
	if n <= 0 {
		return
	}
	if k.enc() == EncSkiplist {
		z := k.zsl()
		d := k.obj()
		x := z.byRank(lo + 1)
		for ; n > 0 && x != noRef; n-- {
			next := z.fwd(x, 0)
			b := k.t.a.at(x)
			h := le.Uint32(b[recHash:])
			z.unlink(x)
			d.unlink(&k.t.a, x, h)
			k.t.freeField(x)
			x = next
		}
		return
	}
	lp := k.room(0)
	k.setLen(listpack.Delete(lp, listpack.Seek(lp, 2*lo), 2*n))
}

// zrankOf returns member m's 0-based rank and score, ok false when absent.
func (k *kv) zrankOf(m []byte) (int, float64, bool) {
	if k.enc() == EncSkiplist {
		x := k.obj().find(&k.t.a, k.s.fieldHash(m), m)
		if x == noRef {
			return 0, 0, false
		}
		z := k.zsl()
		return z.rankOf(x) - 1, z.score(x), true
	}
	lp := k.val()
	i := 0
	for off := listpack.First(lp); off >= 0; i++ {
		soff := listpack.Next(lp, off)
		if bytes.Equal(listpack.Value(lp, off, k.sh.num[1][:0]), m) {
			return i, lpScore(lp, soff), true
		}
		off = listpack.Next(lp, soff)
	}
	return 0, 0, false
}

// zwalk calls fn with n members from 0-based rank start, walking up
// (ascending) or down (rev), until fn returns false. Listpack integers
// are formatted into the shard's scratch.
func (k *kv) zwalk(start, n int, rev bool, fn func(m []byte, score float64) bool) {
	if n <= 0 {
		return
	}
	if k.enc() == EncSkiplist {
		z := k.zsl()
		for x := z.byRank(start + 1); x != noRef && n > 0; n-- {
			if !fn(z.member(x), z.score(x)) {
				return
			}
			if rev {
				x = z.back(x)
			} else {
				x = z.fwd(x, 0)
			}
		}
		return
	}
	lp := k.val()
	for off := listpack.Seek(lp, 2*start); off >= 0 && n > 0; n-- {
		soff := listpack.Next(lp, off)
		if !fn(listpack.Value(lp, off, k.sh.num[0][:0]), lpScore(lp, soff)) {
			return
		}
		if rev {
			off = listpack.Prev(lp, off)
			if off >= 0 {
				off = listpack.Prev(lp, off)
			}
		} else {
			off = listpack.Next(lp, soff)
		}
	}
}

// zslCloneFrom fills k, an empty skiplist zset, with src's members (src
// may live in another arena).
func (k *kv) zslCloneFrom(src *kv) {
	z := src.zsl()
	for x := z.fwd(noRef, 0); x != noRef; x = z.fwd(x, 0) {
		k.zslInsert(z.member(x), z.score(x))
	}
}
