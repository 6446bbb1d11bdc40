package listpack

import (
	"encoding/binary"
	"slices"
	"strconv"
)

const (
	// HeaderSize is the size of the header: total bytes (4) and count (2).
	HeaderSize = 6
	// EmptySize is the size of an empty listpack: header and terminator.
	EmptySize = HeaderSize + 1
	// MaxSafeSize is the size a listpack should never grow past, Redis's
	// LISTPACK_MAX_SAFETY_SIZE (1 GiB); see SafeToAdd.
	MaxSafeSize = 1 << 30
	// unknownCount in the header means "65535 or more: walk to count".
	unknownCount = 65535
)

// New appends an empty listpack to dst[:0] and returns it. Pass a dst with
// spare capacity to build the listpack without further allocations.
func New(dst []byte) []byte {
	lp := append(dst[:0], 0, 0, 0, 0, 0, 0, terminator)
	binary.LittleEndian.PutUint32(lp, EmptySize)
	return lp
}

// Len returns the number of entries. It reads the header, and walks the
// entries when the header's count is saturated (65535 or more entries).
func Len(lp []byte) int {
	if n := int(binary.LittleEndian.Uint16(lp[4:])); n != unknownCount {
		return n
	}
	n := 0
	for off := First(lp); off >= 0; off = Next(lp, off) {
		n++
	}
	return n
}

// SafeToAdd reports whether lp may grow by add bytes and stay within
// MaxSafeSize, as Redis's lpSafeToAdd. Callers check it before an insert
// that a client controls; the mutators panic past 4 GiB, the header's limit.
func SafeToAdd(lp []byte, add int) bool {
	return len(lp)+add <= MaxSafeSize
}

// First returns the offset of the first entry, or -1 when lp is empty.
func First(lp []byte) int {
	if lp[HeaderSize] == terminator {
		return -1
	}
	return HeaderSize
}

// Last returns the offset of the last entry, or -1 when lp is empty.
func Last(lp []byte) int {
	return Prev(lp, len(lp)-1)
}

// Next returns the offset of the entry after the one at off, or -1 when off
// is the last entry.
func Next(lp []byte, off int) int {
	off += EntrySize(lp, off)
	if lp[off] == terminator {
		return -1
	}
	return off
}

// Prev returns the offset of the entry before the one at off, or -1 when off
// is the first entry. off may be len(lp)-1, the terminator: Prev then
// returns the last entry.
func Prev(lp []byte, off int) int {
	if off <= HeaderSize {
		return -1
	}
	l := readBacklen(lp, off)
	return off - backlenSize(l) - l
}

// End returns the offset of the terminator, len(lp)-1: Insert there appends.
func End(lp []byte) int { return len(lp) - 1 }

// EntrySize returns the size in bytes of the entry at off, backlen included.
func EntrySize(lp []byte, off int) int {
	l := encodedLen(lp, off)
	return l + backlenSize(l)
}

// EncodedSize returns the size in bytes of the entry elem would be stored
// as, so that a caller can tell the size of lp after Insert (len(lp) +
// EncodedSize(elem)) or Replace (len(lp) - EntrySize(lp, off) +
// EncodedSize(elem)) before doing it.
func EncodedSize(elem []byte) int { return stringElem(elem).entryLen() }

// EncodedIntSize is EncodedSize for an integer element.
func EncodedIntSize(v int64) int { return elem{v: v, isInt: true}.entryLen() }

// Get returns the entry at off: a string (s aliases lp until lp is next
// modified; isInt false) or an integer (n; isInt true).
func Get(lp []byte, off int) (s []byte, n int64, isInt bool) {
	s, n, isInt, _ = decode(lp, off)
	return s, n, isInt
}

// Value returns the entry at off as bytes: a view of a string entry (valid
// until lp is next modified), or an integer entry's decimal form appended to
// scratch[:0]. A scratch of 20 bytes' capacity holds any integer.
func Value(lp []byte, off int, scratch []byte) []byte {
	s, n, isInt, _ := decode(lp, off)
	if isInt {
		return strconv.AppendInt(scratch[:0], n, 10)
	}
	return s
}

// ValueNext is Value, and also returns the offset of the entry after the
// one at off (-1 when it is the last), decoding the entry once: the walk of
// a range (LRANGE) pays one decode per element instead of two.
func ValueNext(lp []byte, off int, scratch []byte) ([]byte, int) {
	s, n, isInt, l := decode(lp, off)
	if isInt {
		s = strconv.AppendInt(scratch[:0], n, 10)
	}
	if off += l + backlenSize(l); lp[off] == terminator {
		off = -1
	}
	return s, off
}

// Seek returns the offset of the entry at index, counting from 0 at the
// front or from -1 at the back, or -1 when index is out of range. It walks
// from whichever end is nearer.
func Seek(lp []byte, index int) int {
	n := Len(lp)
	if index < 0 {
		index += n
	}
	if index < 0 || index >= n {
		return -1
	}
	if index <= n/2 {
		off := First(lp)
		for ; index > 0; index-- {
			off = Next(lp, off)
		}
		return off
	}
	off := Last(lp)
	for i := n - 1; i > index; i-- {
		off = Prev(lp, off)
	}
	return off
}

// Find returns the offset of the first entry at or after off that equals
// elem, or -1. After each comparison it skips skip entries, so skip 1 looks
// only at the fields of a field/value listpack. As Redis's lpFind, a string
// entry matches elem byte for byte and an integer entry matches when elem is
// the integer's canonical decimal form. off -1 (an empty listpack's First)
// returns -1.
func Find(lp []byte, off int, elem []byte, skip int) int {
	v, canInt := parseInt(elem)
	for off >= 0 && lp[off] != terminator {
		s, n, isInt, l := decode(lp, off)
		if isInt {
			if canInt && n == v {
				return off
			}
		} else if string(s) == string(elem) {
			return off
		}
		off += l + backlenSize(l)
		for i := 0; i < skip && lp[off] != terminator; i++ {
			off += EntrySize(lp, off)
		}
	}
	return -1
}

// AppendString appends elem (stored as an integer when it is the canonical
// form of one) and returns the listpack.
func AppendString(lp []byte, elem []byte) []byte {
	return insert(lp, len(lp)-1, stringElem(elem))
}

// AppendInt appends the integer v and returns the listpack.
func AppendInt(lp []byte, v int64) []byte {
	return insert(lp, len(lp)-1, elem{v: v, isInt: true})
}

// Insert inserts elem before the entry at off, or appends it when off is
// End(lp), and returns the listpack. The new entry is at off.
func Insert(lp []byte, off int, elem []byte) []byte {
	return insert(lp, off, stringElem(elem))
}

// InsertInt is Insert for the integer v.
func InsertInt(lp []byte, off int, v int64) []byte {
	return insert(lp, off, elem{v: v, isInt: true})
}

// Replace replaces the entry at off with elem and returns the listpack. The
// new entry is at off, so the offsets of the entries before it stay valid.
func Replace(lp []byte, off int, elem []byte) []byte {
	return replace(lp, off, stringElem(elem))
}

// ReplaceInt is Replace for the integer v.
func ReplaceInt(lp []byte, off int, v int64) []byte {
	return replace(lp, off, elem{v: v, isInt: true})
}

// Delete deletes count entries starting with the one at off (fewer when the
// listpack ends first) and returns the listpack. The entry that followed
// them, or the terminator, is now at off.
func Delete(lp []byte, off int, count int) []byte {
	end, n := off, 0
	for ; n < count && lp[end] != terminator; n++ {
		end += EntrySize(lp, end)
	}
	if n == 0 {
		return lp
	}
	lp = splice(lp, off, end-off, 0)
	addCount(lp, -n)
	return lp
}

func insert(lp []byte, off int, e elem) []byte {
	size := e.entryLen()
	lp = splice(lp, off, 0, size)
	e.put(lp[off : off+size])
	addCount(lp, 1)
	return lp
}

func replace(lp []byte, off int, e elem) []byte {
	size := e.entryLen()
	lp = splice(lp, off, EntrySize(lp, off), size)
	e.put(lp[off : off+size])
	return lp
}

// splice replaces the oldLen bytes at off with newLen bytes (left as they
// fall), moving the tail, and updates the header's total. It edits in place
// when the result fits cap(lp) and otherwise grows lp as append does.
func splice(lp []byte, off, oldLen, newLen int) []byte {
	n := len(lp)
	size := n - oldLen + newLen
	if uint64(size) > 1<<32-1 {
		panic("listpack: size exceeds the 4 GiB header limit")
	}
	if size > cap(lp) {
		lp = slices.Grow(lp, size-n) // as append grows (append(lp, make...) would allocate under -race)
	}
	lp = lp[:max(n, size)]
	copy(lp[off+newLen:], lp[off+oldLen:n])
	lp = lp[:size]
	binary.LittleEndian.PutUint32(lp, uint32(size))
	return lp
}

// addCount adds d to the header's count. A saturated count stays saturated,
// as in Redis (Len then walks).
func addCount(lp []byte, d int) {
	c := int(binary.LittleEndian.Uint16(lp[4:]))
	if c == unknownCount {
		return
	}
	c += d
	if c > unknownCount {
		c = unknownCount
	}
	binary.LittleEndian.PutUint16(lp[4:], uint16(c))
}
