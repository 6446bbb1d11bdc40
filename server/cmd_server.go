package server

import (
	"bytes"
	"path"
	"strconv"
	"strings"
	"time"
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

// CONFIG

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
	s.resetStats()
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
	trackingMaxKeysParam,
	protectedModeParam,
	settable("tcp-keepalive", "300"),
	settable("hz", "10"),
	constParam("tls-port", "0"),
}

// setOutputBufferLimit parses "class hard soft seconds ..." and applies the
// hard limit of class normal; the other classes are only reported.
func setOutputBufferLimit(s *Server, v string) string {
	f := strings.Fields(v)
	if len(f)%4 != 0 || len(f) == 0 {
		return "Wrong number of arguments in buffer limit configuration."
	}
	hard := int64(-1)
	pubsub := outboxLimit{hard: -1}
	for i := 0; i < len(f); i += 4 {
		class := strings.ToLower(f[i])
		if class != "normal" && class != "replica" && class != "slave" && class != "pubsub" {
			return "Invalid client class specified in buffer limit configuration."
		}
		h, ok1 := ParseMemory(f[i+1])
		soft, ok2 := ParseMemory(f[i+2])
		secs, err := strconv.Atoi(f[i+3])
		if !ok1 || !ok2 || err != nil {
			return "Error in hard, soft or soft_seconds setting in buffer limit configuration."
		}
		switch class {
		case "normal":
			hard = h
		case "pubsub":
			pubsub = outboxLimit{h, soft, int64(secs)}
		}
	}
	if pubsub.hard >= 0 {
		s.cfg.pubsubHard.Store(pubsub.hard)
		s.cfg.pubsubSoft.Store(pubsub.soft)
		s.cfg.pubsubSoftSecs.Store(pubsub.softSecs)
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

// configHelp is CONFIG HELP's text.
var configHelp = []string{
	"CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"GET <pattern>",
	"    Return parameters matching the glob-like <pattern> and their values.",
	"SET <directive> <value>",
	"    Set the configuration <directive> to <value>.",
	"RESETSTAT",
	"    Reset statistics reported by the INFO command.",
	"REWRITE",
	"    Rewrite the configuration file.",
	"HELP",
	"    Prints this help.",
}

func cmdConfigHelp(c *cmdCtx) { helpReply(c, configHelp) }

var serverCommands = []command{
	{Name: "info", Arity: -1, Flags: flagLoading | flagStale, ACL: catDangerous,
		Tips: []string{"nondeterministic_output", "request_policy:all_shards", "response_policy:special"},
		Doc: cmdDoc{Summary: "Get information and statistics about the server", Since: "1.0.0", Group: "server",
			Complexity: "O(1)",
			History:    [][2]string{{"7.0.0", "Added support for taking multiple section arguments."}},
			Args: []cmdArg{
				{Name: "section", Type: argString, Flags: argOptional | argMultiple},
			}},
		Fn: cmdInfo},
	{Name: "config", Arity: -2,
		Doc: cmdDoc{Summary: "A container for server configuration commands", Since: "2.0.0", Group: "server",
			Complexity: "Depends on subcommand."},
		Subs: []command{
			{Name: "get", Arity: -3, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
				Doc: cmdDoc{Summary: "Get the values of configuration parameters", Since: "2.0.0", Group: "server",
					Complexity: "O(N) when N is the number of configuration parameters provided",
					History:    [][2]string{{"7.0.0", "Added the ability to pass multiple pattern parameters in one call"}},
					Args: []cmdArg{
						{Name: "parameter", Type: argBlock, Flags: argMultiple, Args: []cmdArg{
							{Name: "parameter", Type: argString},
						}},
					}},
				Fn: cmdConfigGet},
			{Name: "help", Arity: 2, Flags: flagLoading | flagStale,
				Doc: cmdDoc{Summary: "Show helpful text about the different subcommands", Since: "5.0.0", Group: "server",
					Complexity: "O(1)"},
				Fn: cmdConfigHelp},
			{Name: "resetstat", Arity: 2, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
				Doc: cmdDoc{Summary: "Reset the stats returned by INFO", Since: "2.0.0", Group: "server",
					Complexity: "O(1)"},
				Fn: cmdConfigResetStat},
			{Name: "rewrite", Arity: 2, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
				Doc: cmdDoc{Summary: "Rewrite the configuration file with the in memory configuration", Since: "2.8.0", Group: "server",
					Complexity: "O(1)"},
				Fn: cmdConfigRewrite},
			{Name: "set", Arity: -4, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
				Tips: []string{"request_policy:all_nodes", "response_policy:all_succeeded"},
				Doc: cmdDoc{Summary: "Set configuration parameters to the given values", Since: "2.0.0", Group: "server",
					Complexity: "O(N) when N is the number of configuration parameters provided",
					History:    [][2]string{{"7.0.0", "Added the ability to set multiple parameters in one call."}},
					Args: []cmdArg{
						{Name: "parameter_value", Type: argBlock, Flags: argMultiple, Args: []cmdArg{
							{Name: "parameter", Type: argString},
							{Name: "value", Type: argString},
						}},
					}},
				Fn: cmdConfigSet},
		}},
	{Name: "time", Arity: 1, Flags: flagLoading | flagStale | flagFast,
		Tips: []string{"nondeterministic_output"},
		Doc: cmdDoc{Summary: "Return the current server time", Since: "2.6.0", Group: "server",
			Complexity: "O(1)"},
		Fn: cmdTime},
	{Name: "shutdown", Arity: -1, Flags: flagAdmin | flagNoScript | flagLoading | flagStale | flagNoMulti | flagAllowBusy,
		Doc: cmdDoc{Summary: "Synchronously save the dataset to disk and then shut down the server", Since: "1.0.0", Group: "server",
			Complexity: "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)",
			History:    [][2]string{{"7.0.0", "Added the `NOW`, `FORCE` and `ABORT` modifiers."}},
			Args: []cmdArg{
				{Name: "nosave_save", Type: argOneOf, Flags: argOptional, Args: []cmdArg{
					{Name: "nosave", Type: argPureToken, Token: "NOSAVE"},
					{Name: "save", Type: argPureToken, Token: "SAVE"},
				}},
				{Name: "now", Type: argPureToken, Token: "NOW", Since: "7.0.0", Flags: argOptional},
				{Name: "force", Type: argPureToken, Token: "FORCE", Since: "7.0.0", Flags: argOptional},
				{Name: "abort", Type: argPureToken, Token: "ABORT", Since: "7.0.0", Flags: argOptional},
			}},
		Fn: cmdShutdown},
}

func init() { register(serverCommands...) }
