package resp

import (
	"bytes"
	"testing"
)

var reprTests = []struct{ in, want string }{
	{"", `""`},
	{"plain", `"plain"`},
	{"a b", `"a b"`},
	{"q\"\\", `"q\"\\"`},
	{"\n\r\t\a\b", `"\n\r\t\a\b"`},
	{"\x00\x7f\xff'", `"\x00\x7f\xff'"`},
}

func TestAppendReprMatchesSdscatrepr(t *testing.T) {
	for i, tt := range reprTests {
		if got := string(AppendRepr(nil, tt.in)); got != tt.want {
			t.Errorf("#%d: AppendRepr(%q) = %s, want %s", i, tt.in, got, tt.want)
		}
	}
}

// FuzzAppendRepr checks that the inline parser reads back what AppendRepr
// wrote, as sdssplitargs reads sdscatrepr's output.
func FuzzAppendRepr(f *testing.F) {
	for _, tt := range reprTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		line := append(AppendRepr([]byte("x "), s), '\n')
		var p Parser
		args, n, err := p.Next(line)
		if err != nil || n != len(line) || len(args) != 2 || !bytes.Equal(args[1], []byte(s)) {
			t.Fatalf("%q: args %q, n %d, err %v", line, args, n, err)
		}
	})
}
