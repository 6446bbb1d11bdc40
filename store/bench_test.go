package store

import (
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

func benchStore(b *testing.B, keys int) (*Store, [][]byte) {
	s := New(Options{})
	ks := make([][]byte, keys)
	for i := range ks {
		ks[i] = []byte(fmt.Sprintf("key:%08d", i))
		s.Set(0, ks[i], []byte("0123456789abcdef"), t0, SetOptions{})
	}
	return s, ks
}

func BenchmarkGet(b *testing.B) {
	for _, n := range []int{1, 100000} {
		b.Run("keys="+strconv.Itoa(n), func(b *testing.B) {
			s, ks := benchStore(b, n)
			dst := make([]byte, 0, 64)
			b.SetBytes(16)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				dst, _ = s.Get(0, ks[i%n], t0, dst[:0], rawEnc)
				i++
			}
		})
	}
}

func BenchmarkGetMiss(b *testing.B) {
	s, _ := benchStore(b, 1000)
	key := []byte("missing")
	b.ReportAllocs()
	for b.Loop() {
		s.Get(0, key, t0, nil, rawEnc)
	}
}

func BenchmarkSetExisting(b *testing.B) {
	s, ks := benchStore(b, 1000)
	val := []byte("fedcba9876543210")
	b.SetBytes(int64(len(val)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s.Set(0, ks[i%len(ks)], val, t0, SetOptions{})
		i++
	}
}

func BenchmarkSetEXExisting(b *testing.B) {
	s, ks := benchStore(b, 1000)
	val := []byte("fedcba9876543210")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s.Set(0, ks[i%len(ks)], val, t0, SetOptions{ExpireAt: t0 + 10000})
		i++
	}
}

func BenchmarkIncr(b *testing.B) {
	s := New(Options{})
	key := []byte("counter")
	s.IncrBy(0, key, t0, 1)
	b.ReportAllocs()
	for b.Loop() {
		s.IncrBy(0, key, t0, 1)
	}
}

// BenchmarkParallel runs GET and SET from several goroutines (loops) over
// many keys, measuring cross-shard lock contention.
func BenchmarkParallel(b *testing.B) {
	for _, shards := range []int{1, 64} {
		b.Run("shards="+strconv.Itoa(shards), func(b *testing.B) {
			s := New(Options{Shards: shards})
			ks := make([][]byte, 4096)
			for i := range ks {
				ks[i] = []byte(fmt.Sprintf("key:%08d", i))
				s.Set(0, ks[i], []byte("0123456789abcdef"), t0, SetOptions{})
			}
			var seed atomic.Uint64
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				i := int(seed.Add(7919))
				dst := make([]byte, 0, 64)
				val := []byte("fedcba9876543210")
				for pb.Next() {
					k := ks[i%len(ks)]
					if i%4 == 0 {
						s.Set(0, k, val, t0, SetOptions{})
					} else {
						dst, _ = s.Get(0, k, t0, dst[:0], rawEnc)
					}
					i++
				}
			})
		})
	}
}

func BenchmarkActiveExpireCycle(b *testing.B) {
	s := New(Options{})
	for i := 0; i < 100000; i++ {
		s.Set(0, []byte(fmt.Sprint("k", i)), []byte("v"), t0, SetOptions{ExpireAt: t0 + 1_000_000})
	}
	b.ReportAllocs()
	for b.Loop() {
		s.ActiveExpireCycle(t0, time.Millisecond)
	}
}

func TestZeroAllocHotPaths(t *testing.T) {
	s := New(Options{})
	key, val := []byte("k"), []byte("value")
	s.Set(0, key, val, t0, SetOptions{})
	s.Set(0, []byte("n"), []byte("41"), t0, SetOptions{})
	dst := make([]byte, 0, 64)
	mgetKeys := [][]byte{key, []byte("n"), []byte("nope")}
	cases := map[string]func(){
		"Get":        func() { dst, _ = s.Get(0, key, t0, dst[:0], rawEnc) },
		"GetMiss":    func() { s.Get(0, []byte("nope"), t0, dst[:0], rawEnc) },
		"Set":        func() { s.Set(0, key, val, t0, SetOptions{}) },
		"SetNX":      func() { s.Set(0, key, val, t0, SetOptions{Mode: SetNX}) },
		"SetXX":      func() { s.Set(0, key, val, t0, SetOptions{Mode: SetXX}) },
		"SetEX":      func() { s.Set(0, key, val, t0, SetOptions{ExpireAt: t0 + 1000}) },
		"IncrBy":     func() { s.IncrBy(0, []byte("n"), t0, 3) },
		"IncrByNeg":  func() { s.IncrBy(0, []byte("n"), t0, -1_000_000) },
		"Exists":     func() { s.Exists(0, key, t0) },
		"CountExist": func() { s.CountExisting(0, mgetKeys, t0) },
		"ExpireAt":   func() { s.ExpireAt(0, key, t0) },
		"Expire":     func() { s.Expire(0, key, t0, t0+5000, 0) },
		"GetRange":   func() { dst, _ = s.GetRange(0, key, t0, 1, 3, dst[:0], rawEnc) },
		"SetGet":     func() { dst, _, _ = s.SetGet(0, key, val, t0, SetOptions{}, dst[:0], rawEnc) },
		"StrLen":     func() { s.StrLen(0, key, t0) },
		"MGet":       func() { dst = s.MGet(0, mgetKeys, t0, dst[:0], rawEnc, rawMissing) },
		"PersistNop": func() { s.Persist(0, []byte("n"), t0) },
	}
	for name, fn := range cases {
		if a := testing.AllocsPerRun(100, fn); a != 0 {
			t.Errorf("%s: %v allocs, want 0", name, a)
		}
	}
}

func rawMissing(dst []byte) []byte { return append(dst, '-') }

// BenchmarkKeySlot is the slot of keys of common lengths, no hash tag.
func BenchmarkKeySlot(b *testing.B) {
	for _, key := range []string{"foo", "user:1234", "key:__rand_int__", "session:7f3a9c2e:profile", "object:0123456789abcdef0123456789abcdef"} {
		b.Run(fmt.Sprint(len(key)), func(b *testing.B) {
			k := []byte(key)
			for b.Loop() {
				KeySlot(k)
			}
		})
	}
}
