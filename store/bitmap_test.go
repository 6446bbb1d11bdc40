package store

import (
	"maps"
	"testing"
)

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

// A snapshot taken before a bit write sees the value as it was: the
// writes save their records first, as every write does (kv.cow).
func TestSnapshotSeesNoBitWrite(t *testing.T) {
	b := func(s string) []byte { return []byte(s) }
	ops := map[string]func(s *Store){
		"SetBit":     func(s *Store) { s.SetBit(0, b("raw"), t0, 8*50, true) },
		"SetBitGrow": func(s *Store) { s.SetBit(0, b("int"), t0, 900, true) },
		"SetBitNew":  func(s *Store) { s.SetBit(0, b("newbits"), t0, 9, true) },
		"BitFieldSet": func(s *Store) {
			s.BitField(0, b("embstr"), t0, []BitFieldOp{{Kind: BitFieldSet, Bits: 8, Value: 1}}, nil)
		},
		"BitFieldIncr": func(s *Store) {
			s.BitField(0, b("raw"), t0, []BitFieldOp{{Kind: BitFieldIncr, Bits: 16, Offset: 5, Value: 9}}, nil)
		},
		"BitOp":        func(s *Store) { s.BitOp(0, BitNot, b("raw"), [][]byte{b("embstr")}, t0) },
		"BitOpDelete":  func(s *Store) { s.BitOp(0, BitAnd, b("int"), [][]byte{b("missing")}, t0) },
		"BitOpReplace": func(s *Store) { s.BitOp(0, BitOr, b("h:ht"), [][]byte{b("raw"), b("int")}, t0) },
	}
	for name, op := range ops {
		s := New(Options{Shards: 4})
		fillEveryEncoding(s, t0, 0)
		v := s.Lock(nil, true)
		want := liveDump(v)
		v.Unlock()
		sn := s.SnapshotAt(t0)
		op(s)
		v = s.Lock(nil, true)
		after := liveDump(v)
		v.Unlock()
		if maps.Equal(after, want) {
			t.Errorf("%s changed nothing", name)
		}
		got := snapDump(t, sn, nil)
		sn.Close()
		if !maps.Equal(got, want) {
			diffDumps(t, name, got, want)
		}
	}
}
