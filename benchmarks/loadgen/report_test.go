package loadgen

import (
	"bytes"
	"image/png"
	"os"
	"strings"
	"testing"
)

// sampleResults is a small comparison: two targets, two repetitions, every
// mode, and a TLS row one target could not run.
func sampleResults() []*Result {
	var rs []*Result
	for rep := range 2 {
		for li, label := range []string{"loopkv", "redis"} {
			f := float64(1 + li + rep) // distinct figures per target and repetition
			for _, p := range []int{1, 10, 20} {
				rs = append(rs, &Result{Mode: "throughput", Label: label, Rep: rep, Pipeline: p, Conns: 50,
					OpsPerSec: 1e5 * f * float64(p), ServerCPUPerOp: 2 * f, Ops: 1000,
					Latency: &Latency{Count: 1000, P50: 50 * f, P90: 80 * f, P99: 100 * f, P999: 300 * f, Max: 900 * f}})
			}
			rs = append(rs, &Result{Mode: "throughput", Scenario: "latency-rate", Label: label, Rep: rep, Rate: 1e4,
				Pipeline: 1, ServerCPUPerOp: f, OpsPerSec: 1e4,
				Latency: &Latency{Count: 100, P50: 40 * f, P90: 60 * f, P99: 90 * f, P999: 200 * f, Max: 500 * f}})
			rs = append(rs, &Result{Mode: "conns", Label: label, Rep: rep, Steps: []ConnStep{
				{Conns: 0, RSSKB: 4000, Threads: 2}, {Conns: 1000, RSSKB: int64(6000 * f), Threads: 2},
				{Conns: 5000, RSSKB: int64(9000 * f), Threads: 2}}})
			for _, resume := range []bool{false, true} {
				r := &Result{Mode: "churn", Scenario: "churn-full", Label: label, Rep: rep, TLS: true,
					TLSInfo:          "TLS 1.3 TLS_AES_128_GCM_SHA256 X25519",
					HandshakesPerSec: 900 * f, ServerCPUPerHS: 400 / f, Latency: &Latency{Count: 10, P99: 1000}}
				if resume {
					r.Scenario, r.ServerCPUPerHS = "churn-resumed", 150/f
				}
				if label == "loopkv" && resume {
					r = &Result{Mode: "churn", Scenario: "churn-resumed", Label: label, Rep: rep, TLS: true,
						Unavailable: "TLS port does not answer"}
				}
				rs = append(rs, r)
			}
			rs = append(rs, &Result{Mode: "storm", Label: label, Rep: rep, TLS: true,
				Storm: &StormPhases{Before: Latency{P99: 100}, During: Latency{P99: 400 * f}, After: Latency{P99: 120},
					DuringOps: 5000, StormHandshakesPerSec: 800}})
		}
	}
	for _, r := range rs {
		r.Meta = Meta{Time: "2026-01-01T00:00:00Z", CPU: "test CPU", NumCPU: 2, GOMAXPROCS: 2, Commit: "abc123"}
	}
	return rs
}

func TestReportWritesMarkdownTableAndPlots(t *testing.T) {
	dir := t.TempDir()
	if d := os.Getenv("LOADGEN_REPORT_DIR"); d != "" {
		dir = d // keep the files to look at
	}
	// Through the JSON-lines file, as compare.sh hands the results over.
	var jl bytes.Buffer
	if err := WriteJSONLines(&jl, sampleResults()...); err != nil {
		t.Fatal(err)
	}
	rs, err := ReadJSONLines(&jl)
	if err != nil {
		t.Fatal(err)
	}
	paths, err := Report(rs, dir, "sample")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 1+len(plots) {
		t.Fatalf("wrote %v, want the Markdown and %d plots", paths, len(plots))
	}
	md, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| scenario | figure | loopkv | redis | loopkv/redis |",
		"| throughput-p10 | ops/s | 1500000 (1000000–2000000) | 2500000 (2000000–3000000) | 0.60 |",
		"| throughput-p1 | server CPU µs/op | 3 (2–4) | 5 (4–6) | 0.60 |",
		"| conns | KiB per connection |",
		"| churn-resumed | server CPU µs/handshake | unavailable: TLS port does not answer |",
		"| storm-tls | p99 µs during |",
		"![sample-cpu-per-handshake](sample-cpu-per-handshake.png)",
		"commit abc123",
		"TLS negotiated: loopkv: TLS 1.3 TLS_AES_128_GCM_SHA256 X25519; redis: TLS 1.3",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	for _, p := range paths[1:] {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil || img.Bounds().Dx() < 100 {
			t.Errorf("%s: not a PNG plot: %v", p, err)
		}
	}
}

func TestReportSkipsPlotsWithoutData(t *testing.T) {
	rs := []*Result{{Mode: "churn", Label: "redis", ServerCPUPerHS: -1, Latency: &Latency{}}}
	paths, err := Report(rs, t.TempDir(), "only-churn")
	if err != nil || len(paths) != 1 {
		t.Errorf("Report = %v, %v, want the Markdown alone", paths, err)
	}
}
