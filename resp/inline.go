package resp

import "bytes"

// inline continues an inline command: a line ended by LF, optionally CR LF
// (networking.c, processInlineBuffer).
func (p *Parser) inline(buf []byte) ([][]byte, int, error) {
	from := p.scan
	i := bytes.IndexByte(buf[from:], '\n')
	if i < 0 {
		p.examined += len(buf) - from
		if len(buf) > p.Limits.orDefault().MaxInline {
			return p.fail(ErrTooBigInline)
		}
		p.state, p.scan = stInline, len(buf)
		return nil, 0, nil
	}
	p.examined += i + 1
	nl := from + i
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
	if z := bytes.IndexByte(line, 0); z >= 0 {
		line = line[:z]
	}
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i == len(line) {
			return args, true
		}
		start := i
		for i < len(line) && !endsPlain(line[i]) {
			i++
		}
		if i == len(line) {
			return append(args, line[start:i:i]), true
		}
		if !isQuote(line[i]) {
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
	var quote byte // the open quote, or 0 outside quotes
	for {
		if i == len(line) {
			return w, i, quote == 0
		}
		c := line[i]
		switch {
		case quote == 0 && (c == ' ' || c == '\t' || c == '\r' || c == '\n'):
			return w, i + 1, true
		case quote == 0 && isQuote(c):
			quote = c
			i++
			continue
		case quote == 0:
		case c == quote:
			if n := at(i + 1); n != 0 && !isSpace(n) {
				return 0, 0, false
			}
			return w, i + 1, true
		case quote == '"' && c == '\\' && at(i+1) == 'x' && isHex(at(i+2)) && isHex(at(i+3)):
			c = unhex(line[i+2])<<4 | unhex(line[i+3])
			i += 3
		case quote == '"' && c == '\\' && i+1 < len(line):
			i++
			c = unescape(line[i])
		case quote == '\'' && c == '\\' && at(i+1) == '\'':
			i++
			c = '\''
		}
		line[w] = c
		w++
		i++
	}
}

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// endsPlain reports whether c ends the plain (unquoted, unescaped) run of an
// argument: a separator sdssplitargs knows, or a quote.
func endsPlain(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '"' || c == '\''
}

func isQuote(c byte) bool { return c == '"' || c == '\'' }

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
