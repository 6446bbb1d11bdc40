//go:build windows || plan9

package server

import (
	"errors"

	"go.uber.org/zap/zapcore"
)

// newSyslogCore fails: log/syslog exists on unix only.
func newSyslogCore(zapcore.Encoder, zapcore.LevelEnabler, string, string, string, string) (zapcore.Core, error) {
	return nil, errors.New("syslog-enabled: no system logger on this platform")
}
