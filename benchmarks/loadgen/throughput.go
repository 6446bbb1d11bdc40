package loadgen

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// ThroughputConfig configures RunThroughput.
type ThroughputConfig struct {
	Target   Target
	Conns    int           // connections, each with its own goroutine
	Pipeline int           // commands in flight per connection
	Mix      Mix           // command mix, key space, value sizes
	Duration time.Duration // run length; 0 means until Requests are done
	Requests int64         // total commands; 0 means until Duration is over
	// Rate, when > 0, paces the run at this many commands per second in
	// total (open loop); latency is then measured from each batch's intended
	// send time. 0 runs closed loop: each connection sends its next batch as
	// soon as the previous one's replies are in.
	Rate     float64
	Preload  bool   // write the mix's whole key space (strings and hashes) before measuring
	Seed     uint64 // seeds the command generators
	Clock    Clock  // nil means SystemClock
	Progress io.Writer
}

func (c *ThroughputConfig) defaults() error {
	c.Conns = max(c.Conns, 1)
	c.Pipeline = max(c.Pipeline, 1)
	if c.Clock == nil {
		c.Clock = SystemClock
	}
	if c.Duration <= 0 && c.Requests <= 0 {
		return fmt.Errorf("loadgen: throughput needs a duration or a request count")
	}
	if c.Mix.total == 0 {
		return fmt.Errorf("%w: empty mix", ErrBadMix)
	}
	return nil
}

// RunThroughput runs the closed-loop (or rate-limited) throughput mode.
func RunThroughput(cfg ThroughputConfig) (*Result, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if _, err := RaiseFileLimit(uint64(cfg.Conns) + 64); err != nil {
		return nil, err
	}
	s, err := startSteady(cfg, 1, nil)
	if err != nil {
		return nil, err
	}
	r := s.wait()
	return r, s.err
}

// steady is a running group of measured connections. Their samples are
// split into phases by each batch's (intended) send time.
type steady struct {
	cfg     ThroughputConfig
	workers []*steadyWorker
	start   time.Time
	end     time.Time
	stop    atomic.Bool
	budget  atomic.Int64 // commands left when Requests > 0
	done    atomic.Int64 // commands completed, for the progress line
	wg      sync.WaitGroup
	cpu     cpuMeter
	phaseOf func(time.Time) int
	err     error
}

type steadyWorker struct {
	conn *Conn
	gen  *gen
	hist []*Histogram // per phase
	ops  []int64      // per phase
	err  error
}

// startSteady dials every connection, then starts the clock and the
// workers. phaseOf maps a send time to a phase in [0, phases); nil
// means one phase.
func startSteady(cfg ThroughputConfig, phases int, phaseOf func(time.Time) int) (*steady, error) {
	return startSteadyAt(cfg, phases, phaseOf, new(time.Time))
}

// startSteadyAt is startSteady that also stores the start time in *start
// before any worker runs, for phaseOf to read.
func startSteadyAt(cfg ThroughputConfig, phases int, phaseOf func(time.Time) int, start *time.Time) (*steady, error) {
	s := &steady{cfg: cfg, phaseOf: phaseOf}
	if s.phaseOf == nil {
		s.phaseOf = func(time.Time) int { return 0 }
	}
	for i := range cfg.Conns {
		c, err := Dial(cfg.Target, nil)
		if err != nil {
			s.closeAll()
			return nil, err
		}
		w := &steadyWorker{conn: c, gen: newGen(cfg.Mix, cfg.Seed+uint64(i)), ops: make([]int64, phases)}
		for range phases {
			w.hist = append(w.hist, NewHistogram())
		}
		s.workers = append(s.workers, w)
	}
	if cfg.Preload {
		if err := s.preload(); err != nil {
			s.closeAll()
			return nil, err
		}
	}
	s.budget.Store(cfg.Requests)
	s.cpu = startCPU(cfg.Target.Pid)
	s.start = cfg.Clock.Now()
	*start = s.start
	if cfg.Duration > 0 {
		s.end = s.start.Add(cfg.Duration)
	}
	var interval time.Duration
	if cfg.Rate > 0 {
		interval = time.Duration(float64(time.Second) * float64(cfg.Pipeline*cfg.Conns) / cfg.Rate)
	}
	for i, w := range s.workers {
		s.wg.Add(1)
		// Stagger the schedules so the connections do not send in lockstep.
		sched := NewSchedule(cfg.Clock, s.start.Add(interval*time.Duration(i)/time.Duration(cfg.Conns)), interval)
		go s.run(w, sched, interval > 0)
	}
	return s, nil
}

// preload writes the key space over every connection, 1000 commands per
// batch, and forgets its error replies (the measured run counts its own).
func (s *steady) preload() error {
	conns := make([]*Conn, len(s.workers))
	for i, w := range s.workers {
		conns[i] = w.conn
	}
	err := loadKeys(conns, s.cfg.Mix, s.cfg.Seed, 1000, new(atomic.Int64))
	for _, c := range conns {
		c.ErrReplies, c.FirstErr = 0, ""
	}
	return err
}

// claim takes up to n commands from the budget; 0 means stop.
func (s *steady) claim(n int) int {
	if s.stop.Load() {
		return 0
	}
	if s.cfg.Requests <= 0 {
		return n
	}
	left := s.budget.Add(-int64(n))
	if left >= 0 {
		return n
	}
	return max(0, n+int(left))
}

func (s *steady) run(w *steadyWorker, sched *Schedule, paced bool) {
	defer s.wg.Done()
	clock := s.cfg.Clock
	for {
		var t0 time.Time
		if paced {
			if !s.end.IsZero() && !sched.Peek().Before(s.end) {
				return
			}
			t0 = sched.Next()
		} else {
			t0 = clock.Now()
		}
		if !s.end.IsZero() && !t0.Before(s.end) {
			return
		}
		n := s.claim(s.cfg.Pipeline)
		if n == 0 {
			return
		}
		for range n {
			w.conn.out = w.gen.next(w.conn.out)
		}
		if err := w.conn.Do(n); err != nil {
			w.err = err
			s.stop.Store(true)
			return
		}
		t1 := clock.Now()
		p := s.phaseOf(t0)
		lat := int64(t1.Sub(t0))
		for range n {
			w.hist[p].Record(lat)
		}
		w.ops[p] += int64(n)
		s.done.Add(int64(n))
	}
}

// wait waits for the workers, closes the connections and returns the
// figures of all phases together; s.err is the first worker error.
func (s *steady) wait() *Result {
	stopProgress := progress(s.cfg.Progress, "throughput", s.cfg.Duration, &s.done)
	s.wg.Wait()
	stopProgress()
	elapsed := s.cfg.Clock.Now().Sub(s.start)
	serverCPU, clientCPU := s.cpu.stop()
	cfg := s.cfg
	r := &Result{
		Mode: "throughput", Addr: cfg.Target.Addr, TLS: cfg.Target.TLS != nil,
		Conns: cfg.Conns, Pipeline: cfg.Pipeline, Rate: cfg.Rate, Mix: cfg.Mix.String(),
		Seconds: elapsed.Seconds(), ServerCPU: seconds(serverCPU), ClientCPU: clientCPU.Seconds(),
	}
	if len(s.workers) > 0 {
		r.TLSInfo = s.workers[0].conn.TLSInfo
	}
	all := NewHistogram()
	for _, w := range s.workers {
		for p := range w.hist {
			all.Merge(w.hist[p])
			r.Ops += w.ops[p]
		}
		r.addErrors(w.conn)
		if w.err != nil && s.err == nil {
			s.err = fmt.Errorf("loadgen: connection to %s: %w", cfg.Target.Addr, w.err)
		}
	}
	s.closeAll()
	lat := Summarize(all)
	r.Latency = &lat
	if elapsed > 0 {
		r.OpsPerSec = float64(r.Ops) / elapsed.Seconds()
	}
	r.ServerCPUPerOp = perOp(serverCPU, r.Ops)
	return r
}

func (s *steady) closeAll() {
	for _, w := range s.workers {
		w.conn.Close(false)
	}
}

// progress prints a line to w every second until the returned func is
// called, with the run's length when total > 0; nil w prints nothing.
func progress(w io.Writer, mode string, total time.Duration, count *atomic.Int64) func() {
	if w == nil {
		return func() {}
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t0 := time.Now()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		last, lastT := int64(0), t0
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				n := count.Load()
				rate := float64(n-last) / now.Sub(lastT).Seconds()
				of := ""
				if total > 0 {
					of = "/" + total.String()
				}
				fmt.Fprintf(w, "%s: %5.1fs%s  total %d  %.0f/s\n", mode, now.Sub(t0).Seconds(), of, n, rate)
				last, lastT = n, now
			}
		}
	}()
	return func() { close(done); <-stopped }
}
