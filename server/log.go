package server

import (
	"errors"
	"fmt"
	"github.com/loopkv/loopkv/config"
	"os"
	"strings"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"golang.org/x/term"
)

// ZapLevel maps a redis.conf loglevel to a zap level: debug and verbose to
// Debug, notice to Info, warning to Warn.
func ZapLevel(loglevel string) (zapcore.Level, bool) {
	switch loglevel {
	case "debug", "verbose":
		return zapcore.DebugLevel, true
	case "notice":
		return zapcore.InfoLevel, true
	case "warning":
		return zapcore.WarnLevel, true
	}
	return 0, false
}

// LogConfig says where and how the daemon logs: redis.conf's logfile,
// syslog-enabled, syslog-ident and syslog-facility, and loopkv's log-format.
type LogConfig struct {
	Level zap.AtomicLevel
	// Format is "console" (zap's human-readable encoder), "json", or ""
	// for console when the output is a terminal and JSON otherwise.
	Format string
	// File is appended to; "" logs to stderr.
	File string
	// Syslog also sends every line to the system logger (log/syslog on
	// unix) as Ident, under Facility: user or local0 to local7.
	Syslog         bool
	SyslogIdent    string
	SyslogFacility string
}

// NewLogger builds the daemon's logger from c, with caller and, from Error
// up, stack traces. It fails on a file it cannot open, an unknown format or
// facility, or a system logger it cannot reach.
func NewLogger(c LogConfig) (*zap.Logger, error) {
	return newLogger(c, os.Stderr)
}

// newLogger is NewLogger with stderr given, so tests can pass a pty.
func newLogger(c LogConfig, stderr *os.File) (*zap.Logger, error) {
	out := stderr
	if c.File != "" {
		f, err := os.OpenFile(c.File, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("logfile: can't open the log file: %w", err)
		}
		out = f
	}
	tty := term.IsTerminal(int(out.Fd()))
	enc, err := logEncoder(c.Format, tty, true)
	if err != nil {
		return nil, err
	}
	core := zapcore.NewCore(enc, zapcore.Lock(out), c.Level)
	if c.Syslog {
		senc, _ := logEncoder(c.Format, false, false)
		sc, err := newSyslogCore(senc, c.Level, c.SyslogFacility, c.SyslogIdent, "", "")
		if err != nil {
			return nil, err
		}
		core = zapcore.NewTee(core, sc)
	}
	return zap.New(core, zap.AddCaller(), zap.AddStacktrace(zapcore.ErrorLevel),
		zap.ErrorOutput(zapcore.Lock(stderr))), nil
}

var errLogFormat = errors.New("log-format: must be console or json")

// logSettings are immutable, as in Redis: CONFIG GET reports them.
var logSettings = []configParam{
	{Setting: config.Setting{Name: "logfile", Default: "", Type: config.String{}, Flags: config.Immutable,
		Help: "log file, appended to; empty logs to stderr"},
		get: func(s *Server) string { return s.opts.Log.File },
		opt: func(o *Options, v config.Value) string { o.Log.File = v.S; return "" }},
	{Setting: config.Setting{Name: "log-format", Default: "", Flags: config.Immutable | config.Own,
		Type: config.Func(func(v string) (config.Value, string) {
			if _, err := logEncoder(v, false, true); err != nil {
				return config.Value{}, "must be console or json"
			}
			return config.Value{S: v}, ""
		}),
		Help: "console or json; empty is console on a terminal, else json"},
		get: func(s *Server) string { return s.opts.Log.Format },
		opt: func(o *Options, v config.Value) string { o.Log.Format = v.S; return "" }},
	{Setting: config.Setting{Name: "syslog-enabled", Default: "no", Type: config.Bool{}, Flags: config.Immutable,
		Help: "also send the log to syslog"},
		get: func(s *Server) string { return map[bool]string{true: "yes", false: "no"}[s.opts.Log.Syslog] },
		opt: func(o *Options, v config.Value) string { o.Log.Syslog = v.N == 1; return "" }},
	{Setting: config.Setting{Name: "syslog-ident", Default: "loopkv", Type: config.String{}, Flags: config.Immutable,
		Help: "syslog identity"},
		get: func(s *Server) string { return s.opts.Log.SyslogIdent },
		opt: func(o *Options, v config.Value) string { o.Log.SyslogIdent = v.S; return "" }},
	{Setting: config.Setting{Name: "syslog-facility", Default: "local0", Flags: config.Immutable,
		Type: config.Enum{"user", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"},
		Help: "syslog facility: user or local0 to local7"},
		get: func(s *Server) string { return strings.ToLower(s.opts.Log.SyslogFacility) },
		opt: func(o *Options, v config.Value) string { o.Log.SyslogFacility = v.S; return "" }},
}

func init() { registerSettings(logSettings...) }

// logEncoder is the encoder for format: console (coloured levels on a
// terminal) or JSON, with ISO 8601 times unless withTime is false (syslog
// stamps its own).
func logEncoder(format string, tty, withTime bool) (zapcore.Encoder, error) {
	ec := zap.NewProductionEncoderConfig()
	ec.EncodeTime = zapcore.ISO8601TimeEncoder
	if !withTime {
		ec.TimeKey = zapcore.OmitKey
	}
	switch strings.ToLower(format) {
	case "":
		if !tty {
			return zapcore.NewJSONEncoder(ec), nil
		}
	case "json":
		return zapcore.NewJSONEncoder(ec), nil
	case "console":
	default:
		return nil, errLogFormat
	}
	ec.EncodeLevel = zapcore.CapitalLevelEncoder
	if tty {
		ec.EncodeLevel = zapcore.CapitalColorLevelEncoder
	}
	return zapcore.NewConsoleEncoder(ec), nil
}
