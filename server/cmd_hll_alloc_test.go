package server

import (
	"bytes"
	"testing"
)

// The hot HyperLogLog commands join the zero-allocation tables of
// cmd_string_alloc_test.go: PFADD of elements already counted, on a sparse
// and a dense value, and PFCOUNT of one key whose cardinality is cached
// (after the first run) or of a missing key.
func init() {
	dense := hllAdd("d", "e", 0, 3000) // past hll-sparse-max-bytes: dense
	zeroAllocCommands = append(zeroAllocCommands, []struct {
		name  string
		setup []string
		cmd   []string
	}{
		{"PFADD/sparse/existing", []string{"PFADD h a b c"}, []string{"PFADD", "h", "a", "b"}},
		{"PFADD/dense/existing", []string{dense}, []string{"PFADD", "d", "e1", "e2999"}},
		{"PFCOUNT/sparse/cached", []string{"PFADD h a b c", "PFCOUNT h"}, []string{"PFCOUNT", "h"}},
		{"PFCOUNT/dense/cached", []string{dense, "PFCOUNT d"}, []string{"PFCOUNT", "d"}},
		{"PFCOUNT/missing", nil, []string{"PFCOUNT", "nokey"}},
	}...)
}

// TestPFDebugGetRegDoesNotAllocate: PFDEBUG GETREG's 16 KiB of registers
// stay on the handler's stack (they do not escape through HLLDebug), so
// the command allocates nothing once its reply (16384 integers) has grown
// the output.
func TestPFDebugGetRegDoesNotAllocate(t *testing.T) {
	s, cl, scratch := newAllocServer(t, []string{"PFADD h a b c"})
	c := &cmdCtx{srv: s, cl: cl, store: s.store, args: [][]byte{[]byte("PFDEBUG"), []byte("GETREG"), []byte("h")},
		now: allocNow}
	allocs := testing.AllocsPerRun(50, func() {
		c.out = c.out[:0]
		s.call(c, scratch)
	})
	if allocs != 0 {
		t.Errorf("PFDEBUG GETREG: %v allocs per command, want 0", allocs)
	}
	if !bytes.HasPrefix(c.out, []byte("*16384\r\n")) || bytes.Count(c.out, []byte(":0\r\n")) != 16384-3 { // a, b, c
		t.Errorf("PFDEBUG GETREG: reply %q...", c.out[:min(len(c.out), 64)])
	}
}
