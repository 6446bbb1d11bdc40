package server

import (
	"bytes"
	"fmt"
	"math/big"
	"math/rand"
	"strconv"
	"testing"
)

// FuzzBitfield runs random SETBIT, GETBIT, BITCOUNT, BITPOS, BITFIELD,
// BITFIELD_RO and BITOP argument lists (bad ones included) on an in-process server
// and on a model: a []byte, bit loops and, for BITFIELD's arithmetic,
// math/big. Every reply must be the model's (an error where the model
// refuses the arguments), no command may panic, and after each command
// the stored value must equal the model's.
func FuzzBitfield(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7})                                  // one of each command
	f.Add([]byte{4, 3, 0, 9, 200, 1, 1, 5, 2, 0xff, 0xff, 7, 4, 2, 1, 3})  // BITFIELD with several ops
	f.Add([]byte{6, 40, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 2, 3, 1, 3, 7}) // SET then ranges
	f.Add([]byte{4, 4, 1, 8, 1, 3, 2, 0x80, 0, 0, 0, 0, 0, 0, 0, 4, 2, 3}) // overflow modes, i64
	f.Fuzz(checkBitmapModel)
}

// TestBitmapModelOnRandomInputs runs FuzzBitfield's check on inputs from a
// fixed seed, so that plain go test covers more than the seeds.
func TestBitmapModelOnRandomInputs(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		data := make([]byte, r.Intn(200))
		r.Read(data)
		checkBitmapModel(t, data)
	}
}

// checkBitmapModel is FuzzBitfield's body.
func checkBitmapModel(t *testing.T, data []byte) {
	o := newOurServer()
	m := &bitModel{}
	r := &fuzzBytes{b: data}
	for n := 0; !r.done() && n < 64; n++ {
		args, want := m.next(r)
		got := o.do(t, args)
		if want == "-" {
			if len(got) == 0 || got[0] != '-' {
				t.Fatalf("%q: got %q, want an error", args, got)
			}
		} else if string(got) != want {
			t.Fatalf("%q: got %q, want %q", args, got, want)
		}
		val := o.do(t, []string{"GET", "k"})
		wantVal := "$-1\r\n"
		if m.exists {
			wantVal = fmt.Sprintf("$%d\r\n%s\r\n", len(m.v), m.v)
		}
		if !bytes.Equal(val, []byte(wantVal)) {
			t.Fatalf("after %q: GET k %q, model %q", args, val, wantVal)
		}
	}
}

// fuzzBytes hands out the fuzz input a byte at a time, zeros once spent.
type fuzzBytes struct{ b []byte }

func (r *fuzzBytes) done() bool { return len(r.b) == 0 }

func (r *fuzzBytes) u8() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *fuzzBytes) i64() int64 {
	var u uint64
	for i := 0; i < 8; i++ {
		u = u<<8 | uint64(r.u8())
	}
	return int64(u)
}

// bitModel is the key "k": absent, or v; and "k2", BITOP's other source.
type bitModel struct {
	v      []byte
	exists bool
	k2     []byte // nil: absent
}

func (m *bitModel) bit(i int64) int {
	if i>>3 >= int64(len(m.v)) {
		return 0
	}
	return int(m.v[i>>3]>>(7-i%8)) & 1
}

func (m *bitModel) grow(n int64) {
	for int64(len(m.v)) < n {
		m.v = append(m.v, 0)
	}
	m.exists = true
}

// writeOffset is an offset for a write: small (the model's value stays
// small), or one the server must refuse. ok reports which.
func writeOffset(r *fuzzBytes) (arg string, off int64, ok bool) {
	switch c := r.u8(); c % 8 {
	case 0:
		return "-1", 0, false
	case 1:
		return "4294967296", 0, false
	case 2:
		return "x", 0, false
	case 3:
		return "+1", 0, false
	default:
		off = int64(c)<<4 | int64(r.u8()%16)
		return strconv.FormatInt(off, 10), off, true
	}
}

// readOffset is any offset for a read: the largest valid ones included.
func readOffset(r *fuzzBytes) (arg string, off int64, ok bool) {
	switch r.u8() % 6 {
	case 0:
		return "4294967295", 4294967295, true
	case 1:
		return "4294967288", 4294967288, true
	default:
		return writeOffset(r)
	}
}

func respInt(n int64) string { return ":" + strconv.FormatInt(n, 10) + "\r\n" }

// next builds one command from r and returns it with the model's reply
// ("-" for an error), applying it to the model.
func (m *bitModel) next(r *fuzzBytes) ([]string, string) {
	switch r.u8() % 9 {
	case 8:
		return m.bitop(r)
	case 0: // SETBIT
		arg, off, ok := writeOffset(r)
		val := []string{"0", "1", "2", "-1"}[r.u8()%4]
		if !ok || (val != "0" && val != "1") {
			return []string{"SETBIT", "k", arg, val}, "-"
		}
		old := m.bit(off)
		m.grow(off/8 + 1)
		if val == "1" {
			m.v[off/8] |= 0x80 >> (off % 8)
		} else {
			m.v[off/8] &^= 0x80 >> (off % 8)
		}
		return []string{"SETBIT", "k", arg, val}, respInt(int64(old))
	case 1: // GETBIT
		arg, off, ok := readOffset(r)
		if !ok {
			return []string{"GETBIT", "k", arg}, "-"
		}
		return []string{"GETBIT", "k", arg}, respInt(int64(m.bit(off)))
	case 2:
		return m.bitcount(r)
	case 3:
		return m.bitpos(r)
	case 4, 5:
		return m.bitfield(r, false)
	case 6: // SET k to random bytes
		n := int(r.u8() % 24)
		b := make([]byte, n)
		for i := range b {
			b[i] = r.u8()
		}
		m.v, m.exists = b, true
		return []string{"SET", "k", string(b)}, "+OK\r\n"
	default:
		if r.u8()%4 == 0 {
			want := respInt(b2i(m.exists))
			m.v, m.exists = nil, false
			return []string{"DEL", "k"}, want
		}
		return m.bitfield(r, true)
	}
}

// bitop stores in k an operation of k and k2 (either missing, or both).
func (m *bitModel) bitop(r *fuzzBytes) ([]string, string) {
	c := r.u8()
	if c%4 == 3 { // set k2 first
		m.k2 = make([]byte, r.u8()%12)
		for i := range m.k2 {
			m.k2[i] = r.u8()
		}
		return []string{"SET", "k2", string(m.k2)}, "+OK\r\n"
	}
	op := []string{"AND", "OR", "XOR", "NOT", "NAND"}[r.u8()%5]
	srcs := [][]string{{"k", "k2"}, {"k2"}, {"k", "missing", "k2"}, {"k2", "k2"}}[r.u8()%4]
	args := append([]string{"BITOP", op, "k"}, srcs...)
	if op == "NAND" || op == "NOT" && len(srcs) != 1 {
		return args, "-"
	}
	vals := make([][]byte, len(srcs))
	n := 0
	for i, src := range srcs {
		switch {
		case src == "k" && m.exists:
			vals[i] = m.v
		case src == "k2":
			vals[i] = m.k2
		}
		n = max(n, len(vals[i]))
	}
	res := make([]byte, n)
	for j := range res {
		at := func(i int) byte {
			if j < len(vals[i]) {
				return vals[i][j]
			}
			return 0
		}
		res[j] = at(0)
		for i := 1; i < len(vals); i++ {
			switch op {
			case "AND":
				res[j] &= at(i)
			case "OR":
				res[j] |= at(i)
			case "XOR":
				res[j] ^= at(i)
			}
		}
		if op == "NOT" {
			res[j] = ^res[j]
		}
	}
	m.v, m.exists = res, n > 0
	return args, respInt(int64(n))
}

// rangeArgs draws BITCOUNT's and BITPOS's optional range: how many of
// start, end and the unit are given, and their values.
func rangeArgs(r *fuzzBytes, maxArgs int) (args []string, start, end int64, unitBit, bad bool) {
	n := int(r.u8()) % (maxArgs + 2)
	pick := func() (string, int64, bool) {
		switch c := r.u8(); c % 8 {
		case 0:
			return "x", 0, false
		case 1:
			return "9223372036854775807", 1<<63 - 1, true
		case 2:
			return "-9223372036854775808", -1 << 63, true
		default:
			v := int64(int8(c)) // -128..127, either side of a short string
			return strconv.FormatInt(v, 10), v, true
		}
	}
	var ok bool
	var a string
	end = -1
	for i := 0; i < n; i++ {
		switch i {
		case 0:
			a, start, ok = pick()
		case 1:
			a, end, ok = pick()
		case 2:
			a = []string{"BIT", "byte", "bits", "BYTE"}[r.u8()%4]
			unitBit, ok = a == "BIT", a != "bits"
		default:
			a, ok = "extra", false
		}
		bad = bad || !ok
		args = append(args, a)
	}
	return args, start, end, unitBit, bad
}

// span is a range, normalised as Redis does, as the first and last bit.
func (m *bitModel) span(start, end int64, unitBit bool) (first, last int64, ok bool) {
	total := int64(len(m.v))
	if unitBit {
		total *= 8
	}
	if start < 0 && end < 0 && start > end {
		return 0, 0, false
	}
	if start < 0 {
		start = max(start+total, 0)
	}
	if end < 0 {
		end = max(end+total, 0)
	}
	if end > total-1 {
		end = total - 1
	}
	if start > end {
		return 0, 0, false
	}
	if !unitBit {
		start, end = start*8, end*8+7
	}
	return start, end, true
}

func (m *bitModel) bitcount(r *fuzzBytes) ([]string, string) {
	ra, start, end, unitBit, bad := rangeArgs(r, 3)
	args := append([]string{"BITCOUNT", "k"}, ra...)
	if !m.exists {
		return args, ":0\r\n"
	}
	if bad || len(ra) == 1 {
		return args, "-"
	}
	if len(ra) == 0 {
		start, end = 0, -1
	}
	first, last, ok := m.span(start, end, unitBit)
	n := 0
	for i := first; ok && i <= last; i++ {
		n += m.bit(i)
	}
	return args, respInt(int64(n))
}

func (m *bitModel) bitpos(r *fuzzBytes) ([]string, string) {
	bit := []string{"0", "1", "2", "x"}[r.u8()%4]
	ra, start, end, unitBit, bad := rangeArgs(r, 3)
	args := append([]string{"BITPOS", "k", bit}, ra...)
	if bit != "0" && bit != "1" {
		return args, "-"
	}
	b := int(bit[0] - '0')
	if !m.exists {
		return args, respInt(int64(-b))
	}
	if bad {
		return args, "-"
	}
	first, last, ok := m.span(start, end, unitBit)
	if !ok {
		return args, ":-1\r\n"
	}
	for i := first; i <= last; i++ {
		if m.bit(i) == b {
			return args, respInt(i)
		}
	}
	if b == 0 && len(ra) < 2 {
		return args, respInt(int64(len(m.v)) * 8)
	}
	return args, ":-1\r\n"
}

// bitfield builds a BITFIELD (or, ro, BITFIELD_RO) of a few operations.
func (m *bitModel) bitfield(r *fuzzBytes, ro bool) ([]string, string) {
	name := "BITFIELD"
	if ro {
		name = "BITFIELD_RO"
	}
	args := []string{name, "k"}
	type fop struct {
		kind   byte // 'g', 's', 'i'
		signed bool
		bits   int64
		off    int64
		val    int64
		over   string
	}
	var ops []fop
	bad, writes := false, false
	over := "WRAP"
	for n := int(r.u8() % 5); n > 0; n-- {
		c := r.u8()
		if c%8 == 7 {
			over = []string{"WRAP", "SAT", "FAIL", "bad"}[r.u8()%4]
			args = append(args, "OVERFLOW", over)
			bad = bad || over == "bad"
			continue
		}
		var op fop
		op.kind = "gsi"[c%3]
		t := r.u8()
		op.signed = t&0x80 != 0
		op.bits = int64(t%64) + 1
		typ := fmt.Sprintf("%c%d", "ui"[b2i(op.signed)], op.bits)
		switch {
		case t&0x40 != 0 && t&0x3f == 0:
			typ, bad = []string{"u64", "i0", "x8", "I8"}[r.u8()%4], true
		case !op.signed && op.bits == 64:
			bad = true
		}
		var offArg string
		var ok bool
		if op.kind == 'g' {
			offArg, op.off, ok = readOffset(r)
		} else {
			offArg, op.off, ok = writeOffset(r)
		}
		if ok && r.u8()%4 == 0 && op.off < 1<<10 { // the '#' form: off times the width
			offArg = "#" + offArg
			op.off *= op.bits
		}
		bad = bad || !ok
		args = append(args, []string{"GET", "SET", "INCRBY"}[c%3], typ, offArg)
		if op.kind != 'g' {
			writes = true
			switch r.u8() % 4 {
			case 0:
				args, bad = append(args, "v"), true
			case 1:
				op.val = int64(int8(r.u8()))
				args = append(args, strconv.FormatInt(op.val, 10))
			default:
				op.val = r.i64()
				args = append(args, strconv.FormatInt(op.val, 10))
			}
		}
		op.over = over
		ops = append(ops, op)
	}
	if bad || ro && writes {
		return args, "-"
	}
	if writes {
		need := int64(0)
		for _, op := range ops {
			if op.kind != 'g' {
				need = max(need, (op.off+op.bits-1)/8+1)
			}
		}
		m.grow(need)
	}
	want := fmt.Sprintf("*%d\r\n", len(ops))
	for _, op := range ops {
		old := m.field(op.off, op.bits, op.signed)
		if op.kind == 'g' {
			want += respInt(old.Int64())
			continue
		}
		nv := new(big.Int)
		if op.kind == 's' {
			nv.SetInt64(op.val)
			if !op.signed && op.val < 0 { // Redis reads the value as unsigned 64-bit
				nv.Add(nv, new(big.Int).Lsh(big.NewInt(1), 64))
			}
		} else {
			nv.Add(old, big.NewInt(op.val))
		}
		lo, hi := big.NewInt(0), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(op.bits)), big.NewInt(1))
		if op.signed {
			lo = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), uint(op.bits-1)))
			hi = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(op.bits-1)), big.NewInt(1))
		}
		if nv.Cmp(lo) < 0 || nv.Cmp(hi) > 0 {
			switch op.over {
			case "FAIL":
				want += "$-1\r\n"
				continue
			case "SAT":
				if nv.Cmp(lo) < 0 {
					nv = lo
				} else {
					nv = hi
				}
			default: // WRAP: modulo 2^bits, into the type's range
				mod := new(big.Int).Lsh(big.NewInt(1), uint(op.bits))
				nv.Mod(nv, mod)
				if nv.Cmp(hi) > 0 {
					nv.Sub(nv, mod)
				}
			}
		}
		m.setField(op.off, op.bits, nv)
		if op.kind == 's' {
			want += respInt(old.Int64())
		} else {
			want += respInt(nv.Int64())
		}
	}
	return args, want
}

// field reads the integer of width bits at bit off.
func (m *bitModel) field(off, bits int64, signed bool) *big.Int {
	v := new(big.Int)
	for i := int64(0); i < bits; i++ {
		v.Lsh(v, 1)
		v.Or(v, big.NewInt(int64(m.bit(off+i))))
	}
	if signed && m.bit(off) == 1 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(bits)))
	}
	return v
}

// setField writes v (in the type's range) as bits bits at bit off.
func (m *bitModel) setField(off, bits int64, v *big.Int) {
	u := new(big.Int).Set(v)
	if u.Sign() < 0 {
		u.Add(u, new(big.Int).Lsh(big.NewInt(1), uint(bits)))
	}
	for i := int64(0); i < bits; i++ {
		p := off + bits - 1 - i
		if u.Bit(int(i)) == 1 {
			m.v[p/8] |= 0x80 >> (p % 8)
		} else {
			m.v[p/8] &^= 0x80 >> (p % 8)
		}
	}
}
