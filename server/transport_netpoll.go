package server

import (
	"bytes"
	"context"
	"errors"
	"net"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cloudwego/netpoll"
	"go.uber.org/zap"
	"golang.org/x/sys/unix"
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
//     connection only (replies written meanwhile wait in pend, behind it,
//     which keeps them in order). While parked, a Wake batch (the
//     commands left after a batch that hit batchOutLimit) runs on another
//     goroutine and its replies accumulate in pend, sent by the flusher
//     next; OutboundBuffered (parked plus pend) is checked by the handler
//     against the output buffer limit, as gnet's queued output is. netpoll
//     keeps reading the peer's input with no back-pressure (no
//     pause-read, netpoll#422); the ticker closes a parked connection
//     whose output exceeds the output buffer limit or whose unread input
//     exceeds the query buffer limit (checkParked).
//   - Wake. netpoll has none: Wake runs the handler again on a goroutine
//     (or in the running one, if the connection is being served). Only
//     netpoll's onRequest goroutine reads netpoll's buffer; a Wake batch
//     runs the tail alone, and newer bytes wait for onRequest.
//   - Close. netpoll's Close drops unsent output, so Close from another
//     goroutine first waits for the connection's running batch and its
//     Flush, unless that Flush stays parked (a peer that does not read).
//   - Half-close. A peer that shuts its write side makes netpoll mark the
//     connection closed while onRequest still answers the commands read
//     with the end of file, and Flush then refuses to send; onRequest's
//     flusher writes netpoll's output buffer to the socket itself
//     (sendAfterHup) before the connection closes, as Redis does.
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
	h      connHandler
	log    *zap.Logger
	loops  []*netpollLoop
	evls   []netpoll.EventLoop // one per listener
	served []chan struct{}     // one per listener: closed when its Serve returns

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
	// hupAtOpen: netpoll had closed the connection before onConnect, so
	// its socket may be closed already (netpoll closes it on a hang-up
	// seen before its onConnect task starts): sendAfterHup is not safe.
	hupAtOpen bool

	// mu serialises batches of this connection: onRequest and Wake runs.
	// It is not held across Flush: while one goroutine's Flush is parked,
	// a Wake batch may run and its replies accumulate in pend, counted
	// by OutboundBuffered against the output buffer limit as on gnet.
	mu   sync.Mutex
	tail *[]byte // guarded by mu; unconsumed input after a batch, from tailPool; nil when empty
	gone bool    // guarded by mu; closed: netpoll's buffers are released

	// omu guards the writer side of netpoll's output buffer: Malloc when
	// no Flush runs, pend while one does.
	omu      sync.Mutex
	flushing bool   // guarded by omu; a goroutine is in flushLoop
	pend     []byte // guarded by omu; replies written while flushing; nil when empty

	inBatch  atomic.Bool  // a batch is running (Wake need not start one)
	wakeReq  atomic.Bool  // Wake was called since the last batch began its check
	closeReq atomic.Bool  // Close was called
	parked   atomic.Int64 // bytes handed to a Flush that has not returned
	pendLen  atomic.Int64 // len(pend)
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
			netpoll.WithIdleTimeout(tcpKeepAlive),
		)
	}
	served := make([]chan struct{}, len(lns))
	for i := range served {
		served[i] = make(chan struct{})
	}
	t.mu.Lock()
	t.evls, t.served, t.started = evls, served, true
	t.mu.Unlock()
	go t.ticker()
	errc := make(chan error, len(lns))
	for i := range lns {
		go func() {
			errc <- evls[i].Serve(lns[i])
			close(served[i])
		}()
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
	evls, served, started := t.evls, t.served, t.started
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
	for i, evl := range evls {
		errs = append(errs, shutdownEventLoop(ctx, evl, served[i]))
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

// shutdownEventLoop shuts evl down and waits until its Serve returns.
// netpoll's Shutdown does nothing while Serve has not yet registered its
// listener (netpoll_unix.go: evl.svr is still nil), and that Serve then
// runs until the next Shutdown: a stop soon after ready would leave the
// listener accepting and serve waiting for ever. So Shutdown is called
// again, every millisecond, until Serve returns or ctx ends. The first
// error is kept (a later Shutdown, with evl.svr nil, returns nil).
func shutdownEventLoop(ctx context.Context, evl netpoll.EventLoop, served <-chan struct{}) error {
	tk := time.NewTicker(time.Millisecond)
	defer tk.Stop()
	var err error
	for {
		if e := evl.Shutdown(ctx); err == nil {
			err = e
		}
		select {
		case <-served:
			return err
		case <-ctx.Done():
			return ctx.Err()
		case <-tk.C:
		}
	}
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
// while their output (the parked bytes plus the replies accumulated behind
// them) exceeds the output buffer limit, or the input netpoll kept
// reading meanwhile exceeds the query buffer limit: netpoll, unlike gnet,
// has no pause-read to bound it (netpoll#422). The handler's flush applies
// the output limit too, but only when a batch runs. The limits are the
// handler's settings. ticker goroutine only.
func (t *netpollTransport) checkParked() {
	h, ok := t.h.(*handler)
	if !ok {
		return
	}
	outLimit, inLimit := h.s.cfg.outBufLimit.Load(), h.s.cfg.queryBufLimit.Load()
	t.open.Range(func(k, _ any) bool {
		pc := k.(*netpollConn)
		parked := pc.parked.Load()
		if parked == 0 {
			return true
		}
		if omem := int64(pc.OutboundBuffered()); omem > outLimit && !pc.cs.shared.killed.Swap(true) {
			h.s.log.Warn("client scheduled to be closed for overcoming of output buffer limits",
				zap.Uint64("conn", pc.cs.cl.id), zap.Int64("omem", omem))
			_ = pc.c.Close() // wakes the parked Flush with an error
		} else if qbuf := int64(pc.c.Reader().Len()); qbuf > inLimit && !pc.cs.shared.killed.Swap(true) {
			h.s.log.Warn("closing client that reached max query buffer length",
				zap.Uint64("conn", pc.cs.cl.id), zap.Int64("qbuf", qbuf))
			_ = pc.c.Close()
		}
		return true
	})
}

// onConnect admits a connection on its loop, or writes the rejection and
// closes it. Runs on netpoll's goroutine pool before any onRequest.
func (t *netpollTransport) onConnect(ctx context.Context, c netpoll.Connection) context.Context {
	l := t.loops[int(t.next.Add(1)-1)%len(t.loops)]
	pc := &netpollConn{Context: ctx, t: t, c: c, l: l, hupAtOpen: !c.IsActive()}
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
//
// Between batches it flushes the replies. When it becomes the connection's
// flusher with a Wake pending, the next batch runs on a new goroutine
// meanwhile, so that a Flush parked on a peer that does not read lets
// replies accumulate (in pend) up to the output buffer limit, as gnet's
// outbound buffer does, instead of holding every later command back.
func (pc *netpollConn) serve(read bool) {
	onRequest := read
	for {
		pc.mu.Lock()
		if pc.gone {
			pc.mu.Unlock()
			return
		}
		closeNow := pc.closeReq.Load() // a closing connection runs nothing more
		if !closeNow {
			pc.inBatch.Store(true)
			closeNow = pc.batch(read)
			pc.inBatch.Store(false)
		}
		wake := !closeNow && pc.wakeReq.Swap(false)
		closeNow = closeNow || pc.closeReq.Load()
		pc.mu.Unlock()
		read = false // netpoll calls onRequest again for newer bytes
		if closeNow {
			pc.closeFlushed(onRequest)
			return
		}
		if !pc.startFlush() {
			if wake {
				continue // another goroutine flushes; run the next batch here
			}
			return
		}
		if wake {
			go pc.serve(false)
		}
		if err := pc.flushLoop(onRequest); err != nil {
			_ = pc.c.Close()
			return
		}
		if pc.closeReq.Load() {
			pc.closeFlushed(onRequest)
		}
		return
	}
}

// closeFlushed closes the connection once its replies are sent (QUIT's
// +OK after a long pipeline): at once if nobody flushes, else the flusher
// closes it when done. Output over the output buffer limit is not waited
// for. onRequest is as for flushLoop.
func (pc *netpollConn) closeFlushed(onRequest bool) {
	if pc.startFlush() {
		_ = pc.flushLoop(onRequest)
		_ = pc.c.Close()
		return
	}
	pc.omu.Lock()
	flushing := pc.flushing
	if flushing {
		pc.closeReq.Store(true) // seen by the flusher after flushLoop
	}
	pc.omu.Unlock()
	if !flushing || pc.overOutputLimit() {
		_ = pc.c.Close()
	}
}

// overOutputLimit reports whether the connection's unsent output exceeds
// the output buffer limit.
func (pc *netpollConn) overOutputLimit() bool {
	h, ok := pc.t.h.(*handler)
	return ok && int64(pc.OutboundBuffered()) > h.s.cfg.outBufLimit.Load()
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
	closeAfter = h.flush(pc.cs, l.ls) || closeAfter // copies ls.out into Malloc'd memory or pend
	l.mu.Unlock()
	pc.keep(in[consumed:])
	if n > 0 {
		_ = r.Skip(n)
		_ = r.Release()
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

// startFlush makes the caller the connection's flusher if there is
// output to send and nobody flushes it; it then must call flushLoop.
func (pc *netpollConn) startFlush() bool {
	pc.omu.Lock()
	defer pc.omu.Unlock()
	if pc.flushing || pc.c.Writer().MallocLen() == 0 {
		return false
	}
	pc.flushing = true
	return true
}

// flushLoop sends what Write put in the output buffer, then what Writes
// left in pend meanwhile, until none is left. Flush may park on a full
// socket (see netpollTransport); the caller holds no mutex. flusher only.
//
// onRequest is true on netpoll's onRequest goroutine. There, when the
// peer has shut its write side, netpoll has already marked the
// connection closed (connection_reactor.go onHup) and Flush refuses to
// send (or a parked Flush is woken with ErrConnClosed), although the
// commands read with the end of file are still being answered; the
// socket stays open until onRequest returns (netpoll holds its
// processing lock), so flushLoop sends the replies itself (sendAfterHup),
// as Redis does before it closes.
func (pc *netpollConn) flushLoop(onRequest bool) error {
	w := pc.c.Writer()
	pc.omu.Lock()
	for {
		n := w.MallocLen()
		pc.parked.Store(int64(n))
		pc.omu.Unlock()
		err := w.Flush()
		if err != nil && onRequest && !pc.c.IsActive() {
			err = pc.sendAfterHup()
		}
		pc.omu.Lock()
		pc.parked.Store(0)
		if err == nil && len(pc.pend) > 0 {
			err = pc.mallocCopy(pc.pend)
			pc.pend = nil
			pc.pendLen.Store(0)
		}
		if err != nil || w.MallocLen() == 0 {
			pc.flushing = false
			pc.omu.Unlock()
			return err
		}
	}
}

// sendAfterHup sends the output netpoll's Flush refused once the peer
// shut its write side: it takes netpoll's output buffer (what Write
// Malloc'd and what a parked Flush had not sent) and writes it to the
// socket, waiting for room with poll(2) as a parked Flush waits for
// EPOLLOUT. It gives up, as a parked Flush is closed, when the handler
// kills or closes the connection or the server stops. onRequest
// goroutine of a connection netpoll closed only: the socket is open and
// netpoll's poller no longer touches the buffer, unless netpoll closed it
// before onConnect (hupAtOpen). flusher only.
func (pc *netpollConn) sendAfterHup() error {
	ob, fd := netpollOutputBuffer(pc.c), pc.Fd()
	if ob == nil || fd < 0 || pc.hupAtOpen {
		return errNetpollHup
	}
	if err := ob.Flush(); err != nil {
		return err
	}
	for ob.Len() > 0 {
		pc.parked.Store(int64(ob.Len()))
		b, err := ob.Peek(ob.Len())
		if err != nil {
			return err
		}
		n, err := unix.Write(fd, b)
		if n > 0 {
			_ = ob.Skip(n)
			_ = ob.Release()
		}
		switch {
		case err == nil, err == unix.EINTR:
		case err != unix.EAGAIN:
			return err
		case pc.cs.shared.killed.Load() || pc.closeReq.Load() || pc.t.stopping.Load():
			return errNetpollHup
		default:
			_, _ = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}, 10)
		}
	}
	return nil
}

// errNetpollHup is sendAfterHup's answer when it cannot send.
var errNetpollHup = errors.New("netpoll: connection closed by peer before its replies were sent")

// netpollOutputBuffer returns c's output LinkBuffer (netpoll v0.7.2
// connection_impl.go: connection.outputBuffer), or nil if c has none of
// that type, which TestNetpollRepliesBeforeHalfCloseMatchRedis catches
// on a netpoll upgrade.
func netpollOutputBuffer(c netpoll.Connection) *netpoll.LinkBuffer {
	v := reflect.ValueOf(c)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	f := v.Elem().FieldByName("outputBuffer")
	if !f.IsValid() || f.Type() != reflect.TypeFor[*netpoll.LinkBuffer]() {
		return nil
	}
	return (*netpoll.LinkBuffer)(f.UnsafePointer())
}

// mallocCopy copies b into memory Malloc'd in the output buffer. holds
// pc.omu, nobody flushing or the flusher.
func (pc *netpollConn) mallocCopy(b []byte) error {
	buf, err := pc.c.Writer().Malloc(len(b))
	if err != nil {
		return err
	}
	copy(buf, b)
	return nil
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
	pc.omu.Lock()
	pc.pend = nil
	pc.pendLen.Store(0)
	pc.omu.Unlock()
	pc.l.mu.Lock()
	pc.t.h.onClose(pc.cs)
	pc.l.mu.Unlock()
	pc.t.open.Delete(pc)
	pc.t.nopen.Add(-1)
	return nil
}

// Write copies b into memory Malloc'd in the connection's output buffer,
// which the batch's goroutine flushes after the loop mutex is released,
// or, while another goroutine's Flush runs, appends it to pend, which that
// flusher sends next. owning loop only.
func (pc *netpollConn) Write(b []byte) error {
	pc.omu.Lock()
	defer pc.omu.Unlock()
	if pc.flushing {
		pc.pend = append(pc.pend, b...)
		pc.pendLen.Store(int64(len(pc.pend)))
		return nil
	}
	return pc.mallocCopy(b)
}

// OutboundBuffered is what a running Flush has not returned from plus
// what accumulated in pend behind it: the output a peer that does not
// read holds, limited as on gnet (the handler's flush closes the
// connection over the output buffer limit).
func (pc *netpollConn) OutboundBuffered() int {
	return int(pc.parked.Load() + pc.pendLen.Load())
}

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

// closeAfterBatch waits for the running batch and Flush, if any, and
// closes.
func (pc *netpollConn) closeAfterBatch() {
	const parkedPolls = 10 // ~10 ms of a parked Flush
	for n := 0; !pc.idle(); time.Sleep(time.Millisecond) {
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

// idle locks pc.mu if no batch runs and nobody flushes; it reports
// whether it did.
func (pc *netpollConn) idle() bool {
	if !pc.mu.TryLock() {
		return false
	}
	pc.omu.Lock()
	flushing := pc.flushing
	pc.omu.Unlock()
	if flushing {
		pc.mu.Unlock()
	}
	return !flushing
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
