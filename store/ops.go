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

// table returns db's table in sh.
func (sh *shard) table(db int) *table { return &sh.tables[db] }

// Get appends key's value to dst through enc. It returns NotFound, leaving
// dst as it is, when key does not exist.
func (s *Store) Get(db int, key []byte, now int64, dst []byte, enc EncodeFunc) ([]byte, Status) {
	h := s.hash(key)
	sh := s.lock(h)
	defer sh.mu.Unlock()
	e := sh.lookup(sh.table(db), h, key, now, true)
	if e == nil {
		return dst, NotFound
	}
	return enc(dst, e.val), OK
}

// MGet appends, for each key in order, its value through enc or, when it
// does not exist, what missing appends (such as a RESP null). It locks every
// shard involved at once, so it never sees half of a concurrent MSet.
func (s *Store) MGet(db int, keys [][]byte, now int64, dst []byte, enc EncodeFunc, missing func(dst []byte) []byte) []byte {
	var m shardSet
	s.lockKeys(&m, keys, 1)
	defer s.unlockSet(&m)
	for _, k := range keys {
		h := s.hash(k)
		sh := &s.shards[s.shardIndex(h)]
		if e := sh.lookup(sh.table(db), h, k, now, true); e != nil {
			dst = enc(dst, e.val)
		} else {
			dst = missing(dst)
		}
	}
	return dst
}

// Set stores a copy of val under key. It returns NotSet when opts.Mode's
// condition does not hold, OK otherwise.
func (s *Store) Set(db int, key, val []byte, now int64, opts SetOptions) Status {
	h := s.hash(key)
	sh := s.lock(h)
	defer sh.mu.Unlock()
	_, _, st := sh.set(sh.table(db), h, key, val, now, opts, nil, nil)
	return st
}

// SetGet is SET ... GET: it appends the old value to dst through enc, then
// sets key as Set does. found reports whether there was an old value; st is
// NotSet when opts.Mode's condition did not hold.
func (s *Store) SetGet(db int, key, val []byte, now int64, opts SetOptions, dst []byte, enc EncodeFunc) (out []byte, found bool, st Status) {
	h := s.hash(key)
	sh := s.lock(h)
	defer sh.mu.Unlock()
	return sh.set(sh.table(db), h, key, val, now, opts, dst, enc)
}

// set implements Set and SetGet. Caller holds sh.mu.
func (sh *shard) set(t *table, h uint64, key, val []byte, now int64, o SetOptions, dst []byte, enc EncodeFunc) ([]byte, bool, Status) {
	e := sh.lookup(t, h, key, now, enc != nil) // SET ... GET reads, as Redis counts it
	found := e != nil
	if found && enc != nil {
		dst = enc(dst, e.val)
	}
	if (o.Mode == SetNX && found) || (o.Mode == SetXX && !found) {
		return dst, found, NotSet
	}
	if e == nil {
		sh.add(t, h, key, val, o.ExpireAt, now)
		return dst, found, OK
	}
	sh.setVal(e, val)
	if !o.KeepTTL {
		t.setTTL(e, o.ExpireAt)
	}
	return dst, found, OK
}

// MSet sets every key-value pair of kv (key, value, key, value, ...),
// clearing their TTLs. kv must have an even length.
func (s *Store) MSet(db int, kv [][]byte, now int64) {
	var m shardSet
	s.lockKeys(&m, kv, 2)
	defer s.unlockSet(&m)
	for i := 0; i < len(kv); i += 2 {
		h := s.hash(kv[i])
		sh := &s.shards[s.shardIndex(h)]
		sh.set(sh.table(db), h, kv[i], kv[i+1], now, SetOptions{}, nil, nil)
	}
}

// MSetNX sets every pair of kv, as MSet does, only if none of the keys
// exists, atomically. It reports whether it set them.
func (s *Store) MSetNX(db int, kv [][]byte, now int64) bool {
	var m shardSet
	s.lockKeys(&m, kv, 2)
	defer s.unlockSet(&m)
	for i := 0; i < len(kv); i += 2 {
		h := s.hash(kv[i])
		sh := &s.shards[s.shardIndex(h)]
		if sh.lookup(sh.table(db), h, kv[i], now, false) != nil {
			return false
		}
	}
	for i := 0; i < len(kv); i += 2 {
		h := s.hash(kv[i])
		sh := &s.shards[s.shardIndex(h)]
		sh.set(sh.table(db), h, kv[i], kv[i+1], now, SetOptions{}, nil, nil)
	}
	return true
}

// GetDel appends key's value to dst through enc and deletes key. It returns
// NotFound when key does not exist.
func (s *Store) GetDel(db int, key []byte, now int64, dst []byte, enc EncodeFunc) ([]byte, Status) {
	h := s.hash(key)
	sh := s.lock(h)
	defer sh.mu.Unlock()
	t := sh.table(db)
	e := sh.lookup(t, h, key, now, true)
	if e == nil {
		return dst, NotFound
	}
	dst = enc(dst, e.val)
	sh.del(t, e)
	return dst, OK
}

// GetExOptions are GETEX's options. At most one of Persist and ExpireAt != 0
// is set; neither leaves the TTL alone.
type GetExOptions struct {
	Persist  bool  // remove the TTL
	ExpireAt int64 // Unix ms of the new TTL; at or before now deletes the key
}

// GetEx appends key's value to dst through enc, then changes its TTL as o
// says. It returns NotFound when key does not exist.
func (s *Store) GetEx(db int, key []byte, now int64, o GetExOptions, dst []byte, enc EncodeFunc) ([]byte, Status) {
	h := s.hash(key)
	sh := s.lock(h)
	defer sh.mu.Unlock()
	t := sh.table(db)
	e := sh.lookup(t, h, key, now, true)
	if e == nil {
		return dst, NotFound
	}
	dst = enc(dst, e.val)
	switch {
	case o.ExpireAt != 0 && o.ExpireAt <= now:
		sh.del(t, e)
	case o.ExpireAt != 0:
		t.setTTL(e, o.ExpireAt)
	case o.Persist:
		t.setTTL(e, 0)
	}
	return dst, OK
}

// StrLen returns the length of key's value, 0 when it does not exist.
func (s *Store) StrLen(db int, key []byte, now int64) int {
	h := s.hash(key)
	sh := s.lock(h)
	defer sh.mu.Unlock()
	if e := sh.lookup(sh.table(db), h, key, now, true); e != nil {
		return len(e.val)
	}
	return 0
}

// GetRange appends through enc the substring of key's value from start to
// end inclusive, where negative offsets count from the end, as GETRANGE
// does. It returns NotFound, leaving dst alone, when key does not exist.
func (s *Store) GetRange(db int, key []byte, now int64, start, end int64, dst []byte, enc EncodeFunc) ([]byte, Status) {
	h := s.hash(key)
	sh := s.lock(h)
	defer sh.mu.Unlock()
	e := sh.lookup(sh.table(db), h, key, now, true)
	if e == nil {
		return dst, NotFound
	}
	n := int64(len(e.val))
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
	return enc(dst, e.val[start:end+1]), OK
}

// IncrBy adds delta to the integer stored at key (0 when missing) and
// returns the result. It returns NotInteger when the value is not a 64-bit
// decimal integer and Overflow when the sum does not fit.
func (s *Store) IncrBy(db int, key []byte, now int64, delta int64) (int64, Status) {
	h := s.hash(key)
	sh := s.lock(h)
	defer sh.mu.Unlock()
	t := sh.table(db)
	e := sh.lookup(t, h, key, now, false)
	var v int64
	if e != nil {
		var ok bool
		if v, ok = ParseInt(e.val); !ok {
			return 0, NotInteger
		}
	}
	if (delta < 0 && v < 0 && delta < math.MinInt64-v) || (delta > 0 && v > 0 && delta > math.MaxInt64-v) {
		return 0, Overflow
	}
	v += delta
	var tmp [20]byte
	digits := strconv.AppendInt(tmp[:0], v, 10)
	if e == nil {
		sh.add(t, h, key, digits, 0, now)
	} else {
		sh.setVal(e, digits)
	}
	return v, OK
}

// IncrByFloat adds the decimal incr to the number stored at key (0 when
// missing), computing in 80-bit extended precision as Redis does, stores
// the result formatted as Redis's INCRBYFLOAT formats it, and appends that
// text to dst through enc. It returns NotFloat when the value or incr is not
// a number and NaNOrInf when the result would not be finite.
func (s *Store) IncrByFloat(db int, key []byte, now int64, incr []byte, dst []byte, enc EncodeFunc) ([]byte, Status) {
	h := s.hash(key)
	sh := s.lock(h)
	defer sh.mu.Unlock()
	t := sh.table(db)
	e := sh.lookup(t, h, key, now, false)
	var cur []byte
	if e != nil {
		cur = e.val
	} else {
		cur = []byte("0")
	}
	text, st := addLongDouble(cur, incr)
	if st != OK {
		return dst, st
	}
	if e == nil {
		sh.add(t, h, key, text, 0, now)
	} else {
		sh.setVal(e, text)
	}
	return enc(dst, text), OK
}

// Append appends val to key's value, creating key when missing, and
// returns the new length. It returns TooLarge when the result would exceed
// MaxValueLen.
func (s *Store) Append(db int, key, val []byte, now int64) (int, Status) {
	h := s.hash(key)
	sh := s.lock(h)
	defer sh.mu.Unlock()
	t := sh.table(db)
	e := sh.lookup(t, h, key, now, false)
	if e == nil {
		sh.add(t, h, key, val, 0, now)
		return len(val), OK
	}
	n := len(e.val) + len(val)
	if n > MaxValueLen {
		return 0, TooLarge
	}
	sh.grow(e, n)
	copy(e.val[n-len(val):], val)
	return n, OK
}

// SetRange overwrites key's value with val from offset (>= 0), zero-padding
// as needed, and returns the new length. An empty val changes nothing and
// creates no key. It returns TooLarge when the result would exceed
// MaxValueLen.
func (s *Store) SetRange(db int, key []byte, offset int64, val []byte, now int64) (int, Status) {
	h := s.hash(key)
	sh := s.lock(h)
	defer sh.mu.Unlock()
	t := sh.table(db)
	e := sh.lookup(t, h, key, now, false)
	if len(val) == 0 {
		if e == nil {
			return 0, OK
		}
		return len(e.val), OK
	}
	if offset > MaxValueLen-int64(len(val)) {
		return 0, TooLarge
	}
	end := int(offset) + len(val)
	if e == nil {
		e = sh.add(t, h, key, nil, 0, now)
	}
	if end > len(e.val) {
		sh.grow(e, end)
	}
	copy(e.val[offset:], val)
	return len(e.val), OK
}

// grow extends e's value to n bytes, zero-filling the new tail, in place
// when it fits. Caller holds sh.mu.
func (sh *shard) grow(e *entry, n int) {
	old := len(e.val)
	if n <= cap(e.val) {
		e.val = e.val[:n]
		clear(e.val[old:])
		return
	}
	before := e.mem()
	nc := max(n, 2*cap(e.val))
	if n >= 1<<20 {
		nc = n + 1<<20 // Redis's SDS_MAX_PREALLOC
	}
	v := make([]byte, n, nc)
	copy(v, e.val)
	e.val = v
	sh.account(e.mem() - before)
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
