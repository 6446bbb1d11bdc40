package loadgen

import (
	"fmt"
	"sync/atomic"
	"time"
)

// StormConfig configures RunStorm.
type StormConfig struct {
	// Steady is the measured group; its Duration is the whole run, cut in
	// three equal phases: before, during and after the storm. A Rate keeps
	// the offered load the same in every phase.
	Steady ThroughputConfig
	// Storm is the group that opens and closes connections (TLS when
	// Storm.Target.TLS is set) during the middle phase; its Duration is
	// ignored.
	Storm ChurnConfig
}

// RunStorm runs the storm mode: steady clients are measured while a second
// group churns through handshakes during the middle third of the run.
func RunStorm(cfg StormConfig) (*Result, error) {
	sc := cfg.Steady
	if err := sc.defaults(); err != nil {
		return nil, err
	}
	if sc.Duration <= 0 {
		return nil, fmt.Errorf("loadgen: storm needs a duration")
	}
	sc.Requests = 0
	cfg.Storm.Workers = max(cfg.Storm.Workers, 1)
	if _, err := RaiseFileLimit(uint64(sc.Conns+cfg.Storm.Workers) + 64); err != nil {
		return nil, err
	}
	storm, err := newChurners(cfg.Storm.Target, cfg.Storm.Workers, cfg.Storm.Resume)
	if err != nil {
		return nil, err
	}
	third := sc.Duration / 3
	var start time.Time // set by startSteady before any worker runs
	phaseOf := func(t time.Time) int { return min(2, int(t.Sub(start)/third)) }
	s, err := startSteadyAt(sc, 3, phaseOf, &start)
	if err != nil {
		return nil, err
	}
	var stop atomic.Bool
	stormDone := make(chan time.Duration)
	go func() {
		sc.Clock.Sleep(start.Add(third).Sub(sc.Clock.Now()))
		t0 := time.Now()
		time.AfterFunc(third, func() { stop.Store(true) })
		storm.run(&stop)
		stormDone <- time.Since(t0)
	}()
	r := s.wait()
	stormTime := <-stormDone
	r.Mode = "storm"
	r.Workers = cfg.Storm.Workers
	r.Resume = cfg.Storm.Resume
	sr := &Result{}
	stormErr := storm.fold(sr)
	r.Handshakes, r.Resumed = sr.Handshakes, sr.Resumed
	r.HandshakesPerSec = float64(sr.Handshakes) / stormTime.Seconds()
	ph := &StormPhases{StormHandshakesPerSec: r.HandshakesPerSec}
	lat := [3]*Latency{&ph.Before, &ph.During, &ph.After}
	ops := [3]*float64{&ph.BeforeOps, &ph.DuringOps, &ph.AfterOps}
	for p := range 3 {
		h, n := NewHistogram(), int64(0)
		for _, w := range s.workers {
			h.Merge(w.hist[p])
			n += w.ops[p]
		}
		*lat[p] = Summarize(h)
		*ops[p] = float64(n) / third.Seconds()
	}
	r.Storm = ph
	r.ServerCPUPerOp = -1 // the server's CPU went to both groups
	if s.err != nil {
		return r, s.err
	}
	return r, stormErr
}
