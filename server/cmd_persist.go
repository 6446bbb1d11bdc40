package server

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/loopkv/loopkv/rdb"
	"github.com/loopkv/loopkv/store"
)

// Persistence family: SAVE, BGSAVE, LASTSAVE and SHUTDOWN's saving part
// (persist.go runs the saves).

// cmdSave is SAVE: a foreground save. The client waits for it, parked, while
// its loop serves the others; +OK when the file is written, -ERR if not.
func cmdSave(c *cmdCtx) {
	s := c.srv
	if !parkable(c) {
		switch err := s.saveAndWait(); {
		case errors.Is(err, errSaveRunning):
			c.errReply(errSaveInProgress)
		case err != nil:
			c.out = append(c.out, errBareReply...)
		default:
			c.ok()
		}
		return
	}
	w := s.newParked(c)
	holdClient(c, w)
	if err := s.beginSave(saveFg, parked{w: w}); err != nil {
		s.unpark(c, w)
		c.errReply(errSaveInProgress)
	}
}

// cmdBgsave is BGSAVE [SCHEDULE], as Redis's bgsaveCommand.
func cmdBgsave(c *cmdCtx) {
	schedule := false
	if len(c.args) > 1 {
		if len(c.args) != 2 || !bytes.EqualFold(c.args[1], []byte("schedule")) {
			c.errReply(errSyntax)
			return
		}
		schedule = true
	}
	s := c.srv
	p := &s.persist
	p.mu.Lock()
	saving := p.saving != saveNone
	if !saving && (s.aofRewriteRunning() || c.cl.execing) && (schedule || c.cl.execing) {
		p.scheduled = true
		p.mu.Unlock()
		c.simple("Background saving scheduled")
		return
	}
	p.mu.Unlock()
	switch {
	case saving:
		c.errReply(errSaveInProgress)
	case s.aofRewriteRunning():
		c.errReply(errChildActive)
	case s.beginSave(saveBg, parked{}) != nil:
		c.errReply(errSaveInProgress)
	default:
		c.simple("Background saving started")
	}
}

// cmdLastsave is LASTSAVE: the Unix time of the last successful save.
func cmdLastsave(c *cmdCtx) { c.integer(c.srv.persist.lastSave.Load()) }

// unpark undoes newParked and holdClient for a save that did not start.
// owning loop only.
func (s *Server) unpark(c *cmdCtx, w *waiter) {
	s.blocked.mu.Lock()
	s.blocked.n.Add(-1)
	w.state.Store(waitGone)
	s.blocked.mu.Unlock()
	c.cl.blocked = nil
}

// SHUTDOWN flags (Redis's SHUTDOWN_*).
const (
	shutNoSave = 1 << iota
	shutSave
	shutNow
	shutForce
)

// parseShutdown parses SHUTDOWN's arguments as Redis's shutdownCommand.
func parseShutdown(args [][]byte) (flags int, abort, ok bool) {
	for _, a := range args {
		switch {
		case bytes.EqualFold(a, []byte("nosave")):
			flags |= shutNoSave
		case bytes.EqualFold(a, []byte("save")):
			flags |= shutSave
		case bytes.EqualFold(a, []byte("now")):
			flags |= shutNow
		case bytes.EqualFold(a, []byte("force")):
			flags |= shutForce
		case bytes.EqualFold(a, []byte("abort")):
			abort = true
		default:
			return 0, false, false
		}
	}
	if abort && flags != 0 || flags&shutNoSave != 0 && flags&shutSave != 0 {
		return 0, false, false
	}
	return flags, abort, true
}

// cmdShutdown is SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]. The save
// SHUTDOWN makes (with save rules, or SAVE) runs in the save goroutine
// while the client is parked; once it succeeds the server stops and the
// client gets no reply. A failed save answers "Errors trying to SHUTDOWN"
// and the server goes on, unless FORCE. With no replicas there is never a
// shutdown in progress to ABORT.
func cmdShutdown(c *cmdCtx) {
	flags, abort, ok := parseShutdown(c.args[1:])
	if !ok {
		c.errReply(errSyntax)
		return
	}
	if abort {
		c.errReply("ERR No shutdown in progress.")
		return
	}
	s := c.srv
	s.log.Warn("User requested shutdown...", zap.Uint64("conn", c.cl.id))
	if !parkable(c) {
		if err := s.prepareShutdown(flags); err != nil {
			c.errReply(errShutdown)
			return
		}
		c.cl.quit = true
		s.requestShutdown()
		return
	}
	w := s.newParked(c)
	holdClient(c, w)
	go func() {
		if err := s.prepareShutdown(flags); err != nil {
			s.release(w, []byte("-"+errShutdown+"\r\n"))
			return
		}
		// The parked client gets no reply, as in Redis: its connection is
		// closed now, so that no engine waits for it to finish its command.
		if !w.conn.shared.killed.Swap(true) {
			w.conn.tc.Close()
		}
		s.requestShutdown()
	}()
}

// prepareShutdown is Redis's finishShutdown before exit: it waits for a
// running save (Redis kills its child), flushes the AOF, and makes the
// final save when save rules are set and not NOSAVE, or with SAVE. It
// returns the save's error unless FORCE. A goroutine that may wait.
func (s *Server) prepareShutdown(flags int) error {
	p := &s.persist
	if s.writingInitialAOF() {
		// Redis's AOF_WAIT_REWRITE: appendonly yes was set and its first
		// base is not in; stopping now leaves no AOF to load
		if flags&shutForce == 0 {
			s.log.Warn("Writing initial AOF, can't exit.")
			s.log.Warn("Errors trying to shut down the server. Check the logs for more information.")
			return errWritingInitialAOF
		}
		s.log.Warn("Writing initial AOF. Exit anyway.")
	}
	p.shutdown.Store(true) // the save rules start no save from now on
	if p.loading.Load() {
		// as Redis's prepareForShutdown: a save now would write the part
		// loaded so far over the file being loaded
		flags = flags&^shutSave | shutNoSave
	}
	for {
		if err := s.flushAOF(); err != nil && flags&shutForce == 0 {
			p.shutdown.Store(false)
			s.log.Warn("Error flushing the AOF before exiting, can't exit.", zap.Error(err))
			return err
		}
		if !(len(*s.cfg.persist.points.Load()) > 0 && flags&shutNoSave == 0 || flags&shutSave != 0) {
			return nil
		}
		s.log.Info("Saving the final RDB snapshot before exiting.")
		err := s.saveAndWait()
		if errors.Is(err, errSaveRunning) {
			s.waitSaveIdle()
			continue
		}
		if err != nil {
			if flags&shutForce != 0 {
				s.log.Warn("Error trying to save the DB. Exit anyway.", zap.Error(err))
				return nil
			}
			p.shutdown.Store(false)
			s.log.Warn("Error trying to save the DB, can't exit.", zap.Error(err))
			s.log.Warn("Errors trying to shut down the server. Check the logs for more information.")
			return err
		}
		return nil
	}
}

var errWritingInitialAOF = errors.New("server: writing the initial AOF")

// writingInitialAOF reports whether appendonly yes is still waiting for
// the loops or writing its log's first base.
func (s *Server) writingInitialAOF() bool {
	if _, starting := s.aofOpening(); starting { // aof.go
		return true
	}
	l := s.aof.log.Load()
	return l != nil && l.Info().WaitRewrite
}

// waitSaveIdle returns once no save runs.
func (s *Server) waitSaveIdle() {
	for {
		s.persist.mu.Lock()
		idle := s.persist.saving == saveNone
		s.persist.mu.Unlock()
		if idle {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Shutdown is SHUTDOWN without arguments from outside (SIGTERM): it makes
// the final save when save rules are set, flushes the AOF and stops the
// server. When the save fails it returns the error and the server keeps
// serving, as Redis does on SIGTERM.
func (s *Server) Shutdown(ctx context.Context) error {
	s.lazy()
	if err := s.prepareShutdown(0); err != nil {
		s.log.Warn("SIGTERM received but errors trying to shut down the server, check the logs for more information")
		return err
	}
	return s.Stop(ctx)
}

// DUMP and RESTORE (Redis cluster.c): a value in RDB form with Redis's
// trailer, so payloads move between loopkv and Redis.

// cmdDump is DUMP key: the payload, or a null for a missing key. The
// payload is built at the end of the reply buffer and then moved behind its
// bulk header, whose length is known only once it is whole: no buffer of
// its own, so DUMP allocates nothing once the reply buffer has grown.
func cmdDump(c *cmdCtx) {
	start := len(c.out)
	found := c.store.View(c.db(), c.args[1], c.now, func(v *store.Value) { c.out = rdb.DumpPayload(c.out, v) })
	if !found {
		c.null()
		return
	}
	n := len(c.out) - start
	var hdr [24]byte
	h := strconv.AppendInt(append(hdr[:0], '$'), int64(n), 10)
	h = append(h, '\r', '\n')
	c.out = append(c.out, h...) // room for the header
	copy(c.out[start+len(h):], c.out[start:start+n])
	copy(c.out[start:], h)
	c.out = append(c.out, '\r', '\n')
}

// restoreOptions are RESTORE's modifiers.
type restoreOptions struct {
	replace, absTTL bool
	idle            int64 // IDLETIME seconds; -1 when not given
	freq            int64 // FREQ; -1 when not given
}

// parseRestore parses RESTORE's modifiers in Redis's order and words,
// replying on error.
func parseRestore(c *cmdCtx) (restoreOptions, bool) {
	o := restoreOptions{idle: -1, freq: -1}
	for j := 4; j < len(c.args); j++ {
		a, more := c.args[j], j+1 < len(c.args)
		switch {
		case bytes.EqualFold(a, []byte("replace")):
			o.replace = true
		case bytes.EqualFold(a, []byte("absttl")):
			o.absTTL = true
		case bytes.EqualFold(a, []byte("idletime")) && more && o.freq == -1:
			n, ok := parseInt(c.args[j+1])
			if !ok {
				c.errReply(errNotInteger)
				return o, false
			}
			if n < 0 {
				c.errReply("ERR Invalid IDLETIME value, must be >= 0")
				return o, false
			}
			o.idle, j = n, j+1
		case bytes.EqualFold(a, []byte("freq")) && more && o.idle == -1:
			n, ok := parseInt(c.args[j+1])
			if !ok {
				c.errReply(errNotInteger)
				return o, false
			}
			if n < 0 || n > 255 {
				c.errReply("ERR Invalid FREQ value, must be >= 0 and <= 255")
				return o, false
			}
			o.freq, j = n, j+1
		default:
			c.errReply(errSyntax)
			return o, false
		}
	}
	return o, true
}

// cmdRestore is RESTORE key ttl payload [REPLACE] [ABSTTL] [IDLETIME s]
// [FREQ f], checked in Redis's order: modifiers, an existing key, the
// TTL, the payload's version and checksum, then its data.
func cmdRestore(c *cmdCtx) {
	o, ok := parseRestore(c)
	if !ok {
		return
	}
	key := c.args[1]
	existed := c.store.Exists(c.db(), key, c.now)
	if existed && !o.replace {
		c.errReply(errBusyKey)
		return
	}
	ttl, ok := parseInt(c.args[2])
	if !ok {
		c.errReply(errNotInteger)
		return
	}
	if ttl < 0 {
		c.errReply("ERR Invalid TTL value, must be >= 0")
		return
	}
	at := ttl
	if ttl != 0 && !o.absTTL {
		at += c.now
	}
	switch err := rdb.RestoreAt(c.store, c.db(), key, c.args[3], at, o.replace, c.now); {
	case errors.Is(err, rdb.ErrPayload):
		c.errReply("ERR DUMP payload version or checksum are wrong")
		return
	case errors.Is(err, rdb.ErrKeyExists):
		c.errReply(errBusyKey)
		return
	case err != nil:
		c.errReply("ERR Bad data format")
		return
	}
	if at != 0 && at <= c.now { // already expired: nothing stored, the old value deleted
		if existed {
			c.notify(notifyGeneric, "del", key)
		}
		c.ok()
		return
	}
	// as Redis's objectSetLRUOrLFU: FREQ under an LFU policy, IDLETIME
	// under any other; the other one is ignored
	if lfu := c.srv.cfg.mem.lfu(); lfu && o.freq >= 0 {
		c.store.SetFreq(c.db(), key, c.now, o.freq)
	} else if !lfu && o.idle >= 0 {
		c.store.SetIdle(c.db(), key, c.now, o.idle)
	}
	c.notify(notifyGeneric, "restore", key)
	c.ok()
}

const errBusyKey = "BUSYKEY Target key name already exists."

var persistCommands = []command{
	{Name: "save", Arity: 1, Flags: flagAdmin | flagNoScript | flagNoAsyncLoading | flagNoMulti,
		Doc: cmdDoc{Summary: "Synchronously save the dataset to disk", Since: "1.0.0", Group: "server",
			Complexity: "O(N) where N is the total number of keys in all databases"},
		Fn: cmdSave},
	{Name: "bgsave", Arity: -1, Flags: flagAdmin | flagNoScript | flagNoAsyncLoading,
		Doc: cmdDoc{Summary: "Asynchronously save the dataset to disk", Since: "1.0.0", Group: "server",
			Complexity: "O(1)",
			History:    [][2]string{{"3.2.2", "Added the `SCHEDULE` option."}},
			Args: []cmdArg{
				{Name: "schedule", Type: argPureToken, Token: "SCHEDULE", Since: "3.2.2", Flags: argOptional},
			}},
		Fn: cmdBgsave},
	{Name: "lastsave", Arity: 1, Flags: flagLoading | flagStale | flagFast, ACL: catAdmin | catDangerous,
		Tips: []string{"nondeterministic_output"},
		Doc: cmdDoc{Summary: "Get the UNIX time stamp of the last successful save to disk", Since: "1.0.0", Group: "server",
			Complexity: "O(1)"},
		Fn: cmdLastsave},
	{Name: "dump", Arity: 2, Flags: flagReadOnly, ACL: catKeyspace,
		Tips: []string{"nondeterministic_output"},
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Return a serialized version of the value stored at the specified key.", Since: "2.6.0", Group: "generic",
			Complexity: "O(1) to access the key and additional O(N*M) to serialize it, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1).",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdDump},
	{Name: "restore", Arity: -4, Flags: flagWrite | flagDenyOOM, ACL: catKeyspace | catDangerous,
		Keys: []keySpec{{Flags: keyOW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Create a key using the provided serialized value, previously obtained using DUMP.", Since: "2.6.0", Group: "generic",
			Complexity: "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).",
			History:    [][2]string{{"3.0.0", "Added the `REPLACE` modifier."}, {"5.0.0", "Added the `ABSTTL` modifier."}, {"5.0.0", "Added the `IDLETIME` and `FREQ` options."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "ttl", Type: argInteger},
				{Name: "serialized-value", Type: argString},
				{Name: "replace", Type: argPureToken, Token: "REPLACE", Since: "3.0.0", Flags: argOptional},
				{Name: "absttl", Type: argPureToken, Token: "ABSTTL", Since: "5.0.0", Flags: argOptional},
				{Name: "seconds", Type: argInteger, Token: "IDLETIME", Since: "5.0.0", Flags: argOptional},
				{Name: "frequency", Type: argInteger, Token: "FREQ", Since: "5.0.0", Flags: argOptional},
			}},
		Fn: cmdRestore},
}

func init() { register(persistCommands...) }
