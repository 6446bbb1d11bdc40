package main

import (
	"encoding/csv"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopkv/loopkv/benchmarks/loadgen"
)

// startRedis starts a plaintext redis-server on a free loopback port and
// returns its address and pid.
func startRedis(t *testing.T) (string, int) {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed (make deps)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command("redis-server", "--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no",
		"--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if err := probe([]string{"-addr", addr, "-wait", "10s"}); err != nil {
		t.Fatal(err)
	}
	return addr, cmd.Process.Pid
}

func TestCommandModesWriteJSONAndCSVThenReport(t *testing.T) {
	addr, pid := startRedis(t)
	dir := t.TempDir()
	jl, cv := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "r.csv")
	common := []string{"-addr", addr, "-pid", fmt.Sprint(pid), "-json", jl, "-label", "redis", "-commit", "test"}
	runs := []struct {
		mode string
		args []string
	}{
		{"throughput", []string{"-scenario", "tput-p4", "-conns", "4", "-pipeline", "4", "-duration", "200ms",
			"-keys", "100", "-mix", "get=2,set=1,incr=1,mget=1", "-csv", cv}},
		{"conns", []string{"-steps", "0,20", "-settle", "10ms"}},
		{"churn", []string{"-workers", "2", "-duration", "200ms"}},
		{"storm", []string{"-conns", "2", "-rate", "1000", "-duration", "300ms", "-storm-workers", "1"}},
		{"load", []string{"-keys", "1000", "-key-len", "14", "-value-size", "16", "-mix", "set=1,hset=1"}},
		{"throughput", []string{"-scenario", "tput-tls-p4", "-tls", "-unavailable", "TLS port does not answer"}},
	}
	for _, r := range runs {
		if err := runMode(r.mode, append(append([]string(nil), common...), r.args...)); err != nil {
			t.Fatalf("%s %v: %v", r.mode, r.args, err)
		}
	}
	f, err := os.Open(jl)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := loadgen.ReadJSONLines(f)
	f.Close()
	if err != nil || len(rs) != len(runs) {
		t.Fatalf("read %d results (%v), want %d", len(rs), err, len(runs))
	}
	for i, r := range rs[:5] {
		if r.Mode != runs[i].mode || r.Label != "redis" || r.Meta.Commit != "test" || r.Ops <= 0 || r.Unavailable != "" {
			t.Errorf("#%d: result %+v", i, r)
		}
	}
	if rs[4].Ops != 2000 || rs[4].ErrorReplies != 0 {
		t.Errorf("load wrote %d keys (%d errors, first %q), want 1000 strings and 1000 hashes", rs[4].Ops,
			rs[4].ErrorReplies, rs[4].FirstError)
	}
	if rs[5].Unavailable == "" || !rs[5].TLS {
		t.Errorf("unavailable row: %+v", rs[5])
	}
	cf, err := os.Open(cv)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(cf).ReadAll()
	cf.Close()
	if err != nil || len(rows) != 2 || rows[1][0] != "throughput" {
		t.Errorf("CSV rows %v, %v", rows, err)
	}
	out := filepath.Join(dir, "report")
	if err := report([]string{"-out", out, "-stem", "t", jl}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, "t.md"))
	if err != nil || !strings.Contains(string(md), "| tput-p4 | server CPU µs/op |") ||
		!strings.Contains(string(md), "unavailable: TLS port does not answer") {
		t.Errorf("report:\n%s (%v)", md, err)
	}
	for _, p := range []string{"t-throughput-vs-pipeline.png", "t-memory-vs-connections.png", "t-cpu-per-handshake.png"} {
		if st, err := os.Stat(filepath.Join(out, p)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
}
