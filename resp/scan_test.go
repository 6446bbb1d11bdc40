package resp

import (
	"fmt"
	"testing"
)

func TestScanCommand(t *testing.T) {
	set := "*3\r\n$3\r\nSET\r\n$14\r\nlkb:0000000042\r\n$16\r\n0123456789abcdef\r\n"
	mset := "*6\r\n$4\r\nMSET\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$0\r\n\r\n$1\r\ne\r\n"
	for _, tt := range []struct {
		in   string
		n    int
		args string // the first ScanArgs arguments
	}{
		{set + "*1\r\n", len(set), `["SET" "lkb:0000000042" "0123456789abcdef"]`},
		{mset, len(mset), `["MSET" "a" "b" "c"]`},
		{"*0\r\nPING\r\n", 4, `[]`},
		{set[:len(set)-1], 0, ""},          // partial: the last LF is missing
		{"PING\r\n", 0, ""},                // inline
		{"*1\r\n$04\r\nPING\r\n", 0, ""},   // a leading zero: the Parser's slow path
		{"*-1\r\n", 0, ""},                 // a null array
		{"*1\r\n+PING\r\n", 0, ""},         // not a bulk string
		{"*1\r\n$99999999999\r\nx", 0, ""}, // longer than the buffer
	} {
		var first [ScanArgs][]byte
		n, argc := ScanCommand([]byte(tt.in), &first)
		got := ""
		if n > 0 {
			got = fmt.Sprintf("%q", first[:min(argc, ScanArgs)])
		}
		if n != tt.n || got != tt.args {
			t.Errorf("ScanCommand(%q) = %d, %s; want %d, %s", tt.in, n, got, tt.n, tt.args)
		}
	}
}
