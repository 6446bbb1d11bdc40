package resp

import (
	"math"
	"strings"
	"testing"
)

var replyTests = []struct {
	in   string
	want string
}{
	{"+OK\r\n", `+"OK"`},
	{"-ERR no\r\n", `-"ERR no"`},
	{":-12\r\n", ":-12"},
	{"$5\r\na\r\nbc\r\n", `$"a\r\nbc"`},
	{"$0\r\n\r\n", `$""`},
	{"$-1\r\n", "$null"},
	{"*-1\r\n", "*null"},
	{"*0\r\n", "*[]"},
	{"_\r\n", "_null"},
	{",1.5\r\n", ",1.5"},
	{",-inf\r\n", ",-inf"},
	{",1e+17\r\n", ",1e+17"},
	{"#t\r\n", "#1"},
	{"#f\r\n", "#0"},
	{"(-123456789012345678901234567890\r\n", `("-123456789012345678901234567890"`},
	{"!8\r\nERR a\r\nb\r\n", `!"ERR a\r\nb"`},
	{"=8\r\ntxt:hey!\r\n", `=txt:"hey!"`},
	{"*2\r\n:1\r\n*1\r\n$1\r\nx\r\n", `*[:1 *[$"x"]]`},
	{"%1\r\n+k\r\n~2\r\n:1\r\n:2\r\n", `%[+"k" ~[:1 :2]]`},
	{">2\r\n+message\r\n$-1\r\n", `>[+"message" $null]`},
	{"|1\r\n+ttl\r\n:3\r\n:42\r\n", `|+"ttl" :3| :42`},
	{"*1\r\n|1\r\n+a\r\n+b\r\n:7\r\n", `*[|+"a" +"b"| :7]`},
}

func TestParseReplyDecodesEveryKind(t *testing.T) {
	for i, tt := range replyTests {
		buf := []byte(tt.in + "+next\r\n")
		v, n, err := ParseReply(buf)
		if err != nil || n != len(tt.in) {
			t.Errorf("#%d %q: n=%d err=%v, want n=%d", i, tt.in, n, err, len(tt.in))
			continue
		}
		if got := v.String(); got != tt.want {
			t.Errorf("#%d %q: %s, want %s", i, tt.in, got, tt.want)
		}
		if m, err := ReadReply(buf); m != n || err != nil {
			t.Errorf("#%d: ReadReply = %d, %v, want %d", i, m, err, n)
		}
	}
}

func TestReadReplyNeedsMoreForEveryStrictPrefix(t *testing.T) {
	for i, tt := range replyTests {
		for k := range len(tt.in) {
			if n, err := ReadReply([]byte(tt.in[:k])); n != 0 || err != nil {
				t.Errorf("#%d %q[:%d]: n=%d err=%v, want incomplete", i, tt.in, k, n, err)
			}
			if v, n, err := ParseReply([]byte(tt.in[:k])); n != 0 || err != nil || v.Kind != 0 {
				t.Errorf("#%d %q[:%d]: ParseReply n=%d err=%v, want incomplete", i, tt.in, k, n, err)
			}
		}
	}
}

var replyErrorTests = []struct {
	in  string
	err error
}{
	{"x\r\n", ErrInvalidReply},
	{"+OK\rX", ErrInvalidReply},
	{":1.5\r\n", ErrInvalidReply},
	{":\r\n", ErrInvalidReply},
	{"$-2\r\n", ErrInvalidReply},
	{"$3\r\nabcd\r\n", ErrInvalidReply},
	{"%-1\r\n", ErrInvalidReply},
	{"=3\r\ntxt\r\n", ErrInvalidReply},
	{"#x\r\n", ErrInvalidReply},
	{"_x\r\n", ErrInvalidReply},
	{",1.2.3\r\n", ErrInvalidReply},
	{",\r\n", ErrInvalidReply},
	{"(12a\r\n", ErrInvalidReply},
	{"*1\r\n:x\r\n", ErrInvalidReply},
	{"$?\r\n", ErrUnsupportedReply},
	{"*?\r\n", ErrUnsupportedReply},
	{".\r\n", ErrUnsupportedReply},
}

func TestReadReplyRejectsMalformedReplies(t *testing.T) {
	for i, tt := range replyErrorTests {
		if n, err := ReadReply([]byte(tt.in)); err != tt.err || n != 0 {
			t.Errorf("#%d %q: n=%d err=%v, want %v", i, tt.in, n, err, tt.err)
		}
		if _, n, err := ParseReply([]byte(tt.in)); err != tt.err || n != 0 {
			t.Errorf("#%d %q: ParseReply n=%d err=%v, want %v", i, tt.in, n, err, tt.err)
		}
	}
}

func TestReadReplyReportsHugeCountsAsIncomplete(t *testing.T) {
	for i, in := range []string{"*1099511627776\r\n", "%549755813888\r\n:1\r\n", "*3\r\n*3\r\n*3\r\n"} {
		if n, err := ReadReply([]byte(in)); n != 0 || err != nil {
			t.Errorf("#%d %q: n=%d err=%v, want incomplete", i, in, n, err)
		}
	}
}

func TestParseReplyLimitsDepth(t *testing.T) {
	deep := strings.Repeat("*1\r\n", maxReplyDepth+5) + ":1\r\n"
	if n, err := ReadReply([]byte(deep)); n != len(deep) || err != nil {
		t.Fatalf("ReadReply: n=%d err=%v", n, err)
	}
	if _, _, err := ParseReply([]byte(deep)); err != ErrReplyTooDeep {
		t.Fatalf("ParseReply err = %v, want %v", err, ErrReplyTooDeep)
	}
}

func TestReadReplyDoesNotAllocate(t *testing.T) {
	buf := []byte(strings.Join([]string{"*5", "$3", "abc", ",1.25e-3", "%1", "+k", "#t", "|1", "+a", ":1", "(99", "=5", "txt:x", ""}, "\r\n"))
	if n, err := ReadReply(buf); n != len(buf) || err != nil {
		t.Fatalf("n=%d err=%v, want %d", n, err, len(buf))
	}
	if allocs := testing.AllocsPerRun(100, func() { ReadReply(buf) }); allocs != 0 {
		t.Errorf("%v allocs, want 0", allocs)
	}
}

func TestParseReplyReadsNaN(t *testing.T) {
	v, _, err := ParseReply([]byte(",nan\r\n"))
	if err != nil || !math.IsNaN(v.Float) {
		t.Fatalf("v=%v err=%v", v.Float, err)
	}
}
