package server

import (
	"bytes"
	"testing"
)

// notifyAllocCases are commands whose events are published to the client
// itself (a RESP3 subscriber): building the channel names, matching the
// pattern and encoding the messages reuse buffers, so a command with events
// allocates nothing.
var notifyAllocCases = []struct {
	name, flags string
	cmd         string
}{
	{"off", "", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"},
	{"SET", "KEA", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"},
	{"SET+new", "KEA", "*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"},
	{"HSET+HDEL", "KEA", "*4\r\n$4\r\nHSET\r\n$1\r\nh\r\n$1\r\nf\r\n$1\r\nv\r\n*3\r\n$4\r\nHDEL\r\n$1\r\nh\r\n$1\r\nf\r\n"},
	{"RPUSH+LPOP", "KEA", "*3\r\n$5\r\nRPUSH\r\n$1\r\nl\r\n$1\r\nx\r\n*2\r\n$4\r\nLPOP\r\n$1\r\nl\r\n"},
}

func newNotifyEmbedded(tb testing.TB, flags string) *Embedded {
	e := NewEmbedded(Options{NotifyKeyspaceEvents: flags})
	e.Feed([]byte("*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n"))
	if out := e.Feed([]byte("*2\r\n$10\r\nPSUBSCRIBE\r\n$12\r\n__key*@*__:*\r\n")); !bytes.Contains(out, []byte("psubscribe")) {
		tb.Fatalf("PSUBSCRIBE: %q", out)
	}
	return e
}

// TestNotifyDoesNotAllocate: with events on, each case allocates no more
// than with them off (what the store allocates to create and drop a value
// is the same either way), and a plain SET allocates nothing.
func TestNotifyDoesNotAllocate(t *testing.T) {
	allocs := func(flags, cmd string) float64 {
		e := newNotifyEmbedded(t, flags)
		in := []byte(cmd)
		out := e.Feed(in)
		if flags != "" && !bytes.Contains(out, []byte("__keyevent@0__:")) {
			t.Fatalf("%s: no event in %q", cmd, out)
		}
		return testing.AllocsPerRun(200, func() { e.Feed(in) })
	}
	for _, tc := range notifyAllocCases {
		on, off := allocs(tc.flags, tc.cmd), allocs("", tc.cmd)
		if on > off || (tc.name == "SET" && on != 0) {
			t.Errorf("%s: %v allocations per command with events, %v without", tc.name, on, off)
		}
	}
}

func BenchmarkNotify(b *testing.B) {
	for _, tc := range notifyAllocCases {
		b.Run(tc.name, func(b *testing.B) {
			e := newNotifyEmbedded(b, tc.flags)
			in := []byte(tc.cmd)
			e.Feed(in)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				e.Feed(in)
			}
		})
	}
}
