package loadgen

import (
	"math"
	"math/bits"
	"time"
)

// Histogram layout: values below 2^histSubBits are counted exactly; above,
// each power-of-two range [2^k, 2^(k+1)) is cut into 2^(histSubBits-1)
// equal buckets. A bucket's width is at most 2^-(histSubBits-1) of its lower
// bound, and a quantile is reported as the bucket's midpoint, so its
// relative error is at most HistRelError.
const (
	histSubBits = 8
	histSub     = 1 << histSubBits                    // exact values 0..histSub-1
	histHalf    = histSub >> 1                        // buckets per power of two above
	histBuckets = histSub + (63-histSubBits)*histHalf // int64 values have at most 63 bits
	// HistRelError bounds the relative error of a reported quantile.
	HistRelError = 1.0 / (2 * histHalf)
)

// Histogram counts non-negative int64 values (nanoseconds for latency) in
// log-linear buckets. It uses fixed memory (about 60 KiB) whatever the
// values, Record is O(1) and does not allocate, and histograms merge exactly.
// A Histogram is not safe for concurrent use: give each goroutine its own and
// Merge them.
type Histogram struct {
	counts [histBuckets]uint64
	n      uint64  // sum of counts
	sum    float64 // sum of values, for the mean
	min    int64   // exact; valid when n > 0
	max    int64   // exact; valid when n > 0
}

// NewHistogram returns an empty histogram.
func NewHistogram() *Histogram { return &Histogram{} }

// histIndex returns the bucket of v >= 0.
func histIndex(v int64) int {
	if v < histSub {
		return int(v)
	}
	e := bits.Len64(uint64(v)) - histSubBits // >= 1
	m := int(uint64(v) >> uint(e))           // in [histHalf, histSub)
	return histSub + (e-1)*histHalf + (m - histHalf)
}

// histBounds returns the smallest and largest value counted in bucket i.
func histBounds(i int) (lo, hi int64) {
	if i < histSub {
		return int64(i), int64(i)
	}
	e := (i-histSub)/histHalf + 1
	m := int64((i-histSub)%histHalf + histHalf)
	lo = m << uint(e)
	return lo, lo + (int64(1) << uint(e)) - 1
}

// Record counts v; negative values count as 0.
func (h *Histogram) Record(v int64) {
	if v < 0 {
		v = 0
	}
	h.counts[histIndex(v)]++
	if h.n == 0 || v < h.min {
		h.min = v
	}
	if h.n == 0 || v > h.max {
		h.max = v
	}
	h.n++
	h.sum += float64(v)
}

// RecordDuration counts d in nanoseconds.
func (h *Histogram) RecordDuration(d time.Duration) { h.Record(int64(d)) }

// RecordCorrected counts v, and when v exceeds the expected interval between
// requests it also counts the synthetic samples v-interval, v-2*interval, …
// down to interval: the latencies the requests queued behind a stalled one
// would have seen (HdrHistogram's recordCorrectedValue). Use it in
// closed-loop runs that have a nominal rate; rate-limited runs measure from
// the intended send time instead and need no correction.
func (h *Histogram) RecordCorrected(v, interval int64) {
	h.Record(v)
	if interval <= 0 {
		return
	}
	for s := v - interval; s >= interval; s -= interval {
		h.Record(s)
	}
}

// Merge adds every count of o to h.
func (h *Histogram) Merge(o *Histogram) {
	if o.n == 0 {
		return
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	if h.n == 0 || o.max > h.max {
		h.max = o.max
	}
	h.n += o.n
	h.sum += o.sum
}

// Reset empties h.
func (h *Histogram) Reset() { *h = Histogram{} }

// Count returns the number of recorded values.
func (h *Histogram) Count() uint64 { return h.n }

// Max returns the largest recorded value, exactly; 0 when empty.
func (h *Histogram) Max() int64 { return h.max }

// Min returns the smallest recorded value, exactly; 0 when empty.
func (h *Histogram) Min() int64 { return h.min }

// Mean returns the mean of the recorded values; 0 when empty.
func (h *Histogram) Mean() float64 {
	if h.n == 0 {
		return 0
	}
	return h.sum / float64(h.n)
}

// Quantile returns the value at quantile q in [0, 1]: the smallest recorded
// value v such that at least q of the values are <= v, within HistRelError
// and clamped to [Min, Max]. Quantile(1) is Max exactly; 0 when empty.
func (h *Histogram) Quantile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	if q >= 1 {
		return h.max
	}
	if q <= 0 {
		return h.min
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	if rank == 0 {
		rank = 1
	}
	var cum uint64
	for i, c := range h.counts {
		cum += c
		if cum >= rank {
			lo, hi := histBounds(i)
			v := lo + (hi-lo)/2
			return min(max(v, h.min), h.max)
		}
	}
	return h.max
}
