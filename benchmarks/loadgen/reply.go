package loadgen

import "bytes"

// Limits of the reply reader.
const (
	maxReplyLine  = 64 << 10  // a simple string, error, number or header
	maxReplyBulk  = 512 << 20 // one bulk string
	maxReplyElems = 1 << 24   // elements still expected in one reply
)

// readReply parses one complete RESP2 or RESP3 reply at the start of buf.
// It returns the reply's length n, or n == 0 and err == nil when buf holds
// only a prefix of it. isErr reports a top-level error reply (- or !).
// Attributes (|) are skipped together with the value they annotate.
func readReply(buf []byte) (n int, isErr bool, err error) {
	pos, need := 0, 1
	first := true
	for need > 0 {
		if pos >= len(buf) {
			return 0, false, nil
		}
		typ := buf[pos]
		end := bytes.Index(buf[pos:], crlf)
		if end < 0 {
			if len(buf)-pos > maxReplyLine {
				return 0, false, ErrReplyTooLarge
			}
			return 0, false, nil
		}
		if end == 0 {
			return 0, false, ErrProtocol // a line with no type byte
		}
		line := buf[pos+1 : pos+end]
		pos += end + 2
		if first {
			isErr = typ == '-' || typ == '!'
			first = false
		}
		need--
		switch typ {
		case '+', '-', ':', '_', ',', '#', '(':
			// a one-line value
		case '$', '!', '=':
			l, ok := parseLen(line)
			if !ok {
				return 0, false, ErrProtocol
			}
			if l < 0 {
				continue // $-1: null bulk
			}
			if l > maxReplyBulk {
				return 0, false, ErrReplyTooLarge
			}
			if len(buf)-pos < int(l)+2 {
				return 0, false, nil
			}
			if buf[pos+int(l)] != '\r' || buf[pos+int(l)+1] != '\n' {
				return 0, false, ErrProtocol
			}
			pos += int(l) + 2
		case '*', '~', '>', '%', '|':
			l, ok := parseLen(line)
			if !ok {
				return 0, false, ErrProtocol
			}
			if l <= 0 {
				continue // empty or null aggregate
			}
			if typ == '%' || typ == '|' {
				l *= 2
			}
			if typ == '|' {
				need++ // the annotated value still follows
			}
			if need += int(l); need > maxReplyElems {
				return 0, false, ErrReplyTooLarge
			}
		default:
			return 0, false, ErrProtocol
		}
	}
	return pos, isErr, nil
}

var crlf = []byte("\r\n")

// parseLen parses a length field: -1 or a decimal in [0, 2^31).
func parseLen(b []byte) (int64, bool) {
	if len(b) == 2 && b[0] == '-' && b[1] == '1' {
		return -1, true
	}
	if len(b) == 0 || len(b) > 10 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, v < 1<<31
}
