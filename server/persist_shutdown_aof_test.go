package server

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func init() {
	engineSuite = append(engineSuite, struct {
		name string
		fn   func(*testing.T)
	}{"ShutdownRefusedWhileWritingTheInitialAOF", TestShutdownRefusedWhileWritingTheInitialAOF})
}

// TestShutdownRefusedWhileWritingTheInitialAOF: after CONFIG SET
// appendonly yes and until the log's first base is in, SHUTDOWN without
// FORCE is refused with Redis's reply (redis-server, its child slowed by
// rdb-key-save-delay, answers the same), since stopping then would leave
// no AOF to load; the server goes on serving; SHUTDOWN FORCE stops it
// (once the base writer, which closing the log waits for, is let go).
func TestShutdownRefusedWhileWritingTheInitialAOF(t *testing.T) {
	ref := dialRaw(t, startRefRedis(t, "--rdb-key-save-delay", "1000000", "--save", ""))
	ref.do("SET", "k", "v")
	if r := ref.do("CONFIG", "SET", "appendonly", "yes"); r != "+OK\r\n" {
		t.Fatalf("redis CONFIG SET appendonly yes: %q", r)
	}
	want := ref.do("SHUTDOWN")
	if !strings.HasPrefix(want, "-ERR Errors trying to SHUTDOWN") {
		t.Fatalf("redis SHUTDOWN while writing the initial AOF: %q", want)
	}

	hold := make(chan struct{})
	var held atomic.Pointer[Server] // the hook runs on the server's goroutine
	initialBaseHook = func(hs *Server) {
		if hs == held.Load() {
			<-hold
		}
	}
	defer func() { initialBaseHook = nil }()
	s, errc := startServer(t, Options{Loops: 1, Persist: PersistOptions{Dir: t.TempDir()}})
	held.Store(s)
	c := dialRaw(t, s.Addr())
	c.do("SET", "k", "v")
	if r := c.do("CONFIG", "SET", "appendonly", "yes"); r != "+OK\r\n" {
		t.Fatalf("CONFIG SET appendonly yes: %q", r)
	}
	for _, args := range [][]string{{"SHUTDOWN"}, {"SHUTDOWN", "NOSAVE"}} {
		if r := c.do(args...); r != want {
			t.Errorf("%q while writing the initial AOF = %q, want redis's %q", args, r, want)
		}
	}
	if r := c.do("GET", "k"); r != "$1\r\nv\r\n" {
		t.Errorf("GET after the refused SHUTDOWN = %q", r)
	}
	c.send("SHUTDOWN FORCE\r\n")
	close(hold) // the stop closes the log, which waits for its base writer
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("Serve after SHUTDOWN FORCE: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("SHUTDOWN FORCE did not stop the server")
	}
}
