package server

import (
	"bytes"
	"context"
	"errors"
	"time"

	"go.uber.org/zap"
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
		s.requestShutdown() // the parked client is closed with the others
	}()
}

// prepareShutdown is Redis's finishShutdown before exit: it waits for a
// running save (Redis kills its child), flushes the AOF, and makes the
// final save when save rules are set and not NOSAVE, or with SAVE. It
// returns the save's error unless FORCE. A goroutine that may wait.
func (s *Server) prepareShutdown(flags int) error {
	p := &s.persist
	p.shutdown.Store(true) // the save rules start no save from now on
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
}

func init() { register(persistCommands...) }
