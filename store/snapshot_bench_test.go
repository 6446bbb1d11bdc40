package store

import (
	"sync"
	"testing"
)

var (
	snapBenchOnce  sync.Once
	snapBenchStore *Store
	snapBenchKeys  [][]byte
)

// snapBench returns a store of 1M 16-byte strings, built once per run.
func snapBench(b *testing.B) (*Store, [][]byte) {
	snapBenchOnce.Do(func() { snapBenchStore, snapBenchKeys = benchStore(b, 1_000_000) })
	return snapBenchStore, snapBenchKeys
}

// BenchmarkSnapshotEach: Snapshot, a walk of its 1M keys (the walker copies
// each table, as no writer does), Close. cloned-MB is what it copied.
func BenchmarkSnapshotEach(b *testing.B) {
	s, _ := snapBench(b)
	b.ReportAllocs()
	var cloned int64
	for b.Loop() {
		sn := s.SnapshotAt(t0)
		n := 0
		sn.Each(func(db int, v *Value) error { n += len(v.Raw); return nil })
		cloned = sn.ClonedBytes()
		sn.Close()
		if n != 16_000_000 {
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
// change to its shard after a snapshot: the copy of the shard's table
// (1M keys over 64 shards: about 15,600 keys), measured over one write to
// each shard per snapshot.
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
	i := 0
	for b.Loop() {
		if i%len(perShard) == 0 {
			b.StopTimer()
			if sn != nil {
				sn.Close()
			}
			sn = s.SnapshotAt(t0)
			b.StartTimer()
		}
		s.Set(0, perShard[i%len(perShard)], val, t0, SetOptions{})
		i++
	}
	b.StopTimer()
	b.ReportMetric(float64(sn.ClonedBytes())/float64(min(i, len(perShard)))/1e6, "MB/copy")
	sn.Close()
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
