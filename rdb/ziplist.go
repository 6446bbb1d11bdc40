package rdb

import (
	"encoding/binary"
	"strconv"
)

// Ziplists (Redis ≤ 6.2's ziplist.c), read only to convert them. The layout
// is <zlbytes u32><zltail u32><zllen u16> entries... 0xFF, all little endian.
// An entry is <prevlen><encoding><data>: prevlen is one byte below 254, else
// 0xFE and a u32; the encoding is 00pppppp, 01pppppp qqqqqqqq (big endian)
// or 0x80 and a big-endian u32 for strings; 0xC0 int16, 0xD0 int32, 0xE0
// int64, 0xF0 int24, 0xFE int8, or 0xF1..0xFD for the values 0..12.
const (
	zlHeaderSize = 10
	zlEnd        = 0xFF
	zlBigPrevlen = 0xFE
)

// zlError is damage inside a ziplist or zipmap: a byte offset in it.
type zlError struct {
	off    int
	reason string
}

func (e *zlError) Error() string { return "byte " + strconv.Itoa(e.off) + ": " + e.reason }

// ziplistEach checks zl as ziplistValidateIntegrity does with deep checks
// (header total and tail, every entry inside the ziplist, each prevlen equal
// to the entry before, the count unless saturated at 65535) and calls fn on
// each entry: a string s, or an integer v when isInt. It returns the number
// of entries. It never reads outside zl.
func ziplistEach(zl []byte, fn func(s []byte, v int64, isInt bool) error) (int, error) {
	if len(zl) < zlHeaderSize+1 {
		return 0, &zlError{0, "shorter than the 11-byte empty ziplist"}
	}
	if total := binary.LittleEndian.Uint32(zl); uint64(total) != uint64(len(zl)) {
		return 0, &zlError{0, "header total " + strconv.FormatUint(uint64(total), 10) + " differs from the size " + strconv.Itoa(len(zl))}
	}
	end := len(zl) - 1
	if zl[end] != zlEnd {
		return 0, &zlError{end, "last byte is not the 0xFF terminator"}
	}
	tail := int(binary.LittleEndian.Uint32(zl[4:]))
	count, prev, last := 0, 0, zlHeaderSize
	for off := zlHeaderSize; off < end; {
		s, v, isInt, size, err := ziplistEntry(zl, off, end, prev)
		if err != nil {
			return 0, err
		}
		if err := fn(s, v, isInt); err != nil {
			return 0, err
		}
		last, prev = off, size
		off += size
		count++
	}
	if tail != last {
		return 0, &zlError{4, "tail offset " + strconv.Itoa(tail) + " is not the last entry's " + strconv.Itoa(last)}
	}
	if c := int(binary.LittleEndian.Uint16(zl[8:])); c != 0xFFFF && c != count {
		return 0, &zlError{8, "header count " + strconv.Itoa(c) + " but " + strconv.Itoa(count) + " entries"}
	}
	return count, nil
}

// ziplistEntry decodes the entry at off (before end, the terminator) whose
// predecessor is prev bytes long, and returns its value and size.
func ziplistEntry(zl []byte, off, end, prev int) (s []byte, v int64, isInt bool, size int, err error) {
	p := off
	if zl[p] < zlBigPrevlen {
		if int(zl[p]) != prev {
			return nil, 0, false, 0, &zlError{off, "prevlen " + strconv.Itoa(int(zl[p])) + " but the entry before is " + strconv.Itoa(prev)}
		}
		p++
	} else {
		if zl[p] == zlEnd || p+5 > end {
			return nil, 0, false, 0, &zlError{off, "bad prevlen"}
		}
		if pl := binary.LittleEndian.Uint32(zl[p+1:]); uint64(pl) != uint64(prev) {
			return nil, 0, false, 0, &zlError{off, "prevlen " + strconv.FormatUint(uint64(pl), 10) + " but the entry before is " + strconv.Itoa(prev)}
		}
		p += 5
	}
	if p >= end {
		return nil, 0, false, 0, &zlError{off, "entry runs past the end"}
	}
	b := zl[p]
	var n, hdr int
	switch b >> 6 {
	case 0:
		n, hdr = int(b&0x3f), 1
	case 1:
		if p+2 > end {
			return nil, 0, false, 0, &zlError{p, "entry runs past the end"}
		}
		n, hdr = int(b&0x3f)<<8|int(zl[p+1]), 2
	case 2:
		if b != 0x80 || p+5 > end {
			return nil, 0, false, 0, &zlError{p, "bad string encoding"}
		}
		n, hdr = int(binary.BigEndian.Uint32(zl[p+1:])), 5
	default:
		return ziplistInt(zl, off, p, end)
	}
	if n > end-p-hdr {
		return nil, 0, false, 0, &zlError{p, "string of " + strconv.Itoa(n) + " bytes runs past the end"}
	}
	p += hdr
	return zl[p : p+n], 0, false, p + n - off, nil
}

// ziplistInt decodes an integer entry whose encoding byte is at p.
func ziplistInt(zl []byte, off, p, end int) (s []byte, v int64, isInt bool, size int, err error) {
	b := zl[p]
	var w int
	switch b {
	case 0xC0:
		w = 2
	case 0xD0:
		w = 4
	case 0xE0:
		w = 8
	case 0xF0:
		w = 3
	case 0xFE:
		w = 1
	default:
		if b >= 0xF1 && b <= 0xFD {
			return nil, int64(b&0x0f) - 1, true, p + 1 - off, nil
		}
		return nil, 0, false, 0, &zlError{p, "unknown encoding 0x" + strconv.FormatUint(uint64(b), 16)}
	}
	if p+1+w > end {
		return nil, 0, false, 0, &zlError{p, "integer runs past the end"}
	}
	d := zl[p+1 : p+1+w]
	switch w {
	case 1:
		v = int64(int8(d[0]))
	case 2:
		v = int64(int16(binary.LittleEndian.Uint16(d)))
	case 3:
		v = int64(int32(uint32(d[0])<<8|uint32(d[1])<<16|uint32(d[2])<<24) >> 8)
	case 4:
		v = int64(int32(binary.LittleEndian.Uint32(d)))
	case 8:
		v = int64(binary.LittleEndian.Uint64(d))
	}
	return nil, v, true, p + 1 + w - off, nil
}

// Zipmaps (Redis ≤ 2.6's zipmap.c): <zmlen u8> then <len>key<len><free>value
// pairs and 0xFF. A len is one byte below 254, else 254 and a u32 (little
// endian); free is the count of unused bytes after the value.

// zipmapEach checks zm and calls fn on each field and value. It returns
// the number of pairs and never reads outside zm.
func zipmapEach(zm []byte, fn func(k, v []byte) error) (int, error) {
	if len(zm) < 2 {
		return 0, &zlError{0, "shorter than the 2-byte empty zipmap"}
	}
	end := len(zm) - 1
	if zm[end] != zlEnd {
		return 0, &zlError{end, "last byte is not the 0xFF terminator"}
	}
	count := 0
	for p := 1; ; count++ {
		if zm[p] == zlEnd {
			if p != end {
				return 0, &zlError{p, "terminator before the end"}
			}
			break
		}
		k, next, err := zipmapString(zm, p, end)
		if err != nil {
			return 0, err
		}
		p = next
		if p >= end {
			return 0, &zlError{p, "field without a value"}
		}
		vlen, q, err := zipmapLen(zm, p, end)
		if err != nil {
			return 0, err
		}
		if q >= end {
			return 0, &zlError{q, "value runs past the end"}
		}
		free := int(zm[q])
		q++
		if vlen > end-q || free > end-q-vlen {
			return 0, &zlError{p, "value runs past the end"}
		}
		if err := fn(k, zm[q:q+vlen]); err != nil {
			return 0, err
		}
		p = q + vlen + free
	}
	if c := int(zm[0]); c < 254 && c != count {
		return 0, &zlError{0, "header count " + strconv.Itoa(c) + " but " + strconv.Itoa(count) + " pairs"}
	}
	return count, nil
}

// zipmapLen reads a length at p (before end) and returns it and the offset after it.
func zipmapLen(zm []byte, p, end int) (int, int, error) {
	switch b := zm[p]; {
	case b < 254:
		return int(b), p + 1, nil
	case b == 254 && p+5 <= end:
		return int(binary.LittleEndian.Uint32(zm[p+1:])), p + 5, nil
	}
	return 0, 0, &zlError{p, "bad length"}
}

// zipmapString reads a length-prefixed string at p and returns it and the offset after it.
func zipmapString(zm []byte, p, end int) ([]byte, int, error) {
	n, q, err := zipmapLen(zm, p, end)
	if err != nil {
		return nil, 0, err
	}
	if n > end-q {
		return nil, 0, &zlError{p, "string runs past the end"}
	}
	return zm[q : q+n], q + n, nil
}
