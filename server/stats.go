package server

import (
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Command statistics: INFO commandstats, errorstats and latencystats,
// LATENCY HISTOGRAM and the metrics endpoint read them.
//
// Every loop counts its own commands (loopStats, one per loopState; a bare
// client without a connection counts into Server.bare). The command path
// takes no lock and allocates nothing in steady state: a loop adds to
// atomic counters that no other loop writes, in a cmdStats per command row
// that the loop allocates the first time it runs that command. Readers sum
// the loops.
//
// Latency histograms are log-linear, like HdrHistogram: values in
// nanoseconds, clamped to [1, 1e9] as Redis clamps them, fall in one of
// histSub linear sub-buckets per power of two, so a percentile is exact
// to within 1/histSub of its value.
const (
	histSubBits = 3
	histSub     = 1 << histSubBits                 // sub-buckets per power of two
	histMaxNs   = 1_000_000_000                    // Redis's LATENCY_HISTOGRAM_MAX_VALUE
	histBuckets = (30 - histSubBits + 1) * histSub // 1e9 < 2^30
)

// histIndex is the sub-bucket of v nanoseconds: v itself below histSub,
// then histSub sub-buckets per power of two.
func histIndex(v int64) int {
	if v < histSub {
		if v < 1 {
			return 1
		}
		return int(v)
	}
	if v > histMaxNs {
		v = histMaxNs
	}
	e := bits.Len64(uint64(v)) - histSubBits - 1 // v>>e is in [histSub, 2*histSub)
	return (e+1)*histSub + int(v>>e) - histSub
}

// histUpper is the largest value sub-bucket i holds.
func histUpper(i int) int64 {
	if i < histSub {
		return int64(i)
	}
	e := i/histSub - 1
	m := int64(i%histSub + histSub)
	return (m+1)<<e - 1
}

// cmdStats are one loop's counters for one command row. Its calls are
// the sum of hist, which counts every call; latency-tracking only decides
// whether the histograms are reported.
type cmdStats struct {
	ns       atomic.Int64 // total duration
	rejected atomic.Int64 // refused before running: arity, auth, ACL, OOM
	failed   atomic.Int64 // ran and replied with an error
	hist     [histBuckets]atomic.Int64
}

// errCodes are the error codes loopkv replies with, the first word of an
// error reply; errorstats counts each per loop. A code not listed is
// counted in Server.otherErrs.
var errCodes = [...]string{"ERR", "WRONGTYPE", "NOAUTH", "WRONGPASS", "NOPERM", "NOPROTO", "OOM",
	"BUSYKEY", "EXECABORT", "NOSCRIPT", "LOADING", "READONLY", "MISCONF", "BUSY", "UNBLOCKED",
	"CROSSSLOT", "MOVED", "ASK", "NOGROUP"}

// loopStats are one loop's command and error counters. The loop writes;
// any goroutine reads.
type loopStats struct {
	cmds []atomic.Pointer[cmdStats] // by command id; nil until the command first runs here
	errs [len(errCodes)]atomic.Int64
}

func newLoopStats() loopStats {
	return loopStats{cmds: make([]atomic.Pointer[cmdStats], len(commands().rows))}
}

// cmd returns the counters of cmd, allocating them on its first call here.
// owning loop only.
func (st *loopStats) cmd(cmd *command) *cmdStats {
	cs := st.cmds[cmd.id].Load()
	if cs == nil {
		cs = new(cmdStats)
		st.cmds[cmd.id].Store(cs)
	}
	return cs
}

// otherErrs counts error codes not in errCodes, as Redis does up to 128
// codes; only such an error takes its lock.
type otherErrs struct {
	mu sync.Mutex
	m  map[string]int64
}

// callMark is what endCall needs from before the handler ran.
type callMark struct {
	start time.Duration // monotonic, since clockStart
	out   int           // len(c.out) before the reply
}

// beginCall marks the start of a command. The clock is read once per
// command: a command starts when the one before it in the batch ended
// (c.mono), so only a batch's first command reads it here. owning loop
// only.
func beginCall(c *cmdCtx) callMark {
	if c.mono == 0 {
		c.mono = sinceStart()
	}
	return callMark{start: c.mono, out: len(c.out)}
}

// endCall counts a command that ran: its duration, the histogram, and an
// error reply as a failure; then the slow log, the latency monitor and
// the monitors. owning loop only.
func (s *Server) endCall(c *cmdCtx, cmd *command, m callMark) {
	c.mono = sinceStart()
	d := int64(c.mono - m.start)
	st := s.statsOf(c.cl)
	cs := st.cmd(cmd)
	if t := c.txn; t != nil {
		t.addStats(cs, d) // multi.go: added up at EXEC's end
	} else {
		cs.ns.Add(d)
		cs.hist[histIndex(d)].Add(1)
	}
	if len(c.out) > m.out && c.out[m.out] == '-' {
		cs.failed.Add(1)
		s.countError(st, c.out[m.out+1:])
	}
	if us := d / 1000; us >= s.cfg.obs.slowerThan.Load() && s.cfg.obs.slowerThan.Load() >= 0 {
		s.slowlog.add(c, cmd, us)
	}
	if th := s.cfg.obs.monitorThreshold.Load(); th > 0 && d/1e6 >= th {
		event := "command"
		if cmd.Flags&flagFast != 0 {
			event = "fast-command"
		}
		s.latency.add(event, d/1e6)
	}
	if s.monitors.n.Load() > 0 {
		s.feedMonitors(c, cmd) // monitor.go
	}
}

// rejectCall replies msg to a command refused before it ran and counts it:
// the error code, and the command's rejected_calls when it is known.
func (s *Server) rejectCall(c *cmdCtx, cmd *command, msg string) {
	mark := len(c.out)
	c.errReply(msg)
	st := s.statsOf(c.cl)
	if cmd == nil { // an arity error still names its command
		if cmd = lookupCommand(c.args[0]); cmd != nil && len(cmd.subs) > 0 && len(c.args) > 1 {
			cmd = cmd.sub(c.args[1])
		}
		if cmd != nil && arityOK(cmd.Arity, len(c.args)) {
			cmd = nil // an unknown subcommand: no row to count
		}
	}
	if cmd != nil {
		st.cmd(cmd).rejected.Add(1)
	}
	s.countError(st, c.out[mark+1:])
}

// countError counts the error reply starting at e (after the '-').
func (s *Server) countError(st *loopStats, e []byte) {
	n := 0
	for n < len(e) && e[n] != ' ' && e[n] != '\r' {
		n++
	}
	code := e[:n]
	for i, k := range errCodes {
		if string(code) == k {
			st.errs[i].Add(1)
			return
		}
	}
	o := &s.otherErrs
	o.mu.Lock()
	if o.m == nil {
		o.m = make(map[string]int64)
	}
	if _, ok := o.m[string(code)]; ok || len(o.m) < 128 {
		o.m[string(code)]++
	}
	o.mu.Unlock()
}

// statsOf is the counters of cl's loop.
func (s *Server) statsOf(cl *client) *loopStats {
	if cl.conn != nil {
		return &cl.conn.ls.stats
	}
	return &s.bare
}

// allStats is every loop's counters, the bare client's last.
func (s *Server) allStats() []*loopStats {
	loops := s.loopSnapshot()
	all := make([]*loopStats, 0, len(loops)+1)
	for _, ls := range loops {
		all = append(all, &ls.stats)
	}
	return append(all, &s.bare)
}

// cmdTotals is one command's counters summed over the loops; every call
// is in hist, so calls == histCalls.
type cmdTotals struct {
	cmd                         *command
	calls, ns, rejected, failed int64
	hist                        [histBuckets]int64
	histCalls                   int64
}

// commandTotals sums the loops' counters of every command that ran or was
// rejected, in name order.
func (s *Server) commandTotals() []*cmdTotals {
	rows := commands().rows
	var out []*cmdTotals
	byID := make(map[int]*cmdTotals)
	for _, st := range s.allStats() {
		for id := range st.cmds {
			cs := st.cmds[id].Load()
			if cs == nil {
				continue
			}
			t := byID[id]
			if t == nil {
				t = &cmdTotals{cmd: rows[id]}
				byID[id] = t
				out = append(out, t)
			}
			t.ns += cs.ns.Load()
			t.rejected += cs.rejected.Load()
			t.failed += cs.failed.Load()
			for i := range cs.hist {
				n := cs.hist[i].Load()
				t.hist[i] += n
				t.histCalls += n
			}
			t.calls = t.histCalls
		}
	}
	out = slices.DeleteFunc(out, func(t *cmdTotals) bool { return t.calls == 0 && t.rejected == 0 })
	slices.SortFunc(out, func(a, b *cmdTotals) int { return strings.Compare(a.cmd.full, b.cmd.full) })
	return out
}

// errorTotals sums the error counts by code, in code order.
func (s *Server) errorTotals() ([]string, []int64) {
	var counts [len(errCodes)]int64
	for _, st := range s.allStats() {
		for i := range st.errs {
			counts[i] += st.errs[i].Load()
		}
	}
	m := map[string]int64{}
	for i, n := range counts {
		if n > 0 {
			m[errCodes[i]] = n
		}
	}
	s.otherErrs.mu.Lock()
	for k, n := range s.otherErrs.m {
		m[k] += n
	}
	s.otherErrs.mu.Unlock()
	codes := make([]string, 0, len(m))
	for k := range m {
		codes = append(codes, k)
	}
	slices.Sort(codes)
	ns := make([]int64, len(codes))
	for i, k := range codes {
		ns[i] = m[k]
	}
	return codes, ns
}

// resetStats zeroes the command, error and latency counters (CONFIG
// RESETSTAT). A loop's add racing with it may survive; no count is torn.
func (s *Server) resetStats() {
	for _, st := range s.allStats() {
		for id := range st.cmds {
			if cs := st.cmds[id].Load(); cs != nil {
				cs.ns.Store(0)
				cs.rejected.Store(0)
				cs.failed.Store(0)
				for i := range cs.hist {
					cs.hist[i].Store(0)
				}
			}
		}
		for i := range st.errs {
			st.errs[i].Store(0)
		}
	}
	s.otherErrs.mu.Lock()
	s.otherErrs.m = nil
	s.otherErrs.mu.Unlock()
}

// totalErrors is total_error_replies.
func (s *Server) totalErrors() int64 {
	_, ns := s.errorTotals()
	var n int64
	for _, v := range ns {
		n += v
	}
	return n
}

// percentile is the value at p percent (0..100) of t's histogram in
// nanoseconds: the upper end of the sub-bucket holding it.
func (t *cmdTotals) percentile(p float64) int64 {
	if t.histCalls == 0 {
		return 0
	}
	want := int64(p/100*float64(t.histCalls) + 0.5)
	if want < 1 {
		want = 1
	}
	var seen int64
	for i, n := range t.hist {
		if seen += n; seen >= want {
			return histUpper(i)
		}
	}
	return histUpper(histBuckets - 1)
}

// cdfStep is one step of LATENCY HISTOGRAM's distribution: the calls that
// took at most usec microseconds.
type cdfStep struct{ usec, calls int64 }

// cdf is t's cumulative distribution in powers of two from 1024 ns, the
// steps LATENCY HISTOGRAM prints (Redis iterates its HdrHistogram from
// 1024 ns, doubling): only steps that add calls appear. A step's label is
// its upper bound in microseconds as Redis computes it, including the
// HdrHistogram resolution at 2^k ns (2^(k-7)).
func (t *cmdTotals) cdf() []cdfStep {
	var steps []cdfStep
	var cum, prev int64
	i := 0
	for k := 10; k <= 30; k++ {
		edge := int64(1) << k
		for ; i < histBuckets && histUpper(i) < edge; i++ {
			cum += t.hist[i]
		}
		if cum > prev {
			steps = append(steps, cdfStep{usec: (edge + edge>>7 - 1) / 1000, calls: cum})
		}
		prev = cum
		if cum == t.histCalls {
			break
		}
	}
	return steps
}

// INFO sections.

func (s *Server) infoCommandStats(b []byte) []byte {
	b = append(b, "# Commandstats\r\n"...)
	for _, t := range s.commandTotals() {
		usec := t.ns / 1000
		per := 0.0
		if t.calls > 0 {
			per = float64(usec) / float64(t.calls)
		}
		b = append(b, "cmdstat_"...)
		b = append(b, t.cmd.full...)
		b = append(b, ":calls="...)
		b = strconv.AppendInt(b, t.calls, 10)
		b = append(b, ",usec="...)
		b = strconv.AppendInt(b, usec, 10)
		b = append(b, ",usec_per_call="...)
		b = strconv.AppendFloat(b, per, 'f', 2, 64)
		b = append(b, ",rejected_calls="...)
		b = strconv.AppendInt(b, t.rejected, 10)
		b = append(b, ",failed_calls="...)
		b = strconv.AppendInt(b, t.failed, 10)
		b = append(b, "\r\n"...)
	}
	return b
}

func (s *Server) infoErrorStats(b []byte) []byte {
	b = append(b, "# Errorstats\r\n"...)
	codes, ns := s.errorTotals()
	for i, k := range codes {
		b = append(b, "errorstat_"...)
		b = append(b, k...)
		b = append(b, ":count="...)
		b = strconv.AppendInt(b, ns[i], 10)
		b = append(b, "\r\n"...)
	}
	return b
}

func (s *Server) infoLatencyStats(b []byte) []byte {
	b = append(b, "# Latencystats\r\n"...)
	if !s.cfg.obs.tracking.Load() {
		return b
	}
	ps := *s.cfg.obs.percentiles.Load()
	for _, t := range s.commandTotals() {
		if t.histCalls == 0 {
			continue
		}
		b = append(b, "latency_percentiles_usec_"...)
		b = append(b, t.cmd.full...)
		b = append(b, ':')
		for i, p := range ps {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, 'p')
			b = append(b, formatPercentile(p)...)
			b = append(b, '=')
			b = strconv.AppendFloat(b, float64(t.percentile(p))/1000, 'f', 3, 64)
		}
		b = append(b, "\r\n"...)
	}
	return b
}

// formatPercentile prints p as Redis does: %f with the trailing zeros and
// point trimmed (99.9, 50).
func formatPercentile(p float64) string {
	f := strconv.FormatFloat(p, 'f', 6, 64)
	f = strings.TrimRight(f, "0")
	return strings.TrimSuffix(f, ".")
}
