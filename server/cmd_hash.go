package server

import (
	"math"

	"go.uber.org/zap"

	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// Hash commands (Redis t_hash.c). Handlers check their arguments in
// Redis's order, call one store operation and reply; fields and values are
// appended to c.out by the store under its lock.

func cmdHSet(c *cmdCtx)  { hsetGeneric(c, false) }
func cmdHMSet(c *cmdCtx) { hsetGeneric(c, true) }

// hsetGeneric is HSET (the number of new fields) and HMSET (+OK).
func hsetGeneric(c *cmdCtx, hmset bool) {
	if len(c.args)%2 == 1 {
		c.errReply(errWrongArity(c.args[0]))
		return
	}
	n, st := c.store.HSet(c.db(), c.args[1], c.args[2:], c.now)
	if st == store.OK {
		c.notifyN(notifyHash, "hset", c.args[1], (len(c.args)-2)/2)
	}
	switch {
	case st != store.OK:
		c.errReply(statusError(st))
	case hmset:
		c.ok()
	default:
		c.integer(int64(n))
	}
}

func cmdHSetNX(c *cmdCtx) {
	set, st := c.store.HSetNX(c.db(), c.args[1], c.args[2], c.args[3], c.now)
	if set {
		c.notify(notifyHash, "hset", c.args[1])
	}
	c.intUnlessError(b2i(set), st)
}

// intUnlessError replies n, or the error of a status other than OK and
// NotFound.
func (c *cmdCtx) intUnlessError(n int64, st store.Status) {
	if st != store.OK && st != store.NotFound {
		c.errReply(statusError(st))
		return
	}
	c.integer(n)
}

func cmdHGet(c *cmdCtx) {
	var st store.Status
	c.out, st = c.store.HGet(c.db(), c.args[1], c.args[2], c.now, c.out, resp.AppendBulk)
	c.nullUnlessOK(st)
}

func cmdHMGet(c *cmdCtx) {
	mark := len(c.out)
	c.arrayLen(len(c.args) - 2)
	null := appendNull2
	if c.cl.proto >= 3 {
		null = appendNull3
	}
	var st store.Status
	c.out, st = c.store.HMGet(c.db(), c.args[1], c.args[2:], c.now, c.out, resp.AppendBulk, null)
	if st != store.OK {
		c.out = c.out[:mark]
		c.errReply(statusError(st))
	}
}

func cmdHDel(c *cmdCtx) {
	n, st := c.store.HDel(c.db(), c.args[1], c.args[2:], c.now)
	if n > 0 {
		c.notifyRemoved(notifyHash, "hdel", c.args[1], n)
	}
	c.intUnlessError(int64(n), st)
}

func cmdHExists(c *cmdCtx) {
	ok, st := c.store.HExists(c.db(), c.args[1], c.args[2], c.now)
	c.intUnlessError(b2i(ok), st)
}

func cmdHLen(c *cmdCtx) {
	n, st := c.store.HLen(c.db(), c.args[1], c.now)
	c.intUnlessError(int64(n), st)
}

func cmdHStrLen(c *cmdCtx) {
	n, st := c.store.HStrLen(c.db(), c.args[1], c.args[2], c.now)
	c.intUnlessError(int64(n), st)
}

func cmdHKeys(c *cmdCtx)   { hgetAll(c, store.HashFields) }
func cmdHVals(c *cmdCtx)   { hgetAll(c, store.HashValues) }
func cmdHGetAll(c *cmdCtx) { hgetAll(c, store.HashBoth) }

// hgetAll replies with the fields, values or both of a hash: a flat array,
// or for both a map in RESP3 (an array of 2n in RESP2), as Redis's
// genericHgetallCommand; a missing key is an empty array or map.
func hgetAll(c *cmdCtx, parts store.HashParts) {
	r := store.PairReply{Head: resp.AppendArrayLen, Elem: resp.AppendBulk}
	if parts == store.HashBoth {
		r.Head = appendPairsLen2
		if c.cl.proto >= 3 {
			r.Head = appendMapLen3
		}
	}
	var st store.Status
	c.out, st = c.store.HGetAll(c.db(), c.args[1], c.now, parts, c.out, r)
	switch st {
	case store.OK:
	case store.NotFound:
		c.out = r.Head(c.out, 0)
	default:
		c.errReply(statusError(st))
	}
}

// Heads of pair replies, plain functions so that the store's calls
// through them do not allocate.
func appendPairsLen2(dst []byte, n int) []byte { return resp.AppendArrayLen(dst, 2*n) }
func appendMapLen3(dst []byte, n int) []byte   { return resp.AppendMapLen(dst, n, 3) }
func appendPairEntry3(dst []byte) []byte       { return resp.AppendArrayLen(dst, 2) }

func cmdHIncrBy(c *cmdCtx) {
	delta, ok := intArg(c, c.args[3])
	if !ok {
		return
	}
	n, st := c.store.HIncrBy(c.db(), c.args[1], c.args[2], c.now, delta)
	if st != store.OK {
		c.errReply(statusError(st))
		return
	}
	c.notify(notifyHash, "hincrby", c.args[1])
	c.integer(n)
}

func cmdHIncrByFloat(c *cmdCtx) {
	var st store.Status
	c.out, st = c.store.HIncrByFloat(c.db(), c.args[1], c.args[2], c.args[3], c.now, c.out, resp.AppendBulk)
	if st != store.OK {
		c.errReply(statusError(st))
		return
	}
	c.notify(notifyHash, "hincrbyfloat", c.args[1])
}

// maxRandReply bounds the reply of HRANDFIELD with a negative count when
// the output buffer limit does not (client-output-buffer-limit normal 0).
const maxRandReply = 1 << 30

// cmdHRandField is HRANDFIELD key [count [WITHVALUES]].
func cmdHRandField(c *cmdCtx) {
	if len(c.args) == 2 {
		var st store.Status
		c.out, st = c.store.HRandField(c.db(), c.args[1], c.now, c.out, resp.AppendBulk)
		c.nullUnlessOK(st)
		return
	}
	count, withValues, ok := parseRandCount(c, "withvalues")
	if !ok {
		return
	}
	r := store.PairReply{Head: resp.AppendArrayLen, Elem: resp.AppendBulk}
	minEntry := int64(len("$0\r\n\r\n"))
	if withValues {
		minEntry *= 2
		if c.cl.proto >= 3 {
			r.Entry = appendPairEntry3
		} else {
			r.Head = appendPairsLen2
		}
	}
	randCountReply(c, count, minEntry, r.Head, func(n int64, maxOut int, head func([]byte, int) []byte) store.Status {
		r.Head = head
		var st store.Status
		c.out, st = c.store.HRandFieldCount(c.db(), c.args[1], c.now, n, withValues, maxOut, c.out, r)
		return st
	})
}

// parseRandCount parses the count and the option (withword) of
// HRANDFIELD and ZRANDMEMBER key count [WITHVALUES|WITHSCORES], replying
// with Redis's error when they are bad.
func parseRandCount(c *cmdCtx, withword string) (count int64, with, ok bool) {
	count, ok = intArg(c, c.args[2])
	if !ok {
		return 0, false, false
	}
	if count == math.MinInt64 {
		c.errReply(errRandCountRange)
		return 0, false, false
	}
	with = len(c.args) == 4
	if len(c.args) > 4 || (with && !optIs(c.args[3], withword)) {
		c.errReply(errSyntax)
		return 0, false, false
	}
	if with && (count < -math.MaxInt64/2 || count > math.MaxInt64/2) {
		c.errReply(errOutOfRange)
		return 0, false, false
	}
	return count, with, true
}

// randCountReply replies to HRANDFIELD or ZRANDMEMBER with a count, each
// draw appending n entries (all of them for a positive n) of at most
// maxOut bytes under one hold of the shard lock, with head writing the
// reply's header. A negative count asks for that many entries whatever
// the value's size: a reply that cannot fit the output buffer limit
// (minEntry bytes per entry at least) closes the client without being
// built, as Redis closes a client once its output passes the limit, and a
// long one is drawn randChunk entries per hold of the shard lock.
func randCountReply(c *cmdCtx, count, minEntry int64, head func([]byte, int) []byte,
	draw func(n int64, maxOut int, head func([]byte, int) []byte) store.Status) {
	limit := c.srv.cfg.outBufLimit.Load()
	if limit <= 0 || limit > maxRandReply {
		limit = maxRandReply
	}
	if count < 0 && -count > limit/minEntry {
		c.outputLimitClose()
		return
	}
	mark := len(c.out)
	if count >= -randChunk {
		randChunkReply(c, draw(count, int(limit), head), mark, true)
		return
	}
	total := func(dst []byte, _ int) []byte { return head(dst, int(-count)) }
	for left := -count; left > 0; left -= randChunk {
		st := draw(-min(left, randChunk), int(limit)-(len(c.out)-mark), total)
		if !randChunkReply(c, st, mark, left == -count) {
			return
		}
		total = noHead
	}
}

// randChunk is how many entries of HRANDFIELD or ZRANDMEMBER with a
// negative count are drawn under one hold of the shard lock.
const randChunk = 4096

func noHead(dst []byte, _ int) []byte { return dst }

// randChunkReply reports whether the reply goes on after a draw that
// returned st. The first chunk answers a missing key or a wrong type; a
// later one that finds the value gone, or any chunk past the output
// limit, drops the reply (from mark) and the client.
func randChunkReply(c *cmdCtx, st store.Status, mark int, first bool) bool {
	switch {
	case st == store.OK:
		return true
	case first && st == store.NotFound:
		c.arrayLen(0)
	case first && st != store.TooLarge:
		c.errReply(statusError(st))
	default:
		c.out = c.out[:mark]
		c.outputLimitClose()
	}
	return false
}

// outputLimitClose closes the client for a reply past the output buffer
// limit, as flush does for replies already built.
func (c *cmdCtx) outputLimitClose() {
	if c.srv.log != nil {
		c.srv.log.Warn("client scheduled to be closed for overcoming of output buffer limits",
			zap.Uint64("conn", c.cl.id))
	}
	c.cl.quit = true
}

// cmdHScan is HSCAN key cursor [MATCH pattern] [COUNT count]. As in Redis
// the cursor is checked first, then the key, then the options.
func cmdHScan(c *cmdCtx) {
	typedScan(c, store.TypeHash, func(cursor uint64, o store.ScanOptions, emit func([]byte)) (uint64, store.Status) {
		return c.store.HScan(c.db(), c.args[1], cursor, c.now, o, func(f, v []byte) {
			emit(f)
			emit(v)
		})
	})
}

// typedScan is HSCAN and ZSCAN key cursor [MATCH pattern] [COUNT count]
// over a value of type t, with scan one store call. As in Redis the
// cursor is checked first, then the key, then the options.
func typedScan(c *cmdCtx, t store.Type, scan func(cursor uint64, o store.ScanOptions, emit func([]byte)) (uint64, store.Status)) {
	cursor, ok := parseCursor(c.args[2])
	if !ok {
		c.errReply(errInvalidCursor)
		return
	}
	o, msg := parseScanOptions(c.args[3:], false)
	if msg != "" {
		switch c.store.TypeOf(c.db(), c.args[1], c.now) {
		case store.TypeNone:
			c.emptyScan()
		case t:
			c.errReply(msg)
		default:
			c.errReply(errWrongType)
		}
		return
	}
	mark := len(c.out)
	var st store.Status
	c.scanReply(func(emit func(v []byte)) uint64 {
		var next uint64
		next, st = scan(cursor, o, emit)
		return next
	})
	if st != store.OK {
		c.out = c.out[:mark]
		if st == store.NotFound {
			c.emptyScan()
			return
		}
		c.errReply(statusError(st))
	}
}

// emptyScan replies a finished scan with no elements.
func (c *cmdCtx) emptyScan() {
	c.arrayLen(2)
	c.bulkString("0")
	c.arrayLen(0)
}

var hashCommands = []command{
	{Name: "hset", Arity: -4, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catHash,
		Keys: []keySpec{{Flags: keyRW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Set the string value of a hash field", Since: "2.0.0", Group: "hash",
			Complexity: "O(1) for each field/value pair added, so O(N) to add N field/value pairs when the command is called with multiple field/value pairs.",
			History:    [][2]string{{"4.0.0", "Accepts multiple `field` and `value` arguments."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "field_value", Type: argBlock, Flags: argMultiple, Args: []cmdArg{
					{Name: "field", Type: argString},
					{Name: "value", Type: argString},
				}},
			}},
		Fn: cmdHSet},
	{Name: "hsetnx", Arity: 4, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catHash,
		Keys: []keySpec{{Flags: keyRW | keyInsert, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Set the value of a hash field, only if the field does not exist", Since: "2.0.0", Group: "hash",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "field", Type: argString},
				{Name: "value", Type: argString},
			}},
		Fn: cmdHSetNX},
	{Name: "hmset", Arity: -4, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catHash,
		Keys: []keySpec{{Flags: keyRW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Set multiple hash fields to multiple values", Since: "2.0.0", Group: "hash",
			Complexity:      "O(N) where N is the number of fields being set.",
			DocFlags:        docDeprecated,
			DeprecatedSince: "4.0.0",
			ReplacedBy:      "`HSET` with multiple field-value pairs",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "field_value", Type: argBlock, Flags: argMultiple, Args: []cmdArg{
					{Name: "field", Type: argString},
					{Name: "value", Type: argString},
				}},
			}},
		Fn: cmdHMSet},
	{Name: "hget", Arity: 3, Flags: flagReadOnly | flagFast, ACL: catHash,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get the value of a hash field", Since: "2.0.0", Group: "hash",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "field", Type: argString},
			}},
		Fn: cmdHGet},
	{Name: "hmget", Arity: -3, Flags: flagReadOnly | flagFast, ACL: catHash,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get the values of all the given hash fields", Since: "2.0.0", Group: "hash",
			Complexity: "O(N) where N is the number of fields being requested.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "field", Type: argString, Flags: argMultiple},
			}},
		Fn: cmdHMGet},
	{Name: "hdel", Arity: -3, Flags: flagWrite | flagFast, ACL: catHash,
		Keys: []keySpec{{Flags: keyRW | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Delete one or more hash fields", Since: "2.0.0", Group: "hash",
			Complexity: "O(N) where N is the number of fields to be removed.",
			History:    [][2]string{{"2.4.0", "Accepts multiple `field` arguments."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "field", Type: argString, Flags: argMultiple},
			}},
		Fn: cmdHDel},
	{Name: "hexists", Arity: 3, Flags: flagReadOnly | flagFast, ACL: catHash,
		Keys: []keySpec{{Flags: keyRO, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Determine if a hash field exists", Since: "2.0.0", Group: "hash",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "field", Type: argString},
			}},
		Fn: cmdHExists},
	{Name: "hlen", Arity: 2, Flags: flagReadOnly | flagFast, ACL: catHash,
		Keys: []keySpec{{Flags: keyRO, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get the number of fields in a hash", Since: "2.0.0", Group: "hash",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdHLen},
	{Name: "hstrlen", Arity: 3, Flags: flagReadOnly | flagFast, ACL: catHash,
		Keys: []keySpec{{Flags: keyRO, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get the length of the value of a hash field", Since: "3.2.0", Group: "hash",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "field", Type: argString},
			}},
		Fn: cmdHStrLen},
	{Name: "hkeys", Arity: 2, Flags: flagReadOnly, ACL: catHash,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Tips: []string{"nondeterministic_output_order"},
		Doc: cmdDoc{Summary: "Get all the fields in a hash", Since: "2.0.0", Group: "hash",
			Complexity: "O(N) where N is the size of the hash.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdHKeys},
	{Name: "hvals", Arity: 2, Flags: flagReadOnly, ACL: catHash,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Tips: []string{"nondeterministic_output_order"},
		Doc: cmdDoc{Summary: "Get all the values in a hash", Since: "2.0.0", Group: "hash",
			Complexity: "O(N) where N is the size of the hash.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdHVals},
	{Name: "hgetall", Arity: 2, Flags: flagReadOnly, ACL: catHash,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Tips: []string{"nondeterministic_output_order"},
		Doc: cmdDoc{Summary: "Get all the fields and values in a hash", Since: "2.0.0", Group: "hash",
			Complexity: "O(N) where N is the size of the hash.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdHGetAll},
	{Name: "hincrby", Arity: 4, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catHash,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Increment the integer value of a hash field by the given number", Since: "2.0.0", Group: "hash",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "field", Type: argString},
				{Name: "increment", Type: argInteger},
			}},
		Fn: cmdHIncrBy},
	{Name: "hincrbyfloat", Arity: 4, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catHash,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Increment the float value of a hash field by the given amount", Since: "2.6.0", Group: "hash",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "field", Type: argString},
				{Name: "increment", Type: argDouble},
			}},
		Fn: cmdHIncrByFloat},
	{Name: "hrandfield", Arity: -2, Flags: flagReadOnly, ACL: catHash,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Tips: []string{"nondeterministic_output"},
		Doc: cmdDoc{Summary: "Get one or multiple random fields from a hash", Since: "6.2.0", Group: "hash",
			Complexity: "O(N) where N is the number of fields returned",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "options", Type: argBlock, Flags: argOptional, Args: []cmdArg{
					{Name: "count", Type: argInteger},
					{Name: "withvalues", Type: argPureToken, Token: "WITHVALUES", Flags: argOptional},
				}},
			}},
		Fn: cmdHRandField},
	{Name: "hscan", Arity: -3, Flags: flagReadOnly, ACL: catHash,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Tips: []string{"nondeterministic_output"},
		Doc: cmdDoc{Summary: "Incrementally iterate hash fields and associated values", Since: "2.8.0", Group: "hash",
			Complexity: "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "cursor", Type: argInteger},
				{Name: "pattern", Type: argPattern, Token: "MATCH", Flags: argOptional},
				{Name: "count", Type: argInteger, Token: "COUNT", Flags: argOptional},
			}},
		Fn: cmdHScan},
}

func init() { register(hashCommands...) }
