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

// The log settings are immutable, as in Redis: CONFIG GET reports them.
func init() {
	yesNo := map[bool]string{true: "yes", false: "no"}
	configParams = append(configParams,
		configParam{Setting: config.Setting{Name: "logfile"}, get: func(s *Server) string { return s.opts.Log.File }},
		configParam{Setting: config.Setting{Name: "syslog-enabled"}, get: func(s *Server) string { return yesNo[s.opts.Log.Syslog] }},
		configParam{Setting: config.Setting{Name: "syslog-ident"}, get: func(s *Server) string { return s.opts.Log.SyslogIdent }},
		configParam{Setting: config.Setting{Name: "syslog-facility"}, get: func(s *Server) string { return strings.ToLower(s.opts.Log.SyslogFacility) }},
	)
}

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
