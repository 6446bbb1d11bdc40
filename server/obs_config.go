package server

import (
	"github.com/loopkv/loopkv/config"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
)

// obsConfig holds the observability settings loops read per command.
type obsConfig struct {
	slowerThan       atomic.Int64 // slowlog-log-slower-than, microseconds; < 0 disables
	slowlogMaxLen    atomic.Int64 // slowlog-max-len
	monitorThreshold atomic.Int64 // latency-monitor-threshold, milliseconds; 0 disables
	tracking         atomic.Bool  // latency-tracking
	percentiles      atomic.Pointer[[]float64]
}

// Redis's defaults of the observability settings.
const (
	defaultSlowerThan  = "10000"
	defaultSlowlogLen  = "128"
	defaultTracking    = "yes"
	defaultPercentiles = "50 99 99.9"
)

// load applies o's observability settings through CONFIG SET's parsers;
// the error names the first setting refused.
func (c *obsConfig) load(s *Server, o Options) error {
	if err := s.applyStartValues([]startValue{
		{"slowlog-log-slower-than", o.SlowlogLogSlowerThan, defaultSlowerThan},
		{"slowlog-max-len", o.SlowlogMaxLen, defaultSlowlogLen},
		{"latency-monitor-threshold", o.LatencyMonitorThreshold, "0"},
		{"latency-tracking", o.LatencyTracking, defaultTracking},
		{"latency-tracking-info-percentiles", o.LatencyTrackingInfoPercentiles, defaultPercentiles},
	}); err != nil {
		return err
	}
	return nil
}

func init() { registerSettings(obsSettings...) }

// obsSettings are the observability settings.
var obsSettings = []configParam{
	atomicInt(config.Setting{Name: "slowlog-log-slower-than", Default: defaultSlowerThan, Type: config.Int{Min: -1, Max: math.MaxInt64},
		Help: "log commands slower than this many microseconds in SLOWLOG; -1 off, 0 every command"},
		func(s *Server) *atomic.Int64 { return &s.cfg.obs.slowerThan },
		func(o *Options, n int64) { o.SlowlogLogSlowerThan = strconv.FormatInt(n, 10) }),
	{Setting: config.Setting{Name: "slowlog-max-len", Default: defaultSlowlogLen, Type: config.Int{Max: math.MaxInt64, Unsigned: true},
		Help: "entries SLOWLOG keeps"},
		get: func(s *Server) string { return strconv.FormatInt(s.cfg.obs.slowlogMaxLen.Load(), 10) },
		apply: func(s *Server, v config.Value) {
			s.cfg.obs.slowlogMaxLen.Store(v.N)
			s.slowlog.trim(int(v.N))
		},
		opt: func(o *Options, v config.Value) string { o.SlowlogMaxLen = v.S; return "" }},
	atomicInt(config.Setting{Name: "latency-monitor-threshold", Default: "0", Type: config.Int{Max: math.MaxInt64},
		Help: "record LATENCY events of at least this many milliseconds; 0 off"},
		func(s *Server) *atomic.Int64 { return &s.cfg.obs.monitorThreshold },
		func(o *Options, n int64) { o.LatencyMonitorThreshold = strconv.FormatInt(n, 10) }),
	atomicBool(config.Setting{Name: "latency-tracking", Default: defaultTracking, Type: config.Bool{},
		Help: "track per-command latency histograms (INFO latencystats, LATENCY HISTOGRAM)"},
		func(s *Server) *atomic.Bool { return &s.cfg.obs.tracking }, func(o *Options) *string { return &o.LatencyTracking }),
	{Setting: config.Setting{Name: "latency-tracking-info-percentiles", Default: defaultPercentiles, Type: config.Func(parsePercentiles),
		Help: "percentiles INFO latencystats reports, 0 to 100; empty for none"},
		get: func(s *Server) string {
			ps := *s.cfg.obs.percentiles.Load()
			f := make([]string, len(ps))
			for i, p := range ps {
				f[i] = formatPercentile(p)
			}
			return strings.Join(f, " ")
		},
		apply: func(s *Server, v config.Value) {
			ps, _ := percentiles(v.S)
			s.cfg.obs.percentiles.Store(&ps)
		},
		opt: func(o *Options, v config.Value) string {
			if o.LatencyTrackingInfoPercentiles = v.S; v.S == "" {
				o.LatencyTrackingInfoPercentiles = " " // given empty: no percentiles, as in Redis
			}
			return ""
		}},
}

// parsePercentiles checks a latency-tracking-info-percentiles value:
// numbers in [0, 100], or none.
func parsePercentiles(v string) (config.Value, string) {
	if _, msg := percentiles(v); msg != "" {
		return config.Value{}, msg
	}
	return config.Value{S: v}, ""
}

// percentiles parses a latency-tracking-info-percentiles value.
func percentiles(v string) ([]float64, string) {
	var ps []float64
	for _, f := range strings.Fields(v) {
		p, err := strconv.ParseFloat(f, 64)
		if err != nil || math.IsNaN(p) {
			return nil, "Invalid latency-tracking-info-percentiles parameters"
		}
		if p < 0 || p > 100 {
			return nil, "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
		}
		ps = append(ps, p)
	}
	return ps, ""
}
