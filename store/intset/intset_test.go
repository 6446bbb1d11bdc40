package intset

import (
	"bytes"
	"encoding/hex"
	"math"
	"strings"
	"testing"
)

// widthTests are values at each width's limits and the width an intset of
// small values takes on after adding them.
var widthTests = []struct {
	v int64
	w int
}{
	{0, 2},
	{math.MaxInt16, 2},
	{math.MinInt16, 2},
	{math.MaxInt16 + 1, 4},
	{math.MinInt16 - 1, 4},
	{math.MaxInt32, 4},
	{math.MinInt32, 4},
	{math.MaxInt32 + 1, 8},
	{math.MinInt32 - 1, 8},
	{math.MaxInt64, 8},
	{math.MinInt64, 8},
}

func TestAddUpgradesAtWidthLimits(t *testing.T) {
	for i, tt := range widthTests {
		is, _ := Add(New(nil), 5)
		is, added := Add(is, tt.v)
		if want := tt.v != 5; added != want {
			t.Errorf("#%d: added %v", i, added)
		}
		if Encoding(is) != tt.w {
			t.Errorf("#%d %d: encoding %d, want %d", i, tt.v, Encoding(is), tt.w)
		}
		if err := Validate(is); err != nil {
			t.Errorf("#%d: %v", i, err)
		}
		if lo, hi := min(tt.v, 5), max(tt.v, 5); Min(is) != lo || Max(is) != hi {
			t.Errorf("#%d: Min %d Max %d, want %d %d", i, Min(is), Max(is), lo, hi)
		}
	}
}

// layoutTests are intsets written out by hand from intset.c's layout.
var layoutTests = []struct {
	vals []int64
	hex  string
}{
	{nil, "02000000 00000000"},
	{[]int64{3, 1, 2}, "02000000 03000000 0100 0200 0300"},
	{[]int64{-1, 32767, -32768}, "02000000 03000000 0080 ffff ff7f"},
	{[]int64{1, 65536}, "04000000 02000000 01000000 00000100"},
	{[]int64{7, -40000}, "04000000 02000000 c063ffff 07000000"},
	{[]int64{1, 1 << 40, -(1 << 40)}, "08000000 03000000 0000000000ffffff 0100000000000000 0000000000010000"},
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLayoutIsRedis(t *testing.T) {
	for i, tt := range layoutTests {
		is := New(nil)
		for _, v := range tt.vals {
			is, _ = Add(is, v)
		}
		if want := mustHex(t, tt.hex); !bytes.Equal(is, want) {
			t.Errorf("#%d %v: %x, want %x", i, tt.vals, is, want)
		}
	}
}

func TestFindAndRemove(t *testing.T) {
	is := New(nil)
	for _, v := range []int64{10, -10, 1000, 0} {
		is, _ = Add(is, v)
	}
	for _, tt := range []struct {
		v     int64
		pos   int
		found bool
	}{
		{-10, 0, true}, {-11, 0, false}, {0, 1, true}, {5, 2, false}, {1000, 3, true}, {1001, 4, false},
		{math.MaxInt64, 4, false}, {math.MinInt64, 0, false}, {70000, 4, false}, {-70000, 0, false},
	} {
		if pos, found := Find(is, tt.v); pos != tt.pos || found != tt.found {
			t.Errorf("Find(%d) = %d, %v, want %d, %v", tt.v, pos, found, tt.pos, tt.found)
		}
	}
	is, _ = Add(is, 1<<40)
	if _, ok := Add(is, 1<<40); ok {
		t.Fatal("added a value twice")
	}
	is, ok := Remove(is, 1<<40)
	if !ok || Encoding(is) != 8 || Len(is) != 4 {
		t.Fatalf("Remove: ok %v, encoding %d, len %d (the width must stay 8)", ok, Encoding(is), Len(is))
	}
	if _, ok := Remove(is, 3); ok {
		t.Fatal("removed a missing value")
	}
	for _, v := range []int64{-10, 0, 10, 1000} {
		is, _ = Remove(is, v)
	}
	if Len(is) != 0 || len(is) != HeaderSize || Validate(is) != nil {
		t.Fatalf("emptied intset %x", is)
	}
}

func TestMutatorsEditInPlaceWithRoom(t *testing.T) {
	is := New(make([]byte, 0, 1024))
	base := &is[:1][0]
	allocs := testing.AllocsPerRun(100, func() {
		for v := int64(0); v < 50; v++ {
			is, _ = Add(is, v*3-70)
		}
		is, _ = Add(is, 1<<33) // upgrade in place
		for v := int64(0); v < 50; v++ {
			is, _ = Remove(is, v*3-70)
		}
		is, _ = Remove(is, 1<<33)
		is = New(is)
	})
	if allocs != 0 || &is[0] != base {
		t.Fatalf("%v allocations, moved %v", allocs, &is[0] != base)
	}
}

var validateTests = []struct {
	name string
	hex  string
	off  int
}{
	{"empty input", "", 0},
	{"short header", "02000000 000000", 0},
	{"encoding 3", "03000000 00000000", 0},
	{"encoding 0", "00000000 00000000", 0},
	{"length too long", "02000000 02000000 0100", 4},
	{"length too short", "02000000 01000000 0100 0200", 4},
	{"length overflows", "08000000 ffffffff 0100000000000000", 4},
	{"repeat", "02000000 03000000 0100 0200 0200", 12},
	{"out of order", "04000000 02000000 05000000 04000000", 12},
}

func TestValidateNamesTheDamage(t *testing.T) {
	for i, tt := range validateTests {
		err := Validate(mustHex(t, tt.hex))
		ce, ok := err.(*CorruptError)
		if !ok || ce.Offset != tt.off {
			t.Errorf("#%d %s: %v, want offset %d", i, tt.name, err, tt.off)
		}
	}
}
