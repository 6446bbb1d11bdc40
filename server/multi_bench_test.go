package server

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkMultiExec10Sets runs MULTI, 10 SETs on keys of different
// shards and EXEC through execute: the in-process cost of a transaction.
// BenchmarkPipeline10Sets is the same SETs without MULTI and EXEC: the
// difference is what the transaction adds.
func BenchmarkMultiExec10Sets(b *testing.B) { benchSets(b, true) }

func BenchmarkPipeline10Sets(b *testing.B) { benchSets(b, false) }

func benchSets(b *testing.B, multi bool) {
	s, cl, scratch := newAllocServer(b, nil)
	var in strings.Builder
	if multi {
		in.WriteString(multibulk("MULTI"))
	}
	for i := 0; i < 10; i++ {
		in.WriteString(multibulk("SET", fmt.Sprintf("key:%d", i), "value"))
	}
	if multi {
		in.WriteString(multibulk("EXEC"))
	}
	buf := []byte(in.String())
	out := make([]byte, 0, 4096)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, out, _ = s.execute(cl, buf, out[:0], allocNow, scratch)
	}
}
