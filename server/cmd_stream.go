package server

import (
	"math"
	"strconv"

	"github.com/loopkv/loopkv/config"
	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// Stream commands (Redis 7.0's t_stream.c): XADD, XLEN, XRANGE,
// XREVRANGE, XDEL, XTRIM, XSETID, XINFO and XREAD, whose BLOCK waits in
// the blocking table (blocking.go) and is served by the XADD that makes
// its stream hold an entry past its ID. The stream itself lives in the
// store (store/stream.go); here are the arguments, the replies and the
// events.

// Stream errors, worded as Redis words them.
const (
	errInvalidStreamID = "ERR Invalid stream ID specified as stream command argument"
	errXAddZeroID      = "ERR The ID specified in XADD must be greater than 0-0"
	errXAddTooSmall    = "ERR The ID specified in XADD is equal or smaller than the target stream top item"
	errXAddExhausted   = "ERR The stream has exhausted the last possible ID, unable to add more items"
	errXSetIDTop       = "ERR The ID specified in XSETID is smaller than the target stream top item"
	errXSetIDAdded     = "ERR The entries_added specified in XSETID is smaller than the target stream length"
)

// streamStatusError is statusError with the stream statuses.
func streamStatusError(st store.Status) string {
	switch st {
	case store.TooLarge: // XADD ms-* past the largest sequence, as Redis 7.0 words it
		return "ERR Elements are too large to be stored"
	case store.StreamIDTooSmall:
		return errXAddTooSmall
	case store.StreamExhausted:
		return errXAddExhausted
	case store.StreamSetIDTop:
		return errXSetIDTop
	case store.StreamSetIDAdded:
		return errXSetIDAdded
	}
	return statusError(st)
}

// strtoull parses b as Redis's string2ull: a canonical integer that is not
// negative, or else what C's strtoull accepts in base 10 with the whole
// input consumed (leading space, a sign: "-1" is refused as a canonical
// integer but "-01" wraps, as strtoull makes it), without overflow.
func strtoull(b []byte) (uint64, bool) {
	if n, ok := store.ParseInt(b); ok {
		return uint64(n), n >= 0
	}
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] >= '\t' && b[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	if i == len(b) {
		return 0, false
	}
	var v uint64
	for ; i < len(b); i++ {
		d := b[i] - '0'
		if d > 9 {
			return 0, false
		}
		if v > (math.MaxUint64-uint64(d))/10 {
			return 0, false // ERANGE
		}
		v = v*10 + uint64(d)
	}
	if neg {
		v = -v
	}
	return v, true
}

// parseStreamID parses an ID as Redis's streamGenericParseIDOrReply: "-"
// and "+" (unless strict), ms-seq, or ms alone with missingSeq as its
// sequence; with seqAuto, ms-* leaves seqGiven false.
func parseStreamID(b []byte, strict bool, missingSeq uint64, seqAuto bool) (id store.StreamID, seqGiven, ok bool) {
	if len(b) > 127 {
		return id, false, false
	}
	if len(b) == 1 && (b[0] == '-' || b[0] == '+') {
		if strict {
			return id, false, false
		}
		if b[0] == '+' {
			return store.MaxStreamID, true, true
		}
		return id, true, true
	}
	dash := -1
	for i, ch := range b {
		if ch == '-' {
			dash = i
			break
		}
	}
	msPart := b
	if dash >= 0 {
		msPart = b[:dash]
	}
	ms, ok := strtoull(msPart)
	if !ok {
		return id, false, false
	}
	id.Ms, id.Seq, seqGiven = ms, missingSeq, true
	if dash >= 0 {
		rest := b[dash+1:]
		if seqAuto && len(rest) == 1 && rest[0] == '*' {
			id.Seq, seqGiven = 0, false
		} else if id.Seq, ok = strtoull(rest); !ok {
			return id, false, false
		}
	}
	return id, seqGiven, true
}

// strictIDArg parses a strict ID argument (no "-" or "+"), replying the
// error when it is not one.
func strictIDArg(c *cmdCtx, b []byte) (store.StreamID, bool) {
	id, _, ok := parseStreamID(b, true, 0, false)
	if !ok {
		c.errReply(errInvalidStreamID)
	}
	return id, ok
}

// intervalIDArg parses an XRANGE bound: "(" and a strict ID for an
// exclusive bound, else an ID with missingSeq for an absent sequence.
func intervalIDArg(c *cmdCtx, b []byte, missingSeq uint64) (id store.StreamID, excl, ok bool) {
	if len(b) > 1 && b[0] == '(' {
		id, _, ok = parseStreamID(b[1:], true, missingSeq, false)
		excl = true
	} else {
		id, _, ok = parseStreamID(b, false, missingSeq, false)
	}
	if !ok {
		c.errReply(errInvalidStreamID)
	}
	return id, excl, ok
}

// appendStreamID appends id as a bulk string.
func appendStreamID(dst []byte, id store.StreamID) []byte {
	var buf [41]byte
	return resp.AppendBulk(dst, store.AppendStreamID(buf[:0], id))
}

// appendStreamEntry begins an entry of a range reply: [id, [n fields and
// values]].
func appendStreamEntry(dst []byte, id store.StreamID, n int) []byte {
	dst = append(dst, "*2\r\n"...)
	dst = appendStreamID(dst, id)
	return resp.AppendArrayLen(dst, 2*n)
}

var streamReply = store.StreamReply{Entry: appendStreamEntry, Elem: resp.AppendBulk}

// streamRange appends the entries from start to end (from end down when
// rev), at most count (< 0: all), as an array. It reports NotFound and
// appends nothing when the key does not exist.
func streamRange(c *cmdCtx, key []byte, start, end store.StreamID, count int64, rev bool) store.Status {
	out, mark := resp.BeginArray(c.out)
	out, n, st := c.store.XRange(c.db(), key, start, end, count, rev, c.now, out, streamReply)
	if st != store.OK {
		c.out = out[:mark]
		return st
	}
	c.out = resp.EndArray(out, mark, n)
	return st
}

// parseAddTrim parses XADD's and XTRIM's options from argument 2, as
// Redis's streamParseAddOrTrimArgsOrReply: for XADD up to and including
// the ID (its index is returned; len(args) when there is none).
func parseAddTrim(c *cmdCtx, xadd bool, o *store.XAddOptions) (int, bool) {
	a := c.args
	limitGiven := false
	t := &o.Trim
	i := 2
	for ; i < len(a); i++ {
		more := len(a) - 1 - i
		opt := a[i]
		switch {
		case xadd && len(opt) == 1 && opt[0] == '*':
			return i, parseTrimEnd(c, xadd, t, limitGiven)
		case more > 0 && (optIs(opt, "maxlen") || optIs(opt, "minid")):
			if t.Strategy != store.TrimNone {
				c.errReply("ERR syntax error, MAXLEN and MINID options at the same time are not compatible")
				return 0, false
			}
			t.Approx = false
			if next := a[i+1]; more >= 2 && len(next) == 1 && (next[0] == '~' || next[0] == '=') {
				t.Approx = next[0] == '~'
				i++
			}
			if optIs(opt, "maxlen") {
				n, ok := intArg(c, a[i+1])
				if !ok {
					return 0, false
				}
				if n < 0 {
					c.errReply("ERR The MAXLEN argument must be >= 0.")
					return 0, false
				}
				t.Strategy, t.MaxLen = store.TrimMaxLen, n
			} else {
				id, ok := strictIDArg(c, a[i+1])
				if !ok {
					return 0, false
				}
				t.Strategy, t.MinID = store.TrimMinID, id
			}
			i++
		case more > 0 && optIs(opt, "limit"):
			n, ok := intArg(c, a[i+1])
			if !ok {
				return 0, false
			}
			if n < 0 {
				c.errReply("ERR The LIMIT argument must be >= 0.")
				return 0, false
			}
			t.Limit, limitGiven = n, true
			i++
		case xadd && optIs(opt, "nomkstream"):
			o.NoMkStream = true
		case xadd:
			id, seqGiven, ok := parseStreamID(opt, true, 0, true)
			if !ok {
				c.errReply(errInvalidStreamID)
				return 0, false
			}
			o.ID, o.IDGiven, o.SeqGiven = id, true, seqGiven
			return i, parseTrimEnd(c, xadd, t, limitGiven)
		default:
			c.errReply(errSyntax)
			return 0, false
		}
	}
	return i, parseTrimEnd(c, xadd, t, limitGiven)
}

// parseTrimEnd checks the trimming options once parsed and sets the
// default LIMIT of ~.
func parseTrimEnd(c *cmdCtx, xadd bool, t *store.XTrimOptions, limitGiven bool) bool {
	switch {
	case t.Limit != 0 && t.Strategy == store.TrimNone:
		c.errReply("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy")
		return false
	case !xadd && t.Strategy == store.TrimNone:
		c.errReply("ERR syntax error, XTRIM must be called with a trimming strategy")
		return false
	case c.replay:
		// an AOF's trims are exact: Redis writes ~ as = and keeps LIMIT,
		// which its AOF client (mustObeyClient) ignores, as here
		t.Limit = 0
	case limitGiven && !t.Approx:
		c.errReply("ERR syntax error, LIMIT cannot be used without the special ~ option")
		return false
	case !limitGiven && t.Approx:
		t.Limit = 100 * int64(c.store.Limits().StreamNodeMaxEntries)
		if t.Limit <= 0 || t.Limit > 10000 {
			t.Limit = 10000
		}
	case !limitGiven:
		t.Limit = 0
	}
	return true
}

// cmdXAdd is XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT
// count]] *|id field value [field value ...].
func cmdXAdd(c *cmdCtx) {
	var o store.XAddOptions
	i, ok := parseAddTrim(c, true, &o)
	if !ok {
		return
	}
	if n := len(c.args) - (i + 1); n < 2 || n%2 == 1 {
		c.errReply(errWrongArity(c.args[0]))
		return
	}
	if o.IDGiven && o.SeqGiven && o.ID.IsZero() {
		c.errReply(errXAddZeroID)
		return
	}
	key := c.args[1]
	id, trimmed, st := c.store.XAdd(c.db(), key, c.args[i+1:], &o, c.now)
	switch st {
	case store.OK:
	case store.NotFound:
		c.null()
		return
	default:
		c.errReply(streamStatusError(st))
		return
	}
	c.out = appendStreamID(c.out, id)
	c.notify(notifyStream, "xadd", key)
	if trimmed > 0 {
		c.publishEvent(notifyStream, "xtrim", key)
	}
}

// cmdXLen is XLEN key.
func cmdXLen(c *cmdCtx) {
	n, st := c.store.XLen(c.db(), c.args[1], c.now)
	c.intUnlessError(n, st)
}

func cmdXRange(c *cmdCtx)    { xrangeGeneric(c, false) }
func cmdXRevRange(c *cmdCtx) { xrangeGeneric(c, true) }

// xrangeGeneric is XRANGE key start end [COUNT count] and XREVRANGE key
// end start [COUNT count].
func xrangeGeneric(c *cmdCtx, rev bool) {
	startArg, endArg := c.args[2], c.args[3]
	if rev {
		startArg, endArg = endArg, startArg
	}
	start, excl, ok := intervalIDArg(c, startArg, 0)
	if !ok {
		return
	}
	if excl {
		if start, ok = start.Incr(); !ok {
			c.errReply("ERR invalid start ID for the interval")
			return
		}
	}
	end, excl, ok := intervalIDArg(c, endArg, math.MaxUint64)
	if !ok {
		return
	}
	if excl {
		if end, ok = end.Decr(); !ok {
			c.errReply("ERR invalid end ID for the interval")
			return
		}
	}
	count := int64(-1)
	for j := 4; j < len(c.args); j++ {
		if !optIs(c.args[j], "count") || j+1 >= len(c.args) {
			c.errReply(errSyntax)
			return
		}
		j++
		n, ok := intArg(c, c.args[j])
		if !ok {
			return
		}
		count = max(n, 0)
	}
	if count == 0 {
		// Redis looks the key up first: a missing key is an empty array
		switch _, exists, st := c.store.XLastID(c.db(), c.args[1], c.now); {
		case st != store.OK:
			c.errReply(statusError(st))
		case !exists:
			c.arrayLen(0)
		default:
			c.nullArray()
		}
		return
	}
	switch st := streamRange(c, c.args[1], start, end, count, rev); st {
	case store.OK:
	case store.NotFound:
		c.arrayLen(0)
	default:
		c.errReply(statusError(st))
	}
}

// cmdXDel is XDEL key id [id ...].
func cmdXDel(c *cmdCtx) {
	var buf [8]store.StreamID
	ids := buf[:0]
	for _, a := range c.args[2:] {
		id, ok := strictIDArg(c, a)
		if !ok {
			return
		}
		ids = append(ids, id)
	}
	n, st := c.store.XDel(c.db(), c.args[1], ids, c.now)
	if st != store.OK {
		c.errReply(statusError(st))
		return
	}
	if n > 0 {
		c.notifyN(notifyStream, "xdel", c.args[1], int(n))
	}
	c.integer(n)
}

// cmdXTrim is XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]. As in
// Redis, the key is looked up before the options are parsed.
func cmdXTrim(c *cmdCtx) {
	key := c.args[1]
	_, exists, st := c.store.XLastID(c.db(), key, c.now)
	if st != store.OK {
		c.errReply(statusError(st))
		return
	}
	if !exists {
		c.integer(0)
		return
	}
	var o store.XAddOptions
	if _, ok := parseAddTrim(c, false, &o); !ok {
		return
	}
	n, st := c.store.XTrim(c.db(), key, &o.Trim, c.now)
	if st != store.OK {
		c.errReply(statusError(st))
		return
	}
	if n > 0 {
		c.notifyN(notifyStream, "xtrim", key, int(n))
	}
	c.integer(n)
}

// cmdXSetID is XSETID key last-id [ENTRIESADDED entries-added]
// [MAXDELETEDID max-deleted-id].
func cmdXSetID(c *cmdCtx) {
	id, ok := strictIDArg(c, c.args[2])
	if !ok {
		return
	}
	added := int64(-1)
	var maxDel store.StreamID
	for i := 3; i < len(c.args); i += 2 {
		more := i+1 < len(c.args)
		switch {
		case more && optIs(c.args[i], "entriesadded"):
			n, ok := intArg(c, c.args[i+1])
			if !ok {
				return
			}
			if n < 0 {
				c.errReply("ERR entries_added must be positive")
				return
			}
			added = n
		case more && optIs(c.args[i], "maxdeletedid"):
			if maxDel, ok = strictIDArg(c, c.args[i+1]); !ok {
				return
			}
			if id.Less(maxDel) {
				c.errReply("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id")
				return
			}
		default:
			c.errReply(errSyntax)
			return
		}
	}
	if st := c.store.XSetID(c.db(), c.args[1], id, added, maxDel, c.now); st != store.OK {
		c.errReply(streamStatusError(st))
		return
	}
	c.ok()
	c.notify(notifyStream, "xsetid", c.args[1])
}

var xinfoHelp = []string{
	"XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CONSUMERS <key> <groupname>",
	"    Show consumers of <groupname>.",
	"GROUPS <key>",
	"    Show the stream consumer groups.",
	"STREAM <key> [FULL [COUNT <count>]",
	"    Show information about the stream.",
	"HELP",
	"    Prints this help.",
}

func cmdXInfoHelp(c *cmdCtx) { helpReply(c, xinfoHelp) }

// streamExists replies Redis's error for a key that is missing (ERR no
// such key) or not a stream, and reports whether it is a stream.
func streamExists(c *cmdCtx, key []byte) bool {
	_, exists, st := c.store.XLastID(c.db(), key, c.now)
	if st == store.OK && !exists {
		st = store.NotFound
	}
	if st != store.OK {
		c.errReply(statusError(st))
		return false
	}
	return true
}

// cmdXInfoGroups is XINFO GROUPS key: no stream has groups yet.
func cmdXInfoGroups(c *cmdCtx) {
	if streamExists(c, c.args[2]) {
		c.arrayLen(0)
	}
}

// cmdXInfoConsumers is XINFO CONSUMERS key group: no stream has groups yet.
func cmdXInfoConsumers(c *cmdCtx) {
	if streamExists(c, c.args[2]) {
		c.errReply("NOGROUP No such consumer group '" + string(c.args[3]) + "' for key name '" + string(c.args[2]) + "'")
	}
}

// cmdXInfoStream is XINFO STREAM key [FULL [COUNT count]].
func cmdXInfoStream(c *cmdCtx) {
	key := c.args[2]
	if !streamExists(c, key) {
		return
	}
	full, count := false, int64(10)
	switch rest := c.args[3:]; {
	case len(rest) == 0:
	case len(rest) == 1 && optIs(rest[0], "full"):
		full = true
	case len(rest) == 3 && optIs(rest[0], "full") && optIs(rest[1], "count"):
		n, ok := intArg(c, rest[2])
		if !ok {
			return
		}
		if n < 0 {
			n = 10 // as Redis: a negative COUNT is the default
		}
		full, count = true, n
	default:
		c.errReply(errSubcommandSyntax(clip(c.args[1]), "XINFO"))
		return
	}
	st := c.store.XInfo(c.db(), key, c.now, func(v *store.StreamInfo) {
		if full {
			c.mapLen(9)
		} else {
			c.mapLen(10)
		}
		c.bulkString("length")
		c.integer(v.Length)
		c.bulkString("radix-tree-keys")
		c.integer(int64(v.Nodes))
		c.bulkString("radix-tree-nodes")
		c.integer(int64(v.RaxNodes()))
		c.bulkString("last-generated-id")
		c.out = appendStreamID(c.out, v.LastID)
		c.bulkString("max-deleted-entry-id")
		c.out = appendStreamID(c.out, v.MaxDeletedID)
		c.bulkString("entries-added")
		c.integer(int64(v.EntriesAdded))
		c.bulkString("recorded-first-entry-id")
		c.out = appendStreamID(c.out, v.FirstID)
		if full {
			c.bulkString("entries")
			out, mark := resp.BeginArray(c.out)
			if count == 0 {
				count = -1
			}
			out, n := v.Range(store.StreamID{}, store.MaxStreamID, count, false, out, streamReply)
			c.out = resp.EndArray(out, mark, n)
			c.bulkString("groups")
			c.arrayLen(0)
			return
		}
		c.bulkString("groups")
		c.integer(int64(v.Groups))
		for _, rev := range [2]bool{false, true} {
			if rev {
				c.bulkString("last-entry")
			} else {
				c.bulkString("first-entry")
			}
			mark := len(c.out)
			var n int
			c.out, n = v.Range(store.StreamID{}, store.MaxStreamID, 1, rev, c.out, streamReply)
			if n == 0 {
				c.out = c.out[:mark]
				c.null()
			}
		}
	})
	if st != store.OK {
		c.errReply(statusError(st))
	}
}

var streamCommands = []command{
	{Name: "xadd", Arity: -5, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catStream,
		Tips: []string{"nondeterministic_output"},
		Keys: []keySpec{{Notes: "UPDATE instead of INSERT because of the optional trimming feature", Flags: keyRW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Appends a new entry to a stream", Since: "5.0.0", Group: "stream",
			Complexity: "O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.",
			History:    [][2]string{{"6.2.0", "Added the `NOMKSTREAM` option, `MINID` trimming strategy and the `LIMIT` option."}, {"7.0.0", "Added support for the `<ms>-*` explicit ID form."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "nomkstream", Type: argPureToken, Token: "NOMKSTREAM", Since: "6.2.0", Flags: argOptional},
				{Name: "trim", Type: argBlock, Flags: argOptional, Args: []cmdArg{
					{Name: "strategy", Type: argOneOf, Args: []cmdArg{
						{Name: "maxlen", Type: argPureToken, Token: "MAXLEN"},
						{Name: "minid", Type: argPureToken, Token: "MINID", Since: "6.2.0"},
					}},
					{Name: "operator", Type: argOneOf, Flags: argOptional, Args: []cmdArg{
						{Name: "equal", Type: argPureToken, Token: "="},
						{Name: "approximately", Type: argPureToken, Token: "~"},
					}},
					{Name: "threshold", Type: argString},
					{Name: "count", Type: argInteger, Token: "LIMIT", Since: "6.2.0", Flags: argOptional},
				}},
				{Name: "id_or_auto", Type: argOneOf, Args: []cmdArg{
					{Name: "auto_id", Type: argPureToken, Token: "*"},
					{Name: "id", Type: argString},
				}},
				{Name: "field_value", Type: argBlock, Flags: argMultiple, Args: []cmdArg{
					{Name: "field", Type: argString},
					{Name: "value", Type: argString},
				}},
			}},
		Fn: cmdXAdd},
	{Name: "xdel", Arity: -3, Flags: flagWrite | flagFast, ACL: catStream,
		Keys: []keySpec{{Flags: keyRW | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Removes the specified entries from the stream. Returns the number of items actually deleted, that may be different from the number of IDs passed in case certain IDs do not exist.", Since: "5.0.0", Group: "stream",
			Complexity: "O(1) for each single item to delete in the stream, regardless of the stream size.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "id", Type: argString, Flags: argMultiple},
			}},
		Fn: cmdXDel},
	{Name: "xinfo", Arity: -2,
		Doc: cmdDoc{Summary: "A container for stream introspection commands", Since: "5.0.0", Group: "stream",
			Complexity: "Depends on subcommand."},
		Subs: []command{
			{Name: "consumers", Arity: 4, Flags: flagReadOnly, ACL: catStream,
				Tips: []string{"nondeterministic_output"},
				Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(2), FK: fkRange(0, 1, 0)}},
				Doc: cmdDoc{Summary: "List the consumers in a consumer group", Since: "5.0.0", Group: "stream",
					Complexity: "O(1)",
					Args: []cmdArg{
						{Name: "key", Type: argKey, KeySpec: 0},
						{Name: "groupname", Type: argString},
					}},
				Fn: cmdXInfoConsumers},
			{Name: "groups", Arity: 3, Flags: flagReadOnly, ACL: catStream,
				Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(2), FK: fkRange(0, 1, 0)}},
				Doc: cmdDoc{Summary: "List the consumer groups of a stream", Since: "5.0.0", Group: "stream",
					Complexity: "O(1)",
					History:    [][2]string{{"7.0.0", "Added the `entries-read` and `lag` fields"}},
					Args: []cmdArg{
						{Name: "key", Type: argKey, KeySpec: 0},
					}},
				Fn: cmdXInfoGroups},
			{Name: "help", Arity: 2, Flags: flagLoading | flagStale, ACL: catStream,
				Doc: cmdDoc{Summary: "Show helpful text about the different subcommands", Since: "5.0.0", Group: "stream",
					Complexity: "O(1)"},
				Fn: cmdXInfoHelp},
			{Name: "stream", Arity: -3, Flags: flagReadOnly, ACL: catStream,
				Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(2), FK: fkRange(0, 1, 0)}},
				Doc: cmdDoc{Summary: "Get information about a stream", Since: "5.0.0", Group: "stream",
					Complexity: "O(1)",
					History:    [][2]string{{"6.0.0", "Added the `FULL` modifier."}, {"7.0.0", "Added the `max-deleted-entry-id`, `entries-added`, `recorded-first-entry-id`, `entries-read` and `lag` fields"}},
					Args: []cmdArg{
						{Name: "key", Type: argKey, KeySpec: 0},
						{Name: "full", Type: argBlock, Token: "FULL", Flags: argOptional, Args: []cmdArg{
							{Name: "count", Type: argInteger, Token: "COUNT", Flags: argOptional},
						}},
					}},
				Fn: cmdXInfoStream},
		}},
	{Name: "xlen", Arity: 2, Flags: flagReadOnly | flagFast, ACL: catStream,
		Keys: []keySpec{{Flags: keyRO, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Return the number of entries in a stream", Since: "5.0.0", Group: "stream",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdXLen},
	{Name: "xrange", Arity: -4, Flags: flagReadOnly, ACL: catStream,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Return a range of elements in a stream, with IDs matching the specified IDs interval", Since: "5.0.0", Group: "stream",
			Complexity: "O(N) with N being the number of elements being returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
			History:    [][2]string{{"6.2.0", "Added exclusive ranges."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "start", Type: argString},
				{Name: "end", Type: argString},
				{Name: "count", Type: argInteger, Token: "COUNT", Flags: argOptional},
			}},
		Fn: cmdXRange},
	{Name: "xread", Arity: -4, Flags: flagReadOnly | flagBlocking, ACL: catStream,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsKeyword("STREAMS", 1), FK: fkRange(-1, 1, 2)}},
		Doc: cmdDoc{Summary: "Return never seen elements in multiple streams, with IDs greater than the ones reported by the caller for each stream. Can block.", Since: "5.0.0", Group: "stream",
			Complexity: "For each stream mentioned: O(N) with N being the number of elements being returned, it means that XREAD-ing with a fixed COUNT is O(1). Note that when the BLOCK option is used, XADD will pay O(M) time in order to serve the M clients blocked on the stream getting new data.",
			Args: []cmdArg{
				{Name: "count", Type: argInteger, Token: "COUNT", Flags: argOptional},
				{Name: "milliseconds", Type: argInteger, Token: "BLOCK", Flags: argOptional},
				{Name: "streams", Type: argBlock, Token: "STREAMS", Args: []cmdArg{
					{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
					{Name: "id", Type: argString, Flags: argMultiple},
				}},
			}},
		Fn: cmdXRead},
	{Name: "xrevrange", Arity: -4, Flags: flagReadOnly, ACL: catStream,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Return a range of elements in a stream, with IDs matching the specified IDs interval, in reverse order (from greater to smaller IDs) compared to XRANGE", Since: "5.0.0", Group: "stream",
			Complexity: "O(N) with N being the number of elements returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
			History:    [][2]string{{"6.2.0", "Added exclusive ranges."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "end", Type: argString},
				{Name: "start", Type: argString},
				{Name: "count", Type: argInteger, Token: "COUNT", Flags: argOptional},
			}},
		Fn: cmdXRevRange},
	{Name: "xsetid", Arity: -3, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catStream,
		Keys: []keySpec{{Flags: keyRW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "An internal command for replicating stream values", Since: "5.0.0", Group: "stream",
			Complexity: "O(1)",
			History:    [][2]string{{"7.0.0", "Added the `entries_added` and `max_deleted_entry_id` arguments."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "last-id", Type: argString},
				{Name: "entries_added", Type: argInteger, Token: "ENTRIESADDED", Since: "7.0.0", Flags: argOptional},
				{Name: "max_deleted_entry_id", Type: argString, Token: "MAXDELETEDID", Since: "7.0.0", Flags: argOptional},
			}},
		Fn: cmdXSetID},
	{Name: "xtrim", Arity: -4, Flags: flagWrite, ACL: catStream,
		Tips: []string{"nondeterministic_output"},
		Keys: []keySpec{{Flags: keyRW | keyDelete, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Trims the stream to (approximately if '~' is passed) a certain size", Since: "5.0.0", Group: "stream",
			Complexity: "O(N), with N being the number of evicted entries. Constant times are very small however, since entries are organized in macro nodes containing multiple entries that can be released with a single deallocation.",
			History:    [][2]string{{"6.2.0", "Added the `MINID` trimming strategy and the `LIMIT` option."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "trim", Type: argBlock, Args: []cmdArg{
					{Name: "strategy", Type: argOneOf, Args: []cmdArg{
						{Name: "maxlen", Type: argPureToken, Token: "MAXLEN"},
						{Name: "minid", Type: argPureToken, Token: "MINID", Since: "6.2.0"},
					}},
					{Name: "operator", Type: argOneOf, Flags: argOptional, Args: []cmdArg{
						{Name: "equal", Type: argPureToken, Token: "="},
						{Name: "approximately", Type: argPureToken, Token: "~"},
					}},
					{Name: "threshold", Type: argString},
					{Name: "count", Type: argInteger, Token: "LIMIT", Since: "6.2.0", Flags: argOptional},
				}},
			}},
		Fn: cmdXTrim},
}

func init() { register(streamCommands...) }

// signalsNoKey reports whether cmd is a write that touches no watcher and
// invalidates no tracked key: Redis 7.0's XSETID calls no
// signalModifiedKey.
func signalsNoKey(cmd *command) bool { return cmd.full == "xsetid" }

// streamSettings are the stream node limits (store.Limits), as Redis
// names and types them.
var streamSettings = []configParam{
	encodingSetting(config.Setting{Name: "stream-node-max-bytes", Type: config.Memory{Max: math.MaxInt64},
		Help: "largest stream node in bytes (0: no limit)"}, func(l *store.Limits) *int { return &l.StreamNodeMaxBytes }),
	encodingSetting(config.Setting{Name: "stream-node-max-entries", Type: config.Int{Max: math.MaxInt64},
		Help: "most entries, live and deleted, of a stream node (0: no limit)"}, func(l *store.Limits) *int { return &l.StreamNodeMaxEntries }),
}

func init() { registerSettings(streamSettings...) }

// addStream mixes a stream's entries into d as Redis's xorObjectDigest
// does: each entry's ID as "ms.seq", then its fields and values, in order.
func (d *digest) addStream(v *store.Value) {
	var idb [41]byte
	v.StreamEntries(func(id store.StreamID, fv [][]byte) bool {
		b := strconv.AppendUint(idb[:0], id.Ms, 10)
		b = append(b, '.')
		d.mix(strconv.AppendUint(b, id.Seq, 10))
		for _, x := range fv {
			d.mix(x)
		}
		return true
	})
}
