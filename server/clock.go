package server

import (
	"math"
	"sync/atomic"
	"time"
)

// The command clock. Every command's duration (commandstats, latency
// histograms, the slow log, the latency monitor) comes from one clock
// read as it ends (stats.go, beginCall/endCall). Through the vDSO,
// time.Since costs about 45 ns on the VMs loopkv targets, a quarter of
// a pipelined SET; the time-stamp counter costs about 15 ns. So where
// the kernel keeps time by the TSC itself (tscTrusted), sinceStart scales
// the counter by a rate that tick calibrates against the monotonic clock
// over the whole time since an anchor read at start; elsewhere, and until
// the first calibration, it is time.Since(clockStart).
var (
	tscOK   = tscTrusted()
	tscRate atomic.Uint64 // float64 bits: nanoseconds per tick; 0 until calibrated
	// the anchor: the counter and the time since start, read together
	tscStart  uint64
	monoStart time.Duration
)

func init() { tscStart, monoStart = rdtsc(), time.Since(clockStart) }

// tscMinSpan is the least time since start over which calibrateTSC trusts
// a rate: two clock reads a few hundred ns apart make its error below
// 10 ppm.
const tscMinSpan = 50 * time.Millisecond

// sinceStart is the monotonic time since clockStart, for durations.
func sinceStart() time.Duration {
	if r := tscRate.Load(); r != 0 {
		return monoStart + time.Duration(float64(rdtsc()-tscStart)*math.Float64frombits(r))
	}
	return time.Since(clockStart)
}

// calibrateTSC sets the counter's rate from the monotonic clock and
// reports whether it did; the ticker calls it every tick, which also
// follows a kernel that stops trusting the TSC (the rate then goes back
// to 0).
func calibrateTSC() bool {
	if !tscOK || !tscTrusted() {
		tscRate.Store(0)
		return false
	}
	t0 := rdtsc()
	mono := time.Since(clockStart)
	t1 := rdtsc()
	if mono-monoStart < tscMinSpan || t0 <= tscStart || t1-t0 > tscMaxRead {
		return false // too early, or the read was interrupted: next tick
	}
	ticks := (t0-tscStart)/2 + (t1-tscStart)/2
	tscRate.Store(math.Float64bits(float64(mono-monoStart) / float64(ticks)))
	return true
}

// tscMaxRead bounds the ticks between the two counter reads around the
// monotonic one (about 5 µs at 3 GHz): a longer gap means the goroutine
// was descheduled there, and the pair is not used.
const tscMaxRead = 1 << 14
