package intset

import (
	"encoding/binary"
	"math"
	"slices"
)

// HeaderSize is the size of the header: encoding (4) and length (4).
const HeaderSize = 8

var le = binary.LittleEndian

// New appends an empty intset of width 2 to dst[:0] and returns it.
func New(dst []byte) []byte {
	return append(dst[:0], 2, 0, 0, 0, 0, 0, 0, 0)
}

// Len returns the number of values.
func Len(is []byte) int { return int(le.Uint32(is[4:])) }

// Encoding returns the width of the values in bytes: 2, 4 or 8.
func Encoding(is []byte) int { return int(le.Uint32(is)) }

// widthOf is the smallest width that holds v (intset.c's
// _intsetValueEncoding).
func widthOf(v int64) int {
	switch {
	case v < math.MinInt32 || v > math.MaxInt32:
		return 8
	case v < math.MinInt16 || v > math.MaxInt16:
		return 4
	}
	return 2
}

// get reads value i of an intset of width w.
func get(is []byte, w, i int) int64 {
	p := HeaderSize + i*w
	switch w {
	case 2:
		return int64(int16(le.Uint16(is[p:])))
	case 4:
		return int64(int32(le.Uint32(is[p:])))
	}
	return int64(le.Uint64(is[p:]))
}

// put writes value i of an intset of width w.
func put(is []byte, w, i int, v int64) {
	p := HeaderSize + i*w
	switch w {
	case 2:
		le.PutUint16(is[p:], uint16(v))
	case 4:
		le.PutUint32(is[p:], uint32(v))
	default:
		le.PutUint64(is[p:], uint64(v))
	}
}

// Get returns the value at position i, 0 <= i < Len(is), in increasing
// order.
func Get(is []byte, i int) int64 { return get(is, Encoding(is), i) }

// Min returns the smallest value. is must not be empty.
func Min(is []byte) int64 { return Get(is, 0) }

// Max returns the largest value. is must not be empty.
func Max(is []byte) int64 { return Get(is, Len(is)-1) }

// Find reports whether v is in is, by binary search, and its position:
// where it is, or where Add would insert it.
func Find(is []byte, v int64) (pos int, found bool) {
	w, n := Encoding(is), Len(is)
	if widthOf(v) > w {
		// Out of the width's range: below every value or above.
		if v < 0 {
			return 0, false
		}
		return n, false
	}
	lo, hi := 0, n // the first value >= v is in [lo, hi]
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if get(is, w, mid) < v {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < n && get(is, w, lo) == v
}

// Add adds v and returns the intset and whether v was new. When v does not
// fit the width, every value is rewritten at the smallest width that holds
// v, as Redis's intsetUpgradeAndAdd does.
func Add(is []byte, v int64) ([]byte, bool) {
	w, n := Encoding(is), Len(is)
	if nw := widthOf(v); nw > w {
		return upgradeAndAdd(is, nw, v), true
	}
	pos, found := Find(is, v)
	if found {
		return is, false
	}
	is = resize(is, n*w, (n+1)*w)
	end := HeaderSize + n*w
	copy(is[HeaderSize+(pos+1)*w:], is[HeaderSize+pos*w:end])
	put(is, w, pos, v)
	le.PutUint32(is[4:], uint32(n+1))
	return is, true
}

// upgradeAndAdd widens every value to nw bytes and adds v, which is smaller
// or larger than all of them since it did not fit their width.
func upgradeAndAdd(is []byte, nw int, v int64) []byte {
	w, n := Encoding(is), Len(is)
	is = resize(is, n*w, (n+1)*nw)
	front := 0
	if v < 0 {
		front = 1
	}
	// Back to front, so that no value is overwritten before it is read.
	for i := n - 1; i >= 0; i-- {
		put(is, nw, i+front, get(is, w, i))
	}
	if front == 1 {
		put(is, nw, 0, v)
	} else {
		put(is, nw, n, v)
	}
	le.PutUint32(is, uint32(nw))
	le.PutUint32(is[4:], uint32(n+1))
	return is
}

// Remove removes v and returns the intset and whether v was there. The
// width stays as it is.
func Remove(is []byte, v int64) ([]byte, bool) {
	pos, found := Find(is, v)
	if !found {
		return is, false
	}
	w, n := Encoding(is), Len(is)
	copy(is[HeaderSize+pos*w:], is[HeaderSize+(pos+1)*w:])
	is = resize(is, n*w, (n-1)*w)
	le.PutUint32(is[4:], uint32(n-1))
	return is, true
}

// resize changes the size of the values' area from oldLen to newLen bytes,
// in place when cap(is) allows and otherwise growing as append does. Bytes
// it adds are left for the caller to fill.
func resize(is []byte, oldLen, newLen int) []byte {
	if newLen <= oldLen {
		return is[:HeaderSize+newLen]
	}
	if uint64(newLen) > math.MaxUint32 {
		panic("intset: more values than the 32-bit length holds")
	}
	return slices.Grow(is, newLen-oldLen)[:HeaderSize+newLen]
}
