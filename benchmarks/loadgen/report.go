package loadgen

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Report writes, under dir, <stem>.md (a Markdown table of medians, min-max
// and ratios of every scenario's figures across repetitions) and the PNG
// plots the results allow: throughput vs pipeline depth, latency
// percentiles, memory vs connections and server CPU per handshake. It
// returns the paths written, the Markdown first. Targets are compared in the
// order their labels first appear; the ratio column is first/second.
func Report(rs []*Result, dir, stem string) ([]string, error) {
	if len(rs) == 0 {
		return nil, fmt.Errorf("loadgen: no results to report")
	}
	labels := labelsOf(rs)
	var pngs []string
	for _, p := range plots {
		path := filepath.Join(dir, stem+"-"+p.name+".png")
		ok, err := p.draw(rs, labels, path)
		if err != nil {
			return nil, fmt.Errorf("loadgen: plot %s: %w", p.name, err)
		}
		if ok {
			pngs = append(pngs, path)
		}
	}
	md := filepath.Join(dir, stem+".md")
	f, err := os.Create(md)
	if err != nil {
		return nil, err
	}
	writeMarkdown(f, rs, labels, pngs)
	if err := f.Close(); err != nil {
		return nil, err
	}
	return append([]string{md}, pngs...), nil
}

func labelsOf(rs []*Result) []string {
	var ls []string
	for _, r := range rs {
		if !slices.Contains(ls, r.Label) {
			ls = append(ls, r.Label)
		}
	}
	return ls
}

// scenarioOf names the comparison row of r.
func scenarioOf(r *Result) string {
	if r.Scenario != "" {
		return r.Scenario
	}
	s := r.Mode
	if r.TLS {
		s += "-tls"
	}
	if r.Pipeline > 0 {
		s += "-p" + strconv.Itoa(r.Pipeline)
	}
	return s
}

// metric is one figure of a scenario's results.
type metric struct {
	name string
	get  func(r *Result) (float64, bool)
}

func metricsFor(r *Result) []metric {
	lat := func(name string, f func(l *Latency) float64) metric {
		return metric{name, func(r *Result) (float64, bool) {
			if r.Latency == nil || r.Latency.Count == 0 {
				return 0, false
			}
			return f(r.Latency), true
		}}
	}
	known := func(f func(r *Result) float64) func(r *Result) (float64, bool) {
		return func(r *Result) (float64, bool) { v := f(r); return v, v >= 0 }
	}
	switch r.Mode {
	case "throughput":
		return []metric{
			{"server CPU µs/op", known(func(r *Result) float64 { return r.ServerCPUPerOp })},
			{"ops/s", known(func(r *Result) float64 { return r.OpsPerSec })},
			lat("p50 µs", func(l *Latency) float64 { return l.P50 }),
			lat("p99 µs", func(l *Latency) float64 { return l.P99 }),
			lat("p99.9 µs", func(l *Latency) float64 { return l.P999 }),
		}
	case "churn":
		return []metric{
			{"server CPU µs/handshake", known(func(r *Result) float64 { return r.ServerCPUPerHS })},
			{"handshakes/s", known(func(r *Result) float64 { return r.HandshakesPerSec })},
			lat("p99 µs", func(l *Latency) float64 { return l.P99 }),
		}
	case "storm":
		ph := func(name string, f func(p *StormPhases) float64) metric {
			return metric{name, func(r *Result) (float64, bool) {
				if r.Storm == nil {
					return 0, false
				}
				return f(r.Storm), true
			}}
		}
		return []metric{
			ph("p99 µs before", func(p *StormPhases) float64 { return p.Before.P99 }),
			ph("p99 µs during", func(p *StormPhases) float64 { return p.During.P99 }),
			ph("p99 µs after", func(p *StormPhases) float64 { return p.After.P99 }),
			ph("ops/s during", func(p *StormPhases) float64 { return p.DuringOps }),
			ph("storm handshakes/s", func(p *StormPhases) float64 { return p.StormHandshakesPerSec }),
		}
	case "conns":
		var ms []metric
		for i, s := range r.Steps {
			at := func(f func(s ConnStep) float64) func(r *Result) (float64, bool) {
				return func(r *Result) (float64, bool) {
					if i >= len(r.Steps) || r.Steps[i].RSSKB == 0 {
						return 0, false
					}
					return f(r.Steps[i]), true
				}
			}
			ms = append(ms,
				metric{fmt.Sprintf("RSS MiB @%d", s.Conns), at(func(s ConnStep) float64 { return float64(s.RSSKB) / 1024 })},
				metric{fmt.Sprintf("threads @%d", s.Conns), at(func(s ConnStep) float64 { return float64(s.Threads) })})
		}
		ms = append(ms, metric{"KiB per connection", func(r *Result) (float64, bool) {
			if len(r.Steps) < 2 {
				return 0, false
			}
			a, b := r.Steps[0], r.Steps[len(r.Steps)-1]
			if a.RSSKB == 0 || b.Conns == a.Conns {
				return 0, false
			}
			return float64(b.RSSKB-a.RSSKB) / float64(b.Conns-a.Conns), true
		}})
		return ms
	}
	return nil
}

// spread is the median and range of one figure across repetitions.
type spread struct {
	med, lo, hi float64
	n           int
}

func spreadOf(vs []float64) spread {
	if len(vs) == 0 {
		return spread{}
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return spread{med: m, lo: s[0], hi: s[len(s)-1], n: len(s)}
}

// fmtNum prints v with about four significant digits.
func fmtNum(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1000 || v == math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// scenarios groups results by scenario, in order of first appearance.
func scenarios(rs []*Result) (names []string, by map[string][]*Result) {
	by = map[string][]*Result{}
	for _, r := range rs {
		s := scenarioOf(r)
		if _, ok := by[s]; !ok {
			names = append(names, s)
		}
		by[s] = append(by[s], r)
	}
	return names, by
}

func writeMarkdown(w io.Writer, rs []*Result, labels, pngs []string) {
	m := rs[0].Meta
	fmt.Fprintf(w, "# loopkv-bench comparison, %s\n\n", m.Time)
	fmt.Fprintf(w, "Machine: %s, %d CPUs; load generator on %d CPU(s), GOMAXPROCS %d, %s; commit %s; loopback.\n\n",
		m.CPU, m.MachineCPUs, m.NumCPU, m.GOMAXPROCS, m.GoVersion, cmp.Or(m.Commit, "unknown"))
	if tls := tlsInfos(rs, labels); tls != "" {
		fmt.Fprintf(w, "TLS negotiated: %s.\n\n", tls)
	}
	fmt.Fprintf(w, "Each cell: median (min–max) over repetitions, run alternately against each target. ")
	fmt.Fprintf(w, "Server CPU per operation is the main figure; throughput and latency depend on the load generator sharing the machine.\n\n")
	fmt.Fprintf(w, "| scenario | figure |")
	for _, l := range labels {
		fmt.Fprintf(w, " %s |", cmp.Or(l, "target"))
	}
	if len(labels) >= 2 {
		fmt.Fprintf(w, " %s/%s |", labels[0], labels[1])
	}
	fmt.Fprintf(w, "\n|---|---|%s\n", strings.Repeat("---|", len(labels)+min(1, len(labels)/2)))
	names, by := scenarios(rs)
	for _, sc := range names {
		group := by[sc]
		unavailable := map[string]string{}
		var proto *Result
		for _, r := range group {
			if r.Unavailable != "" {
				unavailable[r.Label] = r.Unavailable
			} else if proto == nil || len(r.Steps) > len(proto.Steps) {
				proto = r
			}
		}
		if proto == nil {
			proto = group[0]
		}
		for _, mt := range metricsFor(proto) {
			fmt.Fprintf(w, "| %s | %s |", sc, mt.name)
			meds := make([]spread, len(labels))
			for i, l := range labels {
				var vs []float64
				for _, r := range group {
					if r.Label == l && r.Unavailable == "" {
						if v, ok := mt.get(r); ok {
							vs = append(vs, v)
						}
					}
				}
				meds[i] = spreadOf(vs)
				switch {
				case len(vs) > 0:
					fmt.Fprintf(w, " %s (%s–%s) |", fmtNum(meds[i].med), fmtNum(meds[i].lo), fmtNum(meds[i].hi))
				case unavailable[l] != "":
					fmt.Fprintf(w, " unavailable: %s |", unavailable[l])
				default:
					fmt.Fprintf(w, " n/a |")
				}
			}
			if len(labels) >= 2 {
				if meds[0].n > 0 && meds[1].n > 0 && meds[1].med != 0 {
					fmt.Fprintf(w, " %.2f |", meds[0].med/meds[1].med)
				} else {
					fmt.Fprintf(w, " – |")
				}
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w)
	for _, p := range pngs {
		base := filepath.Base(p)
		fmt.Fprintf(w, "![%s](%s)\n\n", strings.TrimSuffix(base, ".png"), base)
	}
}

// tlsInfos lists each target's negotiated TLS parameters.
func tlsInfos(rs []*Result, labels []string) string {
	var parts []string
	for _, l := range labels {
		var seen []string
		for _, r := range rs {
			if r.Label == l && r.TLSInfo != "" && !slices.Contains(seen, r.TLSInfo) {
				seen = append(seen, r.TLSInfo)
			}
		}
		if len(seen) > 0 {
			parts = append(parts, cmp.Or(l, "target")+": "+strings.Join(seen, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// A plot draws one PNG from the results; it reports false when the
// results hold nothing to draw.
var plots = []struct {
	name string
	draw func(rs []*Result, labels []string, path string) (bool, error)
}{
	{"throughput-vs-pipeline", plotThroughput},
	{"latency-percentiles", plotLatency},
	{"memory-vs-connections", plotMemory},
	{"cpu-per-handshake", plotHandshakeCPU},
}

// seriesName names a line: the target, and whether it ran over TLS.
func seriesName(r *Result) string {
	s := cmp.Or(r.Label, "target")
	if r.TLS {
		return s + " tls"
	}
	return s + " plain"
}

// medianXY collects y(r) by series and x, and returns each series'
// (x, median y) points sorted by x, series in first-appearance order.
func medianXY(rs []*Result, keep func(r *Result) bool, series func(r *Result) string,
	x func(r *Result) []float64, y func(r *Result) []float64) ([]string, map[string]plotter.XYs) {
	var names []string
	pts := map[string]map[float64][]float64{}
	for _, r := range rs {
		if r.Unavailable != "" || !keep(r) {
			continue
		}
		s := series(r)
		if pts[s] == nil {
			names = append(names, s)
			pts[s] = map[float64][]float64{}
		}
		xs, ys := x(r), y(r)
		for i := range xs {
			if ys[i] >= 0 {
				pts[s][xs[i]] = append(pts[s][xs[i]], ys[i])
			}
		}
	}
	out := map[string]plotter.XYs{}
	for _, s := range names {
		for xv, ys := range pts[s] {
			out[s] = append(out[s], plotter.XY{X: xv, Y: spreadOf(ys).med})
		}
		slices.SortFunc(out[s], func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
	}
	return names, out
}

// addLines adds one line with points per series and saves the plot; the
// legend goes top left, above lines that rise to the right. A linear Y axis
// starts at 0 so that differences are not exaggerated.
func addLines(p *plot.Plot, names []string, xys map[string]plotter.XYs, path string) (bool, error) {
	var args []any
	for _, n := range names {
		if len(xys[n]) > 0 {
			args = append(args, n, xys[n])
		}
	}
	if len(args) == 0 {
		return false, nil
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return false, err
	}
	p.Legend.Top, p.Legend.Left = true, true
	if _, isLog := p.Y.Scale.(plot.LogScale); !isLog {
		p.Y.Min = 0
	}
	return true, p.Save(7*vg.Inch, 4.5*vg.Inch, path)
}

func plotThroughput(rs []*Result, _ []string, path string) (bool, error) {
	names, xys := medianXY(rs,
		func(r *Result) bool { return r.Mode == "throughput" && r.Rate == 0 && r.Pipeline > 0 },
		seriesName,
		func(r *Result) []float64 { return []float64{float64(r.Pipeline)} },
		func(r *Result) []float64 { return []float64{r.OpsPerSec} })
	p := plot.New()
	p.Title.Text = "Throughput vs pipeline depth (closed loop, median)"
	p.X.Label.Text = "pipeline depth"
	p.Y.Label.Text = "ops/s"
	return addLines(p, names, xys, path)
}

var percentileNames = []string{"p50", "p90", "p99", "p99.9", "max"}

func plotLatency(rs []*Result, _ []string, path string) (bool, error) {
	// Rate-limited runs show latency best; fall back to every throughput run.
	paced := slices.ContainsFunc(rs, func(r *Result) bool { return r.Mode == "throughput" && r.Rate > 0 })
	names, xys := medianXY(rs,
		func(r *Result) bool {
			return r.Mode == "throughput" && r.Latency != nil && r.Latency.Count > 0 && (r.Rate > 0 || !paced)
		},
		func(r *Result) string { return cmp.Or(r.Label, "target") + " " + scenarioOf(r) },
		func(r *Result) []float64 { return []float64{0, 1, 2, 3, 4} },
		func(r *Result) []float64 {
			l := r.Latency
			return []float64{l.P50, l.P90, l.P99, l.P999, l.Max}
		})
	p := plot.New()
	p.Title.Text = "Latency percentiles (median over repetitions)"
	p.Y.Label.Text = "µs (log scale)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.NominalX(percentileNames...)
	for _, n := range names { // a log axis cannot show 0
		for i := range xys[n] {
			xys[n][i].Y = max(xys[n][i].Y, 0.1)
		}
	}
	return addLines(p, names, xys, path)
}

func plotMemory(rs []*Result, _ []string, path string) (bool, error) {
	names, xys := medianXY(rs,
		func(r *Result) bool { return r.Mode == "conns" },
		seriesName,
		func(r *Result) []float64 {
			var xs []float64
			for _, s := range r.Steps {
				xs = append(xs, float64(s.Conns))
			}
			return xs
		},
		func(r *Result) []float64 {
			var ys []float64
			for _, s := range r.Steps {
				ys = append(ys, cmp.Or(float64(s.RSSKB)/1024, -1))
			}
			return ys
		})
	p := plot.New()
	p.Title.Text = "Server memory vs idle connections (median)"
	p.X.Label.Text = "connections"
	p.Y.Label.Text = "RSS MiB"
	return addLines(p, names, xys, path)
}

func plotHandshakeCPU(rs []*Result, labels []string, path string) (bool, error) {
	var groups []string
	vals := map[string]map[string][]float64{} // label → scenario → values
	for _, r := range rs {
		if r.Mode != "churn" || r.Unavailable != "" || r.ServerCPUPerHS < 0 {
			continue
		}
		sc := scenarioOf(r)
		if !slices.Contains(groups, sc) {
			groups = append(groups, sc)
		}
		if vals[r.Label] == nil {
			vals[r.Label] = map[string][]float64{}
		}
		vals[r.Label][sc] = append(vals[r.Label][sc], r.ServerCPUPerHS)
	}
	if len(groups) == 0 {
		return false, nil
	}
	p := plot.New()
	p.Title.Text = "Server CPU per handshake (median)"
	p.Y.Label.Text = "µs CPU per connection"
	const w = 18
	for i, l := range labels {
		v := make(plotter.Values, len(groups))
		for j, g := range groups {
			v[j] = spreadOf(vals[l][g]).med
		}
		bars, err := plotter.NewBarChart(v, vg.Points(w))
		if err != nil {
			return false, err
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		bars.Offset = vg.Points(w * (float64(i) - float64(len(labels)-1)/2))
		p.Add(bars)
		p.Legend.Add(cmp.Or(l, "target"), bars)
	}
	p.Legend.Top = true
	p.NominalX(groups...)
	return true, p.Save(7*vg.Inch, 4.5*vg.Inch, path)
}
