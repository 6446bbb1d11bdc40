package store

import "testing"

// A bit write whose string would outgrow a record's 32-bit value length
// (possible only with proto-max-bulk-len above 4 GB) is refused before
// anything is allocated or created.
func TestBitWritesPastFourGigabytesAreTooLarge(t *testing.T) {
	s := New(Options{})
	if _, _, st := s.SetBit(0, []byte("k"), 0, 1<<35, true); st != TooLarge {
		t.Errorf("SetBit at 2^35: %v, want TooLarge", st)
	}
	ops := []BitFieldOp{{Kind: BitFieldSet, Bits: 8, Offset: 1 << 35}}
	if _, _, st := s.BitField(0, []byte("k"), 0, ops, nil); st != TooLarge {
		t.Errorf("BitField SET at 2^35: %v, want TooLarge", st)
	}
	if s.Exists(0, []byte("k"), 0) {
		t.Error("the refused writes created the key")
	}
	if _, _, st := s.SetBit(0, []byte("k"), 0, 8*1000, true); st != OK {
		t.Fatalf("SetBit at bit 8000: %v", st)
	}
}
