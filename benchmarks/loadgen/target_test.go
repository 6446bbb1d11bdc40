package loadgen

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A target starter brings up a server for the mode tests and returns where
// it listens; cleanup is registered on t. Add a row to run every mode test
// against another server (loopkv's in-process server, once it exists).
var targetStarters = []struct {
	name  string
	start func(t *testing.T, tlsOn bool) Target
}{
	{"redis", startRedis},
}

// forEachTarget runs f against every starter, plaintext and TLS.
func forEachTarget(t *testing.T, f func(t *testing.T, tg Target)) {
	for _, s := range targetStarters {
		for _, tlsOn := range []bool{false, true} {
			name := s.name + "/plain"
			if tlsOn {
				name = s.name + "/tls"
			}
			t.Run(name, func(t *testing.T) { f(t, s.start(t, tlsOn)) })
		}
	}
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startRedis starts redis-server on a free loopback port, plaintext or TLS
// only, and stops it when the test ends.
func startRedis(t *testing.T, tlsOn bool) Target {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed (make deps)")
	}
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	args := []string{"--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--maxclients", "10000",
		"--dir", t.TempDir()}
	var tg Target
	tg.Addr = addr
	if tlsOn {
		dir := t.TempDir()
		f, err := WriteCerts(dir)
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, "--port", "0", "--tls-port", fmt.Sprint(port), "--tls-cert-file", f.Cert,
			"--tls-key-file", f.Key, "--tls-ca-cert-file", f.CA, "--tls-auth-clients", "no")
		if tg.TLS, err = ClientTLS(f.CA, "localhost", false, 0, 0); err != nil {
			t.Fatal(err)
		}
	} else {
		args = append(args, "--port", fmt.Sprint(port))
	}
	cmd := exec.Command(bin, args...)
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		<-logDone
		if t.Failed() {
			t.Logf("redis-server log:\n%s", log.String())
		}
	})
	tg.Pid = cmd.Process.Pid
	waitReady(t, tg)
	return tg
}

// waitReady waits until tg answers PING.
func waitReady(t *testing.T, tg Target) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := Dial(tg, nil)
		if err == nil {
			c.Append("PING")
			err = c.Do(1)
			c.Close(false)
			if err == nil {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server at %s not ready: %v", tg.Addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
