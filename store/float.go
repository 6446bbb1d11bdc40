package store

import (
	"math/big"
	"strconv"
	"strings"
)

// Redis computes INCRBYFLOAT in C long double, which on x86-64 is the 80-bit
// extended format: a 64-bit mantissa and a 15-bit exponent. big.Float with a
// 64-bit precision rounds the same way (to nearest, ties to even).
const (
	ldPrec   = 64
	ldMaxExp = 16384  // values at or above 2^16384 overflow
	ldMinExp = -16444 // values below 2^-16445 underflow to zero
)

// parseLongDouble parses b as Redis's string2ld does with strtold: no
// leading space, the whole input consumed, no NaN, no overflow or
// underflow. inf reports an infinite value (its sign in neg).
func parseLongDouble(b []byte) (f *big.Float, inf, ok bool) {
	if len(b) == 0 || len(b) > 5*1024 {
		return nil, false, false
	}
	switch b[0] {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return nil, false, false
	}
	s := string(b)
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 {
		return nil, false, false
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		return nil, true, true
	}
	f = new(big.Float).SetPrec(ldPrec)
	if len(body) > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X') {
		// Hexadecimal floats: exact in float64 for typical inputs; strtold
		// makes the binary exponent optional, Go does not.
		hex := s
		if !strings.ContainsAny(hex, "pP") {
			hex += "p0"
		}
		v, err := strconv.ParseFloat(hex, 64)
		if err != nil {
			return nil, false, false
		}
		f.SetFloat64(v)
		return f, false, true
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return nil, false, false
		}
	}
	if _, _, err := f.Parse(s, 10); err != nil {
		return nil, false, false
	}
	if f.Sign() != 0 {
		exp := f.MantExp(nil)
		if exp > ldMaxExp || exp < ldMinExp {
			return nil, false, false
		}
	}
	return f, false, true
}

// addLongDouble returns cur+incr formatted as Redis 7.0 formats
// INCRBYFLOAT results ("%.17Lf" with trailing zeros and a trailing point
// removed, "-0" printed as "0").
func addLongDouble(cur, incr []byte) ([]byte, Status) {
	a, ainf, ok := parseLongDouble(cur)
	if !ok {
		return nil, NotFloat
	}
	b, binf, ok := parseLongDouble(incr)
	if !ok {
		return nil, NotFloat
	}
	if ainf || binf {
		return nil, NaNOrInf
	}
	sum := new(big.Float).SetPrec(ldPrec).Add(a, b)
	if sum.Sign() != 0 && sum.MantExp(nil) > ldMaxExp {
		return nil, NaNOrInf
	}
	text := sum.Append(nil, 'f', 17)
	for text[len(text)-1] == '0' {
		text = text[:len(text)-1]
	}
	if text[len(text)-1] == '.' {
		text = text[:len(text)-1]
	}
	if string(text) == "-0" {
		text = text[1:]
	}
	return text, OK
}
