package server

import (
	"bytes"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"
)

// Server family: INFO, COMMAND, CONFIG, TIME, SHUTDOWN.

// cmdInfo is INFO [section ...]; see info.go.
func cmdInfo(c *cmdCtx) {
	c.verbatim(c.srv.appendInfo(nil, c.args[1:]))
}

func cmdTime(c *cmdCtx) {
	now := time.Now()
	var tmp [20]byte
	c.arrayLen(2)
	c.bulk(strconv.AppendInt(tmp[:0], now.Unix(), 10))
	c.bulk(strconv.AppendInt(tmp[:0], int64(now.Nanosecond()/1000), 10))
}

// cmdShutdown is SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]. Nothing is
// persisted, so every form but ABORT stops the server at once: the client
// gets no reply and every connection is closed after its queued replies.
func cmdShutdown(c *cmdCtx) {
	abort := false
	for _, a := range c.args[1:] {
		switch {
		case bytes.EqualFold(a, []byte("nosave")), bytes.EqualFold(a, []byte("save")),
			bytes.EqualFold(a, []byte("now")), bytes.EqualFold(a, []byte("force")):
		case bytes.EqualFold(a, []byte("abort")):
			abort = true
		default:
			c.errReply(errSyntax)
			return
		}
	}
	if abort {
		if len(c.args) > 2 {
			c.errReply(errSyntax)
			return
		}
		c.errReply("ERR No shutdown in progress.")
		return
	}
	c.srv.log.Warn("User requested shutdown...", zap.Uint64("conn", c.cl.id))
	c.cl.quit = true
	c.srv.requestShutdown()
}

// COMMAND

func cmdCommand(c *cmdCtx) {
	if len(c.args) == 1 {
		c.arrayLen(len(allCommands))
		for _, cmd := range allCommands {
			commandInfoReply(c, cmd)
		}
		return
	}
	dispatchSub(c, "COMMAND", commandSubcommands)
}

func cmdCommandCount(c *cmdCtx) { c.integer(int64(len(allCommands))) }

func cmdCommandInfo(c *cmdCtx) {
	names := c.args[2:]
	if len(names) == 0 {
		c.arrayLen(len(allCommands))
		for _, cmd := range allCommands {
			commandInfoReply(c, cmd)
		}
		return
	}
	c.arrayLen(len(names))
	for _, name := range names {
		if cmd := commandIndex[strings.ToLower(string(name))]; cmd != nil {
			commandInfoReply(c, cmd)
		} else {
			c.null()
		}
	}
}

func cmdCommandDocs(c *cmdCtx) {
	var cmds []*command
	if len(c.args) == 2 {
		cmds = allCommands
	}
	for _, name := range c.args[2:] {
		if cmd := commandIndex[strings.ToLower(string(name))]; cmd != nil {
			cmds = append(cmds, cmd)
		}
	}
	c.mapLen(len(cmds))
	for _, cmd := range cmds {
		c.bulkString(cmd.Name)
		subs := subcommandTables[cmd.Name]
		n := 3
		if len(subs) > 0 {
			n++
		}
		c.mapLen(n)
		docFields(c, cmd.Summary, cmd.Since, cmd.Group)
		if len(subs) > 0 {
			c.bulkString("subcommands")
			c.mapLen(len(subs))
			for _, s := range subs {
				c.bulkString(cmd.Name + "|" + s.Name)
				c.mapLen(3)
				docFields(c, s.Summary, cmd.Since, cmd.Group)
			}
		}
	}
}

func docFields(c *cmdCtx, summary, since, group string) {
	c.bulkString("summary")
	c.bulkString(summary)
	c.bulkString("since")
	c.bulkString(since)
	c.bulkString("group")
	c.bulkString(group)
}

func cmdCommandList(c *cmdCtx) {
	if len(c.args) != 2 {
		c.errReply(errSyntax)
		return
	}
	var names []string
	for _, cmd := range allCommands {
		names = append(names, cmd.Name)
		for _, s := range subcommandTables[cmd.Name] {
			names = append(names, cmd.Name+"|"+s.Name)
		}
	}
	c.arrayLen(len(names))
	for _, n := range names {
		c.bulkString(n)
	}
}

// commandInfoReply writes Redis 7's ten-element COMMAND INFO entry.
func commandInfoReply(c *cmdCtx, cmd *command) {
	subs := subcommandTables[cmd.Name]
	c.arrayLen(10)
	c.bulkString(cmd.Name)
	c.integer(int64(cmd.Arity))
	flags := flagNames(cmd.Flags)
	c.setLen(len(flags))
	for _, f := range flags {
		c.simple(f)
	}
	step := cmd.Step
	if cmd.First > 0 && step == 0 {
		step = 1
	}
	c.integer(int64(cmd.First))
	c.integer(int64(cmd.Last))
	c.integer(int64(step))
	cats := aclCategories(cmd)
	c.setLen(len(cats))
	for _, cat := range cats {
		c.simple(cat)
	}
	c.setLen(0) // tips
	keySpecReply(c, cmd, step)
	c.arrayLen(len(subs))
	for _, s := range subs {
		c.arrayLen(10)
		c.bulkString(cmd.Name + "|" + s.Name)
		c.integer(int64(s.Arity))
		c.setLen(len(flags))
		for _, f := range flags {
			c.simple(f)
		}
		c.integer(0)
		c.integer(0)
		c.integer(0)
		c.setLen(len(cats))
		for _, cat := range cats {
			c.simple(cat)
		}
		c.setLen(0)
		c.arrayLen(0)
		c.arrayLen(0)
	}
}

// keySpecReply writes one key spec equivalent to First, Last and Step.
func keySpecReply(c *cmdCtx, cmd *command, step int) {
	if cmd.First <= 0 {
		c.arrayLen(0)
		return
	}
	last := cmd.Last
	if last > 0 {
		last -= cmd.First
	}
	c.arrayLen(1)
	c.mapLen(3)
	c.bulkString("flags")
	if cmd.Flags&flagWrite != 0 {
		c.setLen(2)
		c.simple("RW")
		c.simple("update")
	} else {
		c.setLen(2)
		c.simple("RO")
		c.simple("access")
	}
	c.bulkString("begin_search")
	c.mapLen(2)
	c.bulkString("type")
	c.bulkString("index")
	c.bulkString("spec")
	c.mapLen(1)
	c.bulkString("index")
	c.integer(int64(cmd.First))
	c.bulkString("find_keys")
	c.mapLen(2)
	c.bulkString("type")
	c.bulkString("range")
	c.bulkString("spec")
	c.mapLen(3)
	c.bulkString("lastkey")
	c.integer(int64(last))
	c.bulkString("keystep")
	c.integer(int64(step))
	c.bulkString("limit")
	c.integer(0)
}

func flagNames(f cmdFlags) []string {
	var out []string
	for _, fl := range []struct {
		bit  cmdFlags
		name string
	}{{flagWrite, "write"}, {flagReadOnly, "readonly"}, {flagDenyOOM, "denyoom"}, {flagAdmin, "admin"}, {flagNoScript, "noscript"},
		{flagLoading, "loading"}, {flagStale, "stale"}, {flagFast, "fast"}, {flagNoAuth, "no_auth"}} {
		if f&fl.bit != 0 {
			out = append(out, fl.name)
		}
	}
	return out
}

func aclCategories(cmd *command) []string {
	var out []string
	switch cmd.Group {
	case "string":
		out = append(out, "@string")
	case "generic":
		out = append(out, "@keyspace")
	case "connection":
		out = append(out, "@connection")
	}
	if cmd.Flags&flagWrite != 0 {
		out = append(out, "@write")
	}
	if cmd.Flags&flagReadOnly != 0 {
		out = append(out, "@read")
	}
	if cmd.Flags&flagAdmin != 0 {
		out = append(out, "@admin", "@dangerous")
	}
	if cmd.Flags&flagFast != 0 {
		out = append(out, "@fast")
	} else {
		out = append(out, "@slow")
	}
	return out
}

// CONFIG

func cmdConfig(c *cmdCtx) { dispatchSub(c, "CONFIG", configSubcommands) }

// cmdConfigGet is CONFIG GET pattern [pattern ...]: a map of every setting
// matching any pattern (glob, case-insensitive).
func cmdConfigGet(c *cmdCtx) {
	var hit []*configParam
	for i := range configParams {
		p := &configParams[i]
		for _, pat := range c.args[2:] {
			if ok, _ := path.Match(strings.ToLower(string(pat)), p.name); ok {
				hit = append(hit, p)
				break
			}
		}
	}
	c.mapLen(len(hit))
	for _, p := range hit {
		c.bulkString(p.name)
		c.bulkString(p.get(c.srv))
	}
}

// cmdConfigSet is CONFIG SET name value [name value ...]; all or nothing
// is checked before any is applied.
func cmdConfigSet(c *cmdCtx) {
	if len(c.args)%2 != 0 {
		c.errReply("ERR wrong number of arguments for 'config|set' command")
		return
	}
	type change struct {
		p   *configParam
		val string
	}
	var changes []change
	for i := 2; i < len(c.args); i += 2 {
		p := findConfigParam(c.args[i])
		if p == nil {
			c.errReply("ERR Unknown option or number of arguments for CONFIG SET - '" + clip(c.args[i]) + "'")
			return
		}
		if p.set == nil {
			c.errReply("ERR CONFIG SET failed (possibly related to argument '" + p.name + "') - can't set immutable config")
			return
		}
		changes = append(changes, change{p, string(c.args[i+1])})
	}
	for _, ch := range changes {
		if msg := ch.p.set(c.srv, ch.val); msg != "" {
			c.errReply("ERR CONFIG SET failed (possibly related to argument '" + ch.p.name + "') - " + msg)
			return
		}
	}
	c.ok()
}

// cmdConfigResetStat zeroes the server's counters; the store's hit, miss
// and expiry counters are not reset.
func cmdConfigResetStat(c *cmdCtx) {
	s := c.srv
	s.stats.totalConns.Store(0)
	s.stats.rejectedConns.Store(0)
	s.stats.resetCommands.Add(s.totalCommands())
	c.ok()
}

func cmdConfigRewrite(c *cmdCtx) {
	if c.srv.opts.ConfigFile == "" {
		c.errReply("ERR The server is running without a config file")
		return
	}
	c.errReply("ERR Rewriting config file: CONFIG REWRITE is not supported by loopkv")
}

// configParam is one setting CONFIG GET reports. set returns "" or the
// reason the value was refused; nil set means immutable.
type configParam struct {
	name string
	get  func(s *Server) string
	set  func(s *Server, v string) string
}

func findConfigParam(name []byte) *configParam {
	for i := range configParams {
		if bytes.EqualFold(name, []byte(configParams[i].name)) {
			return &configParams[i]
		}
	}
	return nil
}

func constParam(name, value string) configParam {
	return configParam{name: name, get: func(*Server) string { return value }}
}

// settable is a setting with no effect in loopkv: stored and reported.
func settable(name, def string) configParam {
	return configParam{name: name,
		get: func(s *Server) string { return s.cfg.misc(name, def) },
		set: func(s *Server, v string) string { s.cfg.setMisc(name, v); return "" }}
}

func intParam(name string, min int64, v func(s *Server) int64, set func(s *Server, n int64)) configParam {
	return configParam{name: name,
		get: func(s *Server) string { return strconv.FormatInt(v(s), 10) },
		set: func(s *Server, val string) string {
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return "argument couldn't be parsed into an integer"
			}
			if n < min {
				return "argument must be between " + strconv.FormatInt(min, 10) + " and 9223372036854775807 inclusive"
			}
			set(s, n)
			return ""
		}}
}

func memParam(name string, min int64, v func(s *Server) int64, set func(s *Server, n int64)) configParam {
	return configParam{name: name,
		get: func(s *Server) string { return strconv.FormatInt(v(s), 10) },
		set: func(s *Server, val string) string {
			n, ok := ParseMemory(val)
			if !ok {
				return "argument must be a memory value"
			}
			if n < min {
				return "argument must be between " + strconv.FormatInt(min, 10) + " and 9223372036854775807 inclusive"
			}
			set(s, n)
			return ""
		}}
}

var configParams = []configParam{
	{name: "bind", get: func(s *Server) string { return s.opts.Bind }},
	{name: "port", get: func(s *Server) string { return strconv.Itoa(s.opts.Port) }},
	{name: "databases", get: func(s *Server) string { return strconv.Itoa(s.opts.Databases) }},
	{name: "io-threads", get: func(s *Server) string { return strconv.Itoa(s.opts.Loops) }},
	intParam("maxclients", 1, func(s *Server) int64 { return s.cfg.maxClients.Load() },
		func(s *Server, n int64) { s.cfg.maxClients.Store(n) }),
	intParam("timeout", 0, func(s *Server) int64 { return s.cfg.timeout.Load() },
		func(s *Server, n int64) { s.cfg.timeout.Store(n) }),
	{name: "requirepass",
		get: func(s *Server) string { return *s.cfg.requirePass.Load() },
		set: func(s *Server, v string) string { s.cfg.requirePass.Store(&v); s.acl.setRequirePass(v); return "" }},
	{name: "loglevel",
		get: func(s *Server) string { return *s.cfg.logLevel.Load() },
		set: func(s *Server, v string) string {
			v = strings.ToLower(v)
			lvl, ok := ZapLevel(v)
			if !ok {
				return "argument(s) must be one of the following: debug, verbose, notice, warning"
			}
			s.cfg.logLevel.Store(&v)
			if s.opts.Level != nil {
				s.opts.Level.SetLevel(lvl)
			}
			return ""
		}},
	memParam("client-query-buffer-limit", 1<<20, func(s *Server) int64 { return s.cfg.queryBufLimit.Load() },
		func(s *Server, n int64) { s.cfg.queryBufLimit.Store(n) }),
	memParam("proto-max-bulk-len", 1<<20, func(s *Server) int64 { return s.cfg.protoMaxBulk.Load() },
		func(s *Server, n int64) { s.cfg.protoMaxBulk.Store(n) }),
	{name: "client-output-buffer-limit",
		get: func(s *Server) string { return *s.cfg.outBufLimitRaw.Load() },
		set: setOutputBufferLimit},
	settable("save", ""),
	{name: "appendonly",
		get: func(*Server) string { return "no" },
		set: func(_ *Server, v string) string {
			if strings.EqualFold(v, "no") {
				return ""
			}
			return "loopkv does not persist: appendonly must be no"
		}},
	settable("appendfsync", "everysec"),
	maxMemoryParam,
	maxMemoryPolicyParam,
	maxMemorySamplesParam,
	maxMemoryTenacityParam,
	protectedModeParam,
	settable("tcp-keepalive", "300"),
	settable("hz", "10"),
	settable("dbfilename", "dump.rdb"),
	settable("slowlog-log-slower-than", "10000"),
	settable("slowlog-max-len", "128"),
	constParam("tls-port", "0"),
	{name: "dir", get: func(*Server) string { d, _ := os.Getwd(); return d }},
}

// setOutputBufferLimit parses "class hard soft seconds ..." and applies the
// hard limit of class normal; the other classes are only reported.
func setOutputBufferLimit(s *Server, v string) string {
	f := strings.Fields(v)
	if len(f)%4 != 0 || len(f) == 0 {
		return "Wrong number of arguments in buffer limit configuration."
	}
	hard := int64(-1)
	for i := 0; i < len(f); i += 4 {
		class := strings.ToLower(f[i])
		if class != "normal" && class != "replica" && class != "slave" && class != "pubsub" {
			return "Invalid client class specified in buffer limit configuration."
		}
		h, ok1 := ParseMemory(f[i+1])
		_, ok2 := ParseMemory(f[i+2])
		_, err := strconv.Atoi(f[i+3])
		if !ok1 || !ok2 || err != nil {
			return "Error in hard, soft or soft_seconds setting in buffer limit configuration."
		}
		if class == "normal" {
			hard = h
		}
	}
	if hard == 0 {
		hard = 1 << 62 // Redis: 0 means no limit
	}
	if hard > 0 {
		s.cfg.outBufLimit.Store(hard)
	}
	s.cfg.outBufLimitRaw.Store(&v)
	return ""
}

var (
	configSubcommands = []subcommand{
		{Name: "get", Arity: -3, Summary: "Return parameters matching the glob-like <pattern> and their values.", Fn: cmdConfigGet},
		{Name: "set", Arity: -4, Summary: "Set the option <directive> to <value>.", Fn: cmdConfigSet},
		{Name: "resetstat", Arity: 2, Summary: "Reset statistics reported by the INFO command.", Fn: cmdConfigResetStat},
		{Name: "rewrite", Arity: 2, Summary: "Rewrite the configuration file.", Fn: cmdConfigRewrite},
	}
	commandSubcommands = []subcommand{
		{Name: "count", Arity: 2, Summary: "Return the total number of commands in this server.", Fn: cmdCommandCount},
		{Name: "info", Arity: -2, Summary: "Return details about the given commands, or all of them.", Fn: cmdCommandInfo},
		{Name: "docs", Arity: -2, Summary: "Return documentation details about the given commands, or all of them.", Fn: cmdCommandDocs},
		{Name: "list", Arity: -2, Summary: "Return a list of all commands in this server.", Fn: cmdCommandList},
	}
	// subcommandTables maps a container command to its subcommands; set in
	// init because COMMAND's handlers read it.
	subcommandTables map[string][]subcommand
	// subcommandRows gives each subcommand a row named container|sub, in
	// table order, keyed by the container's row; for CLIENT LIST cmd=.
	subcommandRows map[*command][]command
)

func init() {
	// dispatch.go's init, which runs after this one, builds subcommandRows.
	subcommandTables = map[string][]subcommand{
		"acl":     aclSubcommands,
		"client":  clientSubcommands,
		"config":  configSubcommands,
		"command": commandSubcommands,
	}
}

var serverCommands = []command{
	{Name: "info", Arity: -1, Flags: flagLoading | flagStale, Group: "server", Since: "1.0.0", Summary: "Returns information and statistics about the server.", Fn: cmdInfo},
	{Name: "command", Arity: -1, Flags: flagLoading | flagStale, Group: "server", Since: "2.8.13", Summary: "Returns detailed information about all commands.", Fn: cmdCommand},
	{Name: "config", Arity: -2, Flags: flagAdmin | flagNoScript | flagLoading | flagStale, Group: "server", Since: "2.0.0", Summary: "A container for server configuration commands.", Fn: cmdConfig},
	{Name: "time", Arity: 1, Flags: flagFast | flagLoading | flagStale, Group: "server", Since: "2.6.0", Summary: "Returns the server time.", Fn: cmdTime},
	{Name: "shutdown", Arity: -1, Flags: flagAdmin | flagNoScript | flagLoading | flagStale, Group: "server", Since: "1.0.0", Summary: "Synchronously saves the database(s) to disk and shuts down the Redis server.", Fn: cmdShutdown},
}
