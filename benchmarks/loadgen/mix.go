package loadgen

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

// The commands a mix may name.
const (
	opGet = iota
	opSet
	opIncr
	opPing
	opMGet
	opMSet
	opDel
	opExists
	opHSet
	opHGet
	numOps
)

var opNames = [numOps]string{"get", "set", "incr", "ping", "mget", "mset", "del", "exists", "hset", "hget"}

// Key prefixes: strings, INCR counters and hashes live in disjoint key sets.
const (
	prefixString  = "lkb:"
	prefixCounter = "lkb:n:"
	prefixHash    = "lkh:"
)

// Mix is a parsed command mix: the ratio of each command, the key space and
// the value sizes. The zero Mix is invalid; use ParseMix.
type Mix struct {
	weights  [numOps]int
	total    int
	Keys     int  // size of the key space; keys are "lkb:<n>", counters "lkb:n:<n>", hashes "lkh:<n>"
	KeyLen   int  // when > 0, every key is padded with zeros after its prefix to this many bytes
	Fields   int  // fields per hash ("f0" … "f<Fields-1>"), for hset and hget
	Zipf     bool // zipfian key choice (s=1.1) instead of uniform
	MultiN   int  // keys per MGET and MSET
	ValueMin int  // value size range in bytes, inclusive
	ValueMax int
	spec     string // the text it was parsed from
}

// ParseMix parses a mix such as "get=8,set=2,incr=1,ping=1,mget=1", a key
// space size, a key distribution ("uniform" or "zipf") and a value size,
// fixed ("64") or a uniform range ("16-1024").
func ParseMix(spec string, keys int, dist, valueSize string) (Mix, error) {
	m := Mix{Keys: keys, MultiN: 10, Fields: 10, spec: spec}
	for _, part := range strings.Split(spec, ",") {
		name, w, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			w = "1"
		}
		i := indexOp(strings.ToLower(name))
		n, err := strconv.Atoi(w)
		if i < 0 || err != nil || n < 0 {
			return Mix{}, fmt.Errorf("%w: %q (commands: %s)", ErrBadMix, part, strings.Join(opNames[:], " "))
		}
		m.weights[i] += n
		m.total += n
	}
	if m.total == 0 || keys <= 0 {
		return Mix{}, fmt.Errorf("%w: no weight or no keys in %q", ErrBadMix, spec)
	}
	switch dist {
	case "", "uniform":
	case "zipf":
		m.Zipf = true
	default:
		return Mix{}, fmt.Errorf("%w: key distribution %q (uniform, zipf)", ErrBadMix, dist)
	}
	lo, hi, rng := strings.Cut(valueSize, "-")
	var err1, err2 error
	m.ValueMin, err1 = strconv.Atoi(lo)
	m.ValueMax = m.ValueMin
	if rng {
		m.ValueMax, err2 = strconv.Atoi(hi)
	}
	if err1 != nil || err2 != nil || m.ValueMin < 0 || m.ValueMax < m.ValueMin || m.ValueMax > 64<<20 {
		return Mix{}, fmt.Errorf("%w: value size %q", ErrBadMix, valueSize)
	}
	return m, nil
}

// SetShape sets the fixed key length (0: unpadded) and the fields per hash,
// checking that the largest key of the mix fits in keyLen bytes.
func (m *Mix) SetShape(keyLen, fields int) error {
	if fields < 1 || fields > 1<<20 {
		return fmt.Errorf("%w: %d fields per hash", ErrBadMix, fields)
	}
	if keyLen != 0 {
		digits := len(strconv.Itoa(m.Keys - 1))
		for _, p := range m.prefixes() {
			if len(p)+digits > keyLen || keyLen > 1024 {
				return fmt.Errorf("%w: %q and %d digits do not fit in %d-byte keys", ErrBadMix, p, digits, keyLen)
			}
		}
	}
	m.KeyLen, m.Fields = keyLen, fields
	return nil
}

// prefixes returns the key prefixes the mix's commands use.
func (m *Mix) prefixes() []string {
	var ps []string
	if m.Strings() {
		ps = append(ps, prefixString)
	}
	if m.weights[opIncr] > 0 {
		ps = append(ps, prefixCounter)
	}
	if m.Hashes() {
		ps = append(ps, prefixHash)
	}
	return ps
}

// Strings reports whether the mix reads or writes the string keys "lkb:<n>".
func (m *Mix) Strings() bool {
	for _, op := range []int{opGet, opSet, opMGet, opMSet, opDel, opExists} {
		if m.weights[op] > 0 {
			return true
		}
	}
	return false
}

// Hashes reports whether the mix reads or writes the hashes "lkh:<n>".
func (m *Mix) Hashes() bool { return m.weights[opHSet]+m.weights[opHGet] > 0 }

func indexOp(name string) int {
	for i, n := range opNames {
		if n == name {
			return i
		}
	}
	return -1
}

// String returns the mix in its canonical form, e.g. "get=8,set=2".
func (m Mix) String() string {
	var parts []string
	for i, w := range m.weights {
		if w > 0 {
			parts = append(parts, opNames[i]+"="+strconv.Itoa(w))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// gen appends commands of a Mix to a connection's output buffer. Each
// goroutine owns its gen.
type gen struct {
	m     Mix
	rng   *rand.Rand
	zipf  *rand.Zipf
	value []byte // random payload; values are prefixes of it
	key   []byte // scratch
}

func newGen(m Mix, seed uint64) *gen {
	g := &gen{m: m, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	if m.Zipf && m.Keys > 1 {
		g.zipf = rand.NewZipf(g.rng, 1.1, 1, uint64(m.Keys-1))
	}
	g.value = make([]byte, m.ValueMax)
	for i := range g.value {
		g.value[i] = 'a' + byte(g.rng.IntN(26))
	}
	return g
}

// next appends one command of the mix to dst.
func (g *gen) next(dst []byte) []byte {
	r := g.rng.IntN(g.m.total)
	op := 0
	for ; op < numOps; op++ {
		if r < g.m.weights[op] {
			break
		}
		r -= g.m.weights[op]
	}
	switch op {
	case opGet, opDel, opExists:
		dst = appendArrayLen(dst, 2)
		dst = appendBulkString(dst, [...]string{opGet: "GET", opDel: "DEL", opExists: "EXISTS"}[op])
		return appendBulk(dst, g.pickKey(prefixString))
	case opSet:
		dst = appendArrayLen(dst, 3)
		dst = appendBulkString(dst, "SET")
		dst = appendBulk(dst, g.pickKey(prefixString))
		return appendBulk(dst, g.pickValue())
	case opHSet:
		dst = appendArrayLen(dst, 4)
		dst = appendBulkString(dst, "HSET")
		dst = appendBulk(dst, g.pickKey(prefixHash))
		dst = g.appendField(dst, g.rng.IntN(g.m.Fields))
		return appendBulk(dst, g.pickValue())
	case opHGet:
		dst = appendArrayLen(dst, 3)
		dst = appendBulkString(dst, "HGET")
		dst = appendBulk(dst, g.pickKey(prefixHash))
		return g.appendField(dst, g.rng.IntN(g.m.Fields))
	case opIncr:
		dst = appendArrayLen(dst, 2)
		dst = appendBulkString(dst, "INCR")
		return appendBulk(dst, g.pickKey(prefixCounter))
	case opPing:
		dst = appendArrayLen(dst, 1)
		return appendBulkString(dst, "PING")
	case opMGet:
		dst = appendArrayLen(dst, 1+g.m.MultiN)
		dst = appendBulkString(dst, "MGET")
		for range g.m.MultiN {
			dst = appendBulk(dst, g.pickKey(prefixString))
		}
		return dst
	default: // opMSet
		dst = appendArrayLen(dst, 1+2*g.m.MultiN)
		dst = appendBulkString(dst, "MSET")
		for range g.m.MultiN {
			dst = appendBulk(dst, g.pickKey(prefixString))
			dst = appendBulk(dst, g.pickValue())
		}
		return dst
	}
}

// pickKey returns the key of a random index n with prefix; the result
// aliases g.key until the next call.
func (g *gen) pickKey(prefix string) []byte {
	var n uint64
	if g.zipf != nil {
		n = g.zipf.Uint64()
	} else {
		n = g.rng.Uint64N(uint64(g.m.Keys))
	}
	return g.keyOf(prefix, n)
}

// keyOf returns prefix+n, padded with zeros after the prefix to m.KeyLen
// bytes when it is set; the result aliases g.key until the next call.
func (g *gen) keyOf(prefix string, n uint64) []byte {
	var digits [20]byte
	d := strconv.AppendUint(digits[:0], n, 10)
	g.key = append(g.key[:0], prefix...)
	for range g.m.KeyLen - len(prefix) - len(d) {
		g.key = append(g.key, '0')
	}
	g.key = append(g.key, d...)
	return g.key
}

// appendField appends hash field j, "f<j>".
func (g *gen) appendField(dst []byte, j int) []byte {
	var f [21]byte
	return appendBulk(dst, strconv.AppendInt(append(f[:0], 'f'), int64(j), 10))
}

func (g *gen) pickValue() []byte {
	n := g.m.ValueMin
	if g.m.ValueMax > n {
		n += g.rng.IntN(g.m.ValueMax - n + 1)
	}
	return g.value[:n]
}

// appendSet appends SET lkb:<n> value, used to preload the key space.
func (g *gen) appendSet(dst []byte, n int) []byte {
	dst = appendArrayLen(dst, 3)
	dst = appendBulkString(dst, "SET")
	dst = appendBulk(dst, g.keyOf(prefixString, uint64(n)))
	return appendBulk(dst, g.pickValue())
}

// appendHSetAll appends HSET lkh:<n> f0 value … f<Fields-1> value, used to
// preload the hashes.
func (g *gen) appendHSetAll(dst []byte, n int) []byte {
	dst = appendArrayLen(dst, 2+2*g.m.Fields)
	dst = appendBulkString(dst, "HSET")
	dst = appendBulk(dst, g.keyOf(prefixHash, uint64(n)))
	for j := range g.m.Fields {
		dst = g.appendField(dst, j)
		dst = appendBulk(dst, g.pickValue())
	}
	return dst
}

// The command encoder. The load generator keeps its own, independent of
// package resp, so that a codec bug in the server under test is not mirrored
// by the client measuring it.

func appendArrayLen(dst []byte, n int) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, '\r', '\n')
}

func appendBulk(dst, v []byte) []byte {
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(v)), 10)
	dst = append(dst, '\r', '\n')
	dst = append(dst, v...)
	return append(dst, '\r', '\n')
}

func appendBulkString(dst []byte, v string) []byte {
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(v)), 10)
	dst = append(dst, '\r', '\n')
	dst = append(dst, v...)
	return append(dst, '\r', '\n')
}

// AppendCommand appends args as a RESP array of bulk strings.
func AppendCommand(dst []byte, args ...string) []byte {
	dst = appendArrayLen(dst, len(args))
	for _, a := range args {
		dst = appendBulkString(dst, a)
	}
	return dst
}
