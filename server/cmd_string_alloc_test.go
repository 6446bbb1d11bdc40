package server

import (
	"testing"

	"github.com/loopkv/loopkv/store"
)

// Hot commands run through execute without allocating once their keys
// exist: the parser reuses its argument slice, the store updates values in
// place, and replies are appended into a buffer with room.
var zeroAllocCommands = []struct {
	name  string
	setup []string
	cmd   []string
}{
	{"GET/hit", []string{"SET k value"}, []string{"GET", "k"}},
	{"GET/miss", nil, []string{"GET", "missing"}},
	{"SET/plain", []string{"SET k value"}, []string{"SET", "k", "other"}},
	{"SET/lowercase", []string{"SET k value"}, []string{"set", "k", "other"}},
	{"SET/NX", []string{"SET k value"}, []string{"SET", "k", "other", "NX"}},
	{"SET/XX", []string{"SET k value"}, []string{"SET", "k", "other", "xx"}},
	{"SET/EX", []string{"SET k value"}, []string{"SET", "k", "other", "EX", "100"}},
	{"SET/GET", []string{"SET k value"}, []string{"SET", "k", "value", "GET"}},
	{"SETEX", []string{"SET k value"}, []string{"SETEX", "k", "100", "value"}},
	{"INCR", []string{"SET n 1"}, []string{"INCR", "n"}},
	{"DECR", []string{"SET n 1"}, []string{"DECR", "n"}},
	{"INCRBY", []string{"SET n 1"}, []string{"INCRBY", "n", "12345"}},
	{"DECRBY", []string{"SET n 1"}, []string{"DECRBY", "n", "-7"}},
	{"MGET", []string{"SET a 1", "SET b 2"}, []string{"MGET", "a", "b", "c"}},
	{"MSET", []string{"SET a 1"}, []string{"MSET", "a", "1", "b", "2", "c", "3", "d", "4", "e", "5", "f", "6", "g", "7", "h", "8", "i", "9", "j", "10"}},
	{"EXISTS", []string{"SET a 1"}, []string{"EXISTS", "a", "b"}},
	{"TTL", []string{"SET a 1 EX 100"}, []string{"TTL", "a"}},
	{"EXPIRE", []string{"SET a 1"}, []string{"EXPIRE", "a", "100"}},
	{"STRLEN", []string{"SET a 1"}, []string{"STRLEN", "a"}},
	{"GETRANGE", []string{"SET a hello"}, []string{"GETRANGE", "a", "1", "3"}},
}

const allocNow = 1_700_000_000_000

// newAllocServer returns a server whose store holds setup's keys.
func newAllocServer(t testing.TB, setup []string) (*Server, *client, []byte) {
	calibrated(t) // the command clock as a running server has it (clock.go)
	s := &Server{store: store.New(store.Options{})}
	s.lazy() // handlers below may run through call without execute
	cl := &client{proto: 2}
	scratch := make([]byte, 64)
	for _, line := range setup {
		s.execute(cl, diffEncode(diffSplit(t, line)), nil, allocNow, scratch)
	}
	return s, cl, scratch
}

// TestHotCommandHandlersDoNotAllocate runs each handler directly, so that
// it measures the command alone: lookup, arguments, store and reply.
func TestHotCommandHandlersDoNotAllocate(t *testing.T) {
	for _, tt := range zeroAllocCommands {
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
		if len(c.out) == 0 || c.out[0] == '-' {
			t.Errorf("%s: reply %q", tt.name, c.out)
		}
	}
}

// TestHotCommandsDoNotAllocateThroughExecute runs each command alone and
// pipelined 16 deep through execute, parser and dispatch included.
func TestHotCommandsDoNotAllocateThroughExecute(t *testing.T) {
	for _, tt := range zeroAllocCommands {
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

func BenchmarkExecute(b *testing.B) {
	for _, tt := range zeroAllocCommands {
		b.Run(tt.name, func(b *testing.B) {
			s, cl, scratch := newAllocServer(b, tt.setup)
			out := make([]byte, 0, 4096)
			in := diffEncode(tt.cmd)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				s.execute(cl, in, out[:0], allocNow, scratch)
			}
		})
	}
}
