package server

import (
	"bytes"
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cloudwego/netpoll"
	"go.uber.org/zap"
)

// netpollTransport runs the handler on cloudwego/netpoll: a few pollers
// read every ready socket into the connection's own linked buffer and hand
// the connection to a goroutine pool, which calls onRequest (one at a time
// per connection). It is the twin of gnetTransport; the differences the
// handler never sees are these:
//
//   - Loops. The handler's per-loop state (ls.out, ls.scratch, ls.conns) is
//     single-threaded, but netpoll runs many connections' onRequest at once.
//     The transport keeps a fixed set of loops (one per --loops, the same
//     number as netpoll pollers); each connection belongs to one and every
//     handler call for it runs holding that loop's mutex. The mutex covers
//     onData and the copy of ls.out into the connection, never a socket
//     write that can wait.
//   - Input. netpoll calls onRequest again while its buffer is not empty,
//     and starts it only when the buffer goes from empty to non-empty, so a
//     connection must take every buffered byte or spin. The transport peeks
//     exactly Reader().Len() bytes (never a wait), runs them in place, and
//     copies only an incomplete trailing command into tail (pooled; nil when
//     empty) to run before the next bytes.
//   - Output. netpoll's writer is allocate-then-flush: Writer().Malloc(n)
//     returns n bytes inside the connection's output LinkBuffer and Flush
//     sends them. The handler builds a whole callback's replies in the
//     loop-owned ls.out by appending, so its size is unknown until the
//     batch ends, and ls.out is shared by the loop's connections while
//     Malloc'd memory belongs to one connection and is recycled by netpoll
//     after the send. Write therefore copies ls.out once into Malloc'd
//     memory: the honest minimum, one memmove per batch, no allocation.
//   - Blocking. Flush writes what the socket takes and, if it is full, arms
//     EPOLLOUT and parks the calling goroutine until the rest is sent
//     (netpoll connection_impl.go flush/waitFlush). The transport calls Flush
//     only after releasing the loop mutex, so a parked Flush stalls its own
//     connection only (its per-connection mutex stays held, which is what
//     keeps its replies in order). While parked, netpoll keeps reading the
//     peer's input with no back-pressure (no pause-read, netpoll#422); the
//     ticker closes a connection whose parked output plus unread input
//     exceeds the output (or query) buffer limit (checkParked).
//   - Wake. netpoll has none: Wake runs the handler again on a goroutine
//     (or in the running one, if the connection is being served). Only
//     netpoll's onRequest goroutine reads netpoll's buffer; a Wake batch
//     runs the tail alone, and newer bytes wait for onRequest.
//   - Close. netpoll's Close drops unsent output, so Close from another
//     goroutine first waits for the connection's running batch and its
//     Flush, unless that Flush stays parked (a peer that does not read).
//   - Listeners. One netpoll EventLoop per listener (plaintext, TLS), all
//     on the same pollers, loops and callbacks; the handler tells a TLS
//     connection by its local address, as with gnet.
//   - Costs. Each wake-up of an idle connection allocates netpoll's task
//     closure (connection_onevent.go onProcess) and may start a gopool
//     goroutine; loopkv's own path allocates nothing per batch. Each
//     connection holds netpoll's input and output LinkBuffers from accept
//     on, so idle connections do hold buffers under this engine.
type netpollTransport struct {
	tlsAddr string // a second listener on the same pollers and loops; "" for none

	// immutable after serve starts
	h     connHandler
	log   *zap.Logger
	loops []*netpollLoop
	evls  []netpoll.EventLoop // one per listener

	next     atomic.Uint32 // round-robin loop assignment
	open     sync.Map      // *netpollConn -> struct{}: connections admitted and not yet forgotten
	nopen    atomic.Int64  // entries of open
	stopping atomic.Bool
	stopped  chan struct{} // closed when stop has closed every connection

	mu      sync.Mutex
	started bool
	quit    chan struct{} // stops the ticker
}

var _ transport = (*netpollTransport)(nil)

// netpollLoop is one of the transport's fixed loops: a loopState and the
// mutex that serialises the handler calls of its connections.
type netpollLoop struct {
	mu sync.Mutex // held for handler calls only, never across a socket wait
	ls *loopState
}

// netpollConn is one connection; it is also the netpoll context of its
// callbacks.
type netpollConn struct {
	context.Context

	// immutable after onConnect
	t  *netpollTransport
	c  netpoll.Connection
	l  *netpollLoop
	cs *connState

	// mu serialises batches of this connection: onRequest and Wake runs.
	// It is held across Flush, so a parked Flush delays only this
	// connection's next batch.
	mu   sync.Mutex
	tail *[]byte // guarded by mu; unconsumed input after a batch, from tailPool; nil when empty
	gone bool    // guarded by mu; closed: netpoll's buffers are released

	inBatch  atomic.Bool  // a batch is running (Wake need not start one)
	wakeReq  atomic.Bool  // Wake was called since the last batch began its check
	closeReq atomic.Bool  // Close was called
	parked   atomic.Int64 // bytes handed to a Flush that has not returned
}

// tailPool holds tail buffers; one is taken only while a connection has
// an incomplete command, so idle connections hold none.
var tailPool = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// netpollConfig makes netpoll.Configure run once per process: its poller
// count is global and changing it later closes pollers in use.
var netpollConfig struct {
	once  sync.Once
	loops int
}

// netpollLog receives netpoll's own log lines (zapWriter): its logger is
// per process, so the lines go to the latest server's logger.
var netpollLog atomic.Pointer[zap.Logger]

// configureNetpoll sizes netpoll's pollers from loops on first use and
// sends netpoll's log lines to log.
func configureNetpoll(loops int, log *zap.Logger) {
	netpollLog.Store(log)
	netpollConfig.once.Do(func() {
		netpollConfig.loops = loops
		err := netpoll.Configure(netpoll.Config{
			PollerNum:    loops,
			LoadBalance:  netpoll.RoundRobin,
			LoggerOutput: &zapWriter{},
		})
		if err != nil {
			log.Warn("netpoll configure", zap.Error(err))
		}
	})
	if netpollConfig.loops != loops {
		log.Info("netpoll pollers are per process; keeping the first server's count",
			zap.Int("pollers", netpollConfig.loops), zap.Int("loops", loops))
	}
}

func (t *netpollTransport) serve(h connHandler, addr string, loops int, log *zap.Logger, ready func()) error {
	t.h, t.log = h, log
	t.stopped = make(chan struct{})
	t.quit = make(chan struct{})
	configureNetpoll(loops, log)
	t.loops = make([]*netpollLoop, loops)
	for i := range t.loops {
		l := &netpollLoop{}
		l.ls = h.newLoop(netpollLoopRef{t: t, l: l})
		t.loops[i] = l
	}
	var lns []net.Listener
	for _, a := range []string{addr, t.tlsAddr} {
		if a == "" {
			continue
		}
		ln, err := net.Listen("tcp", a)
		if err != nil {
			for _, l := range lns {
				l.Close()
			}
			return err
		}
		lns = append(lns, ln)
	}
	// One EventLoop per listener, all with the same callbacks: the
	// handler tells a TLS connection by its local address.
	evls := make([]netpoll.EventLoop, len(lns))
	for i := range lns {
		evls[i], _ = netpoll.NewEventLoop(t.onRequest, // never fails in v0.7.2
			netpoll.WithOnConnect(t.onConnect),
			// netpoll's "idle timeout" is TCP keepalive; loopkv's timeout
			// setting is applied by the handler's tick, as with gnet.
			netpoll.WithIdleTimeout(300*time.Second),
		)
	}
	t.mu.Lock()
	t.evls, t.started = evls, true
	t.mu.Unlock()
	go t.ticker()
	errc := make(chan error, len(lns))
	for i := range lns {
		go func() { errc <- evls[i].Serve(lns[i]) }()
	}
	ready()
	err := <-errc
	if !t.stopping.Load() { // a listener failed: stop the others
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = t.stop(ctx)
		return err
	}
	<-t.stopped // Serve returns as Shutdown begins; wait for its end
	return nil
}

// stop closes the listener and lets netpoll close idle connections and
// wait for busy ones until ctx ends, closing meanwhile those whose Flush
// stays parked (a peer that never reads would otherwise hold Shutdown
// until ctx ends); then it closes what is left (after its running batch,
// or at once when ctx has ended) and waits for the handler to forget
// every connection.
func (t *netpollTransport) stop(ctx context.Context) error {
	t.mu.Lock()
	evls, started := t.evls, t.started
	t.mu.Unlock()
	if !started || !t.stopping.CompareAndSwap(false, true) {
		return nil
	}
	defer close(t.stopped)
	defer t.stopTicker()
	// netpoll's Shutdown waits for busy connections until ctx ends; a
	// Flush parked on a peer that never reads would hold it all that
	// time, so such connections are closed meanwhile (which wakes the
	// Flush), as Close does.
	shut := make(chan struct{})
	var closer sync.WaitGroup
	closer.Add(1)
	go func() { defer closer.Done(); t.closeParkedUntil(shut) }()
	var errs []error
	for _, evl := range evls {
		errs = append(errs, evl.Shutdown(ctx))
	}
	close(shut)
	closer.Wait()
	err := errors.Join(errs...)
	t.open.Range(func(k, _ any) bool {
		if pc := k.(*netpollConn); err != nil {
			_ = pc.c.Close()
		} else {
			pc.Close()
		}
		return true
	})
	for wait := time.Second; t.nopen.Load() > 0 && wait > 0; wait -= 5 * time.Millisecond {
		time.Sleep(5 * time.Millisecond)
	}
	return err
}

// stopParkedPolls is how many consecutive 1 ms polls a Flush must stay
// parked for stop to close its connection: a peer that reads is drained
// in that time, one that never reads is not.
const stopParkedPolls = 10

// closeParkedUntil closes, until done is closed, the connections whose
// Flush stays parked for stopParkedPolls polls. stop only.
func (t *netpollTransport) closeParkedUntil(done <-chan struct{}) {
	polls := map[*netpollConn]int{}
	tk := time.NewTicker(time.Millisecond)
	defer tk.Stop()
	for {
		select {
		case <-done:
			return
		case <-tk.C:
		}
		t.open.Range(func(k, _ any) bool {
			pc := k.(*netpollConn)
			if pc.parked.Load() == 0 {
				delete(polls, pc)
			} else if polls[pc]++; polls[pc] == stopParkedPolls {
				_ = pc.c.Close() // wakes the parked Flush with an error
			}
			return true
		})
	}
}

func (t *netpollTransport) stopTicker() {
	t.mu.Lock()
	defer t.mu.Unlock()
	select {
	case <-t.quit:
	default:
		close(t.quit)
	}
}

// ticker drives the handler's tick and the parked-flush limits, as gnet's
// OnTick does.
func (t *netpollTransport) ticker() {
	tk := time.NewTicker(tickInterval)
	defer tk.Stop()
	for n := 1; ; n++ {
		select {
		case <-t.quit:
			return
		case <-tk.C:
		}
		t.h.tick(n)
		t.checkParked()
	}
}

// checkParked closes connections whose Flush is parked on a full socket
// while their backlog (the parked output plus the input netpoll kept
// reading) exceeds the output buffer limit: gnet would have seen that
// backlog as queued output. The limits are the handler's settings, read
// here because netpoll, unlike gnet, has no pause-read to bound its input
// (netpoll#422). ticker goroutine only.
func (t *netpollTransport) checkParked() {
	h, ok := t.h.(*handler)
	if !ok {
		return
	}
	limit := min(h.s.cfg.outBufLimit.Load(), h.s.cfg.queryBufLimit.Load())
	t.open.Range(func(k, _ any) bool {
		pc := k.(*netpollConn)
		parked := pc.parked.Load()
		if parked == 0 {
			return true
		}
		if backlog := parked + int64(pc.c.Reader().Len()); backlog > limit && !pc.cs.shared.killed.Swap(true) {
			h.s.log.Warn("client scheduled to be closed for overcoming of output buffer limits",
				zap.Uint64("conn", pc.cs.cl.id), zap.Int64("omem", backlog))
			_ = pc.c.Close() // wakes the parked Flush with an error
		}
		return true
	})
}

// onConnect admits a connection on its loop, or writes the rejection and
// closes it. Runs on netpoll's goroutine pool before any onRequest.
func (t *netpollTransport) onConnect(ctx context.Context, c netpoll.Connection) context.Context {
	l := t.loops[int(t.next.Add(1)-1)%len(t.loops)]
	pc := &netpollConn{Context: ctx, t: t, c: c, l: l}
	l.mu.Lock()
	cs, reject := t.h.onOpen(pc, l.ls)
	l.mu.Unlock()
	if reject != nil {
		_ = pc.Write(reject)
		_ = c.Writer().Flush()
		_ = c.Close()
		return ctx
	}
	pc.cs = cs
	t.open.Store(pc, struct{}{})
	t.nopen.Add(1)
	_ = c.AddCloseCallback(pc.onClosed)
	return pc
}

// onRequest runs the connection's buffered bytes; netpoll calls it again
// while its buffer is not empty.
func (t *netpollTransport) onRequest(ctx context.Context, c netpoll.Connection) error {
	pc, ok := ctx.(*netpollConn)
	if !ok { // rejected; netpoll may still offer the bytes it read
		_ = c.Reader().Skip(c.Reader().Len())
		return c.Reader().Release()
	}
	pc.serve(true)
	return nil
}

// serve runs batches until no Wake is pending. read is true only on
// netpoll's onRequest goroutine, the only one that may touch its reader.
func (pc *netpollConn) serve(read bool) {
	pc.mu.Lock()
	if pc.gone {
		pc.mu.Unlock()
		return
	}
	closeNow := pc.closeReq.Load() // a closing connection runs nothing more
	for !closeNow {
		pc.inBatch.Store(true)
		closeNow = pc.batch(read)
		pc.inBatch.Store(false)
		if closeNow || !pc.wakeReq.Swap(false) {
			break
		}
	}
	closeNow = closeNow || pc.closeReq.Load()
	pc.mu.Unlock()
	if closeNow { // after unlocking: Close runs onClosed synchronously
		_ = pc.c.Close()
	}
}

// batch runs one handler callback over tail and, if read, every byte
// netpoll has buffered, then flushes the replies. It reports whether to
// close. holds pc.mu.
func (pc *netpollConn) batch(read bool) bool {
	var r netpoll.Reader
	n := 0
	var in []byte
	if pc.tail != nil {
		in = *pc.tail
	}
	if read {
		r = pc.c.Reader()
		if n = r.Len(); n > 0 {
			buf, err := r.Peek(n) // n bytes are buffered: Peek does not wait
			if err != nil {
				return true
			}
			if pc.tail != nil {
				*pc.tail = append(*pc.tail, buf...)
				in = *pc.tail
			} else {
				in = buf // borrowed until r.Skip(n)
			}
		}
	}
	h, l := pc.t.h, pc.l
	l.mu.Lock()
	consumed, closeAfter := h.onData(pc.cs, l.ls, in)
	closeAfter = h.flush(pc.cs, l.ls) || closeAfter // copies ls.out into Malloc'd memory
	l.mu.Unlock()
	pc.keep(in[consumed:])
	if n > 0 {
		_ = r.Skip(n)
		_ = r.Release()
	}
	if err := pc.flushOut(); err != nil {
		return true
	}
	return closeAfter
}

// keep leaves rest, the unconsumed input, in tail. rest is either a
// suffix of tail or borrowed from netpoll's reader. holds pc.mu.
func (pc *netpollConn) keep(rest []byte) {
	switch {
	case len(rest) == 0:
		if pc.tail != nil {
			if cap(*pc.tail) <= loopOutKeep {
				*pc.tail = (*pc.tail)[:0]
				tailPool.Put(pc.tail)
			}
			pc.tail = nil
		}
	case pc.tail != nil:
		*pc.tail = (*pc.tail)[:copy(*pc.tail, rest)]
	default:
		pc.tail = tailPool.Get().(*[]byte)
		*pc.tail = append((*pc.tail)[:0], rest...)
	}
}

// flushOut sends what Write put in the output buffer. It may park on a
// full socket (see netpollTransport); the caller holds no loop mutex.
// holds pc.mu.
func (pc *netpollConn) flushOut() error {
	w := pc.c.Writer()
	n := w.MallocLen()
	if n == 0 {
		return nil
	}
	pc.parked.Store(int64(n))
	err := w.Flush()
	pc.parked.Store(0)
	return err
}

// onClosed is netpoll's close callback: it runs once, after any onRequest
// has returned, on the goroutine that closed the connection or on a
// poller. It waits for a running Wake batch, whose parked Flush netpoll
// has already woken, then lets the handler forget the connection.
func (pc *netpollConn) onClosed(netpoll.Connection) error {
	pc.mu.Lock()
	pc.gone = true
	if pc.tail != nil {
		pc.keep(nil)
	}
	pc.mu.Unlock()
	pc.l.mu.Lock()
	pc.t.h.onClose(pc.cs)
	pc.l.mu.Unlock()
	pc.t.open.Delete(pc)
	pc.t.nopen.Add(-1)
	return nil
}

// Write copies b into memory Malloc'd in the connection's output buffer;
// flushOut sends it after the loop mutex is released. owning loop only.
func (pc *netpollConn) Write(b []byte) error {
	buf, err := pc.c.Writer().Malloc(len(b))
	if err != nil {
		return err
	}
	copy(buf, b)
	return nil
}

// OutboundBuffered is 0: when the handler asks, the previous batch's Flush
// has returned with everything sent. A parked Flush is limited by
// checkParked instead.
func (pc *netpollConn) OutboundBuffered() int { return 0 }

// Close closes the connection once its running batch has flushed; safe
// from any goroutine, including under a loop mutex. A batch whose Flush
// stays parked (the peer does not read) is not waited for: the connection
// is closed under it, which wakes the Flush.
func (pc *netpollConn) Close() {
	if pc.closeReq.Swap(true) {
		return
	}
	go pc.closeAfterBatch()
}

// closeAfterBatch waits for the running batch, if any, and closes.
func (pc *netpollConn) closeAfterBatch() {
	const parkedPolls = 10 // ~10 ms of a parked Flush
	for n := 0; !pc.mu.TryLock(); time.Sleep(time.Millisecond) {
		if pc.parked.Load() == 0 {
			n = 0
		} else if n++; n >= parkedPolls {
			_ = pc.c.Close()
			return
		}
	}
	gone := pc.gone
	pc.mu.Unlock()
	if !gone { // after unlocking: Close runs onClosed synchronously
		_ = pc.c.Close()
	}
}

// Wake runs the handler again without new bytes; safe from any goroutine.
func (pc *netpollConn) Wake() {
	pc.wakeReq.Store(true)
	if pc.inBatch.Load() {
		return // the running batch sees wakeReq after it ends
	}
	go pc.serve(false)
}

func (pc *netpollConn) RemoteAddr() net.Addr { return pc.c.RemoteAddr() }
func (pc *netpollConn) LocalAddr() net.Addr  { return pc.c.LocalAddr() }

// Fd is the socket's descriptor, or -1.
func (pc *netpollConn) Fd() int {
	if f, ok := pc.c.(interface{ Fd() int }); ok {
		return f.Fd()
	}
	return -1
}

// netpollLoopRef adapts a netpollLoop to transportLoop.
type netpollLoopRef struct {
	t *netpollTransport
	l *netpollLoop
}

// Execute runs fn on a new goroutine holding the loop's mutex; safe from
// any goroutine.
func (r netpollLoopRef) Execute(fn func()) error {
	if r.t.stopping.Load() {
		return ErrServerClosed
	}
	go func() {
		r.l.mu.Lock()
		defer r.l.mu.Unlock()
		fn()
	}()
	return nil
}

// zapWriter sends netpoll's log lines to netpollLog. A peer that resets
// its connection makes netpoll log "readall(...) before close: ..." once
// per connection; that is normal, so those lines go to Debug. Any other
// line is a Warn, at most one per second with the number suppressed since
// the last one, so that no peer behaviour can flood the log.
type zapWriter struct{ rl rateLimit }

func (w *zapWriter) Write(p []byte) (int, error) {
	log := netpollLog.Load()
	if log == nil {
		return len(p), nil
	}
	if bytes.Contains(p, []byte(" before close: ")) {
		if ce := log.Check(zap.DebugLevel, "netpoll: peer closed with unread input"); ce != nil {
			ce.Write(zap.ByteString("msg", bytes.TrimSpace(p)))
		}
		return len(p), nil
	}
	if n, ok := w.rl.allow(time.Now()); ok {
		log.Warn("netpoll", zap.ByteString("msg", bytes.TrimSpace(p)), zap.Int64("suppressed", n))
	}
	return len(p), nil
}
