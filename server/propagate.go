package server

import (
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// Propagation (Redis's propagate / alsoPropagate): every command that
// changed the keyspace (c.dirty grew while it ran, notify.go) is fed, in the deterministic form Redis 7 writes
// to its AOF and replication stream, to the server's one change stream,
// which hands it to a sink (the AOF log; later, replicas).
//
// Order. Loops run commands at once, and the stream must show two writes
// of one key in the order they ran. A write command therefore runs, while
// a sink is attached, under the stream's order lock (propagator.mu), from
// before its handler to the append of its change to the sink; the blocked
// pops it serves and a transaction's queued commands run inside the same
// hold. Commands that do not write run without it. The lock is also the
// instant a rewrite needs: under it no change is half applied, so a
// store snapshot taken under it and the switch to a new incremental file
// split the stream exactly (aof.go).
//
// The rewrites (propRule), as Redis 7.0 does them:
//
//	EXPIRE, PEXPIRE, EXPIREAT   PEXPIREAT key abs-ms [NX|XX|GT|LT], or DEL key when abs-ms is past
//	SETEX, PSETEX, SET EX|PX|EXAT  SET key value [NX|XX] PXAT abs-ms
//	GETEX EX|PX|EXAT|PXAT|PERSIST  PEXPIREAT key abs-ms (DEL when past), PERSIST key; nothing without an option
//	INCRBYFLOAT key n           SET key result KEEPTTL
//	HINCRBYFLOAT key f n        HSET key f result
//	SPOP key [count]            SREM key member... (what was popped)
//	BLPOP, BRPOP                LPOP key, RPOP key
//	BLMOVE, BRPOPLPUSH          LMOVE src dst from to, RPOPLPUSH src dst
//	LMPOP, BLMPOP               LPOP|RPOP key n (the number popped)
//	BZPOPMIN, BZPOPMAX          ZPOPMIN|ZPOPMAX key
//	ZMPOP, BZMPOP               ZPOPMIN|ZPOPMAX key n
//	SORT ... STORE              as sent; SORT without STORE writes nothing
//	RESTORE key ttl ...         RESTORE key abs-ms ... ABSTTL, or DEL key when abs-ms is past
//	GEOADD key [NX|XX] [CH] lon lat m ...  ZADD key [NX|XX] [CH] hash m ...
//	MULTI ... EXEC              the transaction's changes; wrapped in MULTI/EXEC when there are two or more
//
// SELECT goes before a change whose database is not the stream's. A
// blocked pop served by another client's write is fed, in its
// non-blocking form, right after that write.
type propagator struct {
	on atomic.Bool // a sink is attached; read once per command
	mu sync.Mutex  // the order lock; see above

	// guarded by mu
	sink func(cmds []byte) uint64 // appends cmds, returns their sequence number
	db   int                      // the stream's database; -1: the next change starts with SELECT
	buf  []byte                   // the change being built (a transaction's, inside EXEC)
	txn  bool                     // inside an EXEC that holds mu
	ops  int                      // commands committed to buf since the transaction began
	n    int                      // commands in buf since the last commit (SELECT not counted)
	gen  uint64                   // attach calls so far: a sink's identity (holdWrites)
}

// propRule is how a write command is propagated.
type propRule uint8

const (
	propNone       propRule = iota // not a write: nothing to propagate, no order lock
	propAsIs                       // deterministic: as it came
	propExpire                     // EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT
	propSetEx                      // SETEX, PSETEX
	propSet                        // SET
	propGetEx                      // GETEX
	propIncrFloat                  // INCRBYFLOAT
	propHIncrFloat                 // HINCRBYFLOAT
	propSPop                       // SPOP
	propBPop                       // BLPOP, BRPOP
	propBZPop                      // BZPOPMIN, BZPOPMAX
	propBMove                      // BLMOVE, BRPOPLPUSH
	propMPop                       // LMPOP, BLMPOP
	propZMPop                      // ZMPOP, BZMPOP
	propSort                       // SORT
	propRestore                    // RESTORE
	propGeoAdd                     // GEOADD
	propXAdd                       // XADD
	propXTrim                      // XTRIM
	propExec                       // EXEC: holds the lock; its queued commands propagate
)

// propRules names the write commands that are not propagated as they
// came; every other write-flagged row is propAsIs.
var propRules = map[string]propRule{
	"expire": propExpire, "pexpire": propExpire, "expireat": propExpire, "pexpireat": propExpire,
	"setex": propSetEx, "psetex": propSetEx, "set": propSet, "getex": propGetEx,
	"incrbyfloat": propIncrFloat, "hincrbyfloat": propHIncrFloat, "spop": propSPop,
	"blpop": propBPop, "brpop": propBPop, "bzpopmin": propBZPop, "bzpopmax": propBZPop,
	"blmove": propBMove, "brpoplpush": propBMove, "lmpop": propMPop, "blmpop": propMPop,
	"zmpop": propZMPop, "bzmpop": propZMPop, "sort": propSort, "exec": propExec, "restore": propRestore,
	"geoadd": propGeoAdd, "xadd": propXAdd, "xtrim": propXTrim,
}

// propRuleOf is the rule of a command row (newCmdTable).
func propRuleOf(cmd *command) propRule {
	if r, ok := propRules[cmd.full]; ok {
		return r
	}
	if cmd.Flags&flagWrite != 0 {
		return propAsIs
	}
	return propNone
}

// attach makes the stream feed sink, from a fresh stream (SELECT first).
// The caller holds mu, or no command can run yet.
func (p *propagator) attach(sink func([]byte) uint64) {
	p.sink, p.db = sink, -1
	p.gen++
	p.on.Store(sink != nil)
}

// holdWrites stops every write command until the returned release is
// called, from a goroutine that may wait (not a loop): writes wait on the
// order lock, which they take from before their handler while a sink is
// attached. Without one (appendonly no), one that keeps nothing is
// attached for the hold, as startAOF does; quiesce lets the writes that
// began unordered end first, and while the sink changed meanwhile
// (appendonly toggled) it quiesces again. Reads go on; a loop whose
// command waits blocks until release.
func (s *Server) holdWrites() (release func()) {
	p := &s.prop
	var mine uint64 // p.gen of the sink attached here
	for {
		p.mu.Lock()
		if !p.on.Load() {
			p.attach(s.discardSink)
			mine = p.gen
		}
		gen := p.gen
		p.mu.Unlock()
		s.quiesce() // aof.go
		p.mu.Lock()
		if p.gen == gen {
			break
		}
		p.mu.Unlock()
	}
	return func() {
		if mine != 0 && p.gen == mine {
			p.attach(nil)
		}
		p.mu.Unlock()
	}
}

// discardSink is a sink that keeps nothing: it only makes writes take the
// order lock. Its changes need no fsync. Caller holds mu.
func (s *Server) discardSink([]byte) uint64 { return s.aof.lastSeq }

// restart makes the next change start with SELECT: the sink begins a new
// file. Caller holds mu.
func (p *propagator) restart() { p.db = -1 }

// ordered reports whether cmd must run under the order lock, taking it
// unless a transaction holds it already. It is the one branch a command
// pays while no sink is attached. c.prop remembers the answer for the
// hooks that follow the handler.
func (s *Server) ordered(c *cmdCtx, cmd *command) bool {
	c.propDirty = c.dirty
	if c.cl.execing {
		return c.txnProp // reads too: their expired keys go in the transaction
	}
	if cmd.prop == propNone || !s.prop.on.Load() {
		return false
	}
	s.prop.mu.Lock()
	if !s.prop.on.Load() { // detached meanwhile
		s.prop.mu.Unlock()
		return false
	}
	c.prop = true
	return true
}

// unorder releases what ordered took. owning loop only.
func (s *Server) unorder(c *cmdCtx) {
	if c.prop && !c.cl.execing { // inside EXEC, the EXEC's own call releases it
		c.prop = false
		s.prop.mu.Unlock()
	}
}

// propagateCall feeds the change of cmd, which ran with its reply at
// c.out[mark:], to the stream. Caller holds the order lock.
//
// The keys the store removed by itself meanwhile (c's journal: expired
// during the command, evicted before it) go first, as DEL, as Redis 7.0
// propagates them.
func (s *Server) propagateCall(c *cmdCtx, cmd *command, mark int) {
	if cmd.prop == propExec {
		return // its commands went in the transaction (endTxn)
	}
	p := &s.prop
	p.journal(c, nil)
	// c.dirty counts the command's changes (notify.go): none, nothing to
	// propagate, as Redis's call() decides
	if reply := c.out[mark:]; cmd.prop != propNone && c.dirty > c.propDirty && len(reply) > 0 && reply[0] != '-' {
		p.rewrite(c, cmd, reply)
	}
	c.noteSeq(p.commit())
}

// journal appends DEL for each key c's journal recorded as removed since
// the last call (c.propJ), skipping those exists reports present: see
// afterCommand. Caller holds mu.
func (p *propagator) journal(c *cmdCtx, exists func(db int, key []byte) bool) {
	lj := c.jl
	if lj == nil {
		return
	}
	if c.propJ > lj.j.Entries() {
		c.propJ = 0 // the journal was reset under a stale cursor
	}
	for ; c.propJ < lj.j.Entries(); c.propJ++ {
		db, key, kind := lj.j.Entry(c.propJ)
		if (kind == store.JournalExpired || kind == store.JournalEvicted) && (exists == nil || !exists(db, key)) {
			p.del(db, key)
		}
	}
}

// afterCommand feeds, once a command that ran without the order lock (a
// read) has ended, the keys its lookups expired, while a sink is
// attached. A write on another loop may have created such a key again
// between the expiry and this call, and is in the stream already; its DEL
// is then left out, so that the stream does not delete what the keyspace
// holds. A loader that expires keys as it replays (ours: loadAOF) gets the
// same keyspace either way. owning loop only.
func (s *Server) afterCommand(c *cmdCtx) {
	if c.jl != nil && c.jl.j.Entries() > c.propJ && !c.cl.execing {
		p := &s.prop
		p.mu.Lock()
		if p.on.Load() {
			p.journal(c, s.keyExists(c.now))
			p.commit()
		}
		p.mu.Unlock()
	}
	c.propJ = 0
}

// checkMemoryProp is checkMemoryOn for c's command. While a sink is
// attached and the memory is over maxmemory, the eviction runs under the
// order lock and its DELs go to the stream at once: an evicted key is no
// function of time, so its DEL must not land after a write that made the
// key again.
func (s *Server) checkMemoryProp(c *cmdCtx, cmd *command) string {
	limit := s.cfg.mem.maxMemory.Load()
	if !s.prop.on.Load() || limit <= 0 || s.store.UsedMemory() <= limit {
		return s.checkMemoryOn(c.store, cmd, c.now)
	}
	p := &s.prop
	p.mu.Lock()
	defer p.mu.Unlock()
	msg := s.checkMemoryOn(c.store, cmd, c.now)
	if p.on.Load() {
		p.journal(c, nil)
		p.commit()
	}
	return msg
}

// propagateBackground feeds the keys active expiry or a background
// eviction removed (notify.go inBackground), skipping those present again,
// as afterCommand does.
func (s *Server) propagateBackground(j *store.Journal, now int64) {
	p := &s.prop
	if !p.on.Load() || j.Len() == 0 {
		return
	}
	exists := s.keyExists(now)
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.on.Load() {
		return
	}
	j.Each(func(db int, key []byte, _ bool) {
		if !exists(db, key) {
			p.del(db, key)
		}
	})
	p.commit()
}

// keyExists returns a check of a key's existence at now on the plain
// store (which records nothing in any journal).
func (s *Server) keyExists(now int64) func(db int, key []byte) bool {
	if now == 0 {
		now = nowMs()
	}
	return func(db int, key []byte) bool { return s.store.Exists(db, key, now) }
}

// noteSeq records that the batch's replies depend on change seq.
func (c *cmdCtx) noteSeq(seq uint64) {
	if seq > c.propSeq {
		c.propSeq = seq
	}
}

// commit ends a change: outside a transaction it goes to the sink and its
// sequence number is returned; inside, it waits in buf for EXEC. Caller
// holds mu.
func (p *propagator) commit() uint64 {
	if p.n == 0 {
		if !p.txn {
			p.buf = p.buf[:0] // a SELECT alone
		}
		return 0
	}
	if p.txn {
		p.ops += p.n
		p.n = 0
		return 0
	}
	seq := p.sink(p.buf)
	p.buf, p.n = p.buf[:0], 0
	return seq
}

// beginTxn starts collecting a transaction's changes; EXEC calls it with
// the order lock held (c.prop) or not (no sink). owning loop only.
func (s *Server) beginTxn(c *cmdCtx) {
	c.txnProp = c.prop
	if c.prop {
		s.prop.txn, s.prop.ops = true, 0
	}
}

// endTxn feeds the transaction's changes: alone when there is one, as
// Redis 7.0 does, wrapped in MULTI ... EXEC when there are more.
func (s *Server) endTxn(c *cmdCtx) {
	if !c.txnProp {
		return
	}
	c.txnProp = false
	p := &s.prop
	p.journal(c, nil) // expired by the last of its reads
	p.commit()
	p.txn = false
	if p.ops == 0 {
		p.buf = p.buf[:0]
		return
	}
	if p.ops > 1 {
		p.buf = append(p.buf, multiCmd...) // grows buf; the front moves below
		copy(p.buf[len(multiCmd):], p.buf[:len(p.buf)-len(multiCmd)])
		copy(p.buf, multiCmd)
		p.buf = append(p.buf, execCmd...)
	}
	p.n = p.ops
	c.noteSeq(p.commit())
}

var (
	multiCmd = []byte("*1\r\n$5\r\nMULTI\r\n")
	execCmd  = []byte("*1\r\n$4\r\nEXEC\r\n")
)

// begin starts a command of n arguments in db, after a SELECT if the
// stream is in another database. Caller holds mu.
func (p *propagator) begin(db, n int) {
	if db != p.db {
		p.buf = append(p.buf, "*2\r\n$6\r\nSELECT\r\n"...)
		p.buf = resp.AppendBulkInt(p.buf, int64(db))
		p.db = db
	}
	p.buf = resp.AppendArrayLen(p.buf, n)
	p.n++
}

func (p *propagator) arg(b []byte) { p.buf = resp.AppendBulk(p.buf, b) }
func (p *propagator) str(s string) { p.buf = resp.AppendBulkString(p.buf, s) }
func (p *propagator) num(n int64)  { p.buf = resp.AppendBulkInt(p.buf, n) }

// begin1 appends the arguments a, after a begin that counted them.
func (p *propagator) begin1(a [][]byte) {
	for _, b := range a {
		p.arg(b)
	}
}

// asIs appends args unchanged in db.
func (p *propagator) asIs(db int, a [][]byte) {
	p.begin(db, len(a))
	p.begin1(a)
}

// del appends DEL key in db.
func (p *propagator) del(db int, key []byte) {
	p.begin(db, 2)
	p.str("DEL")
	p.arg(key)
}

// rewrite appends cmd's change in its deterministic form; false when the
// command changed nothing. reply is the command's (not an error).
func (p *propagator) rewrite(c *cmdCtx, cmd *command, reply []byte) bool {
	db, a := c.db(), c.args
	switch cmd.prop {
	case propAsIs:
		p.asIs(db, a)
	case propExpire:
		return p.expire(c, reply)
	case propSetEx:
		at, _ := expireMillisOf(c, a[2], setExUnit(a[0]))
		p.setPXAT(db, a[1], a[3], nil, at)
	case propSet:
		p.set(c)
	case propGetEx:
		return p.getex(c, reply)
	case propIncrFloat:
		return p.result(db, "SET", a[1:2], reply, "KEEPTTL")
	case propHIncrFloat:
		return p.result(db, "HSET", a[1:3], reply, "")
	case propSPop:
		return p.srem(db, a[1], reply)
	case propRestore:
		p.restore(c)
	case propGeoAdd:
		return p.geoadd(c)
	case propXAdd:
		return p.xadd(c, reply)
	case propXTrim:
		return p.xtrim(c)
	case propSort:
		for _, x := range a[2:] {
			if optIs(x, "store") {
				p.asIs(db, a)
				return true
			}
		}
		return false
	default: // the pops
		return p.pop(c, cmd.prop, reply)
	}
	return true
}

// result appends name, the arguments a, the bulk string reply holds and
// tail if not empty: INCRBYFLOAT and HINCRBYFLOAT as the SET or HSET of
// their result.
func (p *propagator) result(db int, name string, a [][]byte, reply []byte, tail string) bool {
	v, ok := replyBulk(reply)
	if !ok {
		return false
	}
	n := 2 + len(a)
	if tail != "" {
		n++
	}
	p.begin(db, n)
	p.str(name)
	p.begin1(a)
	p.arg(v)
	if tail != "" {
		p.str(tail)
	}
	return true
}

// restore is RESTORE key ttl payload [REPLACE] [ABSTTL] [IDLETIME s] [FREQ f]
// with a relative TTL made absolute, as Redis's restoreCommand propagates it.
func (p *propagator) restore(c *cmdCtx) {
	a := c.args
	ttl, _ := store.ParseInt(a[2])
	abs := false
	for _, x := range a[4:] {
		abs = abs || optIs(x, "absttl")
	}
	if ttl == 0 || abs {
		if ttl != 0 && ttl <= c.now {
			p.del(c.db(), a[1])
			return
		}
		p.asIs(c.db(), a)
		return
	}
	p.begin(c.db(), len(a)+1)
	p.begin1(a[:2])
	p.num(ttl + c.now)
	p.begin1(a[3:])
	p.str("ABSTTL")
}

// setExUnit is SETEX's seconds or PSETEX's milliseconds.
func setExUnit(name []byte) int {
	if name[0]|0x20 == 'p' {
		return optPX
	}
	return optEX
}

// expire is EXPIRE and its kin: PEXPIREAT key ms [cond], or DEL when the
// time has passed (the key is gone, Redis's checkAlreadyExpired).
func (p *propagator) expire(c *cmdCtx, reply []byte) bool {
	if string(reply) != ":1\r\n" {
		return false
	}
	a := c.args
	when, _ := store.ParseInt(a[2])
	name := a[0]
	if name[len(name)-1]|0x20 != 't' { // EXPIRE, PEXPIRE: relative
		if name[0]|0x20 == 'p' {
			when += c.now
		} else {
			when = when*1000 + c.now
		}
	} else if name[0]|0x20 != 'p' { // EXPIREAT
		when *= 1000
	}
	if when <= c.now {
		p.del(c.db(), a[1])
		return true
	}
	p.begin(c.db(), len(a))
	p.str("PEXPIREAT")
	p.arg(a[1])
	p.num(when)
	p.begin1(a[3:])
	return true
}

// set is SET: as it came, or with its expire as PXAT (GET dropped).
func (p *propagator) set(c *cmdCtx) {
	a := c.args
	var mode []byte
	var exp []byte
	var flags int
	for j := 3; j < len(a); j++ {
		switch x := a[j]; {
		case optIs(x, "nx"), optIs(x, "xx"):
			mode = x
		case j+1 < len(a) && expireOpt(x, 0) != 0:
			flags, exp = expireOpt(x, 0), a[j+1]
			j++
		}
	}
	if exp == nil || flags == optPXAT {
		p.asIs(c.db(), a)
		return
	}
	at, _ := expireMillisOf(c, exp, flags)
	p.setPXAT(c.db(), a[1], a[2], mode, at)
}

// setPXAT appends SET key val [mode] PXAT at.
func (p *propagator) setPXAT(db int, key, val, mode []byte, at int64) {
	n := 5
	if mode != nil {
		n++
	}
	p.begin(db, n)
	p.str("SET")
	p.arg(key)
	p.arg(val)
	if mode != nil {
		p.arg(mode)
	}
	p.str("PXAT")
	p.num(at)
}

// getex is GETEX: PEXPIREAT, DEL or PERSIST as its option says.
func (p *propagator) getex(c *cmdCtx, reply []byte) bool {
	if _, ok := replyBulk(reply); !ok {
		return false // no such key
	}
	a := c.args
	for j := 2; j < len(a); j++ {
		if optIs(a[j], "persist") {
			p.begin(c.db(), 2)
			p.str("PERSIST")
			p.arg(a[1])
			return true
		}
		if f := expireOpt(a[j], 0); f != 0 && j+1 < len(a) {
			at, _ := expireMillisOf(c, a[j+1], f)
			if at <= c.now {
				p.del(c.db(), a[1])
				return true
			}
			p.begin(c.db(), 3)
			p.str("PEXPIREAT")
			p.arg(a[1])
			p.num(at)
			return true
		}
	}
	return false
}

// sremBatch is how many members one SREM of a propagated SPOP carries, as
// Redis's spopWithCountCommand batches them.
const sremBatch = 1024

// srem is SPOP's change: SREM key with the members reply holds (a bulk,
// or an array or set of them).
func (p *propagator) srem(db int, key, reply []byte) bool {
	r := replyReader{b: reply}
	typ, n := r.head()
	switch typ {
	case '$':
		if n < 0 {
			return false
		}
		r = replyReader{b: reply}
		p.begin(db, 3)
		p.str("SREM")
		p.arg(key)
		p.arg(r.bulk())
		return true
	case '*', '~':
		if n <= 0 {
			return false
		}
		for done := 0; done < n; {
			k := min(n-done, sremBatch)
			p.begin(db, 2+k)
			p.str("SREM")
			p.arg(key)
			for range k {
				p.arg(r.bulk())
			}
			done += k
		}
		return true
	}
	return false
}

// pop is the change of a pop served at once (the blocking ones and
// LMPOP/ZMPOP), read from its reply.
func (p *propagator) pop(c *cmdCtx, rule propRule, reply []byte) bool {
	a := c.args
	switch rule {
	case propBMove:
		if reply[0] != '$' || string(reply[:3]) == "$-1" {
			return false
		}
		if len(a) == 4 { // BRPOPLPUSH src dst timeout
			p.popMove(c.db(), a[1], a[2], store.ListTail, store.ListHead)
			return true
		}
		from, _ := listEndOf(a[3])
		to, _ := listEndOf(a[4])
		p.popMove(c.db(), a[1], a[2], from, to)
		return true
	case propBPop, propBZPop:
		end := store.ListHead
		if a[0][len(a[0])-1]|0x20 == 'x' || a[0][1]|0x20 == 'r' { // BZPOPMAX, BRPOP
			end = store.ListTail
		}
		return p.popReply(c.db(), rule, end, reply)
	case propMPop, propZMPop:
		at := 1 // LMPOP numkeys ...; ZMPOP numkeys ...
		if a[0][0]|0x20 == 'b' {
			at = 2 // BLMPOP timeout numkeys ...
		}
		nk, _ := strconv.Atoi(string(a[at]))
		end := store.ListHead
		if x := a[at+1+nk]; optIs(x, "right") || optIs(x, "max") {
			end = store.ListTail
		}
		return p.popReply(c.db(), rule, end, reply)
	}
	return false
}

// popReply appends the non-blocking pop that reply (a served pop's, see
// pop and served) shows: [key, element] (BLPOP), [key, member, score]
// (BZPOPMIN), [key, [elements or pairs]] (LMPOP, ZMPOP). It reports false
// for a null reply.
func (p *propagator) popReply(db int, rule propRule, end store.ListEnd, reply []byte) bool {
	r := replyReader{b: reply}
	if typ, n := r.head(); typ != '*' || n < 2 {
		return false
	}
	key := r.bulk()
	count := int64(1)
	if rule == propMPop || rule == propZMPop {
		_, n := r.head()
		count = int64(n)
	}
	list := rule == propBPop || rule == propMPop
	var name string
	switch {
	case list && end == store.ListHead:
		name = "LPOP"
	case list:
		name = "RPOP"
	case end == store.ListHead:
		name = "ZPOPMIN"
	default:
		name = "ZPOPMAX"
	}
	if rule == propBPop || rule == propBZPop {
		p.begin(db, 2)
		p.str(name)
		p.arg(key)
		return true
	}
	p.begin(db, 3)
	p.str(name)
	p.arg(key)
	p.num(count)
	return true
}

// popMove appends LMOVE src dst from to.
func (p *propagator) popMove(db int, src, dst []byte, from, to store.ListEnd) {
	p.begin(db, 5)
	p.str("LMOVE")
	p.arg(src)
	p.arg(dst)
	p.str(endName(from))
	p.str(endName(to))
}

func endName(e store.ListEnd) string {
	if e == store.ListHead {
		return "LEFT"
	}
	return "RIGHT"
}

// listEndOf parses LEFT or RIGHT.
func listEndOf(b []byte) (store.ListEnd, bool) {
	switch {
	case optIs(b, "left"):
		return store.ListHead, true
	case optIs(b, "right"):
		return store.ListTail, true
	}
	return 0, false
}

// served feeds the pop a blocked client w just got from key (serveKey),
// right after the write that served it, and returns its sequence number.
// Caller holds the order lock (c.prop or inside an ordered EXEC's end).
func (s *Server) served(w *waiter, key []byte) uint64 {
	p := &s.prop
	switch {
	case w.dst != nil:
		p.popMove(w.db, key, w.dst, w.end, w.to)
	case !p.popReply(w.db, w.rule, w.end, w.reply):
		return 0
	}
	return p.commit()
}
