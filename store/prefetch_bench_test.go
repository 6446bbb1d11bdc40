//go:build linux

package store

import (
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
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
	n := envInt("PREFETCH_KEYS", 1_000_000)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s := New(Options{})
	scaleLoad(s, n, new(opTimer))
	if os.Getenv("PREFETCH_REHASH") == "" { // set, the rounds run in the last growth's rehash
		finishRehash(s)
	}
	const batch, round = 16, 200_000
	var keys [batch][]byte
	for i := range keys {
		keys[i] = make([]byte, 0, 14)
	}
	dst := make([]byte, 0, 64)
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	ns := alternateCPU(b, round/batch*batch, func(pf, op int) {
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
	})
	reportPair(b, ns, "plain", "prefetch")
	runtime.KeepAlive(s)
}
