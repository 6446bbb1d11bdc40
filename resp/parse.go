package resp

import "bytes"

// Parser parses commands incrementally from the front of a buffer. The zero
// value is ready to use with DefaultLimits. A Parser belongs to one
// connection and is not safe for concurrent use.
type Parser struct {
	// Limits bounds the requests accepted; zero fields mean the defaults.
	Limits Limits

	// Resume state of a partial command, kept as offsets from the start of
	// the command because the caller may move its bytes between calls.
	// 0 <= pos <= seen; scan <= seen, and scan >= pos while the line at
	// pos is incomplete (a stale scan < pos is raised to pos before use).
	state uint8  // stIdle, stCount, stArgs or stInline
	left  int    // multibulk elements still to read (stArgs)
	pos   int    // offset of the next unread header line or bulk payload
	scan  int    // offset the current line was searched up to for its end
	bulk  int64  // length of the pending bulk payload, -1 while its header is unread
	seen  int    // len(buf) at the last call
	spans []span // the arguments read so far

	args [][]byte // returned by Next; reused
	err  error    // sticky until Reset

	examined int // bytes searched for line ends; tests use it to prove there is no re-scan
}

// span locates an argument in the caller's buffer: buf[start:end].
type span struct{ start, end int }

// Parser states.
const (
	stIdle   uint8 = iota // between commands
	stCount               // reading the *<count> line
	stArgs                // reading $<len> lines and payloads
	stInline              // looking for the end of an inline line
)

// maxKeptArgs is the largest argument slice kept between commands; a
// connection that sent a huge command does not hold its slices forever.
const maxKeptArgs = 1024

// Next parses one command from the front of buf.
//
// args alias buf and an internal slice: they stay valid until the next call
// to Next or Reset and until the caller discards those bytes. Each argument
// has its capacity capped at its length. n is the number of bytes the
// command took. n == 0 && err == nil means more bytes are needed: call again
// with a buffer that starts with the same bytes followed by more, possibly at
// another address; the work already done is not repeated. n > 0 with no
// args is an empty inline line, *0 or *-1, to skip.
//
// An error is a *ProtocolError with Redis's text; the connection must be
// answered and closed. Errors are sticky until Reset. Next may rewrite the
// bytes of an inline line it consumed, to unescape quoted arguments in
// place.
func (p *Parser) Next(buf []byte) (args [][]byte, n int, err error) {
	if p.err != nil {
		return nil, 0, p.err
	}
	if len(buf) < p.seen {
		p.restart() // not the bytes seen before: start over
	}
	p.seen = len(buf)
	switch p.state {
	case stIdle:
		if len(buf) == 0 {
			return nil, 0, nil
		}
		if cap(p.args) > maxKeptArgs {
			p.args, p.spans = nil, nil
		}
		if buf[0] == '*' {
			if args, n, ok := p.whole(buf); ok {
				p.seen = 0
				return args, n, nil
			}
			p.state, p.scan = stCount, 1
			return p.multibulk(buf)
		}
		return p.inline(buf)
	case stInline:
		return p.inline(buf)
	default:
		return p.multibulk(buf)
	}
}

// Reset forgets any partial command and any error, and drops the
// references the Parser holds into the caller's buffer: call it when a
// connection goes idle and its buffer is released.
func (p *Parser) Reset() {
	p.restart()
	p.err = nil
	clear(p.args[:cap(p.args)])
	p.args = p.args[:0]
}

// Idle reports whether the Parser is between commands with no error: it
// holds nothing of a partial command, so it may parse another stream's
// next command (a server lends one Parser to its idle connections in turn).
func (p *Parser) Idle() bool { return p.state == stIdle && p.err == nil }

// restart returns to stIdle.
func (p *Parser) restart() {
	p.state, p.left, p.pos, p.scan, p.bulk, p.seen = stIdle, 0, 0, 0, -1, 0
	p.spans = p.spans[:0]
}

// Pending returns how long the buffer must be, counted from the start of
// the current command, before the next call to Next can make progress on a
// bulk payload whose length is known; 0 when no such payload is pending.
// A server can size its input buffer with it.
func (p *Parser) Pending() (need int) {
	if p.state != stArgs || p.bulk < 0 {
		return 0
	}
	return p.pos + int(p.bulk) + 2
}

// fail makes err sticky and returns it.
func (p *Parser) fail(err error) ([][]byte, int, error) {
	p.restart()
	p.err = err
	return nil, 0, err
}

// findCR returns the index of the first CR in buf at or after from, or -1,
// counting the bytes it examined.
func (p *Parser) findCR(buf []byte, from int) int {
	i := bytes.IndexByte(buf[from:], '\r')
	if i < 0 {
		p.examined += len(buf) - from
		return -1
	}
	p.examined += i + 1
	return from + i
}

// multibulk continues a multibulk command: the count line, then one header
// line and payload per element (networking.c, processMultibulkBuffer).
func (p *Parser) multibulk(buf []byte) ([][]byte, int, error) {
	lim := p.Limits.orDefault()
	if p.state == stCount {
		count, cr, ok := fastLen(buf, 1)
		if !ok {
			cr = p.findCR(buf, p.scan)
			if cr < 0 {
				if len(buf) > lim.MaxInline {
					return p.fail(ErrTooBigMbulkCount)
				}
				p.scan = len(buf)
				return nil, 0, nil
			}
			if cr+1 >= len(buf) { // the LF has not arrived; it is not checked
				p.scan = cr
				return nil, 0, nil
			}
			count, ok = parseInt(buf[1:cr])
		} else {
			p.examined += cr
		}
		if !ok || count > int64(lim.MaxArgs) {
			return p.fail(ErrInvalidMultibulkLength)
		}
		if count <= 0 {
			p.restart()
			return p.args[:0], cr + 2, nil
		}
		p.state, p.left, p.pos, p.scan, p.bulk = stArgs, int(count), cr+2, cr+2, -1
	}
	pos, bulk, spans := p.pos, p.bulk, p.spans
	for left := p.left; left > 0; left-- {
		if bulk < 0 {
			n, cr, ok := int64(0), 0, false
			if pos < len(buf) && buf[pos] == '$' {
				n, cr, ok = fastLen(buf, pos+1)
			}
			if ok && n <= lim.MaxBulk {
				p.examined += cr + 1 - pos
				pos = cr + 2
			} else {
				p.pos, p.left, p.spans = pos, left, spans
				if err := p.bulkHeader(buf, &lim); err != nil {
					return p.fail(err)
				}
				if p.bulk < 0 {
					return nil, 0, nil
				}
				n, pos = p.bulk, p.pos
			}
			bulk = n
		}
		if int64(len(buf)-pos)-2 < bulk { // written so a huge custom MaxBulk cannot overflow
			p.pos, p.scan, p.bulk, p.left, p.spans = pos, pos, bulk, left, spans
			return nil, 0, nil
		}
		end := pos + int(bulk)
		spans = append(spans, span{pos, end})
		pos, bulk = end+2, -1
	}
	args := p.args[:0]
	for _, s := range spans {
		args = append(args, buf[s.start:s.end:s.end])
	}
	p.args, p.spans = args, spans
	p.restart()
	return args, pos, nil
}

// whole parses a multibulk command that buf holds whole, its count and
// every header in the form fastLen reads and within the limits, straight
// into p.args: a pipeline's case, in one pass without the resumable state
// of multibulk. It reports false for anything else, leaving the Parser
// as it was for multibulk to parse the command from its start.
func (p *Parser) whole(buf []byte) (args [][]byte, n int, ok bool) {
	count, cr, ok := shortLen(buf, 1)
	if !ok {
		count, cr, ok = fastLen(buf, 1)
	}
	maxArgs, maxBulk := p.Limits.MaxArgs, p.Limits.MaxBulk
	if maxArgs <= 0 {
		maxArgs = DefaultLimits.MaxArgs
	}
	if maxBulk <= 0 {
		maxBulk = DefaultLimits.MaxBulk
	}
	if !ok || count <= 0 || count > int64(maxArgs) {
		return nil, 0, false
	}
	exam, pos := cr, cr+2
	args = p.args[:0]
	for left := count; left > 0; left-- {
		if pos >= len(buf) || buf[pos] != '$' {
			break
		}
		bulk, cr, ok := shortLen(buf, pos+1)
		if !ok {
			bulk, cr, ok = fastLen(buf, pos+1)
		}
		if !ok || bulk > maxBulk {
			break
		}
		exam += cr + 1 - pos
		pos = cr + 2
		if int64(len(buf)-pos)-2 < bulk { // as in multibulk: no overflow with a huge MaxBulk
			break
		}
		end := pos + int(bulk)
		args = append(args, buf[pos:end:end])
		pos = end + 2
	}
	p.examined += exam
	p.args = args
	if len(args) < int(count) {
		return nil, 0, false
	}
	return args, pos, true
}

// shortLen is fastLen for the lengths of one and two digits, most of a
// pipeline's, read without a loop and inlined; false for any other, which
// fastLen then reads.
func shortLen(buf []byte, i int) (n int64, cr int, ok bool) {
	if i+3 < len(buf) {
		d0, d1 := buf[i]-'0', buf[i+1]
		if d0 <= 9 && d1 == '\r' {
			return int64(d0), i + 1, true
		}
		if d0-1 <= 8 && d1-'0' <= 9 && buf[i+2] == '\r' { // no leading zero
			return int64(d0)*10 + int64(d1-'0'), i + 2, true
		}
	}
	return 0, 0, false
}

// fastLen parses the common header "<digits>\r" plus one more byte at
// buf[i:]: 1 to 18 digits, no leading zero. It reports false for anything
// else, which the general path then handles; it accepts nothing the general
// path would treat differently. cr is the index of the CR.
func fastLen(buf []byte, i int) (n int64, cr int, ok bool) {
	j := i
	for ; j < len(buf) && j-i < 18; j++ {
		d := buf[j] - '0'
		if d > 9 {
			break
		}
		n = n*10 + int64(d)
	}
	if j == i || j+1 >= len(buf) || buf[j] != '\r' || buf[i] == '0' && j-i > 1 {
		return 0, 0, false
	}
	return n, j, true
}

// bulkHeader reads a $<len> line at p.pos, setting p.bulk, or leaves p.bulk
// at -1 when the line is incomplete.
func (p *Parser) bulkHeader(buf []byte, lim *Limits) error {
	p.bulk = -1
	if p.scan < p.pos {
		p.scan = p.pos
	}
	cr := p.findCR(buf, p.scan)
	if cr < 0 {
		if len(buf)-p.pos > lim.MaxInline {
			return ErrTooBigBulkCount
		}
		p.scan = len(buf)
		return nil
	}
	if cr+1 >= len(buf) {
		p.scan = cr
		return nil
	}
	if buf[p.pos] != '$' {
		return expectedDollar(buf[p.pos])
	}
	n, ok := parseInt(buf[p.pos+1 : cr])
	if !ok || n < 0 || n > lim.MaxBulk {
		return ErrInvalidBulkLength
	}
	p.bulk, p.pos, p.scan = n, cr+2, cr+2
	return nil
}

// parseInt parses a decimal integer as Redis's string2ll does: an optional
// '-', no '+', no leading zeros, no spaces, at most 20 bytes, no overflow.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	if b[0] < '1' || b[0] > '9' {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		d := uint64(c - '0')
		if d > 9 || v > (1<<64-1)/10 {
			return 0, false
		}
		v = v*10 + d
		if v < d {
			return 0, false
		}
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}
