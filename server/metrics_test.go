package server

import (
	"bufio"
	"crypto/tls"
	"net"
	"net/http"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestMetricsEndpointCountsKnownWorkload runs a known workload on a fresh
// server and scrapes /metrics with the Prometheus text parser: every
// counter of the workload must have its exact value.
func TestMetricsEndpointCountsKnownWorkload(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2, MetricsPort: -1})
	if s.MetricsAddr() == "" {
		t.Fatal("no metrics address with MetricsPort -1")
	}
	rc := dialRaw(t, s.Addr())
	for _, args := range [][]string{
		{"SET", "k", "v"}, {"GET", "k"}, {"GET", "k"}, {"GET", "k"}, {"GET", "missing"},
		{"GET"}, {"LPUSH", "k", "x"}, {"NOSUCH"}, {"SET", "e", "1", "EX", "100"}, {"SELECT", "3"}, {"SET", "z", "1"},
	} {
		rc.do(args...)
	}
	fams := scrapeMetrics(t, "http://"+s.MetricsAddr()+"/metrics")
	checkMetrics(t, fams, []wantMetric{
		{"loopkv_commands_processed_total", nil, 9}, // all but the arity error and the unknown command
		{"loopkv_connections_received_total", nil, 1},
		{"loopkv_connected_clients", nil, 1},
		{"loopkv_keyspace_hits_total", nil, 3},
		{"loopkv_keyspace_misses_total", nil, 1},
		{"loopkv_db_keys", map[string]string{"db": "0"}, 2},
		{"loopkv_db_expiring_keys", map[string]string{"db": "0"}, 1},
		{"loopkv_db_keys", map[string]string{"db": "3"}, 1},
		{"loopkv_command_calls_total", map[string]string{"cmd": "get"}, 4},
		{"loopkv_command_calls_total", map[string]string{"cmd": "set"}, 3},
		{"loopkv_command_rejected_calls_total", map[string]string{"cmd": "get"}, 1},
		{"loopkv_command_failed_calls_total", map[string]string{"cmd": "lpush"}, 1},
		{"loopkv_error_replies_total", map[string]string{"code": "ERR"}, 2},
		{"loopkv_error_replies_total", map[string]string{"code": "WRONGTYPE"}, 1},
	})
	h := findMetric(fams, "loopkv_command_duration_seconds", map[string]string{"cmd": "get"})
	if h == nil || h.GetHistogram() == nil {
		t.Fatal("loopkv_command_duration_seconds{cmd=get}: missing")
	}
	hist := h.GetHistogram()
	if hist.GetSampleCount() != 4 || len(hist.GetBucket()) != 22 {
		t.Errorf("get histogram: %d samples in %d buckets, want 4 in 22 (1 µs to 1 s, +Inf)", hist.GetSampleCount(), len(hist.GetBucket()))
	}
	if last := hist.GetBucket()[len(hist.GetBucket())-1]; last.GetCumulativeCount() != 4 || last.GetUpperBound() < 1 {
		t.Errorf("get histogram: last bucket %v", last)
	}
}

// TestMetricsEndpointCountsTLSHandshakes scrapes the TLS families after one
// completed handshake and one failed one.
func TestMetricsEndpointCountsTLSHandshakes(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{Loops: 1, MetricsPort: -1})
	c := dialTLS(t, s.TLSAddr(), p.clientConfig())
	if got := tlsDo(t, c, bufio.NewReader(c), "PING"); got != "+PONG\r\n" {
		t.Fatalf("PING over TLS = %q", got)
	}
	// A client that does not trust the certificate aborts with an alert.
	raw, err := net.DialTimeout("tcp", s.TLSAddr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	_ = raw.SetDeadline(time.Now().Add(10 * time.Second))
	if err := tls.Client(raw, &tls.Config{ServerName: "localhost"}).Handshake(); err == nil {
		t.Fatal("handshake with an untrusted certificate succeeded")
	}
	var fams map[string]*dto.MetricFamily
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		fams = scrapeMetrics(t, "http://"+s.MetricsAddr()+"/metrics")
		if m := findMetric(fams, "loopkv_tls_handshakes_total", map[string]string{"result": "failed"}); m != nil || time.Now().After(deadline) {
			break
		}
	}
	checkMetrics(t, fams, []wantMetric{
		{"loopkv_tls_handshakes_total", map[string]string{"result": "completed", "reason": ""}, 1},
		{"loopkv_tls_handshakes_total", map[string]string{"result": "failed"}, 1},
		{"loopkv_tls_handshakes_in_flight", nil, 0},
		{"loopkv_tls_worker_queue_depth", nil, 0},
		{"loopkv_tls_connections", nil, 1},
	})
}

// wantMetric is a counter or gauge's expected value.
type wantMetric struct {
	name   string
	labels map[string]string
	want   float64
}

func checkMetrics(t *testing.T, fams map[string]*dto.MetricFamily, want []wantMetric) {
	t.Helper()
	for _, w := range want {
		m := findMetric(fams, w.name, w.labels)
		if m == nil {
			t.Errorf("%s%v: missing", w.name, w.labels)
			continue
		}
		if got := metricValue(m); got != w.want {
			t.Errorf("%s%v = %v, want %v", w.name, w.labels, got, w.want)
		}
	}
}

func scrapeMetrics(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing %s: %v", url, err)
	}
	return fams
}

// findMetric returns the metric of family name whose labels include
// labels, or nil.
func findMetric(fams map[string]*dto.MetricFamily, name string, labels map[string]string) *dto.Metric {
	f := fams[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range labels {
			if hv, ok := have[k]; !ok && v != "" || hv != v {
				continue next
			}
		}
		return m
	}
	return nil
}

func metricValue(m *dto.Metric) float64 {
	switch {
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue()
	}
	return -1
}
