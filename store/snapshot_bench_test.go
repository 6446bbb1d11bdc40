package store

import (
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var (
	snapBenchOnce  sync.Once
	snapBenchStore *Store
	snapBenchKeys  [][]byte
)

// snapBench returns a store of 16-byte strings, built once per run: 1M,
// or SNAP_KEYS (SNAP_KEYS=5000000 for the BGSAVE of 5M keys).
func snapBench(b *testing.B) (*Store, [][]byte) {
	snapBenchOnce.Do(func() {
		n := 1_000_000
		if v, err := strconv.Atoi(os.Getenv("SNAP_KEYS")); err == nil && v > 0 {
			n = v
		}
		snapBenchStore, snapBenchKeys = benchStore(b, n)
	})
	return snapBenchStore, snapBenchKeys
}

// BenchmarkSnapshotEach: Snapshot, a walk of its keys (the walker copies
// them a batch at a time), Close. cloned-MB is what it copied.
func BenchmarkSnapshotEach(b *testing.B) {
	s, ks := snapBench(b)
	b.ReportAllocs()
	var cloned int64
	for b.Loop() {
		sn := s.SnapshotAt(t0)
		n := 0
		sn.Each(func(db int, v *Value) error { n += len(v.Raw); return nil })
		cloned = sn.ClonedBytes()
		sn.Close()
		if n != 16*len(ks) {
			b.Fatalf("walked %d bytes", n)
		}
	}
	b.ReportMetric(float64(cloned)/1e6, "cloned-MB")
}

// BenchmarkSnapshotTake: Snapshot and Close alone, nothing copied.
func BenchmarkSnapshotTake(b *testing.B) {
	s, _ := snapBench(b)
	b.ReportAllocs()
	for b.Loop() {
		s.SnapshotAt(t0).Close()
	}
}

// BenchmarkSnapshotFirstWrite is the cost a SET pays when it is the first
// change to its key (one per shard) after a snapshot: the copy of its
// record for the snapshot, measured over one write to each shard per
// snapshot.
func BenchmarkSnapshotFirstWrite(b *testing.B) {
	s, ks := snapBench(b)
	// one key per shard
	var perShard [][]byte
	seen := map[int]bool{}
	for _, k := range ks {
		if i := s.shardIndex(k); !seen[i] {
			seen[i] = true
			perShard = append(perShard, k)
		}
	}
	val := []byte("fedcba9876543210")
	b.ReportAllocs()
	var sn *Snapshot
	var copied int64
	i := 0
	for b.Loop() {
		if i%len(perShard) == 0 {
			b.StopTimer()
			if sn != nil {
				copied += sn.ClonedBytes()
				sn.Close()
			}
			sn = s.SnapshotAt(t0)
			b.StartTimer()
		}
		s.Set(0, perShard[i%len(perShard)], val, t0, SetOptions{})
		i++
	}
	b.StopTimer()
	copied += sn.ClonedBytes()
	sn.Close()
	b.ReportMetric(float64(copied)/float64(i)/1e6, "MB/copy")
}

// BenchmarkSnapshotSetAfterCopy: a SET to a shard already copied for a
// pending snapshot costs what it costs without one.
func BenchmarkSnapshotSetAfterCopy(b *testing.B) {
	s, ks := benchStore(b, 1000)
	sn := s.SnapshotAt(t0)
	defer sn.Close()
	val := []byte("fedcba9876543210")
	for _, k := range ks {
		s.Set(0, k, val, t0, SetOptions{})
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s.Set(0, ks[i%len(ks)], val, t0, SetOptions{})
		i++
	}
}

// BenchmarkSnapshotWriteLatency: one goroutine SETs random keys of the 1M
// while each iteration takes a snapshot and walks it (a save with a free
// writer); the SET latencies during the saves are compared with those of
// the same writer alone, and the walk samples the bytes the snapshot holds.
func BenchmarkSnapshotWriteLatency(b *testing.B) {
	s, ks := snapBench(b)
	val := []byte("fedcba9876543210")
	write := func(stop *atomic.Bool, out *[]time.Duration, done chan struct{}) {
		x := uint64(88172645463325252)
		for !stop.Load() {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			t := time.Now()
			s.Set(0, ks[x%uint64(len(ks))], val, t0, SetOptions{})
			*out = append(*out, time.Since(t))
		}
		close(done)
	}
	run := func(during func()) []time.Duration {
		var stop atomic.Bool
		lat := make([]time.Duration, 0, 1<<20)
		done := make(chan struct{})
		go write(&stop, &lat, done)
		during()
		stop.Store(true)
		<-done
		return lat
	}
	pct := func(lat []time.Duration, p float64) float64 {
		slices.Sort(lat)
		return float64(lat[min(len(lat)-1, int(float64(len(lat))*p))].Microseconds())
	}
	alone := run(func() { time.Sleep(300 * time.Millisecond) })
	var peak int64
	b.ReportAllocs()
	during := run(func() {
		for b.Loop() {
			sn := s.SnapshotAt(t0)
			n := 0
			sn.Each(func(db int, v *Value) error {
				if n++; n%4096 == 0 {
					peak = max(peak, sn.HeldBytes())
				}
				return nil
			})
			sn.Close()
		}
	})
	b.ReportMetric(pct(alone, 0.999), "alone-p99.9-µs")
	b.ReportMetric(pct(alone, 1), "alone-max-µs")
	b.ReportMetric(pct(during, 0.5), "save-p50-µs")
	b.ReportMetric(pct(during, 0.999), "save-p99.9-µs")
	b.ReportMetric(pct(during, 1), "save-max-µs")
	b.ReportMetric(float64(peak)/1e6, "peak-held-MB")
}
