package loadgen

import (
	"bytes"
	"encoding/csv"
	"testing"
	"time"
)

// checkResult asserts what every mode's result must show: no protocol or
// error replies and figures that survive JSON and CSV round trips.
func checkResult(t *testing.T, r *Result, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if r.ErrorReplies != 0 {
		t.Errorf("%d error replies, first %q", r.ErrorReplies, r.FirstError)
	}
	if r.Seconds <= 0 {
		t.Errorf("seconds = %v, want > 0", r.Seconds)
	}
	var jl bytes.Buffer
	if err := WriteJSONLines(&jl, r); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSONLines(&jl)
	if err != nil || len(back) != 1 || back[0].Mode != r.Mode || back[0].Ops != r.Ops {
		t.Errorf("JSON round trip: %v %+v", err, back)
	}
	var cb bytes.Buffer
	if err := WriteCSV(&cb, r); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&cb).ReadAll()
	if err != nil || len(rows) < 2 || len(rows[1]) != len(csvHeader) {
		t.Errorf("CSV: %v, %d rows", err, len(rows))
	}
}

var testMix = mustMix("get=8,set=2,incr=1,ping=1,mget=1,mset=1,del=1,exists=1", 1000, "uniform", "16-128")

func mustMix(spec string, keys int, dist, size string) Mix {
	m, err := ParseMix(spec, keys, dist, size)
	if err != nil {
		panic(err)
	}
	return m
}

func TestThroughputRunsEveryCommandWithoutErrors(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg Target) {
		r, err := RunThroughput(ThroughputConfig{Target: tg, Conns: 8, Pipeline: 4, Mix: testMix,
			Duration: 300 * time.Millisecond, Preload: true})
		checkResult(t, r, err)
		t.Logf("%d ops, %.0f ops/s, p50 %.0fus p99 %.0fus, server CPU %.2fus/op", r.Ops, r.OpsPerSec,
			r.Latency.P50, r.Latency.P99, r.ServerCPUPerOp)
		if r.Ops < 100 || r.OpsPerSec <= 0 {
			t.Errorf("ops = %d, ops/s = %v, want a sane non-zero figure", r.Ops, r.OpsPerSec)
		}
		if l := r.Latency; l == nil || l.P50 <= 0 || l.P99 < l.P50 || l.Max < l.P999 || l.Count != uint64(r.Ops) {
			t.Errorf("latency %+v for %d ops", r.Latency, r.Ops)
		}
		if r.ServerCPU < 0 || r.ServerCPUPerOp < 0 {
			t.Errorf("server CPU %v, per op %v, want measured (pid %d)", r.ServerCPU, r.ServerCPUPerOp, tg.Pid)
		}
	})
}
