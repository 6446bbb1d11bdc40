package resp

import "bytes"

// inline continues an inline command: a line ended by LF, optionally CR LF
// (networking.c, processInlineBuffer). A line longer than MaxInline is
// refused whether or not its LF has arrived, so the outcome does not depend
// on how the bytes were cut.
func (p *Parser) inline(buf []byte) ([][]byte, int, error) {
	from := p.scan
	limit := p.Limits.orDefault().MaxInline
	i := bytes.IndexByte(buf[from:], '\n')
	if i < 0 {
		p.examined += len(buf) - from
		if len(buf) > limit {
			return p.fail(ErrTooBigInline)
		}
		p.state, p.scan = stInline, len(buf)
		return nil, 0, nil
	}
	p.examined += i + 1
	nl := from + i
	if nl > limit { // as long a line without its LF would have been refused
		return p.fail(ErrTooBigInline)
	}
	end := nl
	if end > 0 && buf[end-1] == '\r' {
		end--
	}
	p.restart()
	args, ok := splitArgs(p.args[:0], buf[:end])
	if !ok {
		return p.fail(ErrUnbalancedQuotes)
	}
	p.args = args
	return args, nl + 1, nil
}

// splitArgs appends the arguments of line to args, split as Redis's
// sdssplitargs splits them: blanks separate arguments; "double quotes" take
// the escapes \n \r \t \b \a \xHH and \<any> for that byte; 'single quotes'
// take \'; a quote may open inside an argument; a closing quote must be
// followed by a blank or the end of the line. A NUL byte ends the line, as
// it ends sdssplitargs's C string. Quoted arguments are unescaped in place,
// which never lengthens them. It returns false for unbalanced quotes.
func splitArgs(args [][]byte, line []byte) ([][]byte, bool) {
	i := 0
	for {
		for i < len(line) && class[line[i]]&blank != 0 {
			i++
		}
		if i == len(line) || line[i] == 0 {
			return args, true
		}
		start := i
		for i < len(line) && class[line[i]]&(ends|quote) == 0 {
			i++
		}
		if i == len(line) || line[i] == 0 {
			return append(args, line[start:i:i]), true
		}
		if class[line[i]]&quote == 0 {
			args = append(args, line[start:i:i])
			i++ // the separator
			continue
		}
		end, next, ok := unquote(line, i)
		if !ok {
			return args, false
		}
		args = append(args, line[start:end:end])
		i = next
	}
}

// unquote finishes, in place, an argument whose plain prefix ends at i where
// a quote opens. It returns the end of the unescaped argument, the index to
// resume splitting at, and false for unbalanced quotes.
func unquote(line []byte, i int) (end, next int, ok bool) {
	w := i // write index; w <= i throughout
	at := func(k int) byte {
		if k < len(line) {
			return line[k]
		}
		return 0
	}
	q := line[i] // the open quote
	i++
	for {
		c := at(i)
		switch {
		case c == 0: // the end of the line, or a NUL ending it
			return 0, 0, false
		case c == q:
			if n := at(i + 1); n != 0 && class[n]&blank == 0 {
				return 0, 0, false
			}
			return w, i + 1, true
		case q == '"' && c == '\\' && at(i+1) == 'x' && isHex(at(i+2)) && isHex(at(i+3)):
			c = unhex(line[i+2])<<4 | unhex(line[i+3])
			i += 3
		case q == '"' && c == '\\' && at(i+1) != 0:
			i++
			c = unescape(line[i])
		case q == '\'' && c == '\\' && at(i+1) == '\'':
			i++
			c = '\''
		}
		line[w] = c
		w++
		i++
	}
}

// Byte classes for splitArgs.
const (
	blank = 1 << iota // C's isspace: skipped between arguments, allowed after a closing quote
	ends              // ends an unquoted argument: space, tab, CR, LF, or NUL (which ends the line)
	quote             // opens a quoted part
)

var class = [256]uint8{
	' ': blank | ends, '\t': blank | ends, '\n': blank | ends, '\r': blank | ends,
	'\v': blank, '\f': blank, 0: ends,
	'"': quote, '\'': quote,
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// unescape maps the byte after a backslash inside double quotes.
func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	}
	return c
}
