package server

import (
	"bytes"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// CLIENT PAUSE timeout [WRITE|ALL] and CLIENT UNPAUSE (Redis networking.c,
// pauseClients and processCommand). While a pause runs, a command it
// holds is not parsed off its connection's input: execute stops in front
// of it, leaving it and everything after it in the transport's buffer,
// as it stops for a blocked client, and the connection is listed in
// pauseState.held. When the pause ends (its timer, or CLIENT UNPAUSE) the
// held connections resume one after the other, in the order they were
// held: the first is woken through its own loop (transportConn.Wake), runs
// its input from the held command on, and at the end of that batch wakes
// the next (resumeNext), so that held commands on different loops still
// run in the order they arrived. The command path pays one load of
// pauseState.mode per command.
//
// As in Redis 7.0, the pausing client is held like any other; ALL holds
// every command that resolves (an unknown command or a wrong arity is
// still answered), CLIENT UNPAUSE included, so only the timeout ends it;
// WRITE holds writes, EXEC of a transaction with writes, and the commands
// that may replicate (PUBLISH, SPUBLISH, PFCOUNT, EVAL, EVALSHA, FCALL),
// queued in MULTI or not. As in Redis 7.0, no key is deleted for its TTL
// or for memory while a pause runs (store.SetPaused): active expiry and
// eviction wait it out, and a key found past its TTL reads as missing but
// stays, to be deleted, with its expired event, after the pause.

// Pause modes, in increasing order: a new pause never lowers the mode.
const (
	pauseOff   int32 = iota
	pauseWrite       // writes and the commands that may replicate are held
	pauseAll         // every command is held
)

// pauseState is the server's pause.
type pauseState struct {
	mode atomic.Int32 // pauseOff, pauseWrite or pauseAll; read once per command while set
	mu   sync.Mutex
	end  int64        // guarded by mu: Unix ms the pause ends
	held []*connState // guarded by mu: the connections holding a command, in hold order
	// guarded by mu: the connections of ended pauses still to resume;
	// the first has been woken and runs
	resume []*connState
	gen    uint64       // guarded by mu: pauses ended; a client is in held when its pauseGen is gen
	tm     *time.Timer  // guarded by mu: ends the pause at end
	n      atomic.Int64 // len(held) + len(resume), for INFO's blocked_clients
}

// pause starts or extends a pause until end (Unix ms) in mode: the later
// end and the stricter mode of the running pause and the new one win, as
// Redis's pauseClients keeps them.
func (s *Server) pause(end int64, mode int32, now int64) {
	p := &s.paused
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mode.Load() == pauseOff {
		p.end = end
	} else {
		p.end = max(p.end, end)
		mode = max(mode, p.mode.Load())
	}
	p.mode.Store(mode)
	s.pauseStore(true)
	if p.tm != nil {
		p.tm.Stop()
	}
	p.tm = time.AfterFunc(time.Duration(max(p.end-now, 0))*time.Millisecond, s.pauseTimeout)
}

// pauseTimeout ends the pause when its end has come; a timer of a pause
// extended since finds it has not. timer goroutine.
func (s *Server) pauseTimeout() {
	p := &s.paused
	p.mu.Lock()
	if p.mode.Load() != pauseOff {
		if left := p.end - nowMs(); left > 0 {
			p.tm = time.AfterFunc(time.Duration(left)*time.Millisecond, s.pauseTimeout)
			p.mu.Unlock()
			return
		}
	}
	p.mu.Unlock()
	s.unpause()
}

// unpause ends the pause; the held connections resume in the order they
// were held, after those of an earlier pause still resuming. any
// goroutine.
func (s *Server) unpause() {
	p := &s.paused
	p.mu.Lock()
	p.mode.Store(pauseOff)
	s.pauseStore(false)
	if p.tm != nil {
		p.tm.Stop()
		p.tm = nil
	}
	idle := len(p.resume) == 0
	p.resume = append(p.resume, p.held...)
	p.held = nil
	p.gen++
	var first *connState
	if idle && len(p.resume) > 0 {
		first = p.resume[0]
	}
	p.mu.Unlock()
	if first != nil {
		first.tc.Wake()
	}
}

// pauseStore stops or resumes the store's deletions for time and memory.
// Caller holds s.paused.mu, which orders the calls as the pauses.
func (s *Server) pauseStore(on bool) {
	if s.store != nil {
		s.store.SetPaused(on)
	}
}

// resumeNext runs after a batch of a client a pause held: when it is the
// resuming connection, the next one is woken. The client stays marked
// while a new pause holds it. owning loop only.
func (s *Server) resumeNext(cl *client) {
	p := &s.paused
	p.mu.Lock()
	var next *connState
	if len(p.resume) > 0 && p.resume[0] == cl.conn {
		p.resume[0] = nil
		p.resume = p.resume[1:]
		if len(p.resume) > 0 {
			next = p.resume[0]
		}
		cl.pauseHeld = cl.pauseGen == p.gen && p.mode.Load() != pauseOff
	}
	p.n.Store(int64(len(p.held) + len(p.resume)))
	p.mu.Unlock()
	if next != nil {
		next.tc.Wake()
	}
}

// holdForPause reports whether the command in c.args, which the caller
// has not consumed, must wait: a pause holds it, or its client, held by a
// pause that has ended, waits for its turn to resume. A newly held client
// is listed to wake when the pause ends. A client without a connection
// is never held. owning loop only.
func (s *Server) holdForPause(c *cmdCtx) bool {
	cl := c.cl
	if cl.conn == nil {
		return false
	}
	p := &s.paused
	p.mu.Lock()
	defer p.mu.Unlock()
	if cl.pauseHeld && slices.Index(p.resume, cl.conn) > 0 {
		return true // the clients held before it resume first
	}
	mode := p.mode.Load()
	if mode == pauseOff {
		return false
	}
	cmd, _ := resolveCommand(c.args)
	if cmd == nil {
		return false // answered with its error, as Redis checks before pausing
	}
	if mode == pauseWrite && !pauseWriteHolds(cl, cmd) {
		return false
	}
	if !cl.pauseHeld || cl.pauseGen != p.gen {
		cl.pauseHeld, cl.pauseGen = true, p.gen
		p.held = append(p.held, cl.conn)
		p.n.Store(int64(len(p.held) + len(p.resume)))
	}
	return true
}

// pauseWriteHolds reports whether a WRITE pause holds cmd.
func pauseWriteHolds(cl *client, cmd *command) bool {
	if cmd.Flags&(flagWrite|flagMayReplicate) != 0 {
		return true
	}
	switch cmd.full {
	case "publish", "spublish", "pfcount", "eval", "evalsha", "fcall":
		return true
	case "exec":
		if m := cl.multi; m != nil {
			for i := range m.cmds {
				if pauseWriteHolds(cl, m.cmds[i].cmd) {
					return true
				}
			}
		}
	}
	return false
}

// forgetPaused takes a closing connection off the pause's lists; when it
// was the one resuming, the next is woken.
func (s *Server) forgetPaused(cs *connState) {
	if !cs.cl.pauseHeld {
		return
	}
	p := &s.paused
	p.mu.Lock()
	if i := slices.Index(p.held, cs); i >= 0 {
		p.held = slices.Delete(p.held, i, i+1)
	}
	var next *connState
	if i := slices.Index(p.resume, cs); i >= 0 {
		p.resume = slices.Delete(p.resume, i, i+1)
		if i == 0 && len(p.resume) > 0 {
			next = p.resume[0]
		}
	}
	p.n.Store(int64(len(p.held) + len(p.resume)))
	p.mu.Unlock()
	cs.cl.pauseHeld = false
	if next != nil {
		next.tc.Wake()
	}
}

// cmdClientPause is CLIENT PAUSE timeout [WRITE|ALL], its arguments
// checked in Redis's order: the mode, the count, then the timeout.
func cmdClientPause(c *cmdCtx) {
	mode := pauseAll
	if len(c.args) == 4 {
		switch {
		case bytes.EqualFold(c.args[3], []byte("write")):
			mode = pauseWrite
		case bytes.EqualFold(c.args[3], []byte("all")):
		default:
			c.errReply("ERR CLIENT PAUSE mode must be WRITE or ALL")
			return
		}
	} else if len(c.args) > 4 {
		c.errReply("ERR unknown subcommand or wrong number of arguments for '" + clip(c.args[1]) + "'. Try CLIENT HELP.")
		return
	}
	ms, ok := parseInt(c.args[2])
	if !ok {
		c.errReply("ERR timeout is not an integer or out of range")
		return
	}
	if ms < 0 {
		c.errReply("ERR timeout is negative")
		return
	}
	now := nowMs()
	c.srv.pause(now+min(ms, 1<<53), mode, now) // bounded: the end stays a valid time
	c.ok()
}

// cmdClientUnpause is CLIENT UNPAUSE.
func cmdClientUnpause(c *cmdCtx) {
	c.srv.unpause()
	c.ok()
}
