package server

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"TLSAutoReloadRotatesUnderLoad", TestTLSAutoReloadRotatesUnderLoad},
		{"TLSAutoReloadKeepsTheOldPairOnAMismatch", TestTLSAutoReloadKeepsTheOldPairOnAMismatch},
	}...)
}

// rotateInPlace renames a new file over path, as a deploy tool does.
func rotateInPlace(t *testing.T, newFile, path string) {
	t.Helper()
	if err := os.Rename(newFile, path); err != nil {
		t.Fatal(err)
	}
}

// waitPeerSerial waits up to 10 s for new connections to see a server
// certificate whose serial is not old, and returns it.
func waitPeerSerial(t *testing.T, addr string, p *testPKI, old int64) int64 {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got := peerSerial(t, addr, p); got != old {
			return got
		}
	}
	t.Fatalf("certificate serial still %d", old)
	return 0
}

// TestTLSAutoReloadRotatesUnderLoad renames a new certificate and key over
// the served files while clients run commands: with tls-auto-reload-interval
// 1, new connections get the new certificate, and no connection drops or
// fails a command, an established one included.
func TestTLSAutoReloadRotatesUnderLoad(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{TLS: TLSOptions{AutoReloadInterval: 1}})
	first := peerSerial(t, s.TLSAddr(), p)
	held := dialTLS(t, s.TLSAddr(), p.clientConfig())
	heldR := bufio.NewReader(held)
	if got := tlsDo(t, held, heldR, "SET", "held", "1"); got != "+OK\r\n" {
		t.Fatalf("SET = %q", got)
	}
	rdb := redis.NewClient(&redis.Options{Addr: s.TLSAddr(), TLSConfig: p.clientConfig(), PoolSize: 4, MaxRetries: -1})
	defer rdb.Close()
	var stop atomic.Bool
	var ops, fails atomic.Int64
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			key := "rot" + strconv.Itoa(w)
			for !stop.Load() {
				if err := rdb.Incr(context.Background(), key).Err(); err != nil {
					fails.Add(1)
				}
				ops.Add(1)
			}
		})
	}
	cert, key := p.issue(t, "rotated", "localhost", nil)
	rotateInPlace(t, key, p.keyFile)
	rotateInPlace(t, cert, p.certFile)
	second := waitPeerSerial(t, s.TLSAddr(), p, first)
	time.Sleep(100 * time.Millisecond) // a little load on the new material
	stop.Store(true)
	wg.Wait()
	if f := fails.Load(); f != 0 || ops.Load() == 0 {
		t.Errorf("%d of %d commands failed across the rotation", f, ops.Load())
	}
	if got := tlsDo(t, held, heldR, "GET", "held"); got != "$1\r\n1\r\n" {
		t.Errorf("connection opened before the rotation: GET = %q", got)
	}
	if second == first || s.tls.stats.reloads.Load() != 1 {
		t.Errorf("serial %d → %d after %d reloads, want a new one after 1", first, second, s.tls.stats.reloads.Load())
	}
}

// TestTLSAutoReloadKeepsTheOldPairOnAMismatch renames only a new
// certificate over the served one, as a rotation caught between its two
// renames leaves it: the old certificate is still served, the failure is
// logged and counted, and the key's arrival completes the rotation.
func TestTLSAutoReloadKeepsTheOldPairOnAMismatch(t *testing.T) {
	p := newTestPKI(t)
	core, logs := observer.New(zapcore.InfoLevel)
	s := startTLSServer(t, p, Options{Logger: zap.New(core), TLS: TLSOptions{AutoReloadInterval: 1}})
	first := peerSerial(t, s.TLSAddr(), p)
	cert, key := p.issue(t, "next", "localhost", nil)
	rotateInPlace(t, cert, p.certFile)
	for deadline := time.Now().Add(10 * time.Second); s.tls.stats.reloadFails.Load() == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no reload attempt 10 s after the certificate changed")
		}
	}
	if got := peerSerial(t, s.TLSAddr(), p); got != first {
		t.Errorf("serial %d served with a mismatched key on disk, want the old %d", got, first)
	}
	failed := logs.FilterMessage("tls reload failed").All()
	if len(failed) != 1 || !strings.Contains(fmt.Sprint(failed[0].ContextMap()["error"]), "does not match") {
		t.Errorf("logged %v, want one tls reload failed naming the mismatch", failed)
	}
	rotateInPlace(t, key, p.keyFile)
	if got := waitPeerSerial(t, s.TLSAddr(), p, first); got == first {
		t.Errorf("serial %d after the key arrived", got)
	}
	if n := s.tls.stats.reloadFails.Load(); n != 1 {
		t.Errorf("tls_reload_failures = %d, want 1 (an unchanged mismatch is not retried)", n)
	}
}
