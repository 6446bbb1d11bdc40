package benchmarks

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// setCommands are the set commands of issue 12's in-process goals, on warm
// sets of both encodings: SADD of a member already there, SISMEMBER, and
// SPOP. Each op feeds batch commands. A SPOP set holds 2*batch members; its
// batch is followed by one SADD of all of them, which puts back the ones
// popped, so that the set stays warm and never empties (ns/cmd counts the
// SADD as one more command).
var setCommands = []struct {
	name   string
	cmd    string
	refill string // the SPOP set's member prefix: "" for an intset
}{
	{"SaddExisting", "SADD s 7", "-"},
	{"SaddExistingHashtable", "SADD h m7", "-"},
	{"Sismember", "SISMEMBER s 7", "-"},
	{"SismemberHashtable", "SISMEMBER h m7", "-"},
	{"Spop", "SPOP p", ""},
	{"SpopHashtable", "SPOP q", "m"},
}

// setPreload fills s (an intset) and h (a hash table) with 100 members.
var setPreload = []string{"SADD s " + setMembers("", 100), "SADD h " + setMembers("m", 100)}

// setMembers returns n members: prefix0 prefix1 ...
func setMembers(prefix string, n int) string {
	ms := make([]string, n)
	for i := range ms {
		ms[i] = prefix + strconv.Itoa(i)
	}
	return strings.Join(ms, " ")
}

// spopRefill is the SADD that fills the SPOP set of a batch.
func spopRefill(prefix string, batch int) string {
	key := "p"
	if prefix != "" {
		key = "q"
	}
	return "SADD " + key + " " + setMembers(prefix, 2*batch)
}

// BenchmarkNetworkSets is BenchmarkNetwork for the set commands.
func BenchmarkNetworkSets(b *testing.B) {
	for _, sc := range setCommands {
		for _, batch := range []int{1, 100} {
			b.Run(fmt.Sprintf("%s/batch=%d", sc.name, batch), func(b *testing.B) {
				e := newEmbedded(b)
				preload := setPreload
				if sc.refill != "-" {
					preload = append(preload, spopRefill(sc.refill, batch))
				}
				for _, c := range preload {
					if out := e.Feed(encode(c)); bytes.HasPrefix(out, []byte("-")) {
						b.Fatalf("preload %q: %q", c, out)
					}
				}
				in := bytes.Repeat(encode(sc.cmd), batch)
				cmds := batch
				if sc.refill != "-" {
					in = append(in, encode(spopRefill(sc.refill, batch))...)
					cmds++
				}
				if out := e.Feed(in); bytes.HasPrefix(out, []byte("-")) {
					b.Fatalf("%s: %q", sc.cmd, out)
				}
				b.SetBytes(int64(len(in)))
				b.ReportAllocs()
				for b.Loop() {
					e.Feed(in)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*cmds), "ns/cmd")
			})
		}
	}
}
