package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runParent runs the daemon binary with args as a command whose exit the
// test waits for: with daemonize yes, the parent.
func runParent(t *testing.T, args ...string) (stderr string, err error) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), daemonEnv+"="+strings.Join(args, " "))
	var eb bytes.Buffer
	cmd.Stderr = &eb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the parent did not exit in 20 s")
	}
	return eb.String(), err
}

// procStat is /proc/pid/stat's fields after the command name (state,
// ppid, pgrp, session, ...); nil when the process is gone.
func procStat(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	return strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
}

// exited reports whether process pid is gone (or a zombie).
func exited(pid int) bool {
	f := procStat(pid)
	return len(f) < 4 || f[0] == "Z"
}

// TestDaemonizeDetachesWritesThePidfileAndRemovesIt: with daemonize yes
// the started process exits 0 once the daemon it started again listens;
// that daemon is another process, the leader of a session of its own, its
// standard input, output and error on /dev/null, as Redis's daemonize()
// leaves them; it answers PING, CONFIG GET shows daemonize yes and the
// pidfile, which holds its pid; SHUTDOWN stops it and removes the file.
func TestDaemonizeDetachesWritesThePidfileAndRemovesIt(t *testing.T) {
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "loopkv.pid")
	port := strconv.Itoa(freePort(t))
	if out, err := runParent(t, "--daemonize", "yes", "--port", port, "--pidfile", pidfile, "--dir", dir,
		"--save=", "--loglevel", "warning"); err != nil {
		t.Fatalf("parent: %v: %s", err, out)
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatalf("no pidfile once the parent exited: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSuffix(string(b), "\n"))
	if err != nil || pid == os.Getpid() || exited(pid) {
		t.Fatalf("pidfile %q: no live daemon (%v)", b, err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if f := procStat(pid); len(f) < 4 || f[3] != strconv.Itoa(pid) {
		t.Errorf("daemon %d: stat %q, want a session of its own", pid, f)
	}
	for fd := range 3 {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, fd)); err != nil || l != os.DevNull {
			t.Errorf("daemon fd %d: %q (%v), want %s", fd, l, err, os.DevNull)
		}
	}
	c, err := net.Dial("tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatalf("the parent exited before the daemon listened: %v", err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	fmt.Fprint(c, "PING\r\n")
	if line, _ := r.ReadString('\n'); line != "+PONG\r\n" {
		t.Errorf("PING: %q", line)
	}
	if v := configGet(t, c, r, "daemonize"); v != "yes" {
		t.Errorf("CONFIG GET daemonize: %q", v)
	}
	if v := configGet(t, c, r, "pidfile"); v != pidfile {
		t.Errorf("CONFIG GET pidfile: %q, want %q", v, pidfile)
	}
	fmt.Fprint(c, "SHUTDOWN\r\n")
	for deadline := time.Now().Add(10 * time.Second); !exited(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the daemon did not exit on SHUTDOWN")
		}
	}
	if _, err := os.Stat(pidfile); !os.IsNotExist(err) {
		t.Errorf("pidfile after SHUTDOWN: %v, want it removed", err)
	}
}

// TestDaemonizeReportsWhyTheDaemonDidNotStart: when the daemon cannot
// listen (its port taken), the process started exits 1 with the daemon's
// error, and no pidfile stays.
func TestDaemonizeReportsWhyTheDaemonDidNotStart(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "loopkv.pid")
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	out, err := runParent(t, "--daemonize", "yes", "--port", port, "--pidfile", pidfile, "--dir", dir, "--save=")
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(out, "address already in use") {
		t.Errorf("parent: %v, stderr %q; want exit 1 and the daemon's bind error", err, out)
	}
	if _, err := os.Stat(pidfile); !os.IsNotExist(err) {
		t.Errorf("pidfile after the failed start: %v, want none", err)
	}
}
