package hll

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
)

// The parameters of Redis's HyperLogLog.
const (
	P         = 14       // bits of the hash that choose the register
	Registers = 1 << P   // 16384 registers
	q         = 64 - P   // bits of the hash that give the count
	regMax    = 1<<6 - 1 // a 6-bit register's largest value
	HdrSize   = 16       // magic, encoding, 3 unused bytes, cached cardinality
	DenseSize = HdrSize + (Registers*6+7)/8

	// Encodings (the header's fifth byte).
	Dense  = 0
	Sparse = 1

	// Room an edit of a sparse value may add at most: an XZERO (2 bytes)
	// split into XZERO, VAL, XZERO (5 bytes).
	SparseGrowth = 3

	encOff   = 4  // the encoding byte
	cardOff  = 8  // the cached cardinality
	staleBit = 15 // byte whose top bit marks the cache stale

	sparseValMax    = 32    // largest value a VAL opcode holds
	sparseValMaxLen = 4     // longest run of a VAL opcode
	zeroMaxLen      = 64    // longest run of a ZERO opcode
	xzeroMaxLen     = 16384 // longest run of an XZERO opcode
)

// Result is what an edit of a value did.
type Result uint8

const (
	Unchanged Result = iota // no register grew
	Changed                 // a register grew
	Promote                 // a sparse value must turn dense first (the value is untouched)
	Corrupt                 // the value is damaged (INVALIDOBJ)
)

// Check reports whether v is a HyperLogLog Redis accepts as one: the
// magic, a known encoding and, for a dense value, its exact length.
func Check(v []byte) bool {
	if len(v) < HdrSize || v[0] != 'H' || v[1] != 'Y' || v[2] != 'L' || v[3] != 'L' {
		return false
	}
	switch v[encOff] {
	case Dense:
		return len(v) == DenseSize
	case Sparse:
		return true
	}
	return false
}

// IsDense reports whether a checked value is dense.
func IsDense(v []byte) bool { return v[encOff] == Dense }

// AppendEmpty appends a new, empty HyperLogLog: sparse, one XZERO run of
// every register, cached cardinality 0.
func AppendEmpty(dst []byte) []byte {
	dst = append(dst, 'H', 'Y', 'L', 'L', Sparse, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	return appendZeros(dst, Registers)
}

// Cached returns the cached cardinality and whether it is valid.
func Cached(v []byte) (uint64, bool) {
	return binary.LittleEndian.Uint64(v[cardOff:]), v[staleBit]&0x80 == 0
}

// SetCached stores n as the valid cached cardinality.
func SetCached(v []byte, n uint64) { binary.LittleEndian.PutUint64(v[cardOff:], n) }

// Invalidate marks the cached cardinality stale; the other bits of it stay
// as they are, as Redis leaves them.
func Invalidate(v []byte) { v[staleBit] |= 0x80 }

// Hash returns the register an element goes to and the count it offers:
// one more than the trailing zero bits of the rest of its MurmurHash64A,
// with a bit set at q so that the count is at most q+1.
func Hash(ele []byte) (index int, count uint8) {
	h := murmur64A(ele, 0xadc83b19)
	index = int(h & (Registers - 1))
	h = h>>P | 1<<q
	return index, uint8(bits.TrailingZeros64(h) + 1)
}

// murmur64A is Austin Appleby's MurmurHash64A, reading the input as
// little-endian 64-bit words whatever the machine, as Redis does.
func murmur64A(data []byte, seed uint64) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := seed ^ uint64(len(data))*m
	for len(data) >= 8 {
		k := binary.LittleEndian.Uint64(data)
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
		data = data[8:]
	}
	if len(data) > 0 {
		for i := len(data) - 1; i >= 0; i-- {
			h ^= uint64(data[i]) << (8 * i)
		}
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// denseGet returns register i of the packed registers regs. The last
// register ends exactly at the last byte, so a second byte is read only
// when the register reaches into it.
func denseGet(regs []byte, i int) uint8 {
	bit := i * 6
	b, fb := bit>>3, uint(bit&7)
	x := uint(regs[b]) >> fb
	if fb > 2 {
		x |= uint(regs[b+1]) << (8 - fb)
	}
	return uint8(x & regMax)
}

// denseSet sets register i of regs to val (at most 63).
func denseSet(regs []byte, i int, val uint8) {
	bit := i * 6
	b, fb := bit>>3, uint(bit&7)
	regs[b] = regs[b]&^byte(regMax<<fb) | byte(uint(val)<<fb)
	if fb > 2 {
		regs[b+1] = regs[b+1]&^byte(regMax>>(8-fb)) | byte(uint(val)>>(8-fb))
	}
}

// Register returns register i of a dense value.
func Register(v []byte, i int) uint8 { return denseGet(v[HdrSize:], i) }

// DenseAdd raises register index of a dense value to count if it is
// lower, reporting Changed or Unchanged.
func DenseAdd(v []byte, index int, count uint8) Result {
	regs := v[HdrSize:]
	if denseGet(regs, index) >= count {
		return Unchanged
	}
	denseSet(regs, index, count)
	return Changed
}

// sparse opcodes
func isZero(b byte) bool  { return b&0xc0 == 0 }
func isXZero(b byte) bool { return b&0xc0 == 0x40 }
func valOf(b byte) uint8  { return (b>>2)&0x1f + 1 }
func valLen(b byte) int   { return int(b&3) + 1 }
func valByte(val uint8, n int) byte {
	return 0x80 | (val-1)<<2 | byte(n-1)
}

// at is v[i], or 0 past the end (a truncated XZERO; see the package doc).
func at(v []byte, i int) byte {
	if i < len(v) {
		return v[i]
	}
	return 0
}

// opcode decodes the opcode at v[p]: its run, its value (0 for the zero
// opcodes) and its length in bytes.
func opcode(v []byte, p int) (run int, val uint8, size int) {
	b := v[p]
	switch {
	case isZero(b):
		return int(b&0x3f) + 1, 0, 1
	case isXZero(b):
		return (int(b&0x3f)<<8 | int(at(v, p+1))) + 1, 0, 2
	}
	return valLen(b), valOf(b), 1
}

// appendZeros appends the opcode of a run of n (1..16384) zero registers.
func appendZeros(dst []byte, n int) []byte {
	if n <= zeroMaxLen {
		return append(dst, byte(n-1))
	}
	return append(dst, 0x40|byte((n-1)>>8), byte(n-1))
}

// SparseAdd raises register index of a sparse value to count if it is
// lower, editing the opcodes in place as Redis's hllSparseSet does, so
// that the bytes come out the same. v must have SparseGrowth bytes of
// spare capacity; the edited value is returned (it may be longer or
// shorter). Promote means the value must turn dense first (count above 32,
// or longer than maxBytes after the edit) and leaves it untouched.
func SparseAdd(v []byte, index int, count uint8, maxBytes int) ([]byte, Result) {
	if count > sparseValMax {
		return v, Promote
	}
	// Find the opcode whose run covers index, and the one before it.
	p, prev, first := HdrSize, -1, 0
	run, val, size := 0, uint8(0), 0
	for p < len(v) {
		run, val, size = opcode(v, p)
		if index < first+run {
			break
		}
		prev, p, first = p, p+size, first+run
	}
	if p >= len(v) { // no opcode covers index
		return v, Corrupt
	}
	// A truncated XZERO (its second byte past the end, read as 0) is the
	// last opcode. Redis edits it as if both bytes were there, so its
	// string grows by the new sequence's length minus 2 and loses the
	// sequence's last byte: the bytes below come out as Redis's.
	short := p + size - len(v) // 1 for a truncated XZERO, else 0
	if val >= count {
		return v, Unchanged
	}
	if run == 1 && size == 1 { // a one-register VAL or ZERO: rewrite the byte
		v[p] = valByte(count, 1)
		return mergeVals(v, prev), Changed
	}
	// Split the run: what lies before index, index itself, what follows.
	var seq [5]byte
	s := seq[:0]
	last := first + run - 1
	if val == 0 {
		if index > first {
			s = appendZeros(s, index-first)
		}
		s = append(s, valByte(count, 1))
		if index < last {
			s = appendZeros(s, last-index)
		}
	} else {
		if index > first {
			s = append(s, valByte(val, index-first))
		}
		s = append(s, valByte(count, 1))
		if index < last {
			s = append(s, valByte(val, last-index))
		}
	}
	delta := len(s) - size
	if delta > 0 && len(v)+delta > maxBytes {
		return v, Promote
	}
	n := len(v)
	if short > 0 { // nothing follows a truncated XZERO (see above)
		v = v[:n+delta]
		copy(v[p:], s)
		return mergeVals(v, prev), Changed
	}
	if delta > 0 {
		v = v[:n+delta]
	}
	copy(v[p+len(s):], v[p+size:n])
	copy(v[p:], s)
	if delta < 0 {
		v = v[:n+delta]
	}
	return mergeVals(v, prev), Changed
}

// mergeVals joins adjacent VAL opcodes of one value whose runs fit one
// opcode, looking at five opcodes from the one before the edit (prev, or
// the first), as Redis does after a sparse edit.
func mergeVals(v []byte, prev int) []byte {
	p := prev
	if p < 0 {
		p = HdrSize
	}
	for scan := 5; p < len(v) && scan > 0; scan-- {
		b := v[p]
		switch {
		case isXZero(b):
			p += 2
			continue
		case isZero(b):
			p++
			continue
		}
		if p+1 < len(v) && !isZero(v[p+1]) && !isXZero(v[p+1]) && valOf(b) == valOf(v[p+1]) {
			if n := valLen(b) + valLen(v[p+1]); n <= sparseValMaxLen {
				v[p+1] = valByte(valOf(b), n)
				copy(v[p:], v[p+1:])
				v = v[:len(v)-1]
				continue // the joined run may join the next one too
			}
		}
		p++
	}
	return v
}

// MaxInto raises each of regs to the matching register of the checked
// value v (one byte per register), as Redis's hllMerge does. It reports
// false for a sparse value whose runs do not cover exactly 16384 registers.
func MaxInto(regs *[Registers]uint8, v []byte) bool {
	if IsDense(v) {
		d := v[HdrSize:]
		for i := range regs {
			if r := denseGet(d, i); r > regs[i] {
				regs[i] = r
			}
		}
		return true
	}
	i := 0
	for p := HdrSize; p < len(v); {
		run, val, size := opcode(v, p)
		p += size
		if val != 0 {
			if i+run > Registers {
				return false
			}
			for j := i; j < i+run; j++ {
				regs[j] = max(regs[j], val)
			}
		}
		i += run
	}
	return i == Registers
}

// ToDense writes the registers regs into v, which must be DenseSize bytes
// with its header in place, and makes its encoding dense.
func ToDense(v []byte, regs *[Registers]uint8) {
	v[encOff] = Dense
	d := v[HdrSize:DenseSize]
	clear(d)
	for i, r := range regs {
		if r != 0 {
			denseSet(d, i, r)
		}
	}
}

// Count estimates the cardinality of a checked value; ok is false for a
// damaged sparse value.
func Count(v []byte) (n uint64, ok bool) {
	var h [64]int
	if IsDense(v) {
		d := v[HdrSize:]
		for i := 0; i < Registers; i++ {
			h[denseGet(d, i)]++
		}
		return estimate(&h), true
	}
	i := 0
	for p := HdrSize; p < len(v); {
		run, val, size := opcode(v, p)
		p += size
		h[val] += run
		i += run
	}
	if i != Registers {
		return 0, false
	}
	return estimate(&h), true
}

// CountRegisters estimates the cardinality of one byte per register.
func CountRegisters(regs *[Registers]uint8) uint64 {
	var h [64]int
	for _, r := range regs {
		h[r&63]++
	}
	return estimate(&h)
}

// estimate is Redis 7's estimator over the register histogram h: Ertl's
// improved raw estimator ("New cardinality estimation algorithms for
// HyperLogLog sketches", 2017), with its sigma and tau corrections for
// the registers at 0 and at q+1.
func estimate(h *[64]int) uint64 {
	const m = float64(Registers)
	const alphaInf = 0.721347520444481703680 // 1/(2 ln 2)
	z := m * tau((m-float64(h[q+1]))/m)
	for j := q; j >= 1; j-- {
		z += float64(h[j])
		z *= 0.5
	}
	z += m * sigma(float64(h[0])/m)
	return uint64(math.Round(alphaInf * m * m / z))
}

// sigma is Ertl's sigma(x) = x + sum_k x^(2^k) 2^(k-1), iterated until the
// sum stops changing.
func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		prev := z
		z += x * y
		y += y
		if z == prev {
			return z
		}
	}
}

// tau is Ertl's tau(x) = (1 - x - sum_k (1 - x^(2^-k))^2 2^-k) / 3.
func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		prev := z
		y *= 0.5
		d := 1 - x
		z -= d * d * y
		if z == prev {
			return z / 3
		}
	}
}

// AppendDecode appends PFDEBUG DECODE's text for a sparse value: each
// opcode as "z:run", "Z:run" or "v:value,run", space separated.
func AppendDecode(dst, v []byte) []byte {
	for p := HdrSize; p < len(v); {
		run, val, size := opcode(v, p)
		if p > HdrSize {
			dst = append(dst, ' ')
		}
		switch {
		case val != 0:
			dst = append(dst, 'v', ':')
			dst = strconv.AppendInt(dst, int64(val), 10)
			dst = append(dst, ',')
		case size == 2:
			dst = append(dst, 'Z', ':')
		default:
			dst = append(dst, 'z', ':')
		}
		dst = strconv.AppendInt(dst, int64(run), 10)
		p += size
	}
	return dst
}

// SelfTest checks the register packing and the estimator as Redis's
// PFSELFTEST does, on values built here; it returns "" or the failure in
// Redis's words.
func SelfTest() string {
	// Every register set and read back, twice with different values, so a
	// write that spills into a neighbour shows.
	v := make([]byte, DenseSize)
	copy(v, "HYLL")
	seed := uint64(0x9e3779b97f4a7c15)
	next := func() uint8 {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return uint8(seed & regMax)
	}
	var want [Registers]uint8
	for round := 0; round < 2; round++ {
		for i := range want {
			want[i] = next()
			denseSet(v[HdrSize:], i, want[i])
		}
		for i := range want {
			if Register(v, i) != want[i] {
				return "TESTFAILED Register error at " + strconv.Itoa(i)
			}
		}
	}
	// The same elements into a sparse and a dense value: equal estimates,
	// and within five standard errors of the truth.
	clear(v[HdrSize:])
	sp := AppendEmpty(make([]byte, 0, 4096))
	var ele [8]byte
	for n := 1; n <= 100000; n++ {
		binary.LittleEndian.PutUint64(ele[:], uint64(n)*0x5bd1e995)
		index, count := Hash(ele[:])
		DenseAdd(v, index, count)
		if IsDense(sp) {
			DenseAdd(sp, index, count)
		} else {
			if len(sp)+SparseGrowth > cap(sp) {
				sp = append(sp[:len(sp):len(sp)], make([]byte, len(sp))...)[:len(sp)]
			}
			var r Result
			if sp, r = SparseAdd(sp, index, count, 3000); r == Promote {
				var regs [Registers]uint8
				MaxInto(&regs, sp)
				sp = append(sp[:HdrSize:HdrSize], make([]byte, DenseSize-HdrSize)...)
				ToDense(sp, &regs)
				DenseAdd(sp, index, count)
			}
		}
		if n%1000 != 0 {
			continue
		}
		d, _ := Count(v)
		s, _ := Count(sp)
		err := math.Abs(float64(d) - float64(n))
		if d != s || err > 5*1.04/math.Sqrt(Registers)*float64(n)+1 {
			return "TESTFAILED Too big error. card:" + strconv.Itoa(int(d)) + " abserr:" + strconv.FormatFloat(err, 'f', 6, 64)
		}
	}
	return ""
}
