package server

import "strings"

// COMMAND and its subcommands: COUNT, INFO, DOCS, LIST, GETKEYS,
// GETKEYSANDFLAGS, HELP. Every reply is printed from the command spec
// (cmd_spec.go); the layout is Redis 7.0's (server.c, addReplyCommandInfo
// and addReplyCommandDocs), and cmd_command_test.go compares every row's
// COMMAND INFO and COMMAND DOCS with redis-server 7.0's byte for byte, in
// RESP2 and RESP3. What differs, and why:
//
//   - Order. Redis lists commands and subcommands in its hash tables'
//     order, which changes from run to run (COMMAND, COMMAND INFO and DOCS
//     without names, COMMAND LIST, ACL CAT, a container's subcommands);
//     loopkv lists them by name.
//   - Subcommands loopkv lacks. A container lists only loopkv's
//     subcommands (CLIENT has no PAUSE, TRACKING, ...), so its entry is
//     shorter than Redis's.
//   - CLIENT SETINFO and CLIENT NO-TOUCH are Redis 7.2 subcommands, which
//     7.0.15 does not have; their rows follow 7.2's COMMAND INFO and DOCS.
//   - COMMAND COUNT counts loopkv's commands.

// cmdCommand is COMMAND alone: COMMAND INFO of every command. A container
// row needs no handler, but COMMAND also runs without a subcommand.
func cmdCommand(c *cmdCtx) { commandInfoAll(c) }

func commandInfoAll(c *cmdCtx) {
	top := commands().top
	c.arrayLen(len(top))
	for _, cmd := range top {
		commandInfoReply(c, cmd)
	}
}

func cmdCommandCount(c *cmdCtx) { c.integer(int64(len(commands().top))) }

// cmdCommandInfo is COMMAND INFO [name ...]; a name may be "config|get".
func cmdCommandInfo(c *cmdCtx) {
	names := c.args[2:]
	if len(names) == 0 {
		commandInfoAll(c)
		return
	}
	c.arrayLen(len(names))
	for _, name := range names {
		if cmd := commandByName(string(name)); cmd != nil {
			commandInfoReply(c, cmd)
		} else {
			c.null()
		}
	}
}

// commandInfoReply writes Redis 7's ten-element COMMAND INFO entry.
func commandInfoReply(c *cmdCtx, cmd *command) {
	c.arrayLen(10)
	c.bulkString(cmd.full)
	c.integer(int64(cmd.Arity))
	f := cmd.flags()
	c.setLen(bitCount(uint64(f), len(cmdFlagNames)))
	for i, name := range cmdFlagNames {
		if f&(1<<i) != 0 {
			c.simple(name)
		}
	}
	for _, n := range cmd.legacy {
		c.integer(int64(n))
	}
	c.setLen(bitCount(uint64(cmd.cats), len(aclCategoryNames)))
	for i, name := range aclCategoryNames {
		if cmd.cats&(1<<i) != 0 {
			c.simple("@" + name)
		}
	}
	c.setLen(len(cmd.Tips))
	for _, tip := range cmd.Tips {
		c.bulkString(tip)
	}
	c.setLen(len(cmd.Keys))
	for i := range cmd.Keys {
		keySpecReply(c, &cmd.Keys[i])
	}
	if len(cmd.subs) == 0 {
		c.setLen(0)
		return
	}
	c.arrayLen(len(cmd.subs))
	for _, sub := range cmd.subs {
		commandInfoReply(c, sub)
	}
}

// bitCount counts the set bits among the low n bits of v.
func bitCount(v uint64, n int) int {
	k := 0
	for i := 0; i < n; i++ {
		if v&(1<<i) != 0 {
			k++
		}
	}
	return k
}

// keySpecReply writes one key spec as COMMAND INFO does.
func keySpecReply(c *cmdCtx, s *keySpec) {
	n := 3
	if s.Notes != "" {
		n++
		c.mapLen(n)
		c.bulkString("notes")
		c.bulkString(s.Notes)
	} else {
		c.mapLen(n)
	}
	c.bulkString("flags")
	keyFlagsReply(c, s.Flags)
	c.bulkString("begin_search")
	c.mapLen(2)
	c.bulkString("type")
	switch s.BS.Kind {
	case bsIndexKind:
		c.bulkString("index")
		c.bulkString("spec")
		c.mapLen(1)
		c.bulkString("index")
		c.integer(int64(s.BS.Index))
	case bsKeywordKind:
		c.bulkString("keyword")
		c.bulkString("spec")
		c.mapLen(2)
		c.bulkString("keyword")
		c.bulkString(s.BS.Keyword)
		c.bulkString("startfrom")
		c.integer(int64(s.BS.StartFrom))
	default:
		c.bulkString("unknown")
		c.bulkString("spec")
		c.mapLen(0)
	}
	c.bulkString("find_keys")
	c.mapLen(2)
	c.bulkString("type")
	switch s.FK.Kind {
	case fkRangeKind:
		c.bulkString("range")
		c.bulkString("spec")
		namedInts(c, "lastkey", s.FK.LastKey, "keystep", s.FK.Step, "limit", s.FK.Limit)
	case fkKeyNumKind:
		c.bulkString("keynum")
		c.bulkString("spec")
		namedInts(c, "keynumidx", s.FK.KeyNumIdx, "firstkey", s.FK.FirstKey, "keystep", s.FK.Step)
	default:
		c.bulkString("unknown")
		c.bulkString("spec")
		c.mapLen(0)
	}
}

// namedInts writes a map of three named integers.
func namedInts(c *cmdCtx, k1 string, v1 int, k2 string, v2 int, k3 string, v3 int) {
	c.mapLen(3)
	c.bulkString(k1)
	c.integer(int64(v1))
	c.bulkString(k2)
	c.integer(int64(v2))
	c.bulkString(k3)
	c.integer(int64(v3))
}

// keyFlagsReply writes key flags as a set of simple strings.
func keyFlagsReply(c *cmdCtx, f keyFlags) {
	c.setLen(bitCount(uint64(f), len(keyFlagNames)))
	for i, name := range keyFlagNames {
		if f&(1<<i) != 0 {
			c.simple(name)
		}
	}
}

// cmdCommandDocs is COMMAND DOCS [name ...]: a map of each known name to
// its docs; unknown names are left out.
func cmdCommandDocs(c *cmdCtx) {
	var cmds []*command
	if len(c.args) == 2 {
		cmds = commands().top
	}
	for _, name := range c.args[2:] {
		if cmd := commandByName(string(name)); cmd != nil {
			cmds = append(cmds, cmd)
		}
	}
	c.mapLen(len(cmds))
	for _, cmd := range cmds {
		c.bulkString(cmd.full)
		commandDocsReply(c, cmd)
	}
}

// commandDocsReply writes one command's docs map.
func commandDocsReply(c *cmdCtx, cmd *command) {
	d := &cmd.Doc
	n := 1 // group
	for _, present := range []bool{d.Summary != "", d.Since != "", d.Complexity != "", d.DocFlags != 0,
		d.DeprecatedSince != "", d.ReplacedBy != "", len(d.History) > 0, len(d.Args) > 0, len(cmd.subs) > 0} {
		if present {
			n++
		}
	}
	c.mapLen(n)
	optField(c, "summary", d.Summary)
	optField(c, "since", d.Since)
	c.bulkString("group")
	c.bulkString(d.Group)
	optField(c, "complexity", d.Complexity)
	if d.DocFlags != 0 {
		c.bulkString("doc_flags")
		c.setLen(bitCount(uint64(d.DocFlags), len(docFlagNames)))
		for i, name := range docFlagNames {
			if d.DocFlags&(1<<i) != 0 {
				c.simple(name)
			}
		}
	}
	optField(c, "deprecated_since", d.DeprecatedSince)
	optField(c, "replaced_by", d.ReplacedBy)
	if len(d.History) > 0 {
		c.bulkString("history")
		c.setLen(len(d.History))
		for _, h := range d.History {
			c.arrayLen(2)
			c.bulkString(h[0])
			c.bulkString(h[1])
		}
	}
	if len(d.Args) > 0 {
		c.bulkString("arguments")
		argsReply(c, d.Args)
	}
	if len(cmd.subs) > 0 {
		c.bulkString("subcommands")
		c.mapLen(len(cmd.subs))
		for _, sub := range cmd.subs {
			c.bulkString(sub.full)
			commandDocsReply(c, sub)
		}
	}
}

// optField writes the field name and value when the value is set.
func optField(c *cmdCtx, name, v string) {
	if v != "" {
		c.bulkString(name)
		c.bulkString(v)
	}
}

// argsReply writes COMMAND DOCS' arguments array.
func argsReply(c *cmdCtx, args []cmdArg) {
	c.arrayLen(len(args))
	for i := range args {
		a := &args[i]
		nested := a.Type == argOneOf || a.Type == argBlock
		n := 2
		// a pattern names a key spec only when it has one past 0 (SORT's BY
		// and GET, the only ones in Redis 7.0)
		hasSpec := a.Type == argKey || (a.Type == argPattern && a.KeySpec > 0)
		for _, present := range []bool{hasSpec, a.Token != "", a.Summary != "", a.Since != "",
			a.DeprecatedSince != "", a.Flags != 0, nested} {
			if present {
				n++
			}
		}
		c.mapLen(n)
		c.bulkString("name")
		c.bulkString(a.Name)
		c.bulkString("type")
		c.bulkString(argTypeNames[a.Type])
		if hasSpec {
			c.bulkString("key_spec_index")
			c.integer(int64(a.KeySpec))
		}
		optField(c, "token", a.Token)
		optField(c, "summary", a.Summary)
		optField(c, "since", a.Since)
		optField(c, "deprecated_since", a.DeprecatedSince)
		if a.Flags != 0 {
			c.bulkString("flags")
			c.setLen(bitCount(uint64(a.Flags), len(argFlagNames)))
			for j, name := range argFlagNames {
				if a.Flags&(1<<j) != 0 {
					c.simple(name)
				}
			}
		}
		if nested {
			c.bulkString("arguments")
			argsReply(c, a.Args)
		}
	}
}

// cmdCommandList is COMMAND LIST [FILTERBY MODULE name | ACLCAT category |
// PATTERN pattern]: the full names of the commands and subcommands that
// pass the filter. loopkv has no modules, so MODULE matches nothing.
func cmdCommandList(c *cmdCtx) {
	match := func(*command) bool { return true }
	switch {
	case len(c.args) == 2:
	case len(c.args) == 5 && equalFoldLower(c.args[2], "filterby"):
		arg := string(c.args[4])
		switch kind := c.args[3]; {
		case equalFoldLower(kind, "module"):
			match = func(*command) bool { return false }
		case equalFoldLower(kind, "aclcat"):
			cat := aclCategoryBit(strings.ToLower(arg))
			match = func(cmd *command) bool { return cmd.cats&cat != 0 }
		case equalFoldLower(kind, "pattern"):
			pat := strings.ToLower(arg)
			match = func(cmd *command) bool { return globMatch(pat, []byte(cmd.full)) }
		default:
			c.errReply(errSyntax)
			return
		}
	default:
		c.errReply(errSyntax)
		return
	}
	var names []string
	for _, cmd := range commands().rows {
		if match(cmd) {
			names = append(names, cmd.full)
		}
	}
	c.arrayLen(len(names))
	for _, n := range names {
		c.bulkString(n)
	}
}

func cmdCommandGetKeys(c *cmdCtx)         { commandGetKeys(c, false) }
func cmdCommandGetKeysAndFlags(c *cmdCtx) { commandGetKeys(c, true) }

// commandGetKeys is COMMAND GETKEYS and GETKEYSANDFLAGS: the keys of the
// call in c.args[2:], found by its key specs, with their flags when
// withFlags. The errors are Redis 7.0's, in its order.
func commandGetKeys(c *cmdCtx, withFlags bool) {
	args := c.args[2:]
	cmd := lookupCommand(args[0])
	if cmd != nil && len(cmd.subs) > 0 && len(args) > 1 {
		cmd = cmd.sub(args[1])
	}
	if cmd == nil {
		c.errReply("ERR Invalid command specified")
		return
	}
	keysReply(c, cmd, args, withFlags)
}

// keysReply answers COMMAND GETKEYS (or GETKEYSANDFLAGS) for the call args
// of cmd.
func keysReply(c *cmdCtx, cmd *command, args [][]byte, withFlags bool) {
	if !hasKeys(cmd) {
		c.errReply("ERR The command has no key arguments")
		return
	}
	if !arityOK(cmd.Arity, len(args)) {
		c.errReply("ERR Invalid number of arguments specified for command")
		return
	}
	var buf [16]keyRef
	keys, ok := commandKeys(cmd, args, buf[:0], 0)
	if !ok || len(keys) == 0 {
		if cmd.Flags&flagNoMandatoryKeys != 0 {
			c.arrayLen(0)
		} else {
			c.errReply("ERR Invalid arguments specified for command")
		}
		return
	}
	c.arrayLen(len(keys))
	for _, k := range keys {
		if !withFlags {
			c.bulk(args[k.Pos])
			continue
		}
		c.arrayLen(2)
		c.bulk(args[k.Pos])
		keyFlagsReply(c, k.Flags)
	}
}

// hasKeys reports whether some key spec of cmd finds real keys.
func hasKeys(cmd *command) bool {
	for _, s := range cmd.Keys {
		if s.Flags&keyNotKey == 0 {
			return true
		}
	}
	return false
}

// commandHelp is COMMAND HELP's text, as Redis 7.0 words it.
var commandHelp = []string{
	"COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"(no subcommand)",
	"    Return details about all Redis commands.",
	"COUNT",
	"    Return the total number of commands in this Redis server.",
	"LIST",
	"    Return a list of all commands in this Redis server.",
	"INFO [<command-name> ...]",
	"    Return details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"DOCS [<command-name> ...]",
	"    Return documentation details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"GETKEYS <full-command>",
	"    Return the keys from a full Redis command.",
	"GETKEYSANDFLAGS <full-command>",
	"    Return the keys and the access flags from a full Redis command.",
	"HELP",
	"    Prints this help.",
}

func cmdCommandHelp(c *cmdCtx) { helpReply(c, commandHelp) }

// helpReply writes a HELP reply, one status line each, as Redis's
// addReplyHelp does.
func helpReply(c *cmdCtx, lines []string) {
	c.arrayLen(len(lines))
	for _, l := range lines {
		c.simple(l)
	}
}

var commandCommands = []command{
	{Name: "command", Arity: -1, Flags: flagLoading | flagStale, ACL: catConnection,
		Tips: []string{"nondeterministic_output_order"},
		Doc: cmdDoc{Summary: "Get array of Redis command details", Since: "2.8.13", Group: "server",
			Complexity: "O(N) where N is the total number of Redis commands"},
		Subs: []command{
			{Name: "count", Arity: 2, Flags: flagLoading | flagStale, ACL: catConnection,
				Doc: cmdDoc{Summary: "Get total number of Redis commands", Since: "2.8.13", Group: "server",
					Complexity: "O(1)"},
				Fn: cmdCommandCount},
			{Name: "docs", Arity: -2, Flags: flagLoading | flagStale, ACL: catConnection,
				Tips: []string{"nondeterministic_output_order"},
				Doc: cmdDoc{Summary: "Get array of specific Redis command documentation", Since: "7.0.0", Group: "server",
					Complexity: "O(N) where N is the number of commands to look up",
					Args: []cmdArg{
						{Name: "command-name", Type: argString, Flags: argOptional | argMultiple},
					}},
				Fn: cmdCommandDocs},
			{Name: "getkeys", Arity: -4, Flags: flagLoading | flagStale, ACL: catConnection,
				Doc: cmdDoc{Summary: "Extract keys given a full Redis command", Since: "2.8.13", Group: "server",
					Complexity: "O(N) where N is the number of arguments to the command"},
				Fn: cmdCommandGetKeys},
			{Name: "getkeysandflags", Arity: -4, Flags: flagLoading | flagStale, ACL: catConnection,
				Doc: cmdDoc{Summary: "Extract keys and access flags given a full Redis command", Since: "7.0.0", Group: "server",
					Complexity: "O(N) where N is the number of arguments to the command"},
				Fn: cmdCommandGetKeysAndFlags},
			{Name: "help", Arity: 2, Flags: flagLoading | flagStale, ACL: catConnection,
				Doc: cmdDoc{Summary: "Show helpful text about the different subcommands", Since: "5.0.0", Group: "server",
					Complexity: "O(1)"},
				Fn: cmdCommandHelp},
			{Name: "info", Arity: -2, Flags: flagLoading | flagStale, ACL: catConnection,
				Tips: []string{"nondeterministic_output_order"},
				Doc: cmdDoc{Summary: "Get array of specific Redis command details, or all when no argument is given.", Since: "2.8.13", Group: "server",
					Complexity: "O(N) where N is the number of commands to look up",
					History:    [][2]string{{"7.0.0", "Allowed to be called with no argument to get info on all commands."}},
					Args: []cmdArg{
						{Name: "command-name", Type: argString, Flags: argOptional | argMultiple},
					}},
				Fn: cmdCommandInfo},
			{Name: "list", Arity: -2, Flags: flagLoading | flagStale, ACL: catConnection,
				Tips: []string{"nondeterministic_output_order"},
				Doc: cmdDoc{Summary: "Get an array of Redis command names", Since: "7.0.0", Group: "server",
					Complexity: "O(N) where N is the total number of Redis commands",
					Args: []cmdArg{
						{Name: "filterby", Type: argOneOf, Token: "FILTERBY", Flags: argOptional, Args: []cmdArg{
							{Name: "module-name", Type: argString, Token: "MODULE"},
							{Name: "category", Type: argString, Token: "ACLCAT"},
							{Name: "pattern", Type: argPattern, Token: "PATTERN"},
						}},
					}},
				Fn: cmdCommandList},
		},
		Fn: cmdCommand},
}

func init() { register(commandCommands...) }
