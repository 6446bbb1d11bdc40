package config

import (
	"math"
	"strconv"
	"strings"

	"github.com/loopkv/loopkv/resp"
)

// Value is a parsed setting: S is its canonical text (CONFIG GET's form:
// an enum's name in lower case, a memory size in bytes), N its number
// where it has one (an integer, a size, yes as 1, an enum's index).
type Value struct {
	S string
	N int64
}

// Type parses a setting's text. The string result is "" when v is
// accepted, or the reason Redis 7.0 gives after "CONFIG SET failed
// (possibly related to argument 'name') - ".
type Type interface {
	Parse(v string) (Value, string)
}

// Bool is a yes or no setting.
type Bool struct{}

// Parse accepts yes or no in any case.
func (Bool) Parse(v string) (Value, string) {
	switch {
	case strings.EqualFold(v, "yes"):
		return Value{S: "yes", N: 1}, ""
	case strings.EqualFold(v, "no"):
		return Value{S: "no"}, ""
	}
	return Value{}, "argument must be 'yes' or 'no'"
}

// Format writes v as is.
func (Bool) Format(v string) string { return v }

// Int is an integer setting in [Min, Max]. Unsigned settings (Redis's
// unsigned int, unsigned long, size_t) compare a negative number as the
// huge unsigned value it wraps to, so that they give Redis's reason.
type Int struct {
	Min, Max int64
	Unsigned bool
}

// Parse accepts a decimal integer as Redis's string2ll does: no sign but
// '-', no leading zeros, no spaces.
func (t Int) Parse(v string) (Value, string) {
	n, ok := ParseInt(v)
	if !ok {
		return Value{}, "argument couldn't be parsed into an integer"
	}
	return checkRange(n, t.Min, t.Max, t.Unsigned)
}

// Format writes v as is.
func (Int) Format(v string) string { return v }

// Memory is a size in bytes in [Min, Max], written with an optional unit
// (k = 1000, kb = 1024, m, mb, g, gb, b; any case).
type Memory struct {
	Min, Max int64
	Unsigned bool
}

// Parse accepts a size as Redis's memtoull does.
func (t Memory) Parse(v string) (Value, string) {
	u, ok := ParseMemory(v)
	if !ok {
		return Value{}, "argument must be a memory value"
	}
	return checkRange(int64(u), t.Min, t.Max, t.Unsigned)
}

// Format writes the size with the largest unit that divides it, as
// CONFIG REWRITE does.
func (Memory) Format(v string) string {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return Quote(v)
	}
	return FormatMemory(n)
}

func checkRange(n, lo, hi int64, unsigned bool) (Value, string) {
	if unsigned {
		if uint64(n) < uint64(lo) || uint64(n) > uint64(hi) {
			return Value{}, "argument must be between " + strconv.FormatUint(uint64(lo), 10) + " and " +
				strconv.FormatUint(uint64(hi), 10) + " inclusive"
		}
		return Value{S: strconv.FormatUint(uint64(n), 10), N: n}, ""
	}
	if n < lo || n > hi {
		return Value{}, "argument must be between " + strconv.FormatInt(lo, 10) + " and " +
			strconv.FormatInt(hi, 10) + " inclusive"
	}
	return Value{S: strconv.FormatInt(n, 10), N: n}, ""
}

// Enum is a setting that takes one of its names, any case; Value.N is
// the name's index.
type Enum []string

// Parse accepts one of the names.
func (e Enum) Parse(v string) (Value, string) {
	for i, name := range e {
		if strings.EqualFold(v, name) {
			return Value{S: name, N: int64(i)}, ""
		}
	}
	return Value{}, "argument(s) must be one of the following: " + strings.Join(e, ", ")
}

// Format writes v as is.
func (Enum) Format(v string) string { return v }

// String is a free-text setting, quoted when rewritten.
type String struct{}

// Parse accepts any text.
func (String) Parse(v string) (Value, string) { return Value{S: v}, "" }

// Func is a setting with its own parser; it is rewritten as is.
type Func func(v string) (Value, string)

// Parse calls f.
func (f Func) Parse(v string) (Value, string) { return f(v) }

// Format writes v as is.
func (Func) Format(v string) string { return v }

// ParseInt parses a decimal int64 as Redis's string2ll: an optional '-',
// then digits with no leading zero (but "0" itself).
func ParseInt(s string) (int64, bool) {
	if s == "" || len(s) > 20 {
		return 0, false
	}
	if s == "0" {
		return 0, true
	}
	neg := s[0] == '-'
	d := s
	if neg {
		d = s[1:]
	}
	if d == "" || d[0] < '1' || d[0] > '9' {
		return 0, false
	}
	var u uint64
	for i := 0; i < len(d); i++ {
		c := d[i]
		if c < '0' || c > '9' || u > (math.MaxUint64-9)/10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	switch {
	case neg && u <= 1<<63:
		return int64(-u), true // -(1<<63) wraps to itself
	case !neg && u <= math.MaxInt64:
		return int64(u), true
	}
	return 0, false
}

// ParseMemory parses a size as Redis's memtoull: digits then an optional
// unit b, k, kb, m, mb, g or gb (any case). No digits count as 0, and an
// overflow of the digits alone saturates, as strtoull does.
func ParseMemory(s string) (uint64, bool) {
	if strings.HasPrefix(s, "-") {
		return 0, false
	}
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	var mul uint64
	switch strings.ToLower(s[i:]) {
	case "", "b":
		mul = 1
	case "k":
		mul = 1000
	case "kb":
		mul = 1024
	case "m":
		mul = 1000 * 1000
	case "mb":
		mul = 1024 * 1024
	case "g":
		mul = 1000 * 1000 * 1000
	case "gb":
		mul = 1024 * 1024 * 1024
	default:
		return 0, false
	}
	if i >= 128 {
		return 0, false
	}
	var n uint64
	for _, c := range []byte(s[:i]) {
		if n > (math.MaxUint64-9)/10 {
			n = math.MaxUint64 // strtoull saturates at ULLONG_MAX
			break
		}
		n = n*10 + uint64(c-'0')
	}
	if n > math.MaxUint64/mul {
		return 0, false
	}
	return n * mul, true
}

// FormatMemory writes n bytes with the largest of gb, mb and kb that
// divides it, as CONFIG REWRITE does.
func FormatMemory(n int64) string {
	switch {
	case n != 0 && n%(1<<30) == 0:
		return strconv.FormatInt(n/(1<<30), 10) + "gb"
	case n != 0 && n%(1<<20) == 0:
		return strconv.FormatInt(n/(1<<20), 10) + "mb"
	case n != 0 && n%(1<<10) == 0:
		return strconv.FormatInt(n/(1<<10), 10) + "kb"
	}
	return strconv.FormatInt(n, 10)
}

// Quote writes s in double quotes, escaping what redis.conf's parser
// reads back (as Redis's sdscatrepr does).
func Quote(s string) string { return string(resp.AppendRepr(make([]byte, 0, len(s)+2), s)) }
