//go:build !windows && !plan9

package server

import (
	"fmt"
	"log/syslog"
	"strings"

	"go.uber.org/zap/zapcore"
)

// syslogFacilities are the facilities redis.conf's syslog-facility names.
var syslogFacilities = map[string]syslog.Priority{
	"user": syslog.LOG_USER, "local0": syslog.LOG_LOCAL0, "local1": syslog.LOG_LOCAL1,
	"local2": syslog.LOG_LOCAL2, "local3": syslog.LOG_LOCAL3, "local4": syslog.LOG_LOCAL4,
	"local5": syslog.LOG_LOCAL5, "local6": syslog.LOG_LOCAL6, "local7": syslog.LOG_LOCAL7,
}

// syslogCore writes each entry to the system logger at the priority
// Redis uses for its level: debug, notice (Info), warning, err (Error up).
type syslogCore struct {
	zapcore.LevelEnabler
	enc zapcore.Encoder
	w   *syslog.Writer
}

// newSyslogCore connects to the system logger, or to network!raddr when
// raddr is not "" (tests), as ident under facility.
func newSyslogCore(enc zapcore.Encoder, lvl zapcore.LevelEnabler, facility, ident, network, raddr string) (zapcore.Core, error) {
	fac, ok := syslogFacilities[strings.ToLower(facility)]
	if !ok {
		return nil, fmt.Errorf("syslog-facility: invalid log facility %q: must be one of USER or between LOCAL0-LOCAL7", facility)
	}
	w, err := syslog.Dial(network, raddr, fac|syslog.LOG_NOTICE, ident)
	if err != nil {
		return nil, fmt.Errorf("syslog-enabled: %w", err)
	}
	return &syslogCore{LevelEnabler: lvl, enc: enc, w: w}, nil
}

func (c *syslogCore) With(fields []zapcore.Field) zapcore.Core {
	enc := c.enc.Clone()
	for _, f := range fields {
		f.AddTo(enc)
	}
	return &syslogCore{LevelEnabler: c.LevelEnabler, enc: enc, w: c.w}
}

func (c *syslogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *syslogCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	buf, err := c.enc.EncodeEntry(e, fields)
	if err != nil {
		return err
	}
	msg := strings.TrimSuffix(buf.String(), "\n")
	buf.Free()
	switch {
	case e.Level >= zapcore.ErrorLevel:
		return c.w.Err(msg)
	case e.Level == zapcore.WarnLevel:
		return c.w.Warning(msg)
	case e.Level == zapcore.InfoLevel:
		return c.w.Notice(msg)
	}
	return c.w.Debug(msg)
}

func (c *syslogCore) Sync() error { return nil }
