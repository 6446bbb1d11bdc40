package server

import (
	"bufio"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// monitorCommands are run by one client while redis-cli MONITORs: plain,
// quoted and binary arguments, another database, a failing AUTH (shown
// redacted), an admin command and a rejected one (neither shown).
var monitorCommands = [][]string{
	{"SET", "k", "a b\"c"}, {"GET", "k"}, {"SELECT", "2"}, {"SET", "bin", "\x00\xff\n\r\t"},
	{"AUTH", "user", "secret"}, {"CONFIG", "GET", "maxclients"}, {"GET"}, {"DEL", "k", "bin"}, {"PING"},
}

// TestMonitorShowsEveryClientsCommands runs redis-cli MONITOR on loopkv
// and on redis-server while another client runs monitorCommands, and
// compares the lines: the same commands, quoted the same, with the
// database and the client's own address.
func TestMonitorShowsEveryClientsCommands(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	got := monitorLines(t, s.Addr())
	want := monitorLines(t, startRefRedis(t))
	if !slices.Equal(got, want) {
		t.Fatalf("MONITOR lines\n got  %q\n want %q", got, want)
	}
	for deadline := time.Now().Add(5 * time.Second); s.monitors.n.Load() != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d monitors left 5 s after redis-cli exited", s.monitors.n.Load())
		}
	}
}

// TestResetLeavesMonitorMode: a monitor that sends RESET gets +RESET and
// is fed no more, on loopkv as on redis-server.
func TestResetLeavesMonitorMode(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 1})
	for _, addr := range []string{s.Addr(), startRefRedis(t)} {
		mon, other := dialRaw(t, addr), dialRaw(t, addr)
		if got := mon.do("MONITOR"); got != "+OK\r\n" {
			t.Fatalf("%s: MONITOR = %q", addr, got)
		}
		if list := other.do("CLIENT", "LIST"); !strings.Contains(list, " flags=O ") {
			t.Fatalf("%s: CLIENT LIST shows no monitor (flags=O):\n%s", addr, list)
		}
		other.do("SET", "k", "v")
		if line := mon.reply(); !strings.HasSuffix(line, `"SET" "k" "v"`+"\r\n") {
			t.Fatalf("%s: monitor got %q", addr, line)
		}
		if got := mon.do("RESET"); got != "+RESET\r\n" {
			t.Fatalf("%s: RESET on a monitor = %q", addr, got)
		}
		other.do("SET", "k", "w")
		if got := mon.do("PING"); got != "+PONG\r\n" {
			t.Fatalf("%s: after RESET the monitor got %q, want only PONG", addr, got)
		}
	}
	if n := s.monitors.n.Load(); n != 0 {
		t.Errorf("%d monitors after RESET", n)
	}
}

var monitorLineRE = regexp.MustCompile(`^\d{10}\.\d{6} \[(\d+) ([0-9.:]+)\] (.*)$`)

// monitorLines runs monitorCommands on addr under redis-cli MONITOR and
// returns the lines it printed, the time dropped and the address checked.
func monitorLines(t *testing.T, addr string) []string {
	t.Helper()
	cli := needTool(t, "redis-cli")
	host, port, _ := strings.Cut(addr, ":")
	cmd := exec.Command(cli, "-h", host, "-p", port, "monitor")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() string {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("redis-cli monitor exited")
			}
			return l
		case <-time.After(10 * time.Second):
			t.Fatal("no MONITOR line within 10 s")
		}
		return ""
	}
	if l := next(); l != "OK" {
		t.Fatalf("MONITOR replied %q", l)
	}
	rc := dialRaw(t, addr)
	self := rc.c.LocalAddr().String()
	for _, args := range monitorCommands {
		rc.do(args...)
	}
	rc.do("ECHO", "last")
	var out []string
	for {
		l := next()
		m := monitorLineRE.FindStringSubmatch(l)
		if m == nil || m[2] != self {
			t.Fatalf("MONITOR line %q: want time [db %s] args", l, self)
		}
		out = append(out, m[1]+" "+m[3])
		if m[3] == `"ECHO" "last"` {
			return out
		}
	}
}

// TestMonitorOverTLS: a monitor on the TLS port gets the lines of a
// plaintext client's commands, sealed by its own loop.
func TestMonitorOverTLS(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{Loops: 2})
	c := dialTLS(t, s.TLSAddr(), p.clientConfig())
	r := bufio.NewReader(c)
	if got := tlsDo(t, c, r, "MONITOR"); got != "+OK\r\n" {
		t.Fatalf("MONITOR over TLS = %q", got)
	}
	other := dialRaw(t, s.Addr())
	self := other.c.LocalAddr().String()
	for i := range 50 {
		other.do("SET", "k", strings.Repeat("v", i))
	}
	for i := range 50 {
		line, err := readRaw(r)
		if err != nil {
			t.Fatal(err)
		}
		want := "[0 " + self + `] "SET" "k" "` + strings.Repeat("v", i) + "\"\r\n"
		if !strings.HasPrefix(line, "+") || !strings.HasSuffix(line, want) {
			t.Fatalf("line %d: %q, want +time %q", i, line, want)
		}
	}
}
