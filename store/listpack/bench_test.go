package listpack

import (
	"strconv"
	"testing"
)

// benchHash is a 128-field hash listpack (Redis's default
// hash-max-listpack-entries) of short fields and values.
func benchHash() []byte {
	lp := New(nil)
	for i := 0; i < 128; i++ {
		lp = AppendString(lp, []byte("field:"+strconv.Itoa(i)))
		lp = AppendString(lp, []byte("value-"+strconv.Itoa(i*7)))
	}
	return lp
}

func BenchmarkFind(b *testing.B) {
	lp := benchHash()
	for _, tt := range []struct{ name, elem string }{{"field=first", "field:0"}, {"field=last", "field:127"}, {"field=missing", "nope"}} {
		b.Run(tt.name, func(b *testing.B) {
			elem := []byte(tt.elem)
			b.ReportAllocs()
			b.SetBytes(int64(len(lp)))
			for b.Loop() {
				Find(lp, First(lp), elem, 1)
			}
		})
	}
}

func BenchmarkGet(b *testing.B) {
	lp := benchHash()
	off := Find(lp, First(lp), []byte("field:64"), 1)
	b.ReportAllocs()
	for b.Loop() {
		Get(lp, off)
		Get(lp, Next(lp, off))
	}
}

func BenchmarkSeek(b *testing.B) {
	lp := benchHash()
	b.ReportAllocs()
	for b.Loop() {
		Seek(lp, 100)
		Seek(lp, -3)
	}
}

// BenchmarkAppend fills a listpack with capacity reserved up front: no
// allocations.
func BenchmarkAppend(b *testing.B) {
	field, value := []byte("field:1234"), []byte("12345")
	lp := New(make([]byte, 0, 4096))
	b.ReportAllocs()
	for b.Loop() {
		lp = New(lp)
		for i := 0; i < 100; i++ {
			lp = AppendString(lp, field)
			lp = AppendString(lp, value)
		}
	}
}

func BenchmarkInsertReplaceDelete(b *testing.B) {
	lp := benchHash()
	lp = append(make([]byte, 0, len(lp)+256), lp...)
	v := []byte("a-longer-value-than-before")
	b.ReportAllocs()
	for b.Loop() {
		off := Find(lp, First(lp), []byte("field:64"), 1)
		lp = Insert(lp, off, v)
		lp = Replace(lp, off, []byte("x"))
		lp = Delete(lp, off, 1)
	}
}

func BenchmarkValidate(b *testing.B) {
	lp := benchHash()
	b.ReportAllocs()
	b.SetBytes(int64(len(lp)))
	for b.Loop() {
		if Validate(lp) != nil {
			b.Fatal("invalid")
		}
	}
}
