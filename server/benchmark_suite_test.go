package server

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func init() {
	engineSuite = append(engineSuite, struct {
		name string
		fn   func(*testing.T)
	}{"RedisBenchmarkDefaultSuite", TestRedisBenchmarkDefaultSuite})
}

// redisBenchmarkTests are the tests of redis-benchmark 7.0's default run,
// by the names it prints.
var redisBenchmarkTests = []string{"PING_INLINE", "PING_MBULK", "SET", "GET", "INCR", "LPUSH", "RPUSH",
	"LPOP", "RPOP", "SADD", "HSET", "SPOP", "ZADD", "ZPOPMIN", "LRANGE_100 (first 100 elements)",
	"LRANGE_300 (first 300 elements)", "LRANGE_500 (first 500 elements)", "LRANGE_600 (first 600 elements)",
	"MSET (10 keys)"}

// The whole default redis-benchmark suite (no -t) runs to its end without
// an error, over plaintext and TLS, at pipelines 1 and 16.
func TestRedisBenchmarkDefaultSuite(t *testing.T) {
	bench := needTool(t, "redis-benchmark")
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{Loops: 2})
	for _, tr := range []struct {
		name string
		args []string
	}{
		{"plaintext", []string{"-p", strconv.Itoa(s.opts.Port)}},
		{"tls", []string{"--tls", "--cacert", p.caFile, "-p", strconv.Itoa(s.opts.TLS.Port)}},
	} {
		for _, pipeline := range []string{"1", "16"} {
			args := append(append([]string{}, tr.args...), "-n", "1000", "-c", "10", "-P", pipeline, "-q")
			out, err := exec.Command(bench, args...).CombinedOutput()
			text := string(out)
			if err != nil {
				t.Fatalf("%s -P %s: redis-benchmark: %v\n%s", tr.name, pipeline, err, text)
			}
			for _, test := range redisBenchmarkTests {
				if !strings.Contains(text, test+": ") {
					t.Errorf("%s -P %s: no %s result in:\n%s", tr.name, pipeline, test, text)
				}
			}
			if l := strings.ToLower(text); strings.Contains(l, "error") || strings.Contains(l, "wrong") {
				t.Errorf("%s -P %s: redis-benchmark reported errors:\n%s", tr.name, pipeline, text)
			}
		}
	}
}
