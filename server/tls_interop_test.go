package server

import (
	"bufio"
	"context"
	"crypto/tls"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestTLSRedisCLI runs redis-cli --tls against the TLS port, with and
// without a client certificate.
func TestTLSRedisCLI(t *testing.T) {
	cli := needTool(t, "redis-cli")
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{TLS: TLSOptions{CACertFile: p.caFile, AuthClients: "optional"}})
	port := strconv.Itoa(s.opts.TLS.Port)
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"cacert", []string{"--tls", "--cacert", p.caFile, "-p", port}},
		{"cacert+cert", []string{"--tls", "--cacert", p.caFile, "--cert", p.clientCert, "--key", p.clientKy, "-p", port}},
	} {
		for _, cmd := range [][]string{{"PING"}, {"SET", "cli", "v"}, {"GET", "cli"}} {
			out, err := exec.Command(cli, append(tt.args, cmd...)...).CombinedOutput()
			want := map[string]string{"PING": "PONG", "SET": "OK", "GET": "v"}[cmd[0]]
			if err != nil || strings.TrimSpace(string(out)) != want {
				t.Errorf("%s %v: %q, %v; want %q", tt.name, cmd, out, err, want)
			}
		}
	}
}

// opensslCases are the groups and suites OpenSSL 3.0 offers that the
// engine supports.
var opensslCases = []struct{ args []string }{
	{[]string{"-tls1_3", "-groups", "X25519"}},
	{[]string{"-tls1_3", "-groups", "P-256"}},
	{[]string{"-tls1_3", "-groups", "P-384"}},
	{[]string{"-tls1_3", "-groups", "P-521"}},
	{[]string{"-tls1_3", "-ciphersuites", "TLS_AES_128_GCM_SHA256"}},
	{[]string{"-tls1_3", "-ciphersuites", "TLS_AES_256_GCM_SHA384"}},
	{[]string{"-tls1_3", "-ciphersuites", "TLS_CHACHA20_POLY1305_SHA256"}},
	{[]string{"-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"}},
	{[]string{"-tls1_2", "-cipher", "ECDHE-ECDSA-CHACHA20-POLY1305"}},
}

// TestTLSOpenSSLSClient sends PING through openssl s_client for each group
// and suite and expects +PONG.
func TestTLSOpenSSLSClient(t *testing.T) {
	bin := needTool(t, "openssl")
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{})
	for i, tt := range opensslCases {
		args := append([]string{"s_client", "-connect", s.TLSAddr(), "-CAfile", p.caFile, "-quiet",
			"-verify_return_error"}, tt.args...)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Stdin = &slowReader{s: "PING\r\nQUIT\r\n"}
		out, err := cmd.CombinedOutput()
		cancel()
		if !strings.Contains(string(out), "+PONG") {
			t.Errorf("#%d %v: no +PONG in %q (%v)", i, tt.args, out, err)
		}
	}
}

// slowReader yields its text after a pause, so that s_client sends it
// after the handshake, then ends.
type slowReader struct {
	s    string
	done bool
}

func (r *slowReader) Read(b []byte) (int, error) {
	if r.done {
		time.Sleep(300 * time.Millisecond) // QUIT closes the connection first
		return 0, context.Canceled
	}
	time.Sleep(50 * time.Millisecond)
	r.done = true
	return copy(b, r.s), nil
}

func TestTLSRedisBenchmarkSmoke(t *testing.T) {
	bench := needTool(t, "redis-benchmark")
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{})
	out, err := exec.Command(bench, "--tls", "--cacert", p.caFile, "-p", strconv.Itoa(s.opts.TLS.Port),
		"-n", "2000", "-c", "10", "-P", "16", "-t", "ping,set,get", "-q").CombinedOutput()
	if err != nil {
		t.Fatalf("redis-benchmark: %v\n%s", err, out)
	}
	text := string(out)
	for _, test := range []string{"PING_INLINE", "PING_MBULK", "SET", "GET"} {
		if !strings.Contains(text, test+": ") {
			t.Errorf("no %s result in:\n%s", test, text)
		}
	}
	if strings.Contains(strings.ToLower(text), "error") {
		t.Errorf("redis-benchmark reported errors:\n%s", text)
	}
}

// peerSerial handshakes with a new connection and returns the server
// certificate's serial number.
func peerSerial(t *testing.T, addr string, p *testPKI) int64 {
	t.Helper()
	c := dialTLS(t, addr, p.clientConfig())
	defer c.Close()
	return c.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
}

// TestTLSReloadUnderLoad swaps the certificate twice (CONFIG SET, then
// ReloadTLS as SIGHUP does) while clients keep running commands.
func TestTLSReloadUnderLoad(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{})
	first := peerSerial(t, s.TLSAddr(), p)
	rdb := redis.NewClient(&redis.Options{Addr: s.TLSAddr(), TLSConfig: p.clientConfig(), PoolSize: 4})
	defer rdb.Close()
	ctx := context.Background()
	var stop atomic.Bool
	var ops, fails atomic.Int64
	var wg sync.WaitGroup
	t.Cleanup(func() { stop.Store(true); wg.Wait() })
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := "load" + strconv.Itoa(w)
			for !stop.Load() {
				if err := rdb.Set(ctx, key, "v", 0).Err(); err != nil {
					fails.Add(1)
				}
				ops.Add(1)
			}
		}()
	}
	waitSerial := func(not int64) int64 {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if got := peerSerial(t, s.TLSAddr(), p); got != not {
				return got
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("certificate serial still %d after reload", not)
		return 0
	}
	// 1. CONFIG SET to new files.
	cert2, key2 := p.issue(t, "server2", "localhost", nil)
	admin := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer admin.Close()
	if err := admin.ConfigSet(ctx, "tls-cert-file", cert2).Err(); err != nil {
		t.Fatal(err)
	}
	if err := admin.ConfigSet(ctx, "tls-key-file", key2).Err(); err != nil {
		t.Fatal(err)
	}
	second := waitSerial(first)
	if got, _ := admin.ConfigGet(ctx, "tls-cert-file").Result(); got["tls-cert-file"] != cert2 {
		t.Errorf("CONFIG GET tls-cert-file = %v, want %s", got, cert2)
	}
	// 2. The same paths rewritten, then a SIGHUP-style reload.
	c3, k3 := p.issue(t, "server2", "localhost", nil)
	if c3 != cert2 || k3 != key2 {
		t.Fatal("issue wrote other paths")
	}
	if err := s.ReloadTLS(); err != nil {
		t.Fatal(err)
	}
	if third := waitSerial(second); third == first {
		t.Errorf("serial went back to %d", first)
	}
	// A bad file keeps the current material and is reported.
	if err := admin.ConfigSet(ctx, "tls-cert-file", p.caFile+".missing").Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	info, _ := admin.Info(ctx, "tls").Result()
	if !strings.Contains(info, "tls_reload_failures:1") || !strings.Contains(info, "tls_last_reload_error:") {
		t.Errorf("INFO tls after a failed reload:\n%s", info)
	}
	stop.Store(true)
	wg.Wait()
	if fails.Load() > 0 || ops.Load() == 0 {
		t.Errorf("load: %d ops, %d failures across the reloads", ops.Load(), fails.Load())
	}
}

// TestTLSRSAUsesWorkerPool serves an RSA certificate, whose signatures run
// on the worker pool, to concurrent clients.
func TestTLSRSAUsesWorkerPool(t *testing.T) {
	p := newTestPKI(t)
	cert, key := p.issue(t, "rsa", "localhost", newRSAKey(t))
	s := startTLSServer(t, p, Options{TLS: TLSOptions{CertFiles: []string{cert}, KeyFiles: []string{key},
		Workers: 2, CACertFile: p.caFile, AuthClients: "yes"}})
	cfg := p.clientConfig()
	cfg.Certificates = []tls.Certificate{p.clientPair(t)}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := tls.Dial("tcp", s.TLSAddr(), cfg)
			if err != nil {
				t.Errorf("dial: %v", err)
				return
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			if got := tlsDo(t, c, bufio.NewReader(c), "PING"); got != "+PONG\r\n" {
				t.Errorf("PING = %q", got)
			}
		}()
	}
	wg.Wait()
	if n := s.tls.pool.ran.Load(); n != 16 {
		t.Errorf("worker pool ran %d jobs, want 16 (8 RSA signatures, 8 chain checks)", n)
	}
	st := &s.tls.stats
	if st.completed.Load() != 8 || st.clientCerts.Load() != 8 || st.failed.Load() != 0 {
		t.Errorf("completed %d, client certs %d, failed %d; want 8, 8, 0",
			st.completed.Load(), st.clientCerts.Load(), st.failed.Load())
	}
}

// TestTLSInfoSection checks INFO tls after a handshake.
func TestTLSInfoSection(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{})
	c := dialTLS(t, s.TLSAddr(), p.clientConfig())
	r := bufio.NewReader(c)
	info := tlsDo(t, c, r, "INFO", "tls")
	for _, want := range []string{"tls_enabled:1", "tls_connections:1", "tls_handshakes_completed:1",
		"tls_handshakes_failed:0", "tls_handshakes_in_flight:0", "tls_worker_queue_depth:0", "tls_resumptions:0"} {
		if !strings.Contains(info, want+"\r\n") {
			t.Errorf("INFO tls lacks %s:\n%s", want, info)
		}
	}
}
