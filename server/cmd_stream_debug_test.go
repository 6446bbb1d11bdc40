package server

import "testing"

func init() {
	engineSuite = append(engineSuite, struct {
		name string
		fn   func(*testing.T)
	}{"StreamDebugMatchesRedis", TestStreamDebugMatchesRedis})
}

// TestStreamDebugMatchesRedis: DEBUG DIGEST and DIGEST-VALUE of streams
// (entries with the master's fields and others, deletions, an emptied
// stream) are redis-server's, and DEBUG RELOAD keeps them.
func TestStreamDebugMatchesRedis(t *testing.T) {
	p := newDebugPair(t, Options{})
	for _, line := range []string{"XADD s 1-1 a 1 b 2", "XADD s 1-2 a 3 b 4", "XADD s 2-0 c 5", "XADD e 1-1 x y", "XDEL e 1-1",
		"XADD d 5-5 f v", "XDEL s 1-2", "XSETID d 9-9"} {
		p.both(t, diffSplit(t, line)...)
	}
	p.both(t, "DEBUG", "DIGEST-VALUE", "s", "e", "d", "missing")
	p.both(t, "DEBUG", "DIGEST")
	p.both(t, "DEBUG", "RELOAD")
	p.both(t, "DEBUG", "DIGEST")
	p.both(t, "XINFO", "STREAM", "s", "FULL")
	p.both(t, "XINFO", "STREAM", "e")
	p.both(t, "XINFO", "STREAM", "d")
}
