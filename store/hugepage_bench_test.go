//go:build linux

package store

import (
	"math/rand/v2"
	"runtime"
	"testing"
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
	n := envInt("HUGE_KEYS", 1_000_000)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	load := func(off bool) *Store {
		hugeOff = off
		defer func() { hugeOff = false }()
		s := New(Options{})
		scaleLoad(s, n, new(opTimer))
		finishRehash(s)
		return s
	}
	heap, huge := load(true), load(false)
	const round = 200_000
	var key []byte
	dst := make([]byte, 0, 64)
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	ns := alternateCPU(b, round, func(which, op int) {
		s := heap
		if which == 1 {
			s = huge
		}
		for range round {
			key = scaleKey(key, "lkb:", rng.IntN(n))
			if op == 0 {
				dst, _ = s.Get(0, key, t0, dst[:0], rawEnc)
			} else {
				s.Set(0, key, scaleValue, t0, SetOptions{})
			}
		}
	})
	reportPair(b, ns, "heap", "huge")
	runtime.KeepAlive(heap)
	runtime.KeepAlive(huge)
}
