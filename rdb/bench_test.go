package rdb

import (
	"bytes"
	"io"
	"strconv"
	"testing"

	"github.com/loopkv/loopkv/store"
)

// benchStore holds n small strings ("key:N" = "value:N").
func benchStore(b *testing.B, n int) *store.Store {
	s := store.New(store.Options{})
	for i := range n {
		k := strconv.AppendInt([]byte("key:"), int64(i), 10)
		v := strconv.AppendInt([]byte("value:"), int64(i), 10)
		s.Set(0, k, v, 0, store.SetOptions{})
	}
	return s
}

const benchKeys = 1_000_000

// BenchmarkWrite1MStrings writes a snapshot of 1M small strings (to
// io.Discard); MB/s is of the RDB bytes.
func BenchmarkWrite1MStrings(b *testing.B) {
	s := benchStore(b, benchKeys)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		sn := s.Snapshot()
		st, err := Write(io.Discard, sn, Options{Compress: true, Checksum: true})
		sn.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(st.Bytes)
	}
}

// BenchmarkLoad1MStrings loads a file of 1M small strings into a new
// store; MB/s is of the RDB bytes.
func BenchmarkLoad1MStrings(b *testing.B) {
	s := benchStore(b, benchKeys)
	sn := s.Snapshot()
	var buf bytes.Buffer
	if _, err := Write(&buf, sn, Options{Compress: true, Checksum: true}); err != nil {
		b.Fatal(err)
	}
	sn.Close()
	p := buf.Bytes()
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		s2 := store.New(store.Options{})
		b.StartTimer()
		st, err := Load(bytes.NewReader(p), s2, LoadOptions{})
		if err != nil || st.Keys != benchKeys {
			b.Fatal(st, err)
		}
	}
}

// BenchmarkDumpPayload serializes values as DUMP does, into a reused
// buffer: no allocation per call.
func BenchmarkDumpPayload(b *testing.B) {
	s := store.New(store.Options{})
	fillStore(b, s)
	for _, key := range []string{"s:raw", "h:lp", "h:big", "z:skip", "l:big", "set:strs"} {
		b.Run(key, func(b *testing.B) {
			var buf []byte
			b.ReportAllocs()
			for range b.N {
				s.View(0, []byte(key), 0, func(v *store.Value) { buf = DumpPayload(buf[:0], v) })
			}
			b.SetBytes(int64(len(buf)))
		})
	}
}
