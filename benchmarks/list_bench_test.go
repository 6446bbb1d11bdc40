package benchmarks

import (
	"strings"
	"testing"
)

// listCommands are the hot list commands: LPUSH grows l (a new quicklist
// node every 8 KiB), RPOPLPUSH rotates r at a constant length (an RPOP and
// an LPUSH), LRANGE reads 100 elements of r, LINDEX its middle.
var listCommands = []netCmd{
	{"LPush", "LPUSH l element"},
	{"RPopLPush/rotate", "RPOPLPUSH r r"},
	{"LRange100", "LRANGE r 0 99"},
	{"LIndex/middle", "LINDEX r 500"},
}

// listPreload builds r, 1000 elements.
func listPreload() []string {
	var r strings.Builder
	r.WriteString("RPUSH r")
	for i := 0; i < 1000; i++ {
		r.WriteString(" element")
	}
	return []string{r.String()}
}

// BenchmarkNetworkList is BenchmarkNetwork for the list commands.
func BenchmarkNetworkList(b *testing.B) { benchNetwork(b, listCommands, listPreload()) }
