package resp

// TEMPORARY naive parser: same API as the real one, to be replaced.
// It handles only complete multibulk commands and inline commands.

import (
	"bytes"
	"errors"
	"strconv"
)

// Limits bounds what the parser accepts.
type Limits struct {
	MaxBulk   int64 // longest bulk string; proto-max-bulk-len, default 512 MiB
	MaxArgs   int   // most arguments in one command, default 1,048,576
	MaxInline int   // longest inline command line, default 64 KiB
}

// DefaultLimits are Redis's defaults.
var DefaultLimits = Limits{MaxBulk: 512 << 20, MaxArgs: 1 << 20, MaxInline: 64 << 10}

// ProtocolError is a malformed request. Its Error text is Redis's, such as
// "Protocol error: invalid bulk length"; the server replies "-ERR " + text
// and closes the connection.
type ProtocolError struct{ msg string }

func (e *ProtocolError) Error() string { return e.msg }

// Parser parses commands incrementally. The zero value uses DefaultLimits.
type Parser struct {
	Limits Limits
	args   [][]byte
}

// Next parses one command from the front of buf. args alias buf and an
// internal slice: they stay valid until the next call to Next or Reset and
// until the caller discards the bytes. n is the number of bytes the command
// took. n == 0 && err == nil means more bytes are needed: call again with a
// buffer that starts with the same bytes. n > 0 with no args is an empty
// inline line to skip.
func (p *Parser) Next(buf []byte) (args [][]byte, n int, err error) {
	p.args = p.args[:0]
	if len(buf) == 0 {
		return nil, 0, nil
	}
	if buf[0] != '*' {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return nil, 0, nil
		}
		line := bytes.TrimRight(buf[:i], "\r")
		p.args = append(p.args, bytes.Fields(line)...)
		return p.args, i + 1, nil
	}
	i := bytes.IndexByte(buf, '\n')
	if i < 0 {
		return nil, 0, nil
	}
	cnt, e := strconv.Atoi(string(bytes.TrimRight(buf[1:i], "\r")))
	if e != nil {
		return nil, 0, &ProtocolError{"Protocol error: invalid multibulk length"}
	}
	pos := i + 1
	for k := 0; k < cnt; k++ {
		j := bytes.IndexByte(buf[pos:], '\n')
		if j < 0 {
			return nil, 0, nil
		}
		if buf[pos] != '$' {
			return nil, 0, errors.New("Protocol error: expected '$'")
		}
		l, e := strconv.Atoi(string(bytes.TrimRight(buf[pos+1:pos+j], "\r")))
		if e != nil {
			return nil, 0, &ProtocolError{"Protocol error: invalid bulk length"}
		}
		pos += j + 1
		if len(buf) < pos+l+2 {
			return nil, 0, nil
		}
		p.args = append(p.args, buf[pos:pos+l])
		pos += l + 2
	}
	return p.args, pos, nil
}

// Reset forgets any partial command.
func (p *Parser) Reset() { p.args = p.args[:0] }
