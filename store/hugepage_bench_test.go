//go:build linux

package store

import (
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// BenchmarkScaleHugePages loads the same keyspace twice in one process,
// once with arena pages in the heap and once on huge-page regions, then
// alternates rounds of random GETs (and SET overwrites) on each, timing
// every round in thread CPU time: a same-run ratio that a shared machine's
// descheduling does not distort (its cache pollution hits both alike).
// HUGE_KEYS sets the keyspace (default 1,000,000; the study uses 10M).
// Each b.N iteration is one round of 200,000 operations per store and op.
//
//	HUGE_KEYS=10000000 go test -tags poll_opt -run '^$' -bench ScaleHugePages -benchtime 10x ./store
func BenchmarkScaleHugePages(b *testing.B) {
	if !hugeSupported {
		b.Skip("no huge-page regions on this system")
	}
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("HUGE_KEYS")); err == nil && v > 0 {
		n = v
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	load := func(off bool) *Store {
		hugeOff = off
		defer func() { hugeOff = false }()
		s := New(Options{})
		scaleLoad(s, n, new(opTimer))
		for range 1000 { // finish the last growth's rehash
			s.RehashCycle(10 * time.Millisecond)
		}
		return s
	}
	heap, huge := load(true), load(false)
	const round = 200_000
	var cpu [2][2]time.Duration // [heap, huge][get, set]
	var key []byte
	dst := make([]byte, 0, 64)
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		for j := range 2 {
			which := (i + j) % 2 // alternate which store goes first
			s := heap
			if which == 1 {
				s = huge
			}
			for op := range 2 {
				t := threadCPU()
				for range round {
					key = scaleKey(key, "lkb:", rng.IntN(n))
					if op == 0 {
						dst, _ = s.Get(0, key, t0, dst[:0], rawEnc)
					} else {
						s.Set(0, key, scaleValue, t0, SetOptions{})
					}
				}
				cpu[which][op] += threadCPU() - t
			}
		}
	}
	ops := float64(b.N * round)
	for op, name := range []string{"get", "set"} {
		h, g := float64(cpu[0][op].Nanoseconds())/ops, float64(cpu[1][op].Nanoseconds())/ops
		b.ReportMetric(h, "heap-cpu-ns/"+name)
		b.ReportMetric(g, "huge-cpu-ns/"+name)
		b.ReportMetric(g/h, "huge/heap-"+name)
	}
	runtime.KeepAlive(heap)
	runtime.KeepAlive(huge)
}
