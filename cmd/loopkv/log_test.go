package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLogfileDirectiveLogsJSONToTheFile runs the daemon with redis.conf's
// logfile directive: its startup and shutdown lines go to that file as
// JSON (not a terminal), nothing is lost at exit, and CONFIG GET reports
// the settings.
func TestLogfileDirectiveLogsJSONToTheFile(t *testing.T) {
	dir := t.TempDir()
	logPath, conf := filepath.Join(dir, "loopkv.log"), filepath.Join(dir, "loopkv.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("logfile %q\nsyslog-enabled no\n", logPath)), 0o600); err != nil {
		t.Fatal(err)
	}
	ports, done := runOnFreePorts(t, 1, func(p []int) []string {
		return []string{conf, "--port", fmt.Sprint(p[0]), "--loops", "1"}
	}, func(p []int) bool { return answersPing(fmt.Sprintf("127.0.0.1:%d", p[0])) }, "daemon did not listen")
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", ports[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	fmt.Fprint(c, "CONFIG GET logfile\r\nCONFIG GET syslog-enabled\r\n")
	want := fmt.Sprintf("*2\r\n$7\r\nlogfile\r\n$%d\r\n%s\r\n", len(logPath), logPath) +
		"*2\r\n$14\r\nsyslog-enabled\r\n$2\r\nno\r\n"
	got := make([]byte, len(want))
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(r, got); err != nil || string(got) != want {
		t.Errorf("CONFIG GET logfile, syslog-enabled = %q, %v; want %q", got, err, want)
	}
	shutdownAndWait(t, c, done)
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q is not JSON: %v", line, err)
		}
		msgs = append(msgs, fmt.Sprint(m["msg"]))
	}
	if len(msgs) < 2 || msgs[0] != "loopkv starting" || msgs[len(msgs)-1] != "server stopped" {
		t.Errorf("log file messages %q, want loopkv starting ... server stopped", msgs)
	}
}

func TestLogSettingsRejectBadValues(t *testing.T) {
	for _, args := range [][]string{
		{"--log-format", "xml"},
		{"--syslog-enabled", "maybe"},
		{"--logfile", filepath.Join(t.TempDir(), "missing", "x.log")},
	} {
		name := strings.TrimPrefix(args[0], "--")
		if err := run(append(args, "--port", "0")); err == nil || !strings.HasPrefix(err.Error(), name+":") {
			t.Errorf("%q: run returned %v, want an error naming %s", args, err, name)
		}
	}
}
