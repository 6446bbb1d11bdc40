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

// BenchmarkScalePrefetch measures Prefetch where it is meant to pay: a
// keyspace of PREFETCH_KEYS keys (default 1,000,000; the study uses 10M),
// read and overwritten in batches of 16 random keys, as a pipeline of 16
// runs them, with and without a Prefetch of the batch's keys first. Rounds
// of each alternate on the same store and are timed in thread CPU time, so
// descheduling by the neighbours does not count. Each b.N iteration is one
// round of 200,000 operations per mode and op. With PREFETCH_REHASH=1 the
// rounds start before the last growth's rehash is finished, as on a server
// just filled (at 10M keys about 6.8M buckets are left, which 3 iterations
// do not finish).
//
//	PREFETCH_KEYS=10000000 go test -tags poll_opt -run '^$' -bench ScalePrefetch -benchtime 10x ./store
//	PREFETCH_REHASH=1 PREFETCH_KEYS=10000000 go test -tags poll_opt -run '^$' -bench ScalePrefetch -benchtime 3x ./store
func BenchmarkScalePrefetch(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("PREFETCH_KEYS")); err == nil && v > 0 {
		n = v
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s := New(Options{})
	scaleLoad(s, n, new(opTimer))
	if os.Getenv("PREFETCH_REHASH") == "" { // set, the rounds run in the last growth's rehash
		for range 1000 { // finish the last growth's rehash
			s.RehashCycle(10 * time.Millisecond)
		}
	}
	const batch, round = 16, 200_000
	var keys [batch][]byte
	for i := range keys {
		keys[i] = make([]byte, 0, 14)
	}
	var cpu [2][2]time.Duration // [plain, prefetch][get, set]
	dst := make([]byte, 0, 64)
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		for j := range 2 {
			pf := (i + j) % 2 // alternate which mode goes first
			for op := range 2 {
				t := threadCPU()
				for range round / batch {
					for k := range keys {
						keys[k] = scaleKey(keys[k], "lkb:", rng.IntN(n))
					}
					if pf == 1 {
						s.Prefetch(0, keys[:])
					}
					for _, key := range keys {
						if op == 0 {
							dst, _ = s.Get(0, key, t0, dst[:0], rawEnc)
						} else {
							s.Set(0, key, scaleValue, t0, SetOptions{})
						}
					}
				}
				cpu[pf][op] += threadCPU() - t
			}
		}
	}
	ops := float64(b.N * round / batch * batch)
	for op, name := range []string{"get", "set"} {
		p, q := float64(cpu[0][op].Nanoseconds())/ops, float64(cpu[1][op].Nanoseconds())/ops
		b.ReportMetric(p, "plain-cpu-ns/"+name)
		b.ReportMetric(q, "prefetch-cpu-ns/"+name)
		b.ReportMetric(q/p, "prefetch/plain-"+name)
	}
	runtime.KeepAlive(s)
}
