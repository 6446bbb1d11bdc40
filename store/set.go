package store

import (
	"slices"
	"strconv"
	"unsafe"

	"github.com/loopkv/loopkv/store/intset"
	"github.com/loopkv/loopkv/store/listpack"
)

// Sets (Redis t_set.c). Sets are encoded as Redis 7.2 encodes them, not
// as redis-server 7.0 (which has no listpack encoding for sets): this is
// the one place where the set commands deliberately differ from 7.0, and
// only in OBJECT ENCODING and in the order small sets list their members.
// A set has one of three encodings:
//   - an intset, while every member is an integer in canonical form
//     (ParseInt) and there are at most SetMaxIntsetEntries of them;
//   - a listpack of the members in insertion order, while there are at
//     most SetMaxListpackEntries members of at most SetMaxListpackValue
//     bytes each;
//   - otherwise a hash table of field records with empty values.
//
// The compact encodings live in the key record and are edited in place.
// As Redis 7.2's setTypeCreate, a new set is an intset when its first
// member is an integer and the command adds at most SetMaxIntsetEntries
// members, else a listpack when it adds at most SetMaxListpackEntries,
// else a hash table; SADD of more members than an existing compact set may
// hold converts it first (setTypeMaybeConvert). As setTypeAdd: an intset
// that receives a non-integer becomes a listpack when the result fits one
// (its integers' decimal forms included), a hash table otherwise; an
// intset that outgrows SetMaxIntsetEntries becomes a hash table; a
// listpack that would outgrow its limits becomes a hash table. Nothing
// converts back, except that a stored result (SINTERSTORE, SUNIONSTORE,
// SDIFFSTORE) and the new set SPOP builds when it pops most of a set get
// the encoding Redis 7.2 builds them with (tmpSet). Removing the last
// member deletes the key.
//
// Members are passed to callbacks as views valid for the call only: an
// integer is formatted into a scratch buffer, a listpack string or
// hash-table member is a view of the value's bytes.

// intWidth is the intset width that holds v (intset.c's _intsetValueEncoding).
func intWidth(v int64) int {
	switch {
	case v < -1<<31 || v > 1<<31-1:
		return 8
	case v < -1<<15 || v > 1<<15-1:
		return 4
	}
	return 2
}

// decLen is the length of v's decimal form (Redis's sdigits10).
func decLen(v int64) int {
	var buf [20]byte
	return len(strconv.AppendInt(buf[:0], v, 10))
}

// lpIntSize bounds the size of one integer entry of a listpack.
const lpIntSize = 10

// setAddEncoding returns the encoding a set of encoding e, whose compact
// value is c (an intset or a listpack), must have to take the new member m
// (not a member yet; isInt when ParseInt accepts it), as Redis 7.2's
// setTypeAddAux decides: e itself when m fits, EncListpack when an intset
// must become a listpack, EncHashtable when the set must become a hash
// table.
func setAddEncoding(e Encoding, c, m []byte, isInt bool, l *Limits) Encoding {
	switch e {
	case EncIntset:
		n := intset.Len(c)
		if isInt {
			if n < l.SetMaxIntsetEntries {
				return EncIntset
			}
			return EncHashtable
		}
		digits := 0
		if n > 0 {
			digits = max(decLen(intset.Min(c)), decLen(intset.Max(c)))
		}
		if n < l.SetMaxListpackEntries && len(m) <= l.SetMaxListpackValue && digits <= l.SetMaxListpackValue &&
			listpack.SafeToAdd(nil, listpack.EmptySize+n*lpIntSize+listpack.EncodedSize(m)) {
			return EncListpack
		}
		return EncHashtable
	case EncListpack:
		if listpack.Len(c) < l.SetMaxListpackEntries && len(m) <= l.SetMaxListpackValue &&
			listpack.SafeToAdd(c, listpack.EncodedSize(m)) {
			return EncListpack
		}
		return EncHashtable
	}
	return EncHashtable
}

// setCreateEncoding is the encoding Redis 7.2's setTypeCreate gives a set
// whose first member is first and that is about to receive hint members.
func setCreateEncoding(first []byte, hint int, l *Limits) Encoding {
	if _, ok := ParseInt(first); ok && hint <= l.SetMaxIntsetEntries {
		return EncIntset
	}
	if hint <= l.SetMaxListpackEntries {
		return EncListpack
	}
	return EncHashtable
}

// intsetToListpack appends to dst[:0] a listpack of the intset's members,
// in increasing order, and returns it.
func intsetToListpack(dst, is []byte) []byte {
	lp := listpack.New(dst)
	for i, n := 0, intset.Len(is); i < n; i++ {
		lp = listpack.AppendInt(lp, intset.Get(is, i))
	}
	return lp
}

// createSet creates key, which does not exist, as an empty set in the
// encoding Redis's setTypeCreate gives a set whose first member is first,
// with room for about n members; the caller adds the members.
func (k *kv) createSet(key, first []byte, n int, l *Limits) {
	switch setCreateEncoding(first, n, l) {
	case EncIntset:
		k.createCompact(key, TypeSet, EncIntset, intset.New, intset.HeaderSize+2*min(n, 512))
	case EncListpack:
		k.createCompact(key, TypeSet, EncListpack, listpack.New, listpack.EmptySize+min(n, 128)*(len(first)+2))
	default:
		idx := k.t.newHashtable()
		k.create(key, TypeSet, EncHashtable, idx[:], 0, 0)
	}
}

// setMaybeConvert converts a compact set that is about to receive hint
// members to a hash table when they cannot all fit (setTypeMaybeConvert).
func (k *kv) setMaybeConvert(hint int, l *Limits) {
	switch k.enc() {
	case EncIntset:
		if hint > l.SetMaxIntsetEntries {
			k.setToHashtable()
		}
	case EncListpack:
		if hint > l.SetMaxListpackEntries {
			k.setToHashtable()
		}
	}
}

// scard returns the number of members.
func (k *kv) scard() int {
	switch k.enc() {
	case EncIntset:
		return intset.Len(k.val())
	case EncListpack:
		return listpack.Len(k.val())
	}
	return k.fieldCount()
}

// shas reports whether m is a member.
func (k *kv) shas(m []byte) bool {
	switch k.enc() {
	case EncIntset:
		v, ok := ParseInt(m)
		if !ok {
			return false
		}
		_, found := intset.Find(k.val(), v)
		return found
	case EncListpack:
		lp := k.val()
		return listpack.Find(lp, listpack.First(lp), m, 0) >= 0
	}
	_, ok := k.fieldGet(m)
	return ok
}

// sadd adds m and reports whether it is new, converting the set as Redis
// 7.2's setTypeAdd does (setAddEncoding).
func (k *kv) sadd(m []byte, l *Limits) bool {
	e := k.enc()
	if e == EncHashtable {
		return k.fieldPut(m, nil)
	}
	c := k.val()
	v, isInt := ParseInt(m)
	if e == EncIntset && isInt {
		if _, found := intset.Find(c, v); found {
			return false
		}
	} else if e == EncListpack && listpack.Find(c, listpack.First(c), m, 0) >= 0 {
		return false
	}
	switch setAddEncoding(e, c, m, isInt, l) {
	case EncIntset:
		w := max(intset.Encoding(c), intWidth(v))
		is := k.room(intset.HeaderSize + (intset.Len(c)+1)*w - len(c))
		is, _ = intset.Add(is, v)
		k.setLen(is)
	case EncListpack:
		if e == EncIntset {
			var buf [1536]byte
			k.setVal(intsetToListpack(buf[:0], c))
			k.setEnc(EncListpack)
		}
		k.lpAppend(m)
	default:
		k.setToHashtable()
		k.fieldPut(m, nil)
	}
	return true
}

// setToHashtable converts an intset or listpack set to a hash table
// (setTypeConvert).
func (k *kv) setToHashtable() {
	c, enc := k.val(), k.enc()
	k.toHashtable(func(fn func(f, v []byte)) {
		if enc == EncListpack {
			lpEach(c, func(m []byte) { fn(m, nil) })
			return
		}
		var buf [20]byte
		for i, n := 0, intset.Len(c); i < n; i++ {
			fn(strconv.AppendInt(buf[:0], intset.Get(c, i), 10), nil)
		}
	})
}

// srem removes m and reports whether it was a member. The caller deletes
// the key when it is left empty.
func (k *kv) srem(m []byte) bool {
	switch k.enc() {
	case EncIntset:
		v, ok := ParseInt(m)
		if !ok {
			return false
		}
		is, found := intset.Remove(k.val(), v)
		if found {
			k.setLen(is)
		}
		return found
	case EncListpack:
		return k.lpRemove(m, 0, 1)
	}
	return k.fieldDel(m)
}

// srandom returns a random member of a non-empty set; an integer is
// formatted into the shard's scratch, valid until the next format. For a
// listpack it also returns the member's offset (else -1).
func (k *kv) srandom() ([]byte, int) {
	switch k.enc() {
	case EncIntset:
		is := k.val()
		return strconv.AppendInt(k.sh.num[0][:0], intset.Get(is, int(k.sh.rand()%uint64(intset.Len(is)))), 10), -1
	case EncListpack:
		lp := k.val()
		off := listpack.Seek(lp, int(k.sh.rand()%uint64(listpack.Len(lp))))
		return listpack.Value(lp, off, k.sh.num[0][:0]), off
	}
	f, _ := k.fieldRandom()
	return f, -1
}

// seach calls fn with every member, an intset's in increasing order, a
// listpack's in insertion order, until fn returns false. fn must not
// change the set.
func (k *kv) seach(fn func(m []byte) bool) {
	switch k.enc() {
	case EncIntset:
		is := k.val()
		for i, n := 0, intset.Len(is); i < n; i++ {
			if !fn(strconv.AppendInt(k.sh.num[0][:0], intset.Get(is, i), 10)) {
				return
			}
		}
	case EncListpack:
		lp := k.val()
		for off := listpack.First(lp); off >= 0; off = listpack.Next(lp, off) {
			if !fn(listpack.Value(lp, off, k.sh.num[0][:0])) {
				return
			}
		}
	default:
		k.fieldEach(func(f, _ []byte) bool { return fn(f) })
	}
}

// delIfEmpty deletes the key when its set has no members left.
func (k *kv) delIfEmpty() {
	if k.scard() == 0 {
		k.del()
	}
}

// SAdd adds members to the set at key, creating it, and returns how many
// were not members yet. It returns WrongType when key holds another type.
func (s *Store) SAdd(db int, key []byte, members [][]byte, now int64) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeSet, forWrite)
	defer k.release()
	if st != OK {
		return 0, st
	}
	l := s.limitsNow()
	if !k.exists() {
		k.createSet(key, members[0], len(members), l)
	} else {
		k.setMaybeConvert(len(members), l)
	}
	n := 0
	for _, m := range members {
		if k.sadd(m, l) {
			n++
		}
	}
	return n, OK
}

// SRem removes members from the set at key and returns how many were
// members, deleting the key when it is left empty.
func (s *Store) SRem(db int, key []byte, members [][]byte, now int64) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeSet, forUpdate)
	defer k.release()
	if st != OK {
		return 0, st
	}
	n := 0
	for _, m := range members {
		if k.srem(m) {
			n++
			if k.scard() == 0 {
				k.del()
				break
			}
		}
	}
	return n, OK
}

// SCard returns the number of members of the set at key, 0 when it does
// not exist.
func (s *Store) SCard(db int, key []byte, now int64) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeSet, forRead)
	defer k.release()
	if st != OK {
		return 0, st
	}
	return k.scard(), OK
}

// SIsMember reports whether member is in the set at key.
func (s *Store) SIsMember(db int, key, member []byte, now int64) (bool, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeSet, forRead)
	defer k.release()
	if st != OK {
		return false, st
	}
	return k.shas(member), OK
}

// SMIsMember calls fn for each of members in order with whether it is in
// the set at key (false for all when key does not exist). It returns
// WrongType, without calling fn, when key holds another type.
func (s *Store) SMIsMember(db int, key []byte, members [][]byte, now int64, fn func(found bool)) Status {
	var k kv
	st := s.openInto(&k, db, key, now, TypeSet, forRead)
	defer k.release()
	if st == WrongType {
		return st
	}
	for _, m := range members {
		fn(st == OK && k.shas(m))
	}
	return OK
}

// SMembers calls fn with every member of the set at key and returns
// NotFound (no call) when key does not exist.
func (s *Store) SMembers(db int, key []byte, now int64, fn func(m []byte)) Status {
	var k kv
	st := s.openInto(&k, db, key, now, TypeSet, forRead)
	defer k.release()
	if st != OK {
		return st
	}
	k.seach(func(m []byte) bool { fn(m); return true })
	return OK
}

// SPop removes a random member of the set at key and appends it to dst
// through enc, deleting the key when it is left empty. It returns NotFound
// when key does not exist.
func (s *Store) SPop(db int, key []byte, now int64, dst []byte, enc EncodeFunc) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeSet, forUpdate)
	defer k.release()
	if st != OK {
		return dst, st
	}
	m, off := k.srandom()
	dst = enc(dst, m)
	if off >= 0 { // a listpack: delete what was found, without a search
		k.setLen(listpack.Delete(k.room(0), off, 1))
	} else {
		k.srem(m)
	}
	k.delIfEmpty()
	return dst, OK
}

// spopMoveMul is Redis's SPOP_MOVE_STRATEGY_MUL: SPOP with a count builds
// a new set of the members it keeps when remaining*spopMoveMul <= count.
const spopMoveMul = 5

// SPopCount removes count random members of the set at key, or all
// of them, calling fn with each, as Redis 7.2's spopWithCountCommand does.
// It returns NotFound (no call) when key does not exist.
func (s *Store) SPopCount(db int, key []byte, count uint64, now int64, fn func(m []byte)) Status {
	var k kv
	st := s.openInto(&k, db, key, now, TypeSet, forUpdate)
	defer k.release()
	if st != OK || count == 0 {
		return st
	}
	l := s.limitsNow()
	size := uint64(k.scard())
	if count >= size { // the whole set, listed as SUNION lists it
		if k.enc() == EncIntset {
			k.seach(func(m []byte) bool { fn(m); return true })
		} else {
			t := newTmpSet(l, EncIntset)
			k.seach(func(m []byte) bool { t.add(m); return true })
			t.each(func(m []byte) bool { fn(m); return true })
		}
		k.del()
		return OK
	}
	remaining := size - count
	if k.enc() == EncListpack {
		// Whether it picks the members to pop or the ones to keep, Redis
		// walks the listpack once and keeps the rest in their order.
		k.lpPopSample(int(count), int(size), fn)
		return OK
	}
	if remaining*spopMoveMul > count { // pop count random members
		for ; count > 0; count-- {
			m, _ := k.srandom()
			fn(m)
			k.srem(m)
		}
		return OK
	}
	// Move the members that stay into a new set (an intset's into an
	// intset, a hash table's into a listpack while they fit), hand out the
	// rest, and make the new set the value.
	start := EncListpack
	if k.enc() == EncIntset {
		start = EncIntset
	}
	keep := newTmpSet(l, start)
	for ; remaining > 0; remaining-- {
		m, _ := k.srandom()
		keep.add(m)
		k.srem(m)
	}
	k.seach(func(m []byte) bool { fn(m); return true })
	at := k.expireAt()
	k.del()
	k.putTmp(key, &keep, at)
	return OK
}

// lpPopSample removes n of the size members of a listpack set, chosen by
// selection sampling (Knuth's algorithm S, as Redis's lpNextRandom), and
// calls fn with each in the listpack's order before it goes.
func (k *kv) lpPopSample(n, size int, fn func(m []byte)) {
	lp := k.room(0)
	for off := listpack.First(lp); off >= 0 && n > 0; size-- {
		if k.sh.rand()%uint64(size) >= uint64(n) {
			off = listpack.Next(lp, off)
			continue
		}
		fn(listpack.Value(lp, off, k.sh.num[0][:0]))
		n--
		lp = listpack.Delete(lp, off, 1)
		if lp[off] == 0xFF { // the terminator: that was the last entry
			break
		}
	}
	k.setLen(lp)
}

// SRandMember appends a random member of the set at key to dst through
// enc. It returns NotFound when key does not exist.
func (s *Store) SRandMember(db int, key []byte, now int64, dst []byte, enc EncodeFunc) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeSet, forRead)
	defer k.release()
	if st != OK {
		return dst, st
	}
	m, _ := k.srandom()
	return enc(dst, m), OK
}

// srandSubMul is Redis's SRANDMEMBER_SUB_STRATEGY_MUL.
const srandSubMul = 3

// SRandMemberCount calls fn with random members of the set at key as
// Redis 7.2's srandmemberWithCountCommand picks them: count (nonzero)
// members when count is negative or 1, repeats allowed; the whole set when
// count is at least its size; otherwise count distinct members (from a
// listpack, in its order). fn returns false to stop early, which the
// caller must do to bound a reply to a huge negative count. It returns
// NotFound (no call) when key does not exist.
func (s *Store) SRandMemberCount(db int, key []byte, count int64, now int64, fn func(m []byte) bool) Status {
	var k kv
	st := s.openInto(&k, db, key, now, TypeSet, forRead)
	defer k.release()
	if st != OK || count == 0 {
		return st
	}
	if count < 0 || count == 1 {
		n := uint64(count)
		if count < 0 {
			n = uint64(-count)
		}
		if k.enc() == EncListpack {
			lp := k.val()
			lpRandomEntries(lp, 1, n, k.sh.rand, func(off int) bool { return fn(listpack.Value(lp, off, k.sh.num[0][:0])) })
			return OK
		}
		for ; n > 0; n-- {
			if m, _ := k.srandom(); !fn(m) {
				break
			}
		}
		return OK
	}
	size := k.scard()
	if uint64(count) >= uint64(size) {
		k.seach(fn)
		return OK
	}
	n := int(count)
	if k.enc() == EncListpack {
		// selection sampling in the listpack's order (Redis's CASE 2.5)
		left := size
		k.seach(func(m []byte) bool {
			if k.sh.rand()%uint64(left) < uint64(n) {
				n--
				if !fn(m) {
					return false
				}
			}
			left--
			return n > 0
		})
		return OK
	}
	if n*srandSubMul > size {
		// Copy every member, then keep a random n of them.
		all := make([][]byte, 0, size)
		k.seach(func(m []byte) bool { all = append(all, slices.Clone(m)); return true })
		for i := 0; i < n; i++ {
			j := i + int(k.sh.rand()%uint64(size-i))
			all[i], all[j] = all[j], all[i]
		}
		for _, m := range all[:n] {
			fn(m)
		}
		return OK
	}
	// A set much bigger than n: draw until n distinct members.
	seen := make(map[string]struct{}, n)
	for len(seen) < n {
		m, _ := k.srandom()
		if _, dup := seen[string(m)]; dup {
			continue
		}
		seen[string(m)] = struct{}{}
		if !fn(m) {
			break
		}
	}
	return OK
}

// SMove moves member from the set at src to the set at dst, creating dst
// and deleting src when it is left empty, and reports whether member was
// in src. It returns WrongType when src, or dst when src exists, holds
// another type.
func (s *Store) SMove(db int, src, dst, member []byte, now int64) (bool, Status) {
	var m shardSet
	m.add(s.shardIndex(src))
	m.add(s.shardIndex(dst))
	s.lockSet(&m)
	defer s.unlockSet(&m)
	var ks kv
	s.findInto(&ks, db, src, now, false)
	var kd kv
	s.findInto(&kd, db, dst, now, false)
	if !ks.exists() {
		return false, OK
	}
	if ks.check(TypeSet) != OK || kd.check(TypeSet) != OK {
		return false, WrongType
	}
	if sameKey(&ks, &kd) {
		return ks.shas(member), OK
	}
	if !ks.srem(member) {
		return false, OK
	}
	ks.delIfEmpty()
	l := s.limitsNow()
	if !kd.exists() {
		kd.createSet(dst, member, 1, l)
	}
	kd.sadd(member, l)
	return true, OK
}

// sameKey reports whether a and b found the same key.
func sameKey(a, b *kv) bool { return a.t == b.t && a.r == b.r && a.r != noRef }

// openSets finds each of keys as a set (a missing key's kv does not
// exist), under locks the caller holds. It returns WrongType when one holds
// another type.
func (s *Store) openSets(db int, keys [][]byte, now int64) ([]kv, Status) {
	sets := make([]kv, len(keys))
	for i, key := range keys {
		sets[i] = s.find(db, key, now, true)
		if sets[i].check(TypeSet) != OK {
			return nil, WrongType
		}
	}
	return sets, OK
}

// lockSets locks the shards of keys and of dst (when not nil); the caller
// defers s.unlockSet(m).
func (s *Store) lockSets(m *shardSet, dst []byte, keys [][]byte) {
	if dst != nil {
		m.add(s.shardIndex(dst))
	}
	s.lockKeys(m, keys, 1)
}

// SInter calls fn with each member of the intersection of the sets at keys
// (a missing key is an empty set) and returns their number, stopping after
// limit members when limit > 0 (SINTERCARD). fn may be nil to count only.
// Members come in the order of the smallest set.
func (s *Store) SInter(db int, keys [][]byte, now int64, limit int, fn func(m []byte)) (int, Status) {
	var m shardSet
	s.lockSets(&m, nil, keys)
	defer s.unlockSet(&m)
	sets, st := s.openSets(db, keys, now)
	if st != OK {
		return 0, st
	}
	return inter(sets, limit, fn), OK
}

// SInterStore stores the intersection of the sets at keys in dst,
// replacing any value, or deletes dst when it is empty, and returns its
// size.
func (s *Store) SInterStore(db int, dst []byte, keys [][]byte, now int64) (int, Status) {
	var m shardSet
	s.lockSets(&m, dst, keys)
	defer s.unlockSet(&m)
	sets, st := s.openSets(db, keys, now)
	if st != OK {
		return 0, st
	}
	// Redis 7.2 builds the result as an intset when the smallest set is
	// one, else as a listpack, and makes it an intset at the end when every
	// member is an integer.
	start := EncListpack
	if !slices.ContainsFunc(sets, func(k kv) bool { return !k.exists() }) {
		slices.SortStableFunc(sets, func(a, b kv) int { return a.scard() - b.scard() })
		if sets[0].enc() == EncIntset {
			start = EncIntset
		}
	}
	t := newTmpSet(s.limitsNow(), start)
	inter(sets, 0, func(m []byte) { t.add(m) })
	t.maybeToIntset()
	return s.storeSet(db, dst, now, &t), OK
}

// inter is sinterGenericCommand's loop: walk the smallest set and keep the
// members every other set has.
func inter(sets []kv, limit int, fn func(m []byte)) int {
	for i := range sets {
		if !sets[i].exists() {
			return 0
		}
	}
	slices.SortStableFunc(sets, func(a, b kv) int { return a.scard() - b.scard() })
	n := 0
	sets[0].seach(func(m []byte) bool {
		for j := 1; j < len(sets); j++ {
			if !sameKey(&sets[j], &sets[0]) && !sets[j].shas(m) {
				return true
			}
		}
		n++
		if fn != nil {
			fn(m)
		}
		return limit <= 0 || n < limit
	})
	return n
}

// SUnion calls fn with each member of the union of the sets at keys.
func (s *Store) SUnion(db int, keys [][]byte, now int64, fn func(m []byte)) Status {
	_, st := s.unionDiff(db, nil, keys, now, false, fn)
	return st
}

// SDiff calls fn with each member of the first set at keys that is in
// none of the others.
func (s *Store) SDiff(db int, keys [][]byte, now int64, fn func(m []byte)) Status {
	_, st := s.unionDiff(db, nil, keys, now, true, fn)
	return st
}

// SUnionStore stores the union of the sets at keys in dst, replacing any
// value, or deletes dst when it is empty, and returns its size.
func (s *Store) SUnionStore(db int, dst []byte, keys [][]byte, now int64) (int, Status) {
	return s.unionDiff(db, dst, keys, now, false, nil)
}

// SDiffStore is SUnionStore for the difference.
func (s *Store) SDiffStore(db int, dst []byte, keys [][]byte, now int64) (int, Status) {
	return s.unionDiff(db, dst, keys, now, true, nil)
}

// unionDiff is sunionDiffGenericCommand: it builds the result as Redis
// does, in a set that starts as an intset (so that a stored result has
// Redis's encoding), then stores it in dst when dst is not nil, or calls fn
// with each member (an intset's in increasing order), and returns its size.
func (s *Store) unionDiff(db int, dst []byte, keys [][]byte, now int64, diff bool, fn func(m []byte)) (int, Status) {
	var m shardSet
	s.lockSets(&m, dst, keys)
	defer s.unlockSet(&m)
	sets, st := s.openSets(db, keys, now)
	if st != OK {
		return 0, st
	}
	t := newTmpSet(s.limitsNow(), EncIntset)
	switch {
	case !diff:
		for i := range sets {
			if sets[i].exists() {
				sets[i].seach(func(m []byte) bool { t.add(m); return true })
			}
		}
	case !sets[0].exists() || slices.ContainsFunc(sets[1:], func(o kv) bool { return sameKey(&o, &sets[0]) }):
		// the difference of nothing, or of a set with itself, is empty
	case diffAlgo(sets) == 1:
		// Members of the first set that no other has; the others by
		// decreasing size, to find shared members sooner.
		others := sets[1:]
		slices.SortStableFunc(others, func(a, b kv) int { return sizeOf(&b) - sizeOf(&a) })
		sets[0].seach(func(m []byte) bool {
			for j := range others {
				if others[j].exists() && others[j].shas(m) {
					return true
				}
			}
			t.add(m)
			return true
		})
	default:
		// Add the first set, remove every other one.
		for i := range sets {
			if !sets[i].exists() {
				continue
			}
			sets[i].seach(func(m []byte) bool {
				if i == 0 {
					t.add(m)
				} else {
					t.remove(m)
				}
				return true
			})
			if t.len() == 0 {
				break
			}
		}
	}
	if dst != nil {
		return s.storeSet(db, dst, now, &t), OK
	}
	t.each(func(m []byte) bool { fn(m); return true })
	return t.len(), OK
}

func sizeOf(k *kv) int {
	if !k.exists() {
		return 0
	}
	return k.scard()
}

// diffAlgo chooses SDIFF's algorithm as Redis does: 1 walks the first set
// and looks each member up in the others (N*M), 2 adds the first set and
// removes the others (the sum of the sizes), with 1 given a 2x advantage.
func diffAlgo(sets []kv) int {
	var one, two int64
	first := int64(sets[0].scard())
	for i := range sets {
		if sets[i].exists() {
			one += first
			two += int64(sets[i].scard())
		}
	}
	if one/2 <= two {
		return 1
	}
	return 2
}

// storeSet makes dst hold t, replacing any value and TTL, or deletes dst
// when t is empty, and returns t's size. Caller holds dst's shard lock.
func (s *Store) storeSet(db int, dst []byte, now int64, t *tmpSet) int {
	var k kv
	s.findInto(&k, db, dst, now, false)
	if k.exists() {
		k.del()
	}
	if t.len() == 0 {
		return 0
	}
	k.putTmp(dst, t, 0)
	return t.len()
}

// putTmp creates key, which does not exist, holding the members of t in
// t's encoding, with expiry at.
func (k *kv) putTmp(key []byte, t *tmpSet, at int64) {
	switch t.enc {
	case EncIntset, EncListpack:
		k.create(key, TypeSet, t.enc, t.c, 0, at)
		return
	}
	idx := k.t.newHashtable()
	k.create(key, TypeSet, EncHashtable, idx[:], 0, at)
	for m := range t.ht {
		k.fieldPut(unsafe.Slice(unsafe.StringData(m), len(m)), nil)
	}
}

// SScan continues an SSCAN of the set at key from cursor and returns the
// cursor to pass next, 0 at the end, calling fn with the members it visits
// that match o.Pattern (o.Type is ignored). An intset is returned whole
// with cursor 0, as Redis does, and so is a listpack; a hash table is walked as SCAN walks the
// keyspace, o.Count (default 10) members' worth of buckets at a time. It
// returns NotFound when key does not exist.
func (s *Store) SScan(db int, key []byte, cursor uint64, now int64, o ScanOptions, fn func(m []byte)) (uint64, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeSet, forRead)
	defer k.release()
	if st != OK {
		return 0, st
	}
	emit := func(m []byte) {
		if o.Pattern == nil || Match(o.Pattern, m) {
			fn(m)
		}
	}
	if k.enc() != EncHashtable {
		k.seach(func(m []byte) bool { emit(m); return true })
		return 0, OK
	}
	count := o.Count
	if count <= 0 {
		count = 10
	}
	a, d := &k.t.a, k.obj()
	seen, iters := 0, count*10
	for {
		cursor = d.scan(a, cursor, func(r ref) {
			seen++
			emit(recKey(a.at(r), fieldHdr))
		})
		if cursor == 0 || iters == 0 || seen >= count {
			return cursor, OK
		}
		iters--
	}
}

// tmpSet is a set built outside the keyspace (a result of SUNION, SDIFF,
// SINTERSTORE, or the members SPOP keeps), encoded as Redis 7.2's
// temporary set would be: an intset or a listpack (c) while the members
// fit (setAddEncoding), then a map.
type tmpSet struct {
	enc Encoding            // EncIntset, EncListpack or EncHashtable
	c   []byte              // the intset or listpack
	ht  map[string]struct{} // the members once enc is EncHashtable
	l   *Limits
}

// newTmpSet returns an empty tmpSet of encoding e (EncIntset or EncListpack).
func newTmpSet(l *Limits, e Encoding) tmpSet {
	t := tmpSet{enc: e, l: l}
	if e == EncIntset {
		t.c = intset.New(nil)
	} else {
		t.c = listpack.New(nil)
	}
	return t
}

func (t *tmpSet) len() int {
	switch t.enc {
	case EncIntset:
		return intset.Len(t.c)
	case EncListpack:
		return listpack.Len(t.c)
	}
	return len(t.ht)
}

func (t *tmpSet) add(m []byte) bool {
	if t.enc == EncHashtable {
		return t.mapAdd(m)
	}
	v, isInt := ParseInt(m)
	if t.enc == EncIntset && isInt {
		if _, found := intset.Find(t.c, v); found {
			return false
		}
	} else if t.enc == EncListpack && listpack.Find(t.c, listpack.First(t.c), m, 0) >= 0 {
		return false
	}
	switch setAddEncoding(t.enc, t.c, m, isInt, t.l) {
	case EncIntset:
		t.c, _ = intset.Add(t.c, v)
	case EncListpack:
		if t.enc == EncIntset {
			t.c, t.enc = intsetToListpack(nil, t.c), EncListpack
		}
		t.c = listpack.AppendString(t.c, m)
	default:
		t.toMap()
		t.mapAdd(m)
	}
	return true
}

func (t *tmpSet) mapAdd(m []byte) bool {
	if _, ok := t.ht[string(m)]; ok {
		return false
	}
	t.ht[string(m)] = struct{}{}
	return true
}

func (t *tmpSet) remove(m []byte) {
	switch t.enc {
	case EncIntset:
		if v, ok := ParseInt(m); ok {
			t.c, _ = intset.Remove(t.c, v)
		}
	case EncListpack:
		if off := listpack.Find(t.c, listpack.First(t.c), m, 0); off >= 0 {
			t.c = listpack.Delete(t.c, off, 1)
		}
	default:
		delete(t.ht, string(m))
	}
}

func (t *tmpSet) toMap() {
	ht := make(map[string]struct{}, t.len()+1)
	t.each(func(m []byte) bool { ht[string(m)] = struct{}{}; return true })
	t.ht, t.c, t.enc = ht, nil, EncHashtable
}

// maybeToIntset makes t an intset when every member is an integer and
// there are few enough of them (Redis's maybeConvertToIntset).
func (t *tmpSet) maybeToIntset() {
	if t.enc == EncIntset || t.len() > t.l.SetMaxIntsetEntries {
		return
	}
	is := intset.New(nil)
	ok := true
	t.each(func(m []byte) bool {
		v, isInt := ParseInt(m)
		if ok = isInt; ok {
			is, _ = intset.Add(is, v)
		}
		return ok
	})
	if ok {
		t.enc, t.c, t.ht = EncIntset, is, nil
	}
}

// each calls fn with every member, an intset's in increasing order, a
// listpack's in insertion order.
func (t *tmpSet) each(fn func(m []byte) bool) {
	switch t.enc {
	case EncIntset:
		var buf [20]byte
		for i, n := 0, intset.Len(t.c); i < n; i++ {
			if !fn(strconv.AppendInt(buf[:0], intset.Get(t.c, i), 10)) {
				return
			}
		}
	case EncListpack:
		var buf [20]byte
		for off := listpack.First(t.c); off >= 0; off = listpack.Next(t.c, off) {
			if !fn(listpack.Value(t.c, off, buf[:0])) {
				return
			}
		}
	default:
		for m := range t.ht {
			if !fn(unsafe.Slice(unsafe.StringData(m), len(m))) {
				return
			}
		}
	}
}
