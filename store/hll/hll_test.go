package hll

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// sparseRegs decodes a valid value's registers.
func sparseRegs(t *testing.T, v []byte) [Registers]uint8 {
	t.Helper()
	var r [Registers]uint8
	if !Check(v) || !MaxInto(&r, v) {
		t.Fatalf("invalid value %x", v)
	}
	return r
}

// TestSparseAddMatchesRegisterModel adds random registers to a sparse
// value, as PFADD and PFMERGE do, and compares with a plain array after
// every add: the same registers and the same result, and a promotion
// only when the value is near maxBytes.
func TestSparseAddMatchesRegisterModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 50; round++ {
		v := AppendEmpty(make([]byte, 0, 4000))
		var model [Registers]uint8
		for i := 0; i < 400; i++ {
			idx := rng.IntN(Registers)
			if round%2 == 0 {
				idx = rng.IntN(64) * 7 // crowded: runs split and merge
			}
			count := uint8(1 + rng.IntN(sparseValMax))
			nv, r := SparseAdd(v, idx, count, 3000)
			want := Unchanged
			if count > model[idx] {
				want = Changed
				model[idx] = count
			}
			if r == Promote {
				if len(v)+SparseGrowth <= 3000 {
					t.Fatalf("promoted at %d bytes", len(v))
				}
				break
			}
			if r != want {
				t.Fatalf("round %d add %d: %v, want %v", round, i, r, want)
			}
			v = nv
			if got := sparseRegs(t, v); got != model {
				t.Fatalf("round %d add %d: registers differ", round, i)
			}
			if cap(v)-len(v) < SparseGrowth {
				v = append(v[:len(v):len(v)], make([]byte, 64)...)[:len(v)]
			}
		}
	}
}

// TestDenseRegistersRoundTrip sets every register, then reads them back
// through every path: Register, MaxInto, ToDense.
func TestDenseRegistersRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var regs [Registers]uint8
	for i := range regs {
		regs[i] = uint8(rng.IntN(64))
	}
	v := make([]byte, DenseSize)
	copy(v, "HYLL")
	ToDense(v, &regs)
	for i := range regs {
		if Register(v, i) != regs[i] {
			t.Fatalf("register %d: %d, want %d", i, Register(v, i), regs[i])
		}
	}
	var back [Registers]uint8
	if !MaxInto(&back, v) || back != regs {
		t.Fatal("MaxInto of a dense value lost registers")
	}
	if n, _ := Count(v); n != CountRegisters(&regs) {
		t.Fatalf("Count %d, CountRegisters %d", n, CountRegisters(&regs))
	}
}

// TestHostileSparseValuesAreRefused: runs that miss or pass 16384
// registers, and a truncated XZERO, are damage, never a read past the end.
func TestHostileSparseValuesAreRefused(t *testing.T) {
	hdr := []byte("HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80")
	for _, tail := range [][]byte{
		nil, {0x7f}, {0x80}, {0x7f, 0xff, 0x80}, {0x7f, 0xfe}, {0xff, 0xff, 0xff},
		{0x40}, {0x7f, 0xff, 0x7f, 0xff}, {0x00, 0x7f},
	} {
		v := append(bytes.Clone(hdr), tail...)
		if _, ok := Count(v); ok {
			t.Errorf("%x: Count ok", tail)
		}
		var regs [Registers]uint8
		if MaxInto(&regs, v) {
			t.Errorf("%x: MaxInto ok", tail)
		}
		for _, idx := range []int{0, 1, 16000, Registers - 1} {
			w := append(bytes.Clone(v), 0, 0, 0)[:len(v)]
			if nv, r := SparseAdd(w, idx, 3, 3000); r == Changed && len(nv) > cap(w) {
				t.Errorf("%x: grew past its room", tail)
			}
		}
		AppendDecode(nil, v)
	}
}
