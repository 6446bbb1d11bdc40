package server

import (
	"math/bits"

	"github.com/loopkv/loopkv/store"
)

// Bitmap commands (Redis bitops.c) and the string commands LCS and SUBSTR.
// A bitmap is a string: offsets count bits from the most significant bit of
// the first byte, writes create and zero-extend the string in place (store
// bitmap.go), and Redis 7.0 counts a change, announces it ("setbit") and so
// propagates it only when the value changed.

const (
	errBitOffset     = "ERR bit offset is not an integer or out of range"
	errBitValue      = "ERR bit is not an integer or out of range"
	errBitArg        = "ERR The bit argument must be 1 or 0."
	errBitOpNot      = "ERR BITOP NOT must be called with a single source key."
	errBitFieldType  = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
	errBitFieldOver  = "ERR Invalid OVERFLOW type specified"
	errBitFieldRO    = "ERR BITFIELD_RO only supports the GET subcommand"
	errLCSLenAndIdx  = "ERR If you want both the length and indexes, please just use IDX."
	errLCSWrongType  = "ERR The specified keys must contain string values"
	errLCSTooMuchMem = "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"
)

// maxBulk is proto-max-bulk-len, which bounds bit offsets (an offset's byte
// must lie below it) and LCS's table. A Server built without Options (the
// in-process tests) has the default.
func (c *cmdCtx) maxBulk() int64 {
	if n := c.srv.cfg.protoMaxBulk.Load(); n > 0 {
		return n
	}
	return store.MaxValueLen
}

// bitOffset parses a bit offset as Redis's getBitOffsetFromArgument does:
// a non-negative integer, or with hash "#n" for n times width, whose byte
// lies below proto-max-bulk-len. It replies the error when it is not one.
func bitOffset(c *cmdCtx, arg []byte, hash bool, width uint8) (uint64, bool) {
	mul := int64(1)
	if hash && len(arg) > 0 && arg[0] == '#' {
		arg, mul = arg[1:], int64(width)
	}
	n, ok := store.ParseInt(arg)
	if !ok || n < 0 || n > (1<<63-1)/mul {
		c.errReply(errBitOffset)
		return 0, false
	}
	n *= mul
	if n>>3 >= c.maxBulk() {
		c.errReply(errBitOffset)
		return 0, false
	}
	return uint64(n), true
}

// cmdSetBit is SETBIT key offset value.
func cmdSetBit(c *cmdCtx) {
	off, ok := bitOffset(c, c.args[2], false, 1)
	if !ok {
		return
	}
	v, ok := store.ParseInt(c.args[3])
	if !ok || v&^1 != 0 {
		c.errReply(errBitValue)
		return
	}
	old, changed, st := c.store.SetBit(c.db(), c.args[1], c.now, off, v == 1)
	if st != store.OK {
		c.errReply(statusError(st))
		return
	}
	if changed {
		c.notify(notifyString, "setbit", c.args[1])
	}
	c.integer(int64(old))
}

// cmdGetBit is GETBIT key offset.
func cmdGetBit(c *cmdCtx) {
	off, ok := bitOffset(c, c.args[2], false, 1)
	if !ok {
		return
	}
	b, st := c.store.GetBit(c.db(), c.args[1], c.now, off)
	if st == store.WrongType {
		c.errReply(errWrongType)
		return
	}
	c.integer(int64(b))
}

// bitRange parses BITCOUNT's and BITPOS's range arguments, args being
// [start [end [BYTE|BIT]]] (end optional only when endOptional). It
// returns the error text instead of replying: Redis replies it only when
// the key exists as a string.
func bitRange(args [][]byte, endOptional bool) (r store.BitRange, msg string) {
	if len(args) == 0 {
		r.Whole = true
		return r, ""
	}
	if len(args) > 3 || len(args) == 1 && !endOptional {
		return r, errSyntax
	}
	var ok bool
	if r.Start, ok = store.ParseInt(args[0]); !ok {
		return r, errNotInteger
	}
	r.End = -1
	if len(args) >= 2 {
		if r.End, ok = store.ParseInt(args[1]); !ok {
			return r, errNotInteger
		}
		r.EndGiven = true
	}
	if len(args) == 3 {
		switch {
		case optIs(args[2], "bit"):
			r.Bit = true
		case optIs(args[2], "byte"):
		default:
			return r, errSyntax
		}
	}
	return r, ""
}

// cmdBitCount is BITCOUNT key [start end [BYTE|BIT]].
func cmdBitCount(c *cmdCtx) {
	r, msg := bitRange(c.args[2:], false)
	n, st := c.store.BitCount(c.db(), c.args[1], c.now, r, msg != "")
	switch {
	case st == store.WrongType:
		c.errReply(errWrongType)
	case st == store.OK && msg != "":
		c.errReply(msg)
	default:
		c.integer(n)
	}
}

// cmdBitPos is BITPOS key bit [start [end [BYTE|BIT]]].
func cmdBitPos(c *cmdCtx) {
	bit, ok := intArg(c, c.args[2])
	if !ok {
		return
	}
	if bit&^1 != 0 {
		c.errReply(errBitArg)
		return
	}
	r, msg := bitRange(c.args[3:], true)
	n, st := c.store.BitPos(c.db(), c.args[1], c.now, int(bit), r, msg != "")
	switch {
	case st == store.WrongType:
		c.errReply(errWrongType)
	case st == store.NotFound:
		c.integer(-bit) // all zeros: 0 for a 0, none (-1) for a 1
	case msg != "":
		c.errReply(msg)
	default:
		c.integer(n)
	}
}

// cmdBitOp is BITOP AND|OR|XOR|NOT destkey key [key ...].
func cmdBitOp(c *cmdCtx) {
	var op store.BitOpKind
	switch a := c.args[1]; {
	case optIs(a, "and"):
		op = store.BitAnd
	case optIs(a, "or"):
		op = store.BitOr
	case optIs(a, "xor"):
		op = store.BitXor
	case optIs(a, "not"):
		op = store.BitNot
	default:
		c.errReply(errSyntax)
		return
	}
	dst, keys := c.args[2], c.args[3:]
	if op == store.BitNot && len(keys) != 1 {
		c.errReply(errBitOpNot)
		return
	}
	n, deleted, st := c.store.BitOp(c.db(), op, dst, keys, c.now)
	if st != store.OK {
		c.errReply(statusError(st))
		return
	}
	switch {
	case n > 0:
		c.notify(notifyString, "set", dst)
	case deleted:
		c.notify(notifyGeneric, "del", dst)
	}
	c.integer(int64(n))
}

// bitFieldType parses a BITFIELD type: i1 to i64, u1 to u63.
func bitFieldType(arg []byte) (signed bool, width uint8, ok bool) {
	if len(arg) < 2 || arg[0] != 'i' && arg[0] != 'u' {
		return false, 0, false
	}
	n, ok := store.ParseInt(arg[1:])
	signed = arg[0] == 'i'
	if !ok || n < 1 || n > 64 || n == 64 && !signed {
		return false, 0, false
	}
	return signed, uint8(n), true
}

// bitFieldOps is the most operations a BITFIELD parses into the stack
// array; more spill to the heap.
const bitFieldOps = 8

func cmdBitField(c *cmdCtx)   { bitField(c, false) }
func cmdBitFieldRO(c *cmdCtx) { bitField(c, true) }

// bitField is BITFIELD (and, ro, BITFIELD_RO): every operation is parsed
// before any runs, so that a bad one changes nothing.
func bitField(c *cmdCtx, ro bool) {
	var opBuf [bitFieldOps]store.BitFieldOp
	var resBuf [bitFieldOps]store.BitFieldResult
	ops, writes, ok := parseBitField(c, opBuf[:0])
	if !ok {
		return
	}
	if ro && writes { // after the whole parse: a bad operation's error comes first
		c.errReply(errBitFieldRO)
		return
	}
	res, changes, st := c.store.BitField(c.db(), c.args[1], c.now, ops, resBuf[:0])
	if st != store.OK && st != store.NotFound {
		c.errReply(statusError(st)) // WRONGTYPE; past 4 GB, the string limit
		return
	}
	c.arrayLen(len(res))
	for _, r := range res {
		if r.Nil {
			c.null()
		} else {
			c.integer(r.Value)
		}
	}
	if changes > 0 {
		c.notifyN(notifyString, "setbit", c.args[1], changes)
	}
}

// parseBitField appends BITFIELD's operations to ops, each with the
// OVERFLOW mode in force where it stands, and reports whether one is a
// write. ok is false after an error reply.
func parseBitField(c *cmdCtx, ops []store.BitFieldOp) (_ []store.BitFieldOp, writes, ok bool) {
	over := store.OverflowWrap
	args := c.args
	for j := 2; j < len(args); j++ {
		rest := len(args) - j - 1
		op := store.BitFieldOp{Overflow: over}
		switch a := args[j]; {
		case optIs(a, "get") && rest >= 2:
			op.Kind = store.BitFieldGet
		case optIs(a, "set") && rest >= 3:
			op.Kind = store.BitFieldSet
		case optIs(a, "incrby") && rest >= 3:
			op.Kind = store.BitFieldIncr
		case optIs(a, "overflow") && rest >= 1:
			j++
			if over, ok = overflowArg(args[j]); !ok {
				c.errReply(errBitFieldOver)
				return nil, false, false
			}
			continue
		default:
			c.errReply(errSyntax)
			return nil, false, false
		}
		if op.Signed, op.Bits, ok = bitFieldType(args[j+1]); !ok {
			c.errReply(errBitFieldType)
			return nil, false, false
		}
		if op.Offset, ok = bitOffset(c, args[j+2], true, op.Bits); !ok {
			return nil, false, false
		}
		j += 2
		if op.Kind != store.BitFieldGet {
			j++
			if op.Value, ok = intArg(c, args[j]); !ok {
				return nil, false, false
			}
			writes = true
		}
		ops = append(ops, op)
	}
	return ops, writes, true
}

// overflowArg parses OVERFLOW's argument.
func overflowArg(a []byte) (store.BitOverflow, bool) {
	switch {
	case optIs(a, "wrap"):
		return store.OverflowWrap, true
	case optIs(a, "sat"):
		return store.OverflowSat, true
	case optIs(a, "fail"):
		return store.OverflowFail, true
	}
	return 0, false
}

// bitFieldKeyFlags gives BITFIELD's key its flags for one call: read only
// when every operation is a GET (Redis's bitfieldGetKeys).
func bitFieldKeyFlags(args [][]byte, _ int) keyFlags {
	for i := 2; i < len(args); i++ {
		if optIs(args[i], "set") || optIs(args[i], "incrby") {
			return keyRW | keyAccess | keyUpdate
		}
	}
	return keyRO | keyAccess
}

// cmdLCS is LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN].
func cmdLCS(c *cmdCtx) {
	buf, la, lb, st := c.store.Strings(c.db(), c.args[1], c.args[2], c.now, nil)
	if st != store.OK {
		c.errReply(errLCSWrongType)
		return
	}
	var wantLen, wantIdx, withLen bool
	var minLen int64
	for j := 3; j < len(c.args); j++ {
		switch a := c.args[j]; {
		case optIs(a, "len"):
			wantLen = true
		case optIs(a, "idx"):
			wantIdx = true
		case optIs(a, "withmatchlen"):
			withLen = true
		case optIs(a, "minmatchlen") && j+1 < len(c.args):
			j++
			n, ok := intArg(c, c.args[j])
			if !ok {
				return
			}
			minLen = max(n, 0)
		default:
			c.errReply(errSyntax)
			return
		}
	}
	if wantLen && wantIdx {
		c.errReply(errLCSLenAndIdx)
		return
	}
	// the table of (la+1)*(lb+1) 32-bit cells must fit in proto-max-bulk-len
	if hi, cells := bits.Mul64(uint64(la+1), uint64(lb+1)); hi != 0 || cells > uint64(c.maxBulk())/4 {
		c.errReply(errLCSTooMuchMem)
		return
	}
	a, b := buf[:la], buf[la:la+lb]
	l := newLCS(a, b)
	switch {
	case wantLen:
		c.integer(int64(l.length()))
	case wantIdx:
		lcsIdxReply(c, l, minLen, withLen)
	default:
		c.bulk(l.text())
	}
}

// lcsIdxReply is LCS IDX's reply: a map (an array in RESP2) of the matches,
// each its ranges in both strings and, withLen, its length, and the
// subsequence's length.
func lcsIdxReply(c *cmdCtx, l *lcs, minLen int64, withLen bool) {
	c.mapLen(2)
	c.bulkString("matches")
	matches := l.matches(minLen)
	c.arrayLen(len(matches))
	for _, m := range matches {
		c.arrayLen(2 + int(b2i(withLen)))
		c.arrayLen(2)
		c.integer(int64(m[0]))
		c.integer(int64(m[1]))
		c.arrayLen(2)
		c.integer(int64(m[2]))
		c.integer(int64(m[3]))
		if withLen {
			c.integer(int64(m[1] - m[0] + 1))
		}
	}
	c.bulkString("len")
	c.integer(int64(l.length()))
}

// lcs is the dynamic-programming table of the longest common subsequence
// of a and b: at[i*(len(b)+1)+j] is the length for a[:i] and b[:j].
type lcs struct {
	a, b []byte
	at   []uint32
}

func newLCS(a, b []byte) *lcs {
	w := len(b) + 1
	l := &lcs{a: a, b: b, at: make([]uint32, (len(a)+1)*w)}
	for i := 1; i <= len(a); i++ {
		row, prev := l.at[i*w:(i+1)*w], l.at[(i-1)*w:i*w]
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				row[j] = prev[j-1] + 1
			case prev[j] > row[j-1]:
				row[j] = prev[j]
			default:
				row[j] = row[j-1]
			}
		}
	}
	return l
}

func (l *lcs) length() int { return int(l.at[len(l.at)-1]) }

// walk goes back from the end of both strings along the table, calling fn
// with each common byte's positions, last first. It prefers stepping back
// in b when both ways keep the length, as Redis does, so that the
// subsequence and its matches are Redis's.
func (l *lcs) walk(fn func(i, j int)) {
	w := len(l.b) + 1
	for i, j := len(l.a), len(l.b); i > 0 && j > 0; {
		switch {
		case l.a[i-1] == l.b[j-1]:
			fn(i-1, j-1)
			i, j = i-1, j-1
		case l.at[(i-1)*w+j] > l.at[i*w+j-1]:
			i--
		default:
			j--
		}
	}
}

// text returns the subsequence.
func (l *lcs) text() []byte {
	out := make([]byte, l.length())
	n := len(out)
	l.walk(func(i, _ int) {
		n--
		out[n] = l.a[i]
	})
	return out
}

// matches returns the runs of the subsequence contiguous in both strings,
// last first, as {a start, a end, b start, b end}, keeping those at least
// minLen long.
func (l *lcs) matches(minLen int64) [][4]int {
	var out [][4]int
	var cur [4]int
	open := false
	flush := func() {
		if open && int64(cur[1]-cur[0]+1) >= minLen {
			out = append(out, cur)
		}
	}
	l.walk(func(i, j int) {
		if open && cur[0] == i+1 && cur[2] == j+1 {
			cur[0], cur[2] = i, j
			return
		}
		flush()
		cur, open = [4]int{i, i, j, j}, true
	})
	flush()
	return out
}

var bitmapCommands = []command{
	{Name: "setbit", Arity: 4, Flags: flagWrite | flagDenyOOM, ACL: catBitmap,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Sets or clears the bit at offset in the string value stored at key", Since: "2.2.0", Group: "bitmap",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "offset", Type: argInteger},
				{Name: "value", Type: argInteger},
			}},
		Fn: cmdSetBit},
	{Name: "getbit", Arity: 3, Flags: flagReadOnly | flagFast, ACL: catBitmap,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Returns the bit value at offset in the string value stored at key", Since: "2.2.0", Group: "bitmap",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "offset", Type: argInteger},
			}},
		Fn: cmdGetBit},
	{Name: "bitcount", Arity: -2, Flags: flagReadOnly, ACL: catBitmap,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Count set bits in a string", Since: "2.6.0", Group: "bitmap",
			Complexity: "O(N)",
			History:    [][2]string{{"7.0.0", "Added the `BYTE|BIT` option."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "index", Type: argBlock, Flags: argOptional, Args: []cmdArg{
					{Name: "start", Type: argInteger},
					{Name: "end", Type: argInteger},
					{Name: "index_unit", Type: argOneOf, Since: "7.0.0", Flags: argOptional, Args: []cmdArg{
						{Name: "byte", Type: argPureToken, Token: "BYTE"},
						{Name: "bit", Type: argPureToken, Token: "BIT"},
					}},
				}},
			}},
		Fn: cmdBitCount},
	{Name: "bitpos", Arity: -3, Flags: flagReadOnly, ACL: catBitmap,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Find first bit set or clear in a string", Since: "2.8.7", Group: "bitmap",
			Complexity: "O(N)",
			History:    [][2]string{{"7.0.0", "Added the `BYTE|BIT` option."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "bit", Type: argInteger},
				{Name: "index", Type: argBlock, Flags: argOptional, Args: []cmdArg{
					{Name: "start", Type: argInteger},
					{Name: "end_index", Type: argBlock, Flags: argOptional, Args: []cmdArg{
						{Name: "end", Type: argInteger},
						{Name: "index_unit", Type: argOneOf, Since: "7.0.0", Flags: argOptional, Args: []cmdArg{
							{Name: "byte", Type: argPureToken, Token: "BYTE"},
							{Name: "bit", Type: argPureToken, Token: "BIT"},
						}},
					}},
				}},
			}},
		Fn: cmdBitPos},
	{Name: "bitop", Arity: -4, Flags: flagWrite | flagDenyOOM, ACL: catBitmap,
		Keys: []keySpec{{Flags: keyOW | keyUpdate, BS: bsIndex(2), FK: fkRange(0, 1, 0)}, {Flags: keyRO | keyAccess, BS: bsIndex(3), FK: fkRange(-1, 1, 0)}},
		Doc: cmdDoc{Summary: "Perform bitwise operations between strings", Since: "2.6.0", Group: "bitmap",
			Complexity: "O(N)",
			Args: []cmdArg{
				{Name: "operation", Type: argString},
				{Name: "destkey", Type: argKey, KeySpec: 0},
				{Name: "key", Type: argKey, KeySpec: 1, Flags: argMultiple},
			}},
		Fn: cmdBitOp},
	{Name: "bitfield", Arity: -2, Flags: flagWrite | flagDenyOOM, ACL: catBitmap,
		Keys:     []keySpec{{Notes: "This command allows both access and modification of the key", Flags: keyRW | keyAccess | keyUpdate | keyVariableFlags, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		KeyFlags: bitFieldKeyFlags,
		Doc: cmdDoc{Summary: "Perform arbitrary bitfield integer operations on strings", Since: "3.2.0", Group: "bitmap",
			Complexity: "O(1) for each subcommand specified",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "operation", Type: argOneOf, Flags: argOptional | argMultiple, Args: []cmdArg{
					{Name: "encoding_offset", Type: argBlock, Token: "GET", Args: []cmdArg{
						{Name: "encoding", Type: argString},
						{Name: "offset", Type: argInteger},
					}},
					{Name: "write", Type: argBlock, Args: []cmdArg{
						{Name: "wrap_sat_fail", Type: argOneOf, Token: "OVERFLOW", Flags: argOptional, Args: []cmdArg{
							{Name: "wrap", Type: argPureToken, Token: "WRAP"},
							{Name: "sat", Type: argPureToken, Token: "SAT"},
							{Name: "fail", Type: argPureToken, Token: "FAIL"},
						}},
						{Name: "write_operation", Type: argOneOf, Args: []cmdArg{
							{Name: "encoding_offset_value", Type: argBlock, Token: "SET", Args: []cmdArg{
								{Name: "encoding", Type: argString},
								{Name: "offset", Type: argInteger},
								{Name: "value", Type: argInteger},
							}},
							{Name: "encoding_offset_increment", Type: argBlock, Token: "INCRBY", Args: []cmdArg{
								{Name: "encoding", Type: argString},
								{Name: "offset", Type: argInteger},
								{Name: "increment", Type: argInteger},
							}},
						}},
					}},
				}},
			}},
		Fn: cmdBitField},
	{Name: "bitfield_ro", Arity: -2, Flags: flagReadOnly | flagFast, ACL: catBitmap,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD", Since: "6.0.0", Group: "bitmap",
			Complexity: "O(1) for each subcommand specified",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "encoding_offset", Type: argBlock, Token: "GET", Flags: argOptional | argMultiple | argMultipleToken, Args: []cmdArg{
					{Name: "encoding", Type: argString},
					{Name: "offset", Type: argInteger},
				}},
			}},
		Fn: cmdBitFieldRO},
	{Name: "lcs", Arity: -3, Flags: flagReadOnly, ACL: catString,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(1, 1, 0)}},
		Doc: cmdDoc{Summary: "Find longest common substring", Since: "7.0.0", Group: "string",
			Complexity: "O(N*M) where N and M are the lengths of s1 and s2, respectively",
			Args: []cmdArg{
				{Name: "key1", Type: argKey, KeySpec: 0},
				{Name: "key2", Type: argKey, KeySpec: 0},
				{Name: "len", Type: argPureToken, Token: "LEN", Flags: argOptional},
				{Name: "idx", Type: argPureToken, Token: "IDX", Flags: argOptional},
				{Name: "len", Type: argInteger, Token: "MINMATCHLEN", Flags: argOptional},
				{Name: "withmatchlen", Type: argPureToken, Token: "WITHMATCHLEN", Flags: argOptional},
			}},
		Fn: cmdLCS},
	{Name: "substr", Arity: 4, Flags: flagReadOnly, ACL: catString,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Get a substring of the string stored at a key", Since: "1.0.0", Group: "string",
			Complexity: "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.",
			DocFlags:   docDeprecated, DeprecatedSince: "2.0.0", ReplacedBy: "`GETRANGE`",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "start", Type: argInteger},
				{Name: "end", Type: argInteger},
			}},
		Fn: cmdGetRange},
}

func init() { register(bitmapCommands...) }
