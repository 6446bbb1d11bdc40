package aof

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// set60 is a 60-byte SET command.
var set60 = command("SET", "key:000000000001", "value-0123456789a")

func TestSet60Is60Bytes(t *testing.T) {
	if len(set60) != 60 {
		t.Fatalf("set60 is %d bytes", len(set60))
	}
}

// BenchmarkAppend measures Append alone, the writer draining behind it
// into an incr file that is a link to /dev/null, so that the disk's speed
// does not turn the benchmark into a growing backlog.
func BenchmarkAppend(b *testing.B) {
	for _, p := range []Fsync{No, EverySec} {
		b.Run("fsync="+p.String()+"/SET60", func(b *testing.B) {
			dir := writeDir(b, manifestIncr1)
			if err := os.Symlink(os.DevNull, filepath.Join(dir, "appendonlydir", incr1)); err != nil {
				b.Fatal(err)
			}
			l, err := Open(Options{Dir: dir, Fsync: p})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close() // its fsync of /dev/null fails; no matter
			b.ReportAllocs()
			b.SetBytes(int64(len(set60)))
			for b.Loop() {
				l.Append(set60)
			}
		})
	}
}

// BenchmarkGroupCommit measures Always: appenders that each wait for their
// append to be durable, as a loop waits before it releases a reply. One
// fsync covers what all appenders queued meanwhile; appends/fsync reports
// how many.
func BenchmarkGroupCommit(b *testing.B) {
	for _, n := range []int{1, 4} {
		b.Run("fsync=always/appenders="+strconv.Itoa(n), func(b *testing.B) {
			l, err := Open(Options{Dir: b.TempDir(), Fsync: Always})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			var mu sync.Mutex
			cond := sync.NewCond(&mu)
			var groups atomic.Int64
			l.SetOnDurable(func(uint64) {
				groups.Add(1)
				mu.Lock()
				cond.Broadcast()
				mu.Unlock()
			})
			b.ReportAllocs()
			b.SetBytes(int64(len(set60)))
			b.ResetTimer()
			var wg sync.WaitGroup
			for g := range n {
				wg.Go(func() {
					for i := g; i < b.N; i += n {
						seq := l.Append(set60)
						mu.Lock()
						for l.Durable() < seq {
							cond.Wait()
						}
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			if g := groups.Load(); g > 0 {
				b.ReportMetric(float64(b.N)/float64(g), "appends/fsync")
			}
		})
	}
}

// BenchmarkLoad replays an incr file of 100k 60-byte SETs.
func BenchmarkLoad(b *testing.B) {
	const n = 100000
	dir := writeDir(b, manifestIncr1, incr1, strings.Repeat(string(set60), n))
	b.ReportAllocs()
	b.SetBytes(int64(n * len(set60)))
	for b.Loop() {
		l, err := Open(Options{Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		st, err := l.Load(nil, func([][]byte) error { return nil })
		if err != nil || st.Commands != n {
			b.Fatal(st, err)
		}
		l.Close()
	}
}
