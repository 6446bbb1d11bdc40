package server

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/loopkv/loopkv/store"
)

// prefetchKeys finds the spec's first key of each command of a batch,
// subcommands included, skipping commands without one, and nothing for a
// batch of one command.
func TestPrefetchKeys(t *testing.T) {
	var in []byte
	for _, line := range []string{
		"SET a 1", "get b", "PING", "OBJECT ENCODING c", "MSET d 1 e 2", "CONFIG GET maxmemory",
		"NOSUCH x", "HSET h f v", "OBJECT", "ZUNIONSTORE dst 2 z1 z2",
	} {
		in = append(in, diffEncode(diffSplit(t, line))...)
	}
	var keys [store.PrefetchMax][]byte
	cmds, nk, _ := prefetchKeys(append(in, "PING\r\n"...), &keys) // the inline PING ends the scan
	if got := fmt.Sprintf("%d %q", cmds, keys[:nk]); got != `10 ["a" "b" "c" "d" "h" "dst"]` {
		t.Errorf("prefetchKeys = %s", got)
	}
	one := diffEncode([]string{"GET", "a"})
	if cmds, nk, _ := prefetchKeys(one, &keys); cmds != 0 || nk != 0 {
		t.Errorf("one command: prefetchKeys = %d, %d; want 0, 0", cmds, nk)
	}
	if cmds, nk, _ := prefetchKeys(append(one, one[:5]...), &keys); cmds != 1 || nk != 1 {
		t.Errorf("one command and a partial one: prefetchKeys = %d, %d; want 1, 1", cmds, nk)
	}
	many := bytes.Repeat(one, 40)
	if cmds, nk, _ := prefetchKeys(many, &keys); cmds != store.PrefetchMax || nk != store.PrefetchMax {
		t.Errorf("40 commands: prefetchKeys = %d, %d; want a window of %d", cmds, nk, store.PrefetchMax)
	}
	// a command of more than prefetchLongArgs arguments ends the look-ahead
	mset := diffEncode(diffSplit(t, "MSET k1 v k2 v k3 v k4 v k5 v"))
	if cmds, nk, long := prefetchKeys(bytes.Repeat(mset, 16), &keys); cmds != 0 || nk != 0 || !long {
		t.Errorf("16 MSETs: prefetchKeys = %d, %d, %v; want 0, 0, true", cmds, nk, long)
	}
	if cmds, nk, long := prefetchKeys(append(bytes.Repeat(one, 3), mset...), &keys); cmds != 3 || nk != 3 || !long {
		t.Errorf("3 GETs then an MSET: prefetchKeys = %d, %d, %v; want 3, 3, true", cmds, nk, long)
	}
}

// A pipelined batch, prefetched, answers exactly what its commands answer
// sent one at a time: keys created, retyped and deleted within the batch,
// wrong types, SELECT, MULTI/EXEC, FLUSHDB, over tables big enough to be
// mid-rehash.
func TestPrefetchedBatchAnswersAsOneByOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 34))
	key := func() string { return fmt.Sprintf("pk:%d", rng.IntN(40)) }
	var script []string
	for range 3000 {
		k := key()
		var line string
		switch rng.IntN(20) {
		case 0, 1, 2:
			line = "SET " + k + " v" + k
		case 3, 4, 5:
			line = "GET " + k
		case 6:
			line = "DEL " + k
		case 7:
			line = "HSET " + k + " f " + k
		case 8:
			line = "HGET " + k + " f"
		case 9:
			line = "SADD " + k + " m1 m2"
		case 10:
			line = "TYPE " + k
		case 11:
			line = "INCR " + k
		case 12:
			line = "LPUSH " + k + " x"
		case 13:
			line = "GETDEL " + k
		case 14:
			line = "RENAME " + k + " " + key()
		case 15:
			line = "EXPIRE " + k + " 100"
		case 16:
			line = []string{"SELECT 1", "SELECT 0", "DBSIZE"}[rng.IntN(3)]
		case 17:
			line = []string{"MULTI", "EXEC", "PING"}[rng.IntN(3)]
		case 18:
			line = "MGET " + k + " " + key()
		case 19:
			if rng.IntN(50) == 0 {
				line = "FLUSHDB"
			} else {
				line = "EXISTS " + k
			}
		}
		script = append(script, line)
	}
	var batch []byte
	cmds := make([][]byte, len(script))
	for i, line := range script {
		cmds[i] = diffEncode(diffSplit(t, line))
		batch = append(batch, cmds[i]...)
	}
	newServer := func() (*Server, *client, []byte) {
		s, cl, scratch := newAllocServer(t, nil)
		for i := range 50_000 { // tables of thousands of buckets, growing
			s.store.Set(0, fmt.Appendf(nil, "fill:%d", i), []byte("x"), allocNow, store.SetOptions{})
		}
		return s, cl, scratch
	}
	if _, nk, _ := prefetchKeys(batch, new([store.PrefetchMax][]byte)); nk < 2 {
		t.Fatal("the batch prefetches nothing: the test would not cover it")
	}
	defer func(n int64) { prefetchMinUsed = n }(prefetchMinUsed)
	prefetchMinUsed = 0 // the 50,000 keys are under the threshold

	s1, cl1, scratch1 := newServer()
	var piped []byte
	for in := batch; len(in) > 0; {
		n, out, _ := s1.execute(cl1, in, piped, allocNow, scratch1)
		piped, in = out, in[n:]
	}
	s2, cl2, scratch2 := newServer()
	var single []byte
	for _, c := range cmds {
		_, single, _ = s2.execute(cl2, c, single, allocNow, scratch2)
	}
	if !bytes.Equal(piped, single) {
		a, b := strings.Split(string(piped), "\r\n"), strings.Split(string(single), "\r\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("replies differ at line %d: pipelined %q, one by one %q", i, a[i], b[i])
			}
		}
		t.Fatalf("replies differ: %d lines pipelined, %d one by one", len(a), len(b))
	}
	if got := s1.store.DBSize(0); got != s2.store.DBSize(0) {
		t.Fatalf("DBSize %d pipelined, %d one by one", got, s2.store.DBSize(0))
	}
}

// BenchmarkExecutePipelined runs the hot commands 16 to a batch through
// execute over a store of one key, with and without the prefetch pass: its
// cost where it cannot pay, every line already in the cache.
func BenchmarkExecutePipelined(b *testing.B) {
	for _, tt := range zeroAllocCommands {
		for _, off := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/prefetch=%v", tt.name, !off), func(b *testing.B) {
				prefetchOff = off
				defer func(n int64) { prefetchOff, prefetchMinUsed = false, n }(prefetchMinUsed)
				prefetchMinUsed = 0 // the pass's cost: prefetch the one-key store anyway
				s, cl, scratch := newAllocServer(b, tt.setup)
				out := make([]byte, 0, 16<<10)
				in := bytes.Repeat(diffEncode(tt.cmd), 16)
				b.SetBytes(int64(len(in)))
				b.ReportAllocs()
				for b.Loop() {
					s.execute(cl, in, out[:0], allocNow, scratch)
				}
			})
		}
	}
}

// BenchmarkPrefetchAhead is the prefetch pass alone over a batch of 16 GETs
// of one key, every line in the cache: its overhead per batch.
func BenchmarkPrefetchAhead(b *testing.B) {
	s, cl, _ := newAllocServer(b, []string{"SET k value"})
	c := &cmdCtx{srv: s, cl: cl, store: s.store}
	in := bytes.Repeat(diffEncode([]string{"GET", "k"}), 16)
	defer func(n int64) { prefetchMinUsed = n }(prefetchMinUsed)
	prefetchMinUsed = 0
	b.ReportAllocs()
	for b.Loop() {
		c.prefetchAhead(in)
	}
}

// TestPrefetchSkipsAKeyspaceThatFitsTheCaches: under prefetchMinUsed of
// used memory the pass looks at nothing; at or above it, a batch of 16 is
// looked at whole.
func TestPrefetchSkipsAKeyspaceThatFitsTheCaches(t *testing.T) {
	s, cl, _ := newAllocServer(t, []string{"SET k value"})
	c := &cmdCtx{srv: s, cl: cl, store: s.store}
	in := bytes.Repeat(diffEncode([]string{"GET", "k"}), 16)
	if n := c.prefetchAhead(in); n != math.MaxInt {
		t.Errorf("one key: prefetchAhead = %d, want math.MaxInt (nothing to look at in the batch)", n)
	}
	defer func(n int64) { prefetchMinUsed = n }(prefetchMinUsed)
	prefetchMinUsed = s.store.UsedMemory()
	var many []byte
	for i := range 16 {
		many = append(many, diffEncode([]string{"GET", fmt.Sprint("k", i)})...)
	}
	if n := c.prefetchAhead(many); n != 16 || cl.prefetchSkip != 0 {
		t.Errorf("at the threshold: prefetchAhead looked at %d commands, skip %d; want 16, 0", n, cl.prefetchSkip)
	}
	// a batch that goes on with long commands is looked at no further
	mset := bytes.Repeat(diffEncode(diffSplit(t, "MSET k1 v k2 v k3 v k4 v k5 v")), 16)
	if n := c.prefetchAhead(mset); n != math.MaxInt || cl.prefetchSkip != 0 {
		t.Errorf("16 MSETs: prefetchAhead = %d, skip %d; want math.MaxInt (the rest of the batch), 0", n, cl.prefetchSkip)
	}
}

// TestPrefetchLeavesOneKeyBatchesAlone: a batch whose commands all name
// one key is looked at, not prefetched, and the client's next
// prefetchSkipBatches batches are not looked at; then the pass resumes.
func TestPrefetchLeavesOneKeyBatchesAlone(t *testing.T) {
	s, cl, _ := newAllocServer(t, []string{"SET k value"})
	c := &cmdCtx{srv: s, cl: cl, store: s.store}
	defer func(n int64) { prefetchMinUsed = n }(prefetchMinUsed)
	prefetchMinUsed = 0
	in := bytes.Repeat(diffEncode([]string{"LPUSH", "k", "x"}), 16)
	if n := c.prefetchAhead(in); n != 16 || cl.prefetchSkip != prefetchSkipBatches {
		t.Fatalf("one key: prefetchAhead = %d, skip %d; want 16, %d", n, cl.prefetchSkip, prefetchSkipBatches)
	}
	for i := range prefetchSkipBatches {
		if n := c.prefetchAhead(in); n != math.MaxInt {
			t.Fatalf("batch %d after: prefetchAhead = %d, want math.MaxInt", i, n)
		}
	}
	in = append(diffEncode([]string{"GET", "other"}), in...)
	if n, want := c.prefetchAhead(in), min(17, store.PrefetchMax); n != want || cl.prefetchSkip != 0 {
		t.Fatalf("two keys, after the skipped batches: prefetchAhead = %d, skip %d; want %d, 0", n, cl.prefetchSkip, want)
	}
}
