package store

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Bitmap operations on strings (Redis bitops.c): a string is an array of
// bits, bit 0 being the most significant bit of byte 0. Writes create or
// zero-extend the string as needed and leave it raw, as Redis's
// dbUnshareStringValue does; offsets are checked by the caller.

// GetBit returns the bit at offset off of key's value, 0 past its end or
// when key does not exist (NotFound).
func (s *Store) GetBit(db int, key []byte, now int64, off uint64) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeString, forRead)
	defer k.release()
	if st != OK {
		return 0, st
	}
	return bitAt(k.val(), off), OK
}

// SetBit sets the bit at offset off of key's value to on, creating or
// zero-extending it, and returns the old bit. changed reports whether the
// value changed (created, grown or the bit flipped): Redis 7.0 counts and
// announces only such a change.
func (s *Store) SetBit(db int, key []byte, now int64, off uint64, on bool) (old int, changed bool, st Status) {
	if off>>3 >= maxBitmapLen {
		return 0, false, TooLarge
	}
	var k kv
	st = s.openInto(&k, db, key, now, TypeString, forWrite)
	defer k.release()
	if st != OK {
		return 0, false, st
	}
	v, grown := k.bitsFor(key, off>>3+1)
	old = bitAt(v, off)
	mask := byte(0x80) >> (off & 7)
	if on {
		v[off>>3] |= mask
	} else {
		v[off>>3] &^= mask
	}
	return old, grown || (old == 1) != on, OK
}

// maxBitmapLen bounds the strings bit writes make: a record's value
// length is 32 bits. Redis's own bound, the offset's byte below
// proto-max-bulk-len (512 MB by default), is the server's check and is
// lower unless proto-max-bulk-len is set above 4 GB.
const maxBitmapLen = 1<<32 - 1<<20

// bitsFor makes key's value, created when missing, at least n bytes long
// (zero-extended) and raw, and returns it; grown reports whether it was
// created or extended.
func (k *kv) bitsFor(key []byte, n uint64) (v []byte, grown bool) {
	if !k.exists() {
		k.create(key, TypeString, EncRaw, nil, int(n), 0)
		return k.grow(int(n)), true
	}
	v = k.val()
	if uint64(len(v)) < n {
		return k.grow(int(n)), true
	}
	k.setEnc(EncRaw)
	return v, false
}

func bitAt(v []byte, off uint64) int {
	if off>>3 >= uint64(len(v)) {
		return 0
	}
	return int(v[off>>3]>>(7-off&7)) & 1
}

// BitRange is the range argument of BITCOUNT and BITPOS: Start and End
// inclusive, negative counting from the end, in bytes or (Bit) in bits.
// Whole is the entire string; EndGiven tells BITPOS whether End was given.
type BitRange struct {
	Start, End int64
	Bit        bool
	Whole      bool
	EndGiven   bool
}

// bounds applies r to a string of n bytes: the first and last bit of the
// range, or ok false when it is empty.
func (r BitRange) bounds(n int64) (first, last int64, ok bool) {
	if r.Whole {
		return 0, n*8 - 1, n > 0
	}
	total := n
	if r.Bit {
		total = n * 8
	}
	start, end := r.Start, r.End
	if start < 0 && end < 0 && start > end {
		return 0, 0, false
	}
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	start, end = max(start, 0), max(end, 0)
	end = min(end, total-1)
	if start > end {
		return 0, 0, false
	}
	if r.Bit {
		return start, end, true
	}
	return start * 8, end*8 + 7, true
}

// BitCount returns the number of set bits of key's value within r, 0 when
// key does not exist (NotFound). With check set it only looks the key up
// (the caller then replies an argument error found after the lookup, as
// Redis does).
func (s *Store) BitCount(db int, key []byte, now int64, r BitRange, check bool) (int64, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeString, forRead)
	defer k.release()
	if st != OK || check {
		return 0, st
	}
	v := k.val()
	first, last, ok := r.bounds(int64(len(v)))
	if !ok {
		return 0, OK
	}
	return countBits(v, uint64(first), uint64(last)), OK
}

// countBits counts the set bits from bit first to bit last inclusive.
func countBits(v []byte, first, last uint64) int64 {
	fb, lb := first>>3, last>>3
	if fb == lb {
		return int64(bits.OnesCount8(v[fb] & headMask(first) & tailMask(last)))
	}
	n := bits.OnesCount8(v[fb]&headMask(first)) + bits.OnesCount8(v[lb]&tailMask(last))
	mid := v[fb+1 : lb]
	for len(mid) >= 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(mid))
		mid = mid[8:]
	}
	for _, b := range mid {
		n += bits.OnesCount8(b)
	}
	return int64(n)
}

// headMask keeps the bits of a byte from bit first on; tailMask those up
// to bit last.
func headMask(first uint64) byte { return 0xff >> (first & 7) }
func tailMask(last uint64) byte  { return 0xff << (7 - last&7) }

// BitPos returns the position of the first bit equal to bit within r of
// key's value, or -1. A missing key (NotFound) is all zeros: the caller
// replies 0 for bit 0, -1 for bit 1. Looking for a 0 in a range of ones
// without an end given finds the first bit past the string, as in Redis.
// With check set it only looks the key up, as BitCount.
func (s *Store) BitPos(db int, key []byte, now int64, bit int, r BitRange, check bool) (int64, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeString, forRead)
	defer k.release()
	if st != OK || check {
		return 0, st
	}
	v := k.val()
	first, last, ok := r.bounds(int64(len(v)))
	if !ok {
		return -1, OK
	}
	if p := findBit(v, uint64(first), uint64(last), bit); p >= 0 {
		return p, OK
	}
	if bit == 0 && !r.EndGiven {
		return int64(len(v)) * 8, OK
	}
	return -1, OK
}

// findBit returns the first bit from first to last inclusive equal to bit,
// or -1.
func findBit(v []byte, first, last uint64, bit int) int64 {
	var flip byte // looking for a 0 is looking for a 1 in the complement
	if bit == 0 {
		flip = 0xff
	}
	fb, lb := first>>3, last>>3
	for i := fb; i <= lb; i++ {
		b := v[i] ^ flip
		if i == fb {
			b &= headMask(first)
		}
		if i == lb {
			b &= tailMask(last)
		}
		if b != 0 {
			return int64(i*8) + int64(bits.LeadingZeros8(b))
		}
		if i == fb && i+8 < lb {
			// whole words between the edges
			j := i + 1
			for ; j+8 <= lb; j += 8 {
				w := binary.BigEndian.Uint64(v[j:])
				if bit == 0 {
					w = ^w
				}
				if w != 0 {
					return int64(j*8) + int64(bits.LeadingZeros64(w))
				}
			}
			i = j - 1
		}
	}
	return -1
}

// BitOpKind is BITOP's operation.
type BitOpKind uint8

const (
	BitAnd BitOpKind = iota
	BitOr
	BitXor
	BitNot
)

// BitOp stores in dst the bitwise op of the strings at keys (a missing key
// is an empty string, a shorter one is zero-padded; NOT takes one key),
// replacing any value and its TTL, and returns the result's length. An
// empty result deletes dst instead; deleted reports whether it existed.
// It returns WrongType, changing nothing, when a key is not a string.
func (s *Store) BitOp(db int, op BitOpKind, dst []byte, keys [][]byte, now int64) (n int, deleted bool, st Status) {
	var m shardSet
	m.add(s.shardIndex(dst))
	s.lockKeys(&m, keys, 1)
	defer s.unlockSet(&m)
	var k kv
	size := 0
	for _, key := range keys {
		s.findReadInto(&k, db, key, now, true)
		if k.check(TypeString) != OK {
			return 0, false, WrongType
		}
		if k.exists() {
			size = max(size, len(k.val()))
		}
	}
	var res []byte
	if size > 0 {
		res = make([]byte, size)
		for i, key := range keys {
			s.findReadInto(&k, db, key, now, false)
			var v []byte
			if k.exists() {
				v = k.val()
			}
			foldBits(res, v, op, i == 0)
		}
	}
	s.findInto(&k, db, dst, now, false)
	if size == 0 {
		if k.exists() {
			k.del()
			return 0, true, OK
		}
		return 0, false, OK
	}
	k.putString(dst, res, EncRaw, 0, false)
	return size, false, OK
}

// foldBits combines v, zero-padded to len(res), into res by op; the first
// operand is copied (complemented for NOT).
func foldBits(res, v []byte, op BitOpKind, first bool) {
	if first {
		n := copy(res, v)
		clear(res[n:])
		if op == BitNot {
			for i := range res {
				res[i] = ^res[i]
			}
		}
		return
	}
	switch op {
	case BitAnd:
		for i := range res {
			if i < len(v) {
				res[i] &= v[i]
			} else {
				res[i] = 0
			}
		}
	case BitOr:
		for i := range min(len(res), len(v)) {
			res[i] |= v[i]
		}
	case BitXor:
		for i := range min(len(res), len(v)) {
			res[i] ^= v[i]
		}
	}
}

// BitField operations (BITFIELD's GET, SET and INCRBY).
type BitFieldKind uint8

const (
	BitFieldGet BitFieldKind = iota
	BitFieldSet
	BitFieldIncr
)

// BitOverflow is BITFIELD's OVERFLOW behaviour.
type BitOverflow uint8

const (
	OverflowWrap BitOverflow = iota
	OverflowSat
	OverflowFail
)

// BitFieldOp is one BITFIELD operation on the integer of Bits bits (1 to
// 64 signed, 1 to 63 unsigned) at bit Offset.
type BitFieldOp struct {
	Kind     BitFieldKind
	Signed   bool
	Bits     uint8
	Overflow BitOverflow
	Offset   uint64
	Value    int64 // SET's value, INCRBY's increment
}

// BitFieldResult is one operation's reply: GET the value, SET the old
// value, INCRBY the new one; Nil when OVERFLOW FAIL refused a write.
type BitFieldResult struct {
	Value int64
	Nil   bool
}

// BitField runs ops on key's value in order and appends their results to
// res. With a write among ops the value is created or zero-extended to
// hold every write first (even when each then fails), else a missing key
// (NotFound) reads as zeros. changes counts the writes that changed the
// value (all of them once it was created or extended), as Redis counts.
func (s *Store) BitField(db int, key []byte, now int64, ops []BitFieldOp, res []BitFieldResult) (_ []BitFieldResult, changes int, st Status) {
	var need uint64 // bytes the writes need
	for i := range ops {
		if ops[i].Kind != BitFieldGet {
			need = max(need, (ops[i].Offset+uint64(ops[i].Bits)-1)>>3+1)
		}
	}
	if need > maxBitmapLen {
		return res, 0, TooLarge
	}
	var k kv
	a := forRead
	if need > 0 {
		a = forWrite
	}
	st = s.openInto(&k, db, key, now, TypeString, a)
	defer k.release()
	if st == NotFound {
		for range ops {
			res = append(res, BitFieldResult{})
		}
		return res, 0, NotFound
	}
	if st != OK {
		return res, 0, st
	}
	var v []byte
	grown := false
	if need > 0 {
		v, grown = k.bitsFor(key, need)
	} else {
		v = k.val()
	}
	for i := range ops {
		op := &ops[i]
		old := readField(v, op.Offset, op.Bits, op.Signed)
		if op.Kind == BitFieldGet {
			res = append(res, BitFieldResult{Value: old})
			continue
		}
		nv, ok := fieldResult(op, old)
		if !ok {
			res = append(res, BitFieldResult{Nil: true})
			continue
		}
		writeField(v, op.Offset, op.Bits, uint64(nv))
		if grown || nv != old {
			changes++
		}
		if op.Kind == BitFieldSet {
			res = append(res, BitFieldResult{Value: old})
		} else {
			res = append(res, BitFieldResult{Value: nv})
		}
	}
	return res, changes, OK
}

// readField reads the n-bit integer at bit off (bits past v's end are 0).
func readField(v []byte, off uint64, n uint8, signed bool) int64 {
	var u uint64
	for i := uint64(0); i < uint64(n); i++ {
		u = u<<1 | uint64(bitAt(v, off+i))
	}
	if signed && n < 64 && u&(1<<(n-1)) != 0 {
		u |= ^uint64(0) << n // sign-extend
	}
	return int64(u)
}

// writeField stores the low n bits of u at bit off; v holds them.
func writeField(v []byte, off uint64, n uint8, u uint64) {
	for i := uint64(0); i < uint64(n); i++ {
		b := off + i
		mask := byte(0x80) >> (b & 7)
		if u>>(uint64(n)-1-i)&1 != 0 {
			v[b>>3] |= mask
		} else {
			v[b>>3] &^= mask
		}
	}
}

// fieldResult is the value a SET or INCRBY writes over old, with op's
// overflow behaviour; ok is false when OVERFLOW FAIL refuses it.
func fieldResult(op *BitFieldOp, old int64) (int64, bool) {
	n := uint(op.Bits)
	if op.Signed {
		lo, hi := int64(math.MinInt64)>>(64-n), int64(math.MaxInt64)>>(64-n)
		var sum int64
		var over, under bool
		if op.Kind == BitFieldSet {
			sum, over, under = op.Value, op.Value > hi, op.Value < lo
		} else {
			sum = int64(uint64(old) + uint64(op.Value)) // wraps mod 2^64
			over = op.Value > 0 && old > hi-op.Value
			under = op.Value < 0 && old < lo-op.Value
		}
		switch {
		case !over && !under:
			return sum, true
		case op.Overflow == OverflowFail:
			return 0, false
		case op.Overflow == OverflowSat && over:
			return hi, true
		case op.Overflow == OverflowSat:
			return lo, true
		}
		return int64(uint64(sum)<<(64-n)) >> (64 - n), true // wrap: sign-extend the low n bits
	}
	hi := uint64(1)<<n - 1
	var sum uint64
	var over, under bool
	if op.Kind == BitFieldSet {
		// a negative value is a huge unsigned one: over, and SAT gives the maximum
		sum = uint64(op.Value)
		over = sum > hi
	} else if op.Value >= 0 {
		sum = uint64(old) + uint64(op.Value)
		over = sum > hi
	} else {
		dec := uint64(-(op.Value + 1)) + 1 // |Value| without overflow at MinInt64
		sum = uint64(old) - dec
		under = dec > uint64(old)
	}
	switch {
	case !over && !under:
		return int64(sum), true
	case op.Overflow == OverflowFail:
		return 0, false
	case op.Overflow == OverflowSat && over:
		return int64(hi), true
	case op.Overflow == OverflowSat:
		return 0, true
	}
	return int64(sum & hi), true
}

// Strings appends the string values of keys a and b to buf, looked up at
// once under both shard locks, and returns their lengths (a missing key is
// empty). It returns WrongType when either is not a string.
func (s *Store) Strings(db int, a, b []byte, now int64, buf []byte) (_ []byte, la, lb int, st Status) {
	var m shardSet
	m.add(s.shardIndex(a))
	m.add(s.shardIndex(b))
	s.lockSet(&m)
	defer s.unlockSet(&m)
	var ka, kb kv
	s.findReadInto(&ka, db, a, now, true)
	s.findReadInto(&kb, db, b, now, true)
	if ka.check(TypeString) != OK || kb.check(TypeString) != OK {
		return buf, 0, 0, WrongType
	}
	if ka.exists() {
		buf = append(buf, ka.val()...)
		la = len(ka.val())
	}
	if kb.exists() {
		buf = append(buf, kb.val()...)
		lb = len(kb.val())
	}
	return buf, la, lb, OK
}
