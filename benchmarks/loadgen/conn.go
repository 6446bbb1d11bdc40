package loadgen

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"
)

// Target names the server under test.
type Target struct {
	Addr string      // host:port
	TLS  *tls.Config // nil for plaintext; cloned before use
	Pid  int         // server pid for /proc figures; 0 when unknown
}

// dialTimeout bounds one connect plus handshake.
const dialTimeout = 10 * time.Second

// Conn is a pipelining RESP client connection: commands are appended to an
// output buffer, written with Flush, and their replies read with
// ReadReplies. A Conn is owned by one goroutine.
type Conn struct {
	nc      net.Conn
	out     []byte // commands not yet flushed
	in      []byte // read buffer; in[r:w] is unread
	r, w    int    // 0 <= r <= w <= len(in)
	Resumed bool   // the TLS handshake resumed a session
	TLSInfo string // negotiated version, cipher suite and group; "" for plaintext

	ErrReplies int64  // error replies (-ERR …) read so far
	FirstErr   string // the text of the first error reply
}

// Dial connects to t and, for TLS, completes the handshake. cfg, when not
// nil, replaces t.TLS (churn workers pass their own session cache).
func Dial(t Target, cfg *tls.Config) (*Conn, error) {
	d := net.Dialer{Timeout: dialTimeout}
	nc, err := d.Dial("tcp", t.Addr)
	if err != nil {
		return nil, err
	}
	c := &Conn{nc: nc}
	if cfg == nil {
		cfg = t.TLS
	}
	if cfg != nil {
		tc := tls.Client(nc, cfg)
		tc.SetDeadline(time.Now().Add(dialTimeout))
		if err := tc.Handshake(); err != nil {
			nc.Close()
			return nil, fmt.Errorf("loadgen: tls handshake with %s: %w", t.Addr, err)
		}
		tc.SetDeadline(time.Time{})
		cs := tc.ConnectionState()
		c.Resumed = cs.DidResume
		c.TLSInfo = tls.VersionName(cs.Version) + " " + tls.CipherSuiteName(cs.CipherSuite) + " " + cs.CurveID.String()
		c.nc = tc
	}
	return c, nil
}

// Close closes the connection. With abort, the socket is reset (SO_LINGER 0)
// so the client keeps no TIME_WAIT entry; churn runs use it to avoid running
// out of ephemeral ports.
func (c *Conn) Close(abort bool) error {
	if abort {
		if tc, ok := c.nc.(*net.TCPConn); ok {
			tc.SetLinger(0)
		} else if tc, ok := c.nc.(*tls.Conn); ok {
			if raw, ok := tc.NetConn().(*net.TCPConn); ok {
				raw.SetLinger(0)
			}
		}
	}
	return c.nc.Close()
}

// Flush writes the buffered commands.
func (c *Conn) Flush() error {
	if len(c.out) == 0 {
		return nil
	}
	_, err := c.nc.Write(c.out)
	c.out = c.out[:0]
	return err
}

// Do flushes the buffered commands and reads k replies.
func (c *Conn) Do(k int) error {
	if err := c.Flush(); err != nil {
		return err
	}
	return c.ReadReplies(k)
}

// ReadReplies reads k complete replies, counting error replies. It returns
// ErrProtocol for malformed input and the read error otherwise.
func (c *Conn) ReadReplies(k int) error {
	for k > 0 {
		n, isErr, err := readReply(c.in[c.r:c.w])
		if err != nil {
			return err
		}
		if n > 0 {
			if isErr {
				c.noteErr(c.in[c.r : c.r+n])
			}
			c.r += n
			k--
			continue
		}
		if err := c.fill(); err != nil {
			return err
		}
	}
	if c.r == c.w {
		c.r, c.w = 0, 0
	}
	return nil
}

// fill reads more input, compacting or growing the buffer as needed.
func (c *Conn) fill() error {
	if c.r > 0 && c.r == c.w {
		c.r, c.w = 0, 0
	}
	if c.w == len(c.in) {
		if c.r > 0 {
			c.w = copy(c.in, c.in[c.r:c.w])
			c.r = 0
		} else {
			if len(c.in) >= maxReplyBulk+maxReplyLine {
				return ErrReplyTooLarge
			}
			grown := make([]byte, max(16<<10, 2*len(c.in)))
			c.w = copy(grown, c.in[c.r:c.w])
			c.r, c.in = 0, grown
		}
	}
	n, err := c.nc.Read(c.in[c.w:])
	c.w += n
	if n > 0 {
		return nil
	}
	if err == nil {
		err = errors.New("loadgen: empty read")
	}
	return err
}

func (c *Conn) noteErr(reply []byte) {
	c.ErrReplies++
	if c.FirstErr == "" {
		s := string(reply)
		if len(s) > 2 {
			s = s[1 : len(s)-2]
		}
		c.FirstErr = s
	}
}

// Append buffers one command; Flush or Do sends it.
func (c *Conn) Append(args ...string) { c.out = AppendCommand(c.out, args...) }
