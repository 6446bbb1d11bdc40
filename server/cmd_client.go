package server

import (
	"bytes"
	"strconv"
	"strings"
)

// CLIENT and its subcommands (connection family; the row is in cmd_conn.go).

// clientHelp is CLIENT HELP's text: the subcommands loopkv has.
var clientHelp = []string{
	"CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"ID",
	"    Return the ID of the current connection.",
	"SETNAME <name>",
	"    Assign the name <name> to the current connection.",
	"GETNAME",
	"    Return the name of the current connection.",
	"SETINFO <option> <value>",
	"    Set client meta attr LIB-NAME or LIB-VER.",
	"INFO",
	"    Return information about the current client connection.",
	"LIST [options ...]",
	"    Return information about client connections. Options: TYPE, ID.",
	"KILL <option> <value> [<option> <value> [...]]",
	"    Kill connections by ip:port, or by ID, ADDR, LADDR, USER, TYPE, SKIPME.",
	"NO-EVICT (ON|OFF)",
	"    Accepted for compatibility; no effect.",
	"NO-TOUCH (ON|OFF)",
	"    Accepted for compatibility; no effect.",
	"PAUSE <timeout> [WRITE|ALL]",
	"    Suspend all, or just write, clients for <timeout> milliseconds.",
	"UNPAUSE",
	"    Stop the current client pause, resuming traffic.",
	"REPLY (ON|OFF|SKIP)",
	"    Control the replies sent to the current connection.",
	"HELP",
	"    Prints this help.",
}

func cmdClientHelp(c *cmdCtx) { helpReply(c, clientHelp) }

// onOffArg is a oneof argument of the tokens ON and OFF.
func onOffArg(name string) cmdArg {
	return cmdArg{Name: name, Type: argOneOf, Args: []cmdArg{
		{Name: "on", Type: argPureToken, Token: "ON"},
		{Name: "off", Type: argPureToken, Token: "OFF"},
	}}
}

func cmdClientID(c *cmdCtx) { c.integer(int64(c.cl.id)) }

func cmdClientSetName(c *cmdCtx) {
	if !validClientName(c.args[2]) {
		c.errReply(errClientName)
		return
	}
	setName(c.cl, string(c.args[2]))
	c.ok()
}

func cmdClientGetName(c *cmdCtx) {
	if c.cl.name == "" {
		c.null()
		return
	}
	c.bulkString(c.cl.name)
}

// cmdClientSetInfo is CLIENT SETINFO LIB-NAME|LIB-VER value (Redis 7.2).
func cmdClientSetInfo(c *cmdCtx) {
	attr, val := c.args[2], c.args[3]
	if !validClientName(val) {
		c.errReply("ERR " + strings.ToUpper(string(attr)) + " cannot contain spaces, newlines or special characters.")
		return
	}
	v := string(val)
	switch {
	case bytes.EqualFold(attr, []byte("lib-name")):
		if cs := c.cl.conn; cs != nil {
			cs.shared.setTags(func(t *clientTags) { t.libName = v })
		}
	case bytes.EqualFold(attr, []byte("lib-ver")):
		if cs := c.cl.conn; cs != nil {
			cs.shared.setTags(func(t *clientTags) { t.libVer = v })
		}
	default:
		c.errReply("ERR Unrecognized option '" + clip(attr) + "'")
		return
	}
	c.ok()
}

func cmdClientInfo(c *cmdCtx) {
	if c.cl.conn == nil {
		c.verbatim(nil)
		return
	}
	publishSelf(c)
	c.verbatim(appendClientLine(nil, c.cl.conn, c.now))
}

// publishSelf makes the calling client's own line show the running
// command, as Redis's does.
func publishSelf(c *cmdCtx) {
	cmd := c.cl.lastCmd
	if c.txn != nil {
		cmd = c.txn.execCmd // inside EXEC, Redis's line says cmd=exec
	}
	if cs := c.cl.conn; cs != nil && cs.shared.lastCmd.Load() != cmd {
		cs.shared.lastCmd.Store(cmd)
	}
}

// cmdClientList is CLIENT LIST [TYPE normal|master|replica|pubsub] [ID id ...].
func cmdClientList(c *cmdCtx) {
	var ids map[uint64]bool
	typ := "normal"
	for i := 2; i < len(c.args); i++ {
		switch opt := c.args[i]; {
		case bytes.EqualFold(opt, []byte("type")) && i+1 < len(c.args):
			typ = strings.ToLower(string(c.args[i+1]))
			if !validClientType(typ) {
				c.errReply("ERR Unknown client type '" + clip(c.args[i+1]) + "'")
				return
			}
			i++
		case bytes.EqualFold(opt, []byte("id")) && i+1 < len(c.args):
			ids = make(map[uint64]bool)
			for i++; i < len(c.args); i++ {
				id, ok := parseInt(c.args[i])
				if !ok || id <= 0 {
					c.errReply("ERR Invalid client ID")
					return
				}
				ids[uint64(id)] = true
			}
		default:
			c.errReply(errSyntax)
			return
		}
	}
	publishSelf(c)
	var buf []byte
	if typ == "normal" {
		for _, cs := range c.srv.clients.snapshot() {
			if ids == nil || ids[cs.cl.id] {
				buf = appendClientLine(buf, cs, c.now)
			}
		}
	}
	c.verbatim(buf)
}

func validClientType(t string) bool {
	switch t {
	case "normal", "master", "replica", "slave", "pubsub":
		return true
	}
	return false
}

// appendClientLine appends one CLIENT LIST line, Redis 7's fields in Redis
// 7's order. Fields of other loops' clients are read through atomics.
func appendClientLine(b []byte, cs *connState, now int64) []byte {
	sh := &cs.shared
	b = append(b, "id="...)
	b = strconv.AppendUint(b, cs.cl.id, 10)
	b = append(b, " addr="...)
	b = append(b, cs.addr...)
	b = append(b, " laddr="...)
	b = append(b, cs.laddr...)
	b = append(b, " fd="...)
	b = strconv.AppendInt(b, int64(cs.fd), 10)
	b = append(b, " name="...)
	tags := sh.tags.Load()
	if tags == nil {
		tags = &clientTags{}
	}
	b = append(b, tags.name...)
	b = append(b, " age="...)
	b = strconv.AppendInt(b, (now-cs.created)/1000, 10)
	b = append(b, " idle="...)
	b = strconv.AppendInt(b, max(0, now-sh.lastActive.Load())/1000, 10)
	multi := sh.multi.Load()
	b = append(b, " flags="...)
	switch {
	case sh.blocked.Load() != nil:
		b = append(b, 'b')
	case sh.monitor.Load():
		b = append(b, 'O')
	case multi >= 0:
		b = append(b, 'x')
	case sh.subs[0].Load()+sh.subs[1].Load()+sh.subs[2].Load() > 0:
		b = append(b, 'P')
	case sh.redirect.Load() >= 0:
		b = append(b, 't')
	case !sh.stalled.Load():
		b = append(b, 'N')
	}
	if sh.stalled.Load() { // after the others, in Redis's order
		b = append(b, 'c')
	}
	b = append(b, " db="...)
	b = strconv.AppendInt(b, int64(sh.db.Load()), 10)
	qbuf, omem := sh.qbuf.Load(), sh.omem.Load()
	b = append(b, " sub="...)
	b = strconv.AppendInt(b, int64(sh.subs[0].Load()), 10)
	b = append(b, " psub="...)
	b = strconv.AppendInt(b, int64(sh.subs[1].Load()), 10)
	b = append(b, " ssub="...)
	b = strconv.AppendInt(b, int64(sh.subs[2].Load()), 10)
	b = append(b, " multi="...)
	b = strconv.AppendInt(b, int64(multi), 10)
	b = append(b, " qbuf="...)
	b = strconv.AppendInt(b, qbuf, 10)
	b = append(b, " qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem="...)
	b = strconv.AppendInt(b, omem, 10)
	b = append(b, " tot-mem="...)
	b = strconv.AppendInt(b, qbuf+omem, 10)
	b = append(b, " events=r cmd="...)
	if cmd := sh.lastCmd.Load(); cmd != nil {
		b = append(b, cmd.full...)
	} else {
		b = append(b, "NULL"...)
	}
	b = append(b, " user="...)
	if tags.user != "" {
		b = append(b, tags.user...)
	} else {
		b = append(b, "default"...)
	}
	b = append(b, " redir="...)
	b = strconv.AppendInt(b, sh.redirect.Load(), 10)
	b = append(b, " resp="...)
	b = strconv.AppendInt(b, int64(sh.proto.Load()), 10)
	b = append(b, " lib-name="...)
	b = append(b, tags.libName...)
	b = append(b, " lib-ver="...)
	b = append(b, tags.libVer...)
	if tags.hasSubject {
		// loopkv's field, only on TLS clients with a verified certificate:
		// the RFC 4514 subject, spaces written as \x20 to keep one field.
		b = append(b, " tls-peer-subject="...)
		b = appendNoSpace(b, tags.tlsSubject)
	}
	return append(b, '\n')
}

// killFilter is what CLIENT KILL matches.
type killFilter struct {
	id          uint64
	addr, laddr string
	hasAddr     bool
	hasLaddr    bool
	skipMe      bool
	typ         string
}

// cmdClientKill is CLIENT KILL ip:port, or CLIENT KILL <filter> <value> ...
// with ID, ADDR, LADDR, USER, TYPE and SKIPME filters.
func cmdClientKill(c *cmdCtx) {
	f := killFilter{skipMe: true}
	oldForm := len(c.args) == 3
	if oldForm {
		f.addr, f.hasAddr, f.skipMe = string(c.args[2]), true, false
	} else if !parseKillFilter(c, &f) {
		return
	}
	killed := 0
	for _, cs := range c.srv.clients.snapshot() {
		if !f.matches(cs) || (f.skipMe && cs == c.cl.conn) {
			continue
		}
		killed++
		if cs == c.cl.conn {
			c.cl.quit = true
			continue
		}
		if !cs.shared.killed.Swap(true) {
			cs.tc.Close()
		}
	}
	if !oldForm {
		c.integer(int64(killed))
		return
	}
	if killed == 0 {
		c.errReply("ERR No such client")
		return
	}
	c.ok()
}

func parseKillFilter(c *cmdCtx, f *killFilter) bool {
	args := c.args
	if len(args)%2 != 0 {
		c.errReply(errSyntax)
		return false
	}
	for i := 2; i < len(args); i += 2 {
		opt, val := args[i], args[i+1]
		switch {
		case bytes.EqualFold(opt, []byte("id")):
			id, ok := parseInt(val)
			if !ok || id <= 0 {
				c.errReply("ERR client-id should be greater than 0")
				return false
			}
			f.id = uint64(id)
		case bytes.EqualFold(opt, []byte("type")):
			f.typ = strings.ToLower(string(val))
			if !validClientType(f.typ) {
				c.errReply("ERR Unknown client type '" + clip(val) + "'")
				return false
			}
		case bytes.EqualFold(opt, []byte("addr")):
			f.addr, f.hasAddr = string(val), true
		case bytes.EqualFold(opt, []byte("laddr")):
			f.laddr, f.hasLaddr = string(val), true
		case bytes.EqualFold(opt, []byte("user")):
			if string(val) != "default" {
				c.errReply("ERR No such user '" + clip(val) + "'")
				return false
			}
		case bytes.EqualFold(opt, []byte("skipme")):
			switch {
			case bytes.EqualFold(val, []byte("yes")):
				f.skipMe = true
			case bytes.EqualFold(val, []byte("no")):
				f.skipMe = false
			default:
				c.errReply(errSyntax)
				return false
			}
		default:
			c.errReply(errSyntax)
			return false
		}
	}
	return true
}

func (f *killFilter) matches(cs *connState) bool {
	switch {
	case f.id != 0 && cs.cl.id != f.id:
		return false
	case f.hasAddr && cs.addr != f.addr:
		return false
	case f.hasLaddr && cs.laddr != f.laddr:
		return false
	case f.typ != "" && f.typ != "normal":
		return false
	}
	return true
}

// cmdClientOK answers subcommands accepted for compatibility only.
func cmdClientOK(c *cmdCtx) { c.ok() }

var clientCommands = []command{
	{Name: "client", Arity: -2,
		Doc: cmdDoc{Summary: "A container for client connection commands", Since: "2.4.0", Group: "connection",
			Complexity: "Depends on subcommand."},
		Subs: []command{
			{Name: "tracking", Arity: -3, Flags: flagNoScript | flagLoading | flagStale, ACL: catConnection,
				Doc: cmdDoc{Summary: "Enable or disable server assisted client side caching support", Since: "6.0.0", Group: "connection",
					Complexity: "O(1). Some options may introduce additional complexity.",
					Args: []cmdArg{
						{Name: "status", Type: argOneOf, Args: []cmdArg{
							{Name: "on", Type: argPureToken, Token: "ON"},
							{Name: "off", Type: argPureToken, Token: "OFF"},
						}},
						{Name: "client-id", Type: argInteger, Token: "REDIRECT", Flags: argOptional},
						{Name: "prefix", Type: argString, Token: "PREFIX", Flags: argOptional | argMultiple | argMultipleToken},
						{Name: "bcast", Type: argPureToken, Token: "BCAST", Flags: argOptional},
						{Name: "optin", Type: argPureToken, Token: "OPTIN", Flags: argOptional},
						{Name: "optout", Type: argPureToken, Token: "OPTOUT", Flags: argOptional},
						{Name: "noloop", Type: argPureToken, Token: "NOLOOP", Flags: argOptional},
					}},
				Fn: cmdClientTracking},
			{Name: "caching", Arity: 3, Flags: flagNoScript | flagLoading | flagStale, ACL: catConnection,
				Doc: cmdDoc{Summary: "Instruct the server about tracking or not keys in the next request", Since: "6.0.0", Group: "connection",
					Complexity: "O(1)",
					Args: []cmdArg{
						{Name: "mode", Type: argOneOf, Args: []cmdArg{
							{Name: "yes", Type: argPureToken, Token: "YES"},
							{Name: "no", Type: argPureToken, Token: "NO"},
						}},
					}},
				Fn: cmdClientCaching},
			{Name: "getredir", Arity: 2, Flags: flagNoScript | flagLoading | flagStale, ACL: catConnection,
				Doc: cmdDoc{Summary: "Get tracking notifications redirection client ID if any", Since: "6.0.0", Group: "connection",
					Complexity: "O(1)"},
				Fn: cmdClientGetredir},
			{Name: "trackinginfo", Arity: 2, Flags: flagNoScript | flagLoading | flagStale, ACL: catConnection,
				Doc: cmdDoc{Summary: "Return information about server assisted client side caching for the current connection", Since: "6.2.0", Group: "connection",
					Complexity: "O(1)"},
				Fn: cmdClientTrackinginfo},
			{Name: "unblock", Arity: -3, Flags: flagAdmin | flagNoScript | flagLoading | flagStale, ACL: catConnection,
				Doc: cmdDoc{Summary: "Unblock a client blocked in a blocking command from a different connection", Since: "5.0.0", Group: "connection",
					Complexity: "O(log N) where N is the number of client connections",
					Args: []cmdArg{
						{Name: "client-id", Type: argInteger},
						{Name: "timeout_error", Type: argOneOf, Flags: argOptional, Args: []cmdArg{
							{Name: "timeout", Type: argPureToken, Token: "TIMEOUT"},
							{Name: "error", Type: argPureToken, Token: "ERROR"},
						}},
					}},
				Fn: cmdClientUnblock},
			{Name: "id", Arity: 2, Flags: flagNoScript | flagLoading | flagStale, ACL: catConnection,
				Doc: cmdDoc{Summary: "Returns the client ID for the current connection", Since: "5.0.0", Group: "connection",
					Complexity: "O(1)"},
				Fn: cmdClientID},
			{Name: "setname", Arity: 3, Flags: flagNoScript | flagLoading | flagStale, ACL: catConnection,
				Doc: cmdDoc{Summary: "Set the current connection name", Since: "2.6.9", Group: "connection",
					Complexity: "O(1)",
					Args: []cmdArg{
						{Name: "connection-name", Type: argString},
					}},
				Fn: cmdClientSetName},
			{Name: "getname", Arity: 2, Flags: flagNoScript | flagLoading | flagStale, ACL: catConnection,
				Doc: cmdDoc{Summary: "Get the current connection name", Since: "2.6.9", Group: "connection",
					Complexity: "O(1)"},
				Fn: cmdClientGetName},
			{Name: "setinfo", Arity: 4, Flags: flagNoScript | flagLoading | flagStale, ACL: catConnection,
				Tips: []string{"request_policy:all_nodes", "response_policy:all_succeeded"},
				Doc: cmdDoc{Summary: "Sets information specific to the client or connection.", Since: "7.2.0", Group: "connection",
					Complexity: "O(1)",
					Args: []cmdArg{
						{Name: "attr", Type: argOneOf, Args: []cmdArg{
							{Name: "libname", Type: argString, Token: "LIB-NAME"},
							{Name: "libver", Type: argString, Token: "LIB-VER"},
						}},
					}},
				Fn: cmdClientSetInfo},
			{Name: "info", Arity: 2, Flags: flagNoScript | flagLoading | flagStale, ACL: catConnection,
				Tips: []string{"nondeterministic_output"},
				Doc: cmdDoc{Summary: "Returns information about the current client connection.", Since: "6.2.0", Group: "connection",
					Complexity: "O(1)"},
				Fn: cmdClientInfo},
			{Name: "list", Arity: -2, Flags: flagAdmin | flagNoScript | flagLoading | flagStale, ACL: catConnection,
				Tips: []string{"nondeterministic_output"},
				Doc: cmdDoc{Summary: "Get the list of client connections", Since: "2.4.0", Group: "connection",
					Complexity: "O(N) where N is the number of client connections",
					History:    [][2]string{{"2.8.12", "Added unique client `id` field."}, {"5.0.0", "Added optional `TYPE` filter."}, {"6.0.0", "Added `user` field."}, {"6.2.0", "Added `argv-mem`, `tot-mem`, `laddr` and `redir` fields and the optional `ID` filter."}, {"7.0.0", "Added `resp`, `multi-mem`, `rbs` and `rbp` fields."}, {"7.0.3", "Added `ssub` field."}},
					Args: []cmdArg{
						{Name: "normal_master_replica_pubsub", Type: argOneOf, Token: "TYPE", Since: "5.0.0", Flags: argOptional, Args: []cmdArg{
							{Name: "normal", Type: argPureToken, Token: "NORMAL"},
							{Name: "master", Type: argPureToken, Token: "MASTER"},
							{Name: "replica", Type: argPureToken, Token: "REPLICA"},
							{Name: "pubsub", Type: argPureToken, Token: "PUBSUB"},
						}},
						{Name: "id", Type: argBlock, Token: "ID", Since: "6.2.0", Flags: argOptional, Args: []cmdArg{
							{Name: "client-id", Type: argInteger, Flags: argMultiple},
						}},
					}},
				Fn: cmdClientList},
			{Name: "kill", Arity: -3, Flags: flagAdmin | flagNoScript | flagLoading | flagStale, ACL: catConnection,
				Doc: cmdDoc{Summary: "Kill the connection of a client", Since: "2.4.0", Group: "connection",
					Complexity: "O(N) where N is the number of client connections",
					History:    [][2]string{{"2.8.12", "Added new filter format."}, {"2.8.12", "`ID` option."}, {"3.2.0", "Added `master` type in for `TYPE` option."}, {"5.0.0", "Replaced `slave` `TYPE` with `replica`. `slave` still supported for backward compatibility."}, {"6.2.0", "`LADDR` option."}},
					Args: []cmdArg{
						{Name: "filter", Type: argOneOf, Args: []cmdArg{
							{Name: "ip:port", Type: argString, DeprecatedSince: "2.8.12"},
							{Name: "new-format", Type: argOneOf, Flags: argMultiple, Args: []cmdArg{
								{Name: "client-id", Type: argInteger, Token: "ID", Since: "2.8.12", Flags: argOptional},
								{Name: "normal_master_slave_pubsub", Type: argOneOf, Token: "TYPE", Since: "2.8.12", Flags: argOptional, Args: []cmdArg{
									{Name: "normal", Type: argPureToken, Token: "NORMAL"},
									{Name: "master", Type: argPureToken, Token: "MASTER", Since: "3.2.0"},
									{Name: "slave", Type: argPureToken, Token: "SLAVE"},
									{Name: "replica", Type: argPureToken, Token: "REPLICA", Since: "5.0.0"},
									{Name: "pubsub", Type: argPureToken, Token: "PUBSUB"},
								}},
								{Name: "username", Type: argString, Token: "USER", Flags: argOptional},
								{Name: "ip:port", Type: argString, Token: "ADDR", Flags: argOptional},
								{Name: "ip:port", Type: argString, Token: "LADDR", Since: "6.2.0", Flags: argOptional},
								{Name: "yes/no", Type: argString, Token: "SKIPME", Flags: argOptional},
							}},
						}},
					}},
				Fn: cmdClientKill},
			{Name: "no-evict", Arity: 3, Flags: flagAdmin | flagNoScript | flagLoading | flagStale, ACL: catConnection,
				Doc: cmdDoc{Summary: "Set client eviction mode for the current connection", Since: "7.0.0", Group: "connection",
					Complexity: "O(1)",
					Args:       []cmdArg{onOffArg("enabled")}},
				Fn: cmdClientOK},
			{Name: "no-touch", Arity: 3, Flags: flagNoScript | flagLoading | flagStale, ACL: catConnection,
				Doc: cmdDoc{Summary: "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.", Since: "7.2.0", Group: "connection",
					Complexity: "O(1)",
					Args:       []cmdArg{onOffArg("enabled")}},
				Fn: cmdClientOK},
			{Name: "pause", Arity: -3, Flags: flagAdmin | flagNoScript | flagLoading | flagStale, ACL: catConnection,
				Doc: cmdDoc{Summary: "Stop processing commands from clients for some time", Since: "2.9.50", Group: "connection",
					Complexity: "O(1)",
					History:    [][2]string{{"6.2.0", "`CLIENT PAUSE WRITE` mode added along with the `mode` option."}},
					Args: []cmdArg{
						{Name: "timeout", Type: argInteger},
						{Name: "mode", Type: argOneOf, Since: "6.2.0", Flags: argOptional, Args: []cmdArg{
							{Name: "write", Type: argPureToken, Token: "WRITE"},
							{Name: "all", Type: argPureToken, Token: "ALL"},
						}},
					}},
				Fn: cmdClientPause},
			{Name: "unpause", Arity: 2, Flags: flagAdmin | flagNoScript | flagLoading | flagStale, ACL: catConnection,
				Doc: cmdDoc{Summary: "Resume processing of clients that were paused", Since: "6.2.0", Group: "connection",
					Complexity: "O(N) Where N is the number of paused clients"},
				ClockFree: true, Fn: cmdClientUnpause},
			{Name: "reply", Arity: 3, Flags: flagNoScript | flagLoading | flagStale, ACL: catConnection,
				Doc: cmdDoc{Summary: "Instruct the server whether to reply to commands", Since: "3.2.0", Group: "connection",
					Complexity: "O(1)",
					Args: []cmdArg{
						{Name: "on_off_skip", Type: argOneOf, Args: []cmdArg{
							{Name: "on", Type: argPureToken, Token: "ON"},
							{Name: "off", Type: argPureToken, Token: "OFF"},
							{Name: "skip", Type: argPureToken, Token: "SKIP"},
						}},
					}},
				ClockFree: true, Fn: cmdClientReply},
			{Name: "help", Arity: 2, Flags: flagLoading | flagStale, ACL: catConnection,
				Doc: cmdDoc{Summary: "Show helpful text about the different subcommands", Since: "5.0.0", Group: "connection",
					Complexity: "O(1)"},
				Fn: cmdClientHelp},
		}},
}

func init() { register(clientCommands...) }

// appendNoSpace appends v with each space written as \x20.
func appendNoSpace(b []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		if v[i] == ' ' {
			b = append(b, `\x20`...)
			continue
		}
		b = append(b, v[i])
	}
	return b
}
