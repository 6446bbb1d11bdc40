package server

import (
	"time"

	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// cmdCtx is what a command handler sees. owning loop only.
type cmdCtx struct {
	srv   *Server
	cl    *client
	store *store.Store
	// args[0] is the command name as sent. args alias the connection's
	// input: valid until the handler returns, never kept.
	args [][]byte
	out  []byte        // replies are appended here
	now  int64         // Unix time in milliseconds, read at most once per batch; 0 until read (call)
	mono time.Duration // since clockStart: when the last command ended, or 0 (stats.go, beginCall)
	// the loop's journal, nil for a client without a loop (notify.go)
	jl *loopJournal
	// dirty counts the changes of the running command, Redis's server.dirty
	// (notify.go): a handler's c.notify calls add to it; compare before and
	// after a nested call. endCommand moves it to batchDirty and zeroes it;
	// endBatch adds that to Server.dirty.
	dirty, batchDirty int64
	// propagation (propagate.go)
	prop      bool   // this call holds the order lock
	txnProp   bool   // the running EXEC holds it: its commands propagate
	propSeq   uint64 // the highest change sequence the replies in out depend on; 0 for none
	propJ     int    // journal entries propagated already
	propDirty int64  // c.dirty when the running call began
	// the watchers the running write marked pending (touchWatched), to
	// settle after it; reused
	touched []*watchState
	// arguments a handler builds for a shared path, reused: GEOADD's
	// score, member pairs for ZADD and their scores' digits, which the
	// pairs alias (cmd_geo.go geoAddArgs)
	pairs  [][]byte
	digits []byte
	replay bool // the AOF loader's: runs while the server is loading
	// idle parsers lent to the clients for a batch (session.go lendParser)
	spares []*resp.Parser
	// while EXEC runs: the transaction, which gathers its commands'
	// statistics (multi.go)
	txn *multiState
	// the last top-level row callAs resolved and its name exactly as sent:
	// a pipeline mostly repeats one command (lastResolved)
	lastRow  *command
	lastName [lastNameMax]byte
	lastLen  uint8
	// CLIENT REPLY (reply_mode.go), for the client whose reply bits are
	// set: c.out[muteAt:] is muted output, cut with its pushes kept after
	// each command; c.out[cutFrom:cutTo] is what a muted stretch left
	// before CLIENT REPLY ON, cut after it
	muteAt, cutFrom, cutTo int
	pushes                 []byte // pushes made while muted; empty between commands
}

// lastNameMax bounds the command names lastResolved remembers.
const lastNameMax = 16

// lastResolved returns the row of c.args when its name is, byte for byte,
// the one the last lookup on this context resolved to a row without
// subcommands; nil otherwise. The arity is still to check.
func (c *cmdCtx) lastResolved() *command {
	name := c.args[0]
	if c.lastRow == nil || len(name) != int(c.lastLen) || string(name) != string(c.lastName[:c.lastLen]) {
		return nil
	}
	return c.lastRow
}

// remember makes cmd, just resolved from c.args, the row lastResolved
// answers for its name: only a top-level row without subcommands.
func (c *cmdCtx) remember(cmd *command) {
	name := c.args[0]
	if len(cmd.subs) > 0 || cmd.parent != nil || len(name) > lastNameMax {
		return
	}
	c.lastRow, c.lastLen = cmd, uint8(copy(c.lastName[:], name))
}

// db is the client's selected database.
func (c *cmdCtx) db() int { return c.cl.db }

// lookupCommand finds the top-level command called name, any case,
// without hashing or allocating: commands are bucketed by length and first
// letter, and the few candidates compared byte by byte.
func lookupCommand(name []byte) *command {
	t := commands()
	if len(name) == 0 || len(name) >= len(t.buckets) {
		return nil
	}
	f := name[0] | 0x20
	if f < 'a' || f > 'z' {
		return nil
	}
	for _, cmd := range t.buckets[len(name)][f-'a'] {
		if equalFoldLower(name, cmd.Name) {
			return cmd
		}
	}
	return nil
}

// equalFoldLower reports whether b equals the lower-case ASCII s, ignoring
// the case of b.
func equalFoldLower(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// resolveCommand finds the row args run: the command called args[0], or
// for a container its subcommand called args[1]. When there is none, or
// the arity does not fit, it returns nil and the error to reply, checked in
// Redis's order (server.c, processCommand: existence, then arity).
func resolveCommand(args [][]byte) (*command, string) {
	cmd := lookupCommand(args[0])
	if cmd == nil {
		return nil, errUnknownCommand(args)
	}
	if len(cmd.subs) > 0 && len(args) > 1 {
		sub := cmd.sub(args[1])
		if sub == nil {
			return nil, errUnknownSubcommand(cmd.upper, args[1])
		}
		cmd = sub
	}
	if !arityOK(cmd.Arity, len(args)) {
		return nil, errArity(cmd.full)
	}
	return cmd, ""
}

// arityOK reports whether n arguments (name included) fit arity.
func arityOK(arity, n int) bool {
	if arity >= 0 {
		return n == arity
	}
	return n >= -arity
}
