package listpack

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
)

// fuzzLengths are string lengths at the encoding and backlen limits.
var fuzzLengths = []int{0, 1, 63, 64, 125, 126, 4095, 4096, 16377, 16378}

// fuzzValue draws one element from the op stream: a boundary integer, a
// small integer, a string at a length limit, or raw bytes from the input.
func fuzzValue(a, b byte, rest *[]byte) string {
	switch a % 8 {
	case 0:
		return strconv.FormatInt(intEncodingTests[int(b)%len(intEncodingTests)].v, 10)
	case 1:
		return strconv.Itoa(int(int8(b)) * 37)
	case 2:
		return strings.Repeat(string(rune('a'+b%26)), fuzzLengths[int(b)%len(fuzzLengths)])
	}
	n := min(int(a>>3), len(*rest))
	s := string((*rest)[:n])
	*rest = (*rest)[n:]
	return s
}

// checkModel walks lp both ways and compares every entry, Len, Seek (at
// both ends and the middle, from the front and the back) and Validate with
// the model.
func checkModel(t *testing.T, lp []byte, model []string) {
	t.Helper()
	if err := Validate(lp); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if Len(lp) != len(model) {
		t.Fatalf("Len %d, model %d", Len(lp), len(model))
	}
	i := 0
	for off := First(lp); off >= 0; off = Next(lp, off) {
		if got := string(Value(lp, off, nil)); i >= len(model) || got != model[i] {
			t.Fatalf("entry %d = %q, model %q", i, got, model)
		}
		if (i == 0 || i == len(model)/2 || i == len(model)-1) && (Seek(lp, i) != off || Seek(lp, i-len(model)) != off) {
			t.Fatalf("Seek(%d) = %d, Seek(%d) = %d, walk %d", i, Seek(lp, i), i-len(model), Seek(lp, i-len(model)), off)
		}
		i++
	}
	for off := Last(lp); off >= 0; off = Prev(lp, off) {
		i--
		if got := string(Value(lp, off, nil)); got != model[i] {
			t.Fatalf("backward entry %d = %q, model %q", i, got, model[i])
		}
	}
	if i != 0 {
		t.Fatalf("backward walk stopped at %d", i)
	}
}

func isIntString(s []byte) bool { _, ok := parseInt(s); return ok }

// modelFind is Find on the model: an entry equals elem exactly when its
// canonical form does, since an integer entry's form is canonical.
func modelFind(model []string, from int, elem string, skip int) int {
	for i := from; i < len(model); i += 1 + skip {
		if model[i] == elem {
			return i
		}
	}
	return -1
}

// FuzzModel runs a sequence of 3-byte ops (op, a, b; raw string bytes
// follow some) on a listpack and on a []string model: append, insert,
// replace, delete, append an integer, and find with and without a skip.
// After each op the listpack must validate and match the model both ways,
// and a mutation with spare capacity must not move it.
func FuzzModel(f *testing.F) {
	f.Add([]byte{0, 0, 3, 0, 2, 6, 1, 1, 9, 2, 0, 17, 5, 0, 3, 3, 0, 1})     // ints and long strings, insert, replace, find
	f.Add([]byte{0, 2, 7, 0, 2, 8, 0, 2, 9, 2, 1, 8, 3, 1, 2, 1, 0x23, 'x'}) // 4096/16378-byte strings, replace, delete
	f.Add([]byte{4, 0x80, 0x7f, 4, 0x10, 0, 0, 0x30, 'a', 'b', 'c', 'd', 'e', 'f', 5, 0x30, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		lp := New(nil)
		var model []string
		for len(ops) >= 3 {
			op, a, b := ops[0], ops[1], ops[2]
			ops = ops[3:]
			n := len(model)
			switch op % 7 {
			case 0:
				v := fuzzValue(a, b, &ops)
				lp = AppendString(lp, []byte(v))
				model = append(model, v)
			case 1:
				v := fuzzValue(a, b, &ops)
				i := int(op>>3) % (n + 1)
				off := End(lp)
				if i < n {
					off = Seek(lp, i)
				}
				want := len(lp) + EncodedSize([]byte(v))
				lp = Insert(lp, off, []byte(v))
				if len(lp) != want {
					t.Fatalf("Insert: size %d, EncodedSize says %d", len(lp), want)
				}
				model = append(model[:i], append([]string{v}, model[i:]...)...)
			case 2:
				v := fuzzValue(a, b, &ops)
				if n == 0 {
					continue
				}
				i := int(op>>3) % n
				off := Seek(lp, i)
				want := len(lp) - EntrySize(lp, off) + EncodedSize([]byte(v))
				lp = Replace(lp, off, []byte(v))
				if len(lp) != want {
					t.Fatalf("Replace: size %d, want %d", len(lp), want)
				}
				model[i] = v
			case 3:
				if n == 0 {
					continue
				}
				i, c := int(a)%n, int(b%4)
				lp = Delete(lp, Seek(lp, i), c)
				model = append(model[:i], model[min(i+c, n):]...)
			case 4:
				v := int64(a)<<56 | int64(b)<<(b%56) ^ int64(int8(op))
				lp = AppendInt(lp, v)
				model = append(model, strconv.FormatInt(v, 10))
			case 5:
				v, skip := fuzzValue(a, b, &ops), int(op>>3)%2
				from := 0
				if n > 0 {
					from = int(b) % n
				}
				got := Find(lp, Seek(lp, from), []byte(v), skip)
				want := modelFind(model, from, v, skip)
				if (want < 0) != (got < 0) || (want >= 0 && Seek(lp, want) != got) {
					t.Fatalf("Find(%q, from %d, skip %d) = %d, model index %d", v, from, skip, got, want)
				}
			case 6:
				// Grow the capacity, then check that an append stays in place.
				lp = append(lp[:len(lp):len(lp)], make([]byte, 64)...)[:len(lp)]
				base := &lp[0]
				lp = AppendString(lp, []byte("k"))
				model = append(model, "k")
				if &lp[0] != base {
					t.Fatal("an append within capacity moved the listpack")
				}
			}
			checkModel(t, lp, model)
		}
	})
}

// FuzzValidate feeds arbitrary bytes to Validate. It must not panic; when it
// accepts them, walking forward and backward, Get, Find and rebuilding from
// the values must work and agree.
func FuzzValidate(f *testing.F) {
	for _, lp := range [][]byte{
		New(nil),
		build("a", "12", "-5000", "hello", strings.Repeat("x", 200), "9223372036854775807"), // mixed encodings
		build(strings.Repeat("y", 4096)), // 32-bit string length
	} {
		f.Add(lp)
	}
	for _, tt := range validateTests { // damaged listpacks
		b, _ := hex.DecodeString(strings.ReplaceAll(tt.lp, " ", ""))
		f.Add(b)
	}
	f.Add([]byte{0x0d, 0, 0, 0, 1, 0, 0xF4, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xFF}) // 64-bit int, wrong total
	f.Fuzz(func(t *testing.T, lp []byte) {
		checkValidated(t, lp)
		// The same bytes under a header that is right by construction
		// (total = size, count "unknown"), so that the fuzzer explores the
		// entries rather than the header.
		if len(lp) >= HeaderSize {
			fixed := append([]byte(nil), lp...)
			binary.LittleEndian.PutUint32(fixed, uint32(len(fixed)))
			fixed[4], fixed[5] = 0xFF, 0xFF
			checkValidated(t, fixed)
		}
	})
}

// checkValidated checks that Validate does not panic on lp and that, when
// it accepts lp, walking forward and backward, Get, Find and rebuilding
// from the values work and agree.
func checkValidated(t *testing.T, lp []byte) {
	err := Validate(lp)
	if err != nil {
		if _, ok := err.(*CorruptError); !ok {
			t.Fatalf("error %T", err)
		}
		return
	}
	var fwd []string
	size := HeaderSize
	for off := First(lp); off >= 0; off = Next(lp, off) {
		fwd = append(fwd, string(Value(lp, off, nil)))
		size += EntrySize(lp, off)
		Get(lp, off)
	}
	if size+1 != len(lp) || Len(lp) != len(fwd) {
		t.Fatalf("entries cover %d of %d bytes; Len %d, walked %d", size+1, len(lp), Len(lp), len(fwd))
	}
	i := len(fwd)
	for off := Last(lp); off >= 0; off = Prev(lp, off) {
		i--
		if i < 0 || string(Value(lp, off, nil)) != fwd[i] {
			t.Fatalf("backward walk disagrees at %d", i)
		}
	}
	if i != 0 {
		t.Fatalf("backward walk found %d fewer entries", i)
	}
	again := New(nil)
	for _, v := range fwd {
		again = AppendString(again, []byte(v))
	}
	for j, v := range fwd {
		if got := string(Value(again, Seek(again, j), nil)); got != v {
			t.Fatalf("rebuilt entry %d = %q, want %q", j, got, v)
		}
		if Find(lp, First(lp), []byte(v), 0) < 0 {
			t.Fatalf("Find(%q) missed an entry", v)
		}
	}
	if Validate(again) != nil || Len(again) != len(fwd) {
		t.Fatalf("rebuilt listpack invalid or of %d entries", Len(again))
	}
	// An entry whose encoding is as long as the canonical encoding of
	// its value is that encoding, byte for byte (the backlen may be spelled
	// otherwise): decode agrees with put.
	for off, j := First(lp), First(again); off >= 0; off, j = Next(lp, off), Next(again, j) {
		s, n, isInt := Get(lp, off)
		e := elem{s: s, v: n, isInt: isInt}
		if e.entryLen() == EntrySize(lp, off) && EntrySize(again, j) == e.entryLen() &&
			(isInt || !isIntString(s)) && !bytes.Equal(lp[off:off+e.encLen()], again[j:j+e.encLen()]) {
			t.Fatalf("entry at %d: %x, canonical %x", off, lp[off:off+e.encLen()], again[j:j+e.encLen()])
		}
	}
}
