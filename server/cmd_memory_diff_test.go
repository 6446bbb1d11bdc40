package server

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

var memoryDiffCases = []diffCase{
	{"role", []string{"ROLE", "role", "ROLE x", "#proto 3", "ROLE"}},
	{"memory-help-and-arity", []string{
		"MEMORY HELP", "memory help", "MEMORY HELP x", "MEMORY", "MEMORY NOSUCH", "memory nosuch x",
		"MEMORY STATS x", "MEMORY DOCTOR x", "MEMORY PURGE x", "MEMORY MALLOC-STATS x", "MEMORY USAGE",
		"#proto 3", "MEMORY HELP",
	}},
	{"memory-usage-errors", []string{
		"MEMORY USAGE missing", "MEMORY USAGE missing SAMPLES 5", "MEMORY USAGE missing SAMPLES 0",
		"MEMORY USAGE missing SAMPLES x", "MEMORY USAGE missing SAMPLES -1", "MEMORY USAGE missing SAMPLES",
		"MEMORY USAGE missing foo", "MEMORY USAGE missing samples 5 foo", "MEMORY USAGE missing SAMPLES 99999999999999999999",
		"SET k v", "MEMORY USAGE k SAMPLES x", "MEMORY USAGE k SAMPLES -1", "MEMORY USAGE k SAMPLES", "MEMORY USAGE k bar 1",
		"MEMORY USAGE k SAMPLES 1 SAMPLES y",
		"#proto 3", "MEMORY USAGE missing",
	}},
	{"memory-usage-keys", []string{
		"COMMAND GETKEYS MEMORY USAGE k", "COMMAND GETKEYS MEMORY USAGE k SAMPLES 5", "COMMAND GETKEYS MEMORY STATS",
		"COMMAND GETKEYS ROLE", "COMMAND GETKEYS LOLWUT VERSION 5", "COMMAND GETKEYS CLIENT REPLY ON", "COMMAND GETKEYS CLIENT PAUSE 10",
	}},
	{"memory-small-instance", []string{
		"MEMORY DOCTOR", "MEMORY PURGE", "#proto 3", "MEMORY DOCTOR", "MEMORY PURGE",
	}},
	{"lolwut", []string{
		"LOLWUT", "lolwut", "LOLWUT VERSION 4", "LOLWUT VERSION 7", "LOLWUT version 1", "LOLWUT VERSION -3",
		"LOLWUT VERSION 0", "LOLWUT VERSION", "LOLWUT foo", "LOLWUT foo bar", "LOLWUT 5", "LOLWUT VERSION 4 x",
		"LOLWUT VERSION x", "LOLWUT VERSION 99999999999999999999", "LOLWUT VERSION 5 x", "LOLWUT VERSION 5 10 x",
		"LOLWUT VERSION 5 10 10 x", "LOLWUT VERSION 6 x", "LOLWUT VERSION 6 10 x", "LOLWUT VERSION 5 1.5",
		"#proto 3", "LOLWUT", "LOLWUT VERSION x",
	}},
}

func TestMemoryRoleLolwutMatchRedis(t *testing.T) { runDiff(t, memoryDiffCases) }

// TestLolwutDrawsAndEndsWithTheVersionLine checks the drawings of
// versions 5 and 6: sized by their arguments, clamped, and followed by
// Redis's version line, as Redis's are.
func TestLolwutDrawsAndEndsWithTheVersionLine(t *testing.T) {
	o := newOurServer()
	for _, tt := range []struct {
		cmd        string
		cols, rows int
	}{
		{"LOLWUT VERSION 5", 66, 12}, {"LOLWUT VERSION 5 10 3 4", 10, 4}, {"LOLWUT VERSION 5 0 0 0", 1, 1},
		{"LOLWUT VERSION 5 5000 1 5000", 1000, 200}, {"LOLWUT VERSION 6", 80, 20}, {"LOLWUT VERSION 6 7 2", 7, 2},
		{"lolwut version 6 -1 99999", 1, 1000},
	} {
		out := string(o.do(t, diffSplit(t, tt.cmd)))
		hdr, body, _ := strings.Cut(out, "\r\n")
		if n, _ := strconv.Atoi(hdr[1:]); hdr[0] != '$' || n != len(body)-2 {
			t.Fatalf("%s: not one bulk: %q", tt.cmd, out[:min(len(out), 80)])
		}
		art, ok := strings.CutSuffix(body, "\n\nRedis ver. 7.0.15\n\r\n")
		if !ok {
			t.Fatalf("%s: does not end with the version line: %q", tt.cmd, body[max(0, len(body)-60):])
		}
		lines := strings.Split(art, "\n")
		if len(lines) != tt.rows {
			t.Errorf("%s: %d lines, want %d", tt.cmd, len(lines), tt.rows)
		}
		for _, l := range lines {
			if len(l) != tt.cols {
				t.Fatalf("%s: a line of %d characters, want %d", tt.cmd, len(l), tt.cols)
			}
		}
	}
}

// TestMemoryStatsHasRedisFields compares MEMORY STATS's field names and
// reply types with redis-server's over the same keyspace, in RESP2 and
// RESP3; the numbers are loopkv's own and only checked for sense.
func TestMemoryStatsHasRedisFields(t *testing.T) {
	ref := startDiffRedis(t)
	ours := newOurServer()
	for _, proto := range []string{"2", "3"} {
		for _, cmd := range [][]string{{"HELLO", proto}, {"FLUSHALL"}, {"SET", "a", "1"}, {"SET", "b", "x", "EX", "100"}, {"SELECT", "3"}, {"RPUSH", "l", "x"}, {"SELECT", "0"}} {
			ref.do(t, cmd)
			ours.do(t, cmd)
		}
		ours.cl.proto, _ = strconv.Atoi(proto)
		got, want := ours.do(t, []string{"MEMORY", "STATS"}), ref.do(t, []string{"MEMORY", "STATS"})
		if g, w := statsShape(t, got), statsShape(t, want); g != w {
			t.Errorf("RESP%s MEMORY STATS:\n  got  %s\n  want %s", proto, g, w)
		}
		if !strings.Contains(string(got), "keys.count\r\n:3\r\n") || strings.Contains(string(got), "total.allocated\r\n:0\r\n") {
			t.Errorf("RESP%s MEMORY STATS: %q", proto, got)
		}
	}
}

// statsShape is a MEMORY STATS reply with its numbers blanked: the
// field names, the types and the nesting.
func statsShape(t *testing.T, b []byte) string {
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\r\n"), "\r\n") {
		switch line[0] {
		case ':', ',':
			line = line[:1]
		case '$':
			continue // a bulk's length; the next line is its text
		}
		if _, err := strconv.ParseFloat(line, 64); err == nil {
			line = "number" // a RESP2 double, sent as a bulk
		}
		out = append(out, line)
	}
	return strings.Join(out, " ")
}

// TestMemoryUsageMeasuresAnExpiredKeyNotYetDeleted checks, against
// redis-server with its active expiry off, that MEMORY USAGE of a key
// whose TTL has passed answers a size rather than nil, and neither
// deletes the key nor counts it expired: the next read does.
func TestMemoryUsageMeasuresAnExpiredKeyNotYetDeleted(t *testing.T) {
	ref := dialRaw(t, startRefRedis(t, "--enable-debug-command", "yes"))
	ref.do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	ours := newOurServer() // in process: no ticker, so no active expiry
	both := func(mode string, args ...string) {
		t.Helper()
		got, want := ours.do(t, args), []byte(ref.do(args...))
		if !sameReply(mode, got, want) {
			t.Errorf("%q: got %q, want %q", args, got, want)
		}
	}
	both("", "SET", "k", "v", "PX", "1")
	both("", "RPUSH", "l", "a", "b")
	both("", "PEXPIRE", "l", "1")
	time.Sleep(10 * time.Millisecond)
	for _, k := range []string{"k", "l"} {
		both("~", "MEMORY", "USAGE", k) // a size, each server's own (within 1000)
		both("~", "MEMORY", "USAGE", k, "SAMPLES", "0")
	}
	both("", "DBSIZE")
	both("", "GET", "k")
	both("", "DBSIZE")
	both("", "MEMORY", "USAGE", "k")
}
