package server

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The COMMAND tests compare what the command spec prints with what
// redis-server 7.0 prints, byte for byte in RESP2 and RESP3. Redis lists
// commands and subcommands in its hash tables' order, which changes from
// run to run, and has subcommands loopkv does not: where a reply lists
// them, Redis's list is cut to loopkv's commands and both are put in name
// order before the comparison; every other byte must be equal.

// notInRedis70 are loopkv's rows that redis-server 7.0.15 does not have:
// both are Redis 7.2 subcommands, written as 7.2's COMMAND DOCS gives them.
var notInRedis70 = map[string]bool{"client|setinfo": true, "client|no-touch": true}

// rnode is a parsed RESP2/RESP3 reply that keeps its own bytes.
type rnode struct {
	raw  []byte
	typ  byte
	kids []rnode // the elements of an aggregate; a map's keys and values alternate
}

// parseRNode parses one reply at the front of b.
func parseRNode(b []byte) (rnode, []byte) {
	i := bytes.Index(b, []byte("\r\n"))
	nd := rnode{typ: b[0]}
	n, _ := strconv.Atoi(string(b[1:i]))
	rest := b[i+2:]
	switch nd.typ {
	case '$', '=', '!':
		if n >= 0 {
			rest = rest[n+2:]
		}
	case '*', '~', '>', '%':
		if nd.typ == '%' {
			n *= 2
		}
		for j := 0; j < n; j++ {
			var k rnode
			k, rest = parseRNode(rest)
			nd.kids = append(nd.kids, k)
		}
	}
	nd.raw = b[:len(b)-len(rest)]
	return nd, rest
}

// str is a bulk string's content.
func (nd rnode) str() string {
	i := bytes.Index(nd.raw, []byte("\r\n"))
	return string(nd.raw[i+2 : len(nd.raw)-2])
}

// commandTestPair is a reference redis-server and our server, each with
// one connection, in the same protocol.
type commandTestPair struct {
	ref  *redisRef
	ours *ourServer
}

func newCommandTestPair(t *testing.T) *commandTestPair {
	return &commandTestPair{ref: startDiffRedis(t), ours: newOurServer()}
}

func (p *commandTestPair) proto(t *testing.T, v int) {
	p.ref.do(t, []string{"HELLO", strconv.Itoa(v)})
	p.ours.cl.proto = v
}

// do runs args on both and returns our reply and Redis's.
func (p *commandTestPair) do(t *testing.T, args ...string) (got, want []byte) {
	t.Helper()
	return p.ours.do(t, args), p.ref.do(t, args)
}

// ourNames is the set of every row's full name.
func ourNames() map[string]bool {
	names := map[string]bool{}
	for _, cmd := range commands().rows {
		names[cmd.full] = true
	}
	return names
}

// subsCut returns the elements of Redis's subcommand list whose names
// (name(kid)) loopkv has, in name order; step is 2 for a map.
func subsCut(kids []rnode, step int, name func(rnode) string) [][]byte {
	ours := ourNames()
	type entry struct {
		name string
		raw  []byte
	}
	var es []entry
	for i := 0; i+step <= len(kids); i += step {
		n := name(kids[i])
		if !ours[n] {
			continue
		}
		var raw []byte
		for _, k := range kids[i : i+step] {
			raw = append(raw, k.raw...)
		}
		es = append(es, entry{n, raw})
	}
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	out := make([][]byte, len(es))
	for i, e := range es {
		out[i] = e.raw
	}
	return out
}

// flatRaws returns the raw bytes of kids, step at a time, but for the
// rows Redis 7.0 does not have.
func flatRaws(kids []rnode, step int, name func(rnode) string) [][]byte {
	var out [][]byte
	for i := 0; i+step <= len(kids); i += step {
		if notInRedis70[name(kids[i])] {
			continue
		}
		var raw []byte
		for _, k := range kids[i : i+step] {
			raw = append(raw, k.raw...)
		}
		out = append(out, raw)
	}
	return out
}

// eachRowOnBoth runs COMMAND sub <name> on both servers for every row
// Redis 7.0 has, in RESP2 and RESP3. A row without subcommands must get
// the same bytes; a container's replies go to cmp, parsed.
func eachRowOnBoth(t *testing.T, sub string, cmp func(proto int, cmd *command, g, w rnode)) {
	p := newCommandTestPair(t)
	for _, proto := range []int{2, 3} {
		p.proto(t, proto)
		for _, cmd := range commands().rows {
			if notInRedis70[cmd.full] {
				continue
			}
			got, want := p.do(t, "COMMAND", sub, cmd.full)
			if len(cmd.subs) == 0 {
				if !bytes.Equal(got, want) {
					t.Errorf("RESP%d COMMAND %s %s:\n got  %q\n want %q", proto, sub, cmd.full, got, want)
				}
				continue
			}
			g, _ := parseRNode(got)
			w, _ := parseRNode(want)
			cmp(proto, cmd, g, w)
		}
	}
}

func TestCommandInfoMatchesRedis(t *testing.T) {
	eachRowOnBoth(t, "INFO", func(proto int, cmd *command, g, w rnode) {
		ge, we := g.kids[0].kids, w.kids[0].kids
		for i := 0; i < 9; i++ {
			if !bytes.Equal(ge[i].raw, we[i].raw) {
				t.Errorf("RESP%d COMMAND INFO %s field %d:\n got  %q\n want %q", proto, cmd.full, i, ge[i].raw, we[i].raw)
			}
		}
		name := func(nd rnode) string { return nd.kids[0].str() }
		if gs, ws := flatRaws(ge[9].kids, 1, name), subsCut(we[9].kids, 1, name); !slices.EqualFunc(gs, ws, bytes.Equal) {
			t.Errorf("RESP%d COMMAND INFO %s subcommands:\n got  %q\n want %q", proto, cmd.full, gs, ws)
		}
	})
}

func TestCommandDocsMatchRedis(t *testing.T) {
	eachRowOnBoth(t, "DOCS", func(proto int, cmd *command, g, w rnode) {
		gd, wd := g.kids[1].kids, w.kids[1].kids // the docs map as key, value, ...
		if len(gd) != len(wd) {
			t.Errorf("RESP%d COMMAND DOCS %s: %d fields, want %d", proto, cmd.full, len(gd), len(wd))
			return
		}
		for i := 0; i < len(gd); i += 2 {
			if gd[i].str() != "subcommands" {
				if !bytes.Equal(gd[i].raw, wd[i].raw) || !bytes.Equal(gd[i+1].raw, wd[i+1].raw) {
					t.Errorf("RESP%d COMMAND DOCS %s field %s:\n got  %q\n want %q", proto, cmd.full, gd[i].str(), gd[i+1].raw, wd[i+1].raw)
				}
				continue
			}
			name := func(nd rnode) string { return nd.str() }
			if gs, ws := flatRaws(gd[i+1].kids, 2, name), subsCut(wd[i+1].kids, 2, name); !slices.EqualFunc(gs, ws, bytes.Equal) {
				t.Errorf("RESP%d COMMAND DOCS %s subcommands:\n got  %q\n want %q", proto, cmd.full, gs, ws)
			}
		}
	})
}

// commandDiffCases are compared byte for byte, in RESP2 and then RESP3.
var commandDiffCases = []string{
	"COMMAND GETKEYS GET k",
	"COMMAND GETKEYS get k",
	"COMMAND GETKEYS MGET a b c",
	"COMMAND GETKEYS MSET a 1 b 2",
	"COMMAND GETKEYS MSET a 1 b",
	"COMMAND GETKEYS MSETNX a 1 b 2 c 3",
	"COMMAND GETKEYS DEL a b c",
	"COMMAND GETKEYS RENAME a b",
	"COMMAND GETKEYS COPY a b DB 1 REPLACE",
	"COMMAND GETKEYS SET k v",
	"COMMAND GETKEYS SET k v GET",
	"COMMAND GETKEYS GETEX k PERSIST",
	"COMMAND GETKEYS EXPIRE k 10 NX",
	"COMMAND GETKEYS NOSUCH k",
	"COMMAND GETKEYS PING",
	"COMMAND GETKEYS PING a b c",
	"COMMAND GETKEYS KEYS *",
	"COMMAND GETKEYS GET",
	"COMMAND GETKEYS GET a b",
	"COMMAND GETKEYS CONFIG GET maxmemory",
	"COMMAND GETKEYS CONFIG NOSUCH x",
	"COMMAND GETKEYS CLIENT ID",
	"COMMAND GETKEYS",
	"COMMAND GETKEYS GET",
	"COMMAND GETKEYSANDFLAGS GET k",
	"COMMAND GETKEYSANDFLAGS SET k v",
	"COMMAND GETKEYSANDFLAGS SET k v get",
	"COMMAND GETKEYSANDFLAGS SET k v NX GET EX 10",
	"COMMAND GETKEYSANDFLAGS SET k v GETX",
	"COMMAND GETKEYSANDFLAGS MSET a 1 b 2",
	"COMMAND GETKEYSANDFLAGS RENAME a b",
	"COMMAND GETKEYSANDFLAGS RENAMENX a b",
	"COMMAND GETKEYSANDFLAGS COPY a b",
	"COMMAND GETKEYSANDFLAGS DEL a b",
	"COMMAND GETKEYSANDFLAGS INCR a",
	"COMMAND GETKEYSANDFLAGS GETDEL a",
	"COMMAND GETKEYSANDFLAGS EXISTS a b",
	"COMMAND GETKEYSANDFLAGS TOUCH a",
	"COMMAND GETKEYSANDFLAGS APPEND a b",
	"COMMAND GETKEYSANDFLAGS SETRANGE a 0 b",
	"COMMAND GETKEYSANDFLAGS PING",
	"COMMAND GETKEYSANDFLAGS NOSUCH",
	"COMMAND INFO nosuch get NOSUCH|x config|nosuch CONFIG|GET",
	"COMMAND INFO a|b|c",
	"COMMAND DOCS nosuch GET",
	"COMMAND DOCS get GET config|get",
	"COMMAND INFO get GET Config|Get",
	"COMMAND GETKEYSANDFLAGS HSET h f v",
	"COMMAND GETKEYSANDFLAGS SMOVE a b m",
	"COMMAND GETKEYSANDFLAGS SINTERCARD 2 a b LIMIT 1",
	"COMMAND GETKEYSANDFLAGS SINTERCARD 3 a b",
	"COMMAND GETKEYSANDFLAGS SINTERSTORE d a b",
	"COMMAND DOCS",
	"COMMAND COUNTX",
	"COMMAND COUNT x",
	"COMMAND LIST FILTERBY",
	"COMMAND LIST FILTERBY ACLCAT",
	"COMMAND LIST FILTERBY FOO x",
	"COMMAND LIST FILTERBY ACLCAT read extra",
	"COMMAND LIST x",
	"COMMAND LIST FILTERBY MODULE nosuch",
	"COMMAND LIST FILTERBY ACLCAT nosuch",
	"COMMAND LIST FILTERBY ACLCAT @read",
	"COMMAND HELP",
	"COMMAND HELP x",
	"COMMAND NOSUCH",
	"command nosuch",
	"CONFIG",
	"CONFIG NOSUCH",
	"config nosuch x",
	"CONFIG GET",
	"CONFIG HELP",
	"CONFIG HELP x",
	"CONFIG SET a",
	"CLIENT",
	"CLIENT NOSUCH",
	"CLIENT ID x",
	"CLIENT GETNAME",
	"ACL",
	"ACL NOSUCH",
	"ACL WHOAMI x",
	"ACL DRYRUN default config get x",
	"ACL DRYRUN default config nosuch",
	"ACL DRYRUN default config",
	"ACL DRYRUN default config get",
}

func TestCommandRepliesMatchRedis(t *testing.T) {
	p := newCommandTestPair(t)
	skip := map[string]bool{"COMMAND DOCS": true} // compared below, as a map in any order
	for _, proto := range []int{2, 3} {
		p.proto(t, proto)
		for i, line := range commandDiffCases {
			if skip[line] {
				continue
			}
			got, want := p.do(t, diffSplit(t, line)...)
			if !bytes.Equal(got, want) {
				t.Errorf("RESP%d #%d %s:\n got  %q\n want %q", proto, i, line, got, want)
			}
		}
	}
}

// replyNames parses an array of bulk strings.
func replyNames(t *testing.T, raw []byte) []string {
	t.Helper()
	nd, _ := parseRNode(raw)
	if nd.typ != '*' {
		t.Fatalf("not an array: %q", raw)
	}
	var out []string
	for _, k := range nd.kids {
		out = append(out, k.str())
	}
	return out
}

// sortedOurs returns names cut to loopkv's commands, sorted.
func sortedOurs(names []string) []string {
	ours := ourNames()
	var out []string
	for _, n := range names {
		if ours[n] && !notInRedis70[n] {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// Every category lists the same commands on both servers, cut to ours:
// COMMAND LIST FILTERBY ACLCAT and ACL CAT.
func TestCommandListByCategoryMatchesRedis(t *testing.T) {
	p := newCommandTestPair(t)
	for _, cat := range aclCategoryNames {
		for _, q := range [][]string{{"COMMAND", "LIST", "FILTERBY", "ACLCAT", cat}, {"ACL", "CAT", cat}} {
			got, want := p.do(t, q...)
			g, w := replyNames(t, got), sortedOurs(replyNames(t, want))
			if !slices.IsSorted(g) {
				t.Errorf("%v: not in name order: %v", q, g)
			}
			if g = sortedOurs(g); !slices.Equal(g, w) {
				t.Errorf("%v:\n got  %v\n want %v", q, g, w)
			}
		}
	}
	for _, q := range [][]string{{"COMMAND", "LIST"}, {"COMMAND", "LIST", "FILTERBY", "PATTERN", "c*"},
		{"COMMAND", "LIST", "FILTERBY", "PATTERN", "CONFIG|*"}, {"COMMAND", "LIST", "FILTERBY", "PATTERN", "*e?"},
		{"COMMAND", "LIST", "FILTERBY", "PATTERN", "[a-d]*"}} {
		got, want := p.do(t, q...)
		if g, w := sortedOurs(replyNames(t, got)), sortedOurs(replyNames(t, want)); !slices.Equal(g, w) {
			t.Errorf("%v:\n got  %v\n want %v", q, g, w)
		}
	}
	got, want := p.do(t, "ACL", "CAT")
	if !bytes.Equal(got, want) {
		t.Errorf("ACL CAT:\n got  %q\n want %q", got, want)
	}
}

// COMMAND COUNT is the number of top-level rows; COMMAND and COMMAND INFO
// list each once, COMMAND DOCS documents each once, COMMAND LIST names
// every row.
func TestCommandCountsEveryRow(t *testing.T) {
	o := newOurServer()
	top := commands().top
	if got, want := string(o.do(t, []string{"COMMAND", "COUNT"})), ":"+strconv.Itoa(len(top))+"\r\n"; got != want {
		t.Errorf("COMMAND COUNT = %q, want %q", got, want)
	}
	for _, q := range [][]string{{"COMMAND"}, {"COMMAND", "INFO"}} {
		nd, _ := parseRNode(o.do(t, q))
		if len(nd.kids) != len(top) {
			t.Errorf("%v: %d entries, want %d", q, len(nd.kids), len(top))
		}
		for i, k := range nd.kids {
			if k.kids[0].str() != top[i].full {
				t.Errorf("%v #%d: %s, want %s", q, i, k.kids[0].str(), top[i].full)
			}
		}
	}
	nd, _ := parseRNode(o.do(t, []string{"COMMAND", "DOCS"}))
	if len(nd.kids) != 2*len(top) {
		t.Errorf("COMMAND DOCS: %d entries, want %d", len(nd.kids)/2, len(top))
	}
	names := replyNames(t, o.do(t, []string{"COMMAND", "LIST"}))
	if len(names) != len(commands().rows) {
		t.Errorf("COMMAND LIST: %d names, want %d", len(names), len(commands().rows))
	}
	// COMMAND DOCS of everything is the docs of each, in name order.
	all := o.do(t, []string{"COMMAND", "DOCS"})
	if i := bytes.Index(all, []byte("\r\n")); !bytes.Equal(all[i+2:], bytesAfterHeaders(t, o, top)) {
		t.Errorf("COMMAND DOCS differs from the docs of each command")
	}
}

// bytesAfterHeaders is the concatenated entries of COMMAND DOCS name for
// each of cmds, without each reply's map header.
func bytesAfterHeaders(t *testing.T, o *ourServer, cmds []*command) []byte {
	var b []byte
	for _, cmd := range cmds {
		r := o.do(t, []string{"COMMAND", "DOCS", cmd.full})
		b = append(b, r[bytes.Index(r, []byte("\r\n"))+2:]...)
	}
	return b
}

// sval is a simple string's, integer's or bulk string's text.
func (nd rnode) sval() string {
	if nd.typ == '$' {
		return nd.str()
	}
	return string(nd.raw[1 : len(nd.raw)-2])
}

func (nd rnode) ival() int {
	n, _ := strconv.Atoi(nd.sval())
	return n
}

// field returns the value of key in the map nd (RESP3).
func (nd rnode) field(key string) rnode {
	for i := 0; i+1 < len(nd.kids); i += 2 {
		if nd.kids[i].sval() == key {
			return nd.kids[i+1]
		}
	}
	return rnode{}
}

// redisRow is a command row read back from redis-server's COMMAND INFO
// entry (RESP3): name, arity, flags and key specs; the COMMAND DOCS parts
// are left out.
func redisRow(t *testing.T, e rnode) (row command, legacy [3]int, movable bool) {
	t.Helper()
	row.Name = e.kids[0].sval()
	row.Arity = e.kids[1].ival()
	for _, f := range e.kids[2].kids {
		if i := slices.Index(cmdFlagNames[:], f.sval()); i >= 0 {
			row.Flags |= 1 << i
		}
	}
	movable = row.Flags&flagMovableKeys != 0
	row.Flags &^= flagMovableKeys
	legacy = [3]int{e.kids[3].ival(), e.kids[4].ival(), e.kids[5].ival()}
	for _, ks := range e.kids[8].kids {
		var s keySpec
		for _, f := range ks.field("flags").kids {
			i := slices.Index(keyFlagNames[:], f.sval())
			if i < 0 {
				t.Fatalf("%s: key flag %q", row.Name, f.sval())
			}
			s.Flags |= 1 << i
		}
		bs, fk := ks.field("begin_search"), ks.field("find_keys")
		switch bsp := bs.field("spec"); bs.field("type").sval() {
		case "index":
			s.BS = bsIndex(bsp.field("index").ival())
		case "keyword":
			s.BS = bsKeyword(bsp.field("keyword").sval(), bsp.field("startfrom").ival())
		}
		switch fsp := fk.field("spec"); fk.field("type").sval() {
		case "range":
			s.FK = fkRange(fsp.field("lastkey").ival(), fsp.field("keystep").ival(), fsp.field("limit").ival())
		case "keynum":
			s.FK = fkKeyNum(fsp.field("keynumidx").ival(), fsp.field("firstkey").ival(), fsp.field("keystep").ival())
		}
		row.Keys = append(row.Keys, s)
	}
	return row, legacy, movable
}

// redisRows reads every command and subcommand of redis-server's COMMAND.
func redisRows(t *testing.T, ref *redisRef) map[string]rnode {
	ref.do(t, []string{"HELLO", "3"})
	all, _ := parseRNode(ref.do(t, []string{"COMMAND"}))
	out := map[string]rnode{}
	var walk func(e rnode)
	walk = func(e rnode) {
		out[e.kids[0].sval()] = e
		for _, sub := range e.kids[9].kids {
			walk(sub)
		}
	}
	for _, e := range all.kids {
		walk(e)
	}
	return out
}

// Every command of redis-server 7.0, read back into key specs, gives the
// first, last and step and the movablekeys flag Redis prints: the legacy
// range is derived as Redis derives it, for all of Redis's key spec
// shapes, not only those of loopkv's commands.
func TestLegacyKeyRangeMatchesRedisForEveryRedisCommand(t *testing.T) {
	ref := startDiffRedis(t)
	rows := redisRows(t, ref)
	if len(rows) < 200 {
		t.Fatalf("redis-server lists %d commands", len(rows))
	}
	for name, e := range rows {
		row, legacy, movable := redisRow(t, e)
		if got, mov := legacyKeyRange(row.Keys); got != legacy || mov != movable {
			t.Errorf("%s: legacy range %v movable %v, redis %v %v", name, got, mov, legacy, movable)
		}
	}
}

// keyCallsAcrossRedis are calls of Redis commands whose key specs use
// every begin_search and find_keys shape (index, keyword from the start
// and from the end, range with limits, keynum), including calls that do
// not fit their spec.
var keyCallsAcrossRedis = []string{
	"ZUNION 2 a b", "ZUNION 2 a b WEIGHTS 1 2", "ZUNION 0 a", "ZUNION x a", "ZUNION -1 a", "ZUNION 3 a b",
	"ZUNION 9999999999999999999999 a", "ZUNIONSTORE d 2 a b", "ZINTERCARD 2 a b LIMIT 1", "ZDIFF 1 a",
	"EVAL s 2 k1 k2 a1", "EVAL s 0", "EVAL s 1", "EVALSHA s 1 k", "EVAL_RO s 1 k a", "FCALL f 1 k a",
	"FCALL_RO f 2 a b", "XREAD STREAMS a b 0 0", "XREAD COUNT 2 BLOCK 0 STREAMS a b 0 0",
	"XREAD STREAMS a 0 extra", "XREAD COUNT 1", "XREAD streams a 0", "XREADGROUP GROUP g c STREAMS a b 0 0",
	"XREADGROUP GROUP g c COUNT 1 STREAMS a 0", "LMPOP 2 a b LEFT", "LMPOP 1 a RIGHT COUNT 2",
	"BLMPOP 0 2 a b LEFT COUNT 1", "SINTERCARD 2 a b", "SINTERCARD 2 a b LIMIT 3", "ZMPOP 1 a MIN",
	"BZMPOP 0 1 a MAX", "GEORADIUS k 0 0 1 m STORE d", "GEORADIUS k 0 0 1 m STOREDIST d",
	"GEORADIUSBYMEMBER k m 1 km STORE d", "GEOSEARCHSTORE d s FROMMEMBER m BYRADIUS 1 m", "SMOVE a b m",
	"LMOVE a b LEFT RIGHT", "BLMOVE a b LEFT RIGHT 0", "BLPOP a b 0", "BRPOP a 0", "BRPOPLPUSH a b 0",
	"MSETNX a 1 b 2", "MSET a 1 b 2 c", "PFCOUNT a b", "PFMERGE d a b", "OBJECT ENCODING k", "OBJECT FREQ k",
	"MEMORY USAGE k SAMPLES 5", "XINFO STREAM k FULL", "XGROUP CREATE k g $", "XGROUP DESTROY k g",
	"BITOP AND d a b", "SPUBLISH ch m", "PUBLISH ch m", "SSUBSCRIBE a b", "SUNSUBSCRIBE a", "WATCH a b",
	"DEL a", "EXISTS a b c", "LCS a b", "GETEX a", "RENAME a b", "COPY a b DB 1", "BITFIELD_RO k GET u8 0",
	"ZRANGESTORE d s 0 1", "SUNIONSTORE d a b", "SDIFFSTORE d a", "XAUTOCLAIM k g c 0 0", "XCLAIM k g c 0 1-1",
	"GETDEL a", "HSET h f v", "HGETALL h", "HDEL h f g", "SADD s a", "SREM s a", "SPOP s", "RPOPLPUSH a b",
	"LPUSH l a", "ZADD z 1 a", "ZREM z a", "XADD s * f v", "XDEL s 1-1", "XTRIM s MAXLEN 1", "SETBIT k 1 1",
	"PFADD h a", "RESTORE k 0 x", "DUMP k", "MIGRATE h 1 k 0 5",
}

// commandKeys, through COMMAND GETKEYSANDFLAGS' reply, finds what
// redis-server 7.0 finds for calls of Redis's own commands, with the key
// specs read back from Redis. Commands whose keys Redis finds by their own
// function instead of the specs (a spec incomplete, with variable flags,
// or of unknown shape) are left out.
func TestKeySpecsExtractKeysAsRedis(t *testing.T) {
	ref := startDiffRedis(t)
	rows := redisRows(t, ref)
	ref.do(t, []string{"HELLO", "2"})
	o := newOurServer()
	tested := 0
	for _, line := range keyCallsAcrossRedis {
		args := diffSplit(t, line)
		name := strings.ToLower(args[0])
		e, ok := rows[name]
		if !ok {
			t.Fatalf("%s: no such command in redis", line)
		}
		if len(e.kids[9].kids) > 0 {
			e = rows[name+"|"+strings.ToLower(args[1])]
		}
		row, _, _ := redisRow(t, e)
		byProc := false
		for _, s := range row.Keys {
			byProc = byProc || s.Flags&(keyIncomplete|keyVariableFlags) != 0 || s.BS.Kind == bsUnknown || s.FK.Kind == fkUnknown
		}
		if byProc {
			continue
		}
		tested++
		want := ref.do(t, append([]string{"COMMAND", "GETKEYSANDFLAGS"}, args...))
		b := make([][]byte, len(args))
		for i := range args {
			b[i] = []byte(args[i])
		}
		c := &cmdCtx{srv: o.s, cl: o.cl}
		keysReply(c, &row, b, true)
		if !bytes.Equal(c.out, want) {
			t.Errorf("%s:\n got  %q\n want %q", line, c.out, want)
		}
	}
	t.Logf("%d calls compared", tested)
	if tested < 60 {
		t.Errorf("only %d calls compared", tested)
	}
}

// The key extractor does not allocate when the caller's buffer holds the
// keys, whatever the spec's shape.
func TestCommandKeysAllocatesNothing(t *testing.T) {
	row := command{Name: "x", Arity: -2, Keys: []keySpec{
		{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)},
		{Flags: keyRW | keyUpdate, BS: bsKeyword("STREAMS", 1), FK: fkRange(-1, 1, 2)},
		{Flags: keyOW | keyUpdate, BS: bsIndex(2), FK: fkKeyNum(0, 1, 1)},
	}}
	args := [][]byte{[]byte("x"), []byte("k"), []byte("2"), []byte("a"), []byte("b"), []byte("STREAMS"), []byte("s1"), []byte("s2"), []byte("0"), []byte("0")}
	var buf [8]keyRef
	keys, ok := commandKeys(&row, args, buf[:0], 0)
	want := []keyRef{{1, keyRO | keyAccess}, {6, keyRW | keyUpdate}, {7, keyRW | keyUpdate}, {3, keyOW | keyUpdate}, {4, keyOW | keyUpdate}}
	if !ok || !slices.Equal(keys, want) {
		t.Fatalf("keys %v %v, want %v", keys, ok, want)
	}
	if n := testing.AllocsPerRun(100, func() { commandKeys(&row, args, buf[:0], 0) }); n != 0 {
		t.Errorf("%v allocs, want 0", n)
	}
}

// TestLastResolvedRowMatchesAFullLookup: in one batch, a repeated name
// answers from the loop's remembered row, and a different case, a wrong
// arity, a container and an unknown name after it answer as a full lookup
// does (each command alone in its own batch on a fresh context).
func TestLastResolvedRowMatchesAFullLookup(t *testing.T) {
	cmds := [][]string{
		{"SET", "k", "v"}, {"SET", "k"}, {"SET", "k", "v", "EX"}, {"set", "k", "w"},
		{"GET", "k"}, {"GET"}, {"GET", "k", "x"}, {"CONFIG", "GET", "maxmemory"}, {"CONFIG"},
		{"CONFIG", "GET"}, {"CONFIGX"}, {"SETX", "k"}, {"SE", "k"}, {"SET", "k", "z"}, {"GET", "k"},
	}
	var in []byte
	for _, c := range cmds {
		in = append(in, diffEncode(c)...)
	}
	s1, cl1, scratch := newAllocServer(t, nil)
	_, batch, _ := s1.execute(cl1, in, nil, allocNow, scratch)
	s2, cl2, scratch2 := newAllocServer(t, nil)
	var alone []byte
	for _, c := range cmds {
		cl2.ctx = nil // a fresh context: nothing remembered
		_, alone, _ = s2.execute(cl2, diffEncode(c), alone, allocNow, scratch2)
	}
	if string(batch) != string(alone) {
		t.Fatalf("one batch:\n%q\none by one:\n%q", batch, alone)
	}
	for _, want := range []string{"-ERR wrong number of arguments for 'set' command", "-ERR syntax error",
		"-ERR unknown command 'SETX'", "$1\r\nz\r\n"} {
		if !strings.Contains(string(batch), want) {
			t.Errorf("replies lack %q:\n%q", want, batch)
		}
	}
}
