package main

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
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
	return startDaemonEnv(t, nil, args...)
}

// startDaemonEnv is startDaemon with env added to the child's environment.
func startDaemonEnv(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), env...), daemonEnv+"="+strings.Join(args, " "))
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

// startProcs is the test binary's GOMAXPROCS before the testing package
// applies -cpu: the daemon it starts as a child begins with the same.
var startProcs = runtime.GOMAXPROCS(0)

// holdConns opens n plaintext connections to addr, half of them blocked in
// BLPOP on keys of their own and half idle after a PING, plus tlsN TLS
// connections idle after a PING, and waits until the daemon counts the
// blocked half (INFO blocked_clients). They close at the end of the test.
func holdConns(t *testing.T, addr, tlsAddr string, n, tlsN int) {
	t.Helper()
	for i := range n {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if i%2 == 0 {
			fmt.Fprintf(c, "BLPOP held:%d 0\r\n", i)
			continue
		}
		if !pingOn(c) {
			t.Fatalf("held connection %d: no PONG", i)
		}
	}
	for i := range tlsN {
		c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", tlsAddr, &tls.Config{InsecureSkipVerify: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if !pingOn(c) {
			t.Fatalf("held TLS connection %d: no PONG", i)
		}
	}
	want := fmt.Sprintf("blocked_clients:%d\r\n", (n+1)/2)
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprint(c, "INFO clients\r\n")
		info, err := readBulk(r)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(info, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("INFO clients never showed %q: %q", want, info)
		}
	}
}

// pingOn sends an inline PING on c and reports whether +PONG came back.
func pingOn(c net.Conn) bool {
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	defer c.SetDeadline(time.Time{})
	if _, err := fmt.Fprint(c, "PING\r\n"); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && line == "+PONG\r\n"
}

// readBulk reads one RESP bulk string from r.
func readBulk(r *bufio.Reader) (string, error) {
	head, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(head, "$")))
	if err != nil || n < 0 {
		return "", fmt.Errorf("not a bulk string: %q", head)
	}
	b := make([]byte, n+2)
	_, err = io.ReadFull(r, b)
	return string(b[:n]), err
}

// heldConns are the connections TestThreadsStayWithinBudget holds open
// (half of them blocked in BLPOP), and heldTLS the TLS ones: many more
// than the budget's threads, so a thread per connection cannot pass.
const (
	heldConns = 200
	heldTLS   = 32
)

// TestThreadsStayWithinBudget runs the daemon with 1, 2 and 4 loops and
// counts its OS threads at rest, after a storm of 10,000 full TLS
// handshakes (1,000 under the race detector, whose client side is ten
// times slower) and while heldConns connections (half blocked in BLPOP)
// and heldTLS TLS ones stay open: at most threadBudget, loops + 6 with two
// CPUs for every loop count, plus the race detector's thread. The budget
// has no term for connections.
func TestThreadsStayWithinBudget(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts /proc/PID/task")
	}
	dev := t.TempDir()
	if _, err := ensureDevTLS(dev); err != nil {
		t.Fatal(err)
	}
	for _, loops := range []int{1, 2, 4} {
		procs, _ := procsForLoops(loops, startProcs)
		budget := threadBudget(loops, procs) + raceThreads
		ps := startProcs
		if loops > ps {
			ps = loops + 1
		}
		if budget > loops+ps+4+raceThreads {
			t.Fatalf("%d loops: budget %d above loops + GOMAXPROCS (%d, or loops + 1 below it) + 4", loops, budget, startProcs)
		}
		if budget >= heldConns/2 {
			t.Fatalf("budget %d would not tell a thread per connection from none", budget)
		}
		port, tlsPort := freePort(t), freePort(t)
		d := startDaemon(t, "--port", fmt.Sprint(port), "--tls-port", fmt.Sprint(tlsPort), "--dev-tls-dir", dev,
			"--loops", fmt.Sprint(loops), "--loglevel", "warning")
		addr, tlsAddr := fmt.Sprintf("127.0.0.1:%d", port), fmt.Sprintf("127.0.0.1:%d", tlsPort)
		for deadline := time.Now().Add(10 * time.Second); !answersPing(addr); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d loops: daemon did not serve", loops)
			}
		}
		t0 := time.Now()
		rest := settle(t, d.Process.Pid, budget)
		t1 := time.Now()
		handshakeStorm(t, tlsAddr, stormHandshakes)
		t2 := time.Now()
		after := settle(t, d.Process.Pid, budget)
		t3 := time.Now()
		holdConns(t, addr, tlsAddr, heldConns, heldTLS)
		held := settle(t, d.Process.Pid, budget)
		t.Logf("%d loops: %d threads at rest (settled in %v), %d after %d handshakes (%v, settled in %v), "+
			"%d with %d connections held (settled in %v); budget %d",
			loops, rest, t1.Sub(t0).Round(time.Millisecond), after, stormHandshakes, t2.Sub(t1).Round(time.Millisecond),
			t3.Sub(t2).Round(time.Millisecond), held, heldConns+heldTLS, time.Since(t3).Round(time.Millisecond), budget)
		if rest > budget || after > budget || held > budget {
			t.Errorf("%d loops: %d threads at rest, %d after the handshakes, %d with connections held; want at most %d",
				loops, rest, after, held, budget)
		}
		_ = d.Process.Kill()
	}
}

// TestLoopsAboveGOMAXPROCSRaiseIt runs the daemon with two loops more than
// its GOMAXPROCS and reads the runtime's setting from its metrics
// endpoint (go_sched_gomaxprocs_threads): raised to the loop count plus
// one, and left alone when the environment sets GOMAXPROCS or the loops
// are as many as the Ps.
func TestLoopsAboveGOMAXPROCSRaiseIt(t *testing.T) {
	loops := startProcs + 2
	for _, tc := range []struct {
		env   []string
		want  int
		loops int
	}{
		{nil, loops + 1, loops},
		{[]string{"GOMAXPROCS=1"}, 1, loops},
		{nil, startProcs, startProcs},
	} {
		if _, set := os.LookupEnv("GOMAXPROCS"); set && tc.env == nil {
			t.Logf("GOMAXPROCS is set in the test's environment: the raise is not tried")
			continue
		}
		port, mport := freePort(t), freePort(t)
		d := startDaemonEnv(t, tc.env, "--port", fmt.Sprint(port), "--tls-port", "0", "--metrics-port", fmt.Sprint(mport),
			"--loops", fmt.Sprint(tc.loops), "--loglevel", "warning", "--save=", "--dir", t.TempDir())
		got := -1
		for deadline := time.Now().Add(10 * time.Second); got < 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			got = gomaxprocsMetric(fmt.Sprintf("http://127.0.0.1:%d/metrics", mport))
		}
		if got != tc.want {
			t.Errorf("--loops %d, environment %q: GOMAXPROCS %d, want %d", tc.loops, tc.env, got, tc.want)
		}
		_ = d.Process.Kill()
	}
}

// gomaxprocsMetric reads go_sched_gomaxprocs_threads from a metrics
// endpoint; -1 when it cannot.
func gomaxprocsMetric(url string) int {
	resp, err := http.Get(url)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_sched_gomaxprocs_threads "); ok {
			if n, err := strconv.Atoi(v); err == nil {
				return n
			}
		}
	}
	return -1
}
