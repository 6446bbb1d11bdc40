package resp

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"
)

// parseSeeds are the seeds of FuzzParse and FuzzParseChunked.
var parseSeeds = []string{
	"*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\nb\r\n",        // plain SET
	"*2\r\n$3\r\nGET\r\n$4\r\na\r\nb\r\n*0\r\n*-1\r\n", // CR LF in a value, skipped counts
	"PING\r\nECHO \"a\\x41\\n\" 'it\\'s'\n\r\n",        // inline quoting and an empty line
	"SET k \"a\"b\r\n",   // unbalanced quotes
	"*1\r\nX\r\n",        // expected '$'
	"*1\r\n$-1\r\n",      // invalid bulk length
	"*1\rX$4\rXPING\r\n", // unchecked LF, as Redis
	"ECHO a\x00b\r\n",    // NUL ends an inline line
	"*2\r\n$4\r\nPING\r\n$99999999999999999999999\r\n", // overflowing length
	"*1\r\n$3\r\nabcXY*1\r\n$4\r\nPING\r\n",            // unchecked trailer
	"  \t\"\" '' a\"b c\"\r\n",                         // empty quoted arguments
}

// oracleCommand decodes the first command of buf the naive way, accepting
// only the well-formed subset: canonical numbers, exact CR LF everywhere,
// lengths within DefaultLimits. ok is false outside that subset.
func oracleCommand(buf []byte) (args [][]byte, n int, ok bool) {
	if len(buf) == 0 {
		return nil, 0, false
	}
	if buf[0] != '*' {
		nl := bytes.IndexByte(buf, '\n')
		if nl < 0 {
			return nil, 0, false
		}
		line := bytes.TrimSuffix(buf[:nl], []byte("\r"))
		args, ok := oracleSplit(line)
		return args, nl + 1, ok
	}
	readNum := func(pos int) (int64, int, bool) {
		cr := bytes.Index(buf[pos:], []byte("\r\n"))
		if cr < 0 {
			return 0, 0, false
		}
		s := string(buf[pos : pos+cr])
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || strconv.FormatInt(v, 10) != s {
			return 0, 0, false
		}
		return v, pos + cr + 2, true
	}
	count, pos, ok := readNum(1)
	if !ok || count > int64(DefaultLimits.MaxArgs) {
		return nil, 0, false
	}
	for range max(count, 0) {
		if pos >= len(buf) || buf[pos] != '$' {
			return nil, 0, false
		}
		l, next, ok := readNum(pos + 1)
		if !ok || l < 0 || l > DefaultLimits.MaxBulk || int64(len(buf)-next) < l+2 {
			return nil, 0, false
		}
		end := next + int(l)
		if buf[end] != '\r' || buf[end+1] != '\n' {
			return nil, 0, false
		}
		args = append(args, bytes.Clone(buf[next:end]))
		pos = end + 2
	}
	return args, pos, true
}

// oracleSplit is sdssplitargs written plainly into fresh buffers.
func oracleSplit(line []byte) ([][]byte, bool) {
	if z := bytes.IndexByte(line, 0); z >= 0 {
		line = line[:z]
	}
	at := func(i int) byte {
		if i < len(line) {
			return line[i]
		}
		return 0
	}
	space := func(c byte) bool { return bytes.IndexByte([]byte(" \t\n\v\f\r"), c) >= 0 && c != 0 }
	var args [][]byte
	p := 0
	for {
		for space(at(p)) {
			p++
		}
		if at(p) == 0 {
			return args, true
		}
		cur := []byte{}
		inq, insq := false, false
		for done := false; !done; {
			c := at(p)
			switch {
			case inq && c == '\\' && at(p+1) == 'x' && isHex(at(p+2)) && isHex(at(p+3)):
				v, _ := strconv.ParseUint(string(line[p+2:p+4]), 16, 8)
				cur = append(cur, byte(v))
				p += 3
			case inq && c == '\\' && at(p+1) != 0:
				p++
				cur = append(cur, oracleEscape(at(p)))
			case inq && c == '"', insq && c == '\'':
				if at(p+1) != 0 && !space(at(p+1)) {
					return nil, false
				}
				done = true
			case (inq || insq) && c == 0:
				return nil, false
			case insq && c == '\\' && at(p+1) == '\'':
				p++
				cur = append(cur, '\'')
			case inq || insq:
				cur = append(cur, c)
			case c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0:
				done = true
			case c == '"':
				inq = true
			case c == '\'':
				insq = true
			default:
				cur = append(cur, c)
			}
			if at(p) != 0 {
				p++
			}
		}
		args = append(args, cur)
	}
}

// oracleEscape maps the byte after a backslash in double quotes.
func oracleEscape(c byte) byte {
	if i := bytes.IndexByte([]byte("nrtba"), c); i >= 0 {
		return "\n\r\t\b\a"[i]
	}
	return c
}

// parseAll parses every command of in, copying the arguments, until need-more
// or an error.
func parseAll(in []byte) (cmds []string, rest int, err error) {
	var p Parser
	buf := bytes.Clone(in)
	for {
		args, n, err := p.Next(buf)
		if n < 0 || n > len(buf) {
			panic(fmt.Sprintf("n = %d of %d", n, len(buf)))
		}
		if err != nil || n == 0 {
			return cmds, len(buf), err
		}
		cmds = append(cmds, fmt.Sprintf("%q", args))
		buf = buf[n:]
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		cmds, _, _ := parseAll(in)
		buf := in
		for i := 0; ; i++ {
			args, n, ok := oracleCommand(buf)
			if !ok {
				return
			}
			if i >= len(cmds) {
				t.Fatalf("command %d: parser stopped, oracle read %q", i, args)
			}
			if args == nil {
				args = [][]byte{}
			}
			if got := fmt.Sprintf("%q", args); got != cmds[i] {
				t.Fatalf("command %d: parser %s, oracle %s", i, cmds[i], got)
			}
			buf = buf[n:]
		}
	})
}

func FuzzParseChunked(f *testing.F) {
	for i, s := range parseSeeds {
		f.Add([]byte(s), uint64(i)*0x9e3779b97f4a7c15)
	}
	f.Fuzz(func(t *testing.T, in []byte, cuts uint64) {
		if len(in) > DefaultLimits.MaxInline {
			return // longer input may legitimately hit "too big" only when chunked
		}
		wantCmds, wantRest, wantErr := parseAll(in)
		var p Parser
		var cmds []string
		var err error
		buf := []byte{}
		for off := 0; off < len(in) && err == nil; {
			k := min(1+int(cuts%7), len(in)-off)
			cuts = cuts/7 ^ cuts<<11 ^ 0x5bd1e995
			if cuts%3 == 0 { // present the same bytes at a new address
				moved := bytes.Clone(buf)
				for i := range buf {
					buf[i] = '?'
				}
				buf = moved
			}
			buf = append(buf, in[off:off+k]...)
			off += k
			for {
				var args [][]byte
				var n int
				args, n, err = p.Next(buf)
				if err != nil || n == 0 {
					break
				}
				cmds = append(cmds, fmt.Sprintf("%q", args))
				buf = buf[n:]
			}
		}
		if fmt.Sprint(cmds) != fmt.Sprint(wantCmds) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("chunked %v, %v; whole %v, %v", cmds, err, wantCmds, wantErr)
		}
		if err == nil && len(buf) != wantRest {
			t.Fatalf("chunked left %d bytes, whole %d", len(buf), wantRest)
		}
	})
}

func FuzzReadReply(f *testing.F) {
	for _, tt := range replyTests {
		f.Add([]byte(tt.in))
	}
	f.Add([]byte("*2\r\n*1\r\n:1\r\n$-1\r\n"))
	f.Add([]byte("|1\r\n+a\r\n,inf\r\n#t\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		n, err := ReadReply(in)
		if n < 0 || n > len(in) || (err != nil && n != 0) {
			t.Fatalf("ReadReply = %d, %v for %d bytes", n, err, len(in))
		}
		_, m, perr := ParseReply(in)
		if perr == ErrReplyTooDeep {
			return
		}
		if m != n || perr != err {
			t.Fatalf("ReadReply = %d, %v; ParseReply = %d, %v", n, err, m, perr)
		}
		if n > 0 {
			if k, err := ReadReply(in[:n-1]); k != 0 || err != nil {
				t.Fatalf("strict prefix: %d, %v, want incomplete", k, err)
			}
		}
	})
}

// FuzzScanCommand checks ScanCommand against the Parser, command by
// command: where it reads a command, a Parser with the default limits
// reads the same bytes as the same arguments, or refuses them.
func FuzzScanCommand(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte("*3\r\n$3\r\nSET\r\n$14\r\nlkb:0000000042\r\n$16\r\n0123456789abcdef\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"))
	f.Add([]byte("*6\r\n$4\r\nMSET\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n$0\r\n\r\n*0\r\n*2\r\n$3\r\nGET"))
	f.Fuzz(func(t *testing.T, in []byte) {
		buf := in
		for {
			var first [ScanArgs][]byte
			n, argc := ScanCommand(buf, &first)
			if n == 0 {
				return
			}
			var p Parser
			args, pn, err := p.Next(buf)
			if err != nil {
				return
			}
			if pn != n || len(args) != argc {
				t.Fatalf("ScanCommand read %d bytes, %d arguments; the Parser %d, %q", n, argc, pn, args)
			}
			for i := range min(argc, ScanArgs) {
				if !bytes.Equal(first[i], args[i]) {
					t.Fatalf("argument %d: ScanCommand %q, the Parser %q", i, first[i], args[i])
				}
			}
			buf = buf[n:]
		}
	})
}
