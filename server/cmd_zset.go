package server

import (
	"math"

	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// Sorted-set commands (Redis t_zset.c). Handlers check their arguments in
// Redis's order, call one store operation and reply; members and scores
// are appended to c.out by the store under its lock. Scores print as Redis
// 7.0 prints doubles: "%.17g" (inf and -inf spelled out), a bulk string in
// RESP2 and a double in RESP3.

const (
	errZAddXXNX      = "ERR XX and NX options at the same time are not compatible"
	errZAddGTLTNX    = "ERR GT, LT, and/or NX options at the same time are not compatible"
	errZAddIncrPairs = "ERR INCR option supports a single increment-element pair"
	errZNaN          = "ERR resulting score is not a number (NaN)"
	errZMinMaxFloat  = "ERR min or max is not a float"
	errZMinMaxLex    = "ERR min or max not valid string range item"
	errZLimitRank    = "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
	errZLexScores    = "ERR syntax error, WITHSCORES not supported in combination with BYLEX"
	errZWeight       = "ERR weight value is not a float"
	errZCountZero    = "ERR count should be greater than 0"
	errZNumkeys      = "ERR numkeys should be greater than 0"
	errZLimitNeg     = "ERR LIMIT can't be negative"
)

// Score encoders, plain functions so that the store's calls through them
// do not allocate.
func appendScore2(dst []byte, f float64) []byte {
	var tmp [32]byte
	return resp.AppendBulk(dst, store.AppendScore(tmp[:0], f))
}

func appendScore3(dst []byte, f float64) []byte {
	dst = append(dst, ',')
	dst = store.AppendScore(dst, f)
	return append(dst, '\r', '\n')
}

func (c *cmdCtx) scoreFn() func([]byte, float64) []byte {
	if c.cl.proto >= 3 {
		return appendScore3
	}
	return appendScore2
}

func (c *cmdCtx) score(f float64) { c.out = c.scoreFn()(c.out, f) }

// zreply returns the reply shape of a list of members, with scores when
// withScores: a flat array in RESP2, an array of pairs in RESP3.
func (c *cmdCtx) zreply(withScores bool) store.ZReply {
	r := store.ZReply{Head: resp.AppendArrayLen, Member: resp.AppendBulk}
	if withScores {
		r.Score = c.scoreFn()
		if c.cl.proto >= 3 {
			r.Entry = appendPairEntry3
		} else {
			r.Head = appendPairsLen2
		}
	}
	return r
}

func cmdZAdd(c *cmdCtx)    { zaddGeneric(c, 0) }
func cmdZIncrBy(c *cmdCtx) { zaddGeneric(c, store.ZAddIncr) }

// zaddGeneric is Redis's zaddGenericCommand: ZADD and ZINCRBY.
func zaddGeneric(c *cmdCtx, f store.ZAddFlags) {
	i, ch := 2, false
loop:
	for ; i < len(c.args); i++ {
		a := c.args[i]
		switch {
		case optIs(a, "nx"):
			f |= store.ZAddNX
		case optIs(a, "xx"):
			f |= store.ZAddXX
		case optIs(a, "ch"):
			ch = true
		case optIs(a, "incr"):
			f |= store.ZAddIncr
		case optIs(a, "gt"):
			f |= store.ZAddGT
		case optIs(a, "lt"):
			f |= store.ZAddLT
		default:
			break loop
		}
	}
	sm := c.args[i:]
	switch {
	case len(sm) == 0 || len(sm)%2 != 0:
		c.errReply(errSyntax)
		return
	case f&store.ZAddNX != 0 && f&store.ZAddXX != 0:
		c.errReply(errZAddXXNX)
		return
	case f&store.ZAddGT != 0 && f&store.ZAddNX != 0, f&store.ZAddLT != 0 && f&store.ZAddNX != 0,
		f&store.ZAddGT != 0 && f&store.ZAddLT != 0:
		c.errReply(errZAddGTLTNX)
		return
	case f&store.ZAddIncr != 0 && len(sm) > 2:
		c.errReply(errZAddIncrPairs)
		return
	}
	res, st := c.store.ZAdd(c.db(), c.args[1], f, sm, c.now)
	if res.Added+res.Updated > 0 {
		c.notifyN(notifyZSet, zaddEvent(f), c.args[1], res.Added+res.Updated)
	}
	switch {
	case st != store.OK:
		c.errReply(zstatusError(st))
	case f&store.ZAddIncr != 0 && res.Processed > 0:
		c.score(res.Score)
	case f&store.ZAddIncr != 0:
		c.null()
	case ch:
		c.integer(int64(res.Added + res.Updated))
	default:
		c.integer(int64(res.Added))
	}
}

// zstatusError is statusError with the sorted sets' NaN text.
func zstatusError(st store.Status) string {
	if st == store.NaNScore {
		return errZNaN
	}
	return statusError(st)
}

func cmdZRem(c *cmdCtx) {
	n, st := c.store.ZRem(c.db(), c.args[1], c.args[2:], c.now)
	if n > 0 {
		c.notifyRemoved(notifyZSet, "zrem", c.args[1], n)
	}
	c.intUnlessError(int64(n), st)
}

func cmdZCard(c *cmdCtx) {
	n, st := c.store.ZCard(c.db(), c.args[1], c.now)
	c.intUnlessError(int64(n), st)
}

func cmdZScore(c *cmdCtx) {
	f, ok, st := c.store.ZScore(c.db(), c.args[1], c.args[2], c.now)
	switch {
	case st == store.OK && ok:
		c.score(f)
	case st == store.OK || st == store.NotFound:
		c.null()
	default:
		c.errReply(statusError(st))
	}
}

func cmdZMScore(c *cmdCtx) {
	mark := len(c.out)
	c.arrayLen(len(c.args) - 2)
	null := appendNull2
	if c.cl.proto >= 3 {
		null = appendNull3
	}
	var st store.Status
	c.out, st = c.store.ZMScore(c.db(), c.args[1], c.args[2:], c.now, c.out, c.scoreFn(), null)
	if st != store.OK {
		c.out = c.out[:mark]
		c.errReply(statusError(st))
	}
}

func cmdZRank(c *cmdCtx)    { zrankGeneric(c, false) }
func cmdZRevRank(c *cmdCtx) { zrankGeneric(c, true) }

func zrankGeneric(c *cmdCtx, rev bool) {
	r, _, ok, st := c.store.ZRank(c.db(), c.args[1], c.args[2], rev, c.now)
	switch {
	case st == store.OK && ok:
		c.integer(int64(r))
	case st == store.OK || st == store.NotFound:
		c.null()
	default:
		c.errReply(statusError(st))
	}
}

// parseZBounds parses min and max of a score or lex range, replying with
// Redis's error when one is not valid.
func parseZBounds(c *cmdCtx, by store.ZBy, min, max []byte, sp *store.ZRangeSpec) bool {
	var ok1, ok2 bool
	if by == store.ZByLex {
		sp.Min, ok1 = store.ParseLexBound(min)
		sp.Max, ok2 = store.ParseLexBound(max)
		if !ok1 || !ok2 {
			c.errReply(errZMinMaxLex)
			return false
		}
		return true
	}
	sp.Min, ok1 = store.ParseScoreBound(min)
	sp.Max, ok2 = store.ParseScoreBound(max)
	if !ok1 || !ok2 {
		c.errReply(errZMinMaxFloat)
		return false
	}
	return true
}

func cmdZCount(c *cmdCtx)    { zcountGeneric(c, store.ZByScore) }
func cmdZLexCount(c *cmdCtx) { zcountGeneric(c, store.ZByLex) }

func zcountGeneric(c *cmdCtx, by store.ZBy) {
	sp := store.ZRangeSpec{By: by}
	if !parseZBounds(c, by, c.args[2], c.args[3], &sp) {
		return
	}
	n, st := c.store.ZCount(c.db(), c.args[1], &sp, c.now)
	c.intUnlessError(int64(n), st)
}

// zrange kinds and directions a command fixes, or leaves to its options.
const (
	zAuto = iota
	zRank
	zScore
	zLex
)

func cmdZRange(c *cmdCtx)           { zrangeGeneric(c, 1, false, zAuto, zAuto) }
func cmdZRangeStore(c *cmdCtx)      { zrangeGeneric(c, 2, true, zAuto, zAuto) }
func cmdZRevRange(c *cmdCtx)        { zrangeGeneric(c, 1, false, zRank, 2) }
func cmdZRangeByScore(c *cmdCtx)    { zrangeGeneric(c, 1, false, zScore, 1) }
func cmdZRevRangeByScore(c *cmdCtx) { zrangeGeneric(c, 1, false, zScore, 2) }
func cmdZRangeByLex(c *cmdCtx)      { zrangeGeneric(c, 1, false, zLex, 1) }
func cmdZRevRangeByLex(c *cmdCtx)   { zrangeGeneric(c, 1, false, zLex, 2) }
func cmdZRemRangeByRank(c *cmdCtx)  { zremrangeGeneric(c, store.ZByRank) }
func cmdZRemRangeByScore(c *cmdCtx) { zremrangeGeneric(c, store.ZByScore) }
func cmdZRemRangeByLex(c *cmdCtx)   { zremrangeGeneric(c, store.ZByLex) }

// zrangeGeneric is Redis's zrangeGenericCommand: the key is at argument
// ks (2 for ZRANGESTORE, after its destination), then min and max, then
// the options; kind and dir (1 forward, 2 reverse) are fixed by the
// command or zAuto.
func zrangeGeneric(c *cmdCtx, ks int, storeTo bool, kind, dir int) {
	withScores := false
	var offset, limit int64 = 0, -1
	for j := ks + 3; j < len(c.args); j++ {
		a, left := c.args[j], len(c.args)-j-1
		switch {
		case !storeTo && optIs(a, "withscores"):
			withScores = true
		case optIs(a, "limit") && left >= 2:
			var ok bool
			if offset, ok = intArg(c, c.args[j+1]); !ok {
				return
			}
			if limit, ok = intArg(c, c.args[j+2]); !ok {
				return
			}
			j += 2
		case dir == zAuto && optIs(a, "rev"):
			dir = 2
		case kind == zAuto && optIs(a, "bylex"):
			kind = zLex
		case kind == zAuto && optIs(a, "byscore"):
			kind = zScore
		default:
			c.errReply(errSyntax)
			return
		}
	}
	if kind == zAuto {
		kind = zRank
	}
	if limit != -1 && kind == zRank {
		c.errReply(errZLimitRank)
		return
	}
	if withScores && kind == zLex {
		c.errReply(errZLexScores)
		return
	}
	sp := store.ZRangeSpec{Rev: dir == 2, Offset: offset, Count: limit, Limit: true}
	min, max := c.args[ks+1], c.args[ks+2]
	if sp.Rev && kind != zRank {
		min, max = max, min
	}
	switch kind {
	case zRank:
		var ok bool
		if sp.Start, ok = intArg(c, min); !ok {
			return
		}
		if sp.Stop, ok = intArg(c, max); !ok {
			return
		}
		sp.Limit = false
	case zScore:
		sp.By = store.ZByScore
	case zLex:
		sp.By = store.ZByLex
	}
	if kind != zRank && !parseZBounds(c, sp.By, min, max, &sp) {
		return
	}
	if storeTo {
		n, st := c.store.ZRangeStore(c.db(), c.args[1], c.args[2], &sp, c.now)
		if st == store.OK {
			c.notifyStore(notifyZSet, "zrangestore", c.args[1], n)
		}
		c.intUnlessError(int64(n), st)
		return
	}
	var st store.Status
	r := c.zreply(withScores)
	c.out, st = c.store.ZRange(c.db(), c.args[1], &sp, c.now, c.out, r)
	switch st {
	case store.OK:
	case store.NotFound:
		c.arrayLen(0)
	default:
		c.errReply(statusError(st))
	}
}

func zremrangeGeneric(c *cmdCtx, by store.ZBy) {
	sp := store.ZRangeSpec{By: by}
	if by == store.ZByRank {
		var ok bool
		if sp.Start, ok = intArg(c, c.args[2]); !ok {
			return
		}
		if sp.Stop, ok = intArg(c, c.args[3]); !ok {
			return
		}
	} else if !parseZBounds(c, by, c.args[2], c.args[3], &sp) {
		return
	}
	n, st := c.store.ZRemRange(c.db(), c.args[1], &sp, c.now)
	if n > 0 {
		c.notifyRemoved(notifyZSet, zremrangeEvent(by), c.args[1], n)
	}
	c.intUnlessError(int64(n), st)
}

func cmdZPopMin(c *cmdCtx) { zpopGeneric(c, false) }
func cmdZPopMax(c *cmdCtx) { zpopGeneric(c, true) }

// zpopGeneric is ZPOPMIN and ZPOPMAX: without a count a flat member,
// score array; with one a list of members with scores (pairs in RESP3).
func zpopGeneric(c *cmdCtx, max bool) {
	count := int64(1)
	if len(c.args) > 3 {
		c.errReply(errSyntax)
		return
	}
	r := c.zreply(true)
	if len(c.args) == 3 {
		var ok bool
		if count, ok = store.ParseInt(c.args[2]); !ok || count < 0 {
			c.errReply(errOutOfRangeNeg)
			return
		}
	} else {
		r.Head, r.Entry = appendPairsLen2, nil
	}
	var st store.Status
	mark := len(c.out)
	c.out, st = c.store.ZPop(c.db(), c.args[1], max, int(min(count, math.MaxInt32)), c.now, c.out, r)
	switch st {
	case store.OK:
		if zpopped(c.out[mark:]) {
			c.notifyRemoved(notifyZSet, zpopEvent(max), c.args[1], 1)
		}
	case store.NotFound:
		c.arrayLen(0)
	default:
		c.errReply(statusError(st))
	}
}

// appendZMPopKey begins ZMPOP's reply: the key and the array of its
// popped members.
func appendZMPopKey(dst, key []byte, n int) []byte {
	dst = resp.AppendArrayLen(dst, 2)
	dst = resp.AppendBulk(dst, key)
	return resp.AppendArrayLen(dst, n)
}

// cmdZMPop is ZMPOP numkeys key [key ...] MIN|MAX [COUNT count].
func cmdZMPop(c *cmdCtx) {
	keys, max, count, ok := parseZMPop(c, 1)
	if !ok {
		return
	}
	// pairs in RESP2 as well, as Redis 7.0 replies
	r := store.ZReply{Head: resp.AppendArrayLen, Entry: appendPairEntry3, Member: resp.AppendBulk, Score: c.scoreFn()}
	var st store.Status
	mark := len(c.out)
	c.out, st = c.store.ZMPop(c.db(), keys, max, count, c.now, c.out, appendZMPopKey, r)
	switch st {
	case store.OK:
		c.notifyPopIn(c.db(), notifyZSet, zpopEvent(max), popReplyKey(c.out[mark:]), popReplyCount(c.out[mark:]))
	case store.NotFound:
		c.nullArray()
	default:
		c.errReply(statusError(st))
	}
}

// parseZMPop parses [B]ZMPOP's arguments from numkeys at args[at], as
// Redis's zmpopGenericCommand, replying with the error when they are bad.
func parseZMPop(c *cmdCtx, at int) (keys [][]byte, max bool, count int, ok bool) {
	nk, isInt := store.ParseInt(c.args[at])
	if !isInt || nk <= 0 {
		c.errReply(errZNumkeys)
		return nil, false, 0, false
	}
	if nk >= int64(len(c.args)-at-1) {
		c.errReply(errSyntax)
		return nil, false, 0, false
	}
	keys = c.args[at+1 : at+1+int(nk)]
	j := at + 1 + int(nk)
	switch {
	case optIs(c.args[j], "min"):
	case optIs(c.args[j], "max"):
		max = true
	default:
		c.errReply(errSyntax)
		return nil, false, 0, false
	}
	count = -1
	for j++; j < len(c.args); j++ {
		if count == -1 && optIs(c.args[j], "count") && j+1 < len(c.args) {
			n, isInt := store.ParseInt(c.args[j+1])
			if !isInt || n <= 0 {
				c.errReply(errZCountZero)
				return nil, false, 0, false
			}
			count = int(min(n, math.MaxInt32))
			j++
			continue
		}
		c.errReply(errSyntax)
		return nil, false, 0, false
	}
	if count == -1 {
		count = 1
	}
	return keys, max, count, true
}

func cmdZUnion(c *cmdCtx)      { zcombineGeneric(c, 1, false, store.ZUnion) }
func cmdZInter(c *cmdCtx)      { zcombineGeneric(c, 1, false, store.ZInter) }
func cmdZDiff(c *cmdCtx)       { zcombineGeneric(c, 1, false, store.ZDiff) }
func cmdZUnionStore(c *cmdCtx) { zcombineGeneric(c, 2, true, store.ZUnion) }
func cmdZInterStore(c *cmdCtx) { zcombineGeneric(c, 2, true, store.ZInter) }
func cmdZDiffStore(c *cmdCtx)  { zcombineGeneric(c, 2, true, store.ZDiff) }

// zcombineKeys parses numkeys at args[at] and returns the keys after it,
// as Redis's zunionInterDiffGenericCommand checks them.
func zcombineKeys(c *cmdCtx, at int) ([][]byte, bool) {
	n, ok := intArg(c, c.args[at])
	if !ok {
		return nil, false
	}
	if n < 1 {
		c.errReply("ERR at least 1 input key is needed for '" + lowerString(c.args[0]) + "' command")
		return nil, false
	}
	if n > int64(len(c.args)-at-1) {
		c.errReply(errSyntax)
		return nil, false
	}
	return c.args[at+1 : at+1+int(n)], true
}

// zcombineGeneric is ZUNION, ZINTER, ZDIFF and their STORE forms. As in
// Redis the keys' types are checked before the options.
func zcombineGeneric(c *cmdCtx, at int, storeTo bool, op store.ZSetOp) {
	keys, ok := zcombineKeys(c, at)
	if !ok {
		return
	}
	sp := store.ZCombineSpec{Op: op, Keys: keys}
	withScores, msg := false, ""
	for j := at + 1 + len(keys); j < len(c.args) && msg == ""; j++ {
		a, left := c.args[j], len(c.args)-j
		switch {
		case op != store.ZDiff && left >= len(keys)+1 && optIs(a, "weights"):
			sp.Weights = make([]float64, len(keys))
			for i := range keys {
				j++
				if sp.Weights[i], ok = store.ParseScore(c.args[j]); !ok {
					msg = errZWeight
					break
				}
			}
		case op != store.ZDiff && left >= 2 && optIs(a, "aggregate"):
			j++
			switch {
			case optIs(c.args[j], "sum"):
				sp.Aggregate = store.ZSum
			case optIs(c.args[j], "min"):
				sp.Aggregate = store.ZMin
			case optIs(c.args[j], "max"):
				sp.Aggregate = store.ZMax
			default:
				msg = errSyntax
			}
		case !storeTo && optIs(a, "withscores"):
			withScores = true
		default:
			msg = errSyntax
		}
	}
	if msg != "" {
		if st := c.store.ZCheckSources(c.db(), keys, c.now); st != store.OK {
			msg = statusError(st)
		}
		c.errReply(msg)
		return
	}
	if storeTo {
		n, st := c.store.ZCombineStore(c.db(), c.args[1], &sp, c.now)
		if st == store.OK {
			c.notifyStore(notifyZSet, zstoreEvent(op), c.args[1], n)
		}
		c.intUnlessError(int64(n), st)
		return
	}
	var st store.Status
	c.out, st = c.store.ZCombine(c.db(), &sp, c.now, c.out, c.zreply(withScores))
	if st != store.OK {
		c.errReply(statusError(st))
	}
}

// cmdZInterCard is ZINTERCARD numkeys key [key ...] [LIMIT limit].
func cmdZInterCard(c *cmdCtx) {
	keys, ok := zcombineKeys(c, 1)
	if !ok {
		return
	}
	limit, msg := int64(0), ""
	for j := 2 + len(keys); j < len(c.args) && msg == ""; j++ {
		if len(c.args)-j >= 2 && optIs(c.args[j], "limit") {
			j++
			var isInt bool
			if limit, isInt = store.ParseInt(c.args[j]); !isInt || limit < 0 {
				msg = errZLimitNeg
			}
			continue
		}
		msg = errSyntax
	}
	if msg != "" {
		if st := c.store.ZCheckSources(c.db(), keys, c.now); st != store.OK {
			msg = statusError(st)
		}
		c.errReply(msg)
		return
	}
	n, st := c.store.ZInterCard(c.db(), keys, int(min(limit, math.MaxInt32)), c.now)
	c.intUnlessError(int64(n), st)
}

// cmdZScan is ZSCAN key cursor [MATCH pattern] [COUNT count], in HSCAN's
// order of checks; scores are bulk strings in both protocols.
func cmdZScan(c *cmdCtx) {
	typedScan(c, store.TypeZSet, func(cursor uint64, o store.ScanOptions, emit func([]byte)) (uint64, store.Status) {
		return c.store.ZScan(c.db(), c.args[1], cursor, c.now, o, func(m, sc []byte) {
			emit(m)
			emit(sc)
		})
	})
}

// cmdZRandMember is ZRANDMEMBER key [count [WITHSCORES]], with HRANDFIELD's
// checks and bounds.
func cmdZRandMember(c *cmdCtx) {
	if len(c.args) == 2 {
		var st store.Status
		c.out, st = c.store.ZRandMember(c.db(), c.args[1], c.now, c.out, resp.AppendBulk)
		c.nullUnlessOK(st)
		return
	}
	count, withScores, ok := parseRandCount(c, "withscores")
	if !ok {
		return
	}
	minEntry := int64(len("$0\r\n\r\n"))
	if withScores {
		minEntry *= 2
	}
	r := c.zreply(withScores)
	randCountReply(c, count, minEntry, r.Head, func(n int64, maxOut int, head func([]byte, int) []byte) store.Status {
		r.Head = head
		var st store.Status
		c.out, st = c.store.ZRandMemberCount(c.db(), c.args[1], c.now, n, maxOut, c.out, r)
		return st
	})
}

// argsMinMax are the choices of ZMPOP's and BZMPOP's ends.
var argsMinMax = []cmdArg{
	{Name: "min", Type: argPureToken, Token: "MIN"},
	{Name: "max", Type: argPureToken, Token: "MAX"},
}

// argAggregate is the AGGREGATE option of ZUNION, ZINTER and their STORE forms.
var argAggregate = cmdArg{Name: "aggregate", Type: argOneOf, Token: "AGGREGATE", Flags: argOptional, Args: []cmdArg{
	{Name: "sum", Type: argPureToken, Token: "SUM"},
	{Name: "min", Type: argPureToken, Token: "MIN"},
	{Name: "max", Type: argPureToken, Token: "MAX"},
}}

var zsetCommands = []command{
	{Name: "zadd", Arity: -4, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Add one or more members to a sorted set, or update its score if it already exists", Since: "1.2.0", Group: "sorted-set",
			Complexity: "O(log(N)) for each item added, where N is the number of elements in the sorted set.",
			History:    [][2]string{{"2.4.0", "Accepts multiple elements."}, {"3.0.2", "Added the `XX`, `NX`, `CH` and `INCR` options."}, {"6.2.0", "Added the `GT` and `LT` options."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "condition", Type: argOneOf, Since: "3.0.2", Flags: argOptional, Args: []cmdArg{
					{Name: "nx", Type: argPureToken, Token: "NX"},
					{Name: "xx", Type: argPureToken, Token: "XX"},
				}},
				{Name: "comparison", Type: argOneOf, Since: "6.2.0", Flags: argOptional, Args: []cmdArg{
					{Name: "gt", Type: argPureToken, Token: "GT"},
					{Name: "lt", Type: argPureToken, Token: "LT"},
				}},
				{Name: "change", Type: argPureToken, Token: "CH", Since: "3.0.2", Flags: argOptional},
				{Name: "increment", Type: argPureToken, Token: "INCR", Since: "3.0.2", Flags: argOptional},
				{Name: "score_member", Type: argBlock, Flags: argMultiple, Args: []cmdArg{
					{Name: "score", Type: argDouble},
					{Name: "member", Type: argString},
				}},
			}},
		Fn: cmdZAdd},
	{Name: "zincrby", Arity: 4, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Increment the score of a member in a sorted set", Since: "1.2.0", Group: "sorted-set",
			Complexity: "O(log(N)) where N is the number of elements in the sorted set.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "increment", Type: argInteger},
				{Name: "member", Type: argString},
			}},
		Fn: cmdZIncrBy},
	{Name: "zrem", Arity: -3, Flags: flagWrite | flagFast, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRW | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Remove one or more members from a sorted set", Since: "1.2.0", Group: "sorted-set",
			Complexity: "O(M*log(N)) with N being the number of elements in the sorted set and M the number of elements to be removed.",
			History:    [][2]string{{"2.4.0", "Accepts multiple elements."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "member", Type: argString, Flags: argMultiple},
			}},
		Fn: cmdZRem},
	{Name: "zcard", Arity: 2, Flags: flagReadOnly | flagFast, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRO, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get the number of members in a sorted set", Since: "1.2.0", Group: "sorted-set",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdZCard},
	{Name: "zcount", Arity: 4, Flags: flagReadOnly | flagFast, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Count the members in a sorted set with scores within the given values", Since: "2.0.0", Group: "sorted-set",
			Complexity: "O(log(N)) with N being the number of elements in the sorted set.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "min", Type: argDouble},
				{Name: "max", Type: argDouble},
			}},
		Fn: cmdZCount},
	{Name: "zlexcount", Arity: 4, Flags: flagReadOnly | flagFast, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Count the number of members in a sorted set between a given lexicographical range", Since: "2.8.9", Group: "sorted-set",
			Complexity: "O(log(N)) with N being the number of elements in the sorted set.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "min", Type: argString},
				{Name: "max", Type: argString},
			}},
		Fn: cmdZLexCount},
	{Name: "zscore", Arity: 3, Flags: flagReadOnly | flagFast, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get the score associated with the given member in a sorted set", Since: "1.2.0", Group: "sorted-set",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "member", Type: argString},
			}},
		Fn: cmdZScore},
	{Name: "zmscore", Arity: -3, Flags: flagReadOnly | flagFast, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get the score associated with the given members in a sorted set", Since: "6.2.0", Group: "sorted-set",
			Complexity: "O(N) where N is the number of members being requested.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "member", Type: argString, Flags: argMultiple},
			}},
		Fn: cmdZMScore},
	{Name: "zrank", Arity: 3, Flags: flagReadOnly | flagFast, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Determine the index of a member in a sorted set", Since: "2.0.0", Group: "sorted-set",
			Complexity: "O(log(N))",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "member", Type: argString},
			}},
		Fn: cmdZRank},
	{Name: "zrevrank", Arity: 3, Flags: flagReadOnly | flagFast, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Determine the index of a member in a sorted set, with scores ordered from high to low", Since: "2.0.0", Group: "sorted-set",
			Complexity: "O(log(N))",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "member", Type: argString},
			}},
		Fn: cmdZRevRank},
	{Name: "zrange", Arity: -4, Flags: flagReadOnly, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Return a range of members in a sorted set", Since: "1.2.0", Group: "sorted-set",
			Complexity: "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.",
			History:    [][2]string{{"6.2.0", "Added the `REV`, `BYSCORE`, `BYLEX` and `LIMIT` options."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "start", Type: argString},
				{Name: "stop", Type: argString},
				{Name: "sortby", Type: argOneOf, Since: "6.2.0", Flags: argOptional, Args: []cmdArg{
					{Name: "byscore", Type: argPureToken, Token: "BYSCORE"},
					{Name: "bylex", Type: argPureToken, Token: "BYLEX"},
				}},
				{Name: "rev", Type: argPureToken, Token: "REV", Since: "6.2.0", Flags: argOptional},
				{Name: "offset_count", Type: argBlock, Token: "LIMIT", Since: "6.2.0", Flags: argOptional, Args: []cmdArg{
					{Name: "offset", Type: argInteger},
					{Name: "count", Type: argInteger},
				}},
				{Name: "withscores", Type: argPureToken, Token: "WITHSCORES", Flags: argOptional},
			}},
		Fn: cmdZRange},
	{Name: "zrangestore", Arity: -5, Flags: flagWrite | flagDenyOOM, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyOW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Flags: keyRO | keyAccess, BS: bsIndex(2), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Store a range of members from sorted set into another key", Since: "6.2.0", Group: "sorted-set",
			Complexity: "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements stored into the destination key.",
			Args: []cmdArg{
				{Name: "dst", Type: argKey, KeySpec: 0},
				{Name: "src", Type: argKey, KeySpec: 1},
				{Name: "min", Type: argString},
				{Name: "max", Type: argString},
				{Name: "sortby", Type: argOneOf, Flags: argOptional, Args: []cmdArg{
					{Name: "byscore", Type: argPureToken, Token: "BYSCORE"},
					{Name: "bylex", Type: argPureToken, Token: "BYLEX"},
				}},
				{Name: "rev", Type: argPureToken, Token: "REV", Flags: argOptional},
				{Name: "offset_count", Type: argBlock, Token: "LIMIT", Flags: argOptional, Args: []cmdArg{
					{Name: "offset", Type: argInteger},
					{Name: "count", Type: argInteger},
				}},
			}},
		Fn: cmdZRangeStore},
	{Name: "zrevrange", Arity: -4, Flags: flagReadOnly, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Return a range of members in a sorted set, by index, with scores ordered from high to low", Since: "1.2.0", Group: "sorted-set",
			Complexity:      "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.",
			DocFlags:        docDeprecated,
			DeprecatedSince: "6.2.0",
			ReplacedBy:      "`ZRANGE` with the `REV` argument",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "start", Type: argInteger},
				{Name: "stop", Type: argInteger},
				{Name: "withscores", Type: argPureToken, Token: "WITHSCORES", Flags: argOptional},
			}},
		Fn: cmdZRevRange},
	{Name: "zrangebyscore", Arity: -4, Flags: flagReadOnly, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Return a range of members in a sorted set, by score", Since: "1.0.5", Group: "sorted-set",
			Complexity:      "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
			DocFlags:        docDeprecated,
			DeprecatedSince: "6.2.0",
			ReplacedBy:      "`ZRANGE` with the `BYSCORE` argument",
			History:         [][2]string{{"2.0.0", "Added the `WITHSCORES` modifier."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "min", Type: argDouble},
				{Name: "max", Type: argDouble},
				{Name: "withscores", Type: argPureToken, Token: "WITHSCORES", Since: "2.0.0", Flags: argOptional},
				{Name: "offset_count", Type: argBlock, Token: "LIMIT", Flags: argOptional, Args: []cmdArg{
					{Name: "offset", Type: argInteger},
					{Name: "count", Type: argInteger},
				}},
			}},
		Fn: cmdZRangeByScore},
	{Name: "zrevrangebyscore", Arity: -4, Flags: flagReadOnly, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Return a range of members in a sorted set, by score, with scores ordered from high to low", Since: "2.2.0", Group: "sorted-set",
			Complexity:      "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
			DocFlags:        docDeprecated,
			DeprecatedSince: "6.2.0",
			ReplacedBy:      "`ZRANGE` with the `REV` and `BYSCORE` arguments",
			History:         [][2]string{{"2.1.6", "`min` and `max` can be exclusive."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "max", Type: argDouble},
				{Name: "min", Type: argDouble},
				{Name: "withscores", Type: argPureToken, Token: "WITHSCORES", Flags: argOptional},
				{Name: "offset_count", Type: argBlock, Token: "LIMIT", Flags: argOptional, Args: []cmdArg{
					{Name: "offset", Type: argInteger},
					{Name: "count", Type: argInteger},
				}},
			}},
		Fn: cmdZRevRangeByScore},
	{Name: "zrangebylex", Arity: -4, Flags: flagReadOnly, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Return a range of members in a sorted set, by lexicographical range", Since: "2.8.9", Group: "sorted-set",
			Complexity:      "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
			DocFlags:        docDeprecated,
			DeprecatedSince: "6.2.0",
			ReplacedBy:      "`ZRANGE` with the `BYLEX` argument",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "min", Type: argString},
				{Name: "max", Type: argString},
				{Name: "offset_count", Type: argBlock, Token: "LIMIT", Flags: argOptional, Args: []cmdArg{
					{Name: "offset", Type: argInteger},
					{Name: "count", Type: argInteger},
				}},
			}},
		Fn: cmdZRangeByLex},
	{Name: "zrevrangebylex", Arity: -4, Flags: flagReadOnly, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Return a range of members in a sorted set, by lexicographical range, ordered from higher to lower strings.", Since: "2.8.9", Group: "sorted-set",
			Complexity:      "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
			DocFlags:        docDeprecated,
			DeprecatedSince: "6.2.0",
			ReplacedBy:      "`ZRANGE` with the `REV` and `BYLEX` arguments",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "max", Type: argString},
				{Name: "min", Type: argString},
				{Name: "offset_count", Type: argBlock, Token: "LIMIT", Flags: argOptional, Args: []cmdArg{
					{Name: "offset", Type: argInteger},
					{Name: "count", Type: argInteger},
				}},
			}},
		Fn: cmdZRevRangeByLex},
	{Name: "zremrangebyrank", Arity: 4, Flags: flagWrite, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRW | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Remove all members in a sorted set within the given indexes", Since: "2.0.0", Group: "sorted-set",
			Complexity: "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "start", Type: argInteger},
				{Name: "stop", Type: argInteger},
			}},
		Fn: cmdZRemRangeByRank},
	{Name: "zremrangebyscore", Arity: 4, Flags: flagWrite, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRW | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Remove all members in a sorted set within the given scores", Since: "1.2.0", Group: "sorted-set",
			Complexity: "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "min", Type: argDouble},
				{Name: "max", Type: argDouble},
			}},
		Fn: cmdZRemRangeByScore},
	{Name: "zremrangebylex", Arity: 4, Flags: flagWrite, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRW | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Remove all members in a sorted set between the given lexicographical range", Since: "2.8.9", Group: "sorted-set",
			Complexity: "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "min", Type: argString},
				{Name: "max", Type: argString},
			}},
		Fn: cmdZRemRangeByLex},
	{Name: "zpopmin", Arity: -2, Flags: flagWrite | flagFast, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Remove and return members with the lowest scores in a sorted set", Since: "5.0.0", Group: "sorted-set",
			Complexity: "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "count", Type: argInteger, Flags: argOptional},
			}},
		Fn: cmdZPopMin},
	{Name: "zpopmax", Arity: -2, Flags: flagWrite | flagFast, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Remove and return members with the highest scores in a sorted set", Since: "5.0.0", Group: "sorted-set",
			Complexity: "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "count", Type: argInteger, Flags: argOptional},
			}},
		Fn: cmdZPopMax},
	{Name: "zmpop", Arity: -4, Flags: flagWrite, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(1), FK: fkKeyNum(0, 1, 1)}},
		Doc: cmdDoc{Summary: "Remove and return members with scores in a sorted set", Since: "7.0.0", Group: "sorted-set",
			Complexity: "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.",
			Args: []cmdArg{
				{Name: "numkeys", Type: argInteger},
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
				{Name: "where", Type: argOneOf, Args: argsMinMax},
				{Name: "count", Type: argInteger, Token: "COUNT", Flags: argOptional},
			}},
		Fn: cmdZMPop},
	{Name: "zrandmember", Arity: -2, Flags: flagReadOnly, ACL: catSortedset,
		Tips: []string{"nondeterministic_output"},
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get one or multiple random elements from a sorted set", Since: "6.2.0", Group: "sorted-set",
			Complexity: "O(N) where N is the number of elements returned",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "options", Type: argBlock, Flags: argOptional, Args: []cmdArg{
					{Name: "count", Type: argInteger},
					{Name: "withscores", Type: argPureToken, Token: "WITHSCORES", Flags: argOptional},
				}},
			}},
		Fn: cmdZRandMember},
	{Name: "zunion", Arity: -3, Flags: flagReadOnly, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkKeyNum(0, 1, 1)}},
		Doc: cmdDoc{Summary: "Add multiple sorted sets", Since: "6.2.0", Group: "sorted-set",
			Complexity: "O(N)+O(M*log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.",
			Args: []cmdArg{
				{Name: "numkeys", Type: argInteger},
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
				{Name: "weight", Type: argInteger, Token: "WEIGHTS", Flags: argOptional | argMultiple},
				argAggregate,
				{Name: "withscores", Type: argPureToken, Token: "WITHSCORES", Flags: argOptional},
			}},
		Fn: cmdZUnion},
	{Name: "zinter", Arity: -3, Flags: flagReadOnly, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkKeyNum(0, 1, 1)}},
		Doc: cmdDoc{Summary: "Intersect multiple sorted sets", Since: "6.2.0", Group: "sorted-set",
			Complexity: "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.",
			Args: []cmdArg{
				{Name: "numkeys", Type: argInteger},
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
				{Name: "weight", Type: argInteger, Token: "WEIGHTS", Flags: argOptional | argMultiple},
				argAggregate,
				{Name: "withscores", Type: argPureToken, Token: "WITHSCORES", Flags: argOptional},
			}},
		Fn: cmdZInter},
	{Name: "zdiff", Arity: -3, Flags: flagReadOnly, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkKeyNum(0, 1, 1)}},
		Doc: cmdDoc{Summary: "Subtract multiple sorted sets", Since: "6.2.0", Group: "sorted-set",
			Complexity: "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set.",
			Args: []cmdArg{
				{Name: "numkeys", Type: argInteger},
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
				{Name: "withscores", Type: argPureToken, Token: "WITHSCORES", Flags: argOptional},
			}},
		Fn: cmdZDiff},
	{Name: "zunionstore", Arity: -4, Flags: flagWrite | flagDenyOOM, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyOW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Flags: keyRO | keyAccess, BS: bsIndex(2), FK: fkKeyNum(0, 1, 1)}},
		Doc: cmdDoc{Summary: "Add multiple sorted sets and store the resulting sorted set in a new key", Since: "2.0.0", Group: "sorted-set",
			Complexity: "O(N)+O(M log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.",
			Args: []cmdArg{
				{Name: "destination", Type: argKey, KeySpec: 0},
				{Name: "numkeys", Type: argInteger},
				{Name: "key", Type: argKey, KeySpec: 1, Flags: argMultiple},
				{Name: "weight", Type: argInteger, Token: "WEIGHTS", Flags: argOptional | argMultiple},
				argAggregate,
			}},
		Fn: cmdZUnionStore},
	{Name: "zinterstore", Arity: -4, Flags: flagWrite | flagDenyOOM, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyOW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Flags: keyRO | keyAccess, BS: bsIndex(2), FK: fkKeyNum(0, 1, 1)}},
		Doc: cmdDoc{Summary: "Intersect multiple sorted sets and store the resulting sorted set in a new key", Since: "2.0.0", Group: "sorted-set",
			Complexity: "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.",
			Args: []cmdArg{
				{Name: "destination", Type: argKey, KeySpec: 0},
				{Name: "numkeys", Type: argInteger},
				{Name: "key", Type: argKey, KeySpec: 1, Flags: argMultiple},
				{Name: "weight", Type: argInteger, Token: "WEIGHTS", Flags: argOptional | argMultiple},
				argAggregate,
			}},
		Fn: cmdZInterStore},
	{Name: "zdiffstore", Arity: -4, Flags: flagWrite | flagDenyOOM, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyOW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Flags: keyRO | keyAccess, BS: bsIndex(2), FK: fkKeyNum(0, 1, 1)}},
		Doc: cmdDoc{Summary: "Subtract multiple sorted sets and store the resulting sorted set in a new key", Since: "6.2.0", Group: "sorted-set",
			Complexity: "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set.",
			Args: []cmdArg{
				{Name: "destination", Type: argKey, KeySpec: 0},
				{Name: "numkeys", Type: argInteger},
				{Name: "key", Type: argKey, KeySpec: 1, Flags: argMultiple},
			}},
		Fn: cmdZDiffStore},
	{Name: "zintercard", Arity: -3, Flags: flagReadOnly, ACL: catSortedset,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkKeyNum(0, 1, 1)}},
		Doc: cmdDoc{Summary: "Intersect multiple sorted sets and return the cardinality of the result", Since: "7.0.0", Group: "sorted-set",
			Complexity: "O(N*K) worst case with N being the smallest input sorted set, K being the number of input sorted sets.",
			Args: []cmdArg{
				{Name: "numkeys", Type: argInteger},
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
				{Name: "limit", Type: argInteger, Token: "LIMIT", Flags: argOptional},
			}},
		Fn: cmdZInterCard},
	{Name: "zscan", Arity: -3, Flags: flagReadOnly, ACL: catSortedset,
		Tips: []string{"nondeterministic_output"},
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Incrementally iterate sorted sets elements and associated scores", Since: "2.8.0", Group: "sorted-set",
			Complexity: "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "cursor", Type: argInteger},
				{Name: "pattern", Type: argPattern, Token: "MATCH", Flags: argOptional},
				{Name: "count", Type: argInteger, Token: "COUNT", Flags: argOptional},
			}},
		Fn: cmdZScan},
}

func init() { register(zsetCommands...) }
