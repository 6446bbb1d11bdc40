package loadgen

import (
	"context"
	"testing"
	"time"

	"github.com/loopkv/loopkv/server"
)

func init() {
	targetStarters = append(targetStarters, struct {
		name  string
		start func(t *testing.T, tlsOn bool) Target
	}{"loopkv", startLoopkv})
}

// startLoopkv serves loopkv in this process on a free loopback port. Its
// Pid is 0: the process's CPU and memory are the load generator's too.
func startLoopkv(t *testing.T, tlsOn bool) Target {
	t.Helper()
	opts := server.Options{Bind: "127.0.0.1", Port: freePort(t), Loops: 2}
	var tg Target
	if tlsOn {
		f, err := WriteCerts(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		opts.Port = -1 // TLS only, as the redis-server target
		opts.TLS = server.TLSOptions{Port: freePort(t), CertFiles: []string{f.Cert}, KeyFiles: []string{f.Key}}
		if tg.TLS, err = ClientTLS(f.CA, "localhost", false, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	s := server.New(opts)
	errc := make(chan error, 1)
	go func() { errc <- s.Serve() }()
	select {
	case <-s.Ready():
	case err := <-errc:
		t.Fatalf("loopkv Serve: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("loopkv not ready")
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Stop(ctx); err != nil {
			t.Errorf("loopkv Stop: %v", err)
		}
	})
	tg.Addr = s.Addr()
	if tlsOn {
		tg.Addr = s.TLSAddr()
	}
	waitReady(t, tg)
	return tg
}
