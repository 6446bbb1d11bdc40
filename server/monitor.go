package server

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopkv/loopkv/resp"
)

// MONITOR (Redis's replicationFeedMonitors). A monitor is a connection
// that receives a line for every command any client runs:
//
//	+1700000000.123456 [0 127.0.0.1:5555] "SET" "k" "v"
//
// The loop that runs a command formats its line once, in loop scratch,
// and posts it to each monitor's outbox (outbox.go), which wakes the
// monitor's connection; the monitor's own loop, which alone writes to it,
// sends the outbox on that wake, as it does pub/sub messages. There is no
// goroutine per monitor. A monitor whose pending output passes the output
// buffer limit is closed, as Redis closes a client over
// client-output-buffer-limit. Without monitors a command costs
// one atomic load (monitors.n in endCall).

// monitorFeed is one monitor.
type monitorFeed struct {
	cs *connState
}

// monitorList is the server's monitors.
type monitorList struct {
	n     atomic.Int32 // len(feeds), read per command
	mu    sync.Mutex
	feeds []*monitorFeed
}

func cmdMonitor(c *cmdCtx) {
	cl := c.cl
	if cl.monitor != nil {
		return // Redis ignores MONITOR from a monitor
	}
	if cl.conn == nil {
		c.errReply("ERR MONITOR needs a connection")
		return
	}
	f := &monitorFeed{cs: cl.conn}
	m := &c.srv.monitors
	m.mu.Lock()
	m.feeds = append(m.feeds, f)
	m.n.Store(int32(len(m.feeds)))
	m.mu.Unlock()
	cl.monitor = f
	cl.conn.shared.monitor.Store(true)
	c.ok()
}

// forgetMonitor removes a closing connection's feed.
func (s *Server) forgetMonitor(cs *connState) {
	f := cs.cl.monitor
	if f == nil {
		return
	}
	m := &s.monitors
	m.mu.Lock()
	for i, g := range m.feeds {
		if g == f {
			m.feeds = append(m.feeds[:i], m.feeds[i+1:]...)
			break
		}
	}
	m.n.Store(int32(len(m.feeds)))
	m.mu.Unlock()
	cs.cl.monitor = nil
	cs.shared.monitor.Store(false)
}

// feedMonitors sends c's command to every monitor, unless its row is
// admin or skip_monitor, as in Redis. owning loop only.
func (s *Server) feedMonitors(c *cmdCtx, cmd *command) {
	if cmd.Flags&(flagAdmin|flagSkipMonitor) != 0 {
		return
	}
	var line []byte
	if cs := c.cl.conn; cs != nil {
		line = appendMonitorLine(cs.ls.monLine[:0], c)
		cs.ls.monLine = line
	} else {
		line = appendMonitorLine(nil, c)
	}
	limit := outboxLimit{hard: s.cfg.outBufLimit.Load()}
	m := &s.monitors
	m.mu.Lock()
	for _, f := range m.feeds {
		s.post(f.cs, limit, c.now, line)
	}
	m.mu.Unlock()
}

// appendMonitorLine appends c's MONITOR line: the time, the database, the
// client's address and the arguments quoted as Redis's sdscatrepr quotes.
func appendMonitorLine(b []byte, c *cmdCtx) []byte {
	now := time.Now()
	b = append(b, '+')
	b = strconv.AppendInt(b, now.Unix(), 10)
	b = append(b, '.')
	us := now.Nanosecond() / 1000
	for d := 100000; d > 1 && us < d; d /= 10 {
		b = append(b, '0')
	}
	b = strconv.AppendInt(b, int64(us), 10)
	b = append(b, " ["...)
	b = strconv.AppendInt(b, int64(c.cl.db), 10)
	b = append(b, ' ')
	if c.cl.conn != nil {
		b = append(b, c.cl.conn.addr...)
	}
	b = append(b, ']')
	redact := equalFoldLower(c.args[0], "auth")
	for i, a := range c.args {
		b = append(b, ' ')
		if redact && i > 0 {
			b = append(b, `"(redacted)"`...)
			continue
		}
		b = resp.AppendRepr(b, a)
	}
	return append(b, "\r\n"...)
}
