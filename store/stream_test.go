package store

import (
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"
)

// TestStreamGCScanWorkDoesNotGrowWithEntries: 300,000 entries in one
// stream and 20,000 small streams leave the collector's scannable heap
// well under a pointer per entry or per key: nodes and the ID index are
// arena chunks named by refs. Deleting them all returns every byte the
// store counted.
func TestStreamGCScanWorkDoesNotGrowWithEntries(t *testing.T) {
	sample := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}}
	scan := func() uint64 {
		runtime.GC()
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	s := New(Options{})
	before := scan()
	const entries, keys = 300_000, 20_000
	fv := [][]byte{[]byte("field"), []byte("value"), []byte("n"), nil}
	for i := range entries {
		fv[3] = strconv.AppendInt(fv[3][:0], int64(i), 10)
		if _, _, st := s.XAdd(0, []byte("big"), fv, &XAddOptions{}, t0+int64(i/10)); st != OK {
			t.Fatal(st)
		}
	}
	for i := range keys {
		if _, _, st := s.XAdd(0, []byte("s:"+strconv.Itoa(i)), fv, &XAddOptions{}, t0); st != OK {
			t.Fatal(st)
		}
	}
	after := scan()
	grown := int64(after) - int64(before)
	if per := float64(grown) / (entries + keys); per > 1 {
		t.Fatalf("scannable heap grew by %d bytes for %d entries and %d streams (%.2f per item); want well under a pointer each",
			grown, entries, keys, per)
	}
	if n, _ := s.XLen(0, []byte("big"), t0); n != entries {
		t.Fatalf("XLen = %d", n)
	}
	if m := s.UsedMemory(); m < entries*10 {
		t.Fatalf("UsedMemory = %d for %d entries", m, entries)
	}
	s.Del(0, []byte("big"), t0)
	for i := range keys {
		s.Del(0, []byte("s:"+strconv.Itoa(i)), t0)
	}
	if m := s.UsedMemory(); m != 0 {
		t.Fatalf("UsedMemory = %d after deleting every stream", m)
	}
	runtime.KeepAlive(s)
}
