package server

import (
	"errors"

	"github.com/loopkv/loopkv/resp"
)

// client is one connection's protocol state. It holds no buffer while the
// connection is idle. owning loop only.
type client struct {
	id      uint64
	db      int
	proto   int          // 2 or 3
	parser  *resp.Parser // nil between commands: borrowed from ctx for a batch (lendParser)
	name    string
	user    *aclUser     // the authenticated user; nil is the default user
	conn    *connState   // nil for a bare client in tests
	lastCmd *command     // the last command run, for CLIENT LIST cmd=
	ncmds   int64        // commands run, for total_commands_processed
	ctx     *cmdCtx      // the loop's (loopState.ctx), reused by execute; a bare client's own
	blocked *waiter      // a blocking pop waiting for its keys (blocking.go); nil when not blocked
	monitor *monitorFeed // set by MONITOR (monitor.go)
	multi   *multiState  // the open transaction (multi.go); nil outside MULTI
	watch   *watchState  // the watched keys (multi.go); nil when none
	sub     *subState    // the subscriptions (pubsub.go); nil when none
	track   *trackState  // client-side caching (tracking.go); nil when off
	written []writtenKey // inside EXEC: keys written, whose waiters are served after it
	authed  bool
	quit    bool  // close once the pending replies are written
	tight   bool  // the parser has the unauthenticated limits
	execing bool  // EXEC is running the queued commands
	reply   uint8 // CLIENT REPLY's mode bits (reply_mode.go); 0: every reply is sent
	// a protocol error while CLIENT REPLY OFF: nothing more runs, and the
	// connection stays open (stallMuted)
	stalled bool
	// held by CLIENT PAUSE (pause.go): listed in the server's held
	// connections while pauseGen is the pause's generation
	pauseHeld bool
	pauseGen  uint64
	// batches prefetchAhead leaves alone: the client's last looked at
	// repeated one key (prefetch.go)
	prefetchSkip uint8
}

// execute runs every complete command at the front of in, appending the
// replies to out. It returns how many bytes of in it consumed, the extended
// out, and whether the connection must close once out is written (QUIT, a
// protocol error). It stops early, leaving commands in in, once out passes
// batchOutLimit. now is the batch's time in Unix milliseconds, or 0 to read
// the clock lazily at the first command that needs it (call); cl.ctx.now
// holds what was used when execute returns. owning loop only.
func (s *Server) execute(cl *client, in []byte, out []byte, now int64, scratch []byte) (int, []byte, bool) {
	s.lazy()
	ctx := cl.ctx
	if ctx == nil { // a client without a loop (tests): its own, once
		ctx = new(cmdCtx)
		cl.ctx = ctx
	}
	ctx.srv, ctx.cl, ctx.out, ctx.now, ctx.mono = s, cl, out, now, 0
	ctx.store, ctx.jl = s.loopStore(cl) // notify.go
	if cl.reply != 0 {
		ctx.beginMuted() // reply_mode.go
	}
	if cl.parser == nil {
		cl.parser = ctx.lendParser()
		cl.parser.Limits.MaxArgs = 0 // setAuthLimits below while unauthenticated
	}
	if !cl.tight {
		cl.parser.Limits.MaxBulk = s.cfg.protoMaxBulk.Load() // CONFIG SET applies at once
	}
	consumed, closeAfter := 0, false
	ahead := 0 // commands the last prefetchAhead looked at, still to run
	for consumed < len(in) && !cl.quit && !cl.stalled && cl.blocked == nil && len(ctx.out) < batchOutLimit {
		if !cl.authed || cl.tight {
			s.setAuthLimits(cl)
		}
		if ahead == 0 {
			ahead = max(1, ctx.prefetchAhead(in[consumed:])) // prefetch.go
		}
		args, n, err := cl.parser.Next(in[consumed:])
		if err != nil {
			if cl.reply&replyMuted != 0 {
				stallMuted(cl) // reply_mode.go
				break
			}
			ctx.errReply("ERR " + s.protocolErrorText(cl, in[consumed:], err))
			closeAfter = true
			break
		}
		if n == 0 {
			break
		}
		if (s.paused.mode.Load() != pauseOff || cl.pauseHeld) && len(args) > 0 {
			ctx.args = args
			if s.holdForPause(ctx) {
				break // pause.go: the command stays in in, parsed again when the pause ends
			}
		}
		consumed += n
		ahead--
		if len(args) == 0 {
			continue
		}
		ctx.args = args
		s.call(ctx, scratch)
		if s.prop.on.Load() {
			s.afterCommand(ctx) // propagate.go: the keys a read expired
		}
		ctx.endCommand() // notify.go
		if cl.reply != 0 {
			ctx.settleReplies(true) // reply_mode.go: CLIENT REPLY OFF or SKIP
		}
	}
	ctx.endBatch() // notify.go
	if cl.pauseHeld {
		s.resumeNext(cl) // pause.go: a held client's turn has run
	}
	if cl.multi != nil && cl.conn != nil {
		cl.conn.shared.multi.Store(int32(len(cl.multi.cmds))) // multi.go: once per batch, not per queued command
	}
	out = ctx.out
	ctx.args, ctx.out = nil, nil // an idle client keeps no reference to loop buffers
	if cl.parser.Idle() {        // no partial command: the parser goes back to the loop
		ctx.returnParser(cl.parser)
		cl.parser = nil
	}
	return consumed, out, closeAfter || cl.quit
}

// parserSpares bounds the idle parsers a loop keeps for its clients.
const parserSpares = 8

// lendParser returns a parser between commands for the client about to
// run a batch: an idle connection holds none (144 bytes and its argument
// slices), only one cut in the middle of a command keeps its own.
func (c *cmdCtx) lendParser() *resp.Parser {
	if n := len(c.spares); n > 0 {
		p := c.spares[n-1]
		c.spares[n-1] = nil
		c.spares = c.spares[:n-1]
		return p
	}
	return new(resp.Parser)
}

// returnParser takes back an idle parser, dropping its references into
// the caller's buffers.
func (c *cmdCtx) returnParser(p *resp.Parser) {
	p.Reset()
	if len(c.spares) < parserSpares {
		c.spares = append(c.spares, p)
	}
}

// call dispatches one command: lookup, arity, authentication, the memory
// limit, then the handler, in Redis's order.
func (s *Server) call(c *cmdCtx, scratch []byte) { s.callAs(c, scratch, nil) }

// callAs is call with c.args's row already resolved as cmd, or nil to
// resolve it: EXEC runs its queued commands as the rows it queued them as,
// as Redis's execCommand does.
func (s *Server) callAs(c *cmdCtx, scratch []byte, cmd *command) {
	cl := c.cl
	if cmd == nil {
		if cmd = c.lastResolved(); cmd == nil || !arityOK(cmd.Arity, len(c.args)) {
			var msg string
			if cmd, msg = resolveCommand(c.args); cmd == nil {
				c.rejectQueued(nil, msg)
				return
			}
			c.remember(cmd)
		}
	}
	if cmd.Protected {
		if msg := s.debugRefusal(cl); msg != "" { // cmd_debug.go
			c.rejectQueued(cmd, msg)
			return
		}
	}
	if !cl.authed && cmd.Flags&flagNoAuth == 0 && s.authRequired() {
		c.rejectQueued(cmd, errNoAuth)
		return
	}
	if cl.user.revoked() {
		cl.quit = true // the user was deleted: Redis disconnects its clients
		return
	}
	if c.now == 0 && s.needsClock(cl, cmd) {
		c.now = nowMs() // once per batch, by the first command that needs it
	}
	if !s.acl.allowsAll(cl.user) {
		if msg := s.acl.check(cl.user, cmd, c); msg != "" {
			c.rejectQueued(cmd, msg)
			return
		}
	}
	if !cl.execing {
		// inside EXEC the store is locked: no eviction until it ends
		if s.cfg.mem.maxMemory.Load() > 0 || s.persist.bgErr.Load() || s.aof.writeErr.Load() != nil {
			if msg := s.refusal(c, cmd); msg != "" {
				c.rejectQueued(cmd, msg)
				return
			}
		}
		if cl.sub != nil && cl.proto == 2 && cl.subscribed() && !subAllowed(cmd) {
			c.rejectQueued(cmd, subscribedError(cmd)) // pubsub.go
			return
		}
		if s.persist.loading.Load() && !c.replay && deniedWhileLoading(cl, cmd) {
			c.rejectQueued(cmd, errLoading) // persist_load.go
			return
		}
		if cl.multi != nil && cmd.Flags&flagNoMulti != 0 {
			c.rejectQueued(cmd, "ERR Command not allowed inside a transaction")
			return
		}
		if cl.multi != nil && !txnControl(cmd) {
			cl.multi.queue(cmd, c.args) // multi.go; CLIENT LIST's count is published at the batch's end
			c.simple("QUEUED")
			return
		}
	}
	cl.ncmds++
	cl.lastCmd = cmd
	mark := beginCall(c)
	ord := (cl.execing || s.prop.on.Load()) && s.ordered(c, cmd) // propagate.go: the order lock while a sink is attached
	watched := cmd.Flags&flagWrite != 0 && s.watches.n.Load() > 0 && !signalsNoKey(cmd)
	if watched {
		s.touchWatched(c, cmd) // multi.go: before the write, so that an EXEC locking after it sees the mark
	}
	c.markJournal() // notify.go
	dirty := c.dirty
	cmd.Fn(c)
	if watched {
		// multi.go: dirty only if it changed the keyspace; a blocked pop or
		// move changes its keys when it is served, and that pop marks them (serveKey, touchServed)
		c.settleWatched(c.dirty > dirty)
	}
	s.endCall(c, cmd, mark) // stats.go
	if cl.track != nil {
		if cmd.Flags&flagReadOnly != 0 {
			s.trackRead(c, cmd) // tracking.go
		}
		cl.endTrackingCommand(cmd)
	}
	if cmd.Flags&flagWrite != 0 && c.dirty > dirty && s.tracking.n.Load() > 0 && !signalsNoKey(cmd) {
		s.trackWrite(c, cmd) // tracking.go: invalidations of the keys written, if it changed any (Redis's signalModifiedKey)
	}
	if ord {
		s.propagateCall(c, cmd, mark.out) // before the pops it serves
	}
	if cmd.Flags&flagWrite != 0 && s.blocked.n.Load() > 0 {
		if cl.execing {
			c.noteWritten(cmd) // served once EXEC releases its locks
		} else {
			s.serveBlocked(c, cmd) // blocking.go: waiters run right after the write that readied their keys
		}
	}
	if c.prop {
		s.unorder(c)
	}
}

// refusal is why the memory limit (OOM), a failed background save or a
// failed AOF write (MISCONF) refuses cmd, in Redis's order; "" when none
// does. callAs calls it only when one of them may: a limit set or an
// error kept.
func (s *Server) refusal(c *cmdCtx, cmd *command) string {
	if msg := s.checkMemoryProp(c, cmd); msg != "" { // propagate.go
		return msg
	}
	if msg := s.checkDiskError(c, cmd); msg != "" { // persist.go: MISCONF
		return msg
	}
	return s.checkAOFError(c, cmd) // aof.go: MISCONF
}

// needsClock reports whether running cmd for cl may read the clock: any
// command not ClockFree, and any command once an ACL denial (logged
// with its time) or maxmemory eviction (expiry-aware) may happen.
func (s *Server) needsClock(cl *client, cmd *command) bool {
	if !cmd.ClockFree || s.cfg.mem.maxMemory.Load() > 0 {
		return true
	}
	u := cl.user
	if u == nil {
		u = s.acl.def
	}
	return !u.perm.Load().allowAll
}

// authRequired reports whether the default user has a password.
func (s *Server) authRequired() bool {
	return s.acl.authRequired()
}

// Redis's limits for a client that must still authenticate (networking.c,
// processMultibulkBuffer): at most 10 arguments of at most 16 KiB each.
const (
	unauthMaxArgs = 10
	unauthMaxBulk = 16384
)

// setAuthLimits gives the parser the unauthenticated limits while the
// client must authenticate, and the configured ones after.
func (s *Server) setAuthLimits(cl *client) {
	cl.tight = !cl.authed && s.authRequired()
	if cl.tight {
		cl.parser.Limits.MaxArgs, cl.parser.Limits.MaxBulk = unauthMaxArgs, unauthMaxBulk
		return
	}
	cl.parser.Limits.MaxArgs, cl.parser.Limits.MaxBulk = 0, s.cfg.protoMaxBulk.Load()
}

// protocolErrorText is the text of a parse error, Redis's "unauthenticated"
// variants when only the unauthenticated limits refused buf.
func (s *Server) protocolErrorText(cl *client, buf []byte, err error) string {
	if cl.tight {
		var p resp.Parser
		p.Limits = cl.parser.Limits
		p.Limits.MaxArgs, p.Limits.MaxBulk = 0, s.cfg.protoMaxBulk.Load()
		if _, _, err2 := p.Next(buf); err2 == nil {
			switch {
			case errors.Is(err, resp.ErrInvalidMultibulkLength):
				return "Protocol error: unauthenticated multibulk length"
			case errors.Is(err, resp.ErrInvalidBulkLength):
				return "Protocol error: unauthenticated bulk length"
			}
		}
	}
	return err.Error()
}
