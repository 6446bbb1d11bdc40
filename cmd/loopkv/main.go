// Command loopkv is a Redis-protocol server on per-core event loops.
//
// Usage:
//
//	loopkv [/path/to/loopkv.conf] [--port 6379] [--bind 127.0.0.1] [--loops N] [--engine gnet|netpoll] ...
//
// The optional config file uses redis.conf syntax; flags, named like its
// settings, override it. SIGINT and SIGTERM stop the server gracefully,
// after the final save when save rules are set (as SHUTDOWN does); when
// that save fails the server keeps running, as Redis does.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/loopkv/loopkv/config"
	"github.com/loopkv/loopkv/server"
	"github.com/loopkv/loopkv/store"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "loopkv:", err)
		os.Exit(1)
	}
}

// settings are the values the daemon understands, by redis.conf name.
type settings map[string]string

var defaults = settings{
	"bind": "127.0.0.1", "port": "6379", "loops": "0", "maxclients": "10000",
	"requirepass": "", "timeout": "0", "loglevel": "notice", "databases": "16",
	"client-query-buffer-limit": "1gb", "proto-max-bulk-len": "512mb",
	"client-output-buffer-limit": "normal 256mb 0 0", "tls-port": "0", "dev-tls-dir": "",
	"engine":    "gnet", // event-loop library: gnet or netpoll
	"aclfile":   "",     // users file, loaded at start (ACL LOAD/SAVE use it too)
	"maxmemory": "0", "maxmemory-policy": "noeviction", "maxmemory-samples": "5",
	"protected-mode": "yes", // only loopback clients while the default user has no password
	"logfile":        "",    // log file, appended to; "" is stderr
	"log-format":     "",    // console or json; "" is console on a terminal, else json
	"syslog-enabled": "no", "syslog-ident": "loopkv", "syslog-facility": "local0",
	"slowlog-log-slower-than": "10000", "slowlog-max-len": "128", "latency-monitor-threshold": "0",
	"latency-tracking": "yes", "latency-tracking-info-percentiles": "50 99 99.9",
	"metrics-port": "0", // Prometheus metrics on http://bind:PORT/metrics; 0 is off
	"save":         "3600 1 300 100 60 10000", "dir": "", "dbfilename": "dump.rdb",
	"rdbcompression": "yes", "rdbchecksum": "yes", "stop-writes-on-bgsave-error": "yes",
	"rdb-del-sync-files": "no", "enable-protected-configs": "no",
	"notify-keyspace-events": "", // keyspace events published (Redis's letters); "" is none
	"appendonly":             "no", "appendfsync": "everysec", "appenddirname": "appendonlydir",
	"appendfilename": "appendonly.aof", "auto-aof-rewrite-percentage": "100", "auto-aof-rewrite-min-size": "64mb",
	"aof-load-truncated": "yes", "aof-use-rdb-preamble": "yes", "aof-timestamp-enabled": "no",
	"aof-rewrite-incremental-fsync": "yes",
}

// ignored are redis.conf directives accepted without effect.
var ignored = map[string]bool{
	"daemonize": false, "tcp-backlog": true,
	"tcp-keepalive": true, "hz": true,
	"supervised": true, "pidfile": true, "io-threads": true,
}

func init() {
	for i := range server.EncodingSettings {
		e := &server.EncodingSettings[i]
		defaults[e.Name] = e.Default()
		if e.Alias != "" {
			defaults[e.Alias] = "" // unset; when given, it sets e.Name
		}
	}
}

func run(args []string) error {
	args, profile := takeCPUProfileFlag(args) // profile.go
	if profile != "" {
		stop, err := startCPUProfile(profile)
		if err != nil {
			return err
		}
		defer stop()
	}
	cfg, configFile, err := loadSettings(args)
	if err != nil {
		return err
	}
	opts, level, err := buildOptions(cfg)
	if err != nil {
		return err
	}
	opts.ConfigFile = configFile
	log, err := newLogger(cfg, level, &opts.Log)
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()
	opts.Logger, opts.Level = log, &level
	return serve(context.Background(), cfg, opts) // tls.go: SIGHUP reloads TLS; SIGINT and SIGTERM shut down
}

// loadSettings merges the defaults, the config file named by the first
// argument (if it is not a flag) and the flags, in that order.
func loadSettings(args []string) (settings, string, error) {
	cfg := settings{}
	for k, v := range defaults {
		cfg[k] = v
	}
	configFile := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		configFile, args = args[0], args[1:]
		if err := loadConfigFile(configFile, cfg); err != nil {
			return nil, "", err
		}
	}
	fs := flag.NewFlagSet("loopkv", flag.ContinueOnError)
	flagVals := map[string]*string{}
	help := settingHelp()
	for _, name := range sortedKeys(defaults) {
		if repeatable[name] { // tls.go
			v := cfg[name]
			flagVals[name] = &v
			fs.Var(&multiFlag{v: &v}, name, help(name)+" (repeatable)")
			continue
		}
		flagVals[name] = fs.String(name, cfg[name], help(name))
	}
	if err := fs.Parse(args); err != nil {
		return nil, "", err
	}
	if fs.NArg() > 0 {
		return nil, "", fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	for name, p := range flagVals {
		cfg[name] = *p
	}
	return cfg, configFile, nil
}

func loadConfigFile(path string, cfg settings) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	dirs, err := config.ParseFile(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	seen := map[string]bool{} // repeatable directives add lines (tls.go)
	for _, d := range dirs {
		if _, ok := defaults[d.Name]; ok {
			v := strings.Join(d.Args, " ")
			if repeatable[d.Name] && seen[d.Name] {
				v = cfg[d.Name] + "\n" + v
			}
			seen[d.Name] = true
			cfg[d.Name] = v
			continue
		}
		if !ignored[d.Name] {
			return fmt.Errorf("%s:%d: bad directive or wrong number of arguments: %s", path, d.Line, d.Name)
		}
	}
	return nil
}

// buildOptions turns settings into server.Options and the log level.
func buildOptions(cfg settings) (server.Options, zap.AtomicLevel, error) {
	var o server.Options
	var errs []error
	num := func(name string) int {
		n, err := strconv.Atoi(cfg[name])
		if err != nil || n < 0 {
			errs = append(errs, fmt.Errorf("%s: not a non-negative integer: %q", name, cfg[name]))
		}
		return n
	}
	mem := func(name string) int64 {
		n, ok := server.ParseMemory(cfg[name])
		if !ok {
			errs = append(errs, fmt.Errorf("%s: not a memory size: %q", name, cfg[name]))
		}
		return n
	}
	o.Bind = strings.Fields(cfg["bind"] + " ")[0]
	o.Port = num("port")
	o.Loops = num("loops")
	o.MaxClients = num("maxclients")
	o.RequirePass = cfg["requirepass"]
	o.ACLFile = cfg["aclfile"]
	o.Timeout = num("timeout")
	o.Databases = num("databases")
	o.ClientQueryBufferLimit = mem("client-query-buffer-limit")
	o.ProtoMaxBulkLen = mem("proto-max-bulk-len")
	if f := strings.Fields(cfg["client-output-buffer-limit"]); len(f) >= 2 && strings.EqualFold(f[0], "normal") {
		if n, ok := server.ParseMemory(f[1]); ok && n > 0 {
			o.ClientOutputBufferLimit = n
		}
	}
	limits := store.DefaultLimits
	for i := range server.EncodingSettings {
		e := &server.EncodingSettings[i]
		name, v := e.Name, cfg[e.Name]
		if a := cfg[e.Alias]; e.Alias != "" && a != "" {
			name, v = e.Alias, a
		}
		if msg := e.Parse(&limits, v); msg != "" {
			errs = append(errs, fmt.Errorf("%s: %s: %q", name, msg, v))
		}
	}
	o.Limits = &limits
	o.MaxMemory = mem("maxmemory")
	o.MaxMemoryPolicy = strings.ToLower(cfg["maxmemory-policy"])
	if _, ok := store.ParsePolicy(o.MaxMemoryPolicy); !ok {
		errs = append(errs, fmt.Errorf("maxmemory-policy: must be noeviction, allkeys-lru, allkeys-random, volatile-lru, volatile-random or volatile-ttl: %q", cfg["maxmemory-policy"]))
	}
	if o.MaxMemorySamples = num("maxmemory-samples"); o.MaxMemorySamples < 1 {
		errs = append(errs, fmt.Errorf("maxmemory-samples: must be at least 1: %q", cfg["maxmemory-samples"]))
	}
	o.ProtectedMode = strings.ToLower(cfg["protected-mode"])
	if o.ProtectedMode != "yes" && o.ProtectedMode != "no" {
		errs = append(errs, fmt.Errorf("protected-mode: must be yes or no: %q", cfg["protected-mode"]))
	}
	o.Engine = strings.ToLower(cfg["engine"])
	if o.Engine != "gnet" && o.Engine != "netpoll" {
		errs = append(errs, fmt.Errorf("engine: must be gnet or netpoll: %q", cfg["engine"]))
	}
	if o.Port == 0 {
		o.Port = -1 // port 0: no plaintext listener (TLS only), as in Redis
	}
	var tlsErrs []error
	o.TLS, tlsErrs = buildTLSOptions(cfg, num)
	errs = append(errs, tlsErrs...)
	o.SlowlogLogSlowerThan, o.SlowlogMaxLen = cfg["slowlog-log-slower-than"], cfg["slowlog-max-len"]
	o.LatencyMonitorThreshold, o.LatencyTracking = cfg["latency-monitor-threshold"], cfg["latency-tracking"]
	if o.LatencyTrackingInfoPercentiles = cfg["latency-tracking-info-percentiles"]; o.LatencyTrackingInfoPercentiles == "" {
		o.LatencyTrackingInfoPercentiles = " " // given empty: no percentiles, as in Redis
	}
	o.MetricsPort = num("metrics-port")
	o.Persist = server.PersistOptions{Save: cfg["save"], Dir: cfg["dir"], DBFilename: cfg["dbfilename"],
		RDBCompression: cfg["rdbcompression"], RDBChecksum: cfg["rdbchecksum"],
		StopWritesOnBgsaveError: cfg["stop-writes-on-bgsave-error"], RDBDelSyncFiles: cfg["rdb-del-sync-files"],
		EnableProtectedConfigs: cfg["enable-protected-configs"], LoadOnStart: true}
	o.AOF = server.AOFOptions{AppendOnly: cfg["appendonly"], AppendFsync: cfg["appendfsync"],
		AppendDirName: cfg["appenddirname"], AppendFilename: cfg["appendfilename"],
		AutoAOFRewritePercentage: cfg["auto-aof-rewrite-percentage"], AutoAOFRewriteMinSize: cfg["auto-aof-rewrite-min-size"],
		AOFLoadTruncated: cfg["aof-load-truncated"], AOFUseRDBPreamble: cfg["aof-use-rdb-preamble"],
		AOFTimestampEnabled: cfg["aof-timestamp-enabled"], AOFRewriteIncrementalSync: cfg["aof-rewrite-incremental-fsync"]}
	o.NotifyKeyspaceEvents = cfg["notify-keyspace-events"]
	if msg := server.CheckNotifyKeyspaceEvents(o.NotifyKeyspaceEvents); msg != "" {
		errs = append(errs, fmt.Errorf("notify-keyspace-events: %s", msg))
	}
	o.LogLevel = strings.ToLower(cfg["loglevel"])
	lvl, ok := server.ZapLevel(o.LogLevel)
	if !ok {
		errs = append(errs, fmt.Errorf("loglevel: must be debug, verbose, notice or warning: %q", cfg["loglevel"]))
	}
	return o, zap.NewAtomicLevelAt(lvl), errors.Join(errs...)
}

// newLogger builds the logger the log settings describe, which it stores
// in c.
func newLogger(cfg settings, level zap.AtomicLevel, c *server.LogConfig) (*zap.Logger, error) {
	*c = server.LogConfig{Level: level, Format: cfg["log-format"], File: cfg["logfile"],
		SyslogIdent: cfg["syslog-ident"], SyslogFacility: cfg["syslog-facility"]}
	switch strings.ToLower(cfg["syslog-enabled"]) {
	case "yes":
		c.Syslog = true
	case "no":
	default:
		return nil, fmt.Errorf("syslog-enabled: must be yes or no: %q", cfg["syslog-enabled"])
	}
	return server.NewLogger(*c)
}

// settingHelp returns the one-line meaning of each setting, from the
// settings table.
func settingHelp() func(name string) string {
	m := map[string]string{}
	for _, st := range server.Settings() {
		m[st.Name] = st.Help
		for _, a := range st.Aliases {
			m[a] = "old name of " + st.Name
		}
	}
	for i := range server.EncodingSettings {
		e := &server.EncodingSettings[i]
		m[e.Name] = e.Help
		if e.Alias != "" {
			m[e.Alias] = "old name of " + e.Name
		}
	}
	return func(name string) string {
		if h := m[name]; h != "" {
			return h
		}
		return "redis.conf " + name
	}
}

func sortedKeys(m settings) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}
