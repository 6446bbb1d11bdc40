package aof

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// crashChildEnv names the directory the crash child appends to.
const crashChildEnv = "LOOPKV_AOF_CRASH_CHILD_DIR"

// TestMain runs the crash child when this test binary is started as one.
func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		crashChild(dir)
		return
	}
	os.Exit(m.Run())
}

// crashChild appends from four goroutines with Always and prints each
// key once Durable covers it, until it is killed.
func crashChild(dir string) {
	l, err := Open(Options{Dir: dir, Fsync: Always})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	l.SetOnDurable(func(uint64) { mu.Lock(); cond.Broadcast(); mu.Unlock() })
	out := make(chan string, 1024)
	for g := range 4 {
		go func() {
			for i := 0; ; i++ {
				k := fmt.Sprintf("g%d:%d", g, i)
				seq := l.Append(command("SET", k, strings.Repeat("x", i%50)))
				mu.Lock()
				for l.Durable() < seq {
					cond.Wait()
				}
				mu.Unlock()
				out <- k
			}
		}()
	}
	w := bufio.NewWriter(os.Stdout)
	for k := range out {
		w.WriteString(k + "\n")
		if len(out) == 0 {
			w.Flush()
		}
	}
}

// TestKill9KeepsEveryDurableAppend kills a process that appends with
// Always (SIGKILL, no Close) and checks that every append it had seen
// become durable loads, once.
func TestKill9KeepsEveryDurableAppend(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acked []string
	sc := bufio.NewScanner(stdout)
	for len(acked) < 2000 && sc.Scan() {
		acked = append(acked, sc.Text())
	}
	cmd.Process.Kill()
	cmd.Wait()
	if len(acked) < 2000 {
		t.Fatalf("child acknowledged only %d appends: %v %q", len(acked), sc.Err(), acked)
	}
	got, st, err := replay(t, Options{Dir: dir, LoadTruncated: true})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, c := range got {
		f := strings.Fields(c)
		seen[f[1]]++
	}
	for _, k := range acked {
		if seen[k] != 1 {
			t.Fatalf("acknowledged %s loaded %d times", k, seen[k])
		}
	}
	t.Logf("%d acknowledged, %d loaded, truncated %v", len(acked), len(got), st.Truncated)
}
