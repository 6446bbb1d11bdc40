package server

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/loopkv/loopkv/tlsengine"
)

// Output sizes that shape a batch.
const (
	// batchOutLimit stops a batch once its replies pass this size; the
	// rest of the pipeline runs after a Wake, so one client cannot grow the
	// loop's buffer without bound or starve its neighbours.
	batchOutLimit = 1 << 20
	// loopOutKeep is the capacity a loop keeps for ls.out; a larger
	// buffer left by a huge reply is dropped after the write.
	loopOutKeep = 256 << 10
)

// loopState is one event loop's scratch: replies of a callback are built in
// out and written once. owning loop only, except where a field says.
type loopState struct {
	// immutable after newLoopState
	srv  *Server
	loop transportLoop // nil for Embedded

	// owned by the loop
	out     []byte // replies of the current callback; len 0 between callbacks
	scratch []byte // lower-cased command names for lookupCommand
	conns   []*connState
	tls     tlsLoop     // TLS plaintext scratch (tls.go)
	journal loopJournal // the loop's journaled store view (notify.go)
	wakes   loopWakes   // served waiters the loop delivers itself (blocking.go)
	// ctx is the command context of the loop's clients (client.ctx): a
	// callback runs one connection's commands at a time, and what a batch
	// leaves in it (now, propSeq) is read by the same callback's flush.
	ctx cmdCtx

	// written by the loop, read by INFO from any goroutine
	commands atomic.Int64
	stats    loopStats // stats.go
	monLine  []byte    // scratch for MONITOR lines (monitor.go); written by the loop only
	_        [56]byte  // keep loops' counters on separate cache lines
}

func (s *Server) newLoopState(loop transportLoop) *loopState {
	ls := &loopState{srv: s, loop: loop, out: make([]byte, 0, 64<<10), scratch: make([]byte, 64), stats: newLoopStats()}
	s.loopsMu.Lock()
	s.loops = append(s.loops, ls)
	s.loopsMu.Unlock()
	return ls
}

// connState is one connection. It holds no buffer while idle: pending is nil
// unless a TLS record split a command.
type connState struct {
	// immutable after onOpen
	tc      transportConn
	ls      *loopState
	created int64  // ms
	addr    string // peer address, ip:port
	laddr   string // local address, ip:port; the listener's, shared (listenerAddr)
	fd      int32
	// a plaintext gnet connection's writes, which serving loops may make
	// (direct.go); nil for the others. Set by the transport right after
	// onOpen.
	direct *directOut

	// owned by the loop
	idx      int32 // position in ls.conns
	cl       client
	outbox   outbox   // output left by other loops (outbox.go)
	pending  []byte   // TLS: plaintext of a command cut across records; nil when empty
	tls      *tlsConn // nil for a plaintext connection
	held     *[]byte  // replies waiting for the AOF fsync (aof_hold.go); nil when none
	heldSeq  uint64   // guarded by the hold table's mu: the change held waits for
	needWake bool     // a batch stopped at batchOutLimit with commands left
	inHold   bool     // guarded by the hold table's mu: listed in it

	// read by CLIENT LIST/KILL and INFO from any goroutine
	shared clientShared
}

// clientShared is the part of a client other loops may read. The owning
// loop is the only writer of each field, so it compares with a Load (a
// plain read on the CPUs loopkv targets) to skip unchanged stores, which
// would dirty a cache line other cores read.
type clientShared struct {
	tags       atomic.Pointer[clientTags] // nil while every one is unset
	lastCmd    atomic.Pointer[command]
	blocked    atomic.Pointer[waiter] // the client's waiter while it is blocked, for CLIENT UNBLOCK
	lastActive atomic.Int64           // ms
	qbuf       atomic.Int64           // unparsed input bytes after the last batch
	omem       atomic.Int64           // unsent output bytes after the last write
	redirect   atomic.Int64           // CLIENT TRACKING's redirect: -1 off, 0 none
	db         atomic.Int32
	proto      atomic.Int32
	multi      atomic.Int32    // commands queued in MULTI; -1 outside it
	subs       [3]atomic.Int32 // channels, patterns and shard channels subscribed to
	killed     atomic.Bool
	monitor    atomic.Bool // in MONITOR mode (CLIENT LIST flags=O)
	stalled    atomic.Bool // client.stalled (CLIENT LIST flags=c)
}

// clientTags are the names CLIENT LIST shows. The owning loop replaces them
// whole (setTags), so other loops read a consistent set and a client that
// never names itself holds one nil pointer.
type clientTags struct {
	name       string
	user       string // "": the default user
	libName    string
	libVer     string
	tlsSubject string // verified client certificate subject
	hasSubject bool   // tlsSubject is set
}

// setTags applies f to a copy of the tags and publishes it; nothing when
// f changes nothing. owning loop only.
func (sh *clientShared) setTags(f func(*clientTags)) {
	var t clientTags
	old := sh.tags.Load()
	if old != nil {
		t = *old
	}
	f(&t)
	switch {
	case old != nil && t == *old, old == nil && t == (clientTags{}):
	case t == (clientTags{}):
		sh.tags.Store(nil)
	default:
		sh.tags.Store(&t)
	}
}

// handler is the engine-agnostic connection logic every transport drives;
// see transport.go for the order of calls.
type handler struct {
	s *Server
}

// newLoop returns the state of a new loop. any goroutine.
func (h *handler) newLoop(l transportLoop) *loopState { return h.s.newLoopState(l) }

// onOpen admits a connection or returns the reply to write before closing
// it. owning loop only.
func (h *handler) onOpen(tc transportConn, ls *loopState) (*connState, []byte) {
	s := h.s
	isTLS := s.tls.isTLSAddr(tc.LocalAddr())
	// Over maxclients a TLS client is not counted or listed, but its
	// handshake runs so that it can read the refusal (tlsEstablished).
	over := s.connected.Add(1) > s.cfg.maxClients.Load()
	if over {
		s.connected.Add(-1)
		s.stats.rejectedConns.Add(1)
		if !isTLS {
			return nil, rejectMaxClients
		}
	} else if reject := s.protectedOpen(tc); reject != nil { // protected.go
		s.connected.Add(-1)
		s.stats.rejectedConns.Add(1)
		return nil, s.tls.rejectAs(tc, reject, tlsengine.AlertAccessDenied)
	}
	s.stats.totalConns.Add(1)
	now := nowMs()
	cs := &connState{tc: tc, ls: ls, created: now, addr: addrString(tc.RemoteAddr()),
		laddr: s.listenerAddr(tc.LocalAddr()), fd: int32(tc.Fd())}
	if isTLS {
		if reject := h.openTLS(cs); reject != nil {
			if !over {
				s.connected.Add(-1)
			}
			return nil, reject
		}
		if over {
			cs.tls.refuse = true
		}
	}
	cs.cl = client{id: s.nextID.Add(1), proto: 2, conn: cs, ctx: &ls.ctx}
	cs.cl.authed = !s.authRequired()
	cs.shared.proto.Store(2)
	cs.shared.multi.Store(-1)
	cs.shared.redirect.Store(-1)
	cs.shared.lastActive.Store(now)
	cs.idx = int32(len(ls.conns))
	ls.conns = append(ls.conns, cs)
	if !over {
		s.clients.add(cs)
	}
	if ce := s.log.Check(zap.DebugLevel, "client connected"); ce != nil {
		ce.Write(zap.Uint64("conn", cs.cl.id), zap.String("addr", cs.addr))
	}
	return cs, nil
}

var rejectMaxClients = []byte("-ERR max number of clients reached\r\n")

// onData runs every complete command at the front of in and leaves the
// replies in ls.out. It returns how many bytes of in were consumed (the
// transport discards them and keeps the rest) and whether the connection
// must close once ls.out is written. owning loop only.
//
// A TLS connection (onDataTLS, tls.go) opens the records of in into
// loop-owned plaintext (after cs.pending, if any), runs the commands there,
// keeps an incomplete trailing command in cs.pending, seals the replies in
// ls.out and reports the ciphertext it consumed.
func (h *handler) onData(cs *connState, ls *loopState, in []byte) (int, bool) {
	if cs.held != nil { // replies waiting for the AOF fsync go first (aof_hold.go)
		var ok bool
		if ls.out, ok = h.s.takeHeld(cs, ls.out); !ok {
			return 0, false // still waiting: run nothing
		}
	}
	if cs.tls != nil {
		return h.onDataTLS(cs, ls, in)
	}
	s := h.s
	out := ls.out                       // empty, or the replies released above
	out = h.deliverPending(cs, ls, out) // outbox.go
	n, out, closeAfter := h.runBatch(cs, ls, in, out)
	ls.out = out
	left := int64(len(in) - n)
	if left != cs.shared.qbuf.Load() { // the loop is its only writer: skip unchanged stores
		cs.shared.qbuf.Store(left)
	}
	if left > s.cfg.queryBufLimit.Load() {
		s.log.Warn("closing client that reached max query buffer length",
			zap.Uint64("conn", cs.cl.id), zap.Int64("qbuf", left))
		return n, true
	}
	return n, closeAfter
}

// noteActive publishes now (Unix ms) as the connection's last activity, for
// CLIENT LIST's idle, the idle timeout and the TLS sweep that sheds a quiet
// connection's AEADs: forward moves, and backward steps of the wall clock
// larger than the tick's lag. owning loop only.
func (cs *connState) noteActive(now int64) {
	if last := cs.shared.lastActive.Load(); now > last || now < last-2*int64(tickInterval/time.Millisecond) {
		cs.shared.lastActive.Store(now)
	}
}

// runBatch runs the complete commands at the front of in, appending their
// replies to out, and publishes what other loops read about the client.
// owning loop only.
func (h *handler) runBatch(cs *connState, ls *loopState, in, out []byte) (int, []byte, bool) {
	s := h.s
	cl := &cs.cl
	before := cl.ncmds
	n, out, closeAfter := s.execute(cl, in, out, 0, ls.scratch) // the clock is read lazily
	if d := cl.ncmds - before; d > 0 {
		ls.commands.Add(d)
	}
	cs.needWake = !closeAfter && n < len(in) && len(out) >= batchOutLimit
	now := cl.ctx.now
	if now == 0 { // no command read the clock: the tick's time serves the idle timeout
		now = coarseMs.Load()
	}
	cs.noteActive(now)
	if cl.lastCmd != cs.shared.lastCmd.Load() {
		cs.shared.lastCmd.Store(cl.lastCmd)
	}
	return n, out, closeAfter
}

// flush writes ls.out with one transport write and applies the output
// buffer limit. It reports whether the connection must close. owning loop
// only.
func (h *handler) flush(cs *connState, ls *loopState) bool {
	if cs.cl.ctx.propSeq != 0 && h.s.holdReplies(cs, ls) { // aof_hold.go: appendfsync always
		cs.needWake = false // the release wakes the connection
		return false
	}
	if len(ls.out) > 0 {
		// A TLS connection's ls.out is sealed already (onDataTLS).
		if err := cs.tc.Write(ls.out); err != nil {
			ls.out = ls.out[:0] // the next connection of this loop starts empty
			return true
		}
	}
	if cap(ls.out) > loopOutKeep {
		ls.out = make([]byte, 0, 64<<10)
	}
	ls.out = ls.out[:0]
	omem := int64(cs.tc.OutboundBuffered())
	if omem != cs.shared.omem.Load() {
		cs.shared.omem.Store(omem)
	}
	if omem > h.s.cfg.outBufLimit.Load() {
		h.s.log.Warn("client scheduled to be closed for overcoming of output buffer limits",
			zap.Uint64("conn", cs.cl.id), zap.Int64("omem", omem))
		return true
	}
	if cs.tls != nil && cs.tls.linger == lingerQueued {
		return h.lingerFlushed(cs) // a fatal TLS alert went out (tls.go)
	}
	if cs.needWake {
		cs.needWake = false
		cs.tc.Wake()
	}
	return false
}

// onClose forgets a connection. owning loop only.
func (h *handler) onClose(cs *connState) {
	if cs == nil {
		return
	}
	counted := cs.tls == nil || !cs.tls.refuse // not a TLS client over maxclients
	h.s.forgetBlocked(cs)
	h.s.forgetPaused(cs) // pause.go
	h.s.forgetMonitor(cs)
	h.s.endMulti(&cs.cl)
	h.s.unsubscribeAll(&cs.cl)
	h.s.trackingOff(&cs.cl)
	h.closeTLS(cs)
	if cs.held != nil { // replies held for the AOF fsync (aof_hold.go)
		h.s.unhold(cs)
		freeHeld(cs)
	}
	ls := cs.ls
	last := int32(len(ls.conns) - 1)
	if cs.idx <= last && ls.conns[cs.idx] == cs {
		ls.conns[cs.idx] = ls.conns[last]
		ls.conns[cs.idx].idx = cs.idx
		ls.conns[last] = nil
		ls.conns = ls.conns[:last]
	}
	if counted {
		h.s.clients.remove(cs)
		h.s.connected.Add(-1)
	}
	cs.pending = nil
	if p := cs.cl.parser; p != nil { // cut in the middle of a command
		p.Reset()
		cs.cl.parser = nil
	}
	if ce := h.s.log.Check(zap.DebugLevel, "client closed"); ce != nil {
		ce.Write(zap.Uint64("conn", cs.cl.id))
	}
}

// sweepIdle closes the loop's clients idle longer than the timeout setting.
// owning loop only.
func (h *handler) sweepIdle(ls *loopState) {
	if h.s.tls != nil {
		h.sweepTLS(ls, time.Now())
	}
	timeout := h.s.cfg.timeout.Load()
	if timeout <= 0 {
		return
	}
	now := nowMs()
	for _, cs := range ls.conns {
		if cs.cl.blocked == nil && !cs.cl.pauseHeld && now-cs.shared.lastActive.Load() > timeout*1000 && !cs.shared.killed.Swap(true) {
			h.s.log.Debug("closing idle client", zap.Uint64("conn", cs.cl.id))
			cs.tc.Close()
		}
	}
}

// Ticker work, run on the transport's ticker goroutine.
const (
	tickInterval = 100 * time.Millisecond // Redis's hz 10
	expireBudget = 10 * time.Millisecond  // per tick for active expiry
	sweepEvery   = 10                     // ticks between idle sweeps
)

// tick runs the periodic work: active expiry from the ticker goroutine
// (the store is thread-safe) and, once a second, an idle sweep pushed to
// each loop.
func (h *handler) tick(n int) {
	reanchorClock()
	calibrateTSC() // clock.go
	// Redis's active expiry waits out a CLIENT PAUSE (pause.go)
	if h.s.paused.mode.Load() == pauseOff {
		h.s.activeExpire(nowMs(), expireBudget)
	}
	h.s.persistTick(time.Now()) // persist.go: the save rules
	h.s.aofTick()               // aof.go: write status, rewrites
	if n%sweepEvery != 0 {
		return
	}
	h.s.sampleOps()
	if h.s.tls != nil {
		h.s.tls.collectShed(time.Now())
	}
	if h.s.cfg.timeout.Load() <= 0 && h.s.tls == nil {
		return
	}
	for _, ls := range h.s.loopSnapshot() {
		if ls.loop != nil {
			_ = ls.loop.Execute(func() { h.sweepIdle(ls) })
		}
	}
}

// The clock. Reading the wall clock costs about three monotonic reads on
// the VMs loopkv targets, so nowMs adds the monotonic time since clockStart
// to an offset that the ticker re-anchors to the wall clock every tick.
var (
	clockStart  = time.Now()
	clockOffset atomic.Int64 // Unix ms at clockStart, as last re-anchored
	coarseMs    atomic.Int64 // nowMs at the last tick: lastActive of batches that read no clock
)

func init() { reanchorClock() }

// reanchorClock follows steps of the wall clock (NTP, settimeofday).
func reanchorClock() {
	now := time.Now()
	clockOffset.Store(now.UnixMilli() - int64(now.Sub(clockStart)/time.Millisecond))
	coarseMs.Store(nowMs())
}

// nowMs is the wall clock in Unix milliseconds; read at most once per
// batch, and only when a command needs it (session.go call).
func nowMs() int64 { return clockOffset.Load() + int64(time.Since(clockStart)/time.Millisecond) }

// registry lists every connected client across loops for CLIENT LIST and
// CLIENT KILL; updated on open and close only.
type registry struct {
	shards [16]struct {
		mu sync.Mutex
		m  map[uint64]*connState
	}
}

func (r *registry) add(cs *connState) {
	sh := &r.shards[cs.cl.id%16]
	sh.mu.Lock()
	if sh.m == nil {
		sh.m = make(map[uint64]*connState)
	}
	sh.m[cs.cl.id] = cs
	sh.mu.Unlock()
}

func (r *registry) remove(cs *connState) {
	sh := &r.shards[cs.cl.id%16]
	sh.mu.Lock()
	delete(sh.m, cs.cl.id)
	sh.mu.Unlock()
}

// get returns the connected client with id, or nil.
func (r *registry) get(id uint64) *connState {
	sh := &r.shards[id%16]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.m[id]
}

// snapshot returns the connected clients in id order.
func (r *registry) snapshot() []*connState {
	var all []*connState
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		for _, cs := range sh.m {
			all = append(all, cs)
		}
		sh.mu.Unlock()
	}
	sortByID(all)
	return all
}

// laddrCache holds one string per local address connections arrived on:
// a listener's connections share it instead of holding a copy each.
type laddrCache struct {
	mu sync.Mutex
	m  map[string]string
}

// listenerAddr returns a's string, shared by every connection with the same
// local address. owning loop of the connection.
func (s *Server) listenerAddr(a net.Addr) string {
	str := addrString(a)
	c := &s.laddrs
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.m[str]; ok {
		return v
	}
	if c.m == nil || len(c.m) >= 64 { // a few listeners' addresses; bounded all the same
		c.m = make(map[string]string)
	}
	c.m[str] = str
	return str
}

func addrString(a net.Addr) string {
	if a == nil {
		return ""
	}
	return a.String()
}

// sampleOps updates instantaneous_ops_per_sec. ticker goroutine only.
func (s *Server) sampleOps() {
	now, total := time.Now(), s.totalCommands()
	st := &s.stats
	if !st.lastOpsAt.IsZero() {
		if el := now.Sub(st.lastOpsAt).Seconds(); el > 0 {
			st.opsPerSec.Store(int64(float64(total-st.lastOps) / el))
		}
	}
	st.lastOps, st.lastOpsAt = total, now
}
