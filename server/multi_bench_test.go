package server

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkMultiExec10Sets runs MULTI, 10 SETs on keys of different
// shards and EXEC through execute: the in-process cost of a transaction.
func BenchmarkMultiExec10Sets(b *testing.B) {
	s, cl, scratch := newAllocServer(b, nil)
	var in strings.Builder
	in.WriteString(multibulk("MULTI"))
	for i := 0; i < 10; i++ {
		in.WriteString(multibulk("SET", fmt.Sprintf("key:%d", i), "value"))
	}
	in.WriteString(multibulk("EXEC"))
	buf := []byte(in.String())
	out := make([]byte, 0, 4096)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, out, _ = s.execute(cl, buf, out[:0], allocNow, scratch)
	}
}
