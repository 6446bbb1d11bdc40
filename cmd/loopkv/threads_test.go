package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// daemonEnv makes the test binary run as the daemon (TestMain) with the
// space-separated arguments it holds, so a test
// counts the threads of a process that is only the daemon.
const daemonEnv = "LOOPKV_TEST_DAEMON_ARGS"

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(daemonEnv); ok {
		if err := run(strings.Fields(args)); err != nil {
			fmt.Fprintln(os.Stderr, "loopkv:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startDaemon runs the daemon as a child process with args and returns it;
// it is killed at the end of the test.
func startDaemon(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), daemonEnv+"="+strings.Join(args, " "))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// tasks counts the threads of process pid.
func tasks(t *testing.T, pid int) int {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// settle waits up to 30 s (the trimmer checks once a second, every 8 s
// after four trims in a row that did not hold) for process pid to run at
// most budget threads, and returns its last count.
func settle(t *testing.T, pid, budget int) int {
	t.Helper()
	n := tasks(t, pid)
	for deadline := time.Now().Add(30 * time.Second); n > budget && time.Now().Before(deadline); n = tasks(t, pid) {
		time.Sleep(100 * time.Millisecond)
	}
	return n
}

// handshakeStorm runs n full TLS handshakes against addr, 16 at a time.
// The client skips verifying the chain, which costs it more CPU than the
// server spends: the server's work is the same.
func handshakeStorm(t *testing.T, addr string, n int) {
	t.Helper()
	cfg := &tls.Config{InsecureSkipVerify: true} // no session cache: every handshake is full
	jobs := make(chan struct{}, n)
	for range n {
		jobs <- struct{}{}
	}
	close(jobs)
	var wg sync.WaitGroup
	var failed atomic.Int32
	for range 16 {
		wg.Go(func() {
			for range jobs {
				c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, cfg)
				if err != nil {
					failed.Add(1)
					continue
				}
				c.Close()
			}
		})
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		t.Errorf("%d of %d handshakes failed", f, n)
	}
}

// TestThreadsStayWithinLoopsPlusSix runs the daemon with 1, 2 and 4 loops
// and counts its OS threads at rest and after 2,000 full
// TLS handshakes (250 under the race detector): at most threadBudget,
// which is loops + 6 with two CPUs (plus the race detector's thread).
func TestThreadsStayWithinLoopsPlusSix(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts /proc/PID/task")
	}
	dev := t.TempDir()
	if _, err := ensureDevTLS(dev); err != nil {
		t.Fatal(err)
	}
	for _, loops := range []int{1, 2, 4} {
		budget := threadBudget(loops) + raceThreads
		if runtime.GOMAXPROCS(0) <= 2 && budget > loops+6+raceThreads {
			t.Fatalf("budget %d above loops + 6", budget)
		}
		port, tlsPort := freePort(t), freePort(t)
		d := startDaemon(t, "--port", fmt.Sprint(port), "--tls-port", fmt.Sprint(tlsPort), "--dev-tls-dir", dev,
			"--loops", fmt.Sprint(loops), "--loglevel", "warning")
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		for deadline := time.Now().Add(10 * time.Second); !answersPing(addr); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d loops: daemon did not serve", loops)
			}
		}
		t0 := time.Now()
		rest := settle(t, d.Process.Pid, budget)
		t1 := time.Now()
		handshakeStorm(t, fmt.Sprintf("127.0.0.1:%d", tlsPort), stormHandshakes)
		t2 := time.Now()
		after := settle(t, d.Process.Pid, budget)
		t.Logf("%d loops: %d threads at rest (settled in %v), %d after %d handshakes (%v, settled in %v); budget %d",
			loops, rest, t1.Sub(t0).Round(time.Millisecond), after, stormHandshakes, t2.Sub(t1).Round(time.Millisecond),
			time.Since(t2).Round(time.Millisecond), budget)
		if rest > budget || after > budget {
			t.Errorf("%d loops: %d threads at rest, %d after the handshakes; want at most %d",
				loops, rest, after, budget)
		}
		_ = d.Process.Kill()
	}
}
