package server

import (
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// Blocking pops (Redis blocked.c): BLPOP, BRPOP, BLMOVE, BRPOPLPUSH,
// BLMPOP, BZPOPMIN, BZPOPMAX and BZMPOP. A client whose BLPOP finds every key
// empty becomes a waiter: it is queued, in arrival order, on each of its
// keys in the server's blocking table and its connection stops running
// commands. A write command that touches a key with waiters serves them,
// on the writer's own loop, right after the command and before any other
// command runs: for each waiter in order it runs the waiter's pop against
// the store and writes the reply into the waiter's mailbox, until the key
// is empty. On gnet, a plaintext waiter's reply is then written to its
// socket by the writer's loop itself (direct.go). The waiter's connection
// then runs on its own loop (loopWakes: on gnet in the writer's callback, before the
// writer's replies are written, when it shares the writer's loop, else in
// one drain per loop for the batch, posted before that write; elsewhere
// through transportConn.Wake): it sends the mailbox (sealed in a
// TLS record when the connection is TLS) and goes on with the commands
// that followed. Timeouts are runtime timers (time.AfterFunc), not
// goroutines; nothing polls. CLIENT UNBLOCK and a disconnect take a waiter
// out of the table the same way. A waiter costs its keys' copies and one
// small struct: a blocked connection holds no buffer otherwise.

// Waiter states; a waiter leaves waitBlocked exactly once, under
// blockTable.mu.
const (
	waitBlocked  int32 = iota
	waitServed         // reply holds the pop's reply
	waitTimedOut       // the timeout passed, or CLIENT UNBLOCK ... TIMEOUT
	waitError          // CLIENT UNBLOCK ... ERROR
	waitGone           // the connection closed
	// served, and the serving loop is writing the reply to the socket
	// itself (direct.go); waitServed follows, then the wake
	waitServing
)

// blockPop is a waiter's operation: it pops from key (which became
// ready, or is tried when the client blocks) and appends the reply to
// dst, reporting whether there was anything to pop. st is WrongType (or
// another error) when key holds another type.
type blockPop func(ks *store.Store, w *waiter, key []byte, dst []byte) (out []byte, served bool, st store.Status)

// waiter is a client blocked on keys. Fields are ordered by size so that
// the struct packs into 160 bytes.
type waiter struct {
	conn    *connState
	keys    [][]byte // copies of the command's keys, in order; never written after newWaiter
	pop     blockPop
	dst     []byte // BLMOVE: the destination key
	timeout []byte // the reply on timeout
	timer   *time.Timer
	reply   []byte // written before state is waitServed; what a direct write sent is cut from its front
	seq     uint64 // the served pop's change sequence, written with reply
	db      int
	proto   int
	count   int // BLMPOP, BZMPOP: elements at most; 0 for the single-pop commands
	state   atomic.Int32

	end  store.ListEnd // the end to pop from
	to   store.ListEnd // BLMOVE: the end to push at
	zset bool          // a sorted-set pop (its keyspace events are zpopmin, zpopmax)
	mute bool          // CLIENT REPLY muted the command (reply_mode.go): its reply is dropped, never written directly
	rule propRule      // the command's, for propagating a served pop (propagate.go)

	// XREAD (cmd_stream_read.go): a read, served without consuming, so
	// the waiters behind it are tried too; xids are its IDs, by key
	xread bool
	xids  []store.StreamID
}

// blockTable is the server's table of waiters by database and key.
type blockTable struct {
	mu     sync.Mutex
	queues map[blockKey][]*waiter
	n      atomic.Int64 // waiters blocked
	keys   atomic.Int64 // keys with a queue (total_blocking_keys)
}

type blockKey struct {
	db  int
	key string
}

// block queues w on its keys and arms its timer (ms: 0 waits forever).
// owning loop of w.conn.
func (s *Server) block(w *waiter, timeoutMs int64) {
	bt := &s.blocked
	bt.mu.Lock()
	if bt.queues == nil {
		bt.queues = make(map[blockKey][]*waiter)
	}
	for _, k := range w.keys {
		bk := blockKey{w.db, tableKey(k)}
		q := bt.queues[bk]
		if len(q) == 0 {
			bt.keys.Add(1)
		}
		bt.queues[bk] = append(q, w)
	}
	bt.n.Add(1)
	// the timer is set under the lock: a writer serving w reads w.timer
	// once it has taken the lock after this. Past time.Duration's range
	// (292 years) there is no timer: the wait is forever, where the
	// product would wrap and fire at once.
	if left := timeoutMs - nowMs(); timeoutMs > 0 && left < math.MaxInt64/int64(time.Millisecond) {
		w.timer = time.AfterFunc(time.Duration(max(left, 0))*time.Millisecond, func() { s.unblock(w, waitTimedOut) })
	}
	bt.mu.Unlock()
	w.conn.cl.blocked = w
	w.conn.shared.blocked.Store(w)
}

// tableKey is the blocking table's key for a waiter's key copy: the copy's
// own bytes, which nothing writes after newWaiter, so the table holds no
// second copy. The entry keeps the bytes alive after their waiter leaves.
func tableKey(k []byte) string {
	if len(k) == 0 {
		return ""
	}
	return unsafe.String(&k[0], len(k))
}

// dequeue removes w from the queues of its keys. Caller holds bt.mu.
func (bt *blockTable) dequeue(w *waiter) {
	for _, k := range w.keys {
		bk := blockKey{w.db, tableKey(k)}
		q := bt.queues[bk]
		for i, x := range q {
			if x == w {
				q = append(q[:i], q[i+1:]...)
				break
			}
		}
		if len(q) == 0 {
			delete(bt.queues, bk)
			bt.keys.Add(-1)
		} else {
			bt.queues[bk] = q
		}
	}
	bt.n.Add(-1)
}

// unblock ends w's wait with state (a timeout, CLIENT UNBLOCK, a
// disconnect) unless it has ended already, and wakes its connection. It
// reports whether it did. any goroutine.
func (s *Server) unblock(w *waiter, state int32) bool {
	bt := &s.blocked
	bt.mu.Lock()
	if w.state.Load() != waitBlocked {
		bt.mu.Unlock()
		return false
	}
	bt.dequeue(w)
	w.state.Store(state)
	bt.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
	if state != waitGone {
		w.conn.tc.Wake()
	}
	return true
}

// serveBlocked serves the waiters of the keys cmd just wrote, as Redis's
// handleClientsBlockedOnKeys does after a command: each key's waiters in
// the order they blocked, while the key has something to pop. A waiter's
// pop may write another key with waiters (BLMOVE), which is served in turn.
// It runs on the writer's loop.
func (s *Server) serveBlocked(c *cmdCtx, cmd *command) {
	var buf [8]keyRef
	refs, ok := commandKeys(cmd, c.args, buf[:], keysPartial)
	if !ok {
		return
	}
	for _, r := range refs {
		if r.Flags&(keyRO) != 0 && r.Flags&(keyRW|keyOW|keyRM) == 0 {
			continue // a key the command only read
		}
		s.serveKey(c, c.db(), c.args[r.Pos])
	}
	for _, wk := range s.otherDBKeys(c, cmd) {
		s.serveKey(c, wk.db, wk.key)
	}
}

// otherDBKeys returns the keys cmd may have readied that its key specs do
// not name: MOVE's key and COPY ... DB n's destination in the target
// database, after SWAPDB every key waited on in either database (Redis's
// dbAdd and scanDatabaseForReadyKeys signal them ready), and SORT ...
// STORE's destination, whose key spec is "unknown" (found as Redis's
// sortGetKeys finds it: LIMIT takes two arguments, BY and GET one, the
// last STORE wins). Keys alias c.args, or are copies for SWAPDB.
func (s *Server) otherDBKeys(c *cmdCtx, cmd *command) []writtenKey {
	var out []writtenKey
	switch cmd.Name {
	case "move":
		if db, ok := dbArg(c, c.args[2]); ok {
			out = append(out, writtenKey{db: db, key: c.args[1]})
		}
	case "copy":
		for j := 3; j+1 < len(c.args); j++ {
			if optIs(c.args[j], "db") {
				if db, ok := dbArg(c, c.args[j+1]); ok {
					out = append(out, writtenKey{db: db, key: c.args[2]})
				}
			}
		}
	case "sort":
		var dst []byte
		for j := 2; j < len(c.args); j++ {
			switch a := c.args[j]; {
			case optIs(a, "limit"):
				j += 2
			case optIs(a, "by"), optIs(a, "get"):
				j++
			case optIs(a, "store") && j+1 < len(c.args):
				dst = c.args[j+1]
				j++
			}
		}
		if dst != nil {
			out = append(out, writtenKey{db: c.db(), key: dst})
		}
	case "swapdb":
		a, okA := dbArg(c, c.args[1])
		b, okB := dbArg(c, c.args[2])
		if !okA || !okB {
			break
		}
		bt := &s.blocked
		bt.mu.Lock()
		for bk := range bt.queues {
			if bk.db == a || bk.db == b {
				out = append(out, writtenKey{db: bk.db, key: []byte(bk.key)})
			}
		}
		bt.mu.Unlock()
	}
	return out
}

// dbArg parses a database index argument, false when it is not a valid one.
func dbArg(c *cmdCtx, arg []byte) (int, bool) {
	n, ok := store.ParseInt(arg)
	if !ok || n < 0 || n >= int64(c.store.Databases()) {
		return 0, false
	}
	return int(n), true
}

// serveKey serves key's waiters in db; see serveBlocked. The pops run on
// c's store view, and their events are c's (notify.go). Each pop is
// propagated when c holds the order lock (propagate.go served).
func (s *Server) serveKey(c *cmdCtx, db int, key []byte) {
	bt := &s.blocked
	var wbuf [8]*waiter
	woken := wbuf[:0]
	var moved [][]byte // destinations of served BLMOVEs, which may have waiters of their own
	bt.mu.Lock()
	for skip := 0; ; {
		q := bt.queues[blockKey{db, string(key)}]
		if len(q) <= skip {
			break
		}
		w := q[skip]
		if w.xread {
			// a read: nothing to watch, notify or propagate, and a
			// waiter past the stream's end leaves the next ones their turn
			out, served, _ := w.pop(c.store, w, key, w.reply[:0])
			if !served {
				skip++
				continue
			}
			w.reply = out
		} else {
			mark := s.touchServed(c, db, key, w.dst) // multi.go: its watchers, pending before the pop writes
			out, served, st := w.pop(c.store, w, key, w.reply[:0])
			c.settleServed(mark, st == store.OK && served)
			if st != store.OK || !served {
				// empty, or of another type now (SET over a waited-on key):
				// the waiters stay blocked, as in Redis 7.0
				break
			}
			w.reply = out
			c.notifyServed(w, db, key, out, true) // notify.go
			if c.prop {
				w.seq = s.served(w, key)
			}
		}
		bt.dequeue(w)
		// a reply written at once, unless it must wait for the fsync
		// (appendfsync always: takeUnblocked's noteSeq)
		if w.conn.direct != nil && directWrites.Load() && !(c.prop && s.aof.always.Load()) && !w.mute {
			w.state.Store(waitServing)
		} else {
			w.state.Store(waitServed)
		}
		woken = append(woken, w)
		if w.dst != nil {
			moved = append(moved, w.dst)
		}
	}
	bt.mu.Unlock()
	var from *loopState // the writer's loop, nil for an in-process client
	if c.cl.conn != nil {
		from = c.cl.conn.ls
	}
	for _, w := range woken {
		if w.timer != nil {
			w.timer.Stop()
		}
		sent := false
		if w.state.Load() == waitServing {
			var cut bool
			sent, cut = w.conn.direct.write(w, w.conn) // direct.go
			if from != nil && sent {
				from.wakes.direct.Add(1)
			} else if from != nil && cut {
				from.wakes.directCut.Add(1)
			}
			w.state.Store(waitServed)
		}
		w.conn.ls.wakeServed(from, w.conn, sent)
	}
	for _, d := range moved {
		if bt.n.Load() > 0 {
			s.serveKey(c, db, d)
		}
	}
}

// loopWakes are the served waiters a loop delivers itself, when its
// transport can run a connection's callback on demand (drain set): a
// push serves its waiters (serveKey), and each waiter's connection must
// then run on its own loop to send the reply. Through Wake that is a task
// per waiter, an eventfd write and another pass of the loop even when
// the waiter shares the pusher's loop. Instead, a waiter on the writer's
// own loop goes on local, and waiters on other loops on away. Once the
// writer's commands have run, and before its replies are written, the
// transport posts away (postAway: one lock per target loop, and a drain
// scheduled on it only when none is pending, so a loop wakes once for a
// whole batch of served waiters) and then delivers local in the same
// pass. The served replies go out first, as in Redis, which writes the
// client it queued for writing last first: the writer's own write (on
// loopback, the wake-up of its reader) is not on the waiters' path, and
// the other loops run, on another CPU or on this one when the kernel
// lets the woken thread preempt, while this loop writes. A writer whose
// loop has no such callback end (an in-process client) posts each waiter
// at once. A waiter whose reply the writer's loop wrote itself (direct.go)
// is handed over the same way, but its loop's wake-up is no longer on the
// reply's path: the loop yields only for waiters it did not write.
type loopWakes struct {
	// set by the transport once, before the loop's first connection
	drain func() // runs on the loop: deliver what takePosted returns

	local []*connState // owning loop only: served waiters of this loop, delivered before the callback's write
	away  []*connState // owning loop only: served waiters of other loops, posted before the callback's write
	run   []*connState // owning loop only: takePosted's copy of posted
	spare []byte       // owning loop only: ls.out while local is delivered, the writer's replies set aside
	// owning loop only: local is being delivered (a waiter's callback
	// leaves what it serves on local to the same pass)
	delivering bool
	// owning loop only: away holds a waiter whose reply its own loop
	// still has to write
	urgent bool

	mu     sync.Mutex
	posted []*connState // served waiters other loops left, guarded by mu
	armed  bool         // drain is scheduled and has not taken posted yet

	// written by the owning loop, read by tests: waiters put on local,
	// drains run (the loop's wake-ups for waiters served elsewhere), the
	// CPU yielded to the loops it woke (gnet, loops sharing CPUs), and
	// served waiters' replies it wrote to their sockets whole (direct.go),
	// and those of which it could write only the front
	inlined, drains, yields, direct, directCut atomic.Int64
}

// wakeServed has cs, whose wait was served by a write on loop from (nil:
// no loop), delivered on its own loop ls; see loopWakes. Without a drain
// (a transport that delivers nothing itself) cs is woken. sent: its
// reply was written to its socket already.
func (ls *loopState) wakeServed(from *loopState, cs *connState, sent bool) {
	lw := &ls.wakes
	switch {
	case lw.drain == nil:
		cs.tc.Wake()
	case ls == from:
		lw.local = append(lw.local, cs)
		lw.inlined.Add(1)
	case from != nil && from.wakes.drain != nil:
		from.wakes.away = append(from.wakes.away, cs)
		from.wakes.urgent = from.wakes.urgent || !sent
	default:
		lw.mu.Lock()
		lw.posted = append(lw.posted, cs)
		ls.schedule()
	}
}

// postAway posts the loop's away waiters to their loops, each loop's at
// once; it reports whether it woke any loop (scheduled a drain that was
// not pending). owning loop only.
func (ls *loopState) postAway() bool {
	away := ls.wakes.away
	woke := false
	for i, cs := range away {
		if cs == nil {
			continue
		}
		to := cs.ls
		to.wakes.mu.Lock()
		for j := i; j < len(away); j++ {
			if away[j] != nil && away[j].ls == to {
				to.wakes.posted = append(to.wakes.posted, away[j])
				away[j] = nil
			}
		}
		woke = to.schedule() || woke
	}
	ls.wakes.away = away[:0]
	ls.wakes.urgent = false
	return woke
}

// schedule arms ls's drain unless it is armed, and releases wakes.mu,
// which the caller holds; it reports whether it armed it. A loop that
// refuses the drain is stopping: its connections close, and nothing waits
// for the replies.
func (ls *loopState) schedule() bool {
	lw := &ls.wakes
	arm := !lw.armed
	lw.armed = true
	lw.mu.Unlock()
	if arm {
		_ = ls.loop.Execute(lw.drain)
	}
	return arm
}

// takePosted returns the waiters other loops served for ls since the last
// drain; the slice is ls's until the next call. owning loop only.
func (ls *loopState) takePosted() []*connState {
	lw := &ls.wakes
	clear(lw.run)
	lw.mu.Lock()
	lw.run = append(lw.run[:0], lw.posted...)
	clear(lw.posted)
	lw.posted = lw.posted[:0]
	lw.armed = false
	lw.mu.Unlock()
	lw.drains.Add(1)
	return lw.run
}

// holds reports whether cs is still one of ls's connections (a served
// waiter may have closed before its loop delivered it). owning loop only.
func (ls *loopState) holds(cs *connState) bool {
	return int(cs.idx) < len(ls.conns) && ls.conns[cs.idx] == cs
}

// takeUnblocked appends the reply of a waiter whose wait has ended and
// clears the client's block; it reports false while the client is still
// blocked. owning loop only.
func (cl *client) takeUnblocked(out []byte) ([]byte, bool) {
	w := cl.blocked
	switch st := w.state.Load(); {
	case st == waitBlocked, st == waitServing:
		return out, false
	case w.mute: // CLIENT REPLY OFF or SKIP: the pop ran, its reply is dropped
		cl.reply &^= replySkip // the skipped command has ended (reply_mode.go)
		if st == waitServed {
			cl.ctx.noteSeq(w.seq)
		}
	case st == waitServed:
		out = append(out, w.reply...)
		cl.ctx.noteSeq(w.seq) // held until durable with appendfsync always (aof.go)
	case st == waitTimedOut:
		out = append(out, w.timeout...)
	case st == waitError:
		out = resp.AppendError(out, "UNBLOCKED client unblocked via CLIENT UNBLOCK")
	}
	cl.blocked = nil
	cl.conn.shared.blocked.Store(nil)
	return out, true
}

// forgetBlocked takes a closing connection's waiter out of the table.
func (s *Server) forgetBlocked(cs *connState) {
	if w := cs.cl.blocked; w != nil {
		s.unblock(w, waitGone)
		cs.cl.blocked = nil
		cs.shared.blocked.Store(nil)
	}
}

// parseTimeout parses a blocking command's timeout in seconds, with
// decimals, as Redis 7.0's getTimeoutFromObjectOrReply: it returns the
// Unix ms deadline, 0 for none, or replies an error.
func parseTimeout(c *cmdCtx, arg []byte) (int64, bool) {
	f, err := strconv.ParseFloat(string(arg), 64)
	if err != nil || math.IsNaN(f) || len(arg) == 0 || arg[0] == ' ' || arg[len(arg)-1] == ' ' {
		if err == nil || !isRangeErr(err) {
			c.errReply("ERR timeout is not a float or out of range")
			return 0, false
		}
	}
	ms := f * 1000
	// Redis converts to long long without a range check: beyond it, or
	// infinite, the value is LLONG_MIN on the machines it runs on.
	if ms < 0 || ms >= math.MaxInt64 || math.IsInf(ms, 0) {
		c.errReply("ERR timeout is negative")
		return 0, false
	}
	t := int64(ms)
	if t == 0 || t > math.MaxInt64-c.now {
		// Redis 7.0 adds the time unchecked (7.2 refuses it as out of
		// range): the wrapped deadline never comes, and the wait is forever
		return 0, true
	}
	return c.now + t, true
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// newWaiter returns a waiter for the blocking command in c, copying its
// keys (the arguments alias the connection's input).
func newWaiter(c *cmdCtx, keys [][]byte, pop blockPop, timeoutReply []byte) *waiter {
	w := &waiter{conn: c.cl.conn, db: c.db(), proto: c.cl.proto, pop: pop, timeout: timeoutReply,
		mute: c.cl.reply&replyMuted != 0}
	if cmd := c.cl.lastCmd; cmd != nil {
		w.rule = cmd.prop
	}
	// one allocation for the keys' bytes, one for their slice
	n := 0
	for _, k := range keys {
		n += len(k)
	}
	buf := make([]byte, 0, n)
	w.keys = make([][]byte, len(keys))
	for i, k := range keys {
		buf = append(buf, k...)
		w.keys[i] = buf[len(buf)-len(k) : len(buf) : len(buf)]
	}
	return w
}

// blockOrReply tries pop on keys in order and replies with the first that
// serves; when none does it blocks the client until deadline (0: forever).
// A WRONGTYPE on a key is the reply, as in Redis. A client that may not
// block, with no connection (in process) or inside EXEC, gets denied at
// once: Redis's reply when CLIENT_DENY_BLOCKING is set, which is the
// timeout reply except for BLMOVE and BRPOPLPUSH (a null bulk string there,
// a null array when they time out).
func blockOrReply(c *cmdCtx, w *waiter, deadline int64, denied []byte) {
	for _, k := range w.keys {
		out, served, st := w.pop(c.store, w, k, c.out)
		if st != store.OK {
			c.errReply(statusError(st))
			return
		}
		if served {
			c.notifyServed(w, c.db(), k, out[len(c.out):], false) // notify.go
			c.out = out
			return
		}
	}
	if w.conn == nil || c.cl.execing {
		c.out = append(c.out, denied...)
		return
	}
	c.srv.block(w, deadline)
}

// The pops. Each appends the reply its command gives when it is served.

// popListKey is BLPOP and BRPOP: [key, element].
func popListKey(s *store.Store, w *waiter, key []byte, dst []byte) ([]byte, bool, store.Status) {
	mark := len(dst)
	dst = resp.AppendArrayLen(dst, 2)
	dst = resp.AppendBulk(dst, key)
	out, st := s.LPop(w.db, key, w.end, 1, nowMs(), dst, nil, resp.AppendBulk)
	if st != store.OK {
		return dst[:mark], false, okIfNotFound(st)
	}
	return out, true, store.OK
}

// popListMove is BLMOVE and BRPOPLPUSH: the element moved.
func popListMove(s *store.Store, w *waiter, key []byte, dst []byte) ([]byte, bool, store.Status) {
	out, st := s.LMove(w.db, key, w.dst, w.end, w.to, nowMs(), dst, resp.AppendBulk)
	if st != store.OK {
		return dst, false, okIfNotFound(st)
	}
	return out, true, store.OK
}

// popListMulti is BLMPOP: [key, [elements]].
func popListMulti(s *store.Store, w *waiter, key []byte, dst []byte) ([]byte, bool, store.Status) {
	keys := [][]byte{key}
	out, st := s.LMPop(w.db, keys, w.end, w.count, nowMs(), dst, appendPopHeader, resp.AppendBulk)
	if st != store.OK {
		return dst, false, okIfNotFound(st)
	}
	return out, true, store.OK
}

func okIfNotFound(st store.Status) store.Status {
	if st == store.NotFound {
		return store.OK
	}
	return st
}

// The timeout replies, shared by every waiter (never written to).
var (
	nullArrays = [...][]byte{resp.AppendNullArray(nil, 2), resp.AppendNullArray(nil, 3)}
	nullBulks  = [...][]byte{resp.AppendNull(nil, 2), resp.AppendNull(nil, 3)}
)

func nullArrayReply(proto int) []byte { return nullArrays[min(max(proto, 2), 3)-2] }
func nullReply(proto int) []byte      { return nullBulks[min(max(proto, 2), 3)-2] }

func cmdBLPop(c *cmdCtx)    { blockOnKeys(c, popListKey, store.ListHead, false) }
func cmdBRPop(c *cmdCtx)    { blockOnKeys(c, popListKey, store.ListTail, false) }
func cmdBZPopMin(c *cmdCtx) { blockOnKeys(c, popZSetKey, store.ListHead, true) }
func cmdBZPopMax(c *cmdCtx) { blockOnKeys(c, popZSetKey, store.ListTail, true) }

// blockOnKeys is BLPOP, BRPOP, BZPOPMIN and BZPOPMAX key [key ...] timeout:
// pop from end e (ListTail: the max of a sorted set).
func blockOnKeys(c *cmdCtx, pop blockPop, e store.ListEnd, zset bool) {
	deadline, ok := parseTimeout(c, c.args[len(c.args)-1])
	if !ok {
		return
	}
	w := newWaiter(c, c.args[1:len(c.args)-1], pop, nullArrayReply(c.cl.proto))
	w.end, w.zset = e, zset
	blockOrReply(c, w, deadline, w.timeout)
}

// cmdBLMove is BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout.
func cmdBLMove(c *cmdCtx) {
	from, ok := listEnd(c, c.args[3])
	if !ok {
		return
	}
	to, ok := listEnd(c, c.args[4])
	if !ok {
		return
	}
	blmoveGeneric(c, from, to, c.args[5])
}

// cmdBRPopLPush is BRPOPLPUSH source destination timeout.
func cmdBRPopLPush(c *cmdCtx) { blmoveGeneric(c, store.ListTail, store.ListHead, c.args[3]) }

func blmoveGeneric(c *cmdCtx, from, to store.ListEnd, timeout []byte) {
	deadline, ok := parseTimeout(c, timeout)
	if !ok {
		return
	}
	w := newWaiter(c, c.args[1:2], popListMove, nullArrayReply(c.cl.proto))
	w.end, w.to, w.dst = from, to, append([]byte(nil), c.args[2]...)
	blockOrReply(c, w, deadline, nullReply(c.cl.proto))
}

// cmdBLMPop is BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count].
func cmdBLMPop(c *cmdCtx) {
	deadline, ok := parseTimeout(c, c.args[1])
	if !ok {
		return
	}
	keys, e, count, ok := mpopArgs(c, 2)
	if !ok {
		return
	}
	w := newWaiter(c, keys, popListMulti, nullArrayReply(c.cl.proto))
	w.end, w.count = e, int(min(count, math.MaxInt32))
	blockOrReply(c, w, deadline, w.timeout)
}

// The sorted-set pops; w.end is ListTail for the MAX variants.

func zscoreFn(proto int) func([]byte, float64) []byte {
	if proto >= 3 {
		return appendScore3
	}
	return appendScore2
}

// popZSetKey is BZPOPMIN and BZPOPMAX: [key, member, score].
func popZSetKey(s *store.Store, w *waiter, key []byte, dst []byte) ([]byte, bool, store.Status) {
	mark := len(dst)
	dst = resp.AppendArrayLen(dst, 3)
	dst = resp.AppendBulk(dst, key)
	r := store.ZReply{Head: noHead, Member: resp.AppendBulk, Score: zscoreFn(w.proto)}
	out, st := s.ZPop(w.db, key, w.end == store.ListTail, 1, nowMs(), dst, r)
	if st != store.OK {
		return dst[:mark], false, okIfNotFound(st)
	}
	return out, true, store.OK
}

// popZSetMulti is BZMPOP: [key, [[member, score], ...]], pairs in RESP2
// too, as ZMPOP.
func popZSetMulti(s *store.Store, w *waiter, key []byte, dst []byte) ([]byte, bool, store.Status) {
	r := store.ZReply{Head: resp.AppendArrayLen, Entry: appendPairEntry3, Member: resp.AppendBulk, Score: zscoreFn(w.proto)}
	keys := [][]byte{key}
	out, st := s.ZMPop(w.db, keys, w.end == store.ListTail, w.count, nowMs(), dst, appendZMPopKey, r)
	if st != store.OK {
		return dst, false, okIfNotFound(st)
	}
	return out, true, store.OK
}

// cmdBZMPop is BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count].
func cmdBZMPop(c *cmdCtx) {
	deadline, ok := parseTimeout(c, c.args[1])
	if !ok {
		return
	}
	keys, max, count, ok := parseZMPop(c, 2)
	if !ok {
		return
	}
	w := newWaiter(c, keys, popZSetMulti, nullArrayReply(c.cl.proto))
	w.count, w.zset = count, true
	if max {
		w.end = store.ListTail
	}
	blockOrReply(c, w, deadline, w.timeout)
}

// cmdClientUnblock is CLIENT UNBLOCK client-id [TIMEOUT|ERROR].
func cmdClientUnblock(c *cmdCtx) {
	id, ok := store.ParseInt(c.args[2])
	if !ok {
		c.errReply(errNotInteger)
		return
	}
	state := waitTimedOut
	switch {
	case len(c.args) == 3:
	case len(c.args) == 4 && optIs(c.args[3], "timeout"):
	case len(c.args) == 4 && optIs(c.args[3], "error"):
		state = waitError
	default:
		c.errReply("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
		return
	}
	cs := c.srv.clients.get(uint64(id))
	if cs == nil {
		c.integer(0)
		return
	}
	w := cs.shared.blocked.Load()
	c.integer(b2i(w != nil && c.srv.unblock(w, state)))
}

var blockingCommands = []command{
	{Name: "bzpopmin", Arity: -3, Flags: flagWrite | flagNoScript | flagBlocking | flagFast, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(1), FK: fkRange(-2, 1, 0)}},
		Doc: cmdDoc{Summary: "Remove and return the member with the lowest score from one or more sorted sets, or block until one is available", Since: "5.0.0", Group: "sorted-set",
			Complexity: "O(log(N)) with N being the number of elements in the sorted set.",
			History:    [][2]string{{"6.0.0", "`timeout` is interpreted as a double instead of an integer."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
				{Name: "timeout", Type: argDouble},
			}},
		Fn: cmdBZPopMin},
	{Name: "bzpopmax", Arity: -3, Flags: flagWrite | flagNoScript | flagBlocking | flagFast, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(1), FK: fkRange(-2, 1, 0)}},
		Doc: cmdDoc{Summary: "Remove and return the member with the highest score from one or more sorted sets, or block until one is available", Since: "5.0.0", Group: "sorted-set",
			Complexity: "O(log(N)) with N being the number of elements in the sorted set.",
			History:    [][2]string{{"6.0.0", "`timeout` is interpreted as a double instead of an integer."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
				{Name: "timeout", Type: argDouble},
			}},
		Fn: cmdBZPopMax},
	{Name: "bzmpop", Arity: -5, Flags: flagWrite | flagBlocking, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(2), FK: fkKeyNum(0, 1, 1)}},
		Doc: cmdDoc{Summary: "Remove and return members with scores in a sorted set or block until one is available", Since: "7.0.0", Group: "sorted-set",
			Complexity: "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.",
			Args: []cmdArg{
				{Name: "timeout", Type: argDouble},
				{Name: "numkeys", Type: argInteger},
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
				{Name: "where", Type: argOneOf, Args: argsMinMax},
				{Name: "count", Type: argInteger, Token: "COUNT", Flags: argOptional},
			}},
		Fn: cmdBZMPop},
	{Name: "blpop", Arity: -3, Flags: flagWrite | flagNoScript | flagBlocking, ACL: catList,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(1), FK: fkRange(-2, 1, 0)}},
		Doc: cmdDoc{Summary: "Remove and get the first element in a list, or block until one is available", Since: "2.0.0", Group: "list",
			Complexity: "O(N) where N is the number of provided keys.",
			History:    [][2]string{{"6.0.0", "`timeout` is interpreted as a double instead of an integer."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
				{Name: "timeout", Type: argDouble},
			}},
		Fn: cmdBLPop},
	{Name: "brpop", Arity: -3, Flags: flagWrite | flagNoScript | flagBlocking, ACL: catList,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(1), FK: fkRange(-2, 1, 0)}},
		Doc: cmdDoc{Summary: "Remove and get the last element in a list, or block until one is available", Since: "2.0.0", Group: "list",
			Complexity: "O(N) where N is the number of provided keys.",
			History:    [][2]string{{"6.0.0", "`timeout` is interpreted as a double instead of an integer."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
				{Name: "timeout", Type: argDouble},
			}},
		Fn: cmdBRPop},
	{Name: "blmove", Arity: 6, Flags: flagWrite | flagDenyOOM | flagNoScript | flagBlocking, ACL: catList,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Flags: keyRW | keyInsert, BS: bsIndex(2), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Pop an element from a list, push it to another list and return it; or block until one is available", Since: "6.2.0", Group: "list",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "source", Type: argKey, KeySpec: 0},
				{Name: "destination", Type: argKey, KeySpec: 1},
				{Name: "wherefrom", Type: argOneOf, Args: argsLeftRight},
				{Name: "whereto", Type: argOneOf, Args: argsLeftRight},
				{Name: "timeout", Type: argDouble},
			}},
		Fn: cmdBLMove},
	{Name: "brpoplpush", Arity: 4, Flags: flagWrite | flagDenyOOM | flagNoScript | flagBlocking, ACL: catList,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Flags: keyRW | keyInsert, BS: bsIndex(2), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Pop an element from a list, push it to another list and return it; or block until one is available", Since: "2.2.0", Group: "list",
			Complexity:      "O(1)",
			DocFlags:        docDeprecated,
			DeprecatedSince: "6.2.0",
			ReplacedBy:      "`BLMOVE` with the `RIGHT` and `LEFT` arguments",
			History:         [][2]string{{"6.0.0", "`timeout` is interpreted as a double instead of an integer."}},
			Args: []cmdArg{
				{Name: "source", Type: argKey, KeySpec: 0},
				{Name: "destination", Type: argKey, KeySpec: 1},
				{Name: "timeout", Type: argDouble},
			}},
		Fn: cmdBRPopLPush},
	{Name: "blmpop", Arity: -5, Flags: flagWrite | flagBlocking, ACL: catList,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(2), FK: fkKeyNum(0, 1, 1)}},
		Doc: cmdDoc{Summary: "Pop elements from a list, or block until one is available", Since: "7.0.0", Group: "list",
			Complexity: "O(N+M) where N is the number of provided keys and M is the number of elements returned.",
			Args: []cmdArg{
				{Name: "timeout", Type: argDouble},
				{Name: "numkeys", Type: argInteger},
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
				{Name: "where", Type: argOneOf, Args: argsLeftRight},
				{Name: "count", Type: argInteger, Token: "COUNT", Flags: argOptional},
			}},
		Fn: cmdBLMPop},
}

func init() { register(blockingCommands...) }
