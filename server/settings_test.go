package server

import (
	"strings"
	"testing"
)

// globFoldTests are CONFIG GET patterns against setting names.
var globFoldTests = []struct {
	pattern, s string
	want       bool
}{
	{"*", "maxmemory", true},
	{"max*", "maxmemory-policy", true},
	{"MAX*", "maxmemory", true},
	{"*ziplist*", "hash-max-ziplist-entries", true},
	{"*ziplist*", "hash-max-listpack-entries", false},
	{"?ort", "port", true},
	{"?ort", "tls-port", false},
	{"[mp]ort", "port", true},
	{"[^p]ort", "port", false},
	{"[a-z]ort", "port", true},
	{"[z-a]ort", "port", true},
	{"p\\ort", "port", true},
	{"p\\*", "p*", true},
	{"p\\*", "px", false},
	{"*a*a*a*a*a*a*a*a*a*a*b", strings.Repeat("a", 60), false},
	{"a[", "a", false},
	{"**x", "x", true},
}

func TestGlobMatchFoldFollowsRedisNocase(t *testing.T) {
	for i, tt := range globFoldTests {
		if got := globMatchFold(tt.pattern, []byte(tt.s), true); got != tt.want {
			t.Errorf("#%d: Match(%q, %q) = %v, want %v", i, tt.pattern, tt.s, got, tt.want)
		}
	}
}
