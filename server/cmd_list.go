package server

import (
	"math"

	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// List commands (Redis t_list.c). Handlers check their arguments in
// Redis's order, call one store operation and reply; elements are appended
// to c.out by the store under its lock. The blocking pops live in
// cmd_blocking.go.

func cmdLPush(c *cmdCtx)  { pushGeneric(c, store.ListHead, false) }
func cmdRPush(c *cmdCtx)  { pushGeneric(c, store.ListTail, false) }
func cmdLPushX(c *cmdCtx) { pushGeneric(c, store.ListHead, true) }
func cmdRPushX(c *cmdCtx) { pushGeneric(c, store.ListTail, true) }

func pushGeneric(c *cmdCtx, e store.ListEnd, onlyExisting bool) {
	n, st := c.store.LPush(c.db(), c.args[1], e, c.args[2:], onlyExisting, c.now)
	if st == store.OK && n > 0 {
		c.notifyN(notifyList, listEvent(e, "lpush", "rpush"), c.args[1], len(c.args)-2)
	}
	c.intUnlessError(int64(n), st)
}

func cmdLPop(c *cmdCtx) { popGeneric(c, store.ListHead) }
func cmdRPop(c *cmdCtx) { popGeneric(c, store.ListTail) }

// popGeneric is LPOP and RPOP key [count]: a bulk, or with count an array
// (a null array for a missing key, an empty one for count 0).
func popGeneric(c *cmdCtx, e store.ListEnd) {
	if len(c.args) > 3 {
		c.errReply(errWrongArity(c.args[0]))
		return
	}
	count := int64(1)
	hasCount := len(c.args) == 3
	if hasCount {
		var ok bool
		n, ok := store.ParseInt(c.args[2])
		if !ok || n < 0 {
			c.errReply(errOutOfRangeNeg)
			return
		}
		count = n
	}
	var st store.Status
	if !hasCount {
		c.out, st = c.store.LPop(c.db(), c.args[1], e, 1, c.now, c.out, nil, resp.AppendBulk)
		if st == store.OK {
			c.notifyRemoved(notifyList, listEvent(e, "lpop", "rpop"), c.args[1], 1)
		}
		c.nullUnlessOK(st)
		return
	}
	if count == 0 {
		if t := c.store.TypeOf(c.db(), c.args[1], c.now); t == store.TypeNone {
			c.nullArray()
		} else if t != store.TypeList {
			c.errReply(errWrongType)
		} else {
			c.arrayLen(0)
		}
		return
	}
	mark := len(c.out)
	c.out, st = c.store.LPop(c.db(), c.args[1], e, int(min(count, math.MaxInt32)), c.now, c.out, resp.AppendArrayLen, resp.AppendBulk)
	switch st {
	case store.OK:
		c.notifyRemoved(notifyList, listEvent(e, "lpop", "rpop"), c.args[1], arrayHeaderLen(c.out[mark:]))
	case store.NotFound:
		c.nullArray()
	default:
		c.errReply(statusError(st))
	}
}

// positiveArg parses a non-negative integer as Redis's
// getPositiveLongFromObjectOrReply: errNotInteger when it is not one,
// neg (Redis's message, or its default) when it is negative.
func positiveArg(c *cmdCtx, arg []byte, neg string) (int64, bool) {
	n, ok := intArg(c, arg)
	if ok && n < 0 {
		c.errReply(neg)
		return 0, false
	}
	return n, ok
}

func cmdLLen(c *cmdCtx) {
	n, st := c.store.LLen(c.db(), c.args[1], c.now)
	c.intUnlessError(int64(n), st)
}

func cmdLRange(c *cmdCtx) {
	start, ok := intArg(c, c.args[2])
	if !ok {
		return
	}
	stop, ok := intArg(c, c.args[3])
	if !ok {
		return
	}
	var st store.Status
	mark := len(c.out)
	c.out, st = c.store.LRange(c.db(), c.args[1], start, stop, c.now, c.out, resp.AppendArrayLen, resp.AppendBulk)
	if st != store.OK {
		c.out = c.out[:mark]
		c.errReply(statusError(st))
	}
}

func cmdLIndex(c *cmdCtx) {
	index, ok := intArg(c, c.args[2])
	if !ok {
		return
	}
	var st store.Status
	c.out, st = c.store.LIndex(c.db(), c.args[1], index, c.now, c.out, resp.AppendBulk)
	c.nullUnlessOK(st)
}

// cmdLSet is LSET key index element. Redis checks the key before it parses
// the index, so a bad index on a missing key is "no such key".
func cmdLSet(c *cmdCtx) {
	index, ok := store.ParseInt(c.args[2])
	st := store.NotInteger
	if ok {
		st = c.store.LSet(c.db(), c.args[1], index, c.args[3], c.now)
	} else if t := c.store.TypeOf(c.db(), c.args[1], c.now); t == store.TypeNone {
		st = store.NotFound
	} else if t != store.TypeList {
		st = store.WrongType
	}
	if st != store.OK {
		c.errReply(statusError(st))
		return
	}
	c.notify(notifyList, "lset", c.args[1])
	c.ok()
}

func cmdLInsert(c *cmdCtx) {
	var after bool
	switch {
	case optIs(c.args[2], "after"):
		after = true
	case optIs(c.args[2], "before"):
	default:
		c.errReply(errSyntax)
		return
	}
	n, st := c.store.LInsert(c.db(), c.args[1], after, c.args[3], c.args[4], c.now)
	if st == store.OK && n > 0 {
		c.notify(notifyList, "linsert", c.args[1])
	}
	c.intUnlessError(int64(n), st)
}

func cmdLRem(c *cmdCtx) {
	count, ok := intArg(c, c.args[2])
	if !ok {
		return
	}
	n, st := c.store.LRem(c.db(), c.args[1], count, c.args[3], c.now)
	if st == store.OK && n > 0 {
		c.notifyRemoved(notifyList, "lrem", c.args[1], n)
	}
	c.intUnlessError(int64(n), st)
}

func cmdLTrim(c *cmdCtx) {
	start, ok := intArg(c, c.args[2])
	if !ok {
		return
	}
	stop, ok := intArg(c, c.args[3])
	if !ok {
		return
	}
	before := c.store.QuietListLen(c.db(), c.args[1], c.now) // notify.go: LTRIM counts what it removed
	if st := c.store.LTrim(c.db(), c.args[1], start, stop, c.now); st != store.OK {
		c.errReply(statusError(st))
		return
	}
	c.notifyTrim(before)
	c.ok()
}

// cmdLPos is LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len].
func cmdLPos(c *cmdCtx) {
	o := store.LPosOptions{Rank: 1}
	hasCount := false
	for j := 3; j < len(c.args); j++ {
		more := j+1 < len(c.args)
		switch {
		case more && optIs(c.args[j], "rank"):
			j++
			n, ok := intArg(c, c.args[j])
			if !ok {
				return
			}
			if n == math.MinInt64 {
				n = -1 // Redis negates it, and the wrapped rank matches the first from the tail
			}
			if n == 0 {
				c.errReply("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
				return
			}
			o.Rank = n
		case more && optIs(c.args[j], "count"):
			j++
			n, ok := positiveArg(c, c.args[j], "ERR COUNT can't be negative")
			if !ok {
				return
			}
			o.Count, hasCount = n, true
		case more && optIs(c.args[j], "maxlen"):
			j++
			n, ok := positiveArg(c, c.args[j], "ERR MAXLEN can't be negative")
			if !ok {
				return
			}
			o.MaxLen = n
		default:
			c.errReply(errSyntax)
			return
		}
	}
	if !hasCount {
		o.Count = 1
	}
	mark := len(c.out)
	if hasCount {
		// the count is unknown until the search ends: reserve the header
		c.out = append(c.out, "*00000000000000000000\r\n"...)
	}
	body := len(c.out)
	n, st := c.store.LPos(c.db(), c.args[1], c.args[2], o, c.now, func(i int) { c.integer(int64(i)) })
	switch {
	case st != store.OK:
		c.out = c.out[:mark]
		c.errReply(statusError(st))
	case !hasCount && n == 0:
		c.null()
	case hasCount:
		var hdr [24]byte
		h := resp.AppendArrayLen(hdr[:0], n)
		c.out = append(c.out[:mark], append(h, c.out[body:]...)...)
	}
}

// listEnd parses LEFT or RIGHT.
func listEnd(c *cmdCtx, arg []byte) (store.ListEnd, bool) {
	switch {
	case optIs(arg, "left"):
		return store.ListHead, true
	case optIs(arg, "right"):
		return store.ListTail, true
	}
	c.errReply(errSyntax)
	return 0, false
}

func cmdLMove(c *cmdCtx) {
	from, ok := listEnd(c, c.args[3])
	if !ok {
		return
	}
	to, ok := listEnd(c, c.args[4])
	if !ok {
		return
	}
	lmoveGeneric(c, from, to)
}

func cmdRPopLPush(c *cmdCtx) { lmoveGeneric(c, store.ListTail, store.ListHead) }

func lmoveGeneric(c *cmdCtx, from, to store.ListEnd) {
	var st store.Status
	c.out, st = c.store.LMove(c.db(), c.args[1], c.args[2], from, to, c.now, c.out, resp.AppendBulk)
	if st == store.OK {
		c.notifyLMove(c.db(), c.args[1], c.args[2], from, to, 1)
	}
	c.nullUnlessOK(st)
}

// cmdLMPop is LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count].
func cmdLMPop(c *cmdCtx) {
	keys, e, count, ok := mpopArgs(c, 1)
	if !ok {
		return
	}
	var st store.Status
	mark := len(c.out)
	c.out, st = c.store.LMPop(c.db(), keys, e, int(min(count, math.MaxInt32)), c.now, c.out, appendPopHeader, resp.AppendBulk)
	switch st {
	case store.OK:
		c.notifyPopIn(c.db(), notifyList, listEvent(e, "lpop", "rpop"), popReplyKey(c.out[mark:]), popReplyCount(c.out[mark:]))
	case store.NotFound:
		c.nullArray()
	default:
		c.errReply(statusError(st))
	}
}

// appendPopHeader starts LMPOP's reply: the key, then its n elements.
func appendPopHeader(dst, key []byte, n int) []byte {
	dst = resp.AppendArrayLen(dst, 2)
	dst = resp.AppendBulk(dst, key)
	return resp.AppendArrayLen(dst, n)
}

// mpopArgs parses LMPOP's (and BLMPOP's, from numkeysIdx 2) numkeys, keys,
// LEFT|RIGHT and COUNT as Redis's lmpopGenericCommand does.
func mpopArgs(c *cmdCtx, numkeysIdx int) (keys [][]byte, e store.ListEnd, count int64, ok bool) {
	numkeys, ok := store.ParseInt(c.args[numkeysIdx])
	if !ok || numkeys < 1 {
		c.errReply("ERR numkeys should be greater than 0")
		return nil, 0, 0, false
	}
	whereIdx := int64(numkeysIdx) + numkeys + 1
	if whereIdx >= int64(len(c.args)) {
		c.errReply(errSyntax)
		return nil, 0, 0, false
	}
	if e, ok = listEnd(c, c.args[whereIdx]); !ok {
		return nil, 0, 0, false
	}
	count = -1
	for j := int(whereIdx) + 1; j < len(c.args); j++ {
		if count == -1 && optIs(c.args[j], "count") && j+1 < len(c.args) {
			j++
			n, ok := store.ParseInt(c.args[j])
			if !ok || n < 1 {
				c.errReply("ERR count should be greater than 0")
				return nil, 0, 0, false
			}
			count = n
			continue
		}
		c.errReply(errSyntax)
		return nil, 0, 0, false
	}
	if count == -1 {
		count = 1
	}
	return c.args[numkeysIdx+1 : whereIdx], e, count, true
}

// argsLeftRight are the choices of LMOVE's, BLMOVE's and LMPOP's ends.
var argsLeftRight = []cmdArg{
	{Name: "left", Type: argPureToken, Token: "LEFT"},
	{Name: "right", Type: argPureToken, Token: "RIGHT"},
}

var listCommands = []command{
	{Name: "lpush", Arity: -3, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catList,
		Keys: []keySpec{{Flags: keyRW | keyInsert, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Prepend one or multiple elements to a list", Since: "1.0.0", Group: "list",
			Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
			History:    [][2]string{{"2.4.0", "Accepts multiple `element` arguments."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "element", Type: argString, Flags: argMultiple},
			}},
		Fn: cmdLPush},
	{Name: "rpush", Arity: -3, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catList,
		Keys: []keySpec{{Flags: keyRW | keyInsert, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Append one or multiple elements to a list", Since: "1.0.0", Group: "list",
			Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
			History:    [][2]string{{"2.4.0", "Accepts multiple `element` arguments."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "element", Type: argString, Flags: argMultiple},
			}},
		Fn: cmdRPush},
	{Name: "lpushx", Arity: -3, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catList,
		Keys: []keySpec{{Flags: keyRW | keyInsert, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Prepend an element to a list, only if the list exists", Since: "2.2.0", Group: "list",
			Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
			History:    [][2]string{{"4.0.0", "Accepts multiple `element` arguments."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "element", Type: argString, Flags: argMultiple},
			}},
		Fn: cmdLPushX},
	{Name: "rpushx", Arity: -3, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catList,
		Keys: []keySpec{{Flags: keyRW | keyInsert, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Append an element to a list, only if the list exists", Since: "2.2.0", Group: "list",
			Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
			History:    [][2]string{{"4.0.0", "Accepts multiple `element` arguments."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "element", Type: argString, Flags: argMultiple},
			}},
		Fn: cmdRPushX},
	{Name: "lpop", Arity: -2, Flags: flagWrite | flagFast, ACL: catList,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Remove and get the first elements in a list", Since: "1.0.0", Group: "list",
			Complexity: "O(N) where N is the number of elements returned",
			History:    [][2]string{{"6.2.0", "Added the `count` argument."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "count", Type: argInteger, Since: "6.2.0", Flags: argOptional},
			}},
		Fn: cmdLPop},
	{Name: "rpop", Arity: -2, Flags: flagWrite | flagFast, ACL: catList,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Remove and get the last elements in a list", Since: "1.0.0", Group: "list",
			Complexity: "O(N) where N is the number of elements returned",
			History:    [][2]string{{"6.2.0", "Added the `count` argument."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "count", Type: argInteger, Since: "6.2.0", Flags: argOptional},
			}},
		Fn: cmdRPop},
	{Name: "llen", Arity: 2, Flags: flagReadOnly | flagFast, ACL: catList,
		Keys: []keySpec{{Flags: keyRO, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get the length of a list", Since: "1.0.0", Group: "list",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdLLen},
	{Name: "lrange", Arity: 4, Flags: flagReadOnly, ACL: catList,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get a range of elements from a list", Since: "1.0.0", Group: "list",
			Complexity: "O(S+N) where S is the distance of start offset from HEAD for small lists, from nearest end (HEAD or TAIL) for large lists; and N is the number of elements in the specified range.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "start", Type: argInteger},
				{Name: "stop", Type: argInteger},
			}},
		Fn: cmdLRange},
	{Name: "lindex", Arity: 3, Flags: flagReadOnly, ACL: catList,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get an element from a list by its index", Since: "1.0.0", Group: "list",
			Complexity: "O(N) where N is the number of elements to traverse to get to the element at index. This makes asking for the first or the last element of the list O(1).",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "index", Type: argInteger},
			}},
		Fn: cmdLIndex},
	{Name: "lset", Arity: 4, Flags: flagWrite | flagDenyOOM, ACL: catList,
		Keys: []keySpec{{Flags: keyRW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Set the value of an element in a list by its index", Since: "1.0.0", Group: "list",
			Complexity: "O(N) where N is the length of the list. Setting either the first or the last element of the list is O(1).",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "index", Type: argInteger},
				{Name: "element", Type: argString},
			}},
		Fn: cmdLSet},
	{Name: "linsert", Arity: 5, Flags: flagWrite | flagDenyOOM, ACL: catList,
		Keys: []keySpec{{Flags: keyRW | keyInsert, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Insert an element before or after another element in a list", Since: "2.2.0", Group: "list",
			Complexity: "O(N) where N is the number of elements to traverse before seeing the value pivot. This means that inserting somewhere on the left end on the list (head) can be considered O(1) and inserting somewhere on the right end (tail) is O(N).",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "where", Type: argOneOf, Args: []cmdArg{
					{Name: "before", Type: argPureToken, Token: "BEFORE"},
					{Name: "after", Type: argPureToken, Token: "AFTER"},
				}},
				{Name: "pivot", Type: argString},
				{Name: "element", Type: argString},
			}},
		Fn: cmdLInsert},
	{Name: "lrem", Arity: 4, Flags: flagWrite, ACL: catList,
		Keys: []keySpec{{Flags: keyRW | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Remove elements from a list", Since: "1.0.0", Group: "list",
			Complexity: "O(N+M) where N is the length of the list and M is the number of elements removed.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "count", Type: argInteger},
				{Name: "element", Type: argString},
			}},
		Fn: cmdLRem},
	{Name: "ltrim", Arity: 4, Flags: flagWrite, ACL: catList,
		Keys: []keySpec{{Flags: keyRW | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Trim a list to the specified range", Since: "1.0.0", Group: "list",
			Complexity: "O(N) where N is the number of elements to be removed by the operation.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "start", Type: argInteger},
				{Name: "stop", Type: argInteger},
			}},
		Fn: cmdLTrim},
	{Name: "lpos", Arity: -3, Flags: flagReadOnly, ACL: catList,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Return the index of matching elements on a list", Since: "6.0.6", Group: "list",
			Complexity: "O(N) where N is the number of elements in the list, for the average case. When searching for elements near the head or the tail of the list, or when the MAXLEN option is provided, the command may run in constant time.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "element", Type: argString},
				{Name: "rank", Type: argInteger, Token: "RANK", Flags: argOptional},
				{Name: "num-matches", Type: argInteger, Token: "COUNT", Flags: argOptional},
				{Name: "len", Type: argInteger, Token: "MAXLEN", Flags: argOptional},
			}},
		Fn: cmdLPos},
	{Name: "lmove", Arity: 5, Flags: flagWrite | flagDenyOOM, ACL: catList,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Flags: keyRW | keyInsert, BS: bsIndex(2), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Pop an element from a list, push it to another list and return it", Since: "6.2.0", Group: "list",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "source", Type: argKey, KeySpec: 0},
				{Name: "destination", Type: argKey, KeySpec: 1},
				{Name: "wherefrom", Type: argOneOf, Args: argsLeftRight},
				{Name: "whereto", Type: argOneOf, Args: argsLeftRight},
			}},
		Fn: cmdLMove},
	{Name: "rpoplpush", Arity: 3, Flags: flagWrite | flagDenyOOM, ACL: catList,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Flags: keyRW | keyInsert, BS: bsIndex(2), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Remove the last element in a list, prepend it to another list and return it", Since: "1.2.0", Group: "list",
			Complexity:      "O(1)",
			DocFlags:        docDeprecated,
			DeprecatedSince: "6.2.0",
			ReplacedBy:      "`LMOVE` with the `RIGHT` and `LEFT` arguments",
			Args: []cmdArg{
				{Name: "source", Type: argKey, KeySpec: 0},
				{Name: "destination", Type: argKey, KeySpec: 1},
			}},
		Fn: cmdRPopLPush},
	{Name: "lmpop", Arity: -4, Flags: flagWrite, ACL: catList,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyDelete, BS: bsIndex(1), FK: fkKeyNum(0, 1, 1)}},
		Doc: cmdDoc{Summary: "Pop elements from a list", Since: "7.0.0", Group: "list",
			Complexity: "O(N+M) where N is the number of provided keys and M is the number of elements returned.",
			Args: []cmdArg{
				{Name: "numkeys", Type: argInteger},
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
				{Name: "where", Type: argOneOf, Args: argsLeftRight},
				{Name: "count", Type: argInteger, Token: "COUNT", Flags: argOptional},
			}},
		Fn: cmdLMPop},
}

func init() { register(listCommands...) }
