package server

// Error replies, worded as Redis words them. Handlers reply with these
// through cmdCtx.errReply; texts that take an argument are built by the
// functions below.
const (
	errSyntax        = "ERR syntax error"
	errNotInteger    = "ERR value is not an integer or out of range"
	errNotFloat      = "ERR value is not a valid float"
	errOverflow      = "ERR increment or decrement would overflow"
	errWrongType     = "WRONGTYPE Operation against a key holding the wrong kind of value"
	errNoSuchKey     = "ERR no such key"
	errDBIndex       = "ERR DB index is out of range"
	errNoAuth        = "NOAUTH Authentication required."
	errWrongPass     = "WRONGPASS invalid username-password pair or user is disabled."
	errAuthNoPass    = "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"
	errOutOfRangeNeg = "ERR value is out of range, must be positive"

	// string and key commands
	errNaNOrInf      = "ERR increment would produce NaN or Infinity"
	errDecrOverflow  = "ERR decrement would overflow"
	errStringTooLong = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	errOffsetRange   = "ERR offset is out of range"
	errSameObject    = "ERR source and destination objects are the same"
	errInvalidCursor = "ERR invalid cursor"
	errIntRange      = "ERR value is out of range, value must between -2147483648 and 2147483647"
	errExpireNXCombo = "ERR NX and XX, GT or LT options at the same time are not compatible"
	errExpireGTLT    = "ERR GT and LT options at the same time are not compatible"

	// hash commands
	errHashNotInteger = "ERR hash value is not an integer"
	errHashNotFloat   = "ERR hash value is not a float"
	errNaNOrInfValue  = "ERR value is NaN or Infinity"
	errOutOfRange     = "ERR value is out of range"
	errRandCountRange = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
)

// errUnsupportedOption is EXPIRE's "ERR Unsupported option opt".
func errUnsupportedOption(opt []byte) string {
	return "ERR Unsupported option " + string(opt)
}

// errWrongArity is "ERR wrong number of arguments for 'name' command", with
// name in lower case as Redis prints it.
func errWrongArity(name []byte) string { return errArity(lowerString(name)) }

// errArity is errWrongArity for a command's full name ("config|get").
func errArity(full string) string {
	return "ERR wrong number of arguments for '" + full + "' command"
}

// errUnknownCommand is Redis's reply for a command it does not know: the
// name as sent and the first arguments, each quoted and cut to 128 bytes.
func errUnknownCommand(args [][]byte) string {
	s := "ERR unknown command '" + clip(args[0]) + "', with args beginning with: "
	for _, a := range args[1:] {
		s += "'" + clip(a) + "' "
	}
	return s
}

// errUnknownSubcommand is Redis's reply for an unknown subcommand of a
// container command such as CLIENT or CONFIG.
func errUnknownSubcommand(cmd string, sub []byte) string {
	return "ERR unknown subcommand '" + clip(sub) + "'. Try " + cmd + " HELP."
}

// errInvalidExpire is "ERR invalid expire time in 'cmd' command".
func errInvalidExpire(cmd []byte) string {
	return "ERR invalid expire time in '" + lowerString(cmd) + "' command"
}

func clip(b []byte) string {
	if len(b) > 128 {
		b = b[:128]
	}
	return string(b)
}

func lowerString(b []byte) string {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return string(out)
}
