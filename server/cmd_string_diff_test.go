package server

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopkv/loopkv/store"
)

// The differential tests send the same commands to a real redis-server 7
// over TCP and to our server in process, and compare the replies byte for
// byte. A command line may start with a marker:
//
//	"~ "  the reply is an integer that may differ by up to 1000 (PTTL)
//	"S "  the reply's aggregates are compared as sorted multisets (KEYS, SCAN,
//	      SMEMBERS of a hash table)
//	"R "  random replies: only the shapes must match, the aggregate's type
//	      and length and its elements' types (SRANDMEMBER, SPOP)
//
// and two directives change the connection on both sides without comparing:
//
//	"#db N"     SELECT N on redis, client.db = N here
//	"#proto 3"  HELLO 3 on redis, client.proto = 3 here
//	"#enc K"    compares redis's OBJECT ENCODING K with the store's encoding
//	"#config name value"  CONFIG SET on redis, the store's Limits here

// redisRef is a reference redis-server and one connection to it.
type redisRef struct {
	addr string
	conn net.Conn
	r    *bufio.Reader
}

// startDiffRedis starts redis-server on a free loopback port; t.Cleanup stops it.
func startDiffRedis(t *testing.T) *redisRef {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redis-server not found on PATH (install redis-server 7, `make deps`): %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	args := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"}
	if diffRedisConfigFile != "" { // settings_diff_test.go: the file's settings count
		args = []string{diffRedisConfigFile, "--port", strconv.Itoa(port), "--save", "", "--daemonize", "no"}
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = t.TempDir() // anything it writes (appendonlydir, dump.rdb) stays out of the tree
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	var conn net.Conn
	for deadline := time.Now().Add(10 * time.Second); ; {
		if conn, err = net.Dial("tcp", addr); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not start on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Cleanup(func() { conn.Close() })
	return &redisRef{addr: addr, conn: conn, r: bufio.NewReader(conn)}
}

// do sends one command and returns the raw reply.
func (rr *redisRef) do(t *testing.T, args []string) []byte {
	t.Helper()
	rr.conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := rr.conn.Write(diffEncode(args)); err != nil {
		t.Fatal(err)
	}
	var raw []byte
	if err := diffReadReply(rr.r, &raw); err != nil {
		t.Fatalf("reading redis reply to %q: %v", args, err)
	}
	return raw
}

func diffEncode(args []string) []byte {
	b := fmt.Appendf(nil, "*%d\r\n", len(args))
	for _, a := range args {
		b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b
}

// diffReadReply appends one complete RESP2 or RESP3 reply from r to raw.
func diffReadReply(r *bufio.Reader, raw *[]byte) error {
	line, err := r.ReadBytes('\n')
	if err != nil {
		return err
	}
	*raw = append(*raw, line...)
	n, _ := strconv.Atoi(string(bytes.TrimRight(line[1:], "\r\n")))
	switch line[0] {
	case '$', '=', '!':
		if n < 0 {
			return nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return err
		}
		*raw = append(*raw, buf...)
	case '*', '~', '>', '%':
		if line[0] == '%' {
			n *= 2
		}
		for i := 0; i < n; i++ {
			if err := diffReadReply(r, raw); err != nil {
				return err
			}
		}
	}
	return nil
}

// node is a parsed reply, for the normalising comparisons.
type node struct {
	head string // the type line, such as "$3" or "*2"
	body string // bulk content
	kids []node
}

func diffParseNode(b []byte) (node, []byte) {
	i := bytes.Index(b, []byte("\r\n"))
	nd := node{head: string(b[:i])}
	b = b[i+2:]
	n, _ := strconv.Atoi(nd.head[1:])
	switch nd.head[0] {
	case '$':
		if n >= 0 {
			nd.body, b = string(b[:n]), b[n+2:]
		}
	case '*', '~', '%':
		if nd.head[0] == '%' {
			n *= 2
		}
		for j := 0; j < n; j++ {
			var k node
			k, b = diffParseNode(b)
			nd.kids = append(nd.kids, k)
		}
	}
	return nd, b
}

func (nd node) sorted() string {
	if nd.head[0] != '*' && nd.head[0] != '~' && nd.head[0] != '%' {
		return nd.head + "|" + nd.body
	}
	var ks []string
	for i := 0; i < len(nd.kids); i++ {
		if nd.head[0] == '%' { // a map's pairs stay whole
			ks = append(ks, nd.kids[i].sorted()+":"+nd.kids[i+1].sorted())
			i++
			continue
		}
		ks = append(ks, nd.kids[i].sorted())
	}
	sort.Strings(ks)
	return nd.head + "[" + strings.Join(ks, ",") + "]"
}

// shape is the node without its bulk contents and lengths: aggregates
// keep their types and lengths, bulks only their type (or null).
func (nd node) shape() string {
	if nd.head[0] == '$' && nd.head != "$-1" {
		return "$"
	}
	if nd.head[0] == ',' { // a RESP3 double: its type only
		return ","
	}
	s := nd.head + "["
	for _, k := range nd.kids {
		s += k.shape()
	}
	return s + "]"
}

// diffSplit splits a command line on spaces; a "quoted" Go string is one
// argument (so "" is the empty argument).
func diffSplit(t testing.TB, line string) []string {
	var args []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '"' {
			q, err := strconv.QuotedPrefix(line)
			if err != nil {
				t.Fatalf("bad quoted argument in %q", line)
			}
			s, _ := strconv.Unquote(q)
			args = append(args, s)
			line = line[len(q):]
			continue
		}
		i := strings.IndexByte(line, ' ')
		if i < 0 {
			i = len(line)
		}
		args = append(args, line[:i])
		line = line[i:]
	}
	return args
}

// ourServer is a server with its own store and one RESP2 client.
type ourServer struct {
	s  *Server
	cl *client
}

func newOurServer() *ourServer {
	return &ourServer{s: &Server{store: store.New(store.Options{})}, cl: &client{proto: 2}}
}

func (o *ourServer) do(t *testing.T, args []string) []byte {
	t.Helper()
	in := diffEncode(args)
	n, out, _ := o.s.execute(o.cl, in, nil, time.Now().UnixMilli(), make([]byte, 64))
	if n != len(in) {
		t.Fatalf("execute consumed %d of %d bytes of %q", n, len(in), args)
	}
	return out
}

// runDiff runs each case on both servers after a FLUSHALL.
func runDiff(t *testing.T, cases []diffCase) {
	ref := startDiffRedis(t)
	ours := newOurServer()
	for _, c := range cases {
		ref.do(t, []string{"FLUSHALL"})
		ours.do(t, []string{"FLUSHALL"})
		ref.do(t, []string{"SELECT", "0"})
		ref.do(t, []string{"HELLO", "2"})
		ours.cl.db, ours.cl.proto = 0, 2
		for i, line := range c.cmds {
			if f := strings.Fields(line); len(f) == 2 && f[0] == "#db" {
				ref.do(t, []string{"SELECT", f[1]})
				ours.cl.db, _ = strconv.Atoi(f[1])
				continue
			}
			if f := strings.Fields(line); len(f) >= 2 && (f[0] == "#enc" || f[0] == "#config") {
				diffDirective(t, ref, ours, c.name, i, f)
				continue
			}
			if line == "#proto 3" {
				ref.do(t, []string{"HELLO", "3"})
				ours.cl.proto = 3
				continue
			}
			mode := ""
			if strings.HasPrefix(line, "~ ") || strings.HasPrefix(line, "S ") || strings.HasPrefix(line, "R ") {
				mode, line = line[:1], line[2:]
			}
			args := diffSplit(t, line)
			want := ref.do(t, args)
			got := ours.do(t, args)
			if !sameReply(mode, got, want) {
				t.Errorf("%s #%d: %s\n  got  %q\n  want %q", c.name, i, line, got, want)
			}
		}
	}
}

func sameReply(mode string, got, want []byte) bool {
	switch mode {
	case "~":
		if len(got) == 0 || len(want) == 0 || got[0] != ':' || want[0] != ':' {
			return bytes.Equal(got, want)
		}
		g, _ := strconv.ParseInt(string(bytes.TrimSpace(got[1:])), 10, 64)
		w, _ := strconv.ParseInt(string(bytes.TrimSpace(want[1:])), 10, 64)
		return g-w <= 1000 && w-g <= 1000 && (g < 0) == (w < 0)
	case "S", "R":
		if len(got) == 0 || len(want) == 0 {
			return bytes.Equal(got, want)
		}
		gn, _ := diffParseNode(got)
		wn, _ := diffParseNode(want)
		if mode == "R" {
			return gn.shape() == wn.shape()
		}
		return gn.sorted() == wn.sorted()
	}
	return bytes.Equal(got, want)
}

type diffCase struct {
	name string
	cmds []string
}

var stringDiffCases = []diffCase{
	{"get-set-basic", []string{
		"GET missing", "SET k v", "GET k", "set K V", "GET K", "SET k \"\"", "GET k", "STRLEN k",
		"SET k \"hello world\"", "GET k", "SET k 12345678901234567890123", "GET k",
	}},
	{"set-nx-xx", []string{
		"SET k v NX", "SET k w NX", "GET k", "SET k x XX", "GET k", "SET n v XX", "GET n",
		"SET k v NX XX", "SET k v XX NX", "SET k v nx nx", "SET k v xx XX", "SET k v NX GET", "SET k2 v NX GET", "GET k2",
		"SET k v XX GET", "SET k3 v XX GET", "GET k3",
	}},
	{"set-get", []string{
		"SET k v GET", "SET k w GET", "SET k x get", "GET k", "SET k y GET GET",
	}},
	{"set-expire-options", []string{
		"SET k v EX 1000", "TTL k", "~ PTTL k", "SET k v PX 100000", "TTL k", "SET k v EXAT 4102444800", "EXPIRETIME k",
		"PEXPIRETIME k", "SET k v PXAT 4102444800123", "PEXPIRETIME k", "EXPIRETIME k", "SET k v", "TTL k",
		"SET k v EX 1000", "SET k w KEEPTTL", "TTL k", "GET k", "SET k w keepttl XX", "TTL k",
		"SET k v EX 10 EX 1000", "TTL k", "SET k v EX 10 PX 1000", "SET k v EX 10 KEEPTTL", "SET k v KEEPTTL EX 10",
		"SET k v EX", "SET k v PX", "SET k v EX 0", "SET k v EX -1", "SET k v PX 0", "SET k v EXAT 0", "SET k v PXAT -5",
		"SET k v EX abc", "SET k v EX 1.5", "SET k v EX 9223372036854775807", "SET k v PX 9223372036854775807",
		"SET k v EX 9223372036854775", "SET k v EX 9223372036854776", "SET k v EXAT 9223372036854775",
		"SET k v PXAT 1", "GET k", "EXISTS k", "SET k v EXAT 1 GET", "SET k v PERSIST", "SET k v FOO", "SET k v EX 10 FOO",
		"SET k v px 5000 nx", "SET k v NX EX abc", "SET k v ex 0 nx",
	}},
	{"setnx-setex-psetex", []string{
		"SETNX k v", "SETNX k w", "GET k", "SETEX k 1000 v2", "GET k", "TTL k", "SETEX k 0 v", "SETEX k -10 v",
		"SETEX k abc v", "SETEX k 9223372036854775807 v", "PSETEX k 100000 v3", "TTL k", "~ PTTL k", "PSETEX k 0 v", "GET k",
		"PSETEX k -1 v", "psetex k 1.0 v",
	}},
	{"getset-getdel", []string{
		"GETSET k v", "GETSET k w", "GET k", "SET t v EX 1000", "GETSET t x", "TTL t",
		"GETDEL k", "GETDEL k", "EXISTS k", "GETDEL missing",
	}},
	{"getex", []string{
		"GETEX missing", "GETEX missing EX 10", "SET k v", "GETEX k", "TTL k", "GETEX k EX 1000", "TTL k",
		"GETEX k PX 2000000", "TTL k", "GETEX k EXAT 4102444800", "EXPIRETIME k", "GETEX k PXAT 4102444800999", "PEXPIRETIME k",
		"GETEX k PERSIST", "TTL k", "GETEX k EX 0", "GETEX k EX -5", "GETEX k EX abc", "GETEX k EX", "GETEX k KEEPTTL",
		"GETEX k NX", "GETEX k PERSIST EX 10", "GETEX k EX 10 PERSIST", "GETEX k EX 10 PX 10", "GETEX k persist persist",
		"GETEX k EXAT 1", "EXISTS k", "GETEX k", "SET k v", "GETEX k PXAT 100", "GET k", "GETEX missing EX 0", "GETEX missing EX abc", "GETEX missing PX -1",
		"GETEX missing FOO", "GETEX missing EX",
	}},
	{"mget-mset", []string{
		"MSET a 1 b 2 c 3", "MGET a b c", "MGET a missing c missing", "MGET missing", "MSET a", "MSET a 1 b",
		"MSET a x a y", "GET a", "SET t v EX 1000", "MSET t w", "TTL t", "MGET a a a",
		"MSETNX a 1 z 2", "GET z", "MSETNX y 1 z 2", "MGET y z", "MSETNX q", "MSETNX q 1 r", "MSETNX d 1 d 2", "GET d",
	}},
	{"incr-decr", []string{
		"INCR n", "INCR n", "DECR n", "DECR n", "DECR n", "INCRBY n 10", "DECRBY n 20", "GET n", "INCRBY n -5",
		"DECRBY n -5", "INCRBY n abc", "INCRBY n 1.5", "INCRBY n \"\"", "INCRBY n \" 1\"", "INCRBY n +1", "INCRBY n 01",
		"SET n 9223372036854775807", "INCR n", "INCRBY n 0", "DECR n", "SET n -9223372036854775808", "DECR n", "INCRBY n -1",
		"DECRBY n 9223372036854775807", "DECRBY n -9223372036854775808", "DECRBY x -9223372036854775808", "INCRBY n 9223372036854775808",
		"SET s abc", "INCR s", "DECR s", "INCRBY s 1", "SET s 1.0", "INCR s", "SET s \" 1\"", "INCR s", "SET s 007", "INCR s",
		"SET s -0", "INCR s", "SET s \"\"", "INCR s", "SET s 123456789012345678901", "INCR s",
		"SET t 5 EX 1000", "INCR t", "TTL t", "SET big 99999", "INCR big", "GET big", "SET x 9", "INCR x", "APPEND x 0", "INCR x",
	}},
	{"incrbyfloat", []string{
		"INCRBYFLOAT f 10.5", "INCRBYFLOAT f 0.1", "INCRBYFLOAT f -5", "SET f 5.0e3", "INCRBYFLOAT f 2.0e2", "GET f",
		"SET f 0.1", "INCRBYFLOAT f 0.2", "INCRBYFLOAT f abc", "INCRBYFLOAT f \"\"", "INCRBYFLOAT f \" 1\"", "INCRBYFLOAT f \"1 \"",
		"INCRBYFLOAT f inf", "INCRBYFLOAT f -inf", "INCRBYFLOAT f nan", "INCRBYFLOAT f 1e400", "INCRBYFLOAT f 1e-400",
		"INCRBYFLOAT f .5", "INCRBYFLOAT f 5.", "INCRBYFLOAT f +1", "INCRBYFLOAT f -0", "INCRBYFLOAT g -0", "INCRBYFLOAT f 1E2",
		"INCRBYFLOAT f 3.0000000000000000001", "INCRBYFLOAT f 1.23456789012345678", "INCRBYFLOAT h 1e17", "INCRBYFLOAT h 0.5",
		"INCRBYFLOAT j 1e308", "INCRBYFLOAT j 1e308", "SET s abc", "INCRBYFLOAT s 1", "SET s 1.5abc", "INCRBYFLOAT s 1",
		"SET t 1 EX 1000", "INCRBYFLOAT t 1.5", "TTL t", "GET t", "INCRBYFLOAT m 0.0000001", "INCRBYFLOAT m -0.0000001",
		"INCRBYFLOAT m 1.1", "INCRBYFLOAT m 2.2", "INCRBYFLOAT m 3.3", "INCRBYFLOAT m -123456.789",
		"INCRBYFLOAT q 1e-20", "INCRBYFLOAT r 7", "INCR r", "INCRBYFLOAT r 0.5", "INCR r",
	}},
	{"incrbyfloat-parsing", []string{
		"SET f 1", "INCRBYFLOAT f 0x10", "INCRBYFLOAT f 0x1p3", "INCRBYFLOAT f 0X1P-2", "INCRBYFLOAT f 1e", "INCRBYFLOAT f e5",
		"INCRBYFLOAT f 1.5e", "INCRBYFLOAT f --1", "INCRBYFLOAT f +-1", "INCRBYFLOAT f 1_000", "INCRBYFLOAT f 0b1",
		"INCRBYFLOAT f Infinity", "INCRBYFLOAT f -INF", "INCRBYFLOAT f NaN", "INCRBYFLOAT f 1e+2", "INCRBYFLOAT f 1e-2",
		"INCRBYFLOAT f .", "INCRBYFLOAT f -.5", "INCRBYFLOAT f 00012", "INCRBYFLOAT f \"1\\x00\"", "INCRBYFLOAT f 1e4932",
		"INCRBYFLOAT f 1e4931", "INCRBYFLOAT f -1e4931", "INCRBYFLOAT f 1e-4940", "INCRBYFLOAT f 1e-4960", "GET f",
		"SET g 1e4931", "INCRBYFLOAT g 1e4931", "INCRBYFLOAT g 9e4931", "SET h 0.1", "INCRBYFLOAT h 100000000000000000000",
		"INCRBYFLOAT h 0.000000000000000001", "INCRBYFLOAT z 123456789.123456789", "INCRBYFLOAT z -123456789.123456789",
		"INCRBYFLOAT y 2.5", "INCRBYFLOAT y 0.25", "INCRBYFLOAT y 1e-17", "INCRBYFLOAT y 5e-18", "INCRBYFLOAT x 0.1",
		"INCRBYFLOAT x 0.1", "INCRBYFLOAT x 0.1", "INCRBYFLOAT x 0.1", "INCRBYFLOAT x 0.1", "INCRBYFLOAT x 0.1",
	}},
	{"append-strlen", []string{
		"APPEND k Hello", "APPEND k \" World\"", "GET k", "STRLEN k", "STRLEN missing", "APPEND k \"\"", "APPEND e \"\"",
		"EXISTS e", "GET e", "SET t x EX 1000", "APPEND t y", "TTL t", "GET t",
	}},
	{"getrange", []string{
		"SET k \"This is a string\"", "GETRANGE k 0 3", "GETRANGE k -3 -1", "GETRANGE k 0 -1", "GETRANGE k 10 100",
		"GETRANGE k 5 3", "GETRANGE k -1 -5", "GETRANGE k -100 5", "GETRANGE k 100 200", "GETRANGE k -100 -50",
		"GETRANGE k 0 0", "GETRANGE missing 0 -1", "GETRANGE k a 1", "GETRANGE k 0 b", "GETRANGE k 1.5 2",
		"GETRANGE k 0 9223372036854775807", "GETRANGE k -9223372036854775808 -1", "SET e \"\"", "GETRANGE e 0 -1", "GETRANGE e 0 0",
		"GETRANGE missing x 1",
	}},
	{"setrange", []string{
		"SET k \"Hello World\"", "SETRANGE k 6 Redis", "GET k", "SETRANGE n 5 x", "GET n", "SETRANGE k 0 \"\"",
		"SETRANGE m 3 \"\"", "EXISTS m", "SETRANGE k -1 x", "SETRANGE k abc x", "SETRANGE k 536870912 x",
		"SETRANGE k 536870911 xx", "SETRANGE q 536870912 \"\"", "SETRANGE k 9223372036854775807 x", "SETRANGE k 20 end", "GET k",
		"SETRANGE k -1 \"\"", "STRLEN k", "SET t abc EX 1000", "SETRANGE t 1 X", "TTL t", "GET t",
	}},
	{"wrong-arity-strings", []string{
		"GET", "GET a b", "SET k", "SETNX k", "SETEX k 10", "MGET", "MSET", "INCR", "INCRBY k", "DECRBY k 1 2",
		"APPEND k", "GETRANGE k 0", "SETRANGE k 0", "GETEX", "GETDEL", "GETSET k", "INCRBYFLOAT k", "STRLEN",
	}},
}

var keyDiffCases = []diffCase{
	{"multiple-databases", []string{
		"SET k db0", "#db 5", "GET k", "SET k db5", "DBSIZE", "#db 0", "GET k", "COPY k k DB 5", "COPY k k DB 5 REPLACE",
		"#db 5", "GET k", "RANDOMKEY", "FLUSHDB", "DBSIZE", "#db 0", "DBSIZE", "COPY k j DB 15", "#db 15", "GET j",
		"RENAME j i", "S KEYS *", "#db 0", "FLUSHALL", "#db 15", "DBSIZE",
	}},
	{"resp3-replies", []string{
		"#proto 3", "RANDOMKEY", "GET missing", "SET k v", "RANDOMKEY", "GET k", "SET k v NX", "SET k v NX GET", "SET n v XX GET", "MGET k missing",
		"GETEX missing", "GETDEL missing", "GETSET missing v", "INCRBYFLOAT f 1.5", "EXISTS k",
		"TYPE k", "SCAN 0 COUNT 1000 MATCH k", "GETRANGE missing 0 1", "FLUSHDB", "RANDOMKEY",
	}},
	{"expired-keys-vanish", []string{
		"SET k v PXAT 1", "DBSIZE", "GET k", "DBSIZE", "SET k v EXAT 1", "EXISTS k", "SET k v PX 1", "SET j v",
		"MSET a 1 b 2", "EXPIREAT a 1", "MGET a b", "DBSIZE", "SET t v PXAT 1", "TTL t", "SET t v PXAT 1", "TYPE t",
		"SET t v PXAT 1", "RENAME t u", "SET t v PXAT 1", "COPY t u", "SET t v PXAT 1", "INCR t", "SET t v PXAT 1", "APPEND t x",
		"GET t", "SET t v PXAT 1", "SET t w XX", "SET t v PXAT 1", "SETNX t w", "GET t",
	}},
	{"binary-and-odd-keys", []string{
		"SET \"\" empty-key", "GET \"\"", "SET \"a\\x00b\" nul", "GET \"a\\x00b\"", "GET a", "SET \"\\r\\n\" crlf",
		"GET \"\\r\\n\"", "SET \"\\xff\\xfe\" high", "S KEYS *", "STRLEN \"\\xff\\xfe\"", "DEL \"\" \"a\\x00b\"", "DBSIZE",
		"SET k \"a\\x00b\\r\\nc\"", "GET k", "APPEND k \"\\x00\"", "GETRANGE k 1 3", "SETRANGE k 1 \"\\x00\\x00\"", "GET k",
	}},
	{"del-exists-touch-unlink", []string{
		"MSET a 1 b 2 c 3", "DEL a b c", "DEL a b c", "MSET a 1 b 2", "DEL a x a", "EXISTS b", "EXISTS b b missing b",
		"TOUCH b missing b", "UNLINK b c", "EXISTS b", "TOUCH", "DEL", "EXISTS",
	}},
	{"type", []string{"SET s v", "TYPE s", "TYPE missing", "TYPE s x"}},
	{"expire-family", []string{
		"EXPIRE missing 100", "SET k v", "EXPIRE k 1000", "TTL k", "PEXPIRE k 2000000", "TTL k", "EXPIREAT k 4102444800",
		"EXPIRETIME k", "PEXPIREAT k 4102444800123", "PEXPIRETIME k", "EXPIRETIME k", "TTL missing", "PTTL missing",
		"EXPIRETIME missing", "PEXPIRETIME missing", "SET p v", "TTL p", "PTTL p", "EXPIRETIME p", "PEXPIRETIME p",
		"EXPIRE k abc", "EXPIRE k 1.5", "EXPIRE k \"\"", "EXPIRE k 9223372036854775807", "EXPIRE k -9223372036854775808",
		"PEXPIRE k 9223372036854775807", "EXPIREAT k 9223372036854775807", "PEXPIREAT k 9223372036854775807", "TTL k",
		"EXPIRE k 9223372036854775", "EXPIRE k 9223372036854776", "TTL k", "EXPIRE k -1", "EXISTS k",
		"SET k v", "EXPIREAT k 1", "GET k", "SET k v", "PEXPIRE k 0", "EXISTS k", "SET k v", "EXPIRE k 0", "EXISTS k",
		"SET k v", "PEXPIREAT k 0", "EXISTS k",
	}},
	{"expire-options", []string{
		"SET k v", "EXPIRE k 100 XX", "TTL k", "EXPIRE k 100 NX", "TTL k", "EXPIRE k 200 NX", "TTL k", "EXPIRE k 200 XX", "TTL k",
		"EXPIRE k 100 GT", "TTL k", "EXPIRE k 300 GT", "TTL k", "EXPIRE k 400 LT", "TTL k", "EXPIRE k 150 LT", "TTL k",
		"PERSIST k", "EXPIRE k 100 GT", "TTL k", "EXPIRE k 100 LT", "TTL k", "PERSIST k", "EXPIRE k 100 lt", "TTL k",
		"EXPIRE k 100 NX XX", "EXPIRE k 100 NX GT", "EXPIRE k 100 GT LT", "EXPIRE k 50 XX GT", "TTL k", "EXPIRE k 500 XX GT", "TTL k", "EXPIRE k 100 FOO",
		"EXPIRE k abc FOO", "EXPIRE k 100 nx NX", "EXPIRE missing 100 XX", "EXPIRE k -1 GT", "EXISTS k", "SET k v",
		"EXPIRE k -1 NX", "EXISTS k", "SET k v EX 100", "EXPIRE k -1 LT", "EXISTS k", "SET k v EX 100", "EXPIRE k -1 XX",
		"EXISTS k", "SET k v EX 100", "PEXPIRE k 1000000 GT", "TTL k", "EXPIREAT k 4102444800 LT", "TTL k",
	}},
	{"persist", []string{
		"PERSIST missing", "SET k v", "PERSIST k", "EXPIRE k 100", "PERSIST k", "TTL k", "PERSIST k",
	}},
	{"rename", []string{
		"RENAME missing x", "SET a 1", "RENAME a b", "GET a", "GET b", "SET c 3", "RENAME b c", "GET c", "RENAME c c",
		"RENAME missing missing", "SET t v EX 1000", "RENAME t u", "TTL u", "RENAMENX missing x", "SET x 1", "SET y 2",
		"RENAMENX x y", "RENAMENX x z", "GET z", "RENAMENX z z", "RENAMENX missing missing", "RENAME", "RENAME a",
	}},
	{"copy", []string{
		"COPY missing x", "SET a 1", "COPY a b", "GET b", "COPY a b", "COPY a b REPLACE", "SET a 2", "COPY a b replace",
		"GET b", "COPY a a", "COPY a a REPLACE", "COPY a a DB 0", "COPY a a DB 1", "COPY a b DB", "COPY a b DB x",
		"COPY a b DB 16", "COPY a b DB -1", "COPY a b DB 99999999999", "COPY a b FOO", "COPY a b DB 3 REPLACE",
		"COPY a b DB 3", "SET t v EX 1000", "COPY t t2", "TTL t2", "COPY missing missing",
	}},
	{"keys", []string{
		"MSET hello 1 hallo 2 hxllo 3 hllo 4 heeeello 5 \"h*llo\" 6 a 7 \"a[b\" 8 \"\" 9",
		"S KEYS *", "S KEYS h?llo", "S KEYS h*llo", "S KEYS h[ae]llo", "S KEYS h[^e]llo", "S KEYS h[a-b]llo",
		"S KEYS h\\*llo", "S KEYS \"\"", "S KEYS nomatch", "S KEYS a[", "S KEYS a[b", "S KEYS \"a\\\\[b\"", "S KEYS *llo*",
		"S KEYS h[x-a]llo", "S KEYS [h]*", "S KEYS ?", "S KEYS ??",
	}},
	{"scan", []string{
		"MSET a 1 b 2 c 3 user:1 x user:2 y", "S SCAN 0 COUNT 1000", "S SCAN 0 MATCH user:* COUNT 1000",
		"S SCAN 0 COUNT 1000 TYPE string", "S SCAN 0 COUNT 1000 TYPE STRING", "S SCAN 0 COUNT 1000 TYPE list",
		"S SCAN 0 COUNT 1000 MATCH * TYPE string", "SCAN abc", "SCAN -1x", "SCAN \" 1\"", "SCAN 0 COUNT 0", "SCAN 0 COUNT -1",
		"SCAN 0 COUNT abc", "SCAN 0 MATCH", "SCAN 0 FOO bar", "SCAN 0 COUNT", "SCAN 18446744073709551616", "SCAN 1.5",
		"SCAN 0 TYPE", "SCAN x COUNT 0",
	}},
	{"randomkey-dbsize-flush", []string{
		"RANDOMKEY", "DBSIZE", "SET only v", "RANDOMKEY", "DBSIZE", "SET t v EX 1000", "DBSIZE", "FLUSHDB", "DBSIZE",
		"SET k v", "FLUSHDB ASYNC", "DBSIZE", "SET k v", "FLUSHDB sync", "DBSIZE", "FLUSHDB foo", "FLUSHDB sync async",
		"SET k v", "FLUSHALL", "DBSIZE", "FLUSHALL ASYNC", "FLUSHALL SYNC", "FLUSHALL foo", "FLUSHALL a b", "RANDOMKEY x", "DBSIZE x",
	}},
}

func TestStringCommandsMatchRedis(t *testing.T) { runDiff(t, stringDiffCases) }
func TestKeyCommandsMatchRedis(t *testing.T)    { runDiff(t, keyDiffCases) }
