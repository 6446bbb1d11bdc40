package server

import (
	"github.com/loopkv/loopkv/config"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Server family: INFO, COMMAND, CONFIG, TIME, SHUTDOWN.

// cmdInfo is INFO [section ...]; see info.go.
func cmdInfo(c *cmdCtx) {
	c.verbatim(c.srv.appendInfo(c.store, nil, c.args[1:]))
}

func cmdTime(c *cmdCtx) {
	now := time.Now()
	var tmp [20]byte
	c.arrayLen(2)
	c.bulk(strconv.AppendInt(tmp[:0], now.Unix(), 10))
	c.bulk(strconv.AppendInt(tmp[:0], int64(now.Nanosecond()/1000), 10))
}

// CONFIG

// cmdConfigResetStat zeroes the counters Redis's resets: connections,
// commands, errors, latencies, and INFO's expired, evicted, hit and miss
// counts (from the store's counts now; the metrics endpoint keeps them
// monotonic).
func cmdConfigResetStat(c *cmdCtx) {
	s := c.srv
	st := storeStats(c.store) // the view: inside EXEC the transaction's, which holds the locks
	s.stats.resetStore.Store(&keyspaceStats{expired: st.expired, evicted: st.evicted, hits: st.hits, misses: st.misses})
	s.stats.totalConns.Store(0)
	s.stats.rejectedConns.Store(0)
	s.stats.resetCommands.Add(s.totalCommands())
	s.resetStats()
	c.ok()
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

func init() {
	register(serverCommands...)
	registerSettings(serverSettings...)
}

// serverSettings are the connection, client and logging settings.
var serverSettings = []configParam{
	{Setting: config.Setting{Name: "bind", Default: "127.0.0.1", Type: config.Func(func(v string) (config.Value, string) { return config.Value{S: v}, "" }), Flags: config.Immutable,
		Help: "address to listen on (the first of a list)"},
		get: func(s *Server) string { return s.opts.Bind },
		opt: func(o *Options, v config.Value) string { o.Bind = strings.Fields(v.S + " ")[0]; return "" }},
	{Setting: config.Setting{Name: "port", Default: "6379", Type: config.Int{Max: 65535}, Flags: config.Immutable,
		Help: "TCP port for plaintext clients; 0 listens on the TLS port only"},
		get: func(s *Server) string { return strconv.Itoa(max(s.opts.Port, 0)) },
		opt: func(o *Options, v config.Value) string {
			o.Port = int(v.N)
			if o.Port == 0 {
				o.Port = -1 // port 0: no plaintext listener (TLS only), as in Redis
			}
			return ""
		}},
	{Setting: config.Setting{Name: "databases", Default: "16", Type: config.Int{Min: 1, Max: math.MaxInt32}, Flags: config.Immutable,
		Help: "number of logical databases (SELECT 0 to N-1)"},
		get: func(s *Server) string { return strconv.Itoa(s.opts.Databases) },
		opt: func(o *Options, v config.Value) string { o.Databases = int(v.N); return "" }},
	{Setting: config.Setting{Name: "io-threads", Default: "1", Type: config.Int{Min: 1, Max: 128}, Flags: config.Immutable | config.NoRewrite,
		Help: "accepted for redis.conf; CONFIG GET reports the event loops (see loops)"},
		get: func(s *Server) string { return strconv.Itoa(s.opts.Loops) }},
	{Setting: config.Setting{Name: "loops", Default: "0", Type: config.Int{Max: 1024}, Flags: config.Immutable | config.Own | config.NoRewrite,
		Help: "event loops; 0 is one per CPU (GOMAXPROCS)"},
		get: func(s *Server) string { return strconv.Itoa(s.opts.Loops) },
		opt: func(o *Options, v config.Value) string { o.Loops = int(v.N); return "" }},
	{Setting: config.Setting{Name: "engine", Default: "gnet", Type: config.Enum{"gnet", "netpoll"}, Flags: config.Immutable | config.Own,
		Help: "event-loop library: gnet or netpoll"},
		get: func(s *Server) string { return s.opts.Engine },
		opt: func(o *Options, v config.Value) string { o.Engine = v.S; return "" }},
	{Setting: config.Setting{Name: "aclfile", Default: "", Type: config.String{}, Flags: config.Immutable,
		Help: "users file, loaded at start and by ACL LOAD, written by ACL SAVE"},
		get: func(s *Server) string { return s.opts.ACLFile },
		opt: func(o *Options, v config.Value) string { o.ACLFile = v.S; return "" }},
	{Setting: config.Setting{Name: "metrics-port", Default: "0", Type: config.Int{Max: 65535}, Flags: config.Immutable | config.Own,
		Help: "serve Prometheus metrics on http://bind:PORT/metrics; 0 is off"},
		get: func(s *Server) string { return strconv.Itoa(max(s.opts.MetricsPort, 0)) },
		opt: func(o *Options, v config.Value) string { o.MetricsPort = int(v.N); return "" }},
	fixed(config.Setting{Name: "tcp-backlog", Default: "511", Type: config.Int{Max: math.MaxInt32},
		Help: "listen backlog (accepted; the kernel's somaxconn applies)"}),
	fixed(config.Setting{Name: "supervised", Default: "no", Type: config.Enum{"upstart", "systemd", "auto", "no"},
		Help: "supervision by upstart or systemd (accepted; no effect)"}),
	fixed(config.Setting{Name: "daemonize", Default: "no", Type: config.Bool{},
		Help: "run in the background: the daemon starts itself again detached, and returns once it listens"}),
	fixed(config.Setting{Name: "pidfile", Default: "", Type: config.String{},
		Help: "file the daemon writes its process id to, removed at exit; /var/run/redis.pid with daemonize yes"}),
	atomicInt(config.Setting{Name: "maxclients", Default: "10000", Type: config.Int{Min: 1, Max: math.MaxUint32, Unsigned: true},
		Help: "most clients connected at once; more are refused with an error"},
		func(s *Server) *atomic.Int64 { return &s.cfg.maxClients },
		func(o *Options, n int64) { o.MaxClients = int(n) }),
	atomicInt(config.Setting{Name: "timeout", Default: "0", Type: config.Int{Max: math.MaxInt32},
		Help: "close a client idle this many seconds; 0 never"},
		func(s *Server) *atomic.Int64 { return &s.cfg.timeout },
		func(o *Options, n int64) { o.Timeout = int(n) }),
	{Setting: config.Setting{Name: "requirepass", Default: "", Type: config.String{},
		Help: "the default user's password; empty for none"},
		get: func(s *Server) string { return *s.cfg.requirePass.Load() },
		apply: func(s *Server, v config.Value) {
			pass := v.S
			s.cfg.requirePass.Store(&pass)
			s.acl.setRequirePass(pass)
		},
		opt: func(o *Options, v config.Value) string { o.RequirePass = v.S; return "" }},
	{Setting: config.Setting{Name: "loglevel", Default: "notice", Type: config.Enum{"debug", "verbose", "notice", "warning"},
		Help: "log verbosity: debug, verbose, notice or warning"},
		get: func(s *Server) string { return *s.cfg.logLevel.Load() },
		apply: func(s *Server, v config.Value) {
			name := v.S
			s.cfg.logLevel.Store(&name)
			if lvl, ok := ZapLevel(name); ok && s.opts.Level != nil {
				s.opts.Level.SetLevel(lvl)
			}
		},
		opt: func(o *Options, v config.Value) string { o.LogLevel = v.S; return "" }},
	atomicInt(config.Setting{Name: "client-query-buffer-limit", Default: "1gb",
		Type: config.Memory{Min: 1 << 20, Max: math.MaxInt64, Unsigned: true},
		Help: "close a client whose unparsed input grows past this size"},
		func(s *Server) *atomic.Int64 { return &s.cfg.queryBufLimit },
		func(o *Options, n int64) { o.ClientQueryBufferLimit = n }),
	atomicInt(config.Setting{Name: "proto-max-bulk-len", Default: "512mb", Type: config.Memory{Min: 1 << 20, Max: math.MaxInt64},
		Help: "longest bulk string a request may carry"},
		func(s *Server) *atomic.Int64 { return &s.cfg.protoMaxBulk },
		func(o *Options, n int64) { o.ProtoMaxBulkLen = n }),
	{Setting: config.Setting{Name: "client-output-buffer-limit", Default: "normal 256mb 0 0", Type: config.Func(checkOutputLimits), Flags: config.Append,
		Help: "CLASS HARD SOFT SECONDS: close a client (normal, replica, pubsub) whose unsent replies pass HARD"},
		get:     func(s *Server) string { return formatOutputLimits(s.cfg.outLimits.Load()) },
		apply:   func(s *Server, v config.Value) { s.setOutputLimits(v.S) },
		rewrite: rewriteOutputLimits},
	settable(config.Setting{Name: "tcp-keepalive", Default: "300", Type: config.Int{Max: math.MaxInt32},
		Help: "TCP keepalive period in seconds (accepted; no effect)"}),
	settable(config.Setting{Name: "hz", Default: "10", Type: config.Int{Max: math.MaxInt32},
		Help: "background task frequency (accepted; no effect)"}),
}
