package server

import (
	"math"

	"go.uber.org/zap"

	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// Set commands (Redis t_set.c). Members are appended to c.out by the store
// under its lock; replies whose length is known only at the end reserve
// their header (beginSet, endSet). SMEMBERS, SINTER, SUNION, SDIFF and SPOP
// with a count answer RESP3 sets, SRANDMEMBER with a count and SMISMEMBER
// arrays, as Redis 7.0 does.

const (
	errNumKeysZero     = "ERR numkeys should be greater than 0"
	errNumKeysTooMany  = "ERR Number of keys can't be greater than number of args"
	errLimitNegative   = "ERR LIMIT can't be negative"
	logOutputOverLimit = "client scheduled to be closed for overcoming of output buffer limits"
)

// countOrErr replies with n, or with the error of st when it is neither OK
// nor NotFound (a missing key counts as an empty set).
func (c *cmdCtx) countOrErr(n int, st store.Status) {
	if st != store.OK && st != store.NotFound {
		c.errReply(statusError(st))
		return
	}
	c.integer(int64(n))
}

// members builds a set reply of unknown length: begin reserves its
// header, add (the store's callback) appends a member, end writes the
// header or, for an error status, drops the reply and answers the error
// (NotFound is the empty set). RESP3 gets a set ('~'), RESP2 an array.
type members struct {
	c       *cmdCtx
	mark, n int
}

func (c *cmdCtx) beginMembers() members {
	ms := members{c: c}
	c.out, ms.mark = resp.BeginArray(c.out)
	return ms
}

func (ms *members) add(m []byte) {
	ms.c.out = resp.AppendBulk(ms.c.out, m)
	ms.n++
}

func (ms *members) end(st store.Status) {
	c := ms.c
	if st != store.OK && st != store.NotFound {
		c.out = c.out[:ms.mark]
		c.errReply(statusError(st))
		return
	}
	c.out = resp.EndArray(c.out, ms.mark, ms.n)
	if c.cl.proto >= 3 {
		c.out[ms.mark] = '~'
	}
}

func cmdSAdd(c *cmdCtx) {
	n, st := c.store.SAdd(c.db(), c.args[1], c.args[2:], c.now)
	if n > 0 {
		c.notifyN(notifySet, "sadd", c.args[1], n)
	}
	c.countOrErr(n, st)
}

func cmdSRem(c *cmdCtx) {
	n, st := c.store.SRem(c.db(), c.args[1], c.args[2:], c.now)
	if n > 0 {
		c.notifyRemoved(notifySet, "srem", c.args[1], n)
	}
	c.countOrErr(n, st)
}

func cmdSCard(c *cmdCtx) {
	n, st := c.store.SCard(c.db(), c.args[1], c.now)
	c.countOrErr(n, st)
}

func cmdSIsMember(c *cmdCtx) {
	ok, st := c.store.SIsMember(c.db(), c.args[1], c.args[2], c.now)
	c.countOrErr(int(b2i(ok)), st)
}

func cmdSMIsMember(c *cmdCtx) {
	mark := len(c.out)
	c.arrayLen(len(c.args) - 2)
	st := c.store.SMIsMember(c.db(), c.args[1], c.args[2:], c.now, func(found bool) {
		c.integer(b2i(found))
	})
	if st != store.OK {
		c.out = c.out[:mark]
		c.errReply(statusError(st))
	}
}

func cmdSMembers(c *cmdCtx) {
	ms := c.beginMembers()
	ms.end(c.store.SMembers(c.db(), c.args[1], c.now, ms.add))
}

// cmdSPop is SPOP key [count].
func cmdSPop(c *cmdCtx) {
	switch {
	case len(c.args) > 3:
		c.errReply(errSyntax)
	case len(c.args) == 3:
		spopCount(c)
	default:
		var st store.Status
		c.out, st = c.store.SPop(c.db(), c.args[1], c.now, c.out, resp.AppendBulk)
		if st == store.OK {
			c.notifyRemoved(notifySet, "spop", c.args[1], 1)
		}
		c.nullUnlessOK(st)
	}
}

func spopCount(c *cmdCtx) {
	n, ok := store.ParseInt(c.args[2])
	if !ok || n < 0 {
		c.errReply(errOutOfRangeNeg)
		return
	}
	ms := c.beginMembers()
	st := c.store.SPopCount(c.db(), c.args[1], uint64(n), c.now, ms.add)
	if ms.n > 0 {
		c.notifyRemoved(notifySet, "spop", c.args[1], ms.n)
	}
	ms.end(st)
}

// cmdSRandMember is SRANDMEMBER key [count].
func cmdSRandMember(c *cmdCtx) {
	switch {
	case len(c.args) > 3:
		c.errReply(errSyntax)
	case len(c.args) == 3:
		srandCount(c)
	default:
		var st store.Status
		c.out, st = c.store.SRandMember(c.db(), c.args[1], c.now, c.out, resp.AppendBulk)
		c.nullUnlessOK(st)
	}
}

// srandCount answers SRANDMEMBER key count with an array. A negative count
// asks for that many members with repeats, which Redis writes until the
// client passes its output buffer limit and is closed; so does this, having
// dropped the unfinished reply.
func srandCount(c *cmdCtx) {
	n, ok := store.ParseInt(c.args[2])
	if !ok {
		c.errReply(errNotInteger)
		return
	}
	if n == math.MinInt64 {
		c.errReply(errRandCountRange)
		return
	}
	limit := c.srv.cfg.outBufLimit.Load()
	mark, count, over := len(c.out), 0, false
	c.out, _ = resp.BeginArray(c.out)
	st := c.store.SRandMemberCount(c.db(), c.args[1], n, c.now, func(m []byte) bool {
		c.out = resp.AppendBulk(c.out, m)
		count++
		over = int64(len(c.out)-mark) > limit
		return !over
	})
	switch {
	case over:
		c.srv.log.Warn(logOutputOverLimit, zap.Uint64("conn", c.cl.id), zap.Int("omem", len(c.out)-mark))
		c.out = c.out[:mark]
		c.cl.quit = true
	case st != store.OK && st != store.NotFound:
		c.out = c.out[:mark]
		c.errReply(statusError(st))
	default:
		c.out = resp.EndArray(c.out, mark, count)
	}
}

func cmdSMove(c *cmdCtx) {
	ok, st := c.store.SMove(c.db(), c.args[1], c.args[2], c.args[3], c.now)
	if ok {
		c.notifySMove()
	}
	c.countOrErr(int(b2i(ok)), st)
}

func cmdSInter(c *cmdCtx) {
	ms := c.beginMembers()
	_, st := c.store.SInter(c.db(), c.args[1:], c.now, 0, ms.add)
	ms.end(st)
}

// cmdSInterCard is SINTERCARD numkeys key [key ...] [LIMIT limit].
func cmdSInterCard(c *cmdCtx) {
	nk, ok := store.ParseInt(c.args[1])
	if !ok || nk < 1 {
		c.errReply(errNumKeysZero)
		return
	}
	if nk > int64(len(c.args)-2) {
		c.errReply(errNumKeysTooMany)
		return
	}
	keys := c.args[2 : 2+nk]
	var limit int64
	for j := 2 + int(nk); j < len(c.args); j++ {
		if !optIs(c.args[j], "limit") || j+1 >= len(c.args) {
			c.errReply(errSyntax)
			return
		}
		j++
		if limit, ok = store.ParseInt(c.args[j]); !ok || limit < 0 {
			c.errReply(errLimitNegative)
			return
		}
	}
	n, st := c.store.SInter(c.db(), keys, c.now, int(min(limit, math.MaxInt)), nil)
	c.countOrErr(n, st)
}

func cmdSUnion(c *cmdCtx) {
	ms := c.beginMembers()
	ms.end(c.store.SUnion(c.db(), c.args[1:], c.now, ms.add))
}

func cmdSDiff(c *cmdCtx) {
	ms := c.beginMembers()
	ms.end(c.store.SDiff(c.db(), c.args[1:], c.now, ms.add))
}

func cmdSInterStore(c *cmdCtx) {
	n, st := c.store.SInterStore(c.db(), c.args[1], c.args[2:], c.now)
	if st == store.OK {
		c.notifyStore(notifySet, "sinterstore", c.args[1], n)
	}
	c.countOrErr(n, st)
}

func cmdSUnionStore(c *cmdCtx) {
	n, st := c.store.SUnionStore(c.db(), c.args[1], c.args[2:], c.now)
	if st == store.OK {
		c.notifyStore(notifySet, "sunionstore", c.args[1], n)
	}
	c.countOrErr(n, st)
}

func cmdSDiffStore(c *cmdCtx) {
	n, st := c.store.SDiffStore(c.db(), c.args[1], c.args[2:], c.now)
	if st == store.OK {
		c.notifyStore(notifySet, "sdiffstore", c.args[1], n)
	}
	c.countOrErr(n, st)
}

// cmdSScan is SSCAN key cursor [MATCH pattern] [COUNT count]. As in Redis,
// the cursor is checked first, then the key (a missing key is an empty
// scan, whatever the options), then the options; the key is looked up
// once either way.
func cmdSScan(c *cmdCtx) {
	cursor, ok := parseCursor(c.args[2])
	if !ok {
		c.errReply(errInvalidCursor)
		return
	}
	o, msg := parseScanOptions(c.args[3:], false)
	if msg != "" {
		switch _, st := c.store.SCard(c.db(), c.args[1], c.now); st {
		case store.NotFound:
			c.scanReply(func(func([]byte)) uint64 { return 0 })
		case store.OK:
			c.errReply(msg)
		default:
			c.errReply(statusError(st))
		}
		return
	}
	mark := len(c.out)
	var st store.Status
	c.scanReply(func(emit func(e []byte)) uint64 {
		var next uint64
		next, st = c.store.SScan(c.db(), c.args[1], cursor, c.now, o, emit)
		return next
	})
	if st == store.WrongType {
		c.out = c.out[:mark]
		c.errReply(errWrongType)
	}
}

var setCommands = []command{
	{Name: "sadd", Arity: -3, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catSet,
		Keys: []keySpec{{Flags: keyRW | keyInsert, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Add one or more members to a set", Since: "1.0.0", Group: "set",
			Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
			History:    [][2]string{{"2.4.0", "Accepts multiple `member` arguments."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "member", Type: argString, Flags: argMultiple},
			}},
		Fn: cmdSAdd},
	{Name: "srem", Arity: -3, Flags: flagWrite | flagFast, ACL: catSet,
		Keys: []keySpec{{Flags: keyRW | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Remove one or more members from a set", Since: "1.0.0", Group: "set",
			Complexity: "O(N) where N is the number of members to be removed.",
			History:    [][2]string{{"2.4.0", "Accepts multiple `member` arguments."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "member", Type: argString, Flags: argMultiple},
			}},
		Fn: cmdSRem},
	{Name: "scard", Arity: 2, Flags: flagReadOnly | flagFast, ACL: catSet,
		Keys: []keySpec{{Flags: keyRO, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get the number of members in a set", Since: "1.0.0", Group: "set",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdSCard},
	{Name: "sismember", Arity: 3, Flags: flagReadOnly | flagFast, ACL: catSet,
		Keys: []keySpec{{Flags: keyRO, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Determine if a given value is a member of a set", Since: "1.0.0", Group: "set",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "member", Type: argString},
			}},
		Fn: cmdSIsMember},
	{Name: "smismember", Arity: -3, Flags: flagReadOnly | flagFast, ACL: catSet,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Returns the membership associated with the given elements for a set", Since: "6.2.0", Group: "set",
			Complexity: "O(N) where N is the number of elements being checked for membership",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "member", Type: argString, Flags: argMultiple},
			}},
		Fn: cmdSMIsMember},
	{Name: "smembers", Arity: 2, Flags: flagReadOnly, ACL: catSet,
		Tips: []string{"nondeterministic_output_order"},
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get all the members in a set", Since: "1.0.0", Group: "set",
			Complexity: "O(N) where N is the set cardinality.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdSMembers},
	{Name: "srandmember", Arity: -2, Flags: flagReadOnly, ACL: catSet,
		Tips: []string{"nondeterministic_output"},
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get one or multiple random members from a set", Since: "1.0.0", Group: "set",
			Complexity: "Without the count argument O(1), otherwise O(N) where N is the absolute value of the passed count.",
			History:    [][2]string{{"2.6.0", "Added the optional `count` argument."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "count", Type: argInteger, Since: "2.6.0", Flags: argOptional},
			}},
		Fn: cmdSRandMember},
	{Name: "spop", Arity: -2, Flags: flagWrite | flagFast, ACL: catSet,
		Tips: []string{"nondeterministic_output"},
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Remove and return one or multiple random members from a set", Since: "1.0.0", Group: "set",
			Complexity: "Without the count argument O(1), otherwise O(N) where N is the value of the passed count.",
			History:    [][2]string{{"3.2.0", "Added the `count` argument."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "count", Type: argInteger, Since: "3.2.0", Flags: argOptional},
			}},
		Fn: cmdSPop},
	{Name: "smove", Arity: 4, Flags: flagWrite | flagFast, ACL: catSet,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Flags: keyRW | keyInsert, BS: bsIndex(2), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Move a member from one set to another", Since: "1.0.0", Group: "set",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "source", Type: argKey, KeySpec: 0},
				{Name: "destination", Type: argKey, KeySpec: 1},
				{Name: "member", Type: argString},
			}},
		Fn: cmdSMove},
	{Name: "sinter", Arity: -2, Flags: flagReadOnly, ACL: catSet,
		Tips: []string{"nondeterministic_output_order"},
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(-1, 1, 0)}},
		Doc: cmdDoc{Summary: "Intersect multiple sets", Since: "1.0.0", Group: "set",
			Complexity: "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
			}},
		Fn: cmdSInter},
	{Name: "sintercard", Arity: -3, Flags: flagReadOnly, ACL: catSet,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkKeyNum(0, 1, 1)}},
		Doc: cmdDoc{Summary: "Intersect multiple sets and return the cardinality of the result", Since: "7.0.0", Group: "set",
			Complexity: "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
			Args: []cmdArg{
				{Name: "numkeys", Type: argInteger},
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
				{Name: "limit", Type: argInteger, Token: "LIMIT", Flags: argOptional},
			}},
		Fn: cmdSInterCard},
	{Name: "sinterstore", Arity: -3, Flags: flagWrite | flagDenyOOM, ACL: catSet,
		Keys: []keySpec{{Flags: keyRW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Flags: keyRO | keyAccess, BS: bsIndex(2), FK: fkRange(-1, 1, 0)}},
		Doc: cmdDoc{Summary: "Intersect multiple sets and store the resulting set in a key", Since: "1.0.0", Group: "set",
			Complexity: "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
			Args: []cmdArg{
				{Name: "destination", Type: argKey, KeySpec: 0},
				{Name: "key", Type: argKey, KeySpec: 1, Flags: argMultiple},
			}},
		Fn: cmdSInterStore},
	{Name: "sunion", Arity: -2, Flags: flagReadOnly, ACL: catSet,
		Tips: []string{"nondeterministic_output_order"},
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(-1, 1, 0)}},
		Doc: cmdDoc{Summary: "Add multiple sets", Since: "1.0.0", Group: "set",
			Complexity: "O(N) where N is the total number of elements in all given sets.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
			}},
		Fn: cmdSUnion},
	{Name: "sunionstore", Arity: -3, Flags: flagWrite | flagDenyOOM, ACL: catSet,
		Keys: []keySpec{{Flags: keyOW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Flags: keyRO | keyAccess, BS: bsIndex(2), FK: fkRange(-1, 1, 0)}},
		Doc: cmdDoc{Summary: "Add multiple sets and store the resulting set in a key", Since: "1.0.0", Group: "set",
			Complexity: "O(N) where N is the total number of elements in all given sets.",
			Args: []cmdArg{
				{Name: "destination", Type: argKey, KeySpec: 0},
				{Name: "key", Type: argKey, KeySpec: 1, Flags: argMultiple},
			}},
		Fn: cmdSUnionStore},
	{Name: "sdiff", Arity: -2, Flags: flagReadOnly, ACL: catSet,
		Tips: []string{"nondeterministic_output_order"},
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(-1, 1, 0)}},
		Doc: cmdDoc{Summary: "Subtract multiple sets", Since: "1.0.0", Group: "set",
			Complexity: "O(N) where N is the total number of elements in all given sets.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
			}},
		Fn: cmdSDiff},
	{Name: "sdiffstore", Arity: -3, Flags: flagWrite | flagDenyOOM, ACL: catSet,
		Keys: []keySpec{{Flags: keyOW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Flags: keyRO | keyAccess, BS: bsIndex(2), FK: fkRange(-1, 1, 0)}},
		Doc: cmdDoc{Summary: "Subtract multiple sets and store the resulting set in a key", Since: "1.0.0", Group: "set",
			Complexity: "O(N) where N is the total number of elements in all given sets.",
			Args: []cmdArg{
				{Name: "destination", Type: argKey, KeySpec: 0},
				{Name: "key", Type: argKey, KeySpec: 1, Flags: argMultiple},
			}},
		Fn: cmdSDiffStore},
	{Name: "sscan", Arity: -3, Flags: flagReadOnly, ACL: catSet,
		Tips: []string{"nondeterministic_output"},
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Incrementally iterate Set elements", Since: "2.8.0", Group: "set",
			Complexity: "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "cursor", Type: argInteger},
				{Name: "pattern", Type: argPattern, Token: "MATCH", Flags: argOptional},
				{Name: "count", Type: argInteger, Token: "COUNT", Flags: argOptional},
			}},
		Fn: cmdSScan},
}

func init() { register(setCommands...) }
