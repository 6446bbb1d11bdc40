package server

// replyReader walks a reply this server wrote (RESP2 or RESP3), for the
// propagation of commands whose change is their reply (SPOP, the pops,
// INCRBYFLOAT). The replies are our own, so it trusts their framing and
// only guards against reading past the end.
type replyReader struct {
	b []byte
}

// line returns the next line without its type byte and CRLF.
func (r *replyReader) line() (byte, []byte) {
	for i := 1; i+1 < len(r.b); i++ {
		if r.b[i] == '\r' && r.b[i+1] == '\n' {
			typ, l := r.b[0], r.b[1:i]
			r.b = r.b[i+2:]
			return typ, l
		}
	}
	r.b = nil
	return 0, nil
}

// head reads a header: the type byte and its number (an aggregate's
// length, a bulk's size; -1 for the nulls). A bulk's body is left unread.
func (r *replyReader) head() (byte, int) {
	typ, l := r.line()
	if typ == '_' {
		return typ, -1
	}
	n, neg := 0, false
	for i, ch := range l {
		if i == 0 && ch == '-' {
			neg = true
			continue
		}
		if ch < '0' || ch > '9' {
			return typ, 0
		}
		n = n*10 + int(ch-'0')
	}
	if neg {
		n = -n
	}
	return typ, n
}

// bulk reads a bulk string; nil when the next value is not one.
func (r *replyReader) bulk() []byte {
	typ, n := r.head()
	if typ != '$' || n < 0 || n+2 > len(r.b) {
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n+2:]
	return v
}

// replyBulk returns a reply's bulk string, false when it is not one (a
// null).
func replyBulk(reply []byte) ([]byte, bool) {
	r := replyReader{b: reply}
	v := r.bulk()
	return v, v != nil
}
