package aof

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// BenchmarkGroupWriteFdatasync is the disk's floor under appendfsync
// always: one group's write(2) and fdatasync, as the writer makes them,
// on a file in TMPDIR (benchmarks/aof.sh's servers write there too). It
// reports the kernel and user CPU of the calling thread per group
// (getrusage RUSAGE_THREAD), which the process pays whatever the group
// holds: divided by the changes a group covers it is what each change
// costs in the kernel before any socket work.
func BenchmarkGroupWriteFdatasync(b *testing.B) {
	for _, changes := range []int{1, 50} {
		b.Run(map[int]string{1: "SET60x1", 50: "SET60x50"}[changes], func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			f, err := os.OpenFile(filepath.Join(b.TempDir(), "g.aof"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			group := bytes.Repeat(set60, changes)
			var r0, r1 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_THREAD, &r0)
			b.SetBytes(int64(len(group)))
			for b.Loop() {
				if _, err := f.Write(group); err != nil {
					b.Fatal(err)
				}
				if err := fdatasync(f); err != nil {
					b.Fatal(err)
				}
			}
			syscall.Getrusage(syscall.RUSAGE_THREAD, &r1)
			n := float64(b.N)
			us := func(a, z syscall.Timeval) float64 { return float64(time.Duration(z.Nano()-a.Nano())) / 1e3 / n }
			b.ReportMetric(us(r0.Stime, r1.Stime), "sys-µs/group")
			b.ReportMetric(us(r0.Utime, r1.Utime), "user-µs/group")
		})
	}
}
