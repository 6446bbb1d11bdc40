package loadgen

import (
	"errors"
	"testing"
)

var replyTests = []struct {
	in    string
	isErr bool
}{
	{"+OK\r\n", false},
	{"-ERR unknown command 'FOO'\r\n", true},
	{":42\r\n", false},
	{"$5\r\nhello\r\n", false},
	{"$0\r\n\r\n", false},
	{"$-1\r\n", false},
	{"*-1\r\n", false},
	{"*0\r\n", false},
	{"*3\r\n$1\r\na\r\n$-1\r\n:7\r\n", false},             // MGET with a missing key
	{"*2\r\n*2\r\n+a\r\n+b\r\n*1\r\n$2\r\nxy\r\n", false}, // nested arrays
	{"%1\r\n+k\r\n:1\r\n", false},                         // RESP3 map
	{"~2\r\n+a\r\n+b\r\n", false},                         // RESP3 set
	{"_\r\n", false},
	{",3.14\r\n", false},
	{"#t\r\n", false},
	{"(12345678901234567890\r\n", false},
	{"=15\r\ntxt:Some string\r\n", false},
	{"!21\r\nSYNTAX invalid syntax\r\n", true},
	{"|1\r\n+key-popularity\r\n%1\r\n$1\r\na\r\n,0.1923\r\n+OK\r\n", false}, // attribute, then the value
	{">2\r\n+message\r\n+hi\r\n", false},
}

func TestReadReplyParsesEveryTypeAndNoPrefix(t *testing.T) {
	for i, tt := range replyTests {
		in := []byte(tt.in + "+NEXT\r\n") // a following reply is left alone
		n, isErr, err := readReply(in)
		if err != nil || n != len(tt.in) || isErr != tt.isErr {
			t.Errorf("#%d: readReply(%q) = %d, %v, %v, want %d, %v, nil", i, tt.in, n, isErr, err, len(tt.in), tt.isErr)
		}
		for j := range len(tt.in) {
			if n, _, err := readReply([]byte(tt.in[:j])); n != 0 || err != nil {
				t.Errorf("#%d: prefix %q parsed: %d, %v", i, tt.in[:j], n, err)
			}
		}
	}
}

var badReplyTests = []struct {
	in   string
	want error
}{
	{"?what\r\n", ErrProtocol},
	{"$abc\r\n", ErrProtocol},
	{"$-2\r\n", ErrProtocol},
	{"$3\r\nabcXY", ErrProtocol},
	{"*x\r\n", ErrProtocol},
	{"$99999999999\r\n", ErrProtocol},
	{"$600000000\r\n", ErrReplyTooLarge},
	{"*20000000\r\n", ErrReplyTooLarge},
	{"\r\n", ErrProtocol}, // fuzz crasher testdata/fuzz/FuzzReadReply/empty-type-line
	{"+" + string(make([]byte, maxReplyLine+1)), ErrReplyTooLarge},
}

func TestReadReplyRejectsMalformedReplies(t *testing.T) {
	for i, tt := range badReplyTests {
		if _, _, err := readReply([]byte(tt.in)); !errors.Is(err, tt.want) {
			t.Errorf("#%d: readReply(%.20q) error %v, want %v", i, tt.in, err, tt.want)
		}
	}
}

func FuzzReadReply(f *testing.F) {
	for _, tt := range replyTests {
		f.Add([]byte(tt.in))
	}
	f.Add([]byte("*2\r\n$3\r\nabc")) // an unfinished array
	f.Fuzz(func(t *testing.T, in []byte) {
		n, _, err := readReply(in)
		if n < 0 || n > len(in) || (err != nil && n != 0) {
			t.Fatalf("readReply(%q) = %d, %v", in, n, err)
		}
		if n == 0 {
			return
		}
		// A complete reply parses alone to the same length, and no strict
		// prefix of it is complete.
		if n2, _, err := readReply(in[:n]); n2 != n || err != nil {
			t.Fatalf("reply %q alone = %d, %v, want %d", in[:n], n2, err, n)
		}
		if n2, _, err := readReply(in[:n-1]); n2 != 0 || err != nil {
			t.Fatalf("prefix %q = %d, %v", in[:n-1], n2, err)
		}
	})
}

func TestParseMixRejectsUnknownCommandsAndSizes(t *testing.T) {
	for i, tt := range []struct{ spec, dist, size string }{
		{"get=1,flush=1", "uniform", "8"}, {"get=x", "", "8"}, {"get=0", "", "8"},
		{"get=1", "pareto", "8"}, {"get=1", "", "9-3"}, {"get=1", "", "big"},
	} {
		if _, err := ParseMix(tt.spec, 10, tt.dist, tt.size); !errors.Is(err, ErrBadMix) {
			t.Errorf("#%d: ParseMix(%q, %q, %q) error %v, want ErrBadMix", i, tt.spec, tt.dist, tt.size, err)
		}
	}
	m, err := ParseMix("SET=2, get=8", 10, "zipf", "16-32")
	if err != nil || m.String() != "get=8,set=2" || !m.Zipf || m.ValueMin != 16 || m.ValueMax != 32 {
		t.Errorf("ParseMix = %+v, %v", m, err)
	}
}
