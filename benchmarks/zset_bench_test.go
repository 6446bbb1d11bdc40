package benchmarks

import (
	"fmt"
	"strings"
	"testing"
)

// zsetCommands are the hot sorted-set commands, on a listpack zset z (10
// members) and a skiplist zset s (200 members).
var zsetCommands = []netCmd{
	{"ZAdd/listpack", "ZADD z 5 m5"},
	{"ZAdd/skiplist", "ZADD s 150 m150"},
	{"ZScore/listpack", "ZSCORE z m7"},
	{"ZScore/skiplist", "ZSCORE s m150"},
	{"ZRange0-9/listpack", "ZRANGE z 0 9"},
	{"ZRange0-9/skiplist", "ZRANGE s 0 9"},
	{"ZRange0-9WithScores/skiplist", "ZRANGE s 0 9 WITHSCORES"},
	{"ZIncrBy/listpack", "ZINCRBY z 0 m3"},
	{"ZIncrBy/skiplist", "ZINCRBY s 1 m100"},
}

// zsetPreload builds z and s.
func zsetPreload() []string {
	var z, s strings.Builder
	z.WriteString("ZADD z")
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&z, " %d m%d", i, i)
	}
	s.WriteString("ZADD s")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&s, " %d m%d", i, i)
	}
	return []string{z.String(), s.String()}
}

// BenchmarkNetworkZSet is BenchmarkNetwork for the sorted-set commands.
func BenchmarkNetworkZSet(b *testing.B) { benchNetwork(b, zsetCommands, zsetPreload()) }
