package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/loopkv/loopkv/config"
	"github.com/loopkv/loopkv/server"
)

// devTLSPort is the TLS port of --dev-tls-dir when --tls-port is not given.
const devTLSPort = 6380

// multiFlag is a repeatable flag: each use on the command line adds to
// the value (a line, or words: config.Setting.Join); the first use
// replaces the config file's value.
type multiFlag struct {
	v   *string
	st  *config.Setting // how uses join (config.Setting.Join)
	set bool
}

func (m *multiFlag) String() string {
	if m == nil || m.v == nil {
		return ""
	}
	return *m.v
}

func (m *multiFlag) Set(s string) error {
	if !m.set {
		*m.v, m.set = s, true
		return nil
	}
	*m.v = m.st.Join(*m.v, s)
	return nil
}

// checkTLSOptions checks what no single TLS setting can: certificates
// and keys come in pairs, and a TLS port needs them.
func checkTLSOptions(cfg settings, o server.TLSOptions) []error {
	var errs []error
	if len(o.CertFiles) != len(o.KeyFiles) {
		errs = append(errs, fmt.Errorf("tls-cert-file and tls-key-file must come in pairs: %d certificates, %d keys",
			len(o.CertFiles), len(o.KeyFiles)))
	}
	if o.Port != 0 && len(o.CertFiles) == 0 && cfg["dev-tls-dir"] == "" {
		errs = append(errs, errors.New("tls-port needs tls-cert-file and tls-key-file (or --dev-tls-dir)"))
	}
	return errs
}

// devTLS applies --dev-tls-dir: with no certificate given it generates (or
// reuses) a development CA and server certificate there and turns the TLS
// port on (6380 unless --tls-port names one).
func devTLS(cfg settings, opts *server.Options) error {
	dir := cfg["dev-tls-dir"]
	if dir == "" || len(opts.TLS.CertFiles) > 0 {
		return nil
	}
	f, err := ensureDevTLS(dir)
	if err != nil {
		return fmt.Errorf("dev-tls-dir: %w", err)
	}
	opts.TLS.CertFiles, opts.TLS.KeyFiles = []string{f.Cert}, []string{f.Key}
	if opts.TLS.Port == 0 {
		opts.TLS.Port = devTLSPort
	}
	return nil
}

// serve runs the server until ctx ends or it stops by itself. SIGHUP
// reloads the TLS certificates, keys and CAs; with --dev-tls-dir it
// prints how to connect.
// shutdownOnSignal shuts s down (final save, then stop) on SIGINT or
// SIGTERM; a signal whose save fails leaves it serving until the next. The
// returned func stops listening for signals.
func shutdownOnSignal(s *server.Server) func() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	quit := make(chan struct{})
	go func() {
		for {
			select {
			case <-sigs:
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				err := s.Shutdown(ctx) // logs a failed save itself
				cancel()
				if err == nil {
					return
				}
			case <-quit:
				return
			}
		}
	}()
	return func() { signal.Stop(sigs); close(quit) }
}

func serve(ctx context.Context, cfg settings, opts server.Options, ready *readyPipe) error {
	if err := devTLS(cfg, &opts); err != nil {
		return err
	}
	loops := opts.Loops
	if loops == 0 {
		loops = runtime.GOMAXPROCS(0) // server.Options' default
	}
	if procs, raise := procsForLoops(loops, runtime.GOMAXPROCS(0)); raise { // threads.go: a P per loop and one more
		was := runtime.GOMAXPROCS(procs)
		opts.Logger.Info("GOMAXPROCS raised to one P per loop and one for the rest",
			zap.Int("loops", loops), zap.Int("gomaxprocs", procs), zap.Int("was", was))
	}
	s := server.New(opts)
	if ready != nil {
		go func() { <-s.Listening(); ready.signal(nil) }() // daemon.go: the parent exits
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for range hup {
			_ = s.ReloadTLS() // logs its own outcome
		}
	}()
	go trimThreads(ctx, threadBudget(loops, runtime.GOMAXPROCS(0))) // threads.go
	stop := shutdownOnSignal(s)
	defer stop()
	return s.Run(ctx, func() {
		if opts.TLS.Port != 0 && cfg["dev-tls-dir"] != "" {
			fmt.Printf("loopkv: TLS on %s; connect with: redis-cli --tls --cacert %s -p %d ping\n",
				s.TLSAddr(), filepath.Join(cfg["dev-tls-dir"], "ca.crt"), opts.TLS.Port)
		}
	})
}
