package server

import (
	"context"
	"errors"
	"net"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/panjf2000/gnet/v2"
	"github.com/panjf2000/gnet/v2/pkg/netpoll"
	"github.com/panjf2000/gnet/v2/pkg/queue"
	"go.uber.org/zap"
)

// gnetTransport runs the handler on gnet v2 loops: one read buffer per
// loop, bytes peeked in place and unconsumed ones left in gnet's ring.
type gnetTransport struct {
	gnet.BuiltinEventEngine
	h       connHandler
	ready   func()
	tlsAddr string // a second listener on the same loops; "" for none

	// the loops outnumber the CPUs the process may run on, so their
	// threads share CPUs (set by serve)
	shareCPUs bool

	mu    sync.Mutex
	eng   gnet.Engine
	boot  bool
	loops map[gnet.EventLoop]*loopState
	outs  map[gnet.EventLoop]*gnetOut // each loop's deferred replies (transport_gnet_out.go)
	ticks int                         // ticker goroutine only
	addrs []string                    // the listeners' "tcp://" addresses (set by serve)
	ka    gnetKeepAlive               // transport_gnet_keepalive.go
}

var _ gnet.EventHandler = (*gnetTransport)(nil)

func (t *gnetTransport) serve(h connHandler, addr string, loops int, log *zap.Logger, ready func()) error {
	t.h, t.ready = h, ready
	t.shareCPUs = loops > runtime.NumCPU() // the CPUs of the affinity mask at start
	t.loops = make(map[gnet.EventLoop]*loopState)
	t.outs = make(map[gnet.EventLoop]*gnetOut)
	var addrs []string
	if addr != "" {
		addrs = append(addrs, "tcp://"+addr)
	}
	if t.tlsAddr != "" {
		addrs = append(addrs, "tcp://"+t.tlsAddr)
	}
	// Rotate serves every listener on the same loops; the handler tells a
	// TLS connection by its local address. Each loop accepts on its own
	// listeners (gnet's reuse-port mode; the kernel spreads new connections
	// over them by a hash of the addresses): no acceptor loop, whose thread
	// would sit in epoll_wait beside the loops', and no eventfd hand-over
	// of each new connection.
	//
	// SO_REUSEPORT would also let a second server (another loopkv) bind a
	// port this one serves and take half its connections, so every address
	// is first bound without it: a port already served fails here with
	// EADDRINUSE, as in Redis.
	//
	// No gnet.WithTCPKeepAlive: OnBoot sets keepalive on the listeners
	// itself, OnOpen on connections that did not inherit it
	// (transport_gnet_keepalive.go). gnet v2.9.7's initListener sets it on the listener after opening it
	// and assigns that result over open's error, so a failed bind (port
	// taken) came back as "setsockopt: bad file descriptor" from a
	// setsockopt on the descriptor the failed open had just closed, or as
	// no error at all if another goroutine reused that descriptor number.
	for i, a := range addrs {
		// the probes run before any listener binds: two listeners of this
		// server on one port would both pass them, then share the port
		if slices.Contains(addrs[:i], a) {
			return &net.OpError{Op: "listen", Net: "tcp", Err: syscall.EADDRINUSE}
		}
		if err := probeListen(strings.TrimPrefix(a, "tcp://")); err != nil {
			return err
		}
	}
	t.addrs = addrs
	defer t.closeBells()
	return gnet.Rotate(t, addrs,
		gnet.WithMulticore(true),
		gnet.WithNumEventLoop(loops),
		gnet.WithReusePort(true),
		gnet.WithTicker(true),
		gnet.WithReuseAddr(true),
		gnet.WithTCPNoDelay(gnet.TCPNoDelay),
		gnet.WithLogger(log.Sugar()),
	)
}

// probeListen binds addr without SO_REUSEPORT and lets it go: it fails
// when any socket listens there.
func probeListen(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return l.Close()
}

func (t *gnetTransport) stop(ctx context.Context) error {
	t.mu.Lock()
	eng, boot := t.eng, t.boot
	t.mu.Unlock()
	if !boot {
		return nil
	}
	return eng.Stop(ctx)
}

// OnBoot records the engine and reports readiness.
func (t *gnetTransport) OnBoot(eng gnet.Engine) gnet.Action {
	t.mu.Lock()
	t.eng, t.boot = eng, true
	t.mu.Unlock()
	t.ka.setListeners(eng, t.addrs)
	t.ready()
	return gnet.None
}

// loopOf maps a gnet loop to its loopState and deferred replies; once per
// connection open.
func (t *gnetTransport) loopOf(el gnet.EventLoop) (*loopState, *gnetOut) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ls := t.loops[el]
	if ls == nil {
		ls = t.h.newLoop(gnetLoop{el, loopPoller(el)})
		ls.wakes.drain = func() { t.drainWakes(ls) }
		t.loops[el] = ls
		t.outs[el] = newGnetOut(t, ls)
	}
	return ls, t.outs[el]
}

// OnOpen admits the connection or writes the rejection and closes it. An
// admitted one has TCP keepalive (idle 300 s, as Redis's tcp-keepalive
// and the netpoll engine), from its listener or set here on its loop before
// anything else can close it; a failure only loses the probes, as in Redis.
func (t *gnetTransport) OnOpen(c gnet.Conn) ([]byte, gnet.Action) {
	ls, out := t.loopOf(c.EventLoop())
	g := &gnetConn{c: c, out: out}
	cs, reject := t.h.onOpen(g, ls)
	if reject != nil {
		return reject, gnet.Close
	}
	if cs.tls == nil {
		cs.direct = &g.direct
	}
	t.ka.set(c)
	c.SetContext(cs)
	return nil, gnet.None
}

// OnTraffic runs the buffered commands, delivers the waiters they served
// (loopWakes) and writes the commands' replies once.
func (t *gnetTransport) OnTraffic(c gnet.Conn) gnet.Action {
	cs, _ := c.Context().(*connState)
	if cs == nil {
		return gnet.Close
	}
	return t.traffic(c, cs)
}

// drainWakes runs on loop ls when another loop served some of its
// waiters: it delivers them (and, from their callbacks, the waiters their
// own commands serve).
func (t *gnetTransport) drainWakes(ls *loopState) {
	for _, cs := range ls.takePosted() {
		t.deliver(cs)
	}
}

// deliverServed hands over the waiters the callback running on ls has
// served, before that callback writes its own replies (see loopWakes):
// first those of other loops, whose loops can then run while this one
// writes, then ls's own, each written by its connection's callback, run
// here with ls.out and the batch's propSeq set aside. A waiter's own
// commands may serve more waiters: those of ls are delivered in the same
// pass, after it, and those of other loops posted.
//
// When the loops share CPUs (more loops than CPUs), a loop that has woken
// another one yields its CPU once before it goes on: the woken loop's
// thread, likely waiting for this very CPU, writes its waiters' replies
// first instead of after this loop's own write and its return to
// epoll_wait. The yield moves this thread's deadline in the kernel's fair
// queue on by a slice, behind the thread it has just woken; with a CPU
// per loop the woken loop runs elsewhere and nothing yields.
func (t *gnetTransport) deliverServed(ls *loopState) {
	lw := &ls.wakes
	t.postAway(ls)
	if len(lw.local) == 0 || lw.delivering {
		return // none, or a waiter's callback inside the pass below
	}
	lw.delivering = true
	out, seq := ls.out, ls.ctx.propSeq
	ls.out, ls.ctx.propSeq = lw.spare[:0], 0
	for i := 0; i < len(lw.local); i++ {
		cs := lw.local[i]
		lw.local[i] = nil
		t.deliver(cs)
	}
	lw.local = lw.local[:0]
	lw.spare = ls.out[:0]
	ls.out, ls.ctx.propSeq = out, seq
	lw.delivering = false
	t.postAway(ls)
}

// postAway posts ls's waiters of other loops, and yields the CPU once
// when that woke a loop for a reply this loop did not write itself
// (direct.go) and the loops share CPUs (see deliverServed).
func (t *gnetTransport) postAway(ls *loopState) {
	if urgent := ls.wakes.urgent; len(ls.wakes.away) > 0 && ls.postAway() && urgent && t.shareCPUs {
		yieldCPU() // yield_linux.go
		ls.wakes.yields.Add(1)
	}
}

// deliver runs a served waiter's connection as a Wake would: its reply,
// then the commands it pipelined behind the blocking one.
func (t *gnetTransport) deliver(cs *connState) {
	g, ok := cs.tc.(*gnetConn)
	if !ok || !cs.ls.holds(cs) || g.c.Context() != cs {
		return // closed since it was served
	}
	if t.traffic(g.c, cs) == gnet.Close {
		_ = g.c.Close()
	}
}

// traffic is OnTraffic for one connection: its replies wait for the end
// of the loop's batch (transport_gnet_out.go) unless it closes.
func (t *gnetTransport) traffic(c gnet.Conn, cs *connState) gnet.Action {
	in, _ := c.Peek(-1)
	n, closeAfter := t.h.onData(cs, cs.ls, in)
	if n > 0 { // gnet's Discard(0) would drop everything buffered
		_, _ = c.Discard(n)
	}
	if lw := &cs.ls.wakes; len(lw.local) > 0 || len(lw.away) > 0 {
		t.deliverServed(cs.ls)
	}
	g, _ := cs.tc.(*gnetConn)
	if g != nil {
		if !closeAfter && g.out.hold(g, cs) {
			return gnet.None
		}
		g.out.flushFor(g)
	}
	if t.h.flush(cs, cs.ls) || closeAfter {
		return gnet.Close
	}
	if g != nil {
		g.armDirect(cs)
	}
	return gnet.None
}

// armDirect arms a blocked plaintext connection for its waiter's direct
// reply (direct.go) once nothing of its output is left anywhere: not
// deferred (held), not waiting for the AOF fsync, not in gnet's outbound
// buffer. owning loop only.
func (g *gnetConn) armDirect(cs *connState) {
	w := cs.cl.blocked
	if w == nil || cs.direct == nil || w.pop == nil || g.held > 0 || cs.held != nil || w.state.Load() != waitBlocked {
		return
	}
	g.direct.arm(w, g.c.OutboundBuffered())
}

// OnClose writes the connection's deferred replies (gnet closes the
// socket after this returns: a client that sends its commands and shuts
// its side gets their replies) and forgets it.
func (t *gnetTransport) OnClose(c gnet.Conn, _ error) gnet.Action {
	cs, _ := c.Context().(*connState)
	if cs != nil {
		if g, _ := cs.tc.(*gnetConn); g != nil {
			g.direct.shut() // no serving loop writes to the descriptor from here (direct.go)
			if g.held > 0 {
				g.out.flush()
			}
		}
	}
	t.h.onClose(cs)
	c.SetContext(nil)
	return gnet.None
}

// OnTick runs on gnet's ticker goroutine, not on a loop.
func (t *gnetTransport) OnTick() (time.Duration, gnet.Action) {
	t.ticks++
	t.h.tick(t.ticks)
	if t.ticks%gnetTrimTicks == 0 {
		t.trimOuts()
	}
	return tickInterval, gnet.None
}

// gnetTrimTicks is how often (in ticks: 200 ms) the loops' deferred-reply
// buffers are looked at (gnetOut.trim): a loop quiet that long lets its
// buffer go, well before its idle TLS connections shed their AEADs
// (tlsShedAfter).
const gnetTrimTicks = 2

// closeBells closes the loops' doorbells once the engine has stopped.
func (t *gnetTransport) closeBells() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, o := range t.outs {
		o.bellMu.Lock()
		o.bellShut = true
		o.bell.close()
		o.bellMu.Unlock()
	}
}

// trimOuts queues trim on each loop that holds a deferred-reply buffer.
func (t *gnetTransport) trimOuts() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for el, o := range t.outs {
		if o.hasBuf.Load() {
			_ = el.Execute(context.Background(), runFunc(o.trim))
		}
	}
}

var _ writeShutter = (*gnetConn)(nil)

// errOutputQueued: the write side cannot be shut before queued output.
var errOutputQueued = errors.New("server: output still queued")

// Write writes b through gnet, holding the connection's direct lock
// (direct.go): a serving loop may write to the socket otherwise. gnet
// closes the connection on a failed write, and OnClose may write again
// from inside this one: that write holds the lock already.
func (g *gnetConn) Write(b []byte) error {
	if !g.direct.lock() {
		_, err := g.c.Write(b)
		return err
	}
	_, err := g.c.Write(b)
	g.direct.unlock()
	return err
}
func (g *gnetConn) OutboundBuffered() int { return g.c.OutboundBuffered() }
func (g *gnetConn) shutWrite() error {
	if g.c.OutboundBuffered() > 0 {
		return errOutputQueued
	}
	if !g.direct.lock() {
		return syscall.Shutdown(g.c.Fd(), syscall.SHUT_WR)
	}
	err := syscall.Shutdown(g.c.Fd(), syscall.SHUT_WR)
	g.direct.unlock()
	return err
}
func (g *gnetConn) Close() { _ = g.c.Close() }
func (g *gnetConn) Wake() {
	if g.out.wake(g) {
		return
	}
	if p := g.out.poller; p != nil {
		_ = p.Trigger(queue.LowPriority, wakeTask, g)
		return
	}
	_ = g.c.Wake(nil)
}
func (g *gnetConn) RemoteAddr() net.Addr   { return g.c.RemoteAddr() }
func (g *gnetConn) LocalAddr() net.Addr    { return g.c.LocalAddr() }
func (g *gnetConn) Fd() int                { return g.c.Fd() }
func (l gnetLoop) Execute(fn func()) error { return l.execute(fn) }

// gnetLoop adapts gnet.EventLoop to transportLoop; p is its poller, for
// tasks without a closure (transport_gnet_trigger.go), or nil.
type gnetLoop struct {
	el gnet.EventLoop
	p  *netpoll.Poller
}

// runFunc adapts a func to gnet.Runnable.
type runFunc func()

func (f runFunc) Run(context.Context) error { f(); return nil }
