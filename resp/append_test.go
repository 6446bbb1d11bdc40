package resp

import (
	"math"
	"strings"
	"testing"
)

var appendTests = []struct {
	name string
	fn   func([]byte) []byte
	want string
}{
	{"simple", func(d []byte) []byte { return AppendSimple(d, "PONG") }, "+PONG\r\n"},
	{"ok", AppendOK, "+OK\r\n"},
	{"error", func(d []byte) []byte { return AppendError(d, "ERR bad") }, "-ERR bad\r\n"},
	{"error with CR LF", func(d []byte) []byte { return AppendError(d, "ERR a\r\nb") }, "-ERR a  b\r\n"},
	{"int", func(d []byte) []byte { return AppendInt(d, -42) }, ":-42\r\n"},
	{"int min", func(d []byte) []byte { return AppendInt(d, math.MinInt64) }, ":-9223372036854775808\r\n"},
	{"bulk", func(d []byte) []byte { return AppendBulk(d, []byte("a\r\nb")) }, "$4\r\na\r\nb\r\n"},
	{"bulk empty", func(d []byte) []byte { return AppendBulk(d, nil) }, "$0\r\n\r\n"},
	{"bulk string", func(d []byte) []byte { return AppendBulkString(d, "hello") }, "$5\r\nhello\r\n"},
	{"bulk int", func(d []byte) []byte { return AppendBulkInt(d, -123) }, "$4\r\n-123\r\n"},
	{"null/RESP2", func(d []byte) []byte { return AppendNull(d, 2) }, "$-1\r\n"},
	{"null/RESP3", func(d []byte) []byte { return AppendNull(d, 3) }, "_\r\n"},
	{"null array/RESP2", func(d []byte) []byte { return AppendNullArray(d, 2) }, "*-1\r\n"},
	{"null array/RESP3", func(d []byte) []byte { return AppendNullArray(d, 3) }, "_\r\n"},
	{"array", func(d []byte) []byte { return AppendArrayLen(d, 3) }, "*3\r\n"},
	{"map/RESP2", func(d []byte) []byte { return AppendMapLen(d, 2, 2) }, "*4\r\n"},
	{"map/RESP3", func(d []byte) []byte { return AppendMapLen(d, 2, 3) }, "%2\r\n"},
	{"set/RESP2", func(d []byte) []byte { return AppendSetLen(d, 5, 2) }, "*5\r\n"},
	{"set/RESP3", func(d []byte) []byte { return AppendSetLen(d, 5, 3) }, "~5\r\n"},
	{"push/RESP2", func(d []byte) []byte { return AppendPushLen(d, 3, 2) }, "*3\r\n"},
	{"push/RESP3", func(d []byte) []byte { return AppendPushLen(d, 3, 3) }, ">3\r\n"},
	{"double/RESP3", func(d []byte) []byte { return AppendDouble(d, 1.5, 3) }, ",1.5\r\n"},
	{"double/RESP2", func(d []byte) []byte { return AppendDouble(d, 1.5, 2) }, "$3\r\n1.5\r\n"},
	{"double shortest", func(d []byte) []byte { return AppendDouble(d, 1.1, 3) }, ",1.1\r\n"},
	{"double integral", func(d []byte) []byte { return AppendDouble(d, 1234567, 3) }, ",1234567\r\n"},
	{"double 1e16", func(d []byte) []byte { return AppendDouble(d, 1e16, 3) }, ",10000000000000000\r\n"},
	{"double 1e17", func(d []byte) []byte { return AppendDouble(d, 1e17, 3) }, ",1e+17\r\n"},
	{"double 1e-4", func(d []byte) []byte { return AppendDouble(d, 0.0001, 3) }, ",0.0001\r\n"},
	{"double 1e-5", func(d []byte) []byte { return AppendDouble(d, 1e-5, 3) }, ",1e-05\r\n"},
	{"double zero", func(d []byte) []byte { return AppendDouble(d, 0, 3) }, ",0\r\n"},
	{"double inf/RESP3", func(d []byte) []byte { return AppendDouble(d, math.Inf(1), 3) }, ",inf\r\n"},
	{"double -inf/RESP2", func(d []byte) []byte { return AppendDouble(d, math.Inf(-1), 2) }, "$4\r\n-inf\r\n"},
	{"double nan", func(d []byte) []byte { return AppendDouble(d, math.NaN(), 3) }, ",nan\r\n"},
	{"bool/RESP3", func(d []byte) []byte { return AppendBool(d, true, 3) }, "#t\r\n"},
	{"bool false/RESP3", func(d []byte) []byte { return AppendBool(d, false, 3) }, "#f\r\n"},
	{"bool/RESP2", func(d []byte) []byte { return AppendBool(d, true, 2) }, ":1\r\n"},
	{"bool false/RESP2", func(d []byte) []byte { return AppendBool(d, false, 2) }, ":0\r\n"},
	{"big number/RESP3", func(d []byte) []byte { return AppendBigNumber(d, []byte("-12345678901234567890"), 3) }, "(-12345678901234567890\r\n"},
	{"big number/RESP2", func(d []byte) []byte { return AppendBigNumber(d, []byte("12"), 2) }, "$2\r\n12\r\n"},
	{"verbatim/RESP3", func(d []byte) []byte { return AppendVerbatim(d, "txt", []byte("hi"), 3) }, "=6\r\ntxt:hi\r\n"},
	{"verbatim/RESP2", func(d []byte) []byte { return AppendVerbatim(d, "txt", []byte("hi"), 2) }, "$2\r\nhi\r\n"},
	{"deferred array", func(d []byte) []byte {
		d, mark := BeginArray(d)
		d = AppendInt(d, 1)
		d = AppendBulkString(d, "x")
		return EndArray(d, mark, 2)
	}, "*2\r\n:1\r\n$1\r\nx\r\n"},
	{"deferred array empty", func(d []byte) []byte {
		d, mark := BeginArray(d)
		return EndArray(d, mark, 0)
	}, "*0\r\n"},
	{"deferred arrays nested", func(d []byte) []byte {
		d, outer := BeginArray(d)
		d, inner := BeginArray(d)
		d = AppendOK(d)
		d = EndArray(d, inner, 1)
		d = AppendInt(d, 7)
		return EndArray(d, outer, 2)
	}, "*2\r\n*1\r\n+OK\r\n:7\r\n"},
}

func TestAppendWritesRESP(t *testing.T) {
	for i, tt := range appendTests {
		for _, prefix := range []string{"", "+prior\r\n"} {
			got := string(tt.fn([]byte(prefix)))
			if got != prefix+tt.want {
				t.Errorf("#%d %s: %q, want %q", i, tt.name, got, prefix+tt.want)
			}
		}
	}
}

func TestAppendOutputParsesAsOneReply(t *testing.T) {
	for i, tt := range appendTests {
		enc := tt.fn(nil)
		want := len(enc)
		if strings.Count(tt.want, "\r\n") == 1 && strings.Contains("*%~>", tt.want[:1]) && tt.want[1] != '-' && tt.want[1] != '0' {
			want = 0 // a bare aggregate header is an incomplete reply
		}
		if n, err := ReadReply(enc); n != want || err != nil {
			t.Errorf("#%d %s: ReadReply(%q) = %d, %v, want %d", i, tt.name, enc, n, err, want)
		}
	}
}

func TestAppendDoubleRoundTrips(t *testing.T) {
	for i, f := range []float64{0.1, 1.0 / 3, -2.5e-300, 1.7976931348623157e308, 5e-324, 123456789012345678, 9.999999999999999e16} {
		v, _, err := ParseReply(AppendDouble(nil, f, 3))
		if err != nil || v.Float != f {
			t.Errorf("#%d %v: parsed %v, %v", i, f, v.Float, err)
		}
	}
}

func TestEndArrayWritesLongCounts(t *testing.T) {
	d, mark := BeginArray([]byte("x"))
	for range 12345 {
		d = AppendNull(d, 3)
	}
	d = EndArray(d, mark, 12345)
	want := "x*12345\r\n" + strings.Repeat("_\r\n", 12345)
	if string(d) != want {
		t.Fatalf("got %d bytes starting %.20q, want %d bytes", len(d), d, len(want))
	}
}

func TestAppendDoesNotAllocate(t *testing.T) {
	out := make([]byte, 0, 1024)
	for i, tt := range appendTests {
		if allocs := testing.AllocsPerRun(50, func() { out = tt.fn(out[:0]) }); allocs != 0 {
			t.Errorf("#%d %s: %v allocs, want 0", i, tt.name, allocs)
		}
	}
}
