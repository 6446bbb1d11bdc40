package resp

import (
	"bytes"
	"math"
	"strconv"
)

// maxReplyDepth bounds how deeply ParseReply follows nested aggregates.
const maxReplyDepth = 1000

// Value is a decoded reply, for tests and clients that are not on a hot
// path. Its bytes are copies: it does not alias the buffer it came from.
type Value struct {
	Kind  byte    // the RESP type byte: + - : $ * _ , # ( ! = % ~ >
	Null  bool    // $-1, *-1 or _
	Str   []byte  // text of + - $ ! ( and , replies; the payload of = after its format
	Int   int64   // value of : replies; 1 or 0 for #
	Float float64 // value of , replies
	Fmt   string  // format of = replies, such as "txt"
	Elems []Value // elements of * ~ > replies; keys and values alternating for %
	Attrs []Value // keys and values of a | attribute that preceded the reply
}

// String renders v compactly for test messages: +"OK", -"ERR x", :1, $"v",
// $null, ,1.5, #1, =txt:"v", *[:1 $"x"], with attributes first as |k v|.
func (v Value) String() string {
	var b []byte
	if len(v.Attrs) > 0 {
		b = append(b, '|')
		for i, a := range v.Attrs {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, a.String()...)
		}
		b = append(b, "| "...)
	}
	switch {
	case v.Null:
		b = append(append(b, v.Kind), "null"...)
	case v.Kind == ':' || v.Kind == '#':
		b = strconv.AppendInt(append(b, v.Kind), v.Int, 10)
	case v.Kind == ',':
		b = append(append(b, ','), v.Str...)
	case v.Kind == '=':
		b = strconv.AppendQuote(append(append(b, '='), v.Fmt+":"...), string(v.Str))
	case bytes.IndexByte([]byte("*%~>"), v.Kind) >= 0:
		b = append(b, v.Kind, '[')
		for i, e := range v.Elems {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, e.String()...)
		}
		b = append(b, ']')
	default:
		b = strconv.AppendQuote(append(b, v.Kind), string(v.Str))
	}
	return string(b)
}

// ReadReply returns the length of the first complete RESP2 or RESP3 reply at
// the front of buf, nested aggregates and attributes included. n == 0 &&
// err == nil means the reply is incomplete. It does not allocate. RESP3
// streamed strings and aggregates are ErrUnsupportedReply; anything else
// malformed is ErrInvalidReply.
func ReadReply(buf []byte) (n int, err error) {
	pos, pending := 0, 1 // values still to read; aggregates add their elements
	for pending > 0 {
		kind, line, next, err := replyLine(buf, pos)
		if err != nil || next == 0 {
			return 0, err
		}
		count, err := lineValue(kind, line)
		if err != nil {
			return 0, err
		}
		pos = next
		switch kind {
		case '$', '!', '=':
			if count >= 0 {
				if int64(len(buf)-pos) < int64(count)+2 {
					return 0, nil
				}
				pos += int(count)
				if buf[pos] != '\r' || buf[pos+1] != '\n' {
					return 0, ErrInvalidReply
				}
				pos += 2
			}
		case '*', '~', '>':
			pending += max(count, 0)
		case '%':
			pending += 2 * count
		case '|':
			pending += 2*count + 1 // the attribute is not a value itself
		}
		pending--
		if pending > (len(buf)-pos)/3 { // every value takes at least 3 bytes
			return 0, nil
		}
	}
	return pos, nil
}

// replyLine reads the type byte and header line of the reply at pos. next
// is the offset after its CR LF, or 0 if the line is incomplete.
func replyLine(buf []byte, pos int) (kind byte, line []byte, next int, err error) {
	if pos >= len(buf) {
		return 0, nil, 0, nil
	}
	i := bytes.IndexByte(buf[pos+1:], '\r')
	if i < 0 {
		return 0, nil, 0, nil
	}
	cr := pos + 1 + i
	if cr+1 >= len(buf) {
		return 0, nil, 0, nil
	}
	if buf[cr+1] != '\n' {
		return 0, nil, 0, ErrInvalidReply
	}
	return buf[pos], buf[pos+1 : cr], cr + 2, nil
}

// lineValue checks the header line of a reply of the given kind and returns
// its length or count (-1 for a null), or the integer of a : reply.
func lineValue(kind byte, line []byte) (int, error) {
	switch kind {
	case '+', '-':
		if bytes.IndexByte(line, '\n') >= 0 {
			return 0, ErrInvalidReply
		}
		return 0, nil
	case ':':
		if _, ok := parseInt(line); !ok {
			return 0, ErrInvalidReply
		}
		return 0, nil
	case '_':
		if len(line) != 0 {
			return 0, ErrInvalidReply
		}
		return 0, nil
	case '#':
		if len(line) != 1 || line[0] != 't' && line[0] != 'f' {
			return 0, ErrInvalidReply
		}
		return 0, nil
	case ',':
		if !isDoubleWord(line) && !isDouble(line) {
			return 0, ErrInvalidReply
		}
		return 0, nil
	case '(':
		if !isBigNumber(line) {
			return 0, ErrInvalidReply
		}
		return 0, nil
	case '$', '*', '!', '=', '%', '~', '>', '|':
		return aggregateLen(kind, line)
	case '?', ';', '.':
		return 0, ErrUnsupportedReply
	}
	return 0, ErrInvalidReply
}

// aggregateLen parses the length of a string or aggregate header; only $
// and * take -1, the RESP2 nulls.
func aggregateLen(kind byte, line []byte) (int, error) {
	if len(line) == 1 && line[0] == '?' {
		return 0, ErrUnsupportedReply
	}
	n, ok := parseInt(line)
	if !ok || n < -1 || n > 1<<40 || n == -1 && kind != '$' && kind != '*' {
		return 0, ErrInvalidReply
	}
	if kind == '=' && n >= 0 && n < 4 {
		return 0, ErrInvalidReply
	}
	return int(n), nil
}

// parseDouble parses the text of a RESP3 double; it allocates only for
// malformed text, which isDouble rules out first.
func parseDouble(line []byte) (float64, bool) {
	switch string(line) {
	case "inf", "+inf":
		return math.Inf(1), true
	case "-inf":
		return math.Inf(-1), true
	case "nan", "-nan":
		return math.NaN(), true
	}
	if !isDouble(line) {
		return 0, false
	}
	f, _ := strconv.ParseFloat(string(line), 64) // out of range gives ±Inf
	return f, true
}

// isDoubleWord reports whether line spells an infinity or NaN.
func isDoubleWord(line []byte) bool {
	switch string(line) {
	case "inf", "+inf", "-inf", "nan", "-nan":
		return true
	}
	return false
}

// isDouble reports whether line is [+-]digits[.digits][(e|E)[+-]digits]
// with at least one mantissa digit.
func isDouble(line []byte) bool {
	i := 0
	skipSign := func() {
		if i < len(line) && (line[i] == '-' || line[i] == '+') {
			i++
		}
	}
	digits := func() int {
		j := i
		for i < len(line) && '0' <= line[i] && line[i] <= '9' {
			i++
		}
		return i - j
	}
	skipSign()
	n := digits()
	if i < len(line) && line[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return false
	}
	if i < len(line) && (line[i] == 'e' || line[i] == 'E') {
		i++
		skipSign()
		if digits() == 0 {
			return false
		}
	}
	return i == len(line)
}

// isBigNumber reports whether line is an optionally signed run of digits.
func isBigNumber(line []byte) bool {
	if len(line) > 0 && (line[0] == '-' || line[0] == '+') {
		line = line[1:]
	}
	if len(line) == 0 {
		return false
	}
	for _, c := range line {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ParseReply decodes the first complete reply at the front of buf. n == 0 &&
// err == nil means the reply is incomplete. It allocates; use ReadReply to
// only measure a reply.
func ParseReply(buf []byte) (v Value, n int, err error) {
	n, err = ReadReply(buf)
	if n == 0 || err != nil {
		return Value{}, 0, err
	}
	v, end, err := buildValue(buf, 0, 0)
	if err != nil {
		return Value{}, 0, err
	}
	if end != n {
		return Value{}, 0, ErrInvalidReply // ReadReply and buildValue disagree
	}
	return v, n, nil
}

// buildValue decodes the reply at pos of a buffer ReadReply accepted and
// returns it and the offset after it.
func buildValue(buf []byte, pos, depth int) (Value, int, error) {
	if depth > maxReplyDepth {
		return Value{}, 0, ErrReplyTooDeep
	}
	kind, line, pos, _ := replyLine(buf, pos)
	count, _ := lineValue(kind, line)
	if kind == '|' {
		attrs, next, err := buildElems(buf, pos, 2*count, depth)
		if err != nil {
			return Value{}, 0, err
		}
		v, next, err := buildValue(buf, next, depth+1)
		v.Attrs = attrs
		return v, next, err
	}
	v := Value{Kind: kind}
	switch kind {
	case '+', '-', '(':
		v.Str = bytes.Clone(line)
	case ':':
		v.Int, _ = parseInt(line)
	case '_':
		v.Null = true
	case '#':
		v.Int = int64(bytes.IndexByte([]byte("ft"), line[0]))
	case ',':
		v.Str = bytes.Clone(line)
		v.Float, _ = parseDouble(line)
	case '$', '!', '=':
		if count < 0 {
			v.Null = true
			break
		}
		v.Str = bytes.Clone(buf[pos : pos+count])
		if kind == '=' {
			v.Fmt, v.Str = string(v.Str[:3]), v.Str[4:]
		}
		pos += count + 2
	case '*', '~', '>', '%':
		if count < 0 {
			v.Null = true
			break
		}
		if kind == '%' {
			count *= 2
		}
		var err error
		v.Elems, pos, err = buildElems(buf, pos, count, depth)
		if err != nil {
			return Value{}, 0, err
		}
	}
	return v, pos, nil
}

// buildElems decodes count replies from pos.
func buildElems(buf []byte, pos, count, depth int) ([]Value, int, error) {
	elems := make([]Value, 0, count)
	for range count {
		e, next, err := buildValue(buf, pos, depth+1)
		if err != nil {
			return nil, 0, err
		}
		elems = append(elems, e)
		pos = next
	}
	return elems, pos, nil
}
