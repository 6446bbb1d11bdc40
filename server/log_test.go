package server

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// logToFile logs one Info line through a logger on a log file with the
// given format and returns what the file holds.
func logToFile(t *testing.T, format string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "loopkv.log")
	log, err := NewLogger(LogConfig{Level: zap.NewAtomicLevelAt(zapcore.InfoLevel), Format: format, File: path})
	if err != nil {
		t.Fatal(err)
	}
	log.Debug("hidden")
	log.Info("loopkv starting", zap.Int("port", 6379))
	_ = log.Sync()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLogfileIsJSONUnlessConsoleIsAsked(t *testing.T) {
	for _, format := range []string{"", "json", "JSON"} {
		got := logToFile(t, format)
		var m map[string]any
		if err := json.Unmarshal([]byte(strings.TrimSpace(got)), &m); err != nil {
			t.Fatalf("format %q: %q is not one JSON line: %v", format, got, err)
		}
		if m["level"] != "info" || m["msg"] != "loopkv starting" || m["port"] != float64(6379) {
			t.Errorf("format %q: line %v", format, m)
		}
	}
	got := logToFile(t, "console")
	f := strings.Split(strings.TrimSpace(got), "\t")
	if len(f) != 5 || f[1] != "INFO" || f[3] != "loopkv starting" || f[4] != `{"port": 6379}` {
		t.Errorf("console: %q, want time, INFO, caller, message and fields, tab-separated", got)
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000Z0700", f[0]); err != nil {
		t.Errorf("console time %q: %v", f[0], err)
	}
}

func TestNewLoggerRejectsBadSettings(t *testing.T) {
	lvl := zap.NewAtomicLevel()
	for _, c := range []LogConfig{
		{Level: lvl, Format: "text"},
		{Level: lvl, File: filepath.Join(t.TempDir(), "no", "such", "dir.log")},
		{Level: lvl, Syslog: true, SyslogFacility: "local9"},
	} {
		if _, err := NewLogger(c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

// TestSyslogGetsLinesAtRedisPriorities runs a unixgram socket as the
// system logger and reads what the syslog core sends: notice for Info,
// warning for Warn, err for Error, under facility local3, as ident.
func TestSyslogGetsLinesAtRedisPriorities(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.sock")
	l, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	enc, _ := logEncoder("json", false, false)
	core, err := newSyslogCore(enc, zapcore.DebugLevel, "LOCAL3", "loopkv-test", "unixgram", path)
	if err != nil {
		t.Fatal(err)
	}
	log := zap.New(core).With(zap.String("addr", "127.0.0.1:6379"))
	log.Info("ready")
	log.Warn("slow")
	log.Error("broken")
	// local3 is facility 19: priority 19*8 + severity (notice 5, warning 4, err 3).
	for _, want := range []string{"<157>", "<156>", "<155>"} {
		_ = l.SetReadDeadline(time.Now().Add(5 * time.Second))
		buf := make([]byte, 4096)
		n, err := l.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got := string(buf[:n])
		if !strings.HasPrefix(got, want) || !strings.Contains(got, "loopkv-test[") ||
			!strings.Contains(got, `"addr":"127.0.0.1:6379"`) || strings.Contains(got, `"ts"`) {
			t.Errorf("datagram %q, want priority %s, the ident, the fields and no timestamp field", got, want)
		}
	}
}
