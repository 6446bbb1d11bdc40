package server

import (
	"strings"
	"testing"
)

var waitDiffCases = []diffCase{
	{"wait-errors-and-no-wait", []string{
		"WAIT 0 0", "WAIT -1 0", "WAIT 0 100", "wait -5 9223372036854775807", "WAIT 1 x", "WAIT x 0", "WAIT x x",
		"WAIT 1 -1", "WAIT 0 -1", "WAIT 1.5 0", "WAIT 1 1.5", "WAIT 1 99999999999999999999", "WAIT 99999999999999999999 0",
		"WAIT", "WAIT 1", "WAIT 1 2 3", "COMMAND GETKEYS WAIT 1 0",
		"MULTI", "WAIT 1 0", "WAIT 3 100", "WAIT 0 0", "WAIT 1 -1", "EXEC",
		"#proto 3", "WAIT 0 0", "WAIT 1 x",
	}},
}

func TestWaitMatchesRedis(t *testing.T) { runDiff(t, waitDiffCases) }

// TestWaitBlocksUntilItsTimeout runs the same script on loopkv and
// redis-server, which has no replicas either: WAIT for one replica or
// more blocks (a blocked client, CLIENT LIST flags=b) until its timeout,
// forever with 0 or a timeout past the int64 range, until CLIENT UNBLOCK,
// and then answers 0, or the UNBLOCKED error; the commands pipelined
// after it run then.
func TestWaitBlocksUntilItsTimeout(t *testing.T) {
	s, _ := startServer(t, Options{})
	var got [2][]string
	for i, addr := range []string{s.Addr(), startRefRedis(t)} {
		rc, admin := dialRaw(t, addr), dialRaw(t, addr)
		id := strings.TrimSpace(rc.do("CLIENT", "ID")[1:])
		note := func(r string) { got[i] = append(got[i], r) }
		rc.send(multibulk("WAIT", "1", "400") + multibulk("PING"))
		expectNoReply(t, rc, addr+": WAIT 1 400")
		note(rc.reply() + rc.reply())
		for _, unblock := range [][]string{{"CLIENT", "UNBLOCK", id}, {"CLIENT", "UNBLOCK", id, "ERROR"},
			{"CLIENT", "UNBLOCK", id, "TIMEOUT"}} {
			for _, timeout := range []string{"0", "9223372036854775807"} {
				rc.send(multibulk("WAIT", "2", timeout) + multibulk("ECHO", "after"))
				waitFor(t, func() bool { return strings.Contains(admin.do("INFO", "clients"), "blocked_clients:1\r\n") }, addr+": WAIT to block")
				line := clientListLine(admin.do("CLIENT", "LIST"), id)
				note(line[strings.Index(line, " flags="):strings.Index(line, " db=")])
				note(line[strings.Index(line, " cmd="):strings.Index(line, " user=")])
				expectNoReply(t, rc, addr+": WAIT 2 "+timeout)
				note(admin.do(unblock...))
				note(rc.reply() + rc.reply())
				note(admin.do(unblock...)) // no longer blocked
			}
		}
		rc.send(multibulk("MULTI") + multibulk("WAIT", "1", "0") + multibulk("EXEC"))
		note(rc.reply() + rc.reply() + rc.reply())
		note(admin.do("INFO", "clients"))
	}
	for j := range got[1] {
		if j == len(got[1])-1 { // INFO clients: only the blocked count compares
			got[0][j], got[1][j] = infoField(got[0][j], "blocked_clients"), infoField(got[1][j], "blocked_clients")
		}
		if j >= len(got[0]) || got[0][j] != got[1][j] {
			t.Errorf("#%d: loopkv %q, redis-server %q", j, got[0][j], got[1][j])
		}
	}
}

// WAIT that needs no replica joins the zero-allocation tables of
// cmd_string_alloc_test.go.
func init() {
	zeroAllocCommands = append(zeroAllocCommands, struct {
		name  string
		setup []string
		cmd   []string
	}{"WAIT/none", nil, []string{"WAIT", "0", "100"}})
}

// TestHugeTimeoutsWaitForever checks, on loopkv and redis-server 7.0,
// that a timeout beyond time.Duration's range, or whose deadline passes
// int64's, waits until CLIENT UNBLOCK rather than firing at once or being
// refused (7.0 has no "timeout is out of range").
func TestHugeTimeoutsWaitForever(t *testing.T) {
	s, _ := startServer(t, Options{})
	for _, addr := range []string{s.Addr(), startRefRedis(t)} {
		rc, admin := dialRaw(t, addr), dialRaw(t, addr)
		id := strings.TrimSpace(rc.do("CLIENT", "ID")[1:])
		for _, cmd := range [][]string{{"WAIT", "1", "9000000000000000"}, {"WAIT", "1", "9223372036854775000"},
			{"BLPOP", "nokey", "9000000000000"}, {"BLPOP", "nokey", "9223372036854000"}, {"BZPOPMIN", "nokey", "9223372000000000"}} {
			rc.send(multibulk(cmd...))
			expectNoReply(t, rc, addr+": "+strings.Join(cmd, " "))
			if got := admin.do("CLIENT", "UNBLOCK", id); got != ":1\r\n" {
				t.Fatalf("%s: %q: CLIENT UNBLOCK = %q", addr, cmd, got)
			}
			if got, want := rc.reply(), map[bool]string{true: ":0\r\n", false: "*-1\r\n"}[cmd[0] == "WAIT"]; got != want {
				t.Errorf("%s: %q unblocked: %q, want %q", addr, cmd, got, want)
			}
		}
	}
}
