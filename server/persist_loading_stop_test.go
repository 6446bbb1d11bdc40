package server

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func init() {
	engineSuite = append(engineSuite, struct {
		name string
		fn   func(*testing.T)
	}{"ShutdownStopsAnAOFReplay", TestShutdownStopsAnAOFReplay})
}

// replayCmds and replayDelay make an incr file whose replay takes
// replayCmds*replayDelay µs (20 s), four times the 5 s that expectClosed
// and the Stop below allow.
const (
	replayCmds  = 40000
	replayDelay = "500" // key-load-delay, µs a command
)

// TestShutdownStopsAnAOFReplay: SHUTDOWN NOSAVE, Shutdown (what SIGTERM
// calls) and Stop, while the start-up load replays a big incr file, end
// the replay at its next command, as they end an RDB load at its next
// key: the server goes within the 5 s bound, its loader having read only
// part of the files, and the AOF files are byte for byte as they were.
// redis-server 7.0.15 does the same with SHUTDOWN NOSAVE (it runs its
// events every 1024 commands of the replay): it exits without logging the
// load done, and leaves the files as they were.
func TestShutdownStopsAnAOFReplay(t *testing.T) {
	src := refIncrAOF(t)
	orig := aofFiles(t, src)
	t.Run("redis-server", func(t *testing.T) {
		dir := t.TempDir()
		copyAOFDir(t, filepath.Join(src, "appendonlydir"), filepath.Join(dir, "appendonlydir"))
		c := dialRaw(t, startRefRedisIn(t, dir, "--appendonly", "yes", "--key-load-delay", replayDelay))
		whileLoading(t, c)
		c.send(multibulk("SHUTDOWN", "NOSAVE"))
		if r := c.expectClosed(); r != "" {
			t.Errorf("SHUTDOWN NOSAVE while replaying answered %q", r)
		}
		if log, _ := os.ReadFile(filepath.Join(dir, "redis.log")); strings.Contains(string(log), "DB loaded from append only file") {
			t.Errorf("redis-server finished the replay before it exited:\n%s", log)
		}
		sameAOFFiles(t, dir, orig)
	})
	for _, how := range []string{"SHUTDOWN NOSAVE", "Shutdown", "Stop"} {
		t.Run("loopkv/"+how, func(t *testing.T) {
			dir := t.TempDir()
			total := copyAOFDir(t, filepath.Join(src, "appendonlydir"), filepath.Join(dir, "appendonlydir"))
			s, errc := startLoading(t, Options{Loops: 1, Persist: PersistOptions{Dir: dir},
				AOF: AOFOptions{AppendOnly: "yes"}, Config: map[string]string{"key-load-delay": replayDelay}})
			c := dialRaw(t, s.Addr())
			whileLoading(t, c)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			switch how {
			case "Shutdown":
				if err := s.Shutdown(ctx); err != nil {
					t.Fatalf("Shutdown while replaying = %v, want nil", err)
				}
			case "Stop":
				if err := s.Stop(ctx); err != nil {
					t.Fatalf("Stop while replaying = %v, want nil", err)
				}
			default:
				c.send(multibulk("SHUTDOWN", "NOSAVE"))
				if r := c.expectClosed(); r != "" {
					t.Errorf("SHUTDOWN NOSAVE while replaying answered %q", r)
				}
			}
			select {
			case err := <-errc:
				if err != nil {
					t.Errorf("Serve = %v, want nil", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Serve still running 5 s after the stop: the replay goes on")
			}
			if n := s.persist.progress.loaded.Load(); n >= total {
				t.Errorf("the loader read %d of the files' %d bytes: the replay ran to the end", n, total)
			}
			sameAOFFiles(t, dir, orig)
		})
	}
}

// refIncrAOF has a redis-server with appendonly yes log replayCmds SETs to
// its incr file and exit, and returns its directory.
func refIncrAOF(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	c := dialRaw(t, startRefRedisIn(t, dir, "--appendonly", "yes"))
	var b strings.Builder
	for i := range replayCmds {
		b.WriteString(multibulk("SET", "key:"+strconv.Itoa(i), "value-"+strconv.Itoa(i)+"-xxxxxxxxxxxxxxxxxxxx"))
	}
	c.send(b.String())
	for range replayCmds {
		if r := c.reply(); r != "+OK\r\n" {
			t.Fatalf("redis SET: %q", r)
		}
	}
	// With appendfsync everysec Redis may hold the AOF write back while a
	// background fsync runs, and reply meanwhile; SHUTDOWN flushes it.
	c.send(multibulk("SHUTDOWN", "NOSAVE"))
	if r := c.expectClosed(); r != "" {
		t.Fatalf("redis SHUTDOWN NOSAVE: %q", r)
	}
	var incr int
	for name, f := range aofFiles(t, dir) {
		if strings.Contains(name, ".incr.") {
			incr += len(f)
		}
	}
	if incr < b.Len() {
		t.Fatalf("redis-server's incr files have %d bytes, the SETs %d", incr, b.Len())
	}
	return dir
}

// aofFiles reads every file of dir/appendonlydir.
func aofFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, "appendonlydir"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, "appendonlydir", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// sameAOFFiles fails unless dir/appendonlydir holds exactly want's files,
// byte for byte.
func sameAOFFiles(t *testing.T, dir string, want map[string][]byte) {
	t.Helper()
	got := aofFiles(t, dir)
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s is gone", name)
		} else if string(g) != string(w) {
			t.Errorf("%s changed: %d bytes, was %d", name, len(g), len(w))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s appeared", name)
		}
	}
}
