package store

import (
	"bytes"
	"testing"

	"github.com/loopkv/loopkv/store/hll"
)

// getBytes returns a copy of key's string value, or nil.
func getBytes(s *Store, key string) []byte {
	out, st := s.Get(0, []byte(key), t0, nil, func(dst, v []byte) []byte { return append(dst, v...) })
	if st != OK {
		return nil
	}
	return out
}

// registersOf returns the registers of a valid value, or ok false.
func registersOf(v []byte) (regs [hll.Registers]uint8, ok bool) {
	if !hll.Check(v) {
		return regs, false
	}
	return regs, hll.MaxInto(&regs, v)
}

// endsShort reports whether sparse value v's last opcode is an XZERO
// without its second byte, which Redis and hll read as 0 (the string's NUL
// in Redis). An add inside that run cuts the new sequence's last byte, as
// Redis's does, so it may leave a value that no longer covers 16384
// registers: the one edit of a valid value that need not stay valid.
func endsShort(v []byte) bool {
	if !hll.Check(v) || hll.IsDense(v) {
		return false
	}
	p := hll.HdrSize
	for p < len(v) {
		switch b := v[p]; {
		case b&0xc0 == 0x40: // XZERO
			if p+1 == len(v) {
				return true
			}
			p += 2
		default:
			p++
		}
	}
	return false
}

// FuzzHLLValue stores arbitrary bytes, as they are or behind a HyperLogLog
// header (dense, sparse, or a dense header on a value of the right length),
// as a string and runs every HyperLogLog operation on it. None may panic,
// and the answers must agree with each other: the one-key count (from the
// value's register histogram) with the many-key count (from the registers
// merged into bytes) on the same damage verdict and number; an edit of a
// valid value leaves it valid with every register at least as high (and
// the added element's one at least its count); PFDEBUG TODENSE keeps the
// registers; PFMERGE gives the registers' maximum.
func FuzzHLLValue(f *testing.F) {
	empty := hll.AppendEmpty(nil)
	f.Add(byte(0), []byte("HYLL"))
	f.Add(byte(1), empty[5:])                                       // the empty sparse value
	f.Add(byte(1), append(bytes.Clone(empty[5:14]), 0x80, 0x7f))    // a truncated XZERO
	f.Add(byte(1), append(bytes.Clone(empty[5:16]), 0xff, 0xff, 1)) // runs past 16384
	f.Add(byte(1), append(bytes.Clone(empty[5:]), 0x80))            // one register too many
	f.Add(byte(2), []byte{0xff, 0x03, 0x00, 0x41})                  // a dense value of noise
	f.Add(byte(3), []byte("PFADD-me"))                              // not a HyperLogLog
	f.Fuzz(func(t *testing.T, mode byte, data []byte) {
		var v []byte
		switch mode % 4 {
		case 0:
			v = data
		case 1: // behind the magic and the sparse encoding byte
			v = append([]byte("HYLL\x01"), data...)
		case 2: // a dense value: the header, then data repeated to the length
			v = make([]byte, hll.DenseSize)
			copy(v, "HYLL\x00")
			for i := 5; len(data) > 0 && i < len(v); i += len(data) {
				copy(v[i:], data)
			}
		default:
			v = append([]byte("HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80"), data...)
		}
		if len(v) > 1<<16 {
			return
		}
		s := New(Options{Shards: 4, Databases: 1})
		lim := DefaultLimits
		lim.HLLSparseMaxBytes = 200 // promotions happen early
		s.SetLimits(lim)
		s.Set(0, []byte("k"), v, t0, SetOptions{})
		s.Set(0, []byte("c"), v, t0, SetOptions{})
		before, valid := registersOf(v)

		// the two counts agree
		n1, _, st1 := s.PFCount(0, [][]byte{[]byte("c")}, t0)
		n2, _, st2 := s.PFCount(0, [][]byte{[]byte("c"), []byte("missing")}, t0)
		if hll.Check(v) {
			if _, fresh := hll.Cached(v); fresh {
				// the one-key count believes a valid cache: compare the
				// estimate the cache would have held
				n, ok := hll.Count(v)
				n1, st1 = n, OK
				if !ok {
					st1 = CorruptHLL
				}
			}
		}
		if st1 != st2 || st1 == OK && n1 != n2 {
			t.Fatalf("PFCOUNT c: %d %v; PFCOUNT c missing: %d %v", n1, st1, n2, st2)
		}
		if (st2 == OK) != valid {
			t.Fatalf("PFCOUNT status %v for a value valid=%v", st2, valid)
		}

		// an add keeps a valid value valid, registers only growing
		elem := data
		if len(elem) > 16 {
			elem = elem[:16]
		}
		_, st := s.PFAdd(0, []byte("k"), [][]byte{elem, []byte("x")}, t0)
		after, ok := registersOf(getBytes(s, "k"))
		short := valid && endsShort(v)
		if short {
			// a second element may fall past the runs the first left (Redis
			// reads the cut byte it left past its string's end there)
			if st != OK && st != CorruptHLL {
				t.Fatalf("PFADD of a valid value ending in a short XZERO: %v", st)
			}
		} else if valid {
			if st != OK || !ok {
				t.Fatalf("PFADD of a valid value: %v, valid after %v", st, ok)
			}
			idx, count := hll.Hash(elem)
			for i := range after {
				if after[i] < before[i] {
					t.Fatalf("register %d fell from %d to %d", i, before[i], after[i])
				}
			}
			if after[idx] < count {
				t.Fatalf("register %d is %d after adding a count of %d", idx, after[idx], count)
			}
			if got := getBytes(s, "k"); hll.IsDense(got) && len(got) != hll.DenseSize {
				t.Fatalf("dense value of %d bytes", len(got))
			}
		} else if hll.Check(v) && st != OK && st != CorruptHLL {
			// a damaged value may still take an add whose register lies in
			// its sound part, as in Redis: OK or INVALIDOBJ, nothing else
			t.Fatalf("PFADD of a damaged value: %v", st)
		}

		// PFDEBUG in every form, then TODENSE keeps the registers
		var regs [hll.Registers]uint8
		for op := HLLDebugNone; op <= HLLDebugToDense; op++ {
			s.HLLDebug(0, []byte("c"), t0, op, &regs, nil)
		}
		if dv, ok := registersOf(getBytes(s, "c")); valid && (!ok || dv != before) {
			t.Fatalf("PFDEBUG TODENSE changed the registers (valid after: %v)", ok)
		}

		// PFMERGE of both into a third key: the maximum of the registers
		st = s.PFMerge(0, [][]byte{[]byte("m"), []byte("k"), []byte("c")}, t0)
		if valid && !short { // k is valid (short: it may not be)
			merged, ok := registersOf(getBytes(s, "m"))
			if st != OK || !ok {
				t.Fatalf("PFMERGE of valid values: %v, valid after %v", st, ok)
			}
			for i := range merged {
				if merged[i] != max(after[i], before[i]) {
					t.Fatalf("merged register %d is %d, want %d", i, merged[i], max(after[i], before[i]))
				}
			}
		}
	})
}
