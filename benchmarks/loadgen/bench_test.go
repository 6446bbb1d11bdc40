package loadgen

import (
	"strings"
	"testing"
)

// The client's own per-command work must stay small and allocation-free,
// or the load generator measures itself.

func BenchmarkReadReply(b *testing.B) {
	for _, tt := range []struct {
		name  string
		reply string
	}{
		{"simple", "+OK\r\n"},
		{"bulk=64", "$64\r\n" + string(make([]byte, 64)) + "\r\n"},
		{"mget=10", "*10\r\n" + strings.Repeat("$8\r\nabcdefgh\r\n", 10)},
	} {
		b.Run(tt.name, func(b *testing.B) {
			in := []byte(tt.reply)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if n, _, err := readReply(in); n != len(in) || err != nil {
					b.Fatal(n, err)
				}
			}
		})
	}
}

func BenchmarkGenNext(b *testing.B) {
	for _, spec := range []string{"get=1", "set=1", "get=8,set=2,incr=1,ping=1,mget=1"} {
		b.Run("mix="+spec, func(b *testing.B) {
			g := newGen(mustMix(spec, 100000, "zipf", "64"), 1)
			buf := make([]byte, 0, 64<<10)
			var n int64
			b.ReportAllocs()
			for b.Loop() {
				buf = g.next(buf[:0])
				n += int64(len(buf))
			}
			b.SetBytes(n / int64(max(b.N, 1)))
		})
	}
}

func BenchmarkHistogramQuantile(b *testing.B) {
	h := NewHistogram()
	for i := range 100000 {
		h.Record(int64(i) * 1000)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = h.Quantile(0.999)
	}
}
