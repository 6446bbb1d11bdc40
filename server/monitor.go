package server

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// MONITOR (Redis's replicationFeedMonitors). A monitor is a connection
// that receives a line for every command any client runs:
//
//	+1700000000.123456 [0 127.0.0.1:5555] "SET" "k" "v"
//
// The loop that runs a command formats its line once, in loop scratch,
// and appends it to each monitor's mailbox, then wakes the monitor's
// connection (transportConn.Wake) unless a wake is already pending. The
// monitor's own loop, which alone writes to it, sends the mailbox on that
// wake (deliverMonitor), as blocking pops deliver their replies. There is
// no goroutine per monitor. A mailbox holds at most the output buffer
// limit; a monitor that falls that far behind is closed, as Redis closes a
// client over client-output-buffer-limit. Without monitors a command costs
// one atomic load (monitors.n in endCall).

// monitorFeed is one monitor's mailbox.
type monitorFeed struct {
	cs *connState

	mu       sync.Mutex
	buf      []byte // lines not yet taken by the monitor's loop
	spare    []byte // the buffer the loop last emptied, reused
	overflow bool   // lines were dropped: close the monitor

	woken atomic.Bool // a Wake is pending
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
	limit := int(s.cfg.outBufLimit.Load())
	m := &s.monitors
	m.mu.Lock()
	for _, f := range m.feeds {
		f.mu.Lock()
		if len(f.buf)+len(line) > limit {
			f.overflow = true
		} else {
			f.buf = append(f.buf, line...)
		}
		f.mu.Unlock()
		if !f.woken.Swap(true) {
			f.cs.tc.Wake()
		}
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
		b = appendRepr(b, a)
	}
	return append(b, "\r\n"...)
}

// appendRepr appends a quoted as Redis's sdscatrepr: printable bytes as
// they are, \\ \" \n \r \t \a \b escaped, others as \xHH.
func appendRepr(b, a []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, ch := range a {
		switch ch {
		case '\\', '"':
			b = append(b, '\\', ch)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\a':
			b = append(b, '\\', 'a')
		case '\b':
			b = append(b, '\\', 'b')
		default:
			if ch < 0x20 || ch >= 0x7f {
				b = append(b, '\\', 'x', hex[ch>>4], hex[ch&15])
			} else {
				b = append(b, ch)
			}
		}
	}
	return append(b, '"')
}

// takeMonitor appends the monitor's pending lines to out. A monitor that
// overflowed is set to close once out is written. owning loop only.
func (cl *client) takeMonitor(out []byte) []byte {
	f := cl.monitor
	f.woken.Store(false) // a line fed after this wakes the loop again
	f.mu.Lock()
	buf, over := f.buf, f.overflow
	f.buf, f.spare = f.spare[:0], nil
	f.mu.Unlock()
	out = append(out, buf...)
	if over {
		cl.quit = true
	}
	f.mu.Lock()
	if f.spare == nil && cap(buf) <= loopOutKeep {
		f.spare = buf[:0]
	}
	f.mu.Unlock()
	return out
}

// deliverMonitor writes a monitor's pending lines into out, sealed when
// the connection is TLS. owning loop only.
func (h *handler) deliverMonitor(cs *connState, ls *loopState, out []byte) []byte {
	if cs.tls == nil {
		return cs.cl.takeMonitor(out)
	}
	out, hdr := cs.tls.eng.BeginRecord(out)
	start := len(out)
	out = cs.cl.takeMonitor(out)
	return h.sealReplies(cs, ls, out, hdr, start)
}
