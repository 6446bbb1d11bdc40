package store

import (
	"math"
	"strconv"
)

// SetMode is SET's existence condition.
type SetMode uint8

const (
	SetAlways SetMode = iota // set whether or not the key exists
	SetNX                    // set only if the key does not exist
	SetXX                    // set only if the key exists
)

// SetOptions are the options of SET and its variants.
type SetOptions struct {
	Mode     SetMode
	ExpireAt int64 // Unix ms of the new TTL; 0 clears the TTL (unless KeepTTL)
	KeepTTL  bool  // keep the key's current TTL
}

// Get appends key's value to dst through enc. It returns NotFound, leaving
// dst as it is, when key does not exist, and WrongType when it is not a
// string.
func (s *Store) Get(db int, key []byte, now int64, dst []byte, enc EncodeFunc) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeString, forRead)
	defer k.release()
	if st != OK {
		return dst, st
	}
	return enc(dst, k.val()), OK
}

// MGet appends, for each key in order, its value through enc or, when it
// does not exist or is not a string, what missing appends (such as a RESP
// null). It locks every shard involved at once, so it never sees half of a
// concurrent MSet.
func (s *Store) MGet(db int, keys [][]byte, now int64, dst []byte, enc EncodeFunc, missing func(dst []byte) []byte) []byte {
	var m shardSet
	s.lockKeysRead(&m, keys)
	defer s.unlockSet(&m)
	var k kv
	for _, key := range keys {
		if s.findReadInto(&k, db, key, now, true); k.kind() == TypeString {
			dst = enc(dst, k.val())
		} else {
			dst = missing(dst)
		}
	}
	return dst
}

// Set stores a copy of val under key, replacing a value of any type. It
// returns NotSet when opts.Mode's condition does not hold, OK otherwise.
func (s *Store) Set(db int, key, val []byte, now int64, opts SetOptions) Status {
	var k kv
	s.acquireInto(&k, db, key, now, false)
	defer k.release()
	_, _, st := k.set(key, val, opts, nil, nil)
	return st
}

// SetGet is SET ... GET: it appends the old value to dst through enc, then
// sets key as Set does. found reports whether there was an old value; st is
// NotSet when opts.Mode's condition did not hold, WrongType when the old
// value is not a string (and nothing is set).
func (s *Store) SetGet(db int, key, val []byte, now int64, opts SetOptions, dst []byte, enc EncodeFunc) (out []byte, found bool, st Status) {
	var k kv
	s.acquireInto(&k, db, key, now, true) // SET ... GET reads, as Redis counts it
	defer k.release()
	if st := k.check(TypeString); st != OK {
		return dst, true, st
	}
	return k.set(key, val, opts, dst, enc)
}

// set implements Set and SetGet.
func (k *kv) set(key, val []byte, o SetOptions, dst []byte, enc EncodeFunc) ([]byte, bool, Status) {
	found := k.exists()
	if found && enc != nil {
		dst = enc(dst, k.val())
	}
	if (o.Mode == SetNX && found) || (o.Mode == SetXX && !found) {
		return dst, found, NotSet
	}
	k.putString(key, val, stringEncoding(val), o.ExpireAt, o.KeepTTL)
	return dst, found, OK
}

// putString makes the key a string holding a copy of val, created or
// overwritten in place when the old value is a string whose chunk fits,
// with TTL at unless keepTTL.
func (k *kv) putString(key, val []byte, e Encoding, at int64, keepTTL bool) {
	if k.exists() && k.kind() != TypeString {
		if keepTTL {
			at = k.expireAt()
		}
		k.del()
	}
	if !k.exists() {
		k.create(key, TypeString, e, val, 0, at)
		return
	}
	k.setVal(val)
	k.setEnc(e)
	if !keepTTL {
		k.setTTL(at)
	}
}

// MSet sets every key-value pair of kv (key, value, key, value, ...),
// clearing their TTLs. kv must have an even length.
func (s *Store) MSet(db int, kvs [][]byte, now int64) {
	var (
		m     shardSet
		slots [msetSlots]uint16 // the first keys' slots, computed once
	)
	for i := 0; i < len(kvs); i += 2 {
		slot := KeySlot(kvs[i])
		if i/2 < len(slots) {
			slots[i/2] = slot
		}
		m.add(s.shardOf(slot))
	}
	s.lockSet(&m)
	defer s.unlockSet(&m)
	var k kv
	for i := 0; i < len(kvs); i += 2 {
		var slot uint16
		if i/2 < len(slots) {
			slot = slots[i/2]
		} else {
			slot = KeySlot(kvs[i])
		}
		s.lookupInto(&k, &s.shards[s.shardOf(slot)], db, kvs[i], slot, now, false, true) // find, with the slot known
		k.cow()
		k.set(kvs[i], kvs[i+1], SetOptions{}, nil, nil)
	}
}

// msetSlots is how many keys' slots MSet keeps from locking to setting
// (redis-benchmark's MSET has 10); later keys' are computed again.
const msetSlots = 16

// MSetNX sets every pair of kv, as MSet does, only if none of the keys
// exists, atomically. It reports whether it set them.
func (s *Store) MSetNX(db int, kvs [][]byte, now int64) bool {
	var m shardSet
	s.lockKeys(&m, kvs, 2)
	defer s.unlockSet(&m)
	for i := 0; i < len(kvs); i += 2 {
		if k := s.find(db, kvs[i], now, false); k.exists() {
			return false
		}
	}
	for i := 0; i < len(kvs); i += 2 {
		var k kv
		s.findInto(&k, db, kvs[i], now, false)
		k.set(kvs[i], kvs[i+1], SetOptions{}, nil, nil)
	}
	return true
}

// GetDel appends key's value to dst through enc and deletes key. It returns
// NotFound when key does not exist and WrongType when it is not a string.
func (s *Store) GetDel(db int, key []byte, now int64, dst []byte, enc EncodeFunc) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeString, forTake)
	defer k.release()
	if st != OK {
		return dst, st
	}
	dst = enc(dst, k.val())
	k.del()
	return dst, OK
}

// GetExOptions are GETEX's options. At most one of Persist and ExpireAt != 0
// is set; neither leaves the TTL alone.
type GetExOptions struct {
	Persist  bool  // remove the TTL
	ExpireAt int64 // Unix ms of the new TTL; at or before now deletes the key
}

// GetEx appends key's value to dst through enc, then changes its TTL as o
// says. It returns NotFound when key does not exist and WrongType when it
// is not a string.
func (s *Store) GetEx(db int, key []byte, now int64, o GetExOptions, dst []byte, enc EncodeFunc) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeString, forTake)
	defer k.release()
	if st != OK {
		return dst, st
	}
	dst = enc(dst, k.val())
	switch {
	case o.ExpireAt != 0 && o.ExpireAt <= now:
		k.del()
	case o.ExpireAt != 0:
		k.setTTL(o.ExpireAt)
	case o.Persist:
		k.setTTL(0)
	}
	return dst, OK
}

// StrLen returns the length of key's value, 0 when it does not exist.
func (s *Store) StrLen(db int, key []byte, now int64) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeString, forRead)
	defer k.release()
	if st != OK {
		return 0, st
	}
	return len(k.val()), OK
}

// GetRange appends through enc the substring of key's value from start to
// end inclusive, where negative offsets count from the end, as GETRANGE
// does. It returns NotFound, leaving dst alone, when key does not exist.
func (s *Store) GetRange(db int, key []byte, now int64, start, end int64, dst []byte, enc EncodeFunc) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeString, forRead)
	defer k.release()
	if st != OK {
		return dst, st
	}
	v := k.val()
	n := int64(len(v))
	if start < 0 && end < 0 && start > end {
		return enc(dst, nil), OK
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start = max(start, 0)
	end = max(end, 0)
	if end >= n {
		end = n - 1
	}
	if start > end || n == 0 {
		return enc(dst, nil), OK
	}
	return enc(dst, v[start:end+1]), OK
}

// IncrBy adds delta to the integer stored at key (0 when missing) and
// returns the result. It returns NotInteger when the value is not a 64-bit
// decimal integer and Overflow when the sum does not fit.
func (s *Store) IncrBy(db int, key []byte, now int64, delta int64) (int64, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeString, forWrite)
	defer k.release()
	if st != OK {
		return 0, st
	}
	var v int64
	if k.exists() {
		var ok bool
		if v, ok = ParseInt(k.val()); !ok {
			return 0, NotInteger
		}
	}
	if (delta < 0 && v < 0 && delta < math.MinInt64-v) || (delta > 0 && v > 0 && delta > math.MaxInt64-v) {
		return 0, Overflow
	}
	v += delta
	var tmp [20]byte
	k.putString(key, strconv.AppendInt(tmp[:0], v, 10), EncInt, 0, true)
	return v, OK
}

// IncrByFloat adds the decimal incr to the number stored at key (0 when
// missing), computing in 80-bit extended precision as Redis does, stores
// the result formatted as Redis's INCRBYFLOAT formats it, and appends that
// text to dst through enc. It returns NotFloat when the value or incr is not
// a number and NaNOrInf when the result would not be finite.
func (s *Store) IncrByFloat(db int, key []byte, now int64, incr []byte, dst []byte, enc EncodeFunc) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeString, forWrite)
	defer k.release()
	if st != OK {
		return dst, st
	}
	cur := []byte("0")
	if k.exists() {
		cur = k.val()
	}
	text, st := addLongDouble(cur, incr)
	if st != OK {
		return dst, st
	}
	e := EncEmbstr
	if len(text) > embstrMax {
		e = EncRaw
	}
	k.putString(key, text, e, 0, true)
	return enc(dst, text), OK
}

// Append appends val to key's value, creating key when missing, and
// returns the new length. It returns TooLarge when the result would exceed
// MaxValueLen.
func (s *Store) Append(db int, key, val []byte, now int64) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeString, forWrite)
	defer k.release()
	if st != OK {
		return 0, st
	}
	if !k.exists() {
		k.create(key, TypeString, EncRaw, val, 0, 0)
		return len(val), OK
	}
	old := len(k.val())
	n := old + len(val)
	if n > MaxValueLen {
		return 0, TooLarge
	}
	copy(k.grow(n)[old:], val)
	return n, OK
}

// SetRange overwrites key's value with val from offset (>= 0), zero-padding
// as needed, and returns the new length. An empty val changes nothing and
// creates no key. It returns TooLarge when the result would exceed
// MaxValueLen.
func (s *Store) SetRange(db int, key []byte, offset int64, val []byte, now int64) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeString, forWrite)
	defer k.release()
	if st != OK {
		return 0, st
	}
	if len(val) == 0 {
		if !k.exists() {
			return 0, OK
		}
		return len(k.val()), OK
	}
	if offset > MaxValueLen-int64(len(val)) {
		return 0, TooLarge
	}
	end := int(offset) + len(val)
	if !k.exists() {
		k.create(key, TypeString, EncRaw, nil, end, 0)
	}
	v := k.val()
	if end > len(v) {
		v = k.grow(end)
	}
	copy(v[offset:], val)
	k.setEnc(EncRaw)
	return len(v), OK
}

// grow extends a string value to n bytes, zero-filling the new tail, and
// makes it raw. When it moves the value it reserves room as Redis's
// sdsMakeRoomFor does: double, or 1 MiB more past 1 MiB.
func (k *kv) grow(n int) []byte {
	old := len(k.val())
	extra := n
	if n >= 1<<20 {
		extra = 1 << 20 // Redis's SDS_MAX_PREALLOC
	}
	v := k.resize(n, extra)
	clear(v[old:])
	k.setEnc(EncRaw)
	return v
}

// ParseInt parses b as Redis's string2ll does: an optional '-', then
// decimal digits without leading zeros ("0" alone is allowed), at most 20
// bytes, in the int64 range. It does not allocate.
func ParseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	i, neg := 0, false
	if b[0] == '-' {
		neg, i = true, 1
		if len(b) == 1 {
			return 0, false
		}
	}
	if b[i] < '1' || b[i] > '9' {
		return 0, false
	}
	var v uint64
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-9)/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return int64(-v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}
