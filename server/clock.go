package server

import (
	"math"
	"math/bits"
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
	tscRate atomic.Uint64 // nanoseconds per tick, in fixed point of tscFrac bits; 0 until calibrated
	// the anchor: the counter and the time since start, read together
	tscStart  uint64
	monoStart time.Duration
)

func init() { tscStart, monoStart = rdtsc(), time.Since(clockStart) }

// tscMinSpan is the least time since start over which calibrateTSC trusts
// a rate: two clock reads a few hundred ns apart make its error below
// 10 ppm.
const tscMinSpan = 50 * time.Millisecond

// tscFrac is the fraction bits of tscRate: its rounding is 2^-32 of a
// nanosecond per tick, under 1e-8 of a rate of 0.1 ns per tick and more.
const tscFrac = 32

// sinceStart is the monotonic time since clockStart, for durations. The
// ticks are scaled in integers, a 128-bit product: the floating-point
// conversions and multiply cost a command as much again as the counter.
func sinceStart() time.Duration {
	if r := tscRate.Load(); r != 0 {
		hi, lo := bits.Mul64(rdtsc()-tscStart, r)
		return monoStart + time.Duration(hi<<(64-tscFrac)|lo>>tscFrac)
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
	tscRate.Store(uint64(math.Round(float64(mono-monoStart) / float64(ticks) * (1 << tscFrac))))
	return true
}

// tscMaxRead bounds the ticks between the two counter reads around the
// monotonic one (about 5 µs at 3 GHz): a longer gap means the goroutine
// was descheduled there, and the pair is not used.
const tscMaxRead = 1 << 14
