package rdb

import (
	"encoding/binary"
	"errors"
	"io"
	"strconv"

	lzf "github.com/zhuyie/golzf"
)

// readBufSize is the reader's buffer; fixed-size reads are far smaller.
const readBufSize = 64 << 10

// reader reads RDB primitives from a stream or from one in-memory payload,
// keeping the offset of every byte (for errors) and the CRC64 of what it
// consumed.
type reader struct {
	src     io.Reader // nil: buf holds all the data
	buf     []byte    // buf[pos:] is unread
	pos     int       // 0 <= crcFrom <= pos <= len(buf)
	crcFrom int       // buf[crcFrom:pos] is consumed but not yet in crc
	base    int64     // offset of buf[0] in the data
	crc     uint64    // complemented CRC64 state (crc64.go)
	ioErr   error     // a read error other than io.EOF, reported once met
	lzfIn   []byte    // scratch for compressed data
}

func newStreamReader(src io.Reader) *reader {
	return &reader{src: src, buf: make([]byte, 0, readBufSize), crc: crcInit}
}

func newBytesReader(p []byte) *reader { return &reader{buf: p, crc: crcInit} }

// offset is the offset of the next unread byte.
func (r *reader) offset() int64 { return r.base + int64(r.pos) }

// eof is the error for data that ends before n more bytes.
func (r *reader) eof(what string) error {
	if r.ioErr != nil {
		return errAt(r.base+int64(len(r.buf)), "read error: "+r.ioErr.Error())
	}
	return errAt(r.base+int64(len(r.buf)), "unexpected end of data reading "+what)
}

// fill makes n bytes (n <= readBufSize) unread in buf, or reports false when
// the data ends first.
func (r *reader) fill(n int) bool {
	if len(r.buf)-r.pos >= n {
		return true
	}
	if r.src == nil || r.ioErr != nil {
		return false
	}
	r.crc = crcUpdate(r.crc, r.buf[r.crcFrom:r.pos])
	m := copy(r.buf[:cap(r.buf)], r.buf[r.pos:])
	r.base += int64(r.pos)
	r.buf, r.pos, r.crcFrom = r.buf[:m], 0, 0
	for len(r.buf) < n {
		k, err := r.src.Read(r.buf[len(r.buf):cap(r.buf)])
		r.buf = r.buf[:len(r.buf)+k]
		if err != nil {
			if !errors.Is(err, io.EOF) {
				r.ioErr = err
			}
			return len(r.buf) >= n
		}
	}
	return true
}

// sum returns Redis's CRC64 of every byte consumed so far.
func (r *reader) sum() uint64 {
	r.crc = crcUpdate(r.crc, r.buf[r.crcFrom:r.pos])
	r.crcFrom = r.pos
	return crcSum(r.crc)
}

// next consumes n bytes (n <= readBufSize) and returns them; the view is
// valid until the next read.
func (r *reader) next(n int, what string) ([]byte, error) {
	if !r.fill(n) {
		return nil, r.eof(what)
	}
	p := r.buf[r.pos : r.pos+n]
	r.pos += n
	return p, nil
}

func (r *reader) byte(what string) (byte, error) {
	p, err := r.next(1, what)
	if err != nil {
		return 0, err
	}
	return p[0], nil
}

// readLen reads a length (rdbLoadLenByRef). special reports the 11xxxxxx
// form, whose low six bits (n) name a special string encoding.
func (r *reader) readLen(what string) (n uint64, special bool, err error) {
	b, err := r.byte(what)
	if err != nil {
		return 0, false, err
	}
	switch b >> 6 {
	case len6Bit:
		return uint64(b & 0x3f), false, nil
	case len14Bit:
		c, err := r.byte(what)
		return uint64(b&0x3f)<<8 | uint64(c), false, err
	case lenEnc:
		return uint64(b & 0x3f), true, nil
	}
	switch b {
	case len32Bit:
		p, err := r.next(4, what)
		if err != nil {
			return 0, false, err
		}
		return uint64(binary.BigEndian.Uint32(p)), false, nil
	case len64Bit:
		p, err := r.next(8, what)
		if err != nil {
			return 0, false, err
		}
		return binary.BigEndian.Uint64(p), false, nil
	}
	return 0, false, errAt(r.offset()-1, "unknown length encoding 0x"+strconv.FormatUint(uint64(b), 16)+" in "+what)
}

// readCount reads a plain length (a count of elements, a db number ...).
func (r *reader) readCount(what string) (uint64, error) {
	at := r.offset()
	n, special, err := r.readLen(what)
	if err == nil && special {
		err = errAt(at, "string encoding where a length was expected in "+what)
	}
	return n, err
}

// readString appends the string at the reader (any of RDB's string
// encodings) to dst.
func (r *reader) readString(dst []byte, what string) ([]byte, error) {
	at := r.offset()
	n, special, err := r.readLen(what)
	if err != nil {
		return dst, err
	}
	if !special {
		if n > maxStringLen {
			return dst, errAt(at, "length "+strconv.FormatUint(n, 10)+" of "+what+" exceeds the 512 MiB limit")
		}
		return r.readRaw(dst, int(n), what)
	}
	var v int64
	switch n {
	case encInt8:
		b, err := r.byte(what)
		if err != nil {
			return dst, err
		}
		v = int64(int8(b))
	case encInt16:
		p, err := r.next(2, what)
		if err != nil {
			return dst, err
		}
		v = int64(int16(binary.LittleEndian.Uint16(p)))
	case encInt32:
		p, err := r.next(4, what)
		if err != nil {
			return dst, err
		}
		v = int64(int32(binary.LittleEndian.Uint32(p)))
	case encLZF:
		return r.readLZF(dst, at, what)
	default:
		return dst, errAt(at, "unknown string encoding "+strconv.FormatUint(n, 10)+" in "+what)
	}
	return strconv.AppendInt(dst, v, 10), nil
}

// readRaw appends the next n bytes to dst, reading in chunks so that a
// length a damaged file claims is never allocated before its bytes exist.
func (r *reader) readRaw(dst []byte, n int, what string) ([]byte, error) {
	for n > 0 {
		if !r.fill(1) {
			return dst, r.eof(what)
		}
		k := min(n, len(r.buf)-r.pos)
		dst = append(dst, r.buf[r.pos:r.pos+k]...)
		r.pos += k
		n -= k
	}
	return dst, nil
}

// readLZF reads an LZF string (compressed length, original length, data)
// and appends the original to dst.
func (r *reader) readLZF(dst []byte, at int64, what string) ([]byte, error) {
	clen, err := r.readCount(what)
	if err != nil {
		return dst, err
	}
	ulen, err := r.readCount(what)
	if err != nil {
		return dst, err
	}
	switch {
	case clen == 0 || clen > maxStringLen:
		return dst, errAt(at, "LZF compressed length "+strconv.FormatUint(clen, 10)+" of "+what+" is out of range")
	case ulen > maxStringLen || ulen > clen*lzfMaxRatio:
		return dst, errAt(at, "LZF length "+strconv.FormatUint(ulen, 10)+" of "+what+" is impossible for "+
			strconv.FormatUint(clen, 10)+" compressed bytes")
	}
	in, err := r.readRaw(r.lzfIn[:0], int(clen), what)
	r.lzfIn = in
	if err != nil {
		return dst, err
	}
	start := len(dst)
	dst = grow(dst, int(ulen))
	n, err := lzf.Decompress(in, dst[start:])
	if err != nil || n != int(ulen) {
		return dst[:start], errAt(at, "LZF data of "+what+" is corrupt")
	}
	return dst, nil
}

// grow extends b by n bytes.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), len(b)+n+len(b)/4)
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
}
