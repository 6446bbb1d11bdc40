package loadgen

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// refQuantile is the exact quantile of sorted values, with Quantile's rank
// rule: the smallest v with at least q of the values <= v.
func refQuantile(sorted []int64, q float64) int64 {
	rank := int(math.Ceil(q * float64(len(sorted))))
	return sorted[max(rank, 1)-1]
}

var histDistributions = []struct {
	name string
	draw func(r *rand.Rand) int64
}{
	{"small-exact", func(r *rand.Rand) int64 { return r.Int64N(histSub) }},
	{"uniform-1ms", func(r *rand.Rand) int64 { return r.Int64N(1_000_000) }},
	{"lognormal-latency", func(r *rand.Rand) int64 { return int64(math.Exp(r.NormFloat64()*1.5 + 11)) }},
	{"bimodal-with-stalls", func(r *rand.Rand) int64 {
		if r.IntN(100) == 0 {
			return 50_000_000 + r.Int64N(1e9)
		}
		return 20_000 + r.Int64N(80_000)
	}},
	{"huge", func(r *rand.Rand) int64 { return math.MaxInt64 - r.Int64N(1<<40) }},
}

var histQuantiles = []float64{0, 0.001, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999, 1}

func TestHistogramQuantilesWithinRelativeErrorOfSortedReference(t *testing.T) {
	for _, d := range histDistributions {
		r := rand.New(rand.NewPCG(1, 2)) // fixed seed
		h := NewHistogram()
		vals := make([]int64, 20000)
		for i := range vals {
			vals[i] = d.draw(r)
			h.Record(vals[i])
		}
		slices.Sort(vals)
		for _, q := range histQuantiles {
			got, want := h.Quantile(q), refQuantile(vals, q)
			if rel := math.Abs(float64(got)-float64(want)) / math.Max(1, float64(want)); rel > HistRelError {
				t.Errorf("%s: q=%v: got %d, want %d ± %.3f%% (off by %.3f%%)", d.name, q, got, want,
					100*HistRelError, 100*rel)
			}
		}
		if h.Max() != vals[len(vals)-1] || h.Min() != vals[0] || h.Count() != uint64(len(vals)) {
			t.Errorf("%s: max %d min %d count %d, want exactly %d %d %d", d.name, h.Max(), h.Min(), h.Count(),
				vals[len(vals)-1], vals[0], len(vals))
		}
	}
}

func TestHistogramBucketsCoverEveryValueOnce(t *testing.T) {
	prevHi := int64(-1)
	for i := range histBuckets {
		lo, hi := histBounds(i)
		if lo != prevHi+1 || hi < lo {
			t.Fatalf("bucket %d = [%d, %d], want it to start at %d", i, lo, hi, prevHi+1)
		}
		if histIndex(lo) != i || histIndex(hi) != i {
			t.Fatalf("bucket %d = [%d, %d] indexes back to %d, %d", i, lo, hi, histIndex(lo), histIndex(hi))
		}
		if lo > 0 && float64(hi-lo)/2/float64(lo) > HistRelError {
			t.Fatalf("bucket %d = [%d, %d] is wider than the stated error", i, lo, hi)
		}
		prevHi = hi
	}
	if prevHi != math.MaxInt64 {
		t.Errorf("last bucket ends at %d, want MaxInt64", prevHi)
	}
}

func TestHistogramMergeEqualsRecordingEverything(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	all, parts := NewHistogram(), []*Histogram{NewHistogram(), NewHistogram(), NewHistogram()}
	for i := range 30000 {
		v := histDistributions[2].draw(r)
		all.Record(v)
		parts[i%3].Record(v)
	}
	merged := NewHistogram()
	merged.Merge(NewHistogram()) // empty merges are no-ops
	for _, p := range parts {
		merged.Merge(p)
	}
	if merged.counts != all.counts || merged.Count() != all.Count() || merged.Max() != all.Max() ||
		merged.Min() != all.Min() || math.Abs(merged.Mean()-all.Mean()) > 1e-6*all.Mean() {
		t.Errorf("merged histogram differs: count %d/%d max %d/%d min %d/%d mean %v/%v", merged.Count(),
			all.Count(), merged.Max(), all.Max(), merged.Min(), all.Min(), merged.Mean(), all.Mean())
	}
}

func TestHistogramEmptyAndNegative(t *testing.T) {
	h := NewHistogram()
	if h.Quantile(0.5) != 0 || h.Max() != 0 || h.Mean() != 0 {
		t.Errorf("empty histogram reports %d %d %v", h.Quantile(0.5), h.Max(), h.Mean())
	}
	h.Record(-5)
	if h.Count() != 1 || h.Max() != 0 {
		t.Errorf("negative value: count %d max %d, want 1 and 0", h.Count(), h.Max())
	}
}

var correctedTests = []struct {
	v, interval int64
	want        []int64 // every value recorded, ascending
}{
	{5, 10, []int64{5}},
	{10, 10, []int64{10}},
	{25, 10, []int64{15, 25}},
	{100, 10, []int64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}},
	{100, 0, []int64{100}},
}

func TestRecordCorrectedAddsTheSamplesAStallHid(t *testing.T) {
	for i, tt := range correctedTests {
		h, want := NewHistogram(), NewHistogram()
		h.RecordCorrected(tt.v, tt.interval)
		for _, v := range tt.want {
			want.Record(v)
		}
		if h.counts != want.counts || h.Count() != uint64(len(tt.want)) {
			t.Errorf("#%d: RecordCorrected(%d, %d) recorded %d values, want %v", i, tt.v, tt.interval, h.Count(), tt.want)
		}
	}
}

func BenchmarkHistogramRecord(b *testing.B) {
	h := NewHistogram()
	b.ReportAllocs()
	v := int64(12345)
	for b.Loop() {
		h.Record(v)
		v = v*31 + 7&(1<<30-1)
	}
}
