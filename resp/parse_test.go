package resp

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// mb encodes args as a multibulk command.
func mb(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

// strs copies args into strings.
func strs(args [][]byte) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = string(a)
	}
	return out
}

var parseTests = []struct {
	in   string
	args []string // nil: a line or count to skip
	n    int      // bytes consumed; 0 means len(in)
}{
	{in: mb("PING"), args: []string{"PING"}},
	{in: mb("SET", "a", "b"), args: []string{"SET", "a", "b"}},
	{in: mb("SET", "k", ""), args: []string{"SET", "k", ""}},
	{in: mb("SET", "k", "a\r\nb\x00\xff"), args: []string{"SET", "k", "a\r\nb\x00\xff"}},
	{in: mb("GET", "k") + "tail", args: []string{"GET", "k"}, n: len(mb("GET", "k"))},
	{in: "*0\r\n", args: nil},
	{in: "*-1\r\n", args: nil},
	{in: "*-7\r\n", args: nil},
	// Like Redis, the byte after a header CR and the two bytes after a
	// payload are skipped unchecked.
	{in: "*1\rX$4\rXPING\r\n", args: []string{"PING"}},
	{in: "*1\r\n$4\r\nPINGXY", args: []string{"PING"}},
	{in: "PING\r\n", args: []string{"PING"}},
	{in: "PING\n", args: []string{"PING"}},
	{in: "\r\n", args: nil},
	{in: "\n", args: nil},
	{in: " \t \r\n", args: nil},
	{in: "SET a b\r\nGET a\r\n", args: []string{"SET", "a", "b"}, n: 9},
	{in: "  SET   a\tb  \r\n", args: []string{"SET", "a", "b"}},
	{in: "ECHO \"a b\"\r\n", args: []string{"ECHO", "a b"}},
	{in: "PING a\"b c\"\r\n", args: []string{"PING", "ab c"}},
	{in: "ECHO \"a\\x41\\x4\"\r\n", args: []string{"ECHO", "aAx4"}},
	{in: "ECHO \"\\n\\r\\t\\b\\a\\\\\\\"\\q\"\r\n", args: []string{"ECHO", "\n\r\t\b\a\\\"q"}},
	{in: "ECHO 'a\\'b' \r\n", args: []string{"ECHO", "a'b"}},
	{in: "ECHO 'a\\nb'\r\n", args: []string{"ECHO", "a\\nb"}},
	{in: "ECHO \"it's\" 'say \"hi\"'\r\n", args: []string{"ECHO", "it's", "say \"hi\""}},
	{in: "ECHO \"\" ''\r\n", args: []string{"ECHO", "", ""}},
	{in: "ECHO \"a\"\vb\r\n", args: []string{"ECHO", "a", "b"}},
	{in: "ECHO \vab\r\n", args: []string{"ECHO", "ab"}},
	{in: "ECHO a\vb\r\n", args: []string{"ECHO", "a\vb"}},
	{in: "ECHO a\\nb\r\n", args: []string{"ECHO", "a\\nb"}},
	{in: "ECHO a\rb\r\n", args: []string{"ECHO", "a", "b"}},
	{in: "ECHO a\x00b c\r\n", args: []string{"ECHO", "a"}},
	{in: "ECHO \"a\x00\"\r\n", args: []string{"ECHO", "a"}, n: -1}, // unbalanced: see errors
}

func TestParseAcceptsValidCommands(t *testing.T) {
	for i, tt := range parseTests {
		if tt.n < 0 {
			continue
		}
		var p Parser
		buf := []byte(tt.in)
		args, n, err := p.Next(buf)
		want := tt.n
		if want == 0 {
			want = len(tt.in)
		}
		if err != nil || n != want {
			t.Errorf("#%d %q: n=%d err=%v, want n=%d", i, tt.in, n, err, want)
			continue
		}
		if got := strs(args); len(args) != len(tt.args) || strings.Join(got, "|") != strings.Join(tt.args, "|") {
			t.Errorf("#%d %q: args %q, want %q", i, tt.in, got, tt.args)
		}
	}
}

var parseErrorTests = []struct {
	in  string
	lim Limits
	err string
}{
	{in: "*x\r\n", err: "Protocol error: invalid multibulk length"},
	{in: "*\r\n", err: "Protocol error: invalid multibulk length"},
	{in: "*+1\r\n", err: "Protocol error: invalid multibulk length"},
	{in: "*01\r\n", err: "Protocol error: invalid multibulk length"},
	{in: "*-0\r\n", err: "Protocol error: invalid multibulk length"},
	{in: "* 1\r\n", err: "Protocol error: invalid multibulk length"},
	{in: "*1 \r\n", err: "Protocol error: invalid multibulk length"},
	{in: "*99999999999999999999\r\n", err: "Protocol error: invalid multibulk length"},
	{in: "*1048577\r\n", err: "Protocol error: invalid multibulk length"},
	{in: "*4\r\n", lim: Limits{MaxArgs: 3}, err: "Protocol error: invalid multibulk length"},
	{in: "*1" + strings.Repeat("1", 64<<10) + "\r\n", err: "Protocol error: invalid multibulk length"},
	{in: "*" + strings.Repeat("1", 64<<10), err: "Protocol error: too big mbulk count string"},
	{in: "*12345678901", lim: Limits{MaxInline: 10}, err: "Protocol error: too big mbulk count string"},
	{in: "*1\r\nX\r\n", err: "Protocol error: expected '$', got 'X'"},
	{in: "*1\r\n\r\n", err: "Protocol error: expected '$', got '\r'"},
	{in: "*1\r\n\xff\r\n", err: "Protocol error: expected '$', got '\xff'"},
	{in: "*2\r\n$3\r\nGET\r\n:1\r\n", err: "Protocol error: expected '$', got ':'"},
	{in: "*1\r\n$x\r\n", err: "Protocol error: invalid bulk length"},
	{in: "*1\r\n$\r\n", err: "Protocol error: invalid bulk length"},
	{in: "*1\r\n$-1\r\n", err: "Protocol error: invalid bulk length"},
	{in: "*1\r\n$-0\r\n", err: "Protocol error: invalid bulk length"},
	{in: "*1\r\n$04\r\nPING\r\n", err: "Protocol error: invalid bulk length"},
	{in: "*1\r\n$+4\r\nPING\r\n", err: "Protocol error: invalid bulk length"},
	{in: "*1\r\n$536870913\r\n", err: "Protocol error: invalid bulk length"},
	{in: "*1\r\n$6\r\n", lim: Limits{MaxBulk: 5}, err: "Protocol error: invalid bulk length"},
	{in: "*1\r\n$9223372036854775808\r\n", err: "Protocol error: invalid bulk length"},
	{in: "*1\r\n$" + strings.Repeat("1", 64<<10), err: "Protocol error: too big bulk count string"},
	{in: "*1\r\nX" + strings.Repeat("1", 64<<10), err: "Protocol error: too big bulk count string"},
	{in: "*1\r\n$12345678901", lim: Limits{MaxInline: 10}, err: "Protocol error: too big bulk count string"},
	{in: strings.Repeat("A", 64<<10+1), err: "Protocol error: too big inline request"},
	{in: "PING 1234567", lim: Limits{MaxInline: 10}, err: "Protocol error: too big inline request"},
	{in: "PING 12345\r\n", lim: Limits{MaxInline: 10}, err: "Protocol error: too big inline request"},
	{in: "PING " + strings.Repeat("x", 64<<10) + "\r\n", err: "Protocol error: too big inline request"},
	{in: "ECHO \"a\r\n", err: "Protocol error: unbalanced quotes in request"},
	{in: "ECHO 'a\r\n", err: "Protocol error: unbalanced quotes in request"},
	{in: "ECHO \"a\"x\r\n", err: "Protocol error: unbalanced quotes in request"},
	{in: "ECHO 'a'x\r\n", err: "Protocol error: unbalanced quotes in request"},
	{in: "ECHO \"a\\\"\r\n", err: "Protocol error: unbalanced quotes in request"},
	{in: "ECHO \"a\x00\"\r\n", err: "Protocol error: unbalanced quotes in request"},
	{in: "ECHO a\"b\r\n", err: "Protocol error: unbalanced quotes in request"},
}

func TestParseRejectsMalformedRequests(t *testing.T) {
	for i, tt := range parseErrorTests {
		p := Parser{Limits: tt.lim}
		args, n, err := p.Next([]byte(tt.in))
		if err == nil || err.Error() != tt.err || n != 0 || args != nil {
			t.Errorf("#%d %.40q: args=%q n=%d err=%v, want %q", i, tt.in, args, n, err, tt.err)
			continue
		}
		var pe *ProtocolError
		if !errors.As(err, &pe) {
			t.Errorf("#%d: %T is not a *ProtocolError", i, err)
		}
	}
}

func TestParseErrorsMatchSentinels(t *testing.T) {
	var p Parser
	_, _, err := p.Next([]byte("*1\r\nX\r\n"))
	if !errors.Is(err, ErrExpectedDollar) || errors.Is(err, ErrInvalidBulkLength) {
		t.Errorf("errors.Is(%v, ErrExpectedDollar) false or matches another kind", err)
	}
	p.Reset()
	_, _, err = p.Next([]byte("*1\r\n$x\r\n"))
	if !errors.Is(err, ErrInvalidBulkLength) {
		t.Errorf("errors.Is(%v, ErrInvalidBulkLength) = false", err)
	}
}

func TestParseErrorIsStickyUntilReset(t *testing.T) {
	var p Parser
	if _, _, err := p.Next([]byte("*x\r\n")); err != ErrInvalidMultibulkLength {
		t.Fatalf("err = %v, want %v", err, ErrInvalidMultibulkLength)
	}
	if _, n, err := p.Next([]byte(mb("PING"))); err != ErrInvalidMultibulkLength || n != 0 {
		t.Fatalf("after error: n=%d err=%v, want the same error", n, err)
	}
	p.Reset()
	if args, _, err := p.Next([]byte(mb("PING"))); err != nil || len(args) != 1 {
		t.Fatalf("after Reset: args=%q err=%v", args, err)
	}
}

func TestParseReadsPipeline(t *testing.T) {
	cmds := [][]string{{"SET", "a", "1"}, {"GET", "a"}, nil, {"PING"}, {"ECHO", "x y"}, nil, {"DEL", "a", "b", "c"}}
	in := mb("SET", "a", "1") + mb("GET", "a") + "*0\r\n" + "PING\r\n" + "ECHO 'x y'\n" + "\r\n" + mb("DEL", "a", "b", "c")
	buf := []byte(in)
	var p Parser
	for i, want := range cmds {
		args, n, err := p.Next(buf)
		if err != nil || n == 0 {
			t.Fatalf("#%d: n=%d err=%v", i, n, err)
		}
		if strings.Join(strs(args), "|") != strings.Join(want, "|") || len(args) != len(want) {
			t.Fatalf("#%d: args %q, want %q", i, strs(args), want)
		}
		buf = buf[n:]
	}
	if len(buf) != 0 {
		t.Fatalf("%d bytes left", len(buf))
	}
}

func TestParseNeedsMoreForEveryStrictPrefix(t *testing.T) {
	for i, tt := range parseTests {
		if tt.n != 0 { // inputs longer than their command
			continue
		}
		var resumed Parser
		for k := 0; k < len(tt.in); k++ {
			var fresh Parser
			if args, n, err := fresh.Next([]byte(tt.in[:k])); args != nil || n != 0 || err != nil {
				t.Errorf("#%d %q[:%d] fresh: args=%q n=%d err=%v, want need-more", i, tt.in, k, args, n, err)
			}
			if args, n, err := resumed.Next([]byte(tt.in[:k])); args != nil || n != 0 || err != nil {
				t.Errorf("#%d %q[:%d] resumed: args=%q n=%d err=%v, want need-more", i, tt.in, k, args, n, err)
			}
		}
		args, n, err := resumed.Next([]byte(tt.in))
		if err != nil || n != len(tt.in) || strings.Join(strs(args), "|") != strings.Join(tt.args, "|") {
			t.Errorf("#%d %q resumed whole: args=%q n=%d err=%v", i, tt.in, args, n, err)
		}
	}
}

func TestParseAcceptsCustomLimitsAtTheBoundary(t *testing.T) {
	lim := Limits{MaxArgs: 3, MaxBulk: 5, MaxInline: 10}
	for i, in := range []string{mb("SET", "a", "12345"), "*3\r\n$1\r\na\r\n$0\r\n\r\n$5\r\nabcde\r\n", "012345678\r\n", "0123456789\n"} {
		p := Parser{Limits: lim}
		if _, n, err := p.Next([]byte(in)); err != nil || n != len(in) {
			t.Errorf("#%d %q: n=%d err=%v, want accepted", i, in, n, err)
		}
	}
	p := Parser{Limits: lim}
	if _, n, err := p.Next([]byte("0123456789")); n != 0 || err != nil {
		t.Errorf("inline of MaxInline bytes: n=%d err=%v, want need-more", n, err)
	}
}

// TestParseDoesNotRescanSlowInput feeds commands one byte at a time and
// checks through p.examined that each byte is searched at most about once.
func TestParseDoesNotRescanSlowInput(t *testing.T) {
	big := mb("SET", "k", strings.Repeat("v\r\n", 1<<20/3))
	inline := "SET k " + strings.Repeat("x", 60000) + "\r\n"
	for i, tt := range []struct {
		in      string
		maxExam int
	}{
		{big, 40}, // headers only: the payload is never searched
		{inline, len(inline) + 2},
		{"*1\r\n$5\r\n" + strings.Repeat("x", 5) + "\r\n", 16},
	} {
		var p Parser
		buf := []byte(tt.in)
		var n int
		var err error
		for k := 1; k <= len(buf) && n == 0 && err == nil; k++ {
			_, n, err = p.Next(buf[:k])
		}
		if err != nil || n != len(buf) {
			t.Errorf("#%d: n=%d err=%v, want %d", i, n, err, len(buf))
		}
		if p.examined > tt.maxExam {
			t.Errorf("#%d: examined %d bytes of %d, want at most %d", i, p.examined, len(buf), tt.maxExam)
		}
	}
}

func TestParsePendingNamesTheBulkEnd(t *testing.T) {
	in := []byte(mb("SET", "k", strings.Repeat("v", 1000)))
	var p Parser
	if _, n, _ := p.Next(in[:30]); n != 0 {
		t.Fatalf("n = %d, want need-more", n)
	}
	if got := p.Pending(); got != len(in) {
		t.Errorf("Pending() = %d, want %d", got, len(in))
	}
	p.Reset()
	if got := p.Pending(); got != 0 {
		t.Errorf("Pending() after Reset = %d, want 0", got)
	}
}

func TestParseStartsOverOnShorterBuffer(t *testing.T) {
	in := []byte(mb("SET", "k", "value"))
	var p Parser
	p.Next(in[:15])
	if _, n, err := p.Next(in[:5]); n != 0 || err != nil {
		t.Fatalf("shorter buffer: n=%d err=%v", n, err)
	}
	if args, n, err := p.Next(in); err != nil || n != len(in) || string(args[2]) != "value" {
		t.Fatalf("whole: args=%q n=%d err=%v", args, n, err)
	}
}

func TestParseCapsArgumentCapacity(t *testing.T) {
	var p Parser
	args, _, _ := p.Next([]byte(mb("SET", "a", "b")))
	for i, a := range args {
		if cap(a) != len(a) {
			t.Errorf("arg %d: cap %d, want %d", i, cap(a), len(a))
		}
	}
}

func TestParseDoesNotAllocate(t *testing.T) {
	for _, in := range []string{mb("SET", "a", "b"), "PING\r\n", "SET k \"v\\x41\"\r\n"} {
		var p Parser
		src := []byte(in)
		buf := bytes.Clone(src)
		p.Next(buf) // warm the argument slice
		allocs := testing.AllocsPerRun(100, func() {
			copy(buf, src)
			if _, n, err := p.Next(buf); n != len(buf) || err != nil {
				t.Fatalf("%q: n=%d err=%v", in, n, err)
			}
		})
		if allocs != 0 {
			t.Errorf("%q: %v allocs per command, want 0", in, allocs)
		}
	}
}

// genCommand returns a random command's encoding and its arguments (nil for
// a line or count to skip).
func genCommand(r *rand.Rand) (string, []string) {
	switch r.IntN(10) {
	case 0:
		return []string{"\r\n", "\n", "*0\r\n", "*-1\r\n", "  \r\n"}[r.IntN(5)], nil
	case 1, 2, 3:
		args := make([]string, 1+r.IntN(4))
		var b strings.Builder
		for i := range args {
			args[i] = randArg(r, false)
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(inlineQuote(args[i], r))
		}
		b.WriteString([]string{"\r\n", "\n"}[r.IntN(2)])
		return b.String(), args
	}
	args := make([]string, 1+r.IntN(6))
	for i := range args {
		args[i] = randArg(r, true)
	}
	return mb(args...), args
}

// randArg returns a random argument: plain words, binary with CR LF, or
// empty; a long one now and then.
func randArg(r *rand.Rand, binary bool) string {
	n := r.IntN(12)
	if r.IntN(20) == 0 {
		n = r.IntN(40000)
		if !binary {
			n /= 10 // an escaped inline line stays under MaxInline
		}
	}
	b := make([]byte, n)
	for i := range b {
		if binary || r.IntN(4) == 0 {
			const special = "\r\n\x00 \"'\\xab\xff"
			b[i] = special[r.IntN(len(special))]
			if r.IntN(2) == 0 {
				b[i] = byte(r.IntN(256))
			}
		} else {
			b[i] = byte('a' + r.IntN(26))
		}
	}
	return string(b)
}

// inlineQuote writes arg for an inline command: plain when it can be, else
// double-quoted with escapes (or single-quoted now and then).
func inlineQuote(arg string, r *rand.Rand) string {
	plain := arg != ""
	for i := 0; i < len(arg); i++ {
		if c := arg[i]; c <= ' ' || c == '"' || c == '\'' || c >= 0x7f {
			plain = false
		}
	}
	if plain && r.IntN(4) > 0 {
		return arg
	}
	if !strings.ContainsAny(arg, "'\\\x00\r\n\t \v\f") && r.IntN(2) == 0 {
		return "'" + arg + "'"
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(arg); i++ {
		switch c := arg[i]; {
		case c == '"' || c == '\\':
			b.WriteString("\\" + string(c))
		case c == '\n':
			b.WriteString("\\n")
		case c < ' ' || c >= 0x7f:
			fmt.Fprintf(&b, "\\x%02x", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestParseStreamsRandomPipelinesCutAnywhere cuts a random pipeline at random
// points and feeds it as a caller does: unconsumed bytes are presented again
// with the new ones, sometimes moved to a new address (the old copy is then
// poisoned so a stale pointer shows).
func TestParseStreamsRandomPipelinesCutAnywhere(t *testing.T) {
	seed := uint64(20261129)
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, seed))
	for round := range 20 {
		var stream strings.Builder
		var want [][]string
		for range 200 {
			enc, args := genCommand(r)
			stream.WriteString(enc)
			want = append(want, args)
		}
		in := []byte(stream.String())
		var p Parser
		var got [][]string
		buf := make([]byte, 0, 64)
		for off := 0; off < len(in); {
			k := 1 + r.IntN(1+r.IntN(3)*r.IntN(5000))
			k = min(k, len(in)-off)
			if r.IntN(3) == 0 {
				moved := make([]byte, len(buf), len(buf)+k+r.IntN(100))
				copy(moved, buf)
				for i := range buf {
					buf[i] = 0xEE
				}
				buf = moved
			}
			buf = append(buf, in[off:off+k]...)
			off += k
			for {
				args, n, err := p.Next(buf)
				if err != nil {
					t.Fatalf("round %d: command %d: %v", round, len(got), err)
				}
				if n == 0 {
					break
				}
				if len(args) == 0 {
					got = append(got, nil)
				} else {
					got = append(got, strs(args))
				}
				buf = buf[n:]
			}
		}
		if len(buf) != 0 || len(got) != len(want) {
			t.Fatalf("round %d: %d commands and %d bytes left, want %d and 0", round, len(got), len(buf), len(want))
		}
		for i := range want {
			if fmt.Sprintf("%q", got[i]) != fmt.Sprintf("%q", want[i]) {
				t.Fatalf("round %d: command %d: %.200q, want %.200q", round, i, got[i], want[i])
			}
		}
	}
}

func TestSplitArgsRewritesOnlyItsLine(t *testing.T) {
	buf := []byte("ECHO \"a\\x41\"\r\nNEXT")
	var p Parser
	args, n, err := p.Next(buf)
	if err != nil || n != 14 || string(args[1]) != "aA" {
		t.Fatalf("args=%q n=%d err=%v", args, n, err)
	}
	if !bytes.Equal(buf[n:], []byte("NEXT")) {
		t.Fatalf("bytes after the line changed: %q", buf[n:])
	}
}

func TestParseRefusesSlowLongLinesWithoutRescan(t *testing.T) {
	for i, tt := range []struct {
		in  string
		err error
	}{
		{"*" + strings.Repeat("1", 70000), ErrTooBigMbulkCount},
		{"*1\r\n$" + strings.Repeat("1", 70000), ErrTooBigBulkCount},
		{"*2\r\n$1\r\na\r\nX" + strings.Repeat("1", 70000), ErrTooBigBulkCount},
		{strings.Repeat("A", 70000), ErrTooBigInline},
	} {
		var p Parser
		buf := []byte(tt.in)
		k := 1
		var err error
		for ; k <= len(buf); k++ {
			if _, _, err = p.Next(buf[:k]); err != nil {
				break
			}
		}
		start := bytes.LastIndexByte(buf, '\n') + 1 // the line's first byte
		if err != tt.err || k-start != DefaultLimits.MaxInline+1 {
			t.Errorf("#%d: err %v after %d line bytes, want %v after %d", i, err, k-start, tt.err, DefaultLimits.MaxInline+1)
		}
		if p.examined > k+40 {
			t.Errorf("#%d: examined %d bytes for %d, want about one pass", i, p.examined, k)
		}
	}
}

func TestParseReleasesHugeArgumentSlices(t *testing.T) {
	args := make([]string, 5000)
	for i := range args {
		args[i] = "x"
	}
	var p Parser
	if got, _, err := p.Next([]byte(mb(args...))); err != nil || len(got) != 5000 {
		t.Fatalf("len(args)=%d err=%v", len(got), err)
	}
	p.Next([]byte(mb("PING")))
	if cap(p.args) > maxKeptArgs || cap(p.spans) > maxKeptArgs {
		t.Fatalf("kept cap %d args and %d spans after a small command", cap(p.args), cap(p.spans))
	}
}

func TestParseResetDropsBufferReferences(t *testing.T) {
	var p Parser
	p.Next([]byte(mb("SET", "a", "b")))
	p.Reset()
	for i, a := range p.args[:cap(p.args)] {
		if a != nil {
			t.Errorf("args[%d] still references %q after Reset", i, a)
		}
	}
}

func TestParseWaitsForHugeBulkUnderHugeLimit(t *testing.T) {
	p := Parser{Limits: Limits{MaxBulk: 1<<63 - 1}}
	in := []byte("*1\r\n$9223372036854775807\r\nabc")
	if args, n, err := p.Next(in); args != nil || n != 0 || err != nil {
		t.Fatalf("args=%q n=%d err=%v, want need-more", args, n, err)
	}
}

// whole, Next's one-pass path, takes every complete command in the common
// form, with lengths of one, two and more digits and empty arguments, and
// leaves every prefix of one, and a form it does not read, to multibulk.
func TestParseWholeTakesCompleteCommands(t *testing.T) {
	for _, args := range [][]string{
		{"PING"},
		{"SET", "key:__rand_int__", "xxx"},
		{"SET", "k", strings.Repeat("v", 99)},
		{"SET", "k", strings.Repeat("v", 100)},
		{"SET", "k", strings.Repeat("v", 12345)},
		{"SET", "", "v"},
		{"LPUSH", "l", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j"},
	} {
		in := []byte(mb(args...))
		var p Parser
		got, n, ok := p.whole(in)
		if !ok || n != len(in) || fmt.Sprintf("%q", got) != fmt.Sprintf("%q", args) {
			t.Fatalf("whole(%q) = %q, %d, %v; want %q, %d, true", in, got, n, ok, args, len(in))
		}
		for k := 0; k < len(in); k++ {
			if _, _, ok := p.whole(in[:k]); ok {
				t.Fatalf("whole took the prefix %q of %q", in[:k], in)
			}
		}
	}
	for _, in := range []string{"*1\r\n$04\r\nPING\r\n", "*01\r\n$4\r\nPING\r\n", "*1\r\n:4\r\nPING\r\n", "*0\r\n", "*-1\r\n"} {
		var p Parser
		if _, _, ok := p.whole([]byte(in)); ok {
			t.Errorf("whole took %q, which multibulk answers", in)
		}
	}
}
