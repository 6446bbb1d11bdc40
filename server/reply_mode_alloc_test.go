package server

import (
	"bytes"
	"strconv"
	"testing"
)

// TestClientReplyOffDoesNotAllocate runs a pipeline of commands with
// replies under CLIENT REPLY OFF and under SKIP through execute: muting
// cuts the output in place, so it allocates nothing per command, and
// nothing of the replies is left.
func TestClientReplyOffDoesNotAllocate(t *testing.T) {
	for _, mode := range []string{"OFF", "SKIP"} {
		s, cl, scratch := newAllocServer(t, []string{"SET k hello", "RPUSH l a b c"})
		var in []byte
		for i := 0; i < 16; i++ {
			if mode == "SKIP" {
				in = append(in, diffEncode([]string{"CLIENT", "REPLY", "SKIP"})...)
			}
			in = append(in, diffEncode([]string{"GET", "k"})...)
			in = append(in, diffEncode([]string{"INCR", "n"})...)
			if mode == "SKIP" {
				in = append(in, diffEncode([]string{"CLIENT", "REPLY", "SKIP"})...)
			}
			in = append(in, diffEncode([]string{"LRANGE", "l", "0", "-1"})...)
			in = append(in, diffEncode([]string{"LPUSH", "k", "x"})...)
		}
		if mode == "OFF" {
			s.execute(cl, diffEncode([]string{"CLIENT", "REPLY", "OFF"}), nil, allocNow, scratch)
		}
		out := make([]byte, 0, 16<<10)
		_, got, _ := s.execute(cl, in, out, allocNow, scratch)
		want := ""
		if mode == "SKIP" { // the INCRs and the WRONGTYPE errors are answered
			for i := 0; i < 16; i++ {
				want += ":" + strconv.Itoa(i+1) + "\r\n-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
			}
		}
		if !bytes.Equal(got, []byte(want)) {
			t.Fatalf("%s: replies %q, want %q", mode, got, want)
		}
		a := testing.AllocsPerRun(100, func() { s.execute(cl, in, out[:0], allocNow, scratch) })
		if a != 0 {
			t.Errorf("CLIENT REPLY %s: %v allocs per execute of 16x4 commands, want 0", mode, a)
		}
	}
}
