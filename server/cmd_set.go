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
	errSRandRange      = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
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

// beginSet reserves the header of a set reply of unknown length and
// returns its mark.
func (c *cmdCtx) beginSet() int {
	var mark int
	c.out, mark = resp.BeginArray(c.out)
	return mark
}

// endSet writes the header reserved at mark for a set of n members: '~' in
// RESP3, '*' in RESP2.
func (c *cmdCtx) endSet(mark, n int) {
	c.out = resp.EndArray(c.out, mark, n)
	if c.cl.proto >= 3 {
		c.out[mark] = '~'
	}
}

// memberSet replies with the members run passes to emit as a set, or with
// the error of the status run returns (NotFound is the empty set).
func memberSet(c *cmdCtx, run func(emit func(m []byte)) store.Status) {
	mark, n := c.beginSet(), 0
	st := run(func(m []byte) {
		c.out = resp.AppendBulk(c.out, m)
		n++
	})
	if st != store.OK && st != store.NotFound {
		c.out = c.out[:mark]
		c.errReply(statusError(st))
		return
	}
	c.endSet(mark, n)
}

func cmdSAdd(c *cmdCtx) {
	n, st := c.store.SAdd(c.db(), c.args[1], c.args[2:], c.now)
	c.countOrErr(n, st)
}

func cmdSRem(c *cmdCtx) {
	n, st := c.store.SRem(c.db(), c.args[1], c.args[2:], c.now)
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
	memberSet(c, func(emit func(m []byte)) store.Status {
		return c.store.SMembers(c.db(), c.args[1], c.now, emit)
	})
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
		c.nullUnlessOK(st)
	}
}

func spopCount(c *cmdCtx) {
	n, ok := store.ParseInt(c.args[2])
	if !ok || n < 0 {
		c.errReply(errOutOfRangeNeg)
		return
	}
	memberSet(c, func(emit func(m []byte)) store.Status {
		return c.store.SPopCount(c.db(), c.args[1], uint64(n), c.now, emit)
	})
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
		c.errReply(errSRandRange)
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
	c.countOrErr(int(b2i(ok)), st)
}

func cmdSInter(c *cmdCtx) {
	memberSet(c, func(emit func(m []byte)) store.Status {
		_, st := c.store.SInter(c.db(), c.args[1:], c.now, 0, func(m []byte) bool { emit(m); return true })
		return st
	})
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
	memberSet(c, func(emit func(m []byte)) store.Status {
		return c.store.SUnion(c.db(), c.args[1:], c.now, emit)
	})
}

func cmdSDiff(c *cmdCtx) {
	memberSet(c, func(emit func(m []byte)) store.Status {
		return c.store.SDiff(c.db(), c.args[1:], c.now, emit)
	})
}

func cmdSInterStore(c *cmdCtx) {
	n, st := c.store.SInterStore(c.db(), c.args[1], c.args[2:], c.now)
	c.countOrErr(n, st)
}

func cmdSUnionStore(c *cmdCtx) {
	n, st := c.store.SUnionStore(c.db(), c.args[1], c.args[2:], c.now)
	c.countOrErr(n, st)
}

func cmdSDiffStore(c *cmdCtx) {
	n, st := c.store.SDiffStore(c.db(), c.args[1], c.args[2:], c.now)
	c.countOrErr(n, st)
}

// cmdSScan is SSCAN key cursor [MATCH pattern] [COUNT count]. As in Redis,
// the cursor is checked first, then the key (a missing key is an empty
// scan, whatever the options), then the options.
func cmdSScan(c *cmdCtx) {
	cursor, ok := parseCursor(c.args[2])
	if !ok {
		c.errReply(errInvalidCursor)
		return
	}
	if _, st := c.store.SCard(c.db(), c.args[1], c.now); st != store.OK {
		if st == store.NotFound {
			c.out = append(c.out, "*2\r\n$1\r\n0\r\n*0\r\n"...)
		} else {
			c.errReply(statusError(st))
		}
		return
	}
	o, ok := parseScanOptions(c, c.args[3:], false)
	if !ok {
		return
	}
	scanReply(c, func(emit func(e []byte)) uint64 {
		next, _ := c.store.SScan(c.db(), c.args[1], cursor, c.now, o, emit)
		return next
	})
}

var setCommands = []command{
	{Name: "sadd", Arity: -3, Flags: flagWrite | flagDenyOOM | flagFast, First: 1, Last: 1, Step: 1, Group: "set", Since: "1.0.0", Summary: "Add one or more members to a set", Fn: cmdSAdd},
	{Name: "srem", Arity: -3, Flags: flagWrite | flagFast, First: 1, Last: 1, Step: 1, Group: "set", Since: "1.0.0", Summary: "Remove one or more members from a set", Fn: cmdSRem},
	{Name: "scard", Arity: 2, Flags: flagReadOnly | flagFast, First: 1, Last: 1, Step: 1, Group: "set", Since: "1.0.0", Summary: "Get the number of members in a set", Fn: cmdSCard},
	{Name: "sismember", Arity: 3, Flags: flagReadOnly | flagFast, First: 1, Last: 1, Step: 1, Group: "set", Since: "1.0.0", Summary: "Determine if a given value is a member of a set", Fn: cmdSIsMember},
	{Name: "smismember", Arity: -3, Flags: flagReadOnly | flagFast, First: 1, Last: 1, Step: 1, Group: "set", Since: "6.2.0", Summary: "Returns the membership associated with the given elements for a set", Fn: cmdSMIsMember},
	{Name: "smembers", Arity: 2, Flags: flagReadOnly, First: 1, Last: 1, Step: 1, Group: "set", Since: "1.0.0", Summary: "Get all the members in a set", Fn: cmdSMembers},
	{Name: "srandmember", Arity: -2, Flags: flagReadOnly, First: 1, Last: 1, Step: 1, Group: "set", Since: "1.0.0", Summary: "Get one or multiple random members from a set", Fn: cmdSRandMember},
	{Name: "spop", Arity: -2, Flags: flagWrite | flagFast, First: 1, Last: 1, Step: 1, Group: "set", Since: "1.0.0", Summary: "Remove and return one or multiple random members from a set", Fn: cmdSPop},
	{Name: "smove", Arity: 4, Flags: flagWrite | flagFast, First: 1, Last: 2, Step: 1, Group: "set", Since: "1.0.0", Summary: "Move a member from one set to another", Fn: cmdSMove},
	{Name: "sinter", Arity: -2, Flags: flagReadOnly, First: 1, Last: -1, Step: 1, Group: "set", Since: "1.0.0", Summary: "Intersect multiple sets", Fn: cmdSInter},
	{Name: "sintercard", Arity: -3, Flags: flagReadOnly, Group: "set", Since: "7.0.0", Summary: "Intersect multiple sets and return the cardinality of the result", Fn: cmdSInterCard},
	{Name: "sinterstore", Arity: -3, Flags: flagWrite | flagDenyOOM, First: 1, Last: -1, Step: 1, Group: "set", Since: "1.0.0", Summary: "Intersect multiple sets and store the resulting set in a key", Fn: cmdSInterStore},
	{Name: "sunion", Arity: -2, Flags: flagReadOnly, First: 1, Last: -1, Step: 1, Group: "set", Since: "1.0.0", Summary: "Add multiple sets", Fn: cmdSUnion},
	{Name: "sunionstore", Arity: -3, Flags: flagWrite | flagDenyOOM, First: 1, Last: -1, Step: 1, Group: "set", Since: "1.0.0", Summary: "Add multiple sets and store the resulting set in a key", Fn: cmdSUnionStore},
	{Name: "sdiff", Arity: -2, Flags: flagReadOnly, First: 1, Last: -1, Step: 1, Group: "set", Since: "1.0.0", Summary: "Subtract multiple sets", Fn: cmdSDiff},
	{Name: "sdiffstore", Arity: -3, Flags: flagWrite | flagDenyOOM, First: 1, Last: -1, Step: 1, Group: "set", Since: "1.0.0", Summary: "Subtract multiple sets and store the resulting set in a key", Fn: cmdSDiffStore},
	{Name: "sscan", Arity: -3, Flags: flagReadOnly, First: 1, Last: 1, Step: 1, Group: "set", Since: "2.8.0", Summary: "Incrementally iterate Set elements", Fn: cmdSScan},
}
