package main

import (
	"testing"
	"time"

	"github.com/loopkv/loopkv/benchmarks/internal/redistest"
)

// TestFanoutDeliversEveryMessageOverTLS: 50 TLS subscribers of a real
// redis-server each receive all 4 messages, with latency recorded for every
// delivery and the server's CPU and RSS read from /proc.
func TestFanoutDeliversEveryMessageOverTLS(t *testing.T) {
	s := redistest.Start(t)
	o := options{addr: s.TLSAddr, tls: true, caFile: s.CAFile, channel: "fanout-test", pid: s.Pid, subs: 50,
		messages: 4, rate: 40, size: 32, dialers: 8, drain: 10 * time.Second, label: "redis", rep: 1}
	r, err := run(o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Deliveries != 200 || r.Lost != 0 || r.Latency.Count != 200 {
		t.Fatalf("deliveries %d, lost %d, latencies %d; want 200, 0, 200", r.Deliveries, r.Lost, r.Latency.Count)
	}
	if r.RSSBeforeKB <= 0 || r.RSSIdleKB <= 0 || r.SyscwPerDeliv <= 0 {
		t.Fatalf("RSS %d -> %d KiB, %.2f writes per delivery: /proc not read", r.RSSBeforeKB, r.RSSIdleKB, r.SyscwPerDeliv)
	}
}

// TestFanoutFailsOnAForeignSubscriber: a subscriber the tool did not open
// makes PUBLISH count one more, and the run fails instead of reporting.
func TestFanoutFailsOnAForeignSubscriber(t *testing.T) {
	s := redistest.Start(t)
	o := options{addr: s.Addr, channel: "shared", subs: 3, messages: 1, rate: 10, size: 24, dialers: 1,
		drain: time.Second}
	extra, _, err := subscribe(o, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	if _, err := run(o); err == nil {
		t.Fatal("run with a fourth subscriber on the channel succeeded")
	}
}
