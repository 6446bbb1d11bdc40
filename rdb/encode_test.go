package rdb

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestStringEncodingsRoundTrip: every string encoding appendString picks
// (integers of 8, 16 and 32 bits, raw, LZF with a hash table reused across
// strings, as the writer reuses it) reads back as the same bytes, and the
// choices are Redis's: integers only in canonical form within 32 bits, LZF
// only over 20 bytes and when it saves 4.
func TestStringEncodingsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 15))
	c := compressor{on: true}
	cases := []struct {
		s     string
		first byte // the expected first byte; 0xFF: any
	}{
		{"0", 0xC0}, {"-128", 0xC0}, {"127", 0xC0}, {"128", 0xC1}, {"-32769", 0xC2},
		{"2147483647", 0xC2}, {"2147483648", 10}, {"007", 3}, {"-0", 2}, {"+1", 2}, {"", 0},
		{"abcdefghijklmnopqrst", 20}, {"aaaaaaaaaaaaaaaaaaaaa", 0xC3},
	}
	for range 300 {
		n := rng.IntN(5000)
		b := make([]byte, n)
		for i := range b {
			b[i] = "abcd"[rng.IntN(1+rng.IntN(4))] // from highly to barely compressible
		}
		cases = append(cases, struct {
			s     string
			first byte
		}{string(b), 0xFF})
	}
	var all []byte
	for _, tc := range cases {
		start := len(all)
		all = c.appendString(all, []byte(tc.s))
		if tc.first != 0xFF && all[start] != tc.first {
			t.Errorf("%q encoded with first byte %#x, want %#x", tc.s, all[start], tc.first)
		}
	}
	r := newBytesReader(all)
	for i, tc := range cases {
		got, err := r.readString(nil, "case "+strconv.Itoa(i))
		if err != nil || !bytes.Equal(got, []byte(tc.s)) {
			t.Fatalf("case %d (%d bytes): %v, got %d bytes", i, len(tc.s), err, len(got))
		}
	}
	if r.offset() != int64(len(all)) {
		t.Fatalf("read %d of %d bytes", r.offset(), len(all))
	}
}

// TestLengthEncodings: each length form reads back, at its boundaries.
func TestLengthEncodings(t *testing.T) {
	for _, n := range []uint64{0, 63, 64, 16383, 16384, 1<<32 - 1, 1 << 32, 1<<64 - 1} {
		b := appendLen(nil, n)
		got, special, err := newBytesReader(b).readLen("a length")
		if err != nil || special || got != n {
			t.Errorf("%d: %d %v %v (%x)", n, got, special, err, b)
		}
	}
}
