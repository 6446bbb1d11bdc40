package server

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
)

func init() {
	engineSuite = append(engineSuite, struct {
		name string
		fn   func(*testing.T)
	}{"LoadingRepliesWhileTheDataLoads", TestLoadingRepliesWhileTheDataLoads})
}

// TestLoadingRepliesWhileTheDataLoads: the server listens before its
// start-up load and, until the load ends, answers -LOADING to commands
// without the loading flag (PING, GET, SET, an EXEC with one queued) and
// serves those with it (INFO, CONFIG GET, CLIENT ID), with INFO's
// loading:1, as redis-server does. The load is held by loadHook, so the
// window is certain; Ready is closed only once the data is in.
func TestLoadingRepliesWhileTheDataLoads(t *testing.T) {
	for _, aof := range []bool{false, true} {
		dir := t.TempDir()
		src, _ := startServer(t, Options{Loops: 1, Persist: PersistOptions{Dir: dir}})
		c := dialRaw(t, src.Addr())
		c.do("SET", "k", "v")
		if aof {
			c.do("CONFIG", "SET", "appendonly", "yes")
			waitRewrite(t, c)
			waitFile(t, filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
			c.do("SET", "k2", "v2")
		} else if r := c.do("SAVE"); r != "+OK\r\n" {
			t.Fatalf("SAVE: %q", r)
		}
		stopServer(t, src) // the new server owns the directory (its AOF)
		hold := make(chan struct{})
		var s *Server
		loadHook = func(ls *Server) {
			if ls == s {
				<-hold
			}
		}
		o := Options{Loops: 1, Port: freePort(t), Engine: testEngine, Logger: zap.NewNop(),
			Persist: PersistOptions{Dir: dir, LoadOnStart: true}}
		if aof {
			o.AOF = AOFOptions{AppendOnly: "yes"}
		}
		s = New(o)
		errc := make(chan error, 1)
		go func() { errc <- s.Serve() }()
		var conn net.Conn
		for deadline := time.Now().Add(10 * time.Second); ; {
			var err error
			if conn, err = net.Dial("tcp", s.Addr()); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no listener during the load: %v", err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		conn.Close()
		l := dialRaw(t, s.Addr())
		for _, tt := range []struct{ args, want string }{
			{"PING", "-LOADING Redis is loading the dataset in memory\r\n"},
			{"GET k", "-LOADING Redis is loading the dataset in memory\r\n"},
			{"SET k x", "-LOADING Redis is loading the dataset in memory\r\n"},
			{"CONFIG GET maxmemory", "*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n"},
			{"CLIENT ID", ""},
			{"MULTI", "+OK\r\n"},
			{"GET k", "-LOADING Redis is loading the dataset in memory\r\n"},
			{"EXEC", "-EXECABORT Transaction discarded because of previous errors.\r\n"},
		} {
			r := l.do(strings.Fields(tt.args)...)
			if tt.want == "" && !strings.HasPrefix(r, ":") || tt.want != "" && r != tt.want {
				t.Errorf("aof %v: %s during the load = %q, want %q", aof, tt.args, r, tt.want)
			}
		}
		if f := infoField(l.do("INFO", "persistence"), "loading:"); f != "loading:1" {
			t.Errorf("aof %v: INFO during the load: %s", aof, f)
		}
		select {
		case <-s.Ready():
			t.Fatalf("aof %v: Ready before the load", aof)
		default:
		}
		close(hold)
		select {
		case <-s.Ready():
		case err := <-errc:
			t.Fatalf("aof %v: Serve: %v", aof, err)
		case <-time.After(20 * time.Second):
			t.Fatalf("aof %v: not ready after the load", aof)
		}
		for _, tt := range []struct{ args, want string }{
			{"PING", "+PONG\r\n"}, {"GET k", "$1\r\nv\r\n"},
		} {
			if r := l.do(strings.Fields(tt.args)...); r != tt.want {
				t.Errorf("aof %v: %s after the load = %q, want %q", aof, tt.args, r, tt.want)
			}
		}
		if aof {
			if r := l.do("GET", "k2"); r != "$2\r\nv2\r\n" {
				ents, _ := os.ReadDir(filepath.Join(dir, "appendonlydir"))
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Errorf("GET k2 after the AOF load = %q; files %v; %s", r, names, l.do("INFO", "persistence"))
			}
		}
		if f := infoField(l.do("INFO", "persistence"), "loading:"); f != "loading:0" {
			t.Errorf("aof %v: INFO after the load: %s", aof, f)
		}
		loadHook = nil
		stopServer(t, s)
	}
}
