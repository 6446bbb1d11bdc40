package intset

import "testing"

// benchSet is a 512-value intset (Redis's default set-max-intset-entries)
// of width 4.
func benchSet() []byte {
	is := New(nil)
	for i := int64(0); i < 512; i++ {
		is, _ = Add(is, i*1000)
	}
	return is
}

func BenchmarkFind(b *testing.B) {
	is := benchSet()
	b.ReportAllocs()
	for b.Loop() {
		Find(is, 256000)
		Find(is, 256001)
	}
}

func BenchmarkGet(b *testing.B) {
	is := benchSet()
	b.ReportAllocs()
	for b.Loop() {
		Get(is, 300)
	}
}

// BenchmarkAddRemove adds and removes a value in the middle of a set with
// spare capacity: no allocations.
func BenchmarkAddRemove(b *testing.B) {
	is := benchSet()
	is = append(make([]byte, 0, len(is)+64), is...)
	b.ReportAllocs()
	for b.Loop() {
		is, _ = Add(is, 123456)
		is, _ = Remove(is, 123456)
	}
}

func BenchmarkValidate(b *testing.B) {
	is := benchSet()
	b.ReportAllocs()
	b.SetBytes(int64(len(is)))
	for b.Loop() {
		if Validate(is) != nil {
			b.Fatal("invalid")
		}
	}
}
