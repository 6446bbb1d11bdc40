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
	if r.TLS != (r.TLSInfo != "") {
		t.Errorf("TLS %v but negotiated %q", r.TLS, r.TLSInfo)
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
		if known := tg.Pid > 0; known != (r.ServerCPU >= 0) || known != (r.ServerCPUPerOp >= 0) {
			t.Errorf("server CPU %v, per op %v, want measured iff the pid (%d) is known", r.ServerCPU, r.ServerCPUPerOp, tg.Pid)
		}
	})
}

func TestRateLimitedThroughputHoldsTheOfferedRate(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg Target) {
		const rate = 2000.0
		r, err := RunThroughput(ThroughputConfig{Target: tg, Conns: 4, Pipeline: 1, Mix: testMix,
			Duration: 500 * time.Millisecond, Rate: rate})
		checkResult(t, r, err)
		// 4 staggered schedules of one send per 2 ms for 500 ms: every send
		// intended before the end goes out, however late, so the count is
		// exact whatever the machine's load.
		if r.Ops != 1000 {
			t.Errorf("ops = %d, want exactly 1000 scheduled sends", r.Ops)
		}
	})
}

func TestConnsReportsServerMemoryAtEachStep(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg Target) {
		steps := []int{0, 10, 40}
		r, err := RunConns(ConnsConfig{Target: tg, Steps: steps, Dialers: 8, Settle: 20 * time.Millisecond})
		checkResult(t, r, err)
		if len(r.Steps) != len(steps) {
			t.Fatalf("%d steps, want %d", len(r.Steps), len(steps))
		}
		for i, s := range r.Steps {
			if s.Conns != steps[i] || (tg.Pid > 0) != (s.RSSKB > 0 && s.Threads > 0) {
				t.Errorf("#%d: step %+v, want %d conns, and RSS and threads iff the pid (%d) is known", i, s,
					steps[i], tg.Pid)
			}
		}
		if r.Ops != 40 {
			t.Errorf("held %d connections, want 40", r.Ops)
		}
	})
}

func TestChurnCountsFullAndResumedHandshakes(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg Target) {
		for _, resume := range []bool{false, true} {
			r, err := RunChurn(ChurnConfig{Target: tg, Workers: 2, Duration: 250 * time.Millisecond, Resume: resume})
			checkResult(t, r, err)
			// At least one cycle per worker, however loaded the machine.
			if r.Handshakes < 2 || r.HandshakesPerSec <= 0 || r.Latency.P50 <= 0 {
				t.Errorf("resume=%v: %d handshakes, %.0f/s, p50 %v", resume, r.Handshakes, r.HandshakesPerSec, r.Latency.P50)
			}
			if (tg.Pid > 0) != (r.ServerCPUPerHS >= 0) {
				t.Errorf("resume=%v: server CPU per handshake %v with pid %d", resume, r.ServerCPUPerHS, tg.Pid)
			}
			switch {
			case tg.TLS == nil && r.Resumed != 0:
				t.Errorf("plaintext run counted %d resumptions", r.Resumed)
			case tg.TLS != nil && !resume && r.Resumed != 0:
				t.Errorf("full-handshake run resumed %d sessions", r.Resumed)
			case tg.TLS != nil && resume && r.Resumed != r.Handshakes:
				t.Errorf("resumed %d of %d handshakes, want all", r.Resumed, r.Handshakes)
			}
			t.Logf("resume=%v: %.0f handshakes/s, server %.0fus/handshake", resume, r.HandshakesPerSec, r.ServerCPUPerHS)
		}
	})
}

func TestStormMeasuresSteadyClientsInThreePhases(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg Target) {
		r, err := RunStorm(StormConfig{
			Steady: ThroughputConfig{Target: tg, Conns: 4, Pipeline: 1, Mix: testMix, Rate: 3000,
				Duration: 600 * time.Millisecond},
			Storm: ChurnConfig{Target: tg, Workers: 2},
		})
		checkResult(t, r, err)
		ph := r.Storm
		if ph == nil || r.Handshakes == 0 || ph.StormHandshakesPerSec <= 0 {
			t.Fatalf("storm made %d handshakes: %+v", r.Handshakes, ph)
		}
		for i, l := range []Latency{ph.Before, ph.During, ph.After} {
			if l.Count == 0 || l.P50 <= 0 {
				t.Errorf("phase %d: %+v, want samples", i, l)
			}
		}
		if ph.BeforeOps <= 0 || ph.DuringOps <= 0 || ph.AfterOps <= 0 {
			t.Errorf("phase rates %v %v %v, want > 0", ph.BeforeOps, ph.DuringOps, ph.AfterOps)
		}
		t.Logf("p99 before %.0fus during %.0fus after %.0fus; %.0f handshakes/s", ph.Before.P99, ph.During.P99,
			ph.After.P99, ph.StormHandshakesPerSec)
	})
}
