package intset

import (
	"encoding/binary"
	"slices"
	"testing"
)

// FuzzModel runs a sequence of 9-byte ops (op, then an 8-byte value scaled
// by the op's top bits so that all widths come up) on an intset and a
// sorted []int64 model: add, remove, find. After each op the intset must
// validate and hold the model's values in order.
func FuzzModel(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 0x40, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0x81, 1, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0xC0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 7, 0, 0, 0, 0, 0, 0, 0, 1, 7, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		is := New(nil)
		var model []int64
		for len(ops) >= 9 {
			op := ops[0]
			u := binary.LittleEndian.Uint64(ops[1:9])
			ops = ops[9:]
			var v int64
			switch op >> 6 { // 16-, 32-, 48- and 64-bit values
			case 0:
				v = int64(int16(u))
			case 1:
				v = int64(int32(u))
			case 2:
				v = int64(u<<16) >> 16
			default:
				v = int64(u)
			}
			i, found := slices.BinarySearch(model, v)
			switch op % 3 {
			case 0:
				var added bool
				is, added = Add(is, v)
				if added == found {
					t.Fatalf("Add(%d) = %v, model has it: %v", v, added, found)
				}
				if !found {
					model = slices.Insert(model, i, v)
				}
			case 1:
				var removed bool
				is, removed = Remove(is, v)
				if removed != found {
					t.Fatalf("Remove(%d) = %v, model has it: %v", v, removed, found)
				}
				if found {
					model = slices.Delete(model, i, i+1)
				}
			case 2:
				if pos, ok := Find(is, v); pos != i || ok != found {
					t.Fatalf("Find(%d) = %d, %v, model %d, %v", v, pos, ok, i, found)
				}
			}
			if err := Validate(is); err != nil {
				t.Fatal(err)
			}
			if Len(is) != len(model) {
				t.Fatalf("Len %d, model %d", Len(is), len(model))
			}
			for j, m := range model {
				if Get(is, j) != m {
					t.Fatalf("Get(%d) = %d, model %d", j, Get(is, j), m)
				}
			}
			if w := Encoding(is); len(model) > 0 && (widthOf(model[0]) > w || widthOf(model[len(model)-1]) > w) {
				t.Fatalf("width %d too narrow for %v", w, model)
			}
		}
	})
}

// FuzzValidate feeds arbitrary bytes to Validate, as is and under a header
// whose length matches the size. It must not panic; when it accepts them,
// every value must be found at its position and Add/Remove must keep the
// intset valid.
func FuzzValidate(f *testing.F) {
	f.Add([]byte{2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 2, 0})
	f.Add([]byte{8, 0, 0, 0, 1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{4, 0, 0, 0, 9, 0, 0, 0, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, is []byte) {
		checkValidated(t, is)
		if len(is) >= HeaderSize {
			fixed := slices.Clone(is)
			if w := int(binary.LittleEndian.Uint32(fixed)); w == 2 || w == 4 || w == 8 {
				binary.LittleEndian.PutUint32(fixed[4:], uint32((len(fixed)-HeaderSize)/w))
				checkValidated(t, fixed[:HeaderSize+(len(fixed)-HeaderSize)/w*w])
			}
		}
	})
}

func checkValidated(t *testing.T, is []byte) {
	if err := Validate(is); err != nil {
		if _, ok := err.(*CorruptError); !ok {
			t.Fatalf("error %T", err)
		}
		return
	}
	n := Len(is)
	for i := 0; i < n; i++ {
		v := Get(is, i)
		if pos, ok := Find(is, v); !ok || pos != i {
			t.Fatalf("Find(Get(%d) = %d) = %d, %v", i, v, pos, ok)
		}
		if i > 0 && v <= Get(is, i-1) {
			t.Fatalf("value %d not increasing", i)
		}
	}
	if n > 0 {
		c := slices.Clone(is)
		c, _ = Remove(c, Max(is))
		c, _ = Add(c, Min(is)-1)
		if Validate(c) != nil || Len(c) != n {
			t.Fatalf("after Remove and Add: %v, len %d", Validate(c), Len(c))
		}
	}
}
