package loadgen

import (
	"cmp"
	"crypto/tls"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// ChurnConfig configures RunChurn.
type ChurnConfig struct {
	Target   Target // with TLS set, each cycle is a TLS handshake; without, a TCP connect
	Workers  int    // concurrent dialers
	Duration time.Duration
	// Resume makes every handshake after each worker's first a resumption
	// (a per-worker session cache, primed before the clock starts).
	Resume   bool
	Progress io.Writer
}

// RunChurn runs the handshake-churn mode: each worker connects, completes
// the handshake, sends PING, reads PONG and resets the connection, in a
// loop. Latency is that whole cycle.
func RunChurn(cfg ChurnConfig) (*Result, error) {
	cfg.Workers = max(cfg.Workers, 1)
	if cfg.Duration <= 0 {
		return nil, fmt.Errorf("loadgen: churn needs a duration")
	}
	if _, err := RaiseFileLimit(uint64(cfg.Workers) + 64); err != nil {
		return nil, err
	}
	cs, err := newChurners(cfg.Target, cfg.Workers, cfg.Resume)
	if err != nil {
		return nil, err
	}
	cpu := startCPU(cfg.Target.Pid)
	t0 := time.Now()
	var stop atomic.Bool
	timer := time.AfterFunc(cfg.Duration, func() { stop.Store(true) })
	defer timer.Stop()
	stopProgress := progress(cfg.Progress, "churn", cfg.Duration, &cs.done)
	cs.run(&stop)
	stopProgress()
	elapsed := time.Since(t0)
	serverCPU, clientCPU := cpu.stop()
	r := &Result{
		Mode: "churn", Addr: cfg.Target.Addr, TLS: cfg.Target.TLS != nil, Workers: cfg.Workers,
		Resume: cfg.Resume, Seconds: elapsed.Seconds(), ServerCPU: seconds(serverCPU),
		ClientCPU: clientCPU.Seconds(),
	}
	if err := cs.fold(r); err != nil {
		return r, err
	}
	r.Ops = r.Handshakes
	r.HandshakesPerSec = float64(r.Handshakes) / elapsed.Seconds()
	r.OpsPerSec = r.HandshakesPerSec
	r.ServerCPUPerHS = perOp(serverCPU, r.Handshakes)
	r.ServerCPUPerOp = r.ServerCPUPerHS
	if cfg.Resume && cfg.Target.TLS != nil && r.Resumed == 0 {
		return r, ErrNotResumed
	}
	return r, nil
}

// churners is a group of connect-handshake-PING-close workers.
type churners struct {
	target  Target
	workers []*churnWorker
	done    atomic.Int64 // completed cycles, for the progress line
}

type churnWorker struct {
	cfg        *tls.Config // per worker, so resumption uses its own cache
	hist       *Histogram
	handshakes int64
	resumed    int64
	errReplies int64
	firstErr   string
	tlsInfo    string // of the latest handshake
	err        error
}

// newChurners prepares n workers; with resume, each primes its session
// cache with one full handshake.
func newChurners(t Target, n int, resume bool) (*churners, error) {
	cs := &churners{target: t}
	for range n {
		w := &churnWorker{hist: NewHistogram()}
		if t.TLS != nil {
			w.cfg = t.TLS.Clone()
			w.cfg.ClientSessionCache = nil
			if resume {
				w.cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
				if _, err := w.cycle(t); err != nil {
					return nil, err
				}
			}
		}
		cs.workers = append(cs.workers, w)
	}
	return cs, nil
}

// cycle connects, handshakes, round-trips a PING and resets the connection.
func (w *churnWorker) cycle(t Target) (resumed bool, err error) {
	c, err := Dial(t, w.cfg)
	if err != nil {
		return false, err
	}
	defer c.Close(true)
	c.Append("PING")
	if err := c.Do(1); err != nil {
		return false, err
	}
	w.tlsInfo = c.TLSInfo
	w.errReplies += c.ErrReplies
	if w.firstErr == "" {
		w.firstErr = c.FirstErr
	}
	return c.Resumed, nil
}

// run loops every worker until stop is set.
func (cs *churners) run(stop *atomic.Bool) {
	var wg sync.WaitGroup
	for _, w := range cs.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				t0 := time.Now()
				resumed, err := w.cycle(cs.target)
				if err != nil {
					w.err = err
					return
				}
				w.hist.RecordDuration(time.Since(t0))
				w.handshakes++
				if resumed {
					w.resumed++
				}
				cs.done.Add(1)
			}
		}()
	}
	wg.Wait()
}

// fold adds the workers' counts and latency to r and returns the first
// worker error.
func (cs *churners) fold(r *Result) error {
	all := NewHistogram()
	var err error
	for _, w := range cs.workers {
		all.Merge(w.hist)
		r.Handshakes += w.handshakes
		r.Resumed += w.resumed
		r.ErrorReplies += w.errReplies
		if r.FirstError == "" {
			r.FirstError = w.firstErr
		}
		r.TLSInfo = cmp.Or(r.TLSInfo, w.tlsInfo)
		if w.err != nil && err == nil {
			err = fmt.Errorf("loadgen: churn against %s: %w", cs.target.Addr, w.err)
		}
	}
	lat := Summarize(all)
	r.Latency = &lat
	return err
}
