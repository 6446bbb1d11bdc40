package server

import "testing"

// The fixed-size bitmap commands on an existing key (and BITFIELD of a
// few operations, parsed into a stack array) run without allocating, through the handler alone and through execute (parser and
// dispatch included), alone and pipelined.
var bitmapZeroAllocCommands = []struct {
	name  string
	setup []string
	cmd   []string
}{
	{"SETBIT/flip", []string{"SETBIT b 1000 1"}, []string{"SETBIT", "b", "7", "1"}},
	{"SETBIT/same", []string{"SETBIT b 1000 1"}, []string{"SETBIT", "b", "1000", "1"}},
	{"GETBIT", []string{"SETBIT b 1000 1"}, []string{"GETBIT", "b", "1000"}},
	{"GETBIT/past-end", []string{"SETBIT b 1000 1"}, []string{"GETBIT", "b", "99999"}},
	{"BITCOUNT", []string{"SETBIT b 1000 1"}, []string{"BITCOUNT", "b"}},
	{"BITCOUNT/range", []string{"SETBIT b 1000 1"}, []string{"BITCOUNT", "b", "3", "-1"}},
	{"BITCOUNT/bit", []string{"SETBIT b 1000 1"}, []string{"BITCOUNT", "b", "5", "1000", "BIT"}},
	{"BITPOS", []string{"SETBIT b 1000 1"}, []string{"BITPOS", "b", "1"}},
	{"BITPOS/range", []string{"SETBIT b 1000 1"}, []string{"BITPOS", "b", "0", "2", "-1", "BYTE"}},
	{"BITPOS/bit", []string{"SETBIT b 1000 1"}, []string{"BITPOS", "b", "1", "9", "1001", "bit"}},
	{"BITFIELD", []string{"SETBIT b 1000 1"}, []string{"BITFIELD", "b", "GET", "u8", "0", "SET", "i16", "#3", "-5", "OVERFLOW", "SAT", "INCRBY", "u4", "100", "3"}},
	{"BITFIELD_RO", []string{"SETBIT b 1000 1"}, []string{"BITFIELD_RO", "b", "GET", "u8", "0", "GET", "i64", "#1"}},
}

func TestBitmapHandlersDoNotAllocate(t *testing.T) {
	for _, tt := range bitmapZeroAllocCommands {
		s, cl, scratch := newAllocServer(t, tt.setup)
		args := make([][]byte, len(tt.cmd))
		for i, a := range tt.cmd {
			args[i] = []byte(a)
		}
		c := &cmdCtx{srv: s, cl: cl, store: s.store, args: args, out: make([]byte, 0, 4096), now: allocNow}
		allocs := testing.AllocsPerRun(200, func() {
			c.out = c.out[:0]
			s.call(c, scratch)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocs per command, want 0", tt.name, allocs)
		}
		if len(c.out) == 0 || c.out[0] != ':' && c.out[0] != '*' {
			t.Errorf("%s: reply %q, want an integer or an array", tt.name, c.out)
		}
	}
}

func TestBitmapCommandsDoNotAllocateThroughExecute(t *testing.T) {
	for _, tt := range bitmapZeroAllocCommands {
		s, cl, scratch := newAllocServer(t, tt.setup)
		for _, depth := range []int{1, 16} {
			var in []byte
			for i := 0; i < depth; i++ {
				in = append(in, diffEncode(tt.cmd)...)
			}
			out := make([]byte, 0, 16<<10)
			s.execute(cl, in, out, allocNow, scratch) // warm up the parser
			allocs := testing.AllocsPerRun(100, func() {
				n, _, _ := s.execute(cl, in, out[:0], allocNow, scratch)
				if n != len(in) {
					t.Fatalf("%s: consumed %d of %d", tt.name, n, len(in))
				}
			})
			if allocs != 0 {
				t.Errorf("%s pipeline=%d: %v allocs per execute, want 0", tt.name, depth, allocs)
			}
		}
	}
}
