package server

import (
	"testing"

	"github.com/loopkv/loopkv/aof"
)

// propAllocCommands are the rewritten writes, beside zeroAllocCommands
// (INCRBYFLOAT is not here: its float arithmetic allocates, sink or not).
var propAllocCommands = []struct {
	name  string
	setup []string
	cmd   []string
}{
	{"SET/EX", nil, []string{"SET", "k", "v", "EX", "100"}},
	{"SETEX", nil, []string{"SETEX", "k", "100", "v"}},
	{"EXPIRE", []string{"SET k v"}, []string{"EXPIRE", "k", "100"}},
	{"GETEX/PX", []string{"SET k v"}, []string{"GETEX", "k", "PX", "100000"}},
	{"SELECT+SET", nil, []string{"SELECT", "3"}},
}

// TestPropagationDoesNotAllocate: with a sink attached, every hot command,
// and the rewritten ones, allocates nothing per execute.
func TestPropagationDoesNotAllocate(t *testing.T) {
	cases := append([]struct {
		name  string
		setup []string
		cmd   []string
	}{}, zeroAllocCommands...)
	cases = append(cases, propAllocCommands...)
	for _, tt := range cases {
		s, cl, scratch := newAllocServer(t, tt.setup)
		var sink []byte
		var seq uint64
		s.prop.attach(func(b []byte) uint64 { sink = append(sink[:0], b...); seq++; return seq })
		in := diffEncode(tt.cmd)
		out := make([]byte, 0, 4096)
		s.execute(cl, in, out, allocNow, scratch)
		if a := testing.AllocsPerRun(100, func() { s.execute(cl, in, out[:0], allocNow, scratch) }); a != 0 {
			t.Errorf("%s: %v allocs per execute with propagation, want 0", tt.name, a)
		}
	}
}

// BenchmarkPropagateSet is SET with a sink attached: the order lock, the
// rewrite and the sink's copy.
func BenchmarkPropagateSet(b *testing.B) {
	s, cl, scratch := newAllocServer(b, nil)
	var sink []byte
	s.prop.attach(func(p []byte) uint64 { sink = append(sink[:0], p...); return 1 })
	in := diffEncode([]string{"SET", "key:000001", "value-value-value", "EX", "100"})
	out := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		s.execute(cl, in, out[:0], allocNow, scratch)
	}
}

// BenchmarkAOFSet is SET EX through the whole AOF path of a loop's batch:
// the order lock, the rewrite, aof.Log.Append (appendfsync everysec, the
// writer goroutine writing meanwhile) and the batch's hold check.
func BenchmarkAOFSet(b *testing.B) {
	s, cl, scratch := newAllocServer(b, nil)
	l, err := aof.Open(aof.Options{Dir: b.TempDir(), Fsync: aof.EverySec})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	s.useLog(l, aof.EverySec)
	in := diffEncode([]string{"SET", "key:000001", "value-value-value", "EX", "100"})
	out := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		s.execute(cl, in, out[:0], allocNow, scratch)
		cl.ctx.propSeq = 0
	}
}
