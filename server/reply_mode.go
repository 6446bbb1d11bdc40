package server

import "bytes"

// CLIENT REPLY ON|OFF|SKIP (Redis networking.c, clientCommand and
// resetClient). A muted client's commands run as usual and append their
// replies to c.out; what a muted stretch appended is cut off at the end
// of each command (settleReplies), so no handler knows about the mode
// and nothing is allocated. Pushes (subscribe confirmations, messages,
// invalidations) are not replies: redis-server 7.0 sends them to a muted
// client too, so a push made while muted goes to c.pushes (pushOut),
// which settleReplies puts back where the cut begins.
//
// Redis decides at each write whether the client is muted; cutting at
// the mark where muting began (c.muteAt) and keeping what came before it
// gives the same bytes. Inside EXEC the header, written before a queued
// CLIENT REPLY OFF, is kept and the replies after it are cut, as in Redis.

// The bits of client.reply; 0 for a client that never sent CLIENT REPLY,
// so that the command path tests one byte.
const (
	replyOff      uint8 = 1 << iota // CLIENT REPLY OFF: every reply is dropped until ON
	replySkip                       // the running command's reply is dropped
	replySkipNext                   // CLIENT REPLY SKIP ran: the next command's is dropped
	replyCut                        // ON unmuted during the command: c.out[cutFrom:cutTo] goes
)

// replyMuted is the bits under which a reply written now is dropped.
const replyMuted = replyOff | replySkip

func cmdClientReply(c *cmdCtx) {
	cl := c.cl
	switch arg := c.args[2]; {
	case bytes.EqualFold(arg, []byte("on")):
		c.unmute()
		c.ok()
	case bytes.EqualFold(arg, []byte("off")):
		c.mute()
		cl.reply |= replyOff
	case bytes.EqualFold(arg, []byte("skip")):
		if cl.reply&replyOff == 0 { // Redis ignores SKIP while OFF
			cl.reply |= replySkipNext
		}
	default:
		c.errReply(errSyntax)
	}
}

// stallMuted is a protocol error on a muted client. Redis 7.0 mutes the
// error reply and marks the client to close after its reply
// (CLIENT_CLOSE_AFTER_REPLY), but with no reply to write it never closes
// it: the connection stays open, runs nothing more and answers nothing,
// and its input accumulates unparsed until the client closes, the idle
// timeout or CLIENT KILL closes it, or it passes
// client-query-buffer-limit. loopkv does the same: execute consumes
// nothing more of it, leaving the input with the transport, where the
// query buffer limit applies. CLIENT LIST shows flags=c.
func stallMuted(cl *client) {
	cl.stalled = true
	if cl.conn != nil {
		cl.conn.shared.stalled.Store(true)
	}
}

// mute starts a muted stretch at the end of c.out, unless one runs.
func (c *cmdCtx) mute() {
	if c.cl.reply&replyMuted == 0 {
		c.muteAt = len(c.out)
	}
}

// unmute ends OFF and SKIP (CLIENT REPLY ON).
func (c *cmdCtx) unmute() { c.clearReplyMode(replyOff | replySkip | replySkipNext) }

// clearReplyMode clears bits of the reply mode. When that unmutes the
// client, what the muted stretch appended is cut after the command
// (settleReplies), not here: the command's own call still reads its
// reply at the offset it began (stats.go endCall, propagate.go
// propagateCall).
func (c *cmdCtx) clearReplyMode(bits uint8) {
	cl := c.cl
	was := cl.reply&replyMuted != 0
	cl.reply &^= bits
	if was && cl.reply&replyMuted == 0 {
		c.cutFrom, c.cutTo = c.muteAt, len(c.out)
		cl.reply |= replyCut
	}
}

// pushOut is where a push to the running client is appended: its
// replies, or while they are muted c.pushes, which settleReplies keeps.
func (c *cmdCtx) pushOut() *[]byte {
	if c.cl.reply&replyMuted != 0 {
		return &c.pushes
	}
	return &c.out
}

// settleReplies drops what the muted part of the command just run
// appended, keeping its pushes. At the end of a top-level command (top),
// a SKIP ends and a CLIENT REPLY SKIP just run makes the next command
// skipped, as Redis's resetClient does; a blocked command ends when it is
// served (takeUnblocked). The caller tests c.cl.reply != 0 first.
func (c *cmdCtx) settleReplies(top bool) {
	cl := c.cl
	if cl.reply&replyCut != 0 {
		// ON left no pushes: the command it ran in made none while muted
		c.out = append(c.out[:c.cutFrom], c.out[c.cutTo:]...)
		cl.reply &^= replyCut
	}
	if cl.reply&replyMuted != 0 {
		c.out = append(c.out[:c.muteAt], c.pushes...)
		c.pushes = c.pushes[:0]
		c.muteAt = len(c.out)
	}
	if !top || cl.blocked != nil {
		return
	}
	cl.reply &^= replySkip
	if cl.reply&replySkipNext != 0 {
		cl.reply = cl.reply&^replySkipNext | replySkip
		c.muteAt = len(c.out)
	}
}

// beginMuted sets the mark of a muted client's batch, whose replies
// start at the end of c.out. The caller tests c.cl.reply != 0 first.
func (c *cmdCtx) beginMuted() {
	if c.cl.reply&replyMuted != 0 {
		c.muteAt = len(c.out)
	}
}
