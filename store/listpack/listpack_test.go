package listpack

import (
	"bytes"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"testing"
)

// intEncodingTests are the entries (encoding, data, backlen) Redis writes
// for integers at every width's boundaries, worked out by hand from the
// listpack spec: two's complement of the width, little endian.
var intEncodingTests = []struct {
	v     int64
	entry string // hex
}{
	{0, "0001"},
	{1, "0101"},
	{127, "7f01"},
	{128, "c08002"},
	{-1, "dfff02"},
	{4095, "cfff02"},
	{-4096, "d00002"},
	{4096, "f1001003"},
	{-4097, "f1ffef03"},
	{32767, "f1ff7f03"},
	{-32768, "f1008003"},
	{32768, "f200800004"},
	{-32769, "f2ff7fff04"},
	{8388607, "f2ffff7f04"},
	{-8388608, "f2000080" + "04"},
	{8388608, "f30000800005"},
	{-8388609, "f3ffff7fff05"},
	{math.MaxInt32, "f3ffffff7f05"},
	{math.MinInt32, "f30000008005"},
	{math.MaxInt32 + 1, "f4000000800000000009"},
	{math.MinInt32 - 1, "f4ffffff7fffffffff09"},
	{math.MaxInt64, "f4ffffffffffffff7f09"},
	{math.MinInt64, "f4000000000000008009"},
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestIntEncodingBoundaries checks each integer width at its limits, added
// as an integer and as its decimal string.
func TestIntEncodingBoundaries(t *testing.T) {
	for i, tt := range intEncodingTests {
		want := mustHex(t, tt.entry)
		for _, lp := range [][]byte{AppendInt(New(nil), tt.v), AppendString(New(nil), []byte(strconv.FormatInt(tt.v, 10)))} {
			if got := lp[HeaderSize : len(lp)-1]; !bytes.Equal(got, want) {
				t.Errorf("#%d %d: entry %x, want %x", i, tt.v, got, want)
			}
			if err := Validate(lp); err != nil {
				t.Errorf("#%d %d: %v", i, tt.v, err)
			}
			if s, n, isInt := Get(lp, First(lp)); !isInt || n != tt.v || s != nil {
				t.Errorf("#%d: Get = %q, %d, %v, want %d", i, s, n, isInt, tt.v)
			}
			if EncodedIntSize(tt.v) != len(want) || EncodedSize([]byte(strconv.FormatInt(tt.v, 10))) != len(want) {
				t.Errorf("#%d: EncodedSize %d, want %d", i, EncodedIntSize(tt.v), len(want))
			}
		}
	}
}

// stringEncodingTests cover each string length encoding at its limits and
// the backlen sizes around theirs: the backlen holds the size of the
// encoding and the data, 127 → 1 byte, 128 → 2, 16382 → 2, 16383 → 3 (Redis
// uses "< 16383"), 2097150 → 3, 2097151 → 4.
var stringEncodingTests = []struct {
	n       int    // string length
	header  string // hex encoding bytes
	backlen string // hex
}{
	{0, "80", "01"},
	{1, "81", "02"},
	{63, "bf", "40"},
	{64, "e040", "42"},
	{125, "e07d", "7f"},                 // 2+125 = 127
	{126, "e07e", "0180"},               // 128 = 1<<7 | 0
	{4095, "efff", "2081"},              // 4097 = 32<<7 | 1
	{4096, "f000100000", "2085"},        // 4101 = 32<<7 | 5
	{16377, "f0f93f0000", "7ffe"},       // 16382
	{16378, "f0fa3f0000", "00ffff"},     // 16383
	{2097145, "f0f9ff1f00", "7ffffe"},   // 2097150
	{2097146, "f0faff1f00", "00ffffff"}, // 2097151
}

func TestStringEncodingBoundaries(t *testing.T) {
	for i, tt := range stringEncodingTests {
		s := bytes.Repeat([]byte{'x'}, tt.n)
		lp := AppendString(New(nil), s)
		hdr, bl := mustHex(t, tt.header), mustHex(t, tt.backlen)
		entry := lp[HeaderSize : len(lp)-1]
		if !bytes.HasPrefix(entry, hdr) || !bytes.Equal(entry[len(hdr):len(hdr)+tt.n], s) || !bytes.Equal(entry[len(hdr)+tt.n:], bl) {
			t.Errorf("#%d len %d: header %x backlen %x, want %x %x", i, tt.n, entry[:len(hdr)], entry[len(hdr)+tt.n:], hdr, bl)
		}
		if EncodedSize(s) != len(entry) {
			t.Errorf("#%d: EncodedSize %d, want %d", i, EncodedSize(s), len(entry))
		}
		if err := Validate(lp); err != nil {
			t.Errorf("#%d: %v", i, err)
		}
		// Walk back over the entry from the terminator, and forward again.
		if off := Last(lp); off != HeaderSize || Next(lp, off) != -1 {
			t.Errorf("#%d: Last %d, Next %d", i, off, Next(lp, off))
		}
		if got, _, isInt := Get(lp, HeaderSize); isInt || !bytes.Equal(got, s) {
			t.Errorf("#%d: Get returned another string", i)
		}
	}
}

// TestBacklenSizes checks the backlen encoder at the limits too large for a
// test listpack, by decoding it back.
func TestBacklenSizes(t *testing.T) {
	for _, tt := range []struct{ l, size int }{
		{0, 1}, {127, 1}, {128, 2}, {16382, 2}, {16383, 3}, {2097150, 3}, {2097151, 4},
		{268435454, 4}, {268435455, 5}, {1<<32 - 1, 5}, {1<<35 - 1, 5},
	} {
		if got := backlenSize(tt.l); got != tt.size {
			t.Errorf("backlenSize(%d) = %d, want %d", tt.l, got, tt.size)
		}
		buf := make([]byte, 5)
		putBacklen(buf, tt.l)
		if buf[0]&128 != 0 {
			t.Errorf("backlen of %d: first byte %#x has the continuation bit", tt.l, buf[0])
		}
		if got := readBacklen(buf, tt.size); got != tt.l {
			t.Errorf("readBacklen(putBacklen(%d)) = %d", tt.l, got)
		}
	}
}

// parseIntTests follow lpStringToInt64: canonical decimal int64 only.
var parseIntTests = []struct {
	s  string
	v  int64
	ok bool
}{
	{"0", 0, true},
	{"7", 7, true},
	{"-7", -7, true},
	{"9223372036854775807", math.MaxInt64, true},
	{"-9223372036854775808", math.MinInt64, true},
	{"9223372036854775808", 0, false},
	{"-9223372036854775809", 0, false},
	{"18446744073709551615", 0, false},
	{"18446744073709551616", 0, false},
	{"99999999999999999999", 0, false},
	{"-99999999999999999999", 0, false},
	{"100000000000000000000", 0, false},
	{"", 0, false},
	{"-", 0, false},
	{"-0", 0, false},
	{"00", 0, false},
	{"01", 0, false},
	{"+1", 0, false},
	{" 1", 0, false},
	{"1 ", 0, false},
	{"1a", 0, false},
	{"1.0", 0, false},
	{"--1", 0, false},
}

func TestParseIntIsCanonical(t *testing.T) {
	for i, tt := range parseIntTests {
		v, ok := parseInt([]byte(tt.s))
		if ok != tt.ok || v != tt.v {
			t.Errorf("#%d parseInt(%q) = %d, %v, want %d, %v", i, tt.s, v, ok, tt.v, tt.ok)
		}
	}
}

// build returns a listpack of elems, appended as strings.
func build(elems ...string) []byte {
	lp := New(nil)
	for _, e := range elems {
		lp = AppendString(lp, []byte(e))
	}
	return lp
}

// values returns lp's entries as strings, walking forward, and checks that
// walking backward gives the same.
func values(t *testing.T, lp []byte) []string {
	t.Helper()
	var fwd, back []string
	for off := First(lp); off >= 0; off = Next(lp, off) {
		fwd = append(fwd, string(Value(lp, off, nil)))
	}
	for off := Last(lp); off >= 0; off = Prev(lp, off) {
		back = append([]string{string(Value(lp, off, nil))}, back...)
	}
	if strings.Join(fwd, "\x00") != strings.Join(back, "\x00") || len(fwd) != len(back) {
		t.Fatalf("forward %q, backward %q", fwd, back)
	}
	if Len(lp) != len(fwd) {
		t.Fatalf("Len %d, %d entries", Len(lp), len(fwd))
	}
	if err := Validate(lp); err != nil {
		t.Fatal(err)
	}
	return fwd
}

func TestNewIsEmpty(t *testing.T) {
	lp := New(make([]byte, 3, 64))
	if want := []byte{7, 0, 0, 0, 0, 0, 0xFF}; !bytes.Equal(lp, want) {
		t.Fatalf("New = %x, want %x", lp, want)
	}
	if Len(lp) != 0 || First(lp) != -1 || Last(lp) != -1 || Seek(lp, 0) != -1 || Seek(lp, -1) != -1 {
		t.Fatal("empty listpack has entries")
	}
	if Find(lp, First(lp), []byte("a"), 0) != -1 {
		t.Fatal("Find in an empty listpack")
	}
	if !SafeToAdd(lp, MaxSafeSize-EmptySize) || SafeToAdd(lp, MaxSafeSize-EmptySize+1) {
		t.Fatal("SafeToAdd does not stop at 1 GiB")
	}
}

func TestSeekNegativeIndexes(t *testing.T) {
	elems := []string{"a", "1", "bb", "-5", "ccc", "70000"}
	lp := build(elems...)
	for i := -len(elems) - 2; i < len(elems)+2; i++ {
		off := Seek(lp, i)
		j := i
		if j < 0 {
			j += len(elems)
		}
		if j < 0 || j >= len(elems) {
			if off != -1 {
				t.Errorf("Seek(%d) = %d, want -1", i, off)
			}
			continue
		}
		if got := string(Value(lp, off, nil)); got != elems[j] {
			t.Errorf("Seek(%d) → %q, want %q", i, got, elems[j])
		}
	}
}

func TestInsertReplaceDelete(t *testing.T) {
	lp := build("a", "b", "c")
	lp = Insert(lp, Seek(lp, 1), []byte("12"))                    // a 12 b c
	lp = Insert(lp, End(lp), []byte("z"))                         // a 12 b c z
	lp = InsertInt(lp, First(lp), -300)                           // -300 a 12 b c z
	lp = Replace(lp, Seek(lp, 3), bytes.Repeat([]byte("y"), 100)) // b → y*100
	lp = ReplaceInt(lp, Seek(lp, -1), 1<<40)
	want := []string{"-300", "a", "12", strings.Repeat("y", 100), "c", strconv.Itoa(1 << 40)}
	if got := values(t, lp); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("got %q, want %q", got, want)
	}
	off := Seek(lp, 1)
	lp = Delete(lp, off, 2) // a, 12
	if got := string(Value(lp, off, nil)); got != want[3] {
		t.Fatalf("after Delete the entry at off is %q, want %q", got, want[3])
	}
	lp = Delete(lp, Seek(lp, -2), 10) // the last two, though 10 were asked
	want = []string{"-300", strings.Repeat("y", 100)}
	if got := values(t, lp); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("got %q, want %q", got, want)
	}
	lp = Delete(lp, First(lp), 2)
	if !bytes.Equal(lp, New(nil)) {
		t.Fatalf("emptied listpack %x", lp)
	}
	if got := Delete(lp, End(lp), 1); !bytes.Equal(got, lp) {
		t.Fatal("Delete at the terminator changed the listpack")
	}
}

// TestFindComparesBothForms: an integer entry matches its canonical string,
// a string entry matches byte for byte, and skip steps over values.
func TestFindComparesBothForms(t *testing.T) {
	lp := build("f1", "v1", "100", "a", "b", "100", "-0", "x", "012", "y")
	for _, tt := range []struct {
		elem string
		skip int
		want int // index, -1 for none
	}{
		{"f1", 1, 0},
		{"v1", 1, -1}, // only at value positions
		{"v1", 0, 1},
		{"100", 1, 2},
		{"100", 0, 2},
		{"a", 1, -1},
		{"-0", 1, 6}, // stored as a string, matched as one
		{"0", 1, -1},
		{"012", 1, 8},
		{"12", 1, -1},
		{"y", 1, -1},
		{"y", 0, 9},
	} {
		got := Find(lp, First(lp), []byte(tt.elem), tt.skip)
		want := -1
		if tt.want >= 0 {
			want = Seek(lp, tt.want)
		}
		if got != want {
			t.Errorf("Find(%q, skip %d) = %d, want %d", tt.elem, tt.skip, got, want)
		}
	}
	// From the middle.
	if got, want := Find(lp, Seek(lp, 3), []byte("100"), 1), Seek(lp, 5); got != want {
		t.Errorf("Find from index 3 = %d, want %d", got, want)
	}
}

// TestSaturatedCount: past 65534 entries the header says 65535 and Len
// walks; deleting keeps the header saturated, as Redis does.
func TestSaturatedCount(t *testing.T) {
	lp := New(make([]byte, 0, 3*70000))
	for i := 0; i < 65536; i++ {
		lp = AppendInt(lp, int64(i%100))
	}
	if c := int(lp[4]) | int(lp[5])<<8; c != unknownCount {
		t.Fatalf("header count %d", c)
	}
	if Len(lp) != 65536 || Validate(lp) != nil {
		t.Fatalf("Len %d, Validate %v", Len(lp), Validate(lp))
	}
	if off := Seek(lp, -1); off != Last(lp) || Value(lp, off, nil)[0] != '3' {
		t.Fatal("Seek(-1) is not the last entry")
	}
	lp = Delete(lp, First(lp), 2)
	if c := int(lp[4]) | int(lp[5])<<8; c != unknownCount || Len(lp) != 65534 || Validate(lp) != nil {
		t.Fatalf("after Delete: header %d, Len %d", c, Len(lp))
	}
}

// TestMutatorsEditInPlaceWithRoom: with enough capacity no mutator
// allocates, and the result shares lp's array.
func TestMutatorsEditInPlaceWithRoom(t *testing.T) {
	lp := New(make([]byte, 0, 4096))
	base := &lp[:1][0]
	long := bytes.Repeat([]byte("v"), 100)
	allocs := testing.AllocsPerRun(100, func() {
		lp = AppendString(lp, []byte("field"))
		lp = AppendString(lp, []byte("12345"))
		lp = Insert(lp, First(lp), long)
		lp = Replace(lp, First(lp), []byte("short"))
		lp = Delete(lp, First(lp), 3)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run", allocs)
	}
	if &lp[0] != base {
		t.Fatal("the listpack moved")
	}
	// Without room, the mutator copies into a new array and leaves lp alone.
	small := New(make([]byte, 0, EmptySize))
	grown := AppendString(small, []byte("x"))
	if !bytes.Equal(small, New(nil)) || len(grown) != EmptySize+3 {
		t.Fatalf("small %x grown %x", small, grown)
	}
}

// validateTests damage a good listpack and name the offset Validate
// must report.
var validateTests = []struct {
	name string
	lp   string // hex
	off  int
}{
	{"empty input", "", 0},
	{"too short", "060000000000", 0},
	{"total too big", "080000000000ff", 0},
	{"no terminator", "07000000000000", 6},
	{"count says 2", "0a00000002008161" + "02" + "ff", 4},
	{"bad backlen", "0a0000000100816103ff", 8},
	{"invalid encoding", "09000000010 0f501ff", 6},
	{"early terminator", "0a000000010 0ff0102ff", 6},
	{"string past end", "0a0000000100856102ff", 6},
	{"12-bit header cut", "08000000010 0e0ff", 6},
	{"32-bit length huge", "0e000000010 0f0ffffffff0002ff", 6},
	{"64-bit int cut", "0c000000 0100 f400000000 ff", 6},
	{"backlen past end", "09000000010 08161ff", 8},
}

func TestValidateNamesTheDamage(t *testing.T) {
	for i, tt := range validateTests {
		lp := mustHex(t, tt.lp)
		err := Validate(lp)
		ce, ok := err.(*CorruptError)
		if !ok {
			t.Errorf("#%d %s: Validate(%x) = %v, want a *CorruptError", i, tt.name, lp, err)
			continue
		}
		if ce.Offset != tt.off {
			t.Errorf("#%d %s: offset %d (%v), want %d", i, tt.name, ce.Offset, err, tt.off)
		}
	}
	// A backlen spelled as Redis accepts it but does not write it: 0x81
	// after the entry 0x00 reads back as 1.
	if lp := mustHex(t, "09000000 0100 00 81 ff"); Validate(lp) != nil || Last(lp) != HeaderSize {
		t.Errorf("Validate(%x) = %v, Last %d", lp, Validate(lp), Last(lp))
	}
	// Every strict prefix of a good listpack is refused.
	lp := build("a", "12", strings.Repeat("s", 200), "-70000")
	for i := range lp {
		if Validate(lp[:i]) == nil {
			t.Errorf("prefix of %d bytes validates", i)
		}
	}
}

// validatePairsTests: fields repeat when their Value forms are equal, so
// the integer 12 and the string "12" (which Redis would not write, but
// accepts) are one field.
var validatePairsTests = []struct {
	name string
	lp   []byte
	off  int // -1: valid
}{
	{"pairs", build("a", "1", "b", "2"), -1},
	{"values may repeat", build("a", "1", "b", "1"), -1},
	{"-0 and 0 differ", build("-0", "x", "0", "y"), -1},
	{"empty", New(nil), -1},
	{"odd", build("a", "1", "b"), 11},
	{"repeated field", build("a", "1", "b", "2", "a", "3"), 16},
	{"12 and \"12\"", rawListpack([]byte{0x0C}, []byte{0x01}, []byte{0x82, '1', '2'}, []byte{0x02}), 10},
}

func TestValidatePairsRefusesRepeatsAndOddCounts(t *testing.T) {
	for i, tt := range validatePairsTests {
		err := ValidatePairs(tt.lp)
		if tt.off < 0 {
			if err != nil {
				t.Errorf("#%d %s: %v", i, tt.name, err)
			}
			continue
		}
		if ce, ok := err.(*CorruptError); !ok || ce.Offset != tt.off {
			t.Errorf("#%d %s: %v, want offset %d", i, tt.name, err, tt.off)
		}
	}
}
