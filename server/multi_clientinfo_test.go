package server

import (
	"regexp"
	"testing"
)

func init() {
	engineSuite = append(engineSuite, struct {
		name string
		fn   func(*testing.T)
	}{"ClientInfoInsideExecMatchesRedis", TestClientInfoInsideExecMatchesRedis})
}

// TestClientInfoInsideExecMatchesRedis: a client running EXEC shows
// flags=x, its queued count and cmd=exec in its own CLIENT INFO line, as
// Redis's does; after EXEC, flags=N multi=-1; another client's CLIENT
// LIST shows it with cmd=exec.
func TestClientInfoInsideExecMatchesRedis(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 1})
	refAddr := startRefRedis(t)
	fields := regexp.MustCompile(`flags=\S+ |multi=\S+ |cmd=\S+`)
	run := func(addr string) []string {
		c, other := dialRaw(t, addr), dialRaw(t, addr)
		c.do("CLIENT", "SETNAME", "txn")
		c.do("MULTI")
		c.do("SET", "a", "1")
		c.do("INCR", "n")
		c.do("CLIENT", "INFO")
		var got []string
		got = append(got, fields.FindAllString(c.do("EXEC"), -1)...)
		got = append(got, fields.FindAllString(c.do("CLIENT", "INFO"), -1)...)
		c.do("MULTI")
		c.do("GET", "a")
		c.do("EXEC")
		for _, line := range regexp.MustCompile(`[^\n]*name=txn [^\n]*`).FindAllString(other.do("CLIENT", "LIST"), -1) {
			got = append(got, fields.FindAllString(line, -1)...)
		}
		return got
	}
	want, got := run(refAddr), run(s.Addr())
	if len(want) != 9 {
		t.Fatalf("redis: %q, want nine fields", want)
	}
	if len(got) != len(want) {
		t.Fatalf("loopkv %q, redis %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d: loopkv %q, redis %q (all: %q)", i, got[i], want[i], got)
		}
	}
}
