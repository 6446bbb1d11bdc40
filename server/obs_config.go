package server

import (
	"errors"
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
	for _, kv := range [...]struct{ name, v, def string }{
		{"slowlog-log-slower-than", o.SlowlogLogSlowerThan, defaultSlowerThan},
		{"slowlog-max-len", o.SlowlogMaxLen, defaultSlowlogLen},
		{"latency-monitor-threshold", o.LatencyMonitorThreshold, "0"},
		{"latency-tracking", o.LatencyTracking, defaultTracking},
		{"latency-tracking-info-percentiles", o.LatencyTrackingInfoPercentiles, defaultPercentiles},
	} {
		v := kv.v
		if v == "" {
			v = kv.def
		}
		if msg := findConfigParam([]byte(kv.name)).setValue(s, v); msg != "" {
			return errors.New("server: " + kv.name + ": " + msg + ": " + strconv.Quote(v))
		}
	}
	return nil
}

func init() { configParams = append(configParams, obsParams...) }

// obsParams are the observability settings' CONFIG rows.
var obsParams = []configParam{
	boundedIntParam("slowlog-log-slower-than", -1, math.MaxInt64,
		func(s *Server) *atomic.Int64 { return &s.cfg.obs.slowerThan }),
	{Setting: config.Setting{Name: "slowlog-max-len"},
		get: func(s *Server) string { return strconv.FormatInt(s.cfg.obs.slowlogMaxLen.Load(), 10) },
		set: func(s *Server, v string) string {
			if msg := boundedIntParam("slowlog-max-len", 0, math.MaxInt64,
				func(s *Server) *atomic.Int64 { return &s.cfg.obs.slowlogMaxLen }).set(s, v); msg != "" {
				return msg
			}
			s.slowlog.trim(int(s.cfg.obs.slowlogMaxLen.Load()))
			return ""
		}},
	boundedIntParam("latency-monitor-threshold", 0, math.MaxInt64,
		func(s *Server) *atomic.Int64 { return &s.cfg.obs.monitorThreshold }),
	boolParam("latency-tracking", func(s *Server) *atomic.Bool { return &s.cfg.obs.tracking }),
	{Setting: config.Setting{Name: "latency-tracking-info-percentiles"},
		get: func(s *Server) string {
			ps := *s.cfg.obs.percentiles.Load()
			f := make([]string, len(ps))
			for i, p := range ps {
				f[i] = formatPercentile(p)
			}
			return strings.Join(f, " ")
		},
		set: setPercentiles},
}

// setPercentiles is CONFIG SET latency-tracking-info-percentiles: numbers
// in [0, 100], or none.
func setPercentiles(s *Server, v string) string {
	var ps []float64
	for _, f := range strings.Fields(v) {
		p, err := strconv.ParseFloat(f, 64)
		if err != nil || math.IsNaN(p) {
			return "Invalid latency-tracking-info-percentiles parameters"
		}
		if p < 0 || p > 100 {
			return "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
		}
		ps = append(ps, p)
	}
	s.cfg.obs.percentiles.Store(&ps)
	return ""
}

// boolParam is a yes or no setting, with Redis's message.
func boolParam(name string, v func(s *Server) *atomic.Bool) configParam {
	return configParam{Setting: config.Setting{Name: name},
		get: func(s *Server) string {
			if v(s).Load() {
				return "yes"
			}
			return "no"
		},
		set: func(s *Server, val string) string {
			switch strings.ToLower(val) {
			case "yes":
				v(s).Store(true)
			case "no":
				v(s).Store(false)
			default:
				return "argument must be 'yes' or 'no'"
			}
			return ""
		}}
}
