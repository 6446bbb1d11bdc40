package loadgen

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// LoadConfig configures RunLoad.
type LoadConfig struct {
	Target   Target
	Conns    int // connections loading in parallel, each a contiguous share of the keys
	Pipeline int // commands per batch on each connection
	// Mix names the key space: its string keys (if the mix has a string
	// command) are SET and its hashes (if it has hset or hget) are written
	// whole with one HSET of Mix.Fields fields each; Keys, KeyLen and the
	// value sizes shape them.
	Mix      Mix
	Seed     uint64
	Clock    Clock // nil means SystemClock
	Progress io.Writer
}

// RunLoad writes the whole key space of a mix as fast as the server takes
// it, for a study that measures a server holding many keys. Ops counts the
// commands (one per key); ServerCPUPerOp is the server's CPU per key.
func RunLoad(cfg LoadConfig) (*Result, error) {
	cfg.Conns, cfg.Pipeline = max(cfg.Conns, 1), max(cfg.Pipeline, 1)
	if cfg.Clock == nil {
		cfg.Clock = SystemClock
	}
	if cfg.Mix.total == 0 {
		return nil, fmt.Errorf("%w: empty mix", ErrBadMix)
	}
	if _, err := RaiseFileLimit(uint64(cfg.Conns) + 64); err != nil {
		return nil, err
	}
	var conns []*Conn
	defer func() {
		for _, c := range conns {
			c.Close(false)
		}
	}()
	for range cfg.Conns {
		c, err := Dial(cfg.Target, nil)
		if err != nil {
			return nil, err
		}
		conns = append(conns, c)
	}
	var done atomic.Int64
	cpu := startCPU(cfg.Target.Pid)
	start := cfg.Clock.Now()
	stopProgress := progress(cfg.Progress, "load", 0, &done)
	err := loadKeys(conns, cfg.Mix, cfg.Seed, cfg.Pipeline, &done)
	stopProgress()
	elapsed := cfg.Clock.Now().Sub(start)
	serverCPU, clientCPU := cpu.stop()
	r := &Result{Mode: "load", Addr: cfg.Target.Addr, TLS: cfg.Target.TLS != nil, Conns: cfg.Conns,
		Pipeline: cfg.Pipeline, Mix: cfg.Mix.String(), Seconds: elapsed.Seconds(), Ops: done.Load(),
		ServerCPU: seconds(serverCPU), ClientCPU: clientCPU.Seconds()}
	r.TLSInfo = conns[0].TLSInfo
	for _, c := range conns {
		r.addErrors(c)
	}
	if elapsed > 0 {
		r.OpsPerSec = float64(r.Ops) / elapsed.Seconds()
	}
	r.ServerCPUPerOp = perOp(serverCPU, r.Ops)
	return r, err
}

// loadKeys writes m's key space over conns, each connection a contiguous
// share, batch commands at a time, counting the commands in done. Error
// replies are left counted on the connections; the first I/O error is
// returned.
func loadKeys(conns []*Conn, m Mix, seed uint64, batch int, done *atomic.Int64) error {
	var wg sync.WaitGroup
	errs := make([]error, len(conns))
	per := (m.Keys + len(conns) - 1) / len(conns)
	for i, c := range conns {
		from, to := i*per, min(m.Keys, (i+1)*per)
		g := newGen(m, seed+uint64(i))
		wg.Go(func() {
			for _, hash := range []bool{false, true} {
				if (hash && !m.Hashes()) || (!hash && !m.Strings()) {
					continue
				}
				for n := from; n < to; {
					k := 0
					for ; k < batch && n < to; k, n = k+1, n+1 {
						if hash {
							c.out = g.appendHSetAll(c.out, n)
						} else {
							c.out = g.appendSet(c.out, n)
						}
					}
					if err := c.Do(k); err != nil {
						errs[i] = err
						return
					}
					done.Add(int64(k))
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("loadgen: load: %w", err)
		}
	}
	return nil
}
