package server

import (
	"strconv"
	"strings"
	"time"
)

// Observability family: SLOWLOG, LATENCY (slowlog.go, stats.go) and MONITOR
// (monitor.go).

func cmdSlowlogGet(c *cmdCtx) {
	n := int64(10)
	if len(c.args) > 3 {
		c.errReply("ERR unknown subcommand or wrong number of arguments for '" + clip(c.args[1]) + "'. Try SLOWLOG HELP.")
		return
	}
	if len(c.args) == 3 {
		var ok bool
		if n, ok = parseInt(c.args[2]); !ok || n < -1 {
			c.errReply("ERR count should be greater than or equal to -1")
			return
		}
	}
	entries := c.srv.slowlog.newest(int(n))
	c.arrayLen(len(entries))
	for _, e := range entries {
		c.arrayLen(6)
		c.integer(e.id)
		c.integer(e.at)
		c.integer(e.usec)
		c.arrayLen(len(e.args))
		for _, a := range e.args {
			c.bulkString(a)
		}
		c.bulkString(e.addr)
		c.bulkString(e.name)
	}
}

func cmdSlowlogLen(c *cmdCtx)   { c.integer(int64(c.srv.slowlog.len())) }
func cmdSlowlogReset(c *cmdCtx) { c.srv.slowlog.reset(); c.ok() }
func cmdSlowlogHelp(c *cmdCtx)  { helpReply(c, slowlogHelp) }

var slowlogHelp = []string{
	"SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"GET [<count>]",
	"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
	"    Entries are made of:",
	"    id, timestamp, time in microseconds, arguments array, client IP and port,",
	"    client name",
	"LEN",
	"    Return the length of the slowlog.",
	"RESET",
	"    Reset the slowlog.",
	"HELP",
	"    Prints this help.",
}

// cmdLatencyLatest is LATENCY LATEST: per event, its name, the time and
// milliseconds of its latest sample and its all-time maximum.
func cmdLatencyLatest(c *cmdCtx) {
	m := &c.srv.latency
	names := m.eventNames()
	c.arrayLen(len(names))
	for _, name := range names {
		ev := m.event(name)
		if ev == nil || len(ev.samples) == 0 { // reset meanwhile
			c.arrayLen(4)
			c.bulkString(name)
			c.integer(0)
			c.integer(0)
			c.integer(0)
			continue
		}
		last := ev.samples[len(ev.samples)-1]
		c.arrayLen(4)
		c.bulkString(name)
		c.integer(last.at)
		c.integer(last.ms)
		c.integer(ev.max)
	}
}

func cmdLatencyHistory(c *cmdCtx) {
	ev := c.srv.latency.event(string(c.args[2]))
	if ev == nil {
		c.arrayLen(0)
		return
	}
	c.arrayLen(len(ev.samples))
	for _, s := range ev.samples {
		c.arrayLen(2)
		c.integer(s.at)
		c.integer(s.ms)
	}
}

func cmdLatencyReset(c *cmdCtx) {
	names := make([]string, 0, len(c.args)-2)
	for _, a := range c.args[2:] {
		names = append(names, string(a))
	}
	c.integer(int64(c.srv.latency.reset(names)))
}

// cmdLatencyHistogram is LATENCY HISTOGRAM [command ...]: per command, its
// calls and the cumulative distribution of its latencies (stats.go, cdf).
// A container's name stands for its subcommands too; unknown names are
// skipped.
func cmdLatencyHistogram(c *cmdCtx) {
	var totals []*cmdTotals
	if c.srv.cfg.obs.tracking.Load() {
		totals = c.srv.commandTotals()
	}
	var pick []*cmdTotals
	if len(c.args) == 2 || totals == nil {
		pick = totals
	} else {
		byCmd := make(map[*command]*cmdTotals, len(totals))
		for _, t := range totals {
			byCmd[t.cmd] = t
		}
		seen := map[*command]bool{}
		for _, a := range c.args[2:] {
			cmd := commandByName(string(a))
			if cmd == nil {
				continue
			}
			for _, r := range append([]*command{cmd}, cmd.subs...) {
				if t := byCmd[r]; t != nil && !seen[r] {
					seen[r] = true
					pick = append(pick, t)
				}
			}
		}
	}
	n := 0
	for _, t := range pick {
		if t.histCalls > 0 {
			n++
		}
	}
	c.mapLen(n)
	for _, t := range pick {
		if t.histCalls == 0 {
			continue
		}
		c.bulkString(t.cmd.full)
		c.mapLen(2)
		c.bulkString("calls")
		c.integer(t.histCalls)
		c.bulkString("histogram_usec")
		steps := t.cdf()
		c.mapLen(len(steps))
		for _, s := range steps {
			c.integer(s.usec)
			c.integer(s.calls)
		}
	}
}

// cmdLatencyDoctor is LATENCY DOCTOR: a report in Redis's words on the
// events recorded.
func cmdLatencyDoctor(c *cmdCtx) {
	c.verbatim([]byte(latencyReport(c.srv)))
}

func latencyReport(s *Server) string {
	if s.cfg.obs.monitorThreshold.Load() == 0 {
		return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. " +
			"You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. " +
			"If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n"
	}
	names := s.latency.eventNames()
	if len(names) == 0 {
		return "Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. " +
			"I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n"
	}
	var b strings.Builder
	b.WriteString("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n")
	for i, name := range names {
		ev := s.latency.event(name)
		if ev == nil || len(ev.samples) == 0 {
			continue
		}
		var sum int64
		for _, smp := range ev.samples {
			sum += smp.ms
		}
		avg := sum / int64(len(ev.samples))
		var dev int64
		for _, smp := range ev.samples {
			dev += max(smp.ms-avg, avg-smp.ms)
		}
		dev /= int64(len(ev.samples))
		// the mean time between spikes, over at least a second
		elapsed := max(time.Now().Unix()-ev.samples[0].at, 1)
		period := float64(elapsed) / float64(len(ev.samples))
		b.WriteString(strconv.Itoa(i+1) + ". " + name + ": " + strconv.Itoa(len(ev.samples)) +
			" latency spikes (average " + strconv.FormatInt(avg, 10) + "ms, mean deviation " +
			strconv.FormatInt(dev, 10) + "ms, period " + strconv.FormatFloat(period, 'f', 2, 64) +
			" sec). Worst all time event " + strconv.FormatInt(ev.max, 10) + "ms.\n")
	}
	b.WriteString("\nI have a few advices for you:\n\n")
	b.WriteString("- Check your Slow Log to understand what are the commands you are running which are too slow to execute. " +
		"Please check https://redis.io/commands/slowlog for more information.\n")
	b.WriteString("- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. " +
		"If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n")
	return b.String()
}

func cmdLatencyHelp(c *cmdCtx) { helpReply(c, latencyHelp) }

var latencyHelp = []string{
	"LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DOCTOR",
	"    Return a human readable latency analysis report.",
	"GRAPH <event>",
	"    Return an ASCII latency graph for the <event> class.",
	"HISTORY <event>",
	"    Return time-latency samples for the <event> class.",
	"LATEST",
	"    Return the latest latency samples for all events.",
	"RESET [<event> ...]",
	"    Reset latency data of one or more <event> classes.",
	"    (default: reset all data for all event classes)",
	"HISTOGRAM [COMMAND ...]",
	"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
	"    If no commands are specified then all histograms are replied.",
	"HELP",
	"    Prints this help.",
}

// cmdLatencyGraph is LATENCY GRAPH event: Redis's heading, then the
// samples as rows of text, the time and milliseconds of each, where Redis
// draws ASCII art.
func cmdLatencyGraph(c *cmdCtx) {
	name := string(c.args[2])
	ev := c.srv.latency.event(name)
	if ev == nil {
		c.errReply("ERR No samples available for event '" + name + "'")
		return
	}
	var b strings.Builder
	lo, hi := ev.samples[0].ms, ev.samples[0].ms
	for _, s := range ev.samples {
		lo, hi = min(lo, s.ms), max(hi, s.ms)
	}
	b.WriteString(name + " - high " + strconv.FormatInt(hi, 10) + " ms, low " + strconv.FormatInt(lo, 10) +
		" ms (all time high " + strconv.FormatInt(ev.max, 10) + " ms)\n")
	b.WriteString(strings.Repeat("-", 80) + "\n")
	for _, s := range ev.samples {
		b.WriteString(strconv.FormatInt(s.at, 10) + " " + strconv.FormatInt(s.ms, 10) + "\n")
	}
	c.verbatim([]byte(b.String()))
}

var observeCommands = []command{
	{Name: "monitor", Arity: 1, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
		Doc: cmdDoc{Summary: "Listen for all requests received by the server in real time", Since: "1.0.0", Group: "server"},
		Fn:  cmdMonitor},
	{Name: "slowlog", Arity: -2,
		Doc: cmdDoc{Summary: "A container for slow log commands", Since: "2.2.12", Group: "server",
			Complexity: "Depends on subcommand."},
		Subs: []command{
			{Name: "get", Arity: -2, Flags: flagAdmin | flagLoading | flagStale,
				Tips: []string{"request_policy:all_nodes", "nondeterministic_output"},
				Doc: cmdDoc{Summary: "Get the slow log's entries", Since: "2.2.12", Group: "server",
					Complexity: "O(N) where N is the number of entries returned",
					History:    [][2]string{{"4.0.0", "Added client IP address, port and name to the reply."}},
					Args: []cmdArg{
						{Name: "count", Type: argInteger, Flags: argOptional},
					}},
				Fn: cmdSlowlogGet},
			{Name: "help", Arity: 2, Flags: flagLoading | flagStale,
				Doc: cmdDoc{Summary: "Show helpful text about the different subcommands", Since: "6.2.0", Group: "server",
					Complexity: "O(1)"},
				Fn: cmdSlowlogHelp},
			{Name: "len", Arity: 2, Flags: flagAdmin | flagLoading | flagStale,
				Tips: []string{"request_policy:all_nodes", "response_policy:agg_sum", "nondeterministic_output"},
				Doc: cmdDoc{Summary: "Get the slow log's length", Since: "2.2.12", Group: "server",
					Complexity: "O(1)"},
				Fn: cmdSlowlogLen},
			{Name: "reset", Arity: 2, Flags: flagAdmin | flagLoading | flagStale,
				Tips: []string{"request_policy:all_nodes", "response_policy:all_succeeded"},
				Doc: cmdDoc{Summary: "Clear all entries from the slow log", Since: "2.2.12", Group: "server",
					Complexity: "O(N) where N is the number of entries in the slowlog"},
				Fn: cmdSlowlogReset},
		}},
	{Name: "latency", Arity: -2,
		Doc: cmdDoc{Summary: "A container for latency diagnostics commands", Since: "2.8.13", Group: "server",
			Complexity: "Depends on subcommand."},
		Subs: []command{
			{Name: "doctor", Arity: 2, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
				Tips: []string{"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"},
				Doc: cmdDoc{Summary: "Return a human readable latency analysis report.", Since: "2.8.13", Group: "server",
					Complexity: "O(1)"},
				Fn: cmdLatencyDoctor},
			{Name: "graph", Arity: 3, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
				Tips: []string{"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"},
				Doc: cmdDoc{Summary: "Return a latency graph for the event.", Since: "2.8.13", Group: "server",
					Complexity: "O(1)",
					Args: []cmdArg{
						{Name: "event", Type: argString},
					}},
				Fn: cmdLatencyGraph},
			{Name: "help", Arity: 2, Flags: flagLoading | flagStale,
				Doc: cmdDoc{Summary: "Show helpful text about the different subcommands.", Since: "2.8.13", Group: "server",
					Complexity: "O(1)"},
				Fn: cmdLatencyHelp},
			{Name: "histogram", Arity: -2, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
				Tips: []string{"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"},
				Doc: cmdDoc{Summary: "Return the cumulative distribution of latencies of a subset of commands or all.", Since: "7.0.0", Group: "server",
					Complexity: "O(N) where N is the number of commands with latency information being retrieved.",
					Args: []cmdArg{
						{Name: "command", Type: argString, Flags: argOptional | argMultiple},
					}},
				Fn: cmdLatencyHistogram},
			{Name: "history", Arity: 3, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
				Tips: []string{"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"},
				Doc: cmdDoc{Summary: "Return timestamp-latency samples for the event.", Since: "2.8.13", Group: "server",
					Complexity: "O(1)",
					Args: []cmdArg{
						{Name: "event", Type: argString},
					}},
				Fn: cmdLatencyHistory},
			{Name: "latest", Arity: 2, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
				Tips: []string{"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"},
				Doc: cmdDoc{Summary: "Return the latest latency samples for all events.", Since: "2.8.13", Group: "server",
					Complexity: "O(1)"},
				Fn: cmdLatencyLatest},
			{Name: "reset", Arity: -2, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
				Tips: []string{"request_policy:all_nodes", "response_policy:all_succeeded"},
				Doc: cmdDoc{Summary: "Reset latency data for one or more events.", Since: "2.8.13", Group: "server",
					Complexity: "O(1)",
					Args: []cmdArg{
						{Name: "event", Type: argString, Flags: argOptional | argMultiple},
					}},
				Fn: cmdLatencyReset},
		}},
}

func init() { register(observeCommands...) }
