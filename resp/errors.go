package resp

import "errors"

// ProtocolError is a malformed request. Its Error text is Redis's, such as
// "Protocol error: invalid bulk length", without the "ERR " code; the server
// replies "-ERR " + text and closes the connection. errors.Is matches a
// ProtocolError against the sentinel of the same kind.
type ProtocolError struct {
	kind uint8
	msg  string
}

// Error returns Redis's text for the error.
func (e *ProtocolError) Error() string { return e.msg }

// Is reports whether target is a ProtocolError of the same kind, so that
// errors.Is(err, ErrExpectedDollar) holds whatever byte was found.
func (e *ProtocolError) Is(target error) bool {
	t, ok := target.(*ProtocolError)
	return ok && t.kind == e.kind
}

const (
	kindInvalidMultibulkLength uint8 = iota + 1
	kindTooBigMbulkCount
	kindExpectedDollar
	kindInvalidBulkLength
	kindTooBigBulkCount
	kindTooBigInline
	kindUnbalancedQuotes
)

// Request errors, worded as Redis 7 words them.
var (
	// ErrInvalidMultibulkLength is a multibulk count that is not a number or exceeds Limits.MaxArgs.
	ErrInvalidMultibulkLength = &ProtocolError{kindInvalidMultibulkLength, "Protocol error: invalid multibulk length"}
	// ErrTooBigMbulkCount is a multibulk count line longer than Limits.MaxInline.
	ErrTooBigMbulkCount = &ProtocolError{kindTooBigMbulkCount, "Protocol error: too big mbulk count string"}
	// ErrExpectedDollar is a multibulk element that does not start with '$'; its text names the byte found.
	ErrExpectedDollar = &ProtocolError{kindExpectedDollar, "Protocol error: expected '$'"}
	// ErrInvalidBulkLength is a bulk length that is not a number, is negative or exceeds Limits.MaxBulk.
	ErrInvalidBulkLength = &ProtocolError{kindInvalidBulkLength, "Protocol error: invalid bulk length"}
	// ErrTooBigBulkCount is a bulk length line longer than Limits.MaxInline.
	ErrTooBigBulkCount = &ProtocolError{kindTooBigBulkCount, "Protocol error: too big bulk count string"}
	// ErrTooBigInline is an inline command longer than Limits.MaxInline without a newline.
	ErrTooBigInline = &ProtocolError{kindTooBigInline, "Protocol error: too big inline request"}
	// ErrUnbalancedQuotes is an inline command with an unterminated quote or a closing quote not followed by a space.
	ErrUnbalancedQuotes = &ProtocolError{kindUnbalancedQuotes, "Protocol error: unbalanced quotes in request"}
)

// Reply errors, returned by ReadReply and ParseReply.
var (
	// ErrInvalidReply is a reply that is not well-formed RESP2 or RESP3.
	ErrInvalidReply = errors.New("resp: invalid reply")
	// ErrUnsupportedReply is a RESP3 streamed string or aggregate, which Redis never sends.
	ErrUnsupportedReply = errors.New("resp: streamed replies are not supported")
	// ErrReplyTooDeep is a reply nested deeper than ParseReply follows.
	ErrReplyTooDeep = errors.New("resp: reply nested too deeply")
)

// expectedDollar returns Redis's error for an element starting with b.
func expectedDollar(b byte) error {
	return &ProtocolError{kindExpectedDollar, "Protocol error: expected '$', got '" + string([]byte{b}) + "'"}
}
