package server

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/loopkv/loopkv/store"
)

// Transactions (Redis multi.c). MULTI starts queueing: every command but
// EXEC, DISCARD, MULTI, WATCH, QUIT and RESET is checked (lookup, arity,
// authentication, ACL, memory, as call does) and, when it passes, copied
// into the client's queue and answered +QUEUED; when it fails, the error is
// the reply and EXEC will answer EXECABORT.
//
// EXEC is atomic across loops: it collects the keys of every queued
// command with their key specs (commandKeys), takes the shard locks of all
// of them at once (store.Lock; every shard when a queued command walks the
// keyspace, or touches it without key specs), and runs the queued commands
// through call on that view, so that no other client on any loop sees the
// store between two of them. Waiters of the keys the transaction wrote are
// served after the locks are released.
//
// WATCH registers the client in the server's watch table by key. A write
// command marks the watchers of the keys it writes dirty before it writes
// them (so that an EXEC which takes the locks after the write always sees
// the mark); when nobody watches this costs one atomic load per write
// command. A watched key whose TTL passes aborts EXEC, as Redis 7.0's
// isWatchedKeyExpired: WATCH records the key's deadline. Any eviction
// since the first WATCH aborts EXEC too (conservative: Redis aborts only
// when a watched key was the one evicted). Marks are conservative in one
// more way: a write command marks its keys whether or not it changed them
// (Redis marks only on a change).

// multiState is a client's open transaction. It comes from multiPool and
// goes back after EXEC or DISCARD, so that a client outside MULTI keeps no
// buffer and a transaction in steady state allocates little of its own.
type multiState struct {
	cmds    []queuedCmd
	arena   []byte   // the queued commands' arguments, copied end to end
	argv    [][]byte // each argument, a slice of arena (see queue)
	keys    [][]byte // EXEC: the keys to lock
	written []writtenKey
	view    store.LockedView // EXEC's locked view of the store, reused
	stats   []txnStat        // EXEC: its commands' durations, not yet in the loop's counters
	aborted bool             // a command failed while queueing: EXEC answers EXECABORT
	execCmd *command         // EXEC's row while it runs: CLIENT LIST's cmd= (publishSelf)
}

// txnStat is n calls of one command, of ns nanoseconds in all, that fell
// in histogram bucket bucket.
type txnStat struct {
	cs     *cmdStats
	bucket int
	ns, n  int64
}

// txnStatsMax bounds the entries EXEC gathers; past them a command's
// statistics go to the counters at once.
const txnStatsMax = 16

// addStats counts a call of d nanoseconds for EXEC to add up at its end:
// one atomic add per command and bucket instead of two per call (endCall).
func (m *multiState) addStats(cs *cmdStats, d int64) {
	b := histIndex(d)
	for i := range m.stats {
		if t := &m.stats[i]; t.cs == cs && t.bucket == b {
			t.ns += d
			t.n++
			return
		}
	}
	if len(m.stats) == txnStatsMax {
		cs.ns.Add(d)
		cs.hist[b].Add(1)
		return
	}
	m.stats = append(m.stats, txnStat{cs: cs, bucket: b, ns: d, n: 1})
}

// flushStats adds the gathered statistics to the loop's counters.
func (m *multiState) flushStats() {
	for i := range m.stats {
		t := &m.stats[i]
		t.cs.ns.Add(t.ns)
		t.cs.hist[t.bucket].Add(t.n)
	}
	clear(m.stats)
	m.stats = m.stats[:0]
}

// queuedCmd is one queued command: its row and its arguments, argv[first:first+argc].
type queuedCmd struct {
	cmd         *command
	first, argc int
}

var multiPool = sync.Pool{New: func() any { return new(multiState) }}

// multiKeep bounds the arena a pooled multiState keeps.
const multiKeep = 64 << 10

func newMulti() *multiState { return multiPool.Get().(*multiState) }

// release returns m to the pool, dropping what a huge transaction grew.
func (m *multiState) release() {
	if cap(m.arena) > multiKeep || len(m.cmds) > 1024 {
		return
	}
	clear(m.cmds)
	clear(m.argv)
	clear(m.keys)
	clear(m.written)
	m.cmds, m.arena, m.argv, m.keys, m.written = m.cmds[:0], m.arena[:0], m.argv[:0], m.keys[:0], m.written[:0]
	m.aborted, m.execCmd = false, nil
	multiPool.Put(m)
}

// watchState is a client's watched keys; nil when it watches none.
type watchState struct {
	dirty atomic.Bool // a watched key was changed (set by any loop)
	// writes of watched keys in flight: marked before the write, settled
	// after it (touchWatched, settleWatched); EXEC aborts while one is
	pending atomic.Int32
	keys    []watchedKey
}

type watchedKey struct {
	db       int
	key      string
	deadline int64 // Unix ms the key expires at when WATCH ran; 0 without a TTL
}

// watchTable is the server's watchers by key, in any database.
type watchTable struct {
	mu   sync.Mutex
	keys map[string][]watchRef
	n    atomic.Int64 // (client, key) pairs watched
}

type watchRef struct {
	db int
	w  *watchState
}

// txnControl reports whether cmd runs at once inside MULTI instead of
// being queued.
func txnControl(cmd *command) bool {
	switch cmd.Name {
	case "exec", "discard", "multi", "watch", "quit", "reset":
		return cmd.parent == nil
	}
	return false
}

// queue copies a command into the open transaction: its arguments go to
// the end of arena, and argv takes a slice of each at once. When arena
// grows, the slices taken before keep pointing into its earlier array,
// which holds the same bytes and is never written again, so no second
// pass is needed to point them into the final one.
func (m *multiState) queue(cmd *command, args [][]byte) {
	m.cmds = append(m.cmds, queuedCmd{cmd: cmd, first: len(m.argv), argc: len(args)})
	for _, a := range args {
		n := len(m.arena)
		m.arena = append(m.arena, a...)
		m.argv = append(m.argv, m.arena[n:len(m.arena):len(m.arena)])
	}
}

// args is q's arguments, capped so that nothing appended to them reaches
// the next command's.
func (m *multiState) args(q *queuedCmd) [][]byte {
	end := q.first + q.argc
	return m.argv[q.first:end:end]
}

// rejectQueued answers a command refused by call; inside MULTI it aborts
// the transaction, and a refused EXEC discards it, as Redis's
// rejectCommand does.
func (c *cmdCtx) rejectQueued(cmd *command, msg string) {
	cl := c.cl
	if cl.execing {
		c.srv.rejectCall(c, cmd, msg) // stats.go
		return
	}
	if cmd != nil && cmd.Name == "exec" && cmd.parent == nil {
		// a refused EXEC answers EXECABORT, in MULTI or not, as Redis
		c.srv.endMulti(cl)
		c.srv.rejectCall(c, cmd, "EXECABORT Transaction discarded because of: "+strings.TrimPrefix(msg, "ERR "))
		return
	}
	if cl.multi == nil {
		c.srv.rejectCall(c, cmd, msg)
		return
	}
	cl.multi.aborted = true
	c.srv.rejectCall(c, cmd, msg)
}

// endMulti discards the client's transaction and watches.
func (s *Server) endMulti(cl *client) {
	if cl.multi != nil {
		cl.multi.release()
	}
	cl.multi = nil
	if cl.conn != nil {
		cl.conn.shared.multi.Store(-1)
	}
	s.unwatchAll(cl)
}

func cmdMulti(c *cmdCtx) {
	cl := c.cl
	if cl.multi != nil {
		c.errReply("ERR MULTI calls can not be nested")
		return
	}
	cl.multi = newMulti()
	if cl.conn != nil {
		cl.conn.shared.multi.Store(0)
	}
	c.ok()
}

func cmdDiscard(c *cmdCtx) {
	if c.cl.multi == nil {
		c.errReply("ERR DISCARD without MULTI")
		return
	}
	c.srv.endMulti(c.cl)
	c.ok()
}

func cmdWatch(c *cmdCtx) {
	cl := c.cl
	if cl.multi != nil {
		c.errReply("ERR WATCH inside MULTI is not allowed")
		return
	}
	s := c.srv
	if cl.watch == nil {
		cl.watch = &watchState{}
	}
	ws := cl.watch
	wt := &s.watches
	for _, k := range c.args[1:] {
		if ws.has(c.db(), k) {
			continue
		}
		deadline := c.store.ExpireAt(c.db(), k, c.now)
		if deadline < 0 {
			deadline = 0
		}
		key := string(k)
		ws.keys = append(ws.keys, watchedKey{db: c.db(), key: key, deadline: deadline})
		wt.mu.Lock()
		if wt.keys == nil {
			wt.keys = make(map[string][]watchRef)
		}
		wt.keys[key] = append(wt.keys[key], watchRef{db: c.db(), w: ws})
		wt.n.Add(1)
		wt.mu.Unlock()
	}
	c.ok()
}

func (ws *watchState) has(db int, k []byte) bool {
	for _, w := range ws.keys {
		if w.db == db && w.key == string(k) {
			return true
		}
	}
	return false
}

func cmdUnwatch(c *cmdCtx) {
	c.srv.unwatchAll(c.cl)
	c.ok()
}

// unwatchAll takes the client's keys out of the watch table.
func (s *Server) unwatchAll(cl *client) {
	ws := cl.watch
	if ws == nil {
		return
	}
	cl.watch = nil
	wt := &s.watches
	wt.mu.Lock()
	for _, k := range ws.keys {
		refs := wt.keys[k.key]
		for i, r := range refs {
			if r.w == ws && r.db == k.db {
				refs = append(refs[:i], refs[i+1:]...)
				break
			}
		}
		if len(refs) == 0 {
			delete(wt.keys, k.key)
		} else {
			wt.keys[k.key] = refs
		}
		wt.n.Add(-1)
	}
	wt.mu.Unlock()
}

// touchWatched marks the watchers of the keys cmd is about to write
// pending, before the write, so that an EXEC locking after the write sees
// the mark; settleWatched then makes them dirty if the command changed
// the keyspace, as Redis's signalModifiedKey touches watchers only on a
// change (a DEL of a missing key, a SET NX that did not set, an LPUSHX of
// a missing list abort nothing). A write without key specs marks every
// watcher, except FLUSHDB, FLUSHALL and SWAPDB, which mark the watchers
// of keys that exist in the databases they empty or swap (Redis's
// touchAllWatchedKeysInDb); MOVE and COPY mark their keys' watchers in
// every database. The watchers marked are in c.touched.
func (s *Server) touchWatched(c *cmdCtx, cmd *command) {
	wt := &s.watches
	var buf [8]keyRef
	refs, ok := commandKeys(cmd, c.args, buf[:], keysPartial)
	if !ok || len(cmd.Keys) == 0 {
		s.touchKeyless(c, cmd)
		return
	}
	if cmd.Name == "del" || cmd.Name == "unlink" {
		s.touchDeleted(c, refs)
		return
	}
	anyDB := cmd.Name == "move" || cmd.Name == "copy"
	wt.mu.Lock()
	defer wt.mu.Unlock()
	for _, ref := range refs {
		if ref.Flags&keyRO != 0 && ref.Flags&(keyRW|keyOW|keyRM) == 0 {
			continue
		}
		for _, r := range wt.keys[string(c.args[ref.Pos])] {
			if anyDB || r.db == c.db() {
				c.markWatcher(r.w)
			}
		}
	}
}

// markWatcher marks w pending for the running command.
func (c *cmdCtx) markWatcher(w *watchState) {
	w.pending.Add(1)
	c.touched = append(c.touched, w)
}

// settleWatched settles what touchWatched marked: dirty if the command
// changed the keyspace, then no longer pending (in that order, so that an
// EXEC never sees a changed key as neither).
func (c *cmdCtx) settleWatched(changed bool) {
	for i, w := range c.touched {
		if changed {
			w.dirty.Store(true)
		}
		w.pending.Add(-1)
		c.touched[i] = nil
	}
	c.touched = c.touched[:0]
}

// touchServed marks the watchers of key and, for a BLMOVE, dst (nil
// otherwise) in db pending before a served waiter's pop writes them, as
// touchWatched does before a command's write; settleServed settles them.
// The waiter's own command settled clean when it blocked, having changed
// nothing, so a blocked write that times out or is unblocked leaves its
// keys' watchers alone, as in Redis, and the pop that serves it is what
// touches them. Runs under the blocking table's lock (blocking.go), which
// the watch table's is taken inside of and never around. It returns
// where its marks start in c.touched.
func (s *Server) touchServed(c *cmdCtx, db int, key, dst []byte) int {
	start := len(c.touched)
	if s.watches.n.Load() == 0 {
		return start
	}
	wt := &s.watches
	wt.mu.Lock()
	for _, r := range wt.keys[string(key)] {
		if r.db == db {
			c.markWatcher(r.w)
		}
	}
	if dst != nil {
		for _, r := range wt.keys[string(dst)] {
			if r.db == db {
				c.markWatcher(r.w)
			}
		}
	}
	wt.mu.Unlock()
	return start
}

// settleServed settles the marks touchServed made from start: dirty when
// the pop served the waiter, then no longer pending.
func (c *cmdCtx) settleServed(start int, served bool) {
	for i := start; i < len(c.touched); i++ {
		if served {
			c.touched[i].dirty.Store(true)
		}
		c.touched[i].pending.Add(-1)
		c.touched[i] = nil
	}
	c.touched = c.touched[:start]
}

// touchKeyless marks the watchers a write without key specs touches.
func (s *Server) touchKeyless(c *cmdCtx, cmd *command) {
	exists := func(db int, key string) bool { return false }
	switch cmd.Name {
	case "flushdb", "flushall", "swapdb":
		exists = func(db int, key string) bool { return c.store.Exists(db, []byte(key), c.now) }
	}
	var dbs [2]int
	switch cmd.Name {
	case "flushdb":
		dbs[0], dbs[1] = c.db(), -1
	case "swapdb":
		a, errA := strconv.Atoi(string(c.args[1]))
		b, errB := strconv.Atoi(string(c.args[2]))
		if errA != nil || errB != nil || a < 0 || b < 0 || a >= c.srv.store.Databases() || b >= c.srv.store.Databases() {
			return // refused: touches nothing
		}
		dbs[0], dbs[1] = a, b
	}
	// the candidates under the table's lock, the store after it (the
	// store's locks come first where both are held: evictions)
	type cand struct {
		w   *watchState
		db  int
		key string
	}
	var cbuf [8]cand
	cands := cbuf[:0]
	wt := &s.watches
	wt.mu.Lock()
	for key, rs := range wt.keys {
		for _, r := range rs {
			cands = append(cands, cand{r.w, r.db, key})
		}
	}
	wt.mu.Unlock()
	for _, cd := range cands {
		touch := false
		switch cmd.Name {
		case "flushall":
			touch = exists(cd.db, cd.key)
		case "flushdb":
			touch = cd.db == dbs[0] && exists(cd.db, cd.key)
		case "swapdb":
			// a key of either database is touched if it exists in it or
			// in the one swapped in
			if cd.db == dbs[0] || cd.db == dbs[1] {
				touch = exists(dbs[0], cd.key) || exists(dbs[1], cd.key)
			}
		default:
			touch = true
		}
		if touch {
			c.markWatcher(cd.w)
		}
	}
}

// touchDeleted is touchWatched for DEL and UNLINK, which change only the
// keys they find: Redis signals a key's watchers only when it deletes it,
// so a WATCH of a missing key survives a DEL that names it beside one that
// exists. The watched candidates are taken under the table's lock and
// looked up after it, as touchKeyless does (the store's locks come first).
// An expired key does not exist here; EXEC aborts on its own for a
// watched key whose deadline has passed (watchBroken).
func (s *Server) touchDeleted(c *cmdCtx, refs []keyRef) {
	type cand struct {
		w   *watchState
		key []byte
	}
	var cbuf [8]cand
	cands := cbuf[:0]
	wt := &s.watches
	wt.mu.Lock()
	for _, ref := range refs {
		for _, r := range wt.keys[string(c.args[ref.Pos])] {
			if r.db == c.db() {
				cands = append(cands, cand{r.w, c.args[ref.Pos]})
			}
		}
	}
	wt.mu.Unlock()
	for _, cd := range cands {
		if c.store.Exists(c.db(), cd.key, c.now) {
			c.markWatcher(cd.w)
		}
	}
}

// touchEvicted marks the watchers of an evicted key dirty: Evict deleted
// it (a journal's OnRecord, under the key's shard lock).
func (s *Server) touchEvicted(db int, key []byte) {
	if s.watches.n.Load() == 0 {
		return
	}
	wt := &s.watches
	wt.mu.Lock()
	for _, r := range wt.keys[string(key)] {
		if r.db == db {
			r.w.dirty.Store(true)
		}
	}
	wt.mu.Unlock()
}

// watchBroken reports whether EXEC must abort: a watched key was changed,
// is being written, or expired since WATCH (Redis 7.0). Run under the
// transaction's locks.
func (s *Server) watchBroken(cl *client, now int64) bool {
	ws := cl.watch
	if ws == nil {
		return false
	}
	if ws.dirty.Load() || ws.pending.Load() > 0 {
		return true
	}
	for _, k := range ws.keys {
		if k.deadline > 0 && now >= k.deadline {
			return true
		}
	}
	return false
}

// lockSet returns the keys the queued commands touch, and whether the
// transaction must lock every shard instead.
func (m *multiState) lockSet() (keys [][]byte, all bool) {
	var buf [8]keyRef
	keys = m.keys[:0]
	defer func() { m.keys = keys }()
	for i := range m.cmds {
		q := &m.cmds[i]
		cmd := q.cmd
		if len(cmd.Keys) == 0 {
			if cmd.ACL&(catConnection|catTransaction) != 0 && cmd.Flags&(flagWrite|flagReadOnly) == 0 {
				continue // PING, ECHO, SELECT, CLIENT ...: no keyspace
			}
			return nil, true
		}
		for i := range cmd.Keys {
			if cmd.Keys[i].BS.Kind == bsUnknown {
				return nil, true // SORT's BY, GET and STORE keys: anywhere
			}
		}
		args := m.args(q)
		refs, ok := commandKeys(cmd, args, buf[:], keysPartial)
		if !ok {
			return nil, true
		}
		for _, r := range refs {
			keys = append(keys, args[r.Pos]) // m.keys, reused
		}
	}
	return keys, false
}

// writtenKey is a key a transaction wrote, for serving waiters after it.
type writtenKey struct {
	db  int
	key []byte
}

func cmdExec(c *cmdCtx) {
	cl := c.cl
	s := c.srv
	m := cl.multi
	if m == nil {
		c.errReply("ERR EXEC without MULTI")
		return
	}
	if m.aborted {
		s.endMulti(cl)
		c.errReply("EXECABORT Transaction discarded because of previous errors.")
		return
	}
	cl.multi = nil
	if cl.conn != nil {
		// while EXEC runs, CLIENT LIST shows the client in MULTI with its
		// queued count, and cmd=exec, as Redis's does
		cl.conn.shared.multi.Store(int32(len(m.cmds)))
		defer cl.conn.shared.multi.Store(-1)
	}
	self := cl.lastCmd // call set it to EXEC's row; the queued commands' calls change it
	m.execCmd = self
	defer func() { cl.lastCmd = self }()
	defer m.release()
	keys, all := m.lockSet()
	view := c.store.LockInto(&m.view, keys, all) // journaled: lazy expiry inside EXEC is recorded (notify.go)
	if s.watchBroken(cl, c.now) {
		view.Unlock()
		s.unwatchAll(cl)
		c.nullArray()
		return
	}
	s.unwatchAll(cl)
	args, st := c.args, c.store
	c.store, cl.execing, cl.written = view, true, m.written[:0]
	c.arrayLen(len(m.cmds))
	s.beginTxn(c) // propagate.go
	c.txn = m
	for i := range m.cmds {
		q := &m.cmds[i]
		if len(q.cmd.Keys) == 0 {
			m.flushStats() // INFO, LATENCY, CONFIG RESETSTAT ... see the counters as they are
		}
		c.args = m.args(q)
		s.callAs(c, nil, q.cmd)
		if cl.reply != 0 {
			c.settleReplies(false) // reply_mode.go: a queued CLIENT REPLY takes effect inside EXEC, as in Redis
		}
	}
	c.txn = nil
	m.flushStats()
	s.endTxn(c)
	c.args, c.store, cl.execing = args, st, false
	view.Unlock()
	if len(cl.written) > 0 {
		for _, w := range cl.written {
			if s.blocked.n.Load() == 0 {
				break
			}
			s.serveKey(c, w.db, w.key)
		}
	}
	m.written, cl.written = cl.written, nil
}

// noteWritten records, inside EXEC, the keys cmd wrote, for serveBlocked
// to serve once the transaction's locks are released.
func (c *cmdCtx) noteWritten(cmd *command) {
	var buf [8]keyRef
	refs, ok := commandKeys(cmd, c.args, buf[:], keysPartial)
	if !ok {
		return
	}
	for _, r := range refs {
		if r.Flags&keyRO != 0 && r.Flags&(keyRW|keyOW|keyRM) == 0 {
			continue
		}
		c.cl.written = append(c.cl.written, writtenKey{db: c.db(), key: c.args[r.Pos]})
	}
	c.cl.written = append(c.cl.written, c.srv.otherDBKeys(c, cmd)...) // blocking.go: MOVE, COPY ... DB, SWAPDB
}

var multiCommands = []command{
	{Name: "multi", Arity: 1, Flags: flagNoScript | flagLoading | flagStale | flagFast | flagAllowBusy, ACL: catTransaction,
		Doc: cmdDoc{Summary: "Mark the start of a transaction block", Since: "1.2.0", Group: "transactions",
			Complexity: "O(1)"},
		ClockFree: true, Fn: cmdMulti},
	{Name: "exec", Arity: 1, Flags: flagNoScript | flagLoading | flagStale | flagSkipSlowlog, ACL: catTransaction,
		Doc: cmdDoc{Summary: "Execute all commands issued after MULTI", Since: "1.2.0", Group: "transactions",
			Complexity: "Depends on commands in the transaction"},
		Fn: cmdExec},
	{Name: "discard", Arity: 1, Flags: flagNoScript | flagLoading | flagStale | flagFast | flagAllowBusy, ACL: catTransaction,
		Doc: cmdDoc{Summary: "Discard all commands issued after MULTI", Since: "2.0.0", Group: "transactions",
			Complexity: "O(N), when N is the number of queued commands"},
		ClockFree: true, Fn: cmdDiscard},
	{Name: "watch", Arity: -2, Flags: flagNoScript | flagLoading | flagStale | flagFast | flagAllowBusy, ACL: catTransaction,
		Keys: []keySpec{{Flags: keyRO, BS: bsIndex(1), FK: fkRange(-1, 1, 0)}},
		Doc: cmdDoc{Summary: "Watch the given keys to determine execution of the MULTI/EXEC block", Since: "2.2.0", Group: "transactions",
			Complexity: "O(1) for every key.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
			}},
		Fn: cmdWatch},
	{Name: "unwatch", Arity: 1, Flags: flagNoScript | flagLoading | flagStale | flagFast | flagAllowBusy, ACL: catTransaction,
		Doc: cmdDoc{Summary: "Forget about all watched keys", Since: "2.2.0", Group: "transactions",
			Complexity: "O(1)"},
		ClockFree: true, Fn: cmdUnwatch},
}

func init() { register(multiCommands...) }
