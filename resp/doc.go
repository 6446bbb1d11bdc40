// Package resp implements the Redis serialization protocol, RESP2 and RESP3
// (https://redis.io/docs/latest/develop/reference/protocol-spec/), as a wire
// codec with no I/O, no goroutines and no clock.
//
// Requests are parsed in place by a Parser, exactly as Redis 7 parses them
// (networking.c, processMultibulkBuffer and processInlineBuffer): multibulk
// commands (*<count>\r\n then $<len>\r\n<bytes>\r\n per argument) and inline
// commands (a line split like sdssplitargs). Replies are appended to the
// caller's output buffer by the Append* functions; ReadReply and ParseReply
// decode replies for clients, tests and the load generator.
//
// # Borrowing
//
// Parser.Next returns arguments that alias the caller's buffer and an
// internal slice of the Parser. They stay valid until the next call to Next
// or Reset and until the caller discards or overwrites those bytes; a caller
// that keeps an argument longer copies it. Next may rewrite the bytes of an
// inline line it consumed (quoted arguments are unescaped in place), never
// any other byte. An incomplete command is remembered as offsets, not
// pointers, so the caller may present the same bytes at a new address.
//
// The Append* functions never keep dst or their arguments. ParseReply copies
// what it returns; ReadReply only measures.
//
// # Differences from Redis 7.0
//
//   - Limits.MaxArgs bounds the multibulk count (Redis 7.0 accepts up to
//     INT_MAX arguments); a larger count is "invalid multibulk length".
//   - An inline line longer than MaxInline is refused even when its LF is
//     already there; Redis refuses it only if MaxInline bytes arrive before
//     the LF, which depends on how the reads were cut.
//   - Redis scans request lines with strchr, so a NUL byte before the line
//     end makes it wait for more input forever. Here NUL is an ordinary
//     byte: a multibulk header holding one is rejected, and inside an inline
//     line it ends the arguments, as it does in sdssplitargs.
//
// Like Redis, the parser skips the two bytes after a bulk payload and the
// byte after the CR of a header line without checking that they are CR LF.
package resp
