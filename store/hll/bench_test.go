package hll

import (
	"strconv"
	"testing"
)

func BenchmarkHash(b *testing.B) {
	ele := []byte("element:123456")
	b.SetBytes(int64(len(ele)))
	b.ReportAllocs()
	for b.Loop() {
		Hash(ele)
	}
}

// denseOf returns a dense value holding n elements.
func denseOf(n int) []byte {
	v := make([]byte, DenseSize)
	copy(v, "HYLL")
	for i := 0; i < n; i++ {
		index, count := Hash([]byte(strconv.Itoa(i)))
		DenseAdd(v, index, count)
	}
	return v
}

func BenchmarkDenseAdd(b *testing.B) {
	v := denseOf(10000)
	index, count := Hash([]byte("17"))
	b.ReportAllocs()
	for b.Loop() {
		DenseAdd(v, index, count)
	}
}

func BenchmarkCount(b *testing.B) {
	b.Run("dense", func(b *testing.B) {
		v := denseOf(100000)
		b.ReportAllocs()
		for b.Loop() {
			Count(v)
		}
	})
	b.Run("sparse", func(b *testing.B) {
		v := AppendEmpty(make([]byte, 0, 4096))
		for i := 0; i < 500; i++ {
			index, count := Hash([]byte(strconv.Itoa(i)))
			v, _ = SparseAdd(v, index, count, 4000)
		}
		b.SetBytes(int64(len(v)))
		b.ReportAllocs()
		for b.Loop() {
			Count(v)
		}
	})
}
