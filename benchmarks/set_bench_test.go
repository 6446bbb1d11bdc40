package benchmarks

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// setCommands are the hot set commands on warm sets of both encodings: an
// intset s and a hash table h of 100 members each.
var setCommands = []netCmd{
	{"SAdd/existing/intset", "SADD s 7"},
	{"SAdd/existing/hashtable", "SADD h m7"},
	{"SIsMember/intset", "SISMEMBER s 7"},
	{"SIsMember/hashtable", "SISMEMBER h m7"},
}

// setPreload builds s and h.
var setPreload = []string{"SADD s " + setMembers("", 100), "SADD h " + setMembers("m", 100)}

// setMembers returns n members: prefix0 prefix1 ...
func setMembers(prefix string, n int) string {
	ms := make([]string, n)
	for i := range ms {
		ms[i] = prefix + strconv.Itoa(i)
	}
	return strings.Join(ms, " ")
}

// BenchmarkNetworkSets is BenchmarkNetwork for the set commands.
func BenchmarkNetworkSets(b *testing.B) { benchNetwork(b, setCommands, setPreload) }

// BenchmarkNetworkSPop times SPOP on a warm set: the set holds 2*batch
// members, and each op's batch of SPOPs is followed by one SADD of all of
// them, which puts back the ones popped, so the set never empties (ns/cmd
// counts the SADD as one more command).
func BenchmarkNetworkSPop(b *testing.B) {
	for _, enc := range []struct{ name, prefix string }{{"intset", ""}, {"hashtable", "m"}} {
		for _, batch := range []int{1, 100} {
			b.Run(fmt.Sprintf("%s/batch=%d", enc.name, batch), func(b *testing.B) {
				refill := "SADD p " + setMembers(enc.prefix, 2*batch)
				e := newEmbedded(b, []string{refill})
				in := append(bytes.Repeat(encode("SPOP p"), batch), encode(refill)...)
				if out := e.Feed(in); bytes.HasPrefix(out, []byte("-")) {
					b.Fatalf("%q", out)
				}
				b.SetBytes(int64(len(in)))
				b.ReportAllocs()
				for b.Loop() {
					e.Feed(in)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(batch+1)), "ns/cmd")
			})
		}
	}
}
