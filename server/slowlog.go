package server

import (
	"slices"
	"strconv"
	"sync"
	"time"
)

// The slow log and the latency monitor record only commands slower than a
// threshold, so their locks are taken by slow commands alone, never on the
// common path (endCall in stats.go).

// Redis's slow log limits on what an entry keeps (slowlog.h).
const (
	slowlogMaxArgc = 32
	slowlogMaxArg  = 128
)

// slowEntry is one SLOWLOG GET entry.
type slowEntry struct {
	id   int64
	at   int64 // Unix seconds
	usec int64
	args []string
	addr string
	name string
}

// slowlog is the server's slow log, newest entry last.
type slowlog struct {
	mu      sync.Mutex
	entries []slowEntry
	nextID  int64
}

// add logs a command that ran usec microseconds, unless its row skips
// the slow log, and trims the log to slowlog-max-len.
func (l *slowlog) add(c *cmdCtx, cmd *command, usec int64) {
	if cmd.Flags&flagSkipSlowlog != 0 || cmd.parent != nil && cmd.parent.Flags&flagSkipSlowlog != 0 {
		return
	}
	e := slowEntry{at: time.Now().Unix(), usec: usec, args: slowArgs(c.args), name: c.cl.name}
	if c.cl.conn != nil {
		e.addr = c.cl.conn.addr
	}
	max := int(c.srv.cfg.obs.slowlogMaxLen.Load())
	l.mu.Lock()
	e.id = l.nextID
	l.nextID++
	l.entries = append(l.entries, e)
	if over := len(l.entries) - max; over > 0 {
		l.entries = slices.Delete(l.entries, 0, over)
	}
	l.mu.Unlock()
}

// slowArgs copies args as Redis's slow log keeps them: at most 32, the
// last saying how many more there were, each cut at 128 bytes.
func slowArgs(args [][]byte) []string {
	n := min(len(args), slowlogMaxArgc)
	out := make([]string, n)
	for i := range n {
		a := args[i]
		switch {
		case i == slowlogMaxArgc-1 && len(args) > slowlogMaxArgc:
			out[i] = "... (" + strconv.Itoa(len(args)-slowlogMaxArgc+1) + " more arguments)"
		case len(a) > slowlogMaxArg:
			out[i] = string(a[:slowlogMaxArg]) + "... (" + strconv.Itoa(len(a)-slowlogMaxArg) + " more bytes)"
		default:
			out[i] = string(a)
		}
	}
	return out
}

// newest returns up to n entries, newest first; n < 0 means all.
func (l *slowlog) newest(n int) []slowEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n < 0 || n > len(l.entries) {
		n = len(l.entries)
	}
	out := make([]slowEntry, n)
	for i := range n {
		out[i] = l.entries[len(l.entries)-1-i]
	}
	return out
}

func (l *slowlog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

func (l *slowlog) reset() {
	l.mu.Lock()
	l.entries = nil
	l.mu.Unlock()
}

// trim applies a lowered slowlog-max-len at once, as Redis does.
func (l *slowlog) trim(max int) {
	l.mu.Lock()
	if over := len(l.entries) - max; over > 0 {
		l.entries = slices.Delete(l.entries, 0, over)
	}
	l.mu.Unlock()
}

// The latency monitor (Redis's latency.c): events slower than
// latency-monitor-threshold milliseconds, by event name.
const latencyHistory = 160 // samples kept per event (LATENCY_TS_LEN)

type latencySample struct{ at, ms int64 }

type latencyEvent struct {
	samples []latencySample // oldest first, at most latencyHistory
	max     int64
}

type latencyMonitor struct {
	mu     sync.Mutex
	events map[string]*latencyEvent
}

// add records ms for event; a second sample within the same second keeps
// the larger, as Redis does.
func (m *latencyMonitor) add(event string, ms int64) {
	now := time.Now().Unix()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.events == nil {
		m.events = make(map[string]*latencyEvent)
	}
	ev := m.events[event]
	if ev == nil {
		ev = &latencyEvent{}
		m.events[event] = ev
	}
	ev.max = max(ev.max, ms)
	if n := len(ev.samples); n > 0 && ev.samples[n-1].at == now {
		ev.samples[n-1].ms = max(ev.samples[n-1].ms, ms)
		return
	}
	ev.samples = append(ev.samples, latencySample{now, ms})
	if len(ev.samples) > latencyHistory {
		ev.samples = slices.Delete(ev.samples, 0, 1)
	}
}

// eventNames returns the events recorded, sorted.
func (m *latencyMonitor) eventNames() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	names := make([]string, 0, len(m.events))
	for k := range m.events {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// event returns a copy of the event called name, or nil.
func (m *latencyMonitor) event(name string) *latencyEvent {
	m.mu.Lock()
	defer m.mu.Unlock()
	ev := m.events[name]
	if ev == nil {
		return nil
	}
	return &latencyEvent{samples: slices.Clone(ev.samples), max: ev.max}
}

// reset forgets the named events, or all when names is empty, and returns
// how many it forgot.
func (m *latencyMonitor) reset(names []string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(names) == 0 {
		n := len(m.events)
		m.events = nil
		return n
	}
	n := 0
	for _, name := range names {
		if _, ok := m.events[name]; ok {
			delete(m.events, name)
			n++
		}
	}
	return n
}
