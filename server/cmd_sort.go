package server

import (
	"bytes"

	"github.com/loopkv/loopkv/store"
)

// SORT and SORT_RO (Redis sort.c): options are parsed in Redis's order,
// then one store operation sorts, looks up the BY and GET patterns and
// stores or returns the result, with every shard locked.

func cmdSort(c *cmdCtx)   { sortGeneric(c, false) }
func cmdSortRO(c *cmdCtx) { sortGeneric(c, true) }

func sortGeneric(c *cmdCtx, readonly bool) {
	o := store.SortOptions{Count: -1}
	for j := 2; j < len(c.args); j++ {
		a, left := c.args[j], len(c.args)-j-1
		switch {
		case optIs(a, "asc"):
			o.Desc = false
		case optIs(a, "desc"):
			o.Desc = true
		case optIs(a, "alpha"):
			o.Alpha = true
		case optIs(a, "limit") && left >= 2:
			var ok bool
			if o.Offset, ok = intArg(c, c.args[j+1]); !ok {
				return
			}
			if o.Count, ok = intArg(c, c.args[j+2]); !ok {
				return
			}
			j += 2
		case !readonly && optIs(a, "store") && left >= 1:
			o.Store = c.args[j+1]
			j++
		case optIs(a, "by") && left >= 1:
			o.By = c.args[j+1]
			o.NoSort = bytes.IndexByte(o.By, '*') < 0
			j++
		case optIs(a, "get") && left >= 1:
			o.Gets = append(o.Gets, c.args[j+1])
			j++
		default:
			c.errReply(errSyntax)
			return
		}
	}
	if o.NoSort {
		o.By = nil
	}
	out, n, st := c.store.Sort(c.db(), c.args[1], &o, c.now)
	switch {
	case st == store.NotFloat:
		c.errReply("ERR One or more scores can't be converted into double")
	case st != store.OK:
		c.errReply(statusError(st))
	case o.Store != nil:
		c.notifySortStore(o.Store, n)
		c.integer(int64(n))
	default:
		c.arrayLen(len(out))
		for _, v := range out {
			if v == nil {
				c.null()
			} else {
				c.bulk(v)
			}
		}
	}
}

var sortCommands = []command{
	{Name: "sort", Arity: -2, Flags: flagWrite | flagDenyOOM, ACL: catSet | catSortedset | catList | catDangerous,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Notes: "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort", Flags: keyRO | keyAccess, BS: beginSearch{}, FK: findKeys{}}, {Notes: "For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array", Flags: keyOW | keyUpdate, BS: beginSearch{}, FK: findKeys{}}},
		Doc: cmdDoc{Summary: "Sort the elements in a list, set or sorted set", Since: "1.0.0", Group: "generic",
			Complexity: "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N).",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "pattern", Type: argPattern, KeySpec: 1, Token: "BY", Flags: argOptional},
				{Name: "offset_count", Type: argBlock, Token: "LIMIT", Flags: argOptional, Args: []cmdArg{
					{Name: "offset", Type: argInteger},
					{Name: "count", Type: argInteger},
				}},
				{Name: "pattern", Type: argPattern, KeySpec: 1, Token: "GET", Flags: argOptional | argMultiple | argMultipleToken},
				{Name: "order", Type: argOneOf, Flags: argOptional, Args: []cmdArg{
					{Name: "asc", Type: argPureToken, Token: "ASC"},
					{Name: "desc", Type: argPureToken, Token: "DESC"},
				}},
				{Name: "sorting", Type: argPureToken, Token: "ALPHA", Flags: argOptional},
				{Name: "destination", Type: argKey, KeySpec: 2, Token: "STORE", Flags: argOptional},
			}},
		Fn: cmdSort},
	{Name: "sort_ro", Arity: -2, Flags: flagReadOnly, ACL: catSet | catSortedset | catList | catDangerous,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Notes: "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort", Flags: keyRO | keyAccess, BS: beginSearch{}, FK: findKeys{}}},
		Doc: cmdDoc{Summary: "Sort the elements in a list, set or sorted set. Read-only variant of SORT.", Since: "7.0.0", Group: "generic",
			Complexity: "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N).",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "pattern", Type: argPattern, KeySpec: 1, Token: "BY", Flags: argOptional},
				{Name: "offset_count", Type: argBlock, Token: "LIMIT", Flags: argOptional, Args: []cmdArg{
					{Name: "offset", Type: argInteger},
					{Name: "count", Type: argInteger},
				}},
				{Name: "pattern", Type: argPattern, KeySpec: 1, Token: "GET", Flags: argOptional | argMultiple | argMultipleToken},
				{Name: "order", Type: argOneOf, Flags: argOptional, Args: []cmdArg{
					{Name: "asc", Type: argPureToken, Token: "ASC"},
					{Name: "desc", Type: argPureToken, Token: "DESC"},
				}},
				{Name: "sorting", Type: argPureToken, Token: "ALPHA", Flags: argOptional},
			}},
		Fn: cmdSortRO},
}

func init() { register(sortCommands...) }
