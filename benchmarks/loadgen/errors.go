package loadgen

import "errors"

var (
	// ErrProtocol reports a reply that is not valid RESP.
	ErrProtocol = errors.New("loadgen: protocol error in reply")
	// ErrReplyTooLarge reports a reply longer than the reader's limit.
	ErrReplyTooLarge = errors.New("loadgen: reply too large")
	// ErrBadMix reports a command mix that does not parse.
	ErrBadMix = errors.New("loadgen: bad command mix")
	// ErrNoProc reports that /proc/<pid> could not be read.
	ErrNoProc = errors.New("loadgen: cannot read server process stats")
	// ErrNotResumed reports a resumed-handshake run whose handshakes were full.
	ErrNotResumed = errors.New("loadgen: server did not resume sessions")
)
