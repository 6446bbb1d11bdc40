package resp

import (
	"math"
	"strconv"
)

// Reply appenders. Each appends one RESP value to dst and returns the
// extended slice; none of them allocates when dst has room. Where RESP2 and
// RESP3 differ, the caller passes the connection's protocol version (2 or 3)
// and the RESP2 fallback Redis uses is written.

// AppendSimple appends a simple string: +s\r\n. s must not contain CR or LF.
func AppendSimple(dst []byte, s string) []byte {
	dst = append(dst, '+')
	dst = append(dst, s...)
	return append(dst, '\r', '\n')
}

// AppendOK appends +OK\r\n.
func AppendOK(dst []byte) []byte { return append(dst, "+OK\r\n"...) }

// AppendError appends an error: -msg\r\n. msg carries its own code prefix,
// such as "ERR " or "WRONGTYPE "; CR and LF in msg are replaced by spaces,
// as Redis does.
func AppendError(dst []byte, msg string) []byte {
	dst = append(dst, '-')
	start := len(dst)
	dst = append(dst, msg...)
	for i := start; i < len(dst); i++ {
		if dst[i] == '\r' || dst[i] == '\n' {
			dst[i] = ' '
		}
	}
	return append(dst, '\r', '\n')
}

// AppendInt appends an integer: :n\r\n.
func AppendInt(dst []byte, n int64) []byte {
	dst = append(dst, ':')
	dst = strconv.AppendInt(dst, n, 10)
	return append(dst, '\r', '\n')
}

// AppendBulk appends a bulk string: $len\r\nv\r\n.
func AppendBulk(dst []byte, v []byte) []byte {
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(v)), 10)
	dst = append(dst, '\r', '\n')
	dst = append(dst, v...)
	return append(dst, '\r', '\n')
}

// AppendBulkString is AppendBulk for a string.
func AppendBulkString(dst []byte, v string) []byte {
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(v)), 10)
	dst = append(dst, '\r', '\n')
	dst = append(dst, v...)
	return append(dst, '\r', '\n')
}

// AppendBulkInt appends n formatted in decimal as a bulk string.
func AppendBulkInt(dst []byte, n int64) []byte {
	var tmp [20]byte
	return AppendBulk(dst, strconv.AppendInt(tmp[:0], n, 10))
}

// AppendNull appends a null: $-1\r\n in RESP2, _\r\n in RESP3.
func AppendNull(dst []byte, proto int) []byte {
	if proto >= 3 {
		return append(dst, "_\r\n"...)
	}
	return append(dst, "$-1\r\n"...)
}

// AppendNullArray appends a null array: *-1\r\n in RESP2, _\r\n in RESP3.
func AppendNullArray(dst []byte, proto int) []byte {
	if proto >= 3 {
		return append(dst, "_\r\n"...)
	}
	return append(dst, "*-1\r\n"...)
}

func appendLen(dst []byte, prefix byte, n int) []byte {
	dst = append(dst, prefix)
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, '\r', '\n')
}

// AppendArrayLen appends the header of an array of n elements.
func AppendArrayLen(dst []byte, n int) []byte { return appendLen(dst, '*', n) }

// AppendMapLen appends the header of a map of n pairs: %n in RESP3, an array
// of 2n elements in RESP2.
func AppendMapLen(dst []byte, n int, proto int) []byte {
	if proto >= 3 {
		return appendLen(dst, '%', n)
	}
	return appendLen(dst, '*', 2*n)
}

// AppendSetLen appends the header of a set of n elements: ~n in RESP3, an
// array in RESP2.
func AppendSetLen(dst []byte, n int, proto int) []byte {
	if proto >= 3 {
		return appendLen(dst, '~', n)
	}
	return appendLen(dst, '*', n)
}

// AppendPushLen appends the header of a push message of n elements: >n in
// RESP3, an array in RESP2.
func AppendPushLen(dst []byte, n int, proto int) []byte {
	if proto >= 3 {
		return appendLen(dst, '>', n)
	}
	return appendLen(dst, '*', n)
}

// AppendDouble appends a double: ,f\r\n in RESP3, a bulk string in RESP2.
// The text is the shortest that round-trips, laid out as C's %.17g lays it
// out (as Redis 7.2's fpconv_dtoa does): plain notation for decimal
// exponents -4 to 16, else d.ddde±XX; inf, -inf and nan are spelt as Redis
// spells them.
func AppendDouble(dst []byte, f float64, proto int) []byte {
	var tmp [32]byte
	s := appendDoubleText(tmp[:0], f)
	if proto >= 3 {
		dst = append(dst, ',')
		dst = append(dst, s...)
		return append(dst, '\r', '\n')
	}
	return AppendBulk(dst, s)
}

// appendDoubleText appends the text AppendDouble writes for f.
func appendDoubleText(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case math.IsNaN(f):
		return append(dst, "nan"...)
	}
	if f == 0 || (math.Abs(f) >= 1e-4 && math.Abs(f) < 1e17) {
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	return strconv.AppendFloat(dst, f, 'e', -1, 64)
}

// AppendBool appends a boolean: #t or #f in RESP3, :1 or :0 in RESP2.
func AppendBool(dst []byte, b bool, proto int) []byte {
	if proto >= 3 {
		if b {
			return append(dst, "#t\r\n"...)
		}
		return append(dst, "#f\r\n"...)
	}
	if b {
		return append(dst, ":1\r\n"...)
	}
	return append(dst, ":0\r\n"...)
}

// AppendBigNumber appends a big number given as decimal digits: (n in RESP3,
// a bulk string in RESP2.
func AppendBigNumber(dst []byte, digits []byte, proto int) []byte {
	if proto >= 3 {
		dst = append(dst, '(')
		dst = append(dst, digits...)
		return append(dst, '\r', '\n')
	}
	return AppendBulk(dst, digits)
}

// AppendVerbatim appends a verbatim string with a three-letter format such as
// "txt": =len\r\nfmt:v\r\n in RESP3, a bulk string in RESP2.
func AppendVerbatim(dst []byte, format string, v []byte, proto int) []byte {
	if proto < 3 {
		return AppendBulk(dst, v)
	}
	dst = appendLen(dst, '=', len(v)+4)
	dst = append(dst, format...)
	dst = append(dst, ':')
	dst = append(dst, v...)
	return append(dst, '\r', '\n')
}

// BeginArray reserves room for an array header whose length is not yet
// known and returns the extended slice and the mark to pass to EndArray.
func BeginArray(dst []byte) ([]byte, int) {
	mark := len(dst)
	return append(dst, "*0000000000000000000\r\n"...), mark
}

// EndArray writes the header reserved at mark for an array of n elements
// and closes the gap left by the reservation.
func EndArray(dst []byte, mark, n int) []byte {
	var hdr [24]byte
	h := appendLen(hdr[:0], '*', n)
	const reserved = len("*0000000000000000000\r\n")
	body := len(dst) - mark - reserved
	copy(dst[mark:], h)
	copy(dst[mark+len(h):], dst[mark+reserved:])
	return dst[:mark+len(h)+body]
}
