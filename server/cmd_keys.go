package server

import (
	"math"

	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// Key commands (Redis db.c, expire.c): existence, TTLs, renaming, iteration
// and flushing.

func cmdDel(c *cmdCtx) { c.integer(int64(c.delKeys(c.args[1:]))) }

// cmdExists is EXISTS and TOUCH: the number of arguments naming a live key,
// a key named twice counting twice.
func cmdExists(c *cmdCtx) { c.integer(int64(c.store.CountExisting(c.db(), c.args[1:], c.now))) }

func cmdType(c *cmdCtx) { c.simple(c.store.Type(c.db(), c.args[1], c.now)) }

func cmdExpire(c *cmdCtx)    { expireGeneric(c, c.now, true) }
func cmdPExpire(c *cmdCtx)   { expireGeneric(c, c.now, false) }
func cmdExpireAt(c *cmdCtx)  { expireGeneric(c, 0, true) }
func cmdPExpireAt(c *cmdCtx) { expireGeneric(c, 0, false) }

// expireGeneric is Redis's expireGenericCommand: key when [NX|XX|GT|LT]...,
// when in seconds or ms, relative to base (now, or 0 for the *AT forms).
func expireGeneric(c *cmdCtx, base int64, seconds bool) {
	cond, ok := parseExpireCond(c)
	if !ok {
		return
	}
	when, ok := intArg(c, c.args[2])
	if !ok {
		return
	}
	if seconds {
		if when > math.MaxInt64/1000 || when < math.MinInt64/1000 {
			c.errReply(errInvalidExpire(c.args[0]))
			return
		}
		when *= 1000
	}
	if when > math.MaxInt64-base {
		c.errReply(errInvalidExpire(c.args[0]))
		return
	}
	changed := c.store.Expire(c.db(), c.args[1], c.now, when+base, cond)
	if changed {
		c.notifyExpire(when+base, c.args[1])
	}
	c.integer(b2i(changed))
}

// parseExpireCond parses EXPIRE's NX, XX, GT and LT options, replying with
// Redis's error when one is unknown or they conflict.
func parseExpireCond(c *cmdCtx) (store.ExpireCond, bool) {
	var cond store.ExpireCond
	for _, opt := range c.args[3:] {
		switch {
		case optIs(opt, "nx"):
			cond |= store.ExpireNX
		case optIs(opt, "xx"):
			cond |= store.ExpireXX
		case optIs(opt, "gt"):
			cond |= store.ExpireGT
		case optIs(opt, "lt"):
			cond |= store.ExpireLT
		default:
			c.errReply(errUnsupportedOption(opt))
			return 0, false
		}
	}
	if cond&store.ExpireNX != 0 && cond&(store.ExpireXX|store.ExpireGT|store.ExpireLT) != 0 {
		c.errReply(errExpireNXCombo)
		return 0, false
	}
	if cond&store.ExpireGT != 0 && cond&store.ExpireLT != 0 {
		c.errReply(errExpireGTLT)
		return 0, false
	}
	return cond, true
}

func cmdTTL(c *cmdCtx)         { ttlGeneric(c, false, false) }
func cmdPTTL(c *cmdCtx)        { ttlGeneric(c, true, false) }
func cmdExpireTime(c *cmdCtx)  { ttlGeneric(c, false, true) }
func cmdPExpireTime(c *cmdCtx) { ttlGeneric(c, true, true) }

// ttlGeneric is Redis's ttlGenericCommand: -2 for no key, -1 for no TTL,
// else the remaining TTL (or absolute time when abs), in ms or rounded
// seconds.
func ttlGeneric(c *cmdCtx, ms, abs bool) {
	at := c.store.ExpireAt(c.db(), c.args[1], c.now)
	if at < 0 {
		c.integer(at)
		return
	}
	ttl := at
	if !abs {
		ttl = max(at-c.now, 0)
	}
	if !ms {
		ttl = (ttl + 500) / 1000
	}
	c.integer(ttl)
}

func cmdPersist(c *cmdCtx) {
	done := c.store.Persist(c.db(), c.args[1], c.now)
	if done {
		c.notify(notifyGeneric, "persist", c.args[1])
	}
	c.integer(b2i(done))
}

func cmdRename(c *cmdCtx) {
	if st := c.store.Rename(c.db(), c.args[1], c.args[2], c.now, false); st != store.OK {
		c.errReply(statusError(st))
		return
	}
	c.notifyRename()
	c.ok()
}

func cmdRenameNX(c *cmdCtx) {
	switch st := c.store.Rename(c.db(), c.args[1], c.args[2], c.now, true); st {
	case store.OK:
		c.notifyRename()
		c.integer(1)
	case store.NotSet:
		c.integer(0)
	default:
		c.errReply(statusError(st))
	}
}

// cmdCopy is COPY source destination [DB destination-db] [REPLACE].
func cmdCopy(c *cmdCtx) {
	dstDB, replace := c.db(), false
	for j := 3; j < len(c.args); j++ {
		switch {
		case optIs(c.args[j], "replace"):
			replace = true
		case optIs(c.args[j], "db") && j+1 < len(c.args):
			n, ok := intArg(c, c.args[j+1])
			if !ok {
				return
			}
			if n < math.MinInt32 || n > math.MaxInt32 {
				c.errReply(errIntRange)
				return
			}
			if n < 0 || n >= int64(c.store.Databases()) {
				c.errReply(errDBIndex)
				return
			}
			dstDB = int(n)
			j++
		default:
			c.errReply(errSyntax)
			return
		}
	}
	switch st := c.store.Copy(c.db(), c.args[1], dstDB, c.args[2], c.now, replace); st {
	case store.OK:
		c.addDirty(1)
		c.publishIn(dstDB, notifyGeneric, "copy_to", c.args[2])
		c.integer(1)
	case store.NotFound, store.NotSet:
		c.integer(0)
	default:
		c.errReply(statusError(st))
	}
}

func cmdKeys(c *cmdCtx) {
	out, mark := resp.BeginArray(c.out)
	n := 0
	c.store.Keys(c.db(), c.args[1], c.now, func(key []byte) {
		out = resp.AppendBulk(out, key)
		n++
	})
	c.out = resp.EndArray(out, mark, n)
}

// cmdScan is SCAN cursor [MATCH pattern] [COUNT count] [TYPE type].
func cmdScan(c *cmdCtx) {
	cursor, ok := parseCursor(c.args[1])
	if !ok {
		c.errReply(errInvalidCursor)
		return
	}
	o, msg := parseScanOptions(c.args[2:], true)
	if msg != "" {
		c.errReply(msg)
		return
	}
	c.scanReply(func(emit func(v []byte)) uint64 {
		return c.store.Scan(c.db(), cursor, c.now, o, emit)
	})
}

// parseScanOptions parses the options of SCAN (withType) and of HSCAN,
// SSCAN and ZSCAN, as Redis's scanGenericCommand does, returning the error
// text of the first bad one.
func parseScanOptions(args [][]byte, withType bool) (o store.ScanOptions, msg string) {
	for i := 0; i < len(args); i += 2 {
		opt, more := args[i], i+1 < len(args)
		switch {
		case more && optIs(opt, "count"):
			n, ok := store.ParseInt(args[i+1])
			if !ok {
				return o, errNotInteger
			}
			if n < 1 {
				return o, errSyntax
			}
			o.Count = int(min(n, math.MaxInt32))
		case more && optIs(opt, "match"):
			o.Pattern = args[i+1]
			if len(o.Pattern) == 1 && o.Pattern[0] == '*' {
				o.Pattern = nil
			}
		case more && withType && optIs(opt, "type"):
			o.Type = args[i+1]
		default:
			return o, errSyntax
		}
	}
	return o, ""
}

// scanReply replies a SCAN-family [cursor, [elements]]: scan appends the
// elements through emit and returns the next cursor, which is written in
// front of them afterwards.
func (c *cmdCtx) scanReply(scan func(emit func(v []byte)) uint64) {
	c.arrayLen(2)
	mark := len(c.out)
	c.out = append(c.out, "$00000000000000000000\r\n00000000000000000000\r\n"...)
	out, amark := resp.BeginArray(c.out)
	n := 0
	next := scan(func(v []byte) {
		out = resp.AppendBulk(out, v)
		n++
	})
	out = resp.EndArray(out, amark, n)
	// Write the cursor into its reserved slot and close the gap.
	var tmp [48]byte
	cur := appendUintBulk(tmp[:0], next)
	const reserved = len("$00000000000000000000\r\n00000000000000000000\r\n")
	copy(out[mark:], cur)
	copy(out[mark+len(cur):], out[mark+reserved:])
	c.out = out[:len(out)-reserved+len(cur)]
}

// appendUintBulk appends n as a bulk string of decimal digits.
func appendUintBulk(dst []byte, n uint64) []byte {
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return resp.AppendBulk(dst, d[i:])
}

// parseCursor parses a SCAN cursor as Redis's strtoul-based
// parseScanCursorOrReply does: optional sign (a '-' wraps), decimal digits,
// nothing else; an empty cursor is 0.
func parseCursor(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, true
	}
	neg := false
	switch b[0] {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return 0, false
	case '+', '-':
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var v uint64
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-uint64(ch-'0'))/10 {
			return 0, false
		}
		v = v*10 + uint64(ch-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

func cmdRandomKey(c *cmdCtx) {
	var ok bool
	if c.out, ok = c.store.RandomKey(c.db(), c.now, c.out, resp.AppendBulk); !ok {
		c.null()
	}
}

func cmdDBSize(c *cmdCtx) { c.integer(int64(c.store.DBSize(c.db()))) }

func cmdFlushDB(c *cmdCtx) {
	if flushArgsOK(c) {
		c.addDirty(c.store.DBSize(c.db()))
		c.store.FlushDB(c.db())
		c.ok()
	}
}

func cmdFlushAll(c *cmdCtx) {
	if flushArgsOK(c) {
		c.addDirty(c.flushAllCount())
		c.store.FlushAll()
		c.ok()
	}
}

// flushArgsOK accepts FLUSHDB/FLUSHALL with no argument, SYNC or ASYNC
// (both flush at once here), replying with a syntax error otherwise.
func flushArgsOK(c *cmdCtx) bool {
	if len(c.args) == 1 || (len(c.args) == 2 && (optIs(c.args[1], "sync") || optIs(c.args[1], "async"))) {
		return true
	}
	c.errReply(errSyntax)
	return false
}

var keyCommands = []command{
	{Name: "del", Arity: -2, Flags: flagWrite, ACL: catKeyspace,
		Tips: []string{"request_policy:multi_shard", "response_policy:agg_sum"},
		Keys: []keySpec{{Flags: keyRM | keyDelete, BS: bsIndex(1), FK: fkRange(-1, 1, 0)}},
		Doc: cmdDoc{Summary: "Delete a key", Since: "1.0.0", Group: "generic",
			Complexity: "O(N) where N is the number of keys that will be removed. When a key to remove holds a value other than a string, the individual complexity for this key is O(M) where M is the number of elements in the list, set, sorted set or hash. Removing a single key that holds a string value is O(1).",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
			}},
		Fn: cmdDel},
	{Name: "unlink", Arity: -2, Flags: flagWrite | flagFast, ACL: catKeyspace,
		Tips: []string{"request_policy:multi_shard", "response_policy:agg_sum"},
		Keys: []keySpec{{Flags: keyRM | keyDelete, BS: bsIndex(1), FK: fkRange(-1, 1, 0)}},
		Doc: cmdDoc{Summary: "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non blocking.", Since: "4.0.0", Group: "generic",
			Complexity: "O(1) for each key removed regardless of its size. Then the command does O(N) work in a different thread in order to reclaim memory, where N is the number of allocations the deleted objects where composed of.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
			}},
		Fn: cmdDel},
	{Name: "exists", Arity: -2, Flags: flagReadOnly | flagFast, ACL: catKeyspace,
		Tips: []string{"request_policy:multi_shard", "response_policy:agg_sum"},
		Keys: []keySpec{{Flags: keyRO, BS: bsIndex(1), FK: fkRange(-1, 1, 0)}},
		Doc: cmdDoc{Summary: "Determine if a key exists", Since: "1.0.0", Group: "generic",
			Complexity: "O(N) where N is the number of keys to check.",
			History:    [][2]string{{"3.0.3", "Accepts multiple `key` arguments."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
			}},
		Fn: cmdExists},
	{Name: "touch", Arity: -2, Flags: flagReadOnly | flagFast, ACL: catKeyspace,
		Tips: []string{"request_policy:multi_shard", "response_policy:agg_sum"},
		Keys: []keySpec{{Flags: keyRO, BS: bsIndex(1), FK: fkRange(-1, 1, 0)}},
		Doc: cmdDoc{Summary: "Alters the last access time of a key(s). Returns the number of existing keys specified.", Since: "3.2.1", Group: "generic",
			Complexity: "O(N) where N is the number of keys that will be touched.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
			}},
		Fn: cmdExists},
	{Name: "type", Arity: 2, Flags: flagReadOnly | flagFast, ACL: catKeyspace,
		Keys: []keySpec{{Flags: keyRO, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Determine the type stored at key", Since: "1.0.0", Group: "generic",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdType},
	{Name: "expire", Arity: -3, Flags: flagWrite | flagFast, ACL: catKeyspace,
		Keys: []keySpec{{Flags: keyRW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Set a key's time to live in seconds", Since: "1.0.0", Group: "generic",
			Complexity: "O(1)",
			History:    [][2]string{{"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "seconds", Type: argInteger},
				{Name: "condition", Type: argOneOf, Since: "7.0.0", Flags: argOptional, Args: []cmdArg{
					{Name: "nx", Type: argPureToken, Token: "NX"},
					{Name: "xx", Type: argPureToken, Token: "XX"},
					{Name: "gt", Type: argPureToken, Token: "GT"},
					{Name: "lt", Type: argPureToken, Token: "LT"},
				}},
			}},
		Fn: cmdExpire},
	{Name: "pexpire", Arity: -3, Flags: flagWrite | flagFast, ACL: catKeyspace,
		Keys: []keySpec{{Flags: keyRW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Set a key's time to live in milliseconds", Since: "2.6.0", Group: "generic",
			Complexity: "O(1)",
			History:    [][2]string{{"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "milliseconds", Type: argInteger},
				{Name: "condition", Type: argOneOf, Since: "7.0.0", Flags: argOptional, Args: []cmdArg{
					{Name: "nx", Type: argPureToken, Token: "NX"},
					{Name: "xx", Type: argPureToken, Token: "XX"},
					{Name: "gt", Type: argPureToken, Token: "GT"},
					{Name: "lt", Type: argPureToken, Token: "LT"},
				}},
			}},
		Fn: cmdPExpire},
	{Name: "expireat", Arity: -3, Flags: flagWrite | flagFast, ACL: catKeyspace,
		Keys: []keySpec{{Flags: keyRW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Set the expiration for a key as a UNIX timestamp", Since: "1.2.0", Group: "generic",
			Complexity: "O(1)",
			History:    [][2]string{{"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "unix-time-seconds", Type: argUnixTime},
				{Name: "condition", Type: argOneOf, Since: "7.0.0", Flags: argOptional, Args: []cmdArg{
					{Name: "nx", Type: argPureToken, Token: "NX"},
					{Name: "xx", Type: argPureToken, Token: "XX"},
					{Name: "gt", Type: argPureToken, Token: "GT"},
					{Name: "lt", Type: argPureToken, Token: "LT"},
				}},
			}},
		Fn: cmdExpireAt},
	{Name: "pexpireat", Arity: -3, Flags: flagWrite | flagFast, ACL: catKeyspace,
		Keys: []keySpec{{Flags: keyRW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Set the expiration for a key as a UNIX timestamp specified in milliseconds", Since: "2.6.0", Group: "generic",
			Complexity: "O(1)",
			History:    [][2]string{{"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "unix-time-milliseconds", Type: argUnixTime},
				{Name: "condition", Type: argOneOf, Since: "7.0.0", Flags: argOptional, Args: []cmdArg{
					{Name: "nx", Type: argPureToken, Token: "NX"},
					{Name: "xx", Type: argPureToken, Token: "XX"},
					{Name: "gt", Type: argPureToken, Token: "GT"},
					{Name: "lt", Type: argPureToken, Token: "LT"},
				}},
			}},
		Fn: cmdPExpireAt},
	{Name: "ttl", Arity: 2, Flags: flagReadOnly | flagFast, ACL: catKeyspace,
		Tips: []string{"nondeterministic_output"},
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get the time to live for a key in seconds", Since: "1.0.0", Group: "generic",
			Complexity: "O(1)",
			History:    [][2]string{{"2.8.0", "Added the -2 reply."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdTTL},
	{Name: "pttl", Arity: 2, Flags: flagReadOnly | flagFast, ACL: catKeyspace,
		Tips: []string{"nondeterministic_output"},
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get the time to live for a key in milliseconds", Since: "2.6.0", Group: "generic",
			Complexity: "O(1)",
			History:    [][2]string{{"2.8.0", "Added the -2 reply."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdPTTL},
	{Name: "expiretime", Arity: 2, Flags: flagReadOnly | flagFast, ACL: catKeyspace,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get the expiration Unix timestamp for a key", Since: "7.0.0", Group: "generic",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdExpireTime},
	{Name: "pexpiretime", Arity: 2, Flags: flagReadOnly | flagFast, ACL: catKeyspace,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get the expiration Unix timestamp for a key in milliseconds", Since: "7.0.0", Group: "generic",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdPExpireTime},
	{Name: "persist", Arity: 2, Flags: flagWrite | flagFast, ACL: catKeyspace,
		Keys: []keySpec{{Flags: keyRW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Remove the expiration from a key", Since: "2.2.0", Group: "generic",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdPersist},
	{Name: "rename", Arity: 3, Flags: flagWrite, ACL: catKeyspace,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Flags: keyOW | keyUpdate, BS: bsIndex(2), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Rename a key", Since: "1.0.0", Group: "generic",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "newkey", Type: argKey, KeySpec: 1},
			}},
		Fn: cmdRename},
	{Name: "renamenx", Arity: 3, Flags: flagWrite | flagFast, ACL: catKeyspace,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Flags: keyOW | keyInsert, BS: bsIndex(2), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Rename a key, only if the new key does not exist", Since: "1.0.0", Group: "generic",
			Complexity: "O(1)",
			History:    [][2]string{{"3.2.0", "The command no longer returns an error when source and destination names are the same."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "newkey", Type: argKey, KeySpec: 1},
			}},
		Fn: cmdRenameNX},
	{Name: "copy", Arity: -3, Flags: flagWrite | flagDenyOOM, ACL: catKeyspace,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Flags: keyOW | keyUpdate, BS: bsIndex(2), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Copy a key", Since: "6.2.0", Group: "generic",
			Complexity: "O(N) worst case for collections, where N is the number of nested items. O(1) for string values.",
			Args: []cmdArg{
				{Name: "source", Type: argKey, KeySpec: 0},
				{Name: "destination", Type: argKey, KeySpec: 1},
				{Name: "destination-db", Type: argInteger, Token: "DB", Flags: argOptional},
				{Name: "replace", Type: argPureToken, Token: "REPLACE", Flags: argOptional},
			}},
		Fn: cmdCopy},
	{Name: "keys", Arity: 2, Flags: flagReadOnly, ACL: catKeyspace | catDangerous,
		Tips: []string{"request_policy:all_shards", "nondeterministic_output_order"},
		Doc: cmdDoc{Summary: "Find all keys matching the given pattern", Since: "1.0.0", Group: "generic",
			Complexity: "O(N) with N being the number of keys in the database, under the assumption that the key names in the database and the given pattern have limited length.",
			Args: []cmdArg{
				{Name: "pattern", Type: argPattern},
			}},
		Fn: cmdKeys},
	{Name: "scan", Arity: -2, Flags: flagReadOnly, ACL: catKeyspace,
		Tips: []string{"nondeterministic_output", "request_policy:special"},
		Doc: cmdDoc{Summary: "Incrementally iterate the keys space", Since: "2.8.0", Group: "generic",
			Complexity: "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.",
			History:    [][2]string{{"6.0.0", "Added the `TYPE` subcommand."}},
			Args: []cmdArg{
				{Name: "cursor", Type: argInteger},
				{Name: "pattern", Type: argPattern, Token: "MATCH", Flags: argOptional},
				{Name: "count", Type: argInteger, Token: "COUNT", Flags: argOptional},
				{Name: "type", Type: argString, Token: "TYPE", Since: "6.0.0", Flags: argOptional},
			}},
		Fn: cmdScan},
	{Name: "randomkey", Arity: 1, Flags: flagReadOnly, ACL: catKeyspace,
		Tips: []string{"request_policy:all_shards", "nondeterministic_output"},
		Doc: cmdDoc{Summary: "Return a random key from the keyspace", Since: "1.0.0", Group: "generic",
			Complexity: "O(1)"},
		Fn: cmdRandomKey},
	{Name: "dbsize", Arity: 1, Flags: flagReadOnly | flagFast, ACL: catKeyspace,
		Tips: []string{"request_policy:all_shards", "response_policy:agg_sum"},
		Doc: cmdDoc{Summary: "Return the number of keys in the selected database", Since: "1.0.0", Group: "server",
			Complexity: "O(1)"},
		Fn: cmdDBSize},
	{Name: "flushdb", Arity: -1, Flags: flagWrite, ACL: catKeyspace | catDangerous,
		Tips: []string{"request_policy:all_shards", "response_policy:all_succeeded"},
		Doc: cmdDoc{Summary: "Remove all keys from the current database", Since: "1.0.0", Group: "server",
			Complexity: "O(N) where N is the number of keys in the selected database",
			History:    [][2]string{{"4.0.0", "Added the `ASYNC` flushing mode modifier."}, {"6.2.0", "Added the `SYNC` flushing mode modifier."}},
			Args: []cmdArg{
				{Name: "async", Type: argOneOf, Flags: argOptional, Args: []cmdArg{
					{Name: "async", Type: argPureToken, Token: "ASYNC", Since: "4.0.0"},
					{Name: "sync", Type: argPureToken, Token: "SYNC", Since: "6.2.0"},
				}},
			}},
		Fn: cmdFlushDB},
	{Name: "flushall", Arity: -1, Flags: flagWrite, ACL: catKeyspace | catDangerous,
		Tips: []string{"request_policy:all_shards", "response_policy:all_succeeded"},
		Doc: cmdDoc{Summary: "Remove all keys from all databases", Since: "1.0.0", Group: "server",
			Complexity: "O(N) where N is the total number of keys in all databases",
			History:    [][2]string{{"4.0.0", "Added the `ASYNC` flushing mode modifier."}, {"6.2.0", "Added the `SYNC` flushing mode modifier."}},
			Args: []cmdArg{
				{Name: "async", Type: argOneOf, Flags: argOptional, Args: []cmdArg{
					{Name: "async", Type: argPureToken, Token: "ASYNC", Since: "4.0.0"},
					{Name: "sync", Type: argPureToken, Token: "SYNC", Since: "6.2.0"},
				}},
			}},
		Fn: cmdFlushAll},
}

func init() { register(keyCommands...) }
