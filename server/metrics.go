package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	"github.com/loopkv/loopkv/tlsengine"
)

// The Prometheus endpoint (Options.MetricsPort): http://Bind:MetricsPort/metrics.
// Nothing is collected for it: a scrape reads the counters INFO reads (the
// loops' command statistics, stats.go; the server's, the store's and the
// TLS state's atomics) and builds constant metrics from them, so the
// command path pays nothing for it.

// metric descriptions, by name.
var (
	mCommands   = metricDesc("commands_processed_total", "Commands run (INFO total_commands_processed).")
	mConns      = metricDesc("connections_received_total", "Connections accepted (INFO total_connections_received).")
	mRejected   = metricDesc("rejected_connections_total", "Connections refused over maxclients or by protected mode (INFO rejected_connections).")
	mClients    = metricDesc("connected_clients", "Clients connected (INFO connected_clients).")
	mBlocked    = metricDesc("blocked_clients", "Clients blocked in a blocking pop (INFO blocked_clients).")
	mHits       = metricDesc("keyspace_hits_total", "Key lookups that found the key (INFO keyspace_hits).")
	mMisses     = metricDesc("keyspace_misses_total", "Key lookups that missed (INFO keyspace_misses).")
	mExpired    = metricDesc("expired_keys_total", "Keys expired (INFO expired_keys).")
	mEvicted    = metricDesc("evicted_keys_total", "Keys evicted under maxmemory (INFO evicted_keys).")
	mUsedMem    = metricDesc("used_memory_bytes", "Memory the keyspace uses (INFO used_memory).")
	mDBKeys     = metricDesc("db_keys", "Keys per database (INFO keyspace).", "db")
	mDBExpires  = metricDesc("db_expiring_keys", "Keys with a time to live per database (INFO keyspace).", "db")
	mErrors     = metricDesc("error_replies_total", "Error replies by error code (INFO errorstats).", "code")
	mCalls      = metricDesc("command_calls_total", "Calls per command (INFO commandstats calls).", "cmd")
	mCmdRejects = metricDesc("command_rejected_calls_total", "Calls refused before running (INFO commandstats rejected_calls).", "cmd")
	mCmdFails   = metricDesc("command_failed_calls_total", "Calls that replied with an error (INFO commandstats failed_calls).", "cmd")
	mDuration   = metricDesc("command_duration_seconds", "Command latency (LATENCY HISTOGRAM), while latency-tracking is on.", "cmd")
	mHandshakes = metricDesc("tls_handshakes_total", "TLS handshakes by result (completed, failed, timeout, refused) and, for failures, the alert.", "result", "reason")
	mInFlight   = metricDesc("tls_handshakes_in_flight", "TLS connections still handshaking.")
	mQueue      = metricDesc("tls_worker_queue_depth", "Handshake jobs waiting for a TLS worker.")
	mTLSConns   = metricDesc("tls_connections", "Open TLS connections.")
)

func metricDesc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("loopkv_"+name, help, labels, nil)
}

// metricsCollector is the server's prometheus.Collector.
type metricsCollector struct{ s *Server }

// Describe sends nothing: the collector is unchecked, as its label values
// (commands, error codes, databases) are known only at a scrape.
func (metricsCollector) Describe(chan<- *prometheus.Desc) {}

// Collect reads the counters once per scrape.
func (m metricsCollector) Collect(ch chan<- prometheus.Metric) {
	s := m.s
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	gauge := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), labels...)
	}
	st := storeStats(s.store)
	counter(mCommands, s.totalCommands())
	counter(mConns, s.stats.totalConns.Load())
	counter(mRejected, s.stats.rejectedConns.Load())
	gauge(mClients, s.connected.Load())
	gauge(mBlocked, s.blocked.n.Load())
	counter(mHits, st.hits)
	counter(mMisses, st.misses)
	counter(mExpired, st.expired)
	counter(mEvicted, st.evicted)
	gauge(mUsedMem, st.used)
	for db, d := range st.dbs {
		if d.keys > 0 {
			gauge(mDBKeys, int64(d.keys), strconv.Itoa(db))
			gauge(mDBExpires, int64(d.expires), strconv.Itoa(db))
		}
	}
	codes, counts := s.errorTotals()
	for i, code := range codes {
		counter(mErrors, counts[i], code)
	}
	tracking := s.cfg.obs.tracking.Load()
	for _, t := range s.commandTotals() {
		name := t.cmd.full
		counter(mCalls, t.calls, name)
		counter(mCmdRejects, t.rejected, name)
		counter(mCmdFails, t.failed, name)
		if tracking && t.histCalls > 0 {
			ch <- prometheus.MustNewConstHistogram(mDuration, uint64(t.histCalls), float64(t.ns)/1e9, t.secondsBuckets(), name)
		}
	}
	m.collectTLS(ch, counter, gauge)
}

// secondsBuckets is t's histogram as Prometheus buckets: cumulative counts
// at every power of two nanoseconds from 1 µs (1024 ns) to 1 s.
func (t *cmdTotals) secondsBuckets() map[float64]uint64 {
	b := make(map[float64]uint64, 21)
	var cum int64
	i := 0
	for k := 10; k <= 30; k++ {
		edge := int64(1) << k
		for ; i < histBuckets && histUpper(i) < edge; i++ {
			cum += t.hist[i]
		}
		b[float64(edge)/1e9] = uint64(cum)
	}
	return b
}

func (m metricsCollector) collectTLS(ch chan<- prometheus.Metric, counter, gauge func(*prometheus.Desc, int64, ...string)) {
	t := m.s.tls
	if t == nil {
		return
	}
	st := &t.stats
	counter(mHandshakes, st.completed.Load(), "completed", "")
	counter(mHandshakes, st.timeouts.Load(), "timeout", "tls-handshake-timeout")
	counter(mHandshakes, st.refused.Load(), "refused", "tls-max-handshakes")
	var byAlert int64
	for a := range st.byAlert {
		if n := st.byAlert[a].Load(); n > 0 {
			byAlert += n
			counter(mHandshakes, n, "failed", tlsengine.Alert(a).String())
		}
	}
	if rest := st.failed.Load() - byAlert; rest > 0 {
		counter(mHandshakes, rest, "failed", "no_alert")
	}
	gauge(mInFlight, st.inFlight.Load())
	gauge(mQueue, t.queueDepth())
	gauge(mTLSConns, st.conns.Load())
}

// metricsHandler serves the server's metrics and the Go runtime's.
func (s *Server) metricsHandler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(metricsCollector{s}, collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return mux
}

// startMetrics listens on the metrics port when one is set; the returned
// stop closes it. It returns the listener's address ("" when off).
func (s *Server) startMetrics() (addr string, stop func(), err error) {
	if s.opts.MetricsPort == 0 {
		return "", func() {}, nil
	}
	port := s.opts.MetricsPort
	if port < 0 {
		port = 0
	}
	l, err := net.Listen("tcp", net.JoinHostPort(s.opts.Bind, strconv.Itoa(port)))
	if err != nil {
		return "", nil, errors.New("server: metrics port: " + err.Error())
	}
	hs := &http.Server{Handler: s.metricsHandler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("metrics endpoint stopped", zap.Error(err))
		}
	}()
	s.log.Info("metrics endpoint", zap.String("addr", l.Addr().String()))
	return l.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
	}, nil
}
