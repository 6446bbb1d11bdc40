package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestFlagsOverrideConfigFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loopkv.conf")
	conf := "# comment\nport 7000\nmaxclients 50\nrequirepass \"p w\"\nsave \"\"\nappendonly no\nloglevel warning\n"
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, file, err := loadSettings([]string{path, "--port", "7001", "--loops", "3", "--engine", "netpoll"})
	if err != nil {
		t.Fatal(err)
	}
	opts, _, err := buildOptions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if file != path || opts.Port != 7001 || opts.MaxClients != 50 || opts.RequirePass != "p w" ||
		opts.Loops != 3 || opts.LogLevel != "warning" || opts.Engine != "netpoll" {
		t.Errorf("got %+v from %q", opts, file)
	}
}

func TestConfigFileRejectsUnknownDirective(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.conf")
	_ = os.WriteFile(path, []byte("port 1\nnosuchthing yes\n"), 0o600)
	if _, _, err := loadSettings([]string{path}); err == nil || !strings.Contains(err.Error(), ":2:") {
		t.Errorf("got %v, want an error naming line 2", err)
	}
	cfg, _, err := loadSettings([]string{"--loglevel", "loud"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := buildOptions(cfg); err == nil {
		t.Error("loglevel loud accepted")
	}
}

func TestDaemonExitsCleanlyOnSIGTERMAndShutdown(t *testing.T) {
	for _, how := range []string{"SHUTDOWN", "SIGTERM"} {
		dev := t.TempDir()
		ports, done := runOnFreePorts(t, 2, func(p []int) []string {
			return []string{"--port", fmt.Sprint(p[0]), "--loops", "1", "--loglevel", "warning",
				"--dev-tls-dir", dev, "--tls-port", fmt.Sprint(p[1])}
		}, func(p []int) bool { return answersPing(fmt.Sprintf("127.0.0.1:%d", p[0])) }, "daemon did not listen")
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", ports[0]))
		if err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(c)
		fmt.Fprint(c, "PING\r\n")
		if line, _ := r.ReadString('\n'); line != "+PONG\r\n" {
			t.Fatalf("PING: %q", line)
		}
		if how == "SHUTDOWN" {
			fmt.Fprint(c, "SHUTDOWN\r\n")
		} else {
			_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
		}
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: run returned %v", how, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: daemon did not stop", how)
		}
		c.Close()
	}
}

func TestTLSCertificatePairsRepeatInFileAndFlags(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loopkv.conf")
	conf := "tls-port 6390\ntls-cert-file a.crt\ntls-key-file a.key\ntls-cert-file b.crt\ntls-key-file b.key\n" +
		"tls-auth-clients optional\ntls-protocols \"TLSv1.3\"\n"
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := loadSettings([]string{path, "--port", "0"})
	if err != nil {
		t.Fatal(err)
	}
	opts, _, err := buildOptions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tls := opts.TLS
	if tls.Port != 6390 || !reflect.DeepEqual(tls.CertFiles, []string{"a.crt", "b.crt"}) ||
		!reflect.DeepEqual(tls.KeyFiles, []string{"a.key", "b.key"}) || tls.AuthClients != "optional" ||
		tls.Protocols != "TLSv1.3" || opts.Port != -1 {
		t.Errorf("from the file: %+v, port %d", tls, opts.Port)
	}
	// Flags replace the file's pairs.
	cfg, _, err = loadSettings([]string{path, "--tls-cert-file", "c.crt", "--tls-key-file", "c.key",
		"--tls-cert-file", "d.crt", "--tls-key-file", "d.key"})
	if err != nil {
		t.Fatal(err)
	}
	if opts, _, err = buildOptions(cfg); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(opts.TLS.CertFiles, []string{"c.crt", "d.crt"}) || !reflect.DeepEqual(opts.TLS.KeyFiles, []string{"c.key", "d.key"}) {
		t.Errorf("from flags: %q %q", opts.TLS.CertFiles, opts.TLS.KeyFiles)
	}
	// An unpaired certificate is refused.
	cfg, _, _ = loadSettings([]string{"--tls-port", "6390", "--tls-cert-file", "c.crt"})
	if _, _, err := buildOptions(cfg); err == nil {
		t.Error("a certificate without its key was accepted")
	}
}

// TestDevTLSServesWithGeneratedCertificate runs the daemon TLS-only with
// --dev-tls-dir, verifies the server with the generated CA, and stops it
// with SHUTDOWN over TLS.
func TestDevTLSServesWithGeneratedCertificate(t *testing.T) {
	dev := t.TempDir()
	var c *tls.Conn
	_, done := runOnFreePorts(t, 1, func(p []int) []string {
		return []string{"--port", "0", "--tls-port", fmt.Sprint(p[0]), "--loops", "1", "--loglevel", "warning",
			"--dev-tls-dir", dev}
	}, func(p []int) bool {
		ca, err := os.ReadFile(filepath.Join(dev, "ca.crt"))
		if err != nil {
			return false
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(ca)
		c, _ = tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", fmt.Sprintf("127.0.0.1:%d", p[0]),
			&tls.Config{RootCAs: pool, ServerName: "localhost"})
		return c != nil
	}, "daemon did not serve TLS with its development certificate")
	defer c.Close()
	r := bufio.NewReader(c)
	fmt.Fprint(c, "PING\r\n")
	if line, _ := r.ReadString('\n'); line != "+PONG\r\n" {
		t.Fatalf("PING over TLS: %q", line)
	}
	shutdownAndWait(t, c, done)
}

// TestSIGHUPReloadsTheCertificate rewrites the certificate files under a
// running daemon, sends SIGHUP, and expects new connections to get the new
// certificate.
func TestSIGHUPReloadsTheCertificate(t *testing.T) {
	first, err := ensureDevTLS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	second, err := ensureDevTLS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var port int
	serial := func() (string, *tls.Conn) {
		c, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", fmt.Sprintf("127.0.0.1:%d", port),
			&tls.Config{InsecureSkipVerify: true})
		if err != nil {
			return "", nil
		}
		return c.ConnectionState().PeerCertificates[0].SerialNumber.String(), c
	}
	var before string
	var c *tls.Conn
	_, done := runOnFreePorts(t, 1, func(p []int) []string {
		return []string{"--port", "0", "--tls-port", fmt.Sprint(p[0]), "--loops", "1", "--loglevel", "warning",
			"--tls-cert-file", first.Cert, "--tls-key-file", first.Key}
	}, func(p []int) bool {
		port = p[0]
		before, c = serial()
		return c != nil
	}, "daemon did not serve TLS")
	for _, f := range [][2]string{{second.Cert, first.Cert}, {second.Key, first.Key}} {
		b, err := os.ReadFile(f[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f[1], b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGHUP)
	after := before
	for i := 0; i < 200 && after == before; i++ {
		time.Sleep(10 * time.Millisecond)
		var c2 *tls.Conn
		if after, c2 = serial(); c2 != nil {
			c2.Close()
		}
	}
	if after == before {
		t.Error("SIGHUP did not reload the certificate")
	}
	// The connection made before the reload still works.
	r := bufio.NewReader(c)
	fmt.Fprint(c, "PING\r\n")
	if line, _ := r.ReadString('\n'); line != "+PONG\r\n" {
		t.Errorf("PING on the old connection: %q", line)
	}
	shutdownAndWait(t, c, done)
}

// shutdownAndWait sends SHUTDOWN on c and waits for the daemon's run to
// return nil.
func shutdownAndWait(t *testing.T, c io.Writer, done <-chan error) {
	t.Helper()
	fmt.Fprint(c, "SHUTDOWN\r\n")
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("daemon did not stop")
	}
}

// freePort returns a port that was free a moment ago on 127.0.0.1.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// runOnFreePorts runs the daemon with the arguments args gives for n ports
// picked here, and waits up to two seconds for up to report that it serves
// on them (else it fails the test with notUp). A picked port was free a
// moment ago only: any connect on the machine may take it as its ephemeral
// port before the daemon binds it. When run fails with EADDRINUSE, the
// daemon is run again on new ports, up to three times. It returns the
// ports and the channel that receives run's result.
func runOnFreePorts(t *testing.T, n int, args func(ports []int) []string, up func(ports []int) bool, notUp string) ([]int, <-chan error) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		ports := make([]int, n)
		for i := range ports {
			ports[i] = freePort(t)
		}
		done := make(chan error, 1)
		a := args(ports)
		if !slices.Contains(a, "--dir") {
			a = append(a, "--dir", t.TempDir()) // saves and loads stay out of the source tree
		}
		go func() { done <- run(a) }()
		served, err := waitServing(done, ports, up)
		if served {
			return ports, done
		}
		if err == nil {
			t.Fatal(notUp)
		}
		if !errors.Is(err, syscall.EADDRINUSE) || attempt == 3 {
			t.Fatalf("run returned %v before it served", err)
		}
		t.Logf("run: %v; a picked port was taken before the bind, picking again", err)
	}
}

// waitServing polls up every 10 ms for two seconds. It returns true once
// up does, or false with what run returned if it returns first; false and
// nil when neither happened in time.
func waitServing(done <-chan error, ports []int, up func(ports []int) bool) (bool, error) {
	for i := 0; i < 200; i++ {
		select {
		case err := <-done:
			if err == nil {
				err = errors.New("nil")
			}
			return false, err
		default:
		}
		if up(ports) {
			return true, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false, nil
}

// answersPing reports whether a server on addr answers an inline PING
// within half a second. A port that accepts connections may be another
// socket's that took the port we picked; one that answers is the daemon.
func answersPing(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := fmt.Fprint(c, "PING\r\n"); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+")
}
