package loadgen

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// ConnsConfig configures RunConns.
type ConnsConfig struct {
	Target   Target
	Steps    []int         // connection counts to measure at, ascending, e.g. 0 1000 5000 10000
	Dialers  int           // concurrent dialers while opening a step
	Settle   time.Duration // wait after a step is open before reading the server's memory
	Progress io.Writer
}

// RunConns runs the connection-scaling mode: it opens connections up to each
// step (each completes its handshake and one PING), holds them idle, and
// records the server's RSS and thread count at every step.
func RunConns(cfg ConnsConfig) (*Result, error) {
	if len(cfg.Steps) == 0 || !slices.IsSorted(cfg.Steps) || cfg.Steps[0] < 0 {
		return nil, fmt.Errorf("loadgen: connection steps must be ascending and non-negative: %v", cfg.Steps)
	}
	cfg.Dialers = max(cfg.Dialers, 1)
	top := cfg.Steps[len(cfg.Steps)-1]
	if lim, err := RaiseFileLimit(uint64(top) + 64); err != nil || lim < uint64(top)+16 {
		return nil, fmt.Errorf("loadgen: need %d file descriptors, have %d (%v)", top+16, lim, err)
	}
	r := &Result{Mode: "conns", Addr: cfg.Target.Addr, TLS: cfg.Target.TLS != nil, Conns: top, ServerCPU: -1}
	var conns []*Conn
	defer func() {
		for _, c := range conns {
			c.Close(false)
		}
	}()
	var opened atomic.Int64
	stopProgress := progress(cfg.Progress, "conns", 0, &opened)
	defer stopProgress()
	t0 := time.Now()
	for _, n := range cfg.Steps {
		cpu := startCPU(cfg.Target.Pid)
		ts := time.Now()
		more, err := openConns(cfg.Target, n-len(conns), cfg.Dialers, &opened)
		conns = append(conns, more...)
		if err != nil {
			return r, fmt.Errorf("loadgen: opening connection %d to %s: %w", len(conns)+1, cfg.Target.Addr, err)
		}
		step := ConnStep{Conns: n, OpenSeconds: time.Since(ts).Seconds()}
		serverCPU, _ := cpu.stop()
		step.ServerCPU = seconds(serverCPU)
		time.Sleep(cfg.Settle)
		if cfg.Target.Pid > 0 {
			if step.RSSKB, step.Threads, err = ProcMem(cfg.Target.Pid); err != nil {
				return r, err
			}
		}
		r.Steps = append(r.Steps, step)
	}
	for _, c := range conns {
		r.addErrors(c)
		r.TLSInfo = cmp.Or(r.TLSInfo, c.TLSInfo)
	}
	r.Ops = int64(len(conns))
	r.Seconds = time.Since(t0).Seconds()
	return r, nil
}

// openConns opens n connections with k dialers; each completes its
// handshake and a PING. It returns those opened even on error.
func openConns(t Target, n, k int, opened *atomic.Int64) ([]*Conn, error) {
	if n <= 0 {
		return nil, nil
	}
	out := make([]*Conn, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for range min(k, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				c, err := Dial(t, nil)
				if err == nil {
					c.Append("PING")
					if err = c.Do(1); err == nil && c.ErrReplies > 0 {
						err = fmt.Errorf("loadgen: PING answered %q", c.FirstErr) // e.g. maxclients
					}
					if err != nil {
						c.Close(false)
					}
				}
				if err != nil {
					mu.Lock()
					first = firstErr(first, err)
					mu.Unlock()
					next.Store(int64(n)) // stop the others
					return
				}
				out[i] = c
				opened.Add(1)
			}
		}()
	}
	wg.Wait()
	return slices.DeleteFunc(out, func(c *Conn) bool { return c == nil }), first
}

// firstErr returns the first non-nil error.
func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
