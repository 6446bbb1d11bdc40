package server

import (
	"bytes"
	"fmt"
	"testing"
)

// multiAllocTxns are transactions that allocate nothing per EXEC once
// their keys exist: the queue, the locked view and its shard set are the
// pooled transaction's own, reused.
var multiAllocTxns = []struct {
	name  string
	setup []string
	cmds  [][]string
}{
	{"10 SETs", nil, func() [][]string {
		var cmds [][]string
		for i := 0; i < 10; i++ {
			cmds = append(cmds, []string{"SET", fmt.Sprintf("key:%d", i), "value"})
		}
		return cmds
	}()},
	{"mixed", []string{"SET n 1", "SET s hello"}, [][]string{
		{"INCR", "n"}, {"GET", "s"}, {"MGET", "n", "s", "missing"}, {"EXPIRE", "s", "100"}, {"PING"}}},
	{"every shard", []string{"SET a 1"}, [][]string{{"DBSIZE"}, {"SET", "a", "2"}}},
}

// TestMultiExecDoesNotAllocate runs MULTI, the commands and EXEC through
// execute, one transaction and 16 pipelined, with and without a
// propagation sink.
func TestMultiExecDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops pooled transactions at random")
	}
	for _, tt := range multiAllocTxns {
		for _, depth := range []int{1, 16} {
			for _, prop := range []bool{false, true} {
				s, cl, scratch := newAllocServer(t, tt.setup)
				if prop {
					var sink []byte
					var seq uint64
					s.prop.attach(func(b []byte) uint64 { sink = append(sink[:0], b...); seq++; return seq })
				}
				var in []byte
				for i := 0; i < depth; i++ {
					in = append(in, diffEncode([]string{"MULTI"})...)
					for _, c := range tt.cmds {
						in = append(in, diffEncode(c)...)
					}
					in = append(in, diffEncode([]string{"EXEC"})...)
				}
				out := make([]byte, 0, 16<<10)
				_, got, _ := s.execute(cl, in, out, allocNow, scratch)
				if bytes.Contains(got, []byte("\r\n-")) || got[0] == '-' || bytes.Contains(got, []byte("*-1\r\n")) {
					t.Fatalf("%s: replies %q", tt.name, got)
				}
				a := testing.AllocsPerRun(100, func() { s.execute(cl, in, out[:0], allocNow, scratch) })
				if a != 0 {
					t.Errorf("%s pipeline=%d propagation=%v: %v allocs per execute, want 0", tt.name, depth, prop, a)
				}
			}
		}
	}
}
