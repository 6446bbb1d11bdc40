package server

import "go.uber.org/zap/zapcore"

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
