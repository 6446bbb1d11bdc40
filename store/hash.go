package store

import (
	"math"
	"strconv"

	"github.com/loopkv/loopkv/store/listpack"
)

// Hashes (Redis t_hash.c). A new hash is a listpack of field, value,
// field, value ... in insertion order. It becomes a hash table of field
// records (agg.go) once, never back: when a field or value to be set is
// longer than HashMaxListpackValue (checked for all of HSET's arguments
// before it inserts any, as hashTypeTryConversion does, and for each set,
// as hashTypeSet does), when a listpack would pass listpack.MaxSafeSize,
// and when an insert leaves more than HashMaxListpackEntries fields.
// Deleting the last field deletes the key.

// HashParts selects what HGetAll returns of each field.
type HashParts uint8

const (
	HashFields HashParts = 1 << iota // HKEYS
	HashValues                       // HVALS
	HashBoth   = HashFields | HashValues
)

// PairReply is how a store operation writes a reply of hash entries: Head
// once with the number of entries, then for each entry Entry (when not
// nil) and Elem with the field and, when values are asked for, with the
// value. The functions run under a shard lock: they must not keep their
// arguments nor call the store. Plain functions, not closures, keep the
// call free of allocations.
type PairReply struct {
	Head  func(dst []byte, n int) []byte
	Entry func(dst []byte) []byte
	Elem  EncodeFunc
}

// hashCreate creates key, which does not exist, as an empty listpack hash.
func (k *kv) hashCreate(key []byte) {
	k.createCompact(key, TypeHash, EncListpack, listpack.New, 0)
}

// hashLen returns the number of fields.
func (k *kv) hashLen() int {
	if k.enc() == EncHashtable {
		return k.fieldCount()
	}
	return listpack.Len(k.val()) / 2
}

// hashToTable converts a listpack hash to a hash table.
func (k *kv) hashToTable() {
	lp := k.val()
	k.toHashtable(func(fn func(f, v []byte)) { lpEachPair(lp, fn) })
}

// hashTryConversion converts a listpack hash about to receive args
// (fields and values) when one of them is longer than the listpack limit
// or their sum could take the listpack past its safe size, as Redis's
// hashTypeTryConversion.
func (k *kv) hashTryConversion(l *Limits, args ...[]byte) {
	if k.enc() != EncListpack {
		return
	}
	sum := 0
	for _, a := range args {
		if len(a) > l.HashMaxListpackValue {
			k.hashToTable()
			return
		}
		sum += len(a)
	}
	if !listpack.SafeToAdd(k.val(), sum) {
		k.hashToTable()
	}
}

// hashFind returns the offset of field f's value in a listpack hash, or -1.
func hashFind(lp, f []byte) int {
	off := listpack.Find(lp, listpack.First(lp), f, 1)
	if off < 0 {
		return -1
	}
	return listpack.Next(lp, off)
}

// hset sets field f of the hash to v, as Redis's hashTypeSet, and reports
// whether f is new.
func (k *kv) hset(f, v []byte, l *Limits) bool {
	if k.enc() == EncListpack && (len(f) > l.HashMaxListpackValue || len(v) > l.HashMaxListpackValue) {
		k.hashToTable()
	}
	if k.enc() == EncHashtable {
		return k.fieldPut(f, v)
	}
	lp := k.val()
	if voff := hashFind(lp, f); voff >= 0 {
		lp = k.room(max(0, listpack.EncodedSize(v)-listpack.EntrySize(lp, voff)))
		k.setLen(listpack.Replace(lp, voff, v))
		return false
	}
	k.lpAppend(f, v)
	if listpack.Len(k.val())/2 > l.HashMaxListpackEntries {
		k.hashToTable()
	}
	return true
}

// hget returns field f's value, ok false when f is absent. A listpack
// integer is formatted into the shard's scratch num[slot], valid until
// the next hget with that slot.
func (k *kv) hget(f []byte, slot int) ([]byte, bool) {
	if k.enc() == EncHashtable {
		return k.fieldGet(f)
	}
	lp := k.val()
	voff := hashFind(lp, f)
	if voff < 0 {
		return nil, false
	}
	return listpack.Value(lp, voff, k.sh.num[slot][:0]), true
}

// hdel deletes field f and reports whether it was there. The caller
// deletes the key when the hash is left empty.
func (k *kv) hdel(f []byte) bool {
	if k.enc() == EncHashtable {
		return k.fieldDel(f)
	}
	return k.lpRemove(f, 1, 2)
}

// hashEach calls fn with each field and value in the hash's order
// (insertion order for a listpack, the table's otherwise) until fn returns
// false. Listpack integers are formatted into the shard's scratch: fn must
// be done with f and v when it returns, and must not change the hash.
func (k *kv) hashEach(fn func(f, v []byte) bool) {
	if k.enc() == EncHashtable {
		k.fieldEach(fn)
		return
	}
	lp := k.val()
	for off := listpack.First(lp); off >= 0; {
		f := listpack.Value(lp, off, k.sh.num[0][:0])
		off = listpack.Next(lp, off)
		v := listpack.Value(lp, off, k.sh.num[1][:0])
		off = listpack.Next(lp, off)
		if !fn(f, v) {
			return
		}
	}
}

// HSet sets the fields of key's hash to their values, fv holding field,
// value, field, value ... (an even number), creating key when it does not
// exist. It returns how many fields are new, or WrongType.
func (s *Store) HSet(db int, key []byte, fv [][]byte, now int64) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeHash, forWrite)
	defer k.release()
	if st != OK {
		return 0, st
	}
	if !k.exists() {
		k.hashCreate(key)
	}
	l := s.limitsNow()
	k.hashTryConversion(l, fv...)
	if k.enc() == EncListpack && len(fv) > 2 {
		// one move for the whole command, not a half-again reserve per pair
		add := 0
		for _, a := range fv {
			add += listpack.EncodedSize(a)
		}
		k.room(add)
	}
	n := 0
	for i := 0; i+1 < len(fv); i += 2 {
		if k.hset(fv[i], fv[i+1], l) {
			n++
		}
	}
	return n, OK
}

// HSetNX sets field of key's hash to val only when the field does not
// exist, creating key when needed, and reports whether it did.
func (s *Store) HSetNX(db int, key, field, val []byte, now int64) (bool, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeHash, forWrite)
	defer k.release()
	if st != OK {
		return false, st
	}
	if !k.exists() {
		k.hashCreate(key)
	} else if _, ok := k.hget(field, 0); ok {
		return false, OK
	}
	l := s.limitsNow()
	k.hashTryConversion(l, field, val)
	k.hset(field, val, l)
	return true, OK
}

// HGet appends the value of field of key's hash to dst through enc. It
// returns NotFound, leaving dst alone, when key or field does not exist.
func (s *Store) HGet(db int, key, field []byte, now int64, dst []byte, enc EncodeFunc) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeHash, forRead)
	defer k.release()
	if st != OK {
		return dst, st
	}
	v, ok := k.hget(field, 0)
	if !ok {
		return dst, NotFound
	}
	return enc(dst, v), OK
}

// HMGet appends, for each field in order, its value through enc or, when
// it or key does not exist, what missing appends. It returns WrongType,
// leaving dst alone, when key is not a hash.
func (s *Store) HMGet(db int, key []byte, fields [][]byte, now int64, dst []byte, enc EncodeFunc, missing func(dst []byte) []byte) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeHash, forRead)
	defer k.release()
	if st == WrongType {
		return dst, st
	}
	for _, f := range fields {
		v, ok := []byte(nil), false
		if st == OK {
			v, ok = k.hget(f, 0)
		}
		if ok {
			dst = enc(dst, v)
		} else {
			dst = missing(dst)
		}
	}
	return dst, OK
}

// HDel deletes fields of key's hash and returns how many existed; a field
// named twice counts once. The key goes with its last field.
func (s *Store) HDel(db int, key []byte, fields [][]byte, now int64) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeHash, forWrite)
	defer k.release()
	if st != OK || !k.exists() {
		return 0, st
	}
	n := 0
	for _, f := range fields {
		if k.hdel(f) {
			n++
			if k.hashLen() == 0 {
				k.del()
				break
			}
		}
	}
	return n, OK
}

// HExists reports whether field exists in key's hash.
func (s *Store) HExists(db int, key, field []byte, now int64) (bool, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeHash, forRead)
	defer k.release()
	if st != OK {
		return false, st
	}
	_, ok := k.hget(field, 0)
	return ok, OK
}

// HLen returns the number of fields of key's hash, NotFound when key does
// not exist.
func (s *Store) HLen(db int, key []byte, now int64) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeHash, forRead)
	defer k.release()
	if st != OK {
		return 0, st
	}
	return k.hashLen(), OK
}

// HStrLen returns the length of the value of field of key's hash, 0 when
// key or field does not exist.
func (s *Store) HStrLen(db int, key, field []byte, now int64) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeHash, forRead)
	defer k.release()
	if st != OK {
		return 0, st
	}
	v, _ := k.hget(field, 0)
	return len(v), OK
}

// HGetAll appends key's fields, values or both (parts) through r, in the
// hash's order: r.Head with the number of fields, then each field's
// parts. It returns NotFound, leaving dst alone, when key does not exist.
func (s *Store) HGetAll(db int, key []byte, now int64, parts HashParts, dst []byte, r PairReply) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeHash, forRead)
	defer k.release()
	if st != OK {
		return dst, st
	}
	return k.hashAll(parts, dst, &r), OK
}

// hashAll appends every entry of the hash through r.
func (k *kv) hashAll(parts HashParts, dst []byte, r *PairReply) []byte {
	dst = r.Head(dst, k.hashLen())
	k.hashEach(func(f, v []byte) bool {
		dst = appendPair(dst, r, parts, f, v)
		return true
	})
	return dst
}

// appendPair appends one entry of a PairReply.
func appendPair(dst []byte, r *PairReply, parts HashParts, f, v []byte) []byte {
	if r.Entry != nil {
		dst = r.Entry(dst)
	}
	if parts&HashFields != 0 {
		dst = r.Elem(dst, f)
	}
	if parts&HashValues != 0 {
		dst = r.Elem(dst, v)
	}
	return dst
}

// HIncrBy adds delta to the integer value of field of key's hash (0 when
// missing, and key is created when needed) and returns the result. It
// returns HashNotInteger when the value is not a 64-bit decimal integer and
// Overflow when the sum does not fit.
func (s *Store) HIncrBy(db int, key, field []byte, now int64, delta int64) (int64, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeHash, forWrite)
	defer k.release()
	if st != OK {
		return 0, st
	}
	if !k.exists() {
		k.hashCreate(key)
	}
	l := s.limitsNow()
	var cur int64
	voff := -1
	if k.enc() == EncHashtable {
		if v, ok := k.fieldGet(field); ok {
			if cur, ok = ParseInt(v); !ok {
				return 0, HashNotInteger
			}
		}
	} else if voff = hashFind(k.val(), field); voff >= 0 {
		s, n, isInt := listpack.Get(k.val(), voff)
		if !isInt {
			var ok bool
			if n, ok = ParseInt(s); !ok {
				return 0, HashNotInteger
			}
		}
		cur = n
	}
	if (delta < 0 && cur < 0 && delta < math.MinInt64-cur) || (delta > 0 && cur > 0 && delta > math.MaxInt64-cur) {
		return 0, Overflow
	}
	cur += delta
	var tmp [20]byte
	text := strconv.AppendInt(tmp[:0], cur, 10)
	if voff >= 0 && len(field) <= l.HashMaxListpackValue && len(text) <= l.HashMaxListpackValue {
		// in place, without a second search
		lp := k.room(max(0, listpack.EncodedIntSize(cur)-listpack.EntrySize(k.val(), voff)))
		k.setLen(listpack.ReplaceInt(lp, voff, cur))
		return cur, OK
	}
	k.hset(field, text, l)
	return cur, OK
}

// HIncrByFloat adds the decimal incr to the number in field of key's hash
// (0 when missing; key is created when needed), computing in 80-bit
// extended precision as Redis does, stores the result formatted as Redis
// formats it and appends that text to dst through enc. It returns NotFloat
// when incr is not a number and NaNOrInfValue when it is infinite (both
// checked before key is looked up), WrongType, HashNotFloat when the value
// is not a number, and NaNOrInf when the sum would not be finite.
func (s *Store) HIncrByFloat(db int, key, field, incr []byte, now int64, dst []byte, enc EncodeFunc) ([]byte, Status) {
	if _, inf, ok := parseLongDouble(incr); !ok {
		return dst, NotFloat
	} else if inf {
		return dst, NaNOrInfValue
	}
	var k kv
	st := s.openInto(&k, db, key, now, TypeHash, forWrite)
	defer k.release()
	if st != OK {
		return dst, st
	}
	if !k.exists() {
		k.hashCreate(key)
	}
	cur, ok := k.hget(field, 0)
	if !ok {
		cur = []byte("0")
	} else if _, _, ok := parseLongDouble(cur); !ok {
		return dst, HashNotFloat
	}
	text, st := addLongDouble(cur, incr)
	if st != OK {
		return dst, st
	}
	k.hset(field, text, s.limitsNow())
	return enc(dst, text), OK
}

// HRandField appends a random field of key's hash to dst through enc. It
// returns NotFound, leaving dst alone, when key does not exist.
func (s *Store) HRandField(db int, key []byte, now int64, dst []byte, enc EncodeFunc) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeHash, forRead)
	defer k.release()
	if st != OK {
		return dst, st
	}
	if k.enc() == EncHashtable {
		f, _ := k.fieldRandom()
		return enc(dst, f), OK
	}
	lp := k.val()
	off := listpack.Seek(lp, 2*int(k.sh.rand()%uint64(listpack.Len(lp)/2)))
	return enc(dst, listpack.Value(lp, off, k.sh.num[0][:0])), OK
}

// HRandFieldCount appends random entries of key's hash through r as
// Redis's HRANDFIELD key count [WITHVALUES] chooses them: for count > 0,
// min(count, fields) distinct fields; for count < 0, -count fields that
// may repeat, in random order. withValues adds each field's value. It
// returns NotFound, leaving dst alone, when key does not exist, and
// TooLarge once the reply has grown by more than maxOut bytes: the reply is
// then cut, and the caller must close the client as Redis does past its
// output buffer limit. count must be above math.MinInt64.
func (s *Store) HRandFieldCount(db int, key []byte, now int64, count int64, withValues bool, maxOut int,
	dst []byte, r PairReply) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeHash, forRead)
	defer k.release()
	if st != OK {
		return dst, st
	}
	parts := HashFields
	if withValues {
		parts = HashBoth
	}
	size := k.hashLen()
	switch {
	case count == 0:
		return r.Head(dst, 0), OK
	case count < 0 || count == 1:
		return k.hashRandomRepeats(uint64(max(count, -count)), parts, maxOut, dst, &r)
	case count >= int64(size):
		return k.hashAll(parts, dst, &r), OK
	}
	n := int(count)
	dst = r.Head(dst, n)
	if k.enc() == EncListpack || n*3 > size {
		// selection sampling (Knuth's algorithm S): each entry is taken with
		// probability needed/left, which takes exactly n, uniformly, in the
		// hash's order, as Redis's lpRandomPairsUnique does for a listpack
		left := size
		k.hashEach(func(f, v []byte) bool {
			if k.sh.rand()%uint64(left) < uint64(n) {
				dst = appendPair(dst, &r, parts, f, v)
				n--
			}
			left--
			return n > 0
		})
		return dst, OK
	}
	// few of many: random picks, skipping repeats (Redis's CASE 4)
	seen := make(map[ref]struct{}, n)
	d := k.obj()
	for len(seen) < n {
		rf := d.random(&k.t.a, k.sh.rand)
		if _, dup := seen[rf]; dup {
			continue
		}
		seen[rf] = struct{}{}
		b := k.t.a.at(rf)
		dst = appendPair(dst, &r, parts, recKey(b, fieldHdr), fieldVal(b))
	}
	return dst, OK
}

// hashRandomRepeats appends n random entries that may repeat, stopping
// with TooLarge past maxOut bytes.
func (k *kv) hashRandomRepeats(n uint64, parts HashParts, maxOut int, dst []byte, r *PairReply) ([]byte, Status) {
	start := len(dst)
	dst = r.Head(dst, int(n))
	if k.enc() == EncHashtable {
		for ; n > 0; n-- {
			f, v := k.fieldRandom()
			dst = appendPair(dst, r, parts, f, v)
			if len(dst)-start > maxOut {
				return dst, TooLarge
			}
		}
		return dst, OK
	}
	lp := k.val()
	st := OK
	lpRandomEntries(lp, 2, n, k.sh.rand, func(off int) bool {
		f := listpack.Value(lp, off, k.sh.num[0][:0])
		v := listpack.Value(lp, listpack.Next(lp, off), k.sh.num[1][:0])
		dst = appendPair(dst, r, parts, f, v)
		if len(dst)-start > maxOut {
			st = TooLarge
		}
		return st == OK
	})
	return dst, st
}

// HScan continues an iteration of key's hash at cursor and returns the
// cursor to pass next, 0 when the iteration is complete, calling fn under
// the shard lock with each field (and its value) that matches o.Pattern
// (nil matches every field). A listpack hash is returned whole, whatever
// the cursor, as in Redis. A hash table is walked as Redis's dictScan
// walks it, about o.Count entries (default 10) per call; a field present
// for the whole iteration is returned at least once. It returns NotFound
// when key does not exist.
func (s *Store) HScan(db int, key []byte, cursor uint64, now int64, o ScanOptions, fn func(f, v []byte)) (uint64, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeHash, forRead)
	defer k.release()
	if st != OK {
		return 0, st
	}
	if k.enc() != EncHashtable {
		k.hashEach(func(f, v []byte) bool {
			if o.Pattern == nil || Match(o.Pattern, f) {
				fn(f, v)
			}
			return true
		})
		return 0, OK
	}
	count := o.Count
	if count <= 0 {
		count = 10
	}
	// Redis 7.0 counts fields and values alike against COUNT, and filters
	// by pattern after the walk.
	a, d := &k.t.a, k.obj()
	seen := 0
	for iters := count * 10; ; iters-- {
		cursor = d.scan(a, cursor, func(r ref) {
			b := a.at(r)
			if f := recKey(b, fieldHdr); o.Pattern == nil || Match(o.Pattern, f) {
				fn(f, fieldVal(b))
			}
			seen += 2
		})
		if cursor == 0 || iters <= 0 || seen >= count {
			return cursor, OK
		}
	}
}
