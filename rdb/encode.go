package rdb

import (
	"encoding/binary"
	"math"
	"strconv"

	lzf "github.com/zhuyie/golzf"
)

// appendLen appends n in RDB's length encoding (rdbSaveLen).
func appendLen(dst []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(dst, byte(n))
	case n < 1<<14:
		return append(dst, byte(n>>8)|len14Bit<<6, byte(n))
	case n <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(dst, len32Bit), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(dst, len64Bit), n)
}

// appendIntEnc appends v as one of the special integer string encodings,
// reporting false when v needs more than 32 bits (rdbEncodeInteger).
func appendIntEnc(dst []byte, v int64) ([]byte, bool) {
	switch {
	case v >= math.MinInt8 && v <= math.MaxInt8:
		return append(dst, lenEnc<<6|encInt8, byte(v)), true
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return binary.LittleEndian.AppendUint16(append(dst, lenEnc<<6|encInt16), uint16(v)), true
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return binary.LittleEndian.AppendUint32(append(dst, lenEnc<<6|encInt32), uint32(v)), true
	}
	return dst, false
}

// canonicalInt parses s as Redis's string2ll does and reports whether it
// prints back as s (so that the integer encoding loses nothing).
func canonicalInt(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) > 20 {
		return 0, false
	}
	for i, c := range s { // only digits and a leading '-': ParseInt's error would allocate
		if (c < '0' || c > '9') && (c != '-' || i != 0) {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(unsafeString(s), 10, 64)
	if err != nil {
		return 0, false
	}
	var buf [20]byte
	return v, string(strconv.AppendInt(buf[:0], v, 10)) == unsafeString(s)
}

// appendRaw appends s as a length-prefixed string without trying any
// special encoding.
func appendRaw(dst, s []byte) []byte { return append(appendLen(dst, uint64(len(s))), s...) }

// compressor holds LZF's reusable state; the zero value compresses nothing.
type compressor struct {
	on   bool
	htab []uint32
	out  []byte
}

// appendString appends s as Redis's rdbSaveRawString does: an integer
// encoding for short canonical integers, LZF for strings over 20 bytes
// when compression is on and it saves at least 4 bytes, else raw.
func (c *compressor) appendString(dst, s []byte) []byte {
	if len(s) <= 11 {
		if v, ok := canonicalInt(s); ok {
			if d, ok := appendIntEnc(dst, v); ok {
				return d
			}
		}
	}
	if c.on && len(s) > 20 {
		if d, ok := c.appendLZF(dst, s); ok {
			return d
		}
	}
	return appendRaw(dst, s)
}

// appendLZF appends s LZF-compressed, or reports false when compression
// does not save at least 4 bytes (rdbSaveLzfStringObject's rule).
func (c *compressor) appendLZF(dst, s []byte) ([]byte, bool) {
	if c.htab == nil {
		c.htab = make([]uint32, lzf.HashTableSize)
	}
	want := len(s) - 4
	if cap(c.out) < want {
		c.out = make([]byte, want)
	}
	n, err := lzf.CompressFast(s, c.out[:want], c.htab)
	if err != nil || n == 0 {
		return dst, false
	}
	dst = append(dst, lenEnc<<6|encLZF)
	dst = appendLen(dst, uint64(n))
	dst = appendLen(dst, uint64(len(s)))
	return append(dst, c.out[:n]...), true
}

// appendInt appends v as Redis's rdbSaveLongLongAsStringObject: an integer
// encoding when it fits 32 bits, else its decimal text.
func appendInt(dst []byte, v int64) []byte {
	if d, ok := appendIntEnc(dst, v); ok {
		return d
	}
	var buf [20]byte
	return appendRaw(dst, strconv.AppendInt(buf[:0], v, 10))
}

// appendBinaryDouble appends f as ZSET_2 stores scores: 8 bytes, little endian.
func appendBinaryDouble(dst []byte, f float64) []byte {
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f))
}
