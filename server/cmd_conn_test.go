package server

import (
	"strings"
	"testing"
)

// connDiffCases run on a fresh connection to loopkv and to a reference
// redis-server 7.0; every reply must match byte for byte. Each command is
// space-separated words.
var connDiffCases = []struct {
	name string
	cmds []string
}{
	{"ping-echo", []string{"PING", "PING hi", "PING a b", "ping", "ECHO x", "ECHO", "ECHO a b", "FOO a b", "FOO"}},
	{"auth-without-password", []string{"AUTH x", "AUTH default x", "AUTH someone x", "AUTH a b c"}},
	{"select", []string{"SELECT 1", "SELECT 15", "SELECT 16", "SELECT -1", "SELECT x", "SELECT 1.5", "SELECT 99999999999", "SELECT", "SELECT 0 1"}},
	{"hello-errors", []string{"HELLO 4", "HELLO 1", "HELLO x", "HELLO 3 FOO", "HELLO 3 AUTH default", "HELLO 3 SETNAME", "HELLO 2 SETNAME a\x01b", "HELLO 2 AUTH bob pass"}},
	{"client-names", []string{"CLIENT GETNAME", "CLIENT SETNAME alpha", "CLIENT GETNAME", "CLIENT SETNAME", "CLIENT SETNAME a\x7fb",
		"CLIENT SETNAME \"\"", "CLIENT GETNAME", "CLIENT SETNAME a b"}},
	{"client-errors", []string{"CLIENT", "CLIENT FOO", "CLIENT ID x", "CLIENT KILL 1.2.3.4:5", "CLIENT KILL ID 0", "CLIENT KILL ID x",
		"CLIENT KILL ID 99999", "CLIENT KILL ADDR 1.2.3.4:5", "CLIENT KILL FOO bar", "CLIENT KILL ID", "CLIENT KILL TYPE foo",
		"CLIENT KILL USER nobody", "CLIENT KILL SKIPME maybe", "CLIENT LIST TYPE foo", "CLIENT LIST ID x", "CLIENT LIST FOO",
		"CLIENT LIST TYPE pubsub"}},
	{"config", []string{"CONFIG GET save", "CONFIG GET appendonly", "CONFIG GET maxclients", "CONFIG GET timeout",
		"CONFIG GET databases", "CONFIG GET nosuch*", "CONFIG GET", "CONFIG SET", "CONFIG SET foo bar", "CONFIG SET timeout",
		"CONFIG SET maxclients abc", "CONFIG SET timeout 5", "CONFIG GET timeout", "CONFIG SET timeout 0", "CONFIG SET loglevel loud",
		"CONFIG SET client-query-buffer-limit 1", "CONFIG FOO", "CONFIG RESETSTAT"}},
	{"server", []string{"SHUTDOWN ABORT", "SHUTDOWN FOO", "TIME x", "COMMAND INFO nosuchcommand", "COMMAND FOO", "INFO nosuchsection"}},
	{"reset-quit", []string{"SELECT 3", "CLIENT SETNAME x", "RESET", "CLIENT GETNAME", "QUIT"}},
}

// connDiffAuthCases run against both servers configured with a password.
var connDiffAuthCases = []struct {
	name string
	cmds []string
}{
	{"noauth", []string{"PING", "ECHO x", "FOO", "GET", "SELECT 1", "CLIENT ID", "CONFIG GET save",
		"CLIENT FOO", "CLIENT", "CONFIG GET", "CONFIG NOSUCH x", "COMMAND GETKEYS GET k", "HELLO 3", "HELLO 3 AUTH default wrong",
		"HELLO 3 AUTH other secret", "AUTH wrong", "AUTH default wrong", "AUTH other secret", "PING", "AUTH secret", "PING", "RESET", "PING",
		"AUTH default secret", "PING"}},
}

func diffConn(t *testing.T, ours, ref string, name string, cmds []string) {
	t.Helper()
	o, r := dialRaw(t, ours), dialRaw(t, ref)
	for i, line := range cmds {
		args := strings.Fields(line)
		for j, a := range args {
			if a == "\"\"" {
				args[j] = ""
			}
		}
		want := r.do(args...)
		got := o.do(args...)
		if got != want {
			t.Errorf("%s #%d %q:\n  got  %q\n  want %q", name, i, line, got, want)
		}
	}
}

func TestConnectionCommandsMatchRedis(t *testing.T) {
	s, _ := startServer(t, Options{})
	ref := startRefRedis(t)
	for _, c := range connDiffCases {
		diffConn(t, s.Addr(), ref, c.name, c.cmds)
	}
}

func TestAuthenticationMatchesRedis(t *testing.T) {
	s, _ := startServer(t, Options{RequirePass: "secret"})
	ref := startRefRedis(t, "--requirepass", "secret")
	for _, c := range connDiffAuthCases {
		diffConn(t, s.Addr(), ref, c.name, c.cmds)
	}
}

// helloTests check HELLO's reply, whose id differs from Redis's.
var helloTests = []struct {
	cmd  []string
	want string
}{
	{[]string{"HELLO"}, "*14\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n:2\r\n$2\r\nid\r\n:1\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n"},
	{[]string{"HELLO", "3", "SETNAME", "n1"}, "%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n:3\r\n$2\r\nid\r\n:1\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n"},
	{[]string{"CLIENT", "GETNAME"}, "$2\r\nn1\r\n"},
	{[]string{"CONFIG", "GET", "save"}, "%1\r\n$4\r\nsave\r\n$0\r\n\r\n"},
	{[]string{"CLIENT", "GETNAME", "x"}, "-ERR wrong number of arguments for 'client|getname' command\r\n"},
	{[]string{"HELLO", "2"}, "*14\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n:2\r\n$2\r\nid\r\n:1\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n"},
	{[]string{"CONFIG", "GET", "appendonly"}, "*2\r\n$10\r\nappendonly\r\n$2\r\nno\r\n"},
}

func TestHelloSwitchesProtocol(t *testing.T) {
	e := NewEmbedded(Options{})
	for i, tt := range helloTests {
		if got := string(e.Feed([]byte(multibulk(tt.cmd...)))); got != tt.want {
			t.Errorf("#%d %q: got %q, want %q", i, tt.cmd, got, tt.want)
		}
	}
}

func TestClientListLineHasRedisFields(t *testing.T) {
	s, _ := startServer(t, Options{})
	a, b := dialRaw(t, s.Addr()), dialRaw(t, s.Addr())
	a.do("CLIENT", "SETNAME", "alpha")
	a.do("SELECT", "2")
	list := b.do("CLIENT", "LIST")
	fields := []string{"id=", " addr=127.0.0.1:", " laddr=" + s.Addr(), " fd=", " name=alpha age=", " idle=",
		" flags=N db=2 sub=0 psub=0 ssub=0 multi=-1 qbuf=", " qbuf-free=", " argv-mem=", " multi-mem=0 rbs=",
		" rbp=", " obl=", " oll=", " omem=", " tot-mem=", " events=r cmd=select user=default redir=-1 resp=2 lib-name= lib-ver=\n"}
	at := 0
	for _, f := range fields {
		i := strings.Index(list[at:], f)
		if i < 0 {
			t.Fatalf("CLIENT LIST lacks %q after byte %d:\n%s", f, at, list)
		}
		at += i + len(f)
	}
	if got := b.do("CLIENT", "INFO"); !strings.Contains(got, " name= ") || !strings.Contains(got, "cmd=client|info ") {
		t.Errorf("CLIENT INFO = %q", got)
	}
}

// unauthInputs probe Redis's limits for clients that must authenticate.
var unauthInputs = []string{
	multibulk("ECHO", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j"),
	multibulk("ECHO", strings.Repeat("x", 16385)),
	multibulk("ECHO", strings.Repeat("x", 16384)),
	"*1\r\n$-5\r\n",
	"*x\r\n",
	multibulk("AUTH", "secret") + multibulk("ECHO", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j") +
		multibulk("ECHO", strings.Repeat("x", 16385)),
	multibulk("AUTH", "secret") + multibulk("RESET") + multibulk("ECHO", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j"),
}

func TestUnauthenticatedLimitsMatchRedis(t *testing.T) {
	s, _ := startServer(t, Options{RequirePass: "secret"})
	ref := startRefRedis(t, "--requirepass", "secret")
	for i, in := range unauthInputs {
		want := sendAndDrain(t, ref, in)
		got := sendAndDrain(t, s.Addr(), in)
		if got != want {
			t.Errorf("#%d: got %.200q, want %.200q", i, got, want)
		}
	}
}
