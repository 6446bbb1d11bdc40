package benchmarks

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// setCommands are the hot set commands on warm sets of the three
// encodings: an intset s and a listpack l of 100 members each, a hash
// table h of 200.
var setCommands = []netCmd{
	{"SAdd/existing/intset", "SADD s 7"},
	{"SAdd/existing/listpack", "SADD l m7"},
	{"SAdd/existing/hashtable", "SADD h m7"},
	{"SIsMember/intset", "SISMEMBER s 7"},
	{"SIsMember/listpack", "SISMEMBER l m7"},
	{"SIsMember/hashtable", "SISMEMBER h m7"},
}

// setPreload builds s, l and h.
var setPreload = []string{"SADD s " + setMembers("", 100), "SADD l " + setMembers("m", 100),
	"SADD h " + setMembers("m", 200)}

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
// members (a hash table holds 200 more that stay, since 2 members would be
// a listpack, and a listpack batch is 60, as 200 members would be a hash
// table), and each op's batch of SPOPs is followed by one SADD of all of
// them, which puts back the ones popped, so the set never empties (ns/cmd
// counts the SADD as one more command).
func BenchmarkNetworkSPop(b *testing.B) {
	for _, enc := range []struct {
		name, prefix string
		batches      []int
		preload      []string
	}{
		{"intset", "", []int{1, 100}, nil},
		{"listpack", "m", []int{1, 60}, nil},
		{"hashtable", "m", []int{1, 100}, []string{"SADD p " + setMembers("h", 200)}},
	} {
		for _, batch := range enc.batches {
			b.Run(fmt.Sprintf("%s/batch=%d", enc.name, batch), func(b *testing.B) {
				refill := "SADD p " + setMembers(enc.prefix, 2*batch)
				e := newEmbedded(b, append(enc.preload, refill))
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
