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
	"io"
	"os"
	"sort"
	"strings"

	"go.uber.org/zap"

	"github.com/loopkv/loopkv/config"
	"github.com/loopkv/loopkv/server"
)

func main() {
	if err := run(os.Args[1:]); errors.Is(err, flag.ErrHelp) {
		return
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "loopkv:", err)
		os.Exit(1)
	}
}

// settings are the values the daemon understands, by redis.conf name.
type settings map[string]string

// localSettings are the daemon's own rows, beside the server's table.
var localSettings = []config.Setting{
	{Name: "dev-tls-dir", Type: config.String{}, Flags: config.Immutable | config.Own,
		Help: "generate (or reuse) a development CA and server certificate in this directory and serve TLS on 6380 (or tls-port)"},
}

// helpOutput receives --help's text.
var helpOutput io.Writer = os.Stderr

// table is every setting: the server's rows, then the daemon's.
func table() []config.Setting { return append(server.Settings(), localSettings...) }

func run(args []string) (err error) {
	ready := daemonReadyPipe() // daemon.go: set in the child daemonize yes starts
	defer func() { ready.signal(err) }()
	all := args
	args, profile := takeCPUProfileFlag(args) // profile.go
	cfg, configFile, err := loadSettings(args)
	if err != nil {
		return err
	}
	daemon := strings.EqualFold(cfg["daemonize"], "yes")
	if daemon && cfg["pidfile"] == "" {
		cfg["pidfile"] = defaultPidfile // as Redis's createPidFile
	}
	opts, level, err := buildOptions(cfg)
	if err != nil {
		return err
	}
	if daemon && ready == nil {
		return daemonize(all) // the parent returns once the child listens
	}
	if profile != "" {
		stop, err := startCPUProfile(profile)
		if err != nil {
			return err
		}
		defer stop()
	}
	opts.ConfigFile = configFile
	log, err := newLogger(level, &opts.Log)
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()
	opts.Logger, opts.Level = log, &level
	defer writePidfile(cfg["pidfile"], log)()
	return serve(context.Background(), cfg, opts, ready) // tls.go: SIGHUP reloads TLS; SIGINT and SIGTERM shut down
}

// loadSettings merges the defaults, the config file named by the first
// argument (if it is not a flag) and the flags, in that order. Aliases
// (hash-max-ziplist-entries) set their setting.
func loadSettings(args []string) (settings, string, error) {
	rows := table()
	cfg := settings{}
	byName := map[string]*config.Setting{}
	for i := range rows {
		st := &rows[i]
		cfg[st.Name] = st.Default
		byName[st.Name] = st
		for _, a := range st.Aliases {
			byName[a] = st
		}
	}
	configFile := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		configFile, args = args[0], args[1:]
		if err := loadConfigFile(configFile, cfg, byName); err != nil {
			return nil, "", err
		}
	}
	fs := flag.NewFlagSet("loopkv", flag.ContinueOnError)
	fs.SetOutput(helpOutput)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: loopkv [/path/to/loopkv.conf] [--setting value ...]\n\n"+
			"Settings, named as in redis.conf; flags override the file:\n")
		fs.PrintDefaults()
	}
	vals := map[string]*string{}
	for _, st := range sortedRows(rows) {
		v := cfg[st.Name]
		vals[st.Name] = &v
		if st.Flags&(config.Multi|config.Append) != 0 {
			fs.Var(&multiFlag{v: &v, st: &st}, st.Name, st.Help+" (repeatable)")
		} else {
			fs.StringVar(&v, st.Name, v, st.Help)
		}
		for _, a := range st.Aliases {
			fs.Func(a, "old name of "+st.Name, func(s string) error { v = s; return nil })
		}
	}
	if err := fs.Parse(args); err != nil {
		return nil, "", err
	}
	if fs.NArg() > 0 {
		return nil, "", fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	for name, p := range vals {
		cfg[name] = *p
	}
	return cfg, configFile, nil
}

func loadConfigFile(path string, cfg settings, byName map[string]*config.Setting) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	dirs, err := config.ParseFile(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return config.Load(path, dirs, func(name string) *config.Setting { return byName[name] }, cfg)
}

// buildOptions turns settings into server.Options (server.OptionsFrom,
// through the settings table) and the log level.
func buildOptions(cfg settings) (server.Options, zap.AtomicLevel, error) {
	o, errs := server.OptionsFrom(cfg)
	o.Persist.LoadOnStart = true // the daemon loads its dump.rdb
	errs = append(errs, checkTLSOptions(cfg, o.TLS)...)
	lvl, ok := server.ZapLevel(o.LogLevel)
	if !ok {
		lvl = zap.InfoLevel // refused above
	}
	return o, zap.NewAtomicLevelAt(lvl), errors.Join(errs...)
}

// newLogger builds the logger the log settings in c describe, at level.
func newLogger(level zap.AtomicLevel, c *server.LogConfig) (*zap.Logger, error) {
	c.Level = level
	return server.NewLogger(*c)
}

// sortedRows returns rows by name.
func sortedRows(rows []config.Setting) []config.Setting {
	out := append([]config.Setting(nil), rows...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
