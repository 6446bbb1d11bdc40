package server

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// redisCLITests run redis-cli against the server; want is its exact stdout.
var redisCLITests = []struct {
	args []string
	want string
}{
	{[]string{"ping"}, "PONG\n"},
	{[]string{"--no-raw", "ping"}, "PONG\n"},
	{[]string{"--no-raw", "echo", "hi"}, "\"hi\"\n"},
	{[]string{"--no-raw", "client", "getname"}, "(nil)\n"},
	{[]string{"-3", "--no-raw", "client", "getname"}, "(nil)\n"},
	{[]string{"--no-raw", "select", "99"}, "(error) ERR DB index is out of range\n"},
	{[]string{"--no-raw", "config", "get", "appendonly"}, "1) \"appendonly\"\n2) \"no\"\n"},
	{[]string{"-3", "--no-raw", "config", "get", "appendonly"}, "1# \"appendonly\" => \"no\"\n"},
	{[]string{"-3", "--no-raw", "hello", "3"}, "1# \"server\" => \"redis\"\n2# \"version\" => \"7.0.15\"\n3# \"proto\" => (integer) 3\n"},
	{[]string{"--no-raw", "command", "info", "ping"}, "1)  1) \"ping\"\n    2) (integer) -1\n    3) 1) fast\n"},
	{[]string{"info", "server"}, "# Server\r\nredis_version:7.0.15\r\n"},
}

func TestRedisCLI(t *testing.T) {
	cli := needTool(t, "redis-cli")
	s, _ := startServer(t, Options{})
	port := strconv.Itoa(s.opts.Port)
	for i, tt := range redisCLITests {
		out, err := exec.Command(cli, append([]string{"-p", port}, tt.args...)...).CombinedOutput()
		if err != nil {
			t.Errorf("#%d %q: %v: %s", i, tt.args, err, out)
			continue
		}
		if !strings.HasPrefix(string(out), tt.want) {
			t.Errorf("#%d %q: got %q, want prefix %q", i, tt.args, out, tt.want)
		}
	}
}

func TestRedisBenchmarkSmoke(t *testing.T) {
	bench := needTool(t, "redis-benchmark")
	s, _ := startServer(t, Options{})
	out, err := exec.Command(bench, "-p", strconv.Itoa(s.opts.Port), "-n", "2000", "-c", "10", "-P", "16",
		"-t", "ping,set,get,incr", "-q").CombinedOutput()
	if err != nil {
		t.Fatalf("redis-benchmark: %v\n%s", err, out)
	}
	text := string(out)
	for _, test := range []string{"PING_INLINE", "PING_MBULK", "SET", "GET", "INCR"} {
		if !strings.Contains(text, test+": ") {
			t.Errorf("no %s result in:\n%s", test, text)
		}
	}
	if strings.Contains(strings.ToLower(text), "error") {
		t.Errorf("redis-benchmark reported errors:\n%s", text)
	}
}
