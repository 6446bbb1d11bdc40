package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// crashClient is a connection that tracks which writes were acknowledged.
type crashClient struct {
	c net.Conn
	r *bufio.Reader
}

func dialCrash(t *testing.T, addr string) *crashClient {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return &crashClient{c: c, r: bufio.NewReader(c)}
}

// do sends one command and returns its reply line ("" when the
// connection broke: the write is not acknowledged).
func (cc *crashClient) do(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	_ = cc.c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := cc.c.Write([]byte(b.String())); err != nil {
		return ""
	}
	line, err := cc.r.ReadString('\n')
	if err != nil {
		return ""
	}
	if line[0] == '$' && line != "$-1\r\n" {
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		body := make([]byte, n+2)
		if _, err := io.ReadFull(cc.r, body); err != nil {
			return ""
		}
		return string(body[:n])
	}
	return strings.TrimRight(line, "\r\n")
}

// acked is what the writers had acknowledged: each key's value, and each
// counter's highest acknowledged INCR result and highest value sent.
type acked struct {
	mu       sync.Mutex
	keys     map[string]string
	at       map[string]time.Time // when each key was acknowledged
	counters map[string][2]int64  // acked, sent
}

// writeLoad runs writers SETs and INCRs against addr until stop closes.
func writeLoad(t *testing.T, addr string, writers int, round int, ack *acked, stop <-chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	for g := 0; g < writers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cc := dialCrash(t, addr)
			defer cc.c.Close()
			counter := fmt.Sprintf("ctr:%d", g)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key, val := fmt.Sprintf("k:%d:%d:%d", round, g, i), strconv.Itoa(i)
				if cc.do("SET", key, val) != "+OK" {
					return
				}
				ack.mu.Lock()
				ack.keys[key], ack.at[key] = val, time.Now()
				c := ack.counters[counter]
				c[1]++ // sent: it may land even if its reply is lost
				ack.counters[counter] = c
				ack.mu.Unlock()
				r := cc.do("INCR", counter)
				if !strings.HasPrefix(r, ":") {
					return
				}
				n, _ := strconv.ParseInt(r[1:], 10, 64)
				ack.mu.Lock()
				c = ack.counters[counter]
				c[0] = max(c[0], n)
				ack.counters[counter] = c
				ack.mu.Unlock()
			}
		}()
	}
	return &wg
}

// missing returns the acknowledged keys the server at addr lacks and,
// when strict, checks the counters: at least their last acknowledged
// value, at most what was sent.
func missing(t *testing.T, addr string, ack *acked, strict bool) []string {
	t.Helper()
	cc := dialCrash(t, addr)
	defer cc.c.Close()
	ack.mu.Lock()
	defer ack.mu.Unlock()
	var lost []string
	for k, v := range ack.keys {
		if got := cc.do("GET", k); got != v {
			lost = append(lost, k)
		}
	}
	for k, c := range ack.counters {
		if !strict {
			break
		}
		r := cc.do("GET", k)
		n, _ := strconv.ParseInt(r, 10, 64)
		if n < c[0] || n > c[1] {
			t.Errorf("%s is %q after the restart: acknowledged %d, sent %d", k, r, c[0], c[1])
		}
	}
	return lost
}

// startAOFDaemon runs the daemon with appendonly yes in dir and waits
// until it answers.
func startAOFDaemon(t *testing.T, dir, port string, extra ...string) (*os.Process, string) {
	t.Helper()
	args := append([]string{"--port", port, "--loops", "2", "--loglevel", "warning", "--dir", dir, "--save=",
		"--appendonly", "yes"}, extra...)
	cmd := startDaemon(t, args...)
	addr := "127.0.0.1:" + port
	for i := 0; !answersPing(addr); i++ {
		if i > 500 {
			t.Fatal("daemon did not listen")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return cmd.Process, addr
}

// TestAOFAlwaysKeepsAcknowledgedWritesOverKills: with appendfsync always,
// the daemon killed with SIGKILL under a write load twenty times keeps,
// after each restart, every write it acknowledged before.
func TestAOFAlwaysKeepsAcknowledgedWritesOverKills(t *testing.T) {
	dir := t.TempDir()
	port := strconv.Itoa(freePort(t))
	ack := &acked{keys: map[string]string{}, at: map[string]time.Time{}, counters: map[string][2]int64{}}
	deadline := time.Now().Add(40 * time.Second)
	kills := 0
	for ; kills < 20 && time.Now().Before(deadline); kills++ {
		proc, addr := startAOFDaemon(t, dir, port, "--appendfsync", "always")
		if lost := missing(t, addr, ack, true); len(lost) > 0 {
			t.Fatalf("after kill %d: %d acknowledged writes lost, e.g. %v", kills, len(lost), lost[:min(5, len(lost))])
		}
		stop := make(chan struct{})
		wg := writeLoad(t, addr, 4, kills, ack, stop)
		time.Sleep(80 * time.Millisecond)
		_ = proc.Kill() // SIGKILL while the writers write
		close(stop)
		wg.Wait()
		_, _ = proc.Wait()
	}
	proc, addr := startAOFDaemon(t, dir, port, "--appendfsync", "always")
	defer proc.Kill()
	if lost := missing(t, addr, ack, true); len(lost) > 0 {
		t.Fatalf("after kill %d: %d acknowledged writes lost, e.g. %v", kills, len(lost), lost[:min(5, len(lost))])
	}
	if kills < 20 || len(ack.keys) < 20 {
		t.Fatalf("%d kills, %d acknowledged writes: the load did not run", kills, len(ack.keys))
	}
	t.Logf("%d kills, %d acknowledged writes, all present", kills, len(ack.keys))
}

// TestAOFEverysecLosesAtMostTwoSeconds: with appendfsync everysec, a
// SIGKILL loses only writes acknowledged in about the last two seconds.
func TestAOFEverysecLosesAtMostTwoSeconds(t *testing.T) {
	dir := t.TempDir()
	port := strconv.Itoa(freePort(t))
	ack := &acked{keys: map[string]string{}, at: map[string]time.Time{}, counters: map[string][2]int64{}}
	proc, addr := startAOFDaemon(t, dir, port, "--appendfsync", "everysec")
	stop := make(chan struct{})
	wg := writeLoad(t, addr, 2, 0, ack, stop)
	time.Sleep(3500 * time.Millisecond)
	killed := time.Now()
	_ = proc.Kill()
	close(stop)
	wg.Wait()
	_, _ = proc.Wait()
	proc, addr = startAOFDaemon(t, dir, port, "--appendfsync", "everysec")
	defer proc.Kill()
	lost := missing(t, addr, ack, false)
	for _, k := range lost {
		if age := killed.Sub(ack.at[k]); age > 2500*time.Millisecond {
			t.Errorf("%s, acknowledged %v before the kill, was lost", k, age)
		}
	}
	t.Logf("%d acknowledged writes, %d lost (the last moments)", len(ack.keys), len(lost))
}

// TestAOFTornTail: a command torn off the end of the incr file is cut off
// with aof-load-truncated yes, keeping everything before it, and stops
// the start with aof-load-truncated no.
func TestAOFTornTail(t *testing.T) {
	dir := t.TempDir()
	port := strconv.Itoa(freePort(t))
	proc, addr := startAOFDaemon(t, dir, port, "--appendfsync", "always")
	cc := dialCrash(t, addr)
	for i := 0; i < 10; i++ {
		if r := cc.do("SET", "k"+strconv.Itoa(i), "v"); r != "+OK" {
			t.Fatalf("SET: %q", r)
		}
	}
	cc.c.Close()
	_ = proc.Kill()
	_, _ = proc.Wait()
	incr := filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof")
	f, err := os.OpenFile(incr, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("*3\r\n$3\r\nSET\r\n$4\r\ntorn\r\n$5\r\nva")
	f.Close()

	err = run([]string{"--port", strconv.Itoa(freePort(t)), "--dir", dir, "--loglevel", "warning", "--save", "",
		"--appendonly", "yes", "--aof-load-truncated", "no"})
	if err == nil || !strings.Contains(err.Error(), "appendonly.aof.1.incr.aof") {
		t.Fatalf("start with aof-load-truncated no: %v; want an error naming the incr file", err)
	}
	proc, addr = startAOFDaemon(t, dir, port, "--aof-load-truncated", "yes")
	defer proc.Kill()
	cc = dialCrash(t, addr)
	defer cc.c.Close()
	if r := cc.do("DBSIZE"); r != ":10" {
		t.Errorf("DBSIZE after the truncated load: %q, want :10", r)
	}
	if r := cc.do("EXISTS", "torn"); r != ":0" {
		t.Errorf("the torn SET was applied: %q", r)
	}
}
