package benchmarks

import (
	"fmt"
	"strings"
	"testing"
)

// hashCommands are the hot hash commands, on a listpack hash h (3
// fields) and a hash-table hash t (200 fields).
var hashCommands = []netCmd{
	{"HSet/listpack", "HSET h f v"},
	{"HSet/hashtable", "HSET t f100 vvvv"},
	{"HGet/listpack", "HGET h f"},
	{"HGet/hashtable", "HGET t f150"},
	{"HIncrBy/listpack", "HINCRBY h n 3"},
	{"HIncrBy/hashtable", "HINCRBY t n 3"},
}

// hashPreload builds h and t.
func hashPreload() []string {
	var t strings.Builder
	t.WriteString("HSET t n 0")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&t, " f%d vvvv", i)
	}
	return []string{"HSET h f v g 1 n 0", t.String()}
}

// BenchmarkNetworkHash is BenchmarkNetwork for the hash commands.
func BenchmarkNetworkHash(b *testing.B) { benchNetwork(b, hashCommands, hashPreload()) }
