package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
)

// freePort returns a port that was free a moment ago on 127.0.0.1.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// testEngine is the engine startServer uses when opts names none; ""
// means the default (gnet). engines_test.go sets it to rerun the
// integration suite on every engine.
var testEngine string

// startServer runs a server with opts (port, loops, engine and logger filled
// in) until the test ends, and returns it with the error channel of Serve.
func startServer(t testing.TB, opts Options) (*Server, <-chan error) {
	t.Helper()
	return startServerOnFreePorts(t, opts, false)
}

// startServerOnFreePorts is startServer that also picks the TLS port when
// freeTLS is set. A port from freePort was free a moment ago only: any
// connect on the machine may take it as its ephemeral port before Serve
// binds it. When Serve fails with EADDRINUSE on a port picked here, the
// server is started again on new ones, up to three times.
func startServerOnFreePorts(t testing.TB, opts Options, freeTLS bool) (*Server, <-chan error) {
	t.Helper()
	if opts.Engine == "" {
		opts.Engine = testEngine
	}
	if opts.Loops == 0 {
		opts.Loops = 2
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	freePlain := opts.Port == 0
	for attempt := 1; ; attempt++ {
		o := opts
		if freePlain {
			o.Port = freePort(t)
		}
		if freeTLS {
			o.TLS.Port = freePort(t)
		}
		s := New(o)
		errc := make(chan error, 1)
		go func() { errc <- s.Serve() }()
		select {
		case <-s.Ready():
		case err := <-errc:
			if errors.Is(err, syscall.EADDRINUSE) && (freePlain || freeTLS) && attempt < 3 {
				t.Logf("serve: %v; a picked port was taken before the bind, picking again", err)
				continue
			}
			t.Fatalf("serve: %v", err)
		case <-time.After(5 * time.Second):
			t.Fatal("server not ready after 5s")
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := s.Stop(ctx); err != nil {
				t.Errorf("stop: %v", err)
			}
		})
		return s, errc
	}
}

// rawConn is a test client speaking raw RESP.
type rawConn struct {
	t testing.TB
	c net.Conn
	r *bufio.Reader
}

func dialRaw(t testing.TB, addr string) *rawConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	return &rawConn{t: t, c: c, r: bufio.NewReaderSize(c, 64<<10)}
}

func (rc *rawConn) send(s string) {
	rc.t.Helper()
	if _, err := io.WriteString(rc.c, s); err != nil {
		rc.t.Fatalf("write: %v", err)
	}
}

// reply reads one complete RESP value and returns its raw bytes.
func (rc *rawConn) reply() string {
	rc.t.Helper()
	s, err := readRaw(rc.r)
	if err != nil {
		rc.t.Fatalf("read reply: %v", err)
	}
	return s
}

// do sends cmd as a multibulk and returns the raw reply.
func (rc *rawConn) do(args ...string) string {
	rc.t.Helper()
	rc.send(multibulk(args...))
	return rc.reply()
}

// expectClosed reads until EOF (over TLS, also a close without
// close_notify), failing if it takes over 5 seconds; it returns what was
// read.
func (rc *rawConn) expectClosed() string {
	rc.t.Helper()
	_ = rc.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, err := io.ReadAll(rc.r)
	if err != nil && !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.ErrUnexpectedEOF) && !strings.Contains(err.Error(), "reset") {
		rc.t.Fatalf("waiting for close: %v (read %d bytes)", err, len(b))
	}
	return string(b)
}

func multibulk(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

// readRaw reads one RESP2/RESP3 value.
func readRaw(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return line, err
	}
	if len(line) < 3 {
		return line, fmt.Errorf("short line %q", line)
	}
	n, _ := strconv.Atoi(line[1 : len(line)-2])
	switch line[0] {
	case '+', '-', ':', ',', '#', '_', '(':
		return line, nil
	case '$', '=', '!':
		if n < 0 {
			return line, nil
		}
		body := make([]byte, n+2)
		if _, err := io.ReadFull(r, body); err != nil {
			return line, err
		}
		return line + string(body), nil
	case '*', '~', '>', '%', '|':
		if n < 0 {
			return line, nil
		}
		if line[0] == '%' || line[0] == '|' {
			n *= 2
		}
		out := line
		for i := 0; i < n; i++ {
			s, err := readRaw(r)
			out += s
			if err != nil {
				return out, err
			}
		}
		return out, nil
	}
	return line, fmt.Errorf("bad type byte in %q", line)
}

// needTool skips the test when name is not on PATH.
func needTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not installed (make deps)", name)
	}
	return p
}

// startRefRedis runs a reference redis-server with extra config arguments
// until the test ends and returns its address. As in
// startServerOnFreePorts, when redis-server exits because the port picked
// here was taken before it bound it, it runs again on a new one, up to
// three times.
func startRefRedis(t testing.TB, extra ...string) string {
	t.Helper()
	addr := startRefRedisIn(t, t.TempDir(), extra...)
	refRedisLoaded(t, addr)
	return addr
}

// startRefRedisIn is startRefRedis with dir as its dir, returning as soon
// as it answers, while it may still be loading.
func startRefRedisIn(t testing.TB, dir string, extra ...string) string {
	t.Helper()
	bin := needTool(t, "redis-server")
	logFile := filepath.Join(dir, "redis.log")
	for attempt := 1; ; attempt++ {
		port := freePort(t)
		args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
			"--appendonly", "no", "--dir", dir, "--logfile", logFile}, extra...)
		cmd := exec.Command(bin, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if refRedisUp(addr, exited) {
			return addr
		}
		select {
		case <-exited:
		default:
			t.Fatal("redis-server did not start")
		}
		log, _ := os.ReadFile(logFile)
		if !bytes.Contains(log, []byte("Address already in use")) || attempt == 3 {
			t.Fatalf("redis-server exited:\n%s", log)
		}
		t.Logf("redis-server on port %d: address in use; the picked port was taken before the bind, picking again", port)
		_ = os.Remove(logFile)
	}
}

// refRedisUp dials addr for up to two seconds, until it answers PING
// (true) or the redis-server meant to listen there exits (false).
func refRedisUp(addr string, exited <-chan struct{}) bool {
	for i := 0; i < 100; i++ {
		select {
		case <-exited:
			return false
		default:
		}
		if answersPing(addr) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// refRedisLoaded waits until redis-server on addr has loaded its data:
// it listens while it loads, answering -LOADING (to the PING refRedisUp
// took for an answer too), and a test reading its keyspace meanwhile sees
// part of it.
func refRedisLoaded(t testing.TB, addr string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !strings.HasPrefix(pingReply(addr), "-LOADING") {
			return
		}
	}
	t.Fatal("redis-server still loading after 30 s")
}

// answersPing reports whether a server on addr answers an inline PING
// within half a second, with +PONG or an error such as NOAUTH. A port that
// accepts connections may be another socket's that took the port we
// picked; one that answers like Redis is the server we started.
func answersPing(addr string) bool {
	line := pingReply(addr)
	return strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-")
}

// pingReply is the first line a server on addr answers to an inline PING
// within half a second, or "" if none.
func pingReply(addr string) string {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return ""
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := io.WriteString(c, "PING\r\n"); err != nil {
		return ""
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return ""
	}
	return line
}
