package server

import (
	"crypto/rand"
	"crypto/x509"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/loopkv/loopkv/tlsengine"
)

// randReader is the randomness of signatures and ticket keys.
var randReader = rand.Reader

// errWorkersBusy fails a handshake whose signature found the worker queue full.
var errWorkersBusy = errors.New("server: TLS worker queue full")

// tlsPool is the bounded pool that makes RSA signatures and checks client
// certificate chains off the loops (StatusWantSign, StatusWantVerify). A
// job carries its inputs copied out of the engine; the worker stores the
// result in the job and wakes the connection, whose loop applies it
// (finishJob). ECDSA and Ed25519 signatures stay on the loop
// (tlsengine.Config.AsyncSign says which schemes go to the pool).
type tlsPool struct {
	jobs  chan *tlsJob  // never closed: a late submit must not panic
	quit  chan struct{} // closed by close
	depth atomic.Int64  // jobs queued or running
	ran   atomic.Int64  // jobs done, for tests
	wg    sync.WaitGroup
	once  sync.Once
}

// tlsJob is one signature or chain check. The loop fills the inputs before
// queueing it; the worker writes sig/err and then sets done; the loop reads
// them only after seeing done.
type tlsJob struct {
	// set by the loop before the job is queued
	sign  *tlsengine.SignRequest // nil for a chain check
	chain []*x509.Certificate
	opts  *x509.VerifyOptions
	tc    transportConn

	// set by the worker before done
	sig []byte
	err error

	done      atomic.Bool
	abandoned atomic.Bool // the connection closed; skip the work
}

// newTLSPool starts n workers (runtime.NumCPU() when n is 0) behind a
// queue of queue jobs.
func newTLSPool(n, queue int) *tlsPool {
	if n <= 0 {
		n = runtime.NumCPU()
	}
	p := &tlsPool{jobs: make(chan *tlsJob, queue), quit: make(chan struct{})}
	p.wg.Add(n)
	for range n {
		go p.work()
	}
	return p
}

func (p *tlsPool) work() {
	defer p.wg.Done()
	for {
		var j *tlsJob
		select {
		case <-p.quit:
			return
		case j = <-p.jobs:
		}
		if !j.abandoned.Load() {
			j.run()
			p.ran.Add(1)
		}
		p.depth.Add(-1)
		j.done.Store(true)
		if !j.abandoned.Load() {
			j.tc.Wake() // the owning loop applies the result (finishJob)
		}
	}
}

// submit queues j; false means the queue is full. any goroutine.
func (p *tlsPool) submit(j *tlsJob) bool {
	p.depth.Add(1)
	select {
	case p.jobs <- j:
		return true
	default:
		p.depth.Add(-1)
		return false
	}
}

// close stops the workers; queued jobs are dropped (their connections
// are closing with the server).
func (p *tlsPool) close() {
	p.once.Do(func() { close(p.quit) })
	p.wg.Wait()
}

// run does the job's crypto.
func (j *tlsJob) run() {
	if j.sign != nil {
		j.sig, j.err = j.sign.Key.Sign(randReader, j.sign.Digest, j.sign.Opts)
		return
	}
	_, j.err = j.chain[0].Verify(*j.opts)
}

// startJob hands the engine's pending signature or chain check to the
// pool, or does it inline (no pool, no loop: Embedded). It returns false
// when the queue is full and the handshake was failed with internal_error.
// owning loop only.
func (h *handler) startJob(cs *connState, ls *loopState, st tlsengine.Status) bool {
	tc := cs.tls
	t := h.s.tls
	j := &tlsJob{tc: cs.tc}
	if st&tlsengine.StatusWantSign != 0 {
		j.sign = tc.eng.SignRequest()
	} else {
		j.chain, j.opts = tc.eng.VerifyRequest()
		if j.opts == nil || len(j.chain) == 0 {
			return false
		}
	}
	if t.pool == nil || ls.loop == nil {
		j.run()
		tc.job = j
		h.finishJob(cs) // a failure is sticky: the next Read reports it
		return true
	}
	if !t.pool.submit(j) {
		t.stats.refused.Add(1)
		if j.sign != nil {
			_ = tc.eng.SignDone(nil, errWorkersBusy) // fails with internal_error
		}
		err := tc.eng.Err()
		if err == nil {
			err = errWorkersBusy
		}
		h.tlsFailed(cs, err)
		return false
	}
	tc.job = j
	return true
}

// finishJob gives a finished job's result to the engine. owning loop only.
func (h *handler) finishJob(cs *connState) {
	tc := cs.tls
	j := tc.job
	tc.job = nil
	if j.sign != nil {
		_ = tc.eng.SignDone(j.sig, j.err)
		return
	}
	_ = tc.eng.VerifyDone(j.err)
}

// queueDepth is tls_worker_queue_depth. any goroutine.
func (t *tlsState) queueDepth() int64 {
	if t.pool == nil {
		return 0
	}
	return t.pool.depth.Load()
}
