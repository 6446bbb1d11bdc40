package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"go.uber.org/zap"
)

// daemonize yes. Redis forks, and its parent exits; a Go process cannot
// fork once its runtime runs threads, so the daemon starts its own binary
// again, with the same arguments and environment plus daemonChildEnv: the
// child is detached (setsid, a session of its own) with its standard
// input, output and error on /dev/null, as Redis's daemonize() leaves
// them (the log goes to logfile, or nowhere), and fd 3 is a pipe to the
// parent. The child writes readyLine there once it listens, or its error
// if it fails first; the parent waits for that, exits 0 on readyLine and
// 1 with the error otherwise. The child writes the pidfile (pidfile, or
// Redis's default /var/run/redis.pid) and removes it at exit.
const (
	daemonChildEnv = "LOOPKV_DAEMON_CHILD"
	readyLine      = "listening\n"
	defaultPidfile = "/var/run/redis.pid" // Redis's CONFIG_DEFAULT_PID_FILE
)

// readyPipe is the child's end of the pipe to the parent.
type readyPipe struct {
	f    *os.File
	once sync.Once
}

// daemonReadyPipe returns fd 3, the pipe to the parent, when this process
// is the child daemonize started, and nil otherwise.
func daemonReadyPipe() *readyPipe {
	if os.Getenv(daemonChildEnv) == "" {
		return nil
	}
	_ = os.Unsetenv(daemonChildEnv) // not for what the daemon starts in turn
	f := os.NewFile(3, "daemonize-ready")
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return nil // the variable came from elsewhere: fd 3 is no pipe of ours
	}
	return &readyPipe{f: f}
}

// daemonize starts the daemon again detached with args and waits until it
// listens (nil) or fails (its error).
func daemonize(args []string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("daemonize: %w", err)
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("daemonize: %w", err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("daemonize: %w", err)
	}
	defer r.Close()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), daemonChildEnv+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	cmd.ExtraFiles = []*os.File{w} // fd 3
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close() // the child's copy stays open: EOF once the child closed or exited
	if err != nil {
		return fmt.Errorf("daemonize: %w", err)
	}
	msg, _ := io.ReadAll(io.LimitReader(r, 64<<10))
	if string(msg) == readyLine {
		return cmd.Process.Release()
	}
	werr := cmd.Wait()
	if s := strings.TrimSpace(strings.TrimPrefix(string(msg), "loopkv: ")); s != "" {
		return errors.New(s)
	}
	return fmt.Errorf("daemonize: the daemon exited before it listened (%v)", werr)
}

// signal tells the parent that the daemon listens (err nil), or why it
// stopped first; only the first call counts. A nil p (no parent waits)
// does nothing.
func (p *readyPipe) signal(err error) {
	if p == nil {
		return
	}
	p.once.Do(func() {
		if err != nil {
			_, _ = fmt.Fprintln(p.f, "loopkv:", err)
		} else {
			_, _ = io.WriteString(p.f, readyLine)
		}
		_ = p.f.Close()
	})
}

// writePidfile writes the process id to path, as Redis's createPidFile,
// and returns the function that removes it at exit. A failure is logged,
// and the daemon runs on, as Redis's does.
func writePidfile(path string, log *zap.Logger) (remove func()) {
	if path == "" {
		return func() {}
	}
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		log.Warn("Failed to write PID file", zap.String("file", path), zap.Error(err))
		return func() {}
	}
	return func() {
		log.Info("Removing the pid file.", zap.String("file", path))
		_ = os.Remove(path)
	}
}
