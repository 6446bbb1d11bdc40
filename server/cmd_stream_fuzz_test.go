package server

import (
	"bytes"
	"strings"
	"testing"

	"github.com/loopkv/loopkv/resp"
)

var streamFuzzNames = []string{"XADD", "XRANGE", "XREVRANGE", "XDEL", "XTRIM", "XSETID", "XREAD", "XINFO", "XLEN"}

// FuzzStreamArgs runs a stream command (its name chosen by the input's
// first byte, its arguments split on spaces) against a stream of one
// node, one of many nodes with deletions, an emptied stream and a string.
// The oracle: no panic, exactly one complete RESP reply in RESP2 and
// RESP3, an error worded as Redis's are (ERR or WRONGTYPE), and every
// stream then still reads back whole, with XLEN equal to what XRANGE
// lists.
func FuzzStreamArgs(f *testing.F) {
	for _, seed := range []string{
		"\x00s 9-9 a b", "\x00s MAXLEN ~ 3 LIMIT 2 * f v", "\x00s MINID = 1-50 NOMKSTREAM 99-* a b", "\x00n 0-0 a b",
		"\x01big (1-3 + COUNT 5", "\x02big + (1-200 COUNT 2", "\x03big 1-7 1-8 9-9", "\x04big MAXLEN 10", "\x04big MINID ~ 1-100",
		"\x05e 10-0 ENTRIESADDED 9 MAXDELETEDID 2-0", "\x06COUNT 2 STREAMS big s 1-290 0", "\x06BLOCK 0 STREAMS e $",
		"\x07STREAM big FULL COUNT 3", "\x07GROUPS big", "\x08str",
	} {
		f.Add([]byte(seed))
	}
	setup := concat([]string{"#config stream-node-max-entries 7"}, streamFill("big", 1, 0, 300),
		[]string{"XADD s 1-1 a 1", "XDEL big 1-5 1-6 1-77", "XADD e 3-3 x y", "XDEL e 3-3", "SET str v"})
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 || len(in) > 512 {
			return
		}
		o := newOurServer()
		for _, line := range setup {
			if strings.HasPrefix(line, "#config") {
				l := o.s.store.Limits()
				l.StreamNodeMaxEntries = 7
				o.s.store.SetLimits(l)
				continue
			}
			o.do(t, diffSplit(t, line))
		}
		args := append([]string{streamFuzzNames[int(in[0])%len(streamFuzzNames)]}, strings.Fields(string(in[1:]))...)
		for _, proto := range []int{2, 3} {
			o.cl.proto = proto
			out := o.do(t, args)
			n, err := resp.ReadReply(out)
			if err != nil || n != len(out) {
				t.Fatalf("%q: reply %q is not one RESP value (n %d, %v)", args, out, n, err)
			}
			if out[0] == '-' && !bytes.HasPrefix(out, []byte("-ERR ")) && !bytes.HasPrefix(out, []byte("-WRONGTYPE ")) {
				t.Fatalf("%q: error %q", args, out)
			}
		}
		o.cl.proto = 2
		for _, key := range []string{"big", "s", "e", "n"} {
			out := o.do(t, []string{"XRANGE", key, "-", "+"})
			if n, err := resp.ReadReply(out); err != nil || n != len(out) || out[0] != '*' {
				t.Fatalf("%q: then XRANGE %s gives %q", args, key, out)
			}
			want := ":" + string(out[1:bytes.IndexByte(out, '\r')]) + "\r\n"
			if got := string(o.do(t, []string{"XLEN", key})); got != want {
				t.Fatalf("%q: then XLEN %s = %q, XRANGE lists %s", args, key, got, want)
			}
		}
	})
}
