package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCorruptRDBStopsStartup: the daemon started on a dump.rdb with a
// wrong checksum does not listen; run returns an error naming the file and
// the byte offset.
func TestCorruptRDBStopsStartup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dump.rdb")
	// "REDIS0010", EOF opcode, then a CRC64 that is not the data's
	if err := os.WriteFile(path, []byte("REDIS0010\xff\x01\x02\x03\x04\x05\x06\x07\x08"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := run([]string{"--port", fmt.Sprint(freePort(t)), "--dir", dir, "--loglevel", "warning"})
	if err == nil || !strings.Contains(err.Error(), path) || !regexp.MustCompile(`byte offset \d+`).MatchString(err.Error()) {
		t.Fatalf("run: %v; want an error naming %s and the byte offset", err, path)
	}
}

// TestSIGTERMSavesAndRestartLoads: with the default save rules SIGTERM
// writes dump.rdb before exiting, and the next start loads it.
func TestSIGTERMSavesAndRestartLoads(t *testing.T) {
	dir := t.TempDir()
	start := func() ([]int, <-chan error) {
		return runOnFreePorts(t, 1, func(p []int) []string {
			return []string{"--port", fmt.Sprint(p[0]), "--loops", "1", "--loglevel", "warning", "--dir", dir}
		}, func(p []int) bool { return answersPing(fmt.Sprintf("127.0.0.1:%d", p[0])) }, "daemon did not listen")
	}
	ports, done := start()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", ports[0]))
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	fmt.Fprint(c, "SET k v\r\n")
	if line, _ := r.ReadString('\n'); line != "+OK\r\n" {
		t.Fatalf("SET: %q", line)
	}
	c.Close()
	_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("daemon did not stop")
	}
	if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); err != nil {
		t.Fatalf("no final save: %v", err)
	}
	ports, done = start()
	c, err = net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", ports[0]))
	if err != nil {
		t.Fatal(err)
	}
	r = bufio.NewReader(c)
	fmt.Fprint(c, "GET k\r\n")
	if line, _ := r.ReadString('\n'); line != "$1\r\n" {
		t.Fatalf("GET after restart: %q", line)
	}
	shutdownAndWait(t, c, done)
}
