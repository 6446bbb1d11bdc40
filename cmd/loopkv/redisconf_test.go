package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopkv/loopkv/config"
)

// debianRedisConf is the redis.conf Debian's redis-server package installs.
const debianRedisConf = "/etc/redis/redis.conf"

// redisConfDiffers are the directives of Debian's redis.conf whose value
// loopkv reports otherwise, and why.
var redisConfDiffers = map[string]string{
	"bind":       "loopkv listens on the first address of the list",
	"io-threads": "reports loopkv's event loops",
}

// configGet sends CONFIG GET name on c and returns the value, or "?" when
// the server has no such setting.
func configGet(t *testing.T, c net.Conn, r *bufio.Reader, name string) string {
	t.Helper()
	fmt.Fprintf(c, "*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$%d\r\n%s\r\n", len(name), name)
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "*") {
		t.Fatalf("CONFIG GET %s: %q, %v", name, line, err)
	}
	var items []string
	for range line[1] - '0' {
		h, _ := r.ReadString('\n')
		var n int
		fmt.Sscanf(h, "$%d", &n)
		b := make([]byte, n+2)
		if _, err := io.ReadFull(r, b); err != nil {
			t.Fatal(err)
		}
		items = append(items, string(b[:n]))
	}
	if len(items) != 2 {
		return "?"
	}
	return items[1]
}

// TestDebianRedisConfLoads starts the daemon on a copy of Debian's stock
// redis.conf (port, dir, daemonize, logfile and pidfile overridden so that
// it runs beside the system's Redis) and redis-server on the same file and
// flags, and compares CONFIG GET of every directive the file sets.
func TestDebianRedisConfLoads(t *testing.T) {
	text, err := os.ReadFile(debianRedisConf)
	if err != nil {
		t.Skipf("%s: %v", debianRedisConf, err)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "redis.conf")
	if err := os.WriteFile(conf, text, 0o600); err != nil {
		t.Fatal(err)
	}
	dirs, err := config.ParseFile(strings.NewReader(string(text)))
	if err != nil {
		t.Fatal(err)
	}
	overrides := []string{"--daemonize", "no", "--logfile", "", "--pidfile", "", "--loglevel", "warning"}
	ports, done := runOnFreePorts(t, 1, func(p []int) []string {
		return append([]string{conf, "--port", fmt.Sprint(p[0]), "--dir", dir, "--loops", "1"}, overrides...)
	}, func(p []int) bool { return answersPing(fmt.Sprintf("127.0.0.1:%d", p[0])) }, "loopkv did not serve on Debian's redis.conf")
	ours, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", ports[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer shutdownAndWait(t, ours, done)

	refPort := freePort(t)
	refDir := t.TempDir()
	ref := exec.Command("redis-server", append([]string{conf, "--port", fmt.Sprint(refPort), "--dir", refDir}, overrides...)...)
	if err := ref.Start(); err != nil {
		t.Skipf("redis-server: %v", err)
	}
	defer func() { _ = ref.Process.Kill(); _ = ref.Wait() }()
	var refc net.Conn
	for i := 0; i < 200 && refc == nil; i++ {
		if refc, err = net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", refPort)); err != nil {
			refc = nil
			time.Sleep(10 * time.Millisecond)
		}
	}
	if refc == nil {
		t.Fatalf("redis-server did not listen on %d", refPort)
	}
	defer refc.Close()
	or, rr := bufio.NewReader(ours), bufio.NewReader(refc)
	compared := 0
	for _, d := range dirs {
		if redisConfDiffers[d.Name] != "" || d.Name == "port" || d.Name == "dir" {
			continue
		}
		w, g := configGet(t, refc, rr, d.Name), configGet(t, ours, or, d.Name)
		if d.Name == "logfile" || d.Name == "pidfile" || d.Name == "daemonize" {
			w, g = "", "" // overridden on both
		}
		if w == "?" && d.Name != "logfile" && d.Name != "pidfile" && d.Name != "daemonize" {
			t.Errorf("line %d, %s: redis-server has no such setting", d.Line, d.Name)
		}
		compared++
		if w != g {
			t.Errorf("line %d, %s: redis-server %q, loopkv %q", d.Line, d.Name, w, g)
		}
	}
	if compared < len(dirs)/2 {
		t.Errorf("compared %d of the file's %d directives", compared, len(dirs))
	}
}
