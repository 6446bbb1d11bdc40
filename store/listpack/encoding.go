package listpack

import "encoding/binary"

// Encoding bytes (listpack.c's LP_ENCODING_*).
const (
	enc7BitUint  = 0x00 // 0xxxxxxx
	enc6BitStr   = 0x80 // 10llllll
	enc13BitInt  = 0xC0 // 110xxxxx xxxxxxxx
	enc12BitStr  = 0xE0 // 1110llll llllllll
	enc32BitStr  = 0xF0
	enc16BitInt  = 0xF1
	enc24BitInt  = 0xF2
	enc32BitInt  = 0xF3
	enc64BitInt  = 0xF4
	terminator   = 0xFF
	maxIntStrLen = 20 // len("-9223372036854775808"); listpack.c rejects >= LONG_STR_SIZE (21)
)

// elem is an element about to be encoded: an integer, or a string that is
// not the canonical form of one.
type elem struct {
	s     []byte
	v     int64
	isInt bool
}

// stringElem classifies s as Redis's lpEncodeGetType does.
func stringElem(s []byte) elem {
	if v, ok := parseInt(s); ok {
		return elem{v: v, isInt: true}
	}
	return elem{s: s}
}

// parseInt reports whether s is the canonical decimal form of an int64, as
// listpack.c's lpStringToInt64 (Redis's string2ll) decides: an optional '-',
// then "0" alone or a digit 1-9 followed by digits, nothing else, in range.
func parseInt(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) > maxIntStrLen {
		return 0, false
	}
	if len(s) == 1 && s[0] == '0' {
		return 0, true
	}
	neg := s[0] == '-'
	d := s
	if neg {
		d = s[1:]
	}
	if len(d) == 0 || d[0] < '1' || d[0] > '9' {
		return 0, false
	}
	var u uint64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		if u > (1<<64-1)/10 {
			return 0, false
		}
		u *= 10
		if u > 1<<64-1-uint64(c-'0') {
			return 0, false
		}
		u += uint64(c - '0')
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return int64(-u), true
	}
	if u > 1<<63-1 {
		return 0, false
	}
	return int64(u), true
}

// intEncLen is the size of the smallest encoding of v (listpack.c's
// lpEncodeIntegerGetType).
func intEncLen(v int64) int {
	switch {
	case v >= 0 && v <= 127:
		return 1
	case v >= -4096 && v <= 4095:
		return 2
	case v >= -32768 && v <= 32767:
		return 3
	case v >= -8388608 && v <= 8388607:
		return 4
	case v >= -2147483648 && v <= 2147483647:
		return 5
	}
	return 9
}

// strEncLen is the size of a string's encoding and data.
func strEncLen(n int) int {
	switch {
	case n < 64:
		return 1 + n
	case n < 4096:
		return 2 + n
	}
	return 5 + n
}

// encLen is the size of e's encoding and data, without its backlen.
func (e elem) encLen() int {
	if e.isInt {
		return intEncLen(e.v)
	}
	return strEncLen(len(e.s))
}

// entryLen is the size of the entry e encodes to, backlen included.
func (e elem) entryLen() int {
	l := e.encLen()
	return l + backlenSize(l)
}

// put writes e's entry (encoding, data, backlen) at the start of dst, which
// holds at least e.entryLen() bytes.
func (e elem) put(dst []byte) {
	l := e.encLen()
	if e.isInt {
		putInt(dst, e.v, l)
	} else {
		putString(dst, e.s)
	}
	putBacklen(dst[l:], l)
}

// putInt writes v in its n-byte encoding (n = intEncLen(v)). Negative values
// are stored in two's complement of the encoding's width.
func putInt(dst []byte, v int64, n int) {
	u := uint64(v)
	switch n {
	case 1:
		dst[0] = byte(u)
	case 2:
		dst[0] = enc13BitInt | byte(u>>8)&0x1F
		dst[1] = byte(u)
	case 3:
		dst[0] = enc16BitInt
		binary.LittleEndian.PutUint16(dst[1:], uint16(u))
	case 4:
		dst[0] = enc24BitInt
		dst[1], dst[2], dst[3] = byte(u), byte(u>>8), byte(u>>16)
	case 5:
		dst[0] = enc32BitInt
		binary.LittleEndian.PutUint32(dst[1:], uint32(u))
	default:
		dst[0] = enc64BitInt
		binary.LittleEndian.PutUint64(dst[1:], u)
	}
}

// putString writes s with the smallest of the three length encodings.
func putString(dst []byte, s []byte) {
	n := len(s)
	switch {
	case n < 64:
		dst[0] = enc6BitStr | byte(n)
		copy(dst[1:], s)
	case n < 4096:
		dst[0] = enc12BitStr | byte(n>>8)
		dst[1] = byte(n)
		copy(dst[2:], s)
	default:
		dst[0] = enc32BitStr
		binary.LittleEndian.PutUint32(dst[1:], uint32(n))
		copy(dst[5:], s)
	}
}

// backlenSize is the number of bytes the backlen of an l-byte
// encoding+data takes (listpack.c's lpEncodeBacklen with a NULL buffer).
func backlenSize(l int) int {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

// putBacklen writes the backlen of l at the start of dst: the most
// significant 7-bit group first with the top bit clear, then each lower
// group with the top bit set, so that it reads backwards from its last byte.
func putBacklen(dst []byte, l int) {
	n := backlenSize(l)
	u := uint64(l)
	for i := n - 1; i > 0; i-- {
		dst[i] = byte(u&127) | 128
		u >>= 7
	}
	dst[0] = byte(u)
}

// readBacklen decodes the backlen that ends just before end, in a
// well-formed listpack: the size of the encoding+data of the entry that
// precedes end.
func readBacklen(lp []byte, end int) int {
	l, _ := decodeBacklen(lp, end-1)
	return l
}

// decodeBacklen reads a backlen backwards from its last byte at last, as
// listpack.c's lpDecodeBacklen: 7 bits per byte until a byte without the
// top bit, at most 5 bytes (ok false beyond, or before the start of lp).
func decodeBacklen(lp []byte, last int) (l int, ok bool) {
	var u uint64
	for i := 0; i < 5 && last-i >= 0; i++ {
		b := lp[last-i]
		u |= uint64(b&127) << (7 * i)
		if b&128 == 0 {
			return int(u), true
		}
	}
	return 0, false
}

// encodedLen returns the size of the encoding+data of the entry at off in a
// well-formed listpack, or 0 at the terminator.
func encodedLen(lp []byte, off int) int {
	b := lp[off]
	switch {
	case b&0x80 == 0:
		return 1
	case b&0xC0 == enc6BitStr:
		return 1 + int(b&0x3F)
	case b&0xE0 == enc13BitInt:
		return 2
	case b&0xF0 == enc12BitStr:
		return 2 + (int(b&0x0F)<<8 | int(lp[off+1]))
	}
	switch b {
	case enc32BitStr:
		return 5 + int(binary.LittleEndian.Uint32(lp[off+1:]))
	case enc16BitInt:
		return 3
	case enc24BitInt:
		return 4
	case enc32BitInt:
		return 5
	case enc64BitInt:
		return 9
	}
	return 0
}

// decode reads the entry at off of a well-formed listpack: a string view
// into lp, or an integer, and l, the size of its encoding and data.
func decode(lp []byte, off int) (s []byte, v int64, isInt bool, l int) {
	b := lp[off]
	switch {
	case b&0x80 == 0:
		return nil, int64(b), true, 1
	case b&0xC0 == enc6BitStr:
		n := int(b & 0x3F)
		return lp[off+1 : off+1+n : off+1+n], 0, false, 1 + n
	case b&0xE0 == enc13BitInt:
		u := int64(b&0x1F)<<8 | int64(lp[off+1])
		if u >= 1<<12 {
			u -= 1 << 13
		}
		return nil, u, true, 2
	case b&0xF0 == enc12BitStr:
		n := int(b&0x0F)<<8 | int(lp[off+1])
		return lp[off+2 : off+2+n : off+2+n], 0, false, 2 + n
	}
	switch b {
	case enc32BitStr:
		n := int(binary.LittleEndian.Uint32(lp[off+1:]))
		return lp[off+5 : off+5+n : off+5+n], 0, false, 5 + n
	case enc16BitInt:
		return nil, int64(int16(binary.LittleEndian.Uint16(lp[off+1:]))), true, 3
	case enc24BitInt:
		u := int64(lp[off+1]) | int64(lp[off+2])<<8 | int64(lp[off+3])<<16
		if u >= 1<<23 {
			u -= 1 << 24
		}
		return nil, u, true, 4
	case enc32BitInt:
		return nil, int64(int32(binary.LittleEndian.Uint32(lp[off+1:]))), true, 5
	}
	return nil, int64(binary.LittleEndian.Uint64(lp[off+1:])), true, 9
}
