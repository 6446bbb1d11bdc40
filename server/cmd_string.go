package server

import (
	"math"

	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// String commands (Redis t_string.c). Handlers check their arguments, call
// one store operation and reply; values are appended to c.out by the store
// under its lock through resp.AppendBulk.

// optIs reports whether arg equals the lower-case word, ignoring ASCII case,
// without allocating.
func optIs(arg []byte, word string) bool {
	if len(arg) != len(word) {
		return false
	}
	for i, ch := range arg {
		if 'A' <= ch && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		if ch != word[i] {
			return false
		}
	}
	return true
}

// Flags of SET and GETEX options (Redis OBJ_SET_* and OBJ_EX...).
const (
	optNX = 1 << iota
	optXX
	optGet
	optKeepTTL
	optPersist
	optEX
	optPX
	optEXAT
	optPXAT

	optAnyExpire = optEX | optPX | optEXAT | optPXAT
)

// parseSetOptions parses the options of SET (isSet) or GETEX from args, as
// Redis's parseExtendedStringArgumentsOrReply does: a repeated option is
// allowed, conflicting ones are a syntax error. It returns the flags and
// the expire argument, or ok false after replying with the error.
func parseSetOptions(c *cmdCtx, args [][]byte, isSet bool) (flags int, expire []byte, ok bool) {
	for j := 0; j < len(args); j++ {
		opt := args[j]
		hasNext := j+1 < len(args)
		switch {
		case isSet && optIs(opt, "nx") && flags&optXX == 0:
			flags |= optNX
		case isSet && optIs(opt, "xx") && flags&optNX == 0:
			flags |= optXX
		case isSet && optIs(opt, "get"):
			flags |= optGet
		case isSet && optIs(opt, "keepttl") && flags&(optPersist|optAnyExpire) == 0:
			flags |= optKeepTTL
		case !isSet && optIs(opt, "persist") && flags&(optKeepTTL|optAnyExpire) == 0:
			flags |= optPersist
		case hasNext && flags&(optKeepTTL|optPersist) == 0 && expireOpt(opt, flags) != 0:
			flags |= expireOpt(opt, flags)
			expire = args[j+1]
			j++
		default:
			c.errReply(errSyntax)
			return 0, nil, false
		}
	}
	return flags, expire, true
}

// expireOpt returns the flag of the expire option opt (EX, PX, EXAT, PXAT),
// or 0 when opt is none of them or conflicts with another expire option in
// flags.
func expireOpt(opt []byte, flags int) int {
	var f int
	switch {
	case optIs(opt, "ex"):
		f = optEX
	case optIs(opt, "px"):
		f = optPX
	case optIs(opt, "exat"):
		f = optEXAT
	case optIs(opt, "pxat"):
		f = optPXAT
	default:
		return 0
	}
	if flags&optAnyExpire&^f != 0 {
		return 0
	}
	return f
}

// expireMillis turns the expire argument of SET, SETEX, PSETEX or GETEX
// into a Unix ms time, as Redis's getExpireMillisecondsOrReply does; flags
// has exactly one of the expire options. ok is false after an error reply.
func expireMillis(c *cmdCtx, arg []byte, flags int) (int64, bool) {
	ms, msg := expireMillisOf(c, arg, flags)
	if msg != "" {
		c.errReply(msg)
		return 0, false
	}
	return ms, true
}

// expireMillisOf is expireMillis without the reply: it returns the error
// text instead.
func expireMillisOf(c *cmdCtx, arg []byte, flags int) (int64, string) {
	ms, ok := store.ParseInt(arg)
	if !ok {
		return 0, errNotInteger
	}
	seconds := flags&(optEX|optEXAT) != 0
	if ms <= 0 || (seconds && ms > math.MaxInt64/1000) {
		return 0, errInvalidExpire(c.args[0])
	}
	if seconds {
		ms *= 1000
	}
	if flags&(optEX|optPX) != 0 {
		ms += c.now
	}
	if ms <= 0 {
		return 0, errInvalidExpire(c.args[0])
	}
	return ms, ""
}

func cmdGet(c *cmdCtx) {
	var st store.Status
	c.out, st = c.store.Get(c.db(), c.args[1], c.now, c.out, resp.AppendBulk)
	c.nullUnlessOK(st)
}

// nullUnlessOK replies a null for NotFound and the error of any other
// status but OK, after which the handler has already replied.
func (c *cmdCtx) nullUnlessOK(st store.Status) {
	switch st {
	case store.OK:
	case store.NotFound:
		c.null()
	default:
		c.errReply(statusError(st))
	}
}

// setKeyFlags gives SET's key its flags for one call: read and modified
// with GET, else overwritten (Redis's setGetKeys).
func setKeyFlags(args [][]byte, _ int) keyFlags {
	for i := 3; i < len(args); i++ {
		if equalFoldLower(args[i], "get") {
			return keyRW | keyAccess | keyUpdate
		}
	}
	return keyOW | keyUpdate
}

// cmdSet is SET key value [NX|XX] [GET] [EX s|PX ms|EXAT t|PXAT tms|KEEPTTL].
func cmdSet(c *cmdCtx) {
	flags, exp, ok := parseSetOptions(c, c.args[3:], true)
	if !ok {
		return
	}
	var o store.SetOptions
	if exp != nil {
		if o.ExpireAt, ok = expireMillis(c, exp, flags); !ok {
			return
		}
	}
	o.KeepTTL = flags&optKeepTTL != 0
	switch {
	case flags&optNX != 0:
		o.Mode = store.SetNX
	case flags&optXX != 0:
		o.Mode = store.SetXX
	}
	setGeneric(c, o, flags&optGet != 0)
}

// setGeneric sets args[1] to args[2] and replies as SET does: +OK, or a
// null when NX/XX failed; with get, the old value or a null.
func setGeneric(c *cmdCtx, o store.SetOptions, get bool) {
	if get {
		var found bool
		var st store.Status
		c.out, found, st = c.store.SetGet(c.db(), c.args[1], c.args[2], c.now, o, c.out, resp.AppendBulk)
		if st == store.OK {
			c.notifySet(o)
		}
		if st == store.WrongType {
			c.errReply(errWrongType)
		} else if !found {
			c.null()
		}
		return
	}
	if c.store.Set(c.db(), c.args[1], c.args[2], c.now, o) != store.OK {
		c.null()
		return
	}
	c.notifySet(o)
	c.ok()
}

func cmdSetNX(c *cmdCtx) {
	st := c.store.Set(c.db(), c.args[1], c.args[2], c.now, store.SetOptions{Mode: store.SetNX})
	if st == store.OK {
		c.notify(notifyString, "set", c.args[1])
	}
	c.integer(b2i(st == store.OK))
}

func cmdSetEX(c *cmdCtx)  { setExpiring(c, optEX) }
func cmdPSetEX(c *cmdCtx) { setExpiring(c, optPX) }

// setExpiring is SETEX and PSETEX: key ttl value.
func setExpiring(c *cmdCtx, unit int) {
	at, ok := expireMillis(c, c.args[2], unit)
	if !ok {
		return
	}
	if c.store.Set(c.db(), c.args[1], c.args[3], c.now, store.SetOptions{ExpireAt: at}) == store.OK {
		c.notifySet(store.SetOptions{ExpireAt: at})
		c.ok()
	}
}

func cmdGetSet(c *cmdCtx) { setGeneric(c, store.SetOptions{}, true) }

func cmdGetDel(c *cmdCtx) {
	var st store.Status
	c.out, st = c.store.GetDel(c.db(), c.args[1], c.now, c.out, resp.AppendBulk)
	if st == store.OK {
		c.notify(notifyGeneric, "del", c.args[1])
	}
	c.nullUnlessOK(st)
}

// cmdGetEx is GETEX key [EX s|PX ms|EXAT t|PXAT tms|PERSIST].
func cmdGetEx(c *cmdCtx) {
	flags, exp, ok := parseSetOptions(c, c.args[2:], false)
	if !ok {
		return
	}
	var o store.GetExOptions
	if exp != nil {
		// Redis looks the key up before it checks the expire time.
		var msg string
		if o.ExpireAt, msg = expireMillisOf(c, exp, flags); msg != "" {
			if c.store.Exists(c.db(), c.args[1], c.now) {
				c.errReply(msg)
			} else {
				c.null()
			}
			return
		}
	}
	o.Persist = flags&optPersist != 0
	var st store.Status
	c.out, st = c.store.GetEx(c.db(), c.args[1], c.now, o, c.out, resp.AppendBulk)
	if st == store.OK {
		switch {
		case o.ExpireAt != 0 && o.ExpireAt <= c.now:
			c.notify(notifyGeneric, "del", c.args[1])
		case o.ExpireAt != 0:
			c.notify(notifyGeneric, "expire", c.args[1])
		case o.Persist:
			c.notify(notifyGeneric, "persist", c.args[1])
		}
	}
	c.nullUnlessOK(st)
}

func cmdMGet(c *cmdCtx) {
	c.arrayLen(len(c.args) - 1)
	null := appendNull2
	if c.cl.proto >= 3 {
		null = appendNull3
	}
	c.out = c.store.MGet(c.db(), c.args[1:], c.now, c.out, resp.AppendBulk, null)
}

// appendNull2 and appendNull3 are resp.AppendNull for each protocol, as
// plain functions that the store can call without a closure.
func appendNull2(dst []byte) []byte { return resp.AppendNull(dst, 2) }
func appendNull3(dst []byte) []byte { return resp.AppendNull(dst, 3) }

func cmdMSet(c *cmdCtx) {
	if len(c.args)%2 == 0 {
		c.errReply(errWrongArity(c.args[0]))
		return
	}
	c.store.MSet(c.db(), c.args[1:], c.now)
	c.notifyPairs(notifyString, "set")
	c.ok()
}

func cmdMSetNX(c *cmdCtx) {
	if len(c.args)%2 == 0 {
		c.errReply(errWrongArity(c.args[0]))
		return
	}
	set := c.store.MSetNX(c.db(), c.args[1:], c.now)
	if set {
		c.notifyPairs(notifyString, "set")
	}
	c.integer(b2i(set))
}

func cmdIncr(c *cmdCtx) { incrBy(c, 1) }
func cmdDecr(c *cmdCtx) { incrBy(c, -1) }

func cmdIncrBy(c *cmdCtx) {
	if n, ok := intArg(c, c.args[2]); ok {
		incrBy(c, n)
	}
}

func cmdDecrBy(c *cmdCtx) {
	n, ok := intArg(c, c.args[2])
	if !ok {
		return
	}
	if n == math.MinInt64 {
		c.errReply(errDecrOverflow)
		return
	}
	incrBy(c, -n)
}

// incrBy adds delta to the integer at args[1] and replies with the result.
func incrBy(c *cmdCtx, delta int64) {
	n, st := c.store.IncrBy(c.db(), c.args[1], c.now, delta)
	if st != store.OK {
		c.errReply(statusError(st))
		return
	}
	c.notify(notifyString, "incrby", c.args[1])
	c.integer(n)
}

func cmdIncrByFloat(c *cmdCtx) {
	var st store.Status
	c.out, st = c.store.IncrByFloat(c.db(), c.args[1], c.now, c.args[2], c.out, resp.AppendBulk)
	if st != store.OK {
		c.errReply(statusError(st))
		return
	}
	c.notify(notifyString, "incrbyfloat", c.args[1])
}

func cmdAppend(c *cmdCtx) {
	n, st := c.store.Append(c.db(), c.args[1], c.args[2], c.now)
	if st != store.OK {
		c.errReply(statusError(st))
		return
	}
	c.notify(notifyString, "append", c.args[1])
	c.integer(int64(n))
}

func cmdStrLen(c *cmdCtx) {
	n, st := c.store.StrLen(c.db(), c.args[1], c.now)
	if st == store.WrongType {
		c.errReply(errWrongType)
		return
	}
	c.integer(int64(n))
}

func cmdGetRange(c *cmdCtx) {
	start, ok := intArg(c, c.args[2])
	if !ok {
		return
	}
	end, ok := intArg(c, c.args[3])
	if !ok {
		return
	}
	var st store.Status
	c.out, st = c.store.GetRange(c.db(), c.args[1], c.now, start, end, c.out, resp.AppendBulk)
	if st == store.WrongType {
		c.errReply(errWrongType)
	} else if st != store.OK {
		c.bulk(nil)
	}
}

func cmdSetRange(c *cmdCtx) {
	off, ok := intArg(c, c.args[2])
	if !ok {
		return
	}
	if off < 0 {
		c.errReply(errOffsetRange)
		return
	}
	n, st := c.store.SetRange(c.db(), c.args[1], off, c.args[3], c.now)
	if st != store.OK {
		c.errReply(statusError(st))
		return
	}
	if len(c.args[3]) > 0 {
		c.notify(notifyString, "setrange", c.args[1])
	}
	c.integer(int64(n))
}

// intArg parses an integer argument as Redis's getLongLongFromObjectOrReply
// does, replying with the error when it is not one.
func intArg(c *cmdCtx, arg []byte) (int64, bool) {
	n, ok := store.ParseInt(arg)
	if !ok {
		c.errReply(errNotInteger)
	}
	return n, ok
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

var stringCommands = []command{
	{Name: "get", Arity: 2, Flags: flagReadOnly | flagFast, ACL: catString,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get the value of a key", Since: "1.0.0", Group: "string",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdGet},
	{Name: "set", Arity: -3, Flags: flagWrite | flagDenyOOM, ACL: catString,
		Keys:     []keySpec{{Notes: "RW and ACCESS due to the optional `GET` argument", Flags: keyRW | keyAccess | keyUpdate | keyVariableFlags, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		KeyFlags: setKeyFlags,
		Doc: cmdDoc{Summary: "Set the string value of a key", Since: "1.0.0", Group: "string",
			Complexity: "O(1)",
			History:    [][2]string{{"2.6.12", "Added the `EX`, `PX`, `NX` and `XX` options."}, {"6.0.0", "Added the `KEEPTTL` option."}, {"6.2.0", "Added the `GET`, `EXAT` and `PXAT` option."}, {"7.0.0", "Allowed the `NX` and `GET` options to be used together."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "value", Type: argString},
				{Name: "condition", Type: argOneOf, Since: "2.6.12", Flags: argOptional, Args: []cmdArg{
					{Name: "nx", Type: argPureToken, Token: "NX"},
					{Name: "xx", Type: argPureToken, Token: "XX"},
				}},
				{Name: "get", Type: argPureToken, Token: "GET", Since: "6.2.0", Flags: argOptional},
				{Name: "expiration", Type: argOneOf, Flags: argOptional, Args: []cmdArg{
					{Name: "seconds", Type: argInteger, Token: "EX", Since: "2.6.12"},
					{Name: "milliseconds", Type: argInteger, Token: "PX", Since: "2.6.12"},
					{Name: "unix-time-seconds", Type: argUnixTime, Token: "EXAT", Since: "6.2.0"},
					{Name: "unix-time-milliseconds", Type: argUnixTime, Token: "PXAT", Since: "6.2.0"},
					{Name: "keepttl", Type: argPureToken, Token: "KEEPTTL", Since: "6.0.0"},
				}},
			}},
		Fn: cmdSet},
	{Name: "setnx", Arity: 3, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catString,
		Keys: []keySpec{{Flags: keyOW | keyInsert, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Set the value of a key, only if the key does not exist", Since: "1.0.0", Group: "string",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "value", Type: argString},
			}},
		Fn: cmdSetNX},
	{Name: "setex", Arity: 4, Flags: flagWrite | flagDenyOOM, ACL: catString,
		Keys: []keySpec{{Flags: keyOW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Set the value and expiration of a key", Since: "2.0.0", Group: "string",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "seconds", Type: argInteger},
				{Name: "value", Type: argString},
			}},
		Fn: cmdSetEX},
	{Name: "psetex", Arity: 4, Flags: flagWrite | flagDenyOOM, ACL: catString,
		Keys: []keySpec{{Flags: keyOW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Set the value and expiration in milliseconds of a key", Since: "2.6.0", Group: "string",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "milliseconds", Type: argInteger},
				{Name: "value", Type: argString},
			}},
		Fn: cmdPSetEX},
	{Name: "getset", Arity: 3, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catString,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Set the string value of a key and return its old value", Since: "1.0.0", Group: "string",
			Complexity: "O(1)",
			DocFlags:   docDeprecated, DeprecatedSince: "6.2.0", ReplacedBy: "`SET` with the `!GET` argument",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "value", Type: argString},
			}},
		Fn: cmdGetSet},
	{Name: "getdel", Arity: 2, Flags: flagWrite | flagFast, ACL: catString,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get the value of a key and delete the key", Since: "6.2.0", Group: "string",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdGetDel},
	{Name: "getex", Arity: -2, Flags: flagWrite | flagFast, ACL: catString,
		Keys: []keySpec{{Notes: "RW and UPDATE because it changes the TTL", Flags: keyRW | keyAccess | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get the value of a key and optionally set its expiration", Since: "6.2.0", Group: "string",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "expiration", Type: argOneOf, Flags: argOptional, Args: []cmdArg{
					{Name: "seconds", Type: argInteger, Token: "EX"},
					{Name: "milliseconds", Type: argInteger, Token: "PX"},
					{Name: "unix-time-seconds", Type: argUnixTime, Token: "EXAT"},
					{Name: "unix-time-milliseconds", Type: argUnixTime, Token: "PXAT"},
					{Name: "persist", Type: argPureToken, Token: "PERSIST"},
				}},
			}},
		Fn: cmdGetEx},
	{Name: "mget", Arity: -2, Flags: flagReadOnly | flagFast, ACL: catString,
		Tips: []string{"request_policy:multi_shard"},
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(-1, 1, 0)}},
		Doc: cmdDoc{Summary: "Get the values of all the given keys", Since: "1.0.0", Group: "string",
			Complexity: "O(N) where N is the number of keys to retrieve.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
			}},
		Fn: cmdMGet},
	{Name: "mset", Arity: -3, Flags: flagWrite | flagDenyOOM, ACL: catString,
		Tips: []string{"request_policy:multi_shard", "response_policy:all_succeeded"},
		Keys: []keySpec{{Flags: keyOW | keyUpdate, BS: bsIndex(1), FK: fkRange(-1, 2, 0)}},
		Doc: cmdDoc{Summary: "Set multiple keys to multiple values", Since: "1.0.1", Group: "string",
			Complexity: "O(N) where N is the number of keys to set.",
			Args: []cmdArg{
				{Name: "key_value", Type: argBlock, Flags: argMultiple, Args: []cmdArg{
					{Name: "key", Type: argKey, KeySpec: 0},
					{Name: "value", Type: argString},
				}},
			}},
		Fn: cmdMSet},
	{Name: "msetnx", Arity: -3, Flags: flagWrite | flagDenyOOM, ACL: catString,
		Tips: []string{"request_policy:multi_shard", "response_policy:agg_min"},
		Keys: []keySpec{{Flags: keyOW | keyInsert, BS: bsIndex(1), FK: fkRange(-1, 2, 0)}},
		Doc: cmdDoc{Summary: "Set multiple keys to multiple values, only if none of the keys exist", Since: "1.0.1", Group: "string",
			Complexity: "O(N) where N is the number of keys to set.",
			Args: []cmdArg{
				{Name: "key_value", Type: argBlock, Flags: argMultiple, Args: []cmdArg{
					{Name: "key", Type: argKey, KeySpec: 0},
					{Name: "value", Type: argString},
				}},
			}},
		Fn: cmdMSetNX},
	{Name: "incr", Arity: 2, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catString,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Increment the integer value of a key by one", Since: "1.0.0", Group: "string",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdIncr},
	{Name: "decr", Arity: 2, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catString,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Decrement the integer value of a key by one", Since: "1.0.0", Group: "string",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdDecr},
	{Name: "incrby", Arity: 3, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catString,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Increment the integer value of a key by the given amount", Since: "1.0.0", Group: "string",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "increment", Type: argInteger},
			}},
		Fn: cmdIncrBy},
	{Name: "decrby", Arity: 3, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catString,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Decrement the integer value of a key by the given number", Since: "1.0.0", Group: "string",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "decrement", Type: argInteger},
			}},
		Fn: cmdDecrBy},
	{Name: "incrbyfloat", Arity: 3, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catString,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Increment the float value of a key by the given amount", Since: "2.6.0", Group: "string",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "increment", Type: argDouble},
			}},
		Fn: cmdIncrByFloat},
	{Name: "append", Arity: 3, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catString,
		Keys: []keySpec{{Flags: keyRW | keyInsert, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Append a value to a key", Since: "2.0.0", Group: "string",
			Complexity: "O(1). The amortized time complexity is O(1) assuming the appended value is small and the already present value is of any size, since the dynamic string library used by Redis will double the free space available on every reallocation.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "value", Type: argString},
			}},
		Fn: cmdAppend},
	{Name: "strlen", Arity: 2, Flags: flagReadOnly | flagFast, ACL: catString,
		Keys: []keySpec{{Flags: keyRO, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get the length of the value stored in a key", Since: "2.2.0", Group: "string",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdStrLen},
	{Name: "getrange", Arity: 4, Flags: flagReadOnly, ACL: catString,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get a substring of the string stored at a key", Since: "2.4.0", Group: "string",
			Complexity: "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "start", Type: argInteger},
				{Name: "end", Type: argInteger},
			}},
		Fn: cmdGetRange},
	{Name: "setrange", Arity: 4, Flags: flagWrite | flagDenyOOM, ACL: catString,
		Keys: []keySpec{{Flags: keyRW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Overwrite part of a string at key starting at the specified offset", Since: "2.2.0", Group: "string",
			Complexity: "O(1), not counting the time taken to copy the new string in place. Usually, this string is very small so the amortized complexity is O(1). Otherwise, complexity is O(M) with M being the length of the value argument.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "offset", Type: argInteger},
				{Name: "value", Type: argString},
			}},
		Fn: cmdSetRange},
}

func init() { register(stringCommands...) }
