package server

import (
	"math"

	"github.com/loopkv/loopkv/config"
	"github.com/loopkv/loopkv/store"
	"github.com/loopkv/loopkv/store/hll"
)

// HyperLogLog commands (Redis hyperloglog.c). The values are strings in
// Redis's own HyperLogLog format (package store/hll), so they move to and
// from redis-server through DUMP, RESTORE and RDB files unchanged, and the
// store edits them in place under the key's lock.

const (
	errNotHLL     = "WRONGTYPE Key is not a valid HyperLogLog string value."
	errCorruptHLL = "INVALIDOBJ Corrupted HLL object detected"
)

// cmdPFAdd is PFADD key [element ...]: 1 when the key was created or a
// register grew.
func cmdPFAdd(c *cmdCtx) {
	n, st := c.store.PFAdd(c.db(), c.args[1], c.args[2:], c.now)
	if st != store.OK {
		c.errReply(statusError(st))
		return
	}
	if n > 0 {
		c.notifyN(notifyString, "pfadd", c.args[1], n)
	}
	c.integer(b2i(n > 0))
}

// cmdPFCount is PFCOUNT key [key ...]. With one key a stale cached
// cardinality is computed and stored, a change Redis propagates.
func cmdPFCount(c *cmdCtx) {
	n, cached, st := c.store.PFCount(c.db(), c.args[1:], c.now)
	if st != store.OK {
		c.errReply(statusError(st))
		return
	}
	if cached {
		// a change of the value: counted, and WATCH sees it, as Redis's
		// signalModifiedKey (the session touches watchers for writes only)
		c.addDirty(1)
		c.srv.touchEvicted(c.db(), c.args[1])
		if c.srv.tracking.n.Load() > 0 { // and client tracking: an invalidation
			c.srv.invalidateKey(c, c.args[1])
			c.srv.broadcastKeys(c, c.args[1:2])
		}
	}
	c.integer(int64(n))
}

// cmdPFMerge is PFMERGE destkey [sourcekey ...]; its event is "pfadd", as
// Redis names it: a merge is a mass add.
func cmdPFMerge(c *cmdCtx) {
	if st := c.store.PFMerge(c.db(), c.args[1:], c.now); st != store.OK {
		c.errReply(statusError(st))
		return
	}
	c.notify(notifyString, "pfadd", c.args[1])
	c.ok()
}

// cmdPFDebug is PFDEBUG GETREG|DECODE|ENCODING|TODENSE key. The key is
// checked before the subcommand, as Redis does.
func cmdPFDebug(c *cmdCtx) {
	sub := c.args[1]
	op := store.HLLDebugNone
	switch {
	case optIs(sub, "getreg"):
		op = store.HLLDebugGetReg
	case optIs(sub, "decode"):
		op = store.HLLDebugDecode
	case optIs(sub, "encoding"):
		op = store.HLLDebugEncoding
	case optIs(sub, "todense"):
		op = store.HLLDebugToDense
	}
	var regs *[hll.Registers]uint8
	if op == store.HLLDebugGetReg {
		regs = new([hll.Registers]uint8)
	}
	text, converted, dense, st := c.store.HLLDebug(c.db(), c.args[2], c.now, op, regs, nil)
	switch st {
	case store.OK:
	case store.NotFound:
		c.errReply("ERR The specified key does not exist")
		return
	default:
		c.errReply(statusError(st))
		return
	}
	if converted {
		c.addDirty(1) // Redis forces the propagation of the encoding change
	}
	switch op {
	case store.HLLDebugGetReg:
		c.arrayLen(hll.Registers)
		for _, r := range regs {
			c.integer(int64(r))
		}
	case store.HLLDebugDecode:
		if dense {
			c.errReply("ERR HLL encoding is not sparse")
			return
		}
		c.bulk(text)
	case store.HLLDebugEncoding:
		if dense {
			c.simple("dense")
		} else {
			c.simple("sparse")
		}
	case store.HLLDebugToDense:
		c.integer(b2i(converted))
	default:
		c.errReply("ERR Unknown PFDEBUG subcommand '" + string(sub) + "'")
	}
}

// cmdPFSelfTest is PFSELFTEST: the register packing and the estimator
// checked on values built here (hll.SelfTest).
func cmdPFSelfTest(c *cmdCtx) {
	if msg := hll.SelfTest(); msg != "" {
		c.errReply(msg)
		return
	}
	c.ok()
}

var hllCommands = []command{
	{Name: "pfadd", Arity: -2, Flags: flagWrite | flagDenyOOM | flagFast, ACL: catHyperloglog,
		Keys: []keySpec{{Flags: keyRW | keyInsert, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Adds the specified elements to the specified HyperLogLog.", Since: "2.8.9", Group: "hyperloglog",
			Complexity: "O(1) to add every element.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "element", Type: argString, Flags: argOptional | argMultiple},
			}},
		Fn: cmdPFAdd},
	{Name: "pfcount", Arity: -2, Flags: flagReadOnly, ACL: catHyperloglog,
		Keys: []keySpec{{Notes: "RW because it may change the internal representation of the key, and propagate to replicas",
			Flags: keyRW | keyAccess, BS: bsIndex(1), FK: fkRange(-1, 1, 0)}},
		Doc: cmdDoc{Summary: "Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s).", Since: "2.8.9", Group: "hyperloglog",
			Complexity: "O(1) with a very small average constant time when called with a single key. O(N) with N being the number of keys, and much bigger constant times, when called with multiple keys.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0, Flags: argMultiple},
			}},
		Fn: cmdPFCount},
	{Name: "pfmerge", Arity: -2, Flags: flagWrite | flagDenyOOM, ACL: catHyperloglog,
		Keys: []keySpec{
			{Flags: keyRW | keyAccess | keyInsert, BS: bsIndex(1), FK: fkRange(0, 1, 0)},
			{Flags: keyRO | keyAccess, BS: bsIndex(2), FK: fkRange(-1, 1, 0)},
		},
		Doc: cmdDoc{Summary: "Merge N different HyperLogLogs into a single one.", Since: "2.8.9", Group: "hyperloglog",
			Complexity: "O(N) to merge N HyperLogLogs, but with high constant times.",
			Args: []cmdArg{
				{Name: "destkey", Type: argKey, KeySpec: 0},
				{Name: "sourcekey", Type: argKey, KeySpec: 1, Flags: argMultiple},
			}},
		Fn: cmdPFMerge},
	{Name: "pfdebug", Arity: 3, Flags: flagWrite | flagDenyOOM | flagAdmin, ACL: catHyperloglog,
		Keys: []keySpec{{Flags: keyRW | keyAccess, BS: bsIndex(2), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Internal commands for debugging HyperLogLog values", Since: "2.8.9", Group: "hyperloglog",
			Complexity: "N/A", DocFlags: docSyscmd,
			Args: []cmdArg{
				{Name: "subcommand", Type: argString},
				{Name: "key", Type: argKey, KeySpec: 0},
			}},
		Fn: cmdPFDebug},
	{Name: "pfselftest", Arity: 1, Flags: flagAdmin, ACL: catHyperloglog, ClockFree: true,
		Doc: cmdDoc{Summary: "An internal command for testing HyperLogLog values", Since: "2.8.9", Group: "hyperloglog",
			Complexity: "N/A", DocFlags: docSyscmd},
		Fn: cmdPFSelfTest},
}

func init() {
	register(hllCommands...)
	// PFCOUNT is read-only but stores the cardinality it computes, and
	// Redis propagates it then (c.dirty grew): as it came.
	propRules["pfcount"] = propAsIs
	registerSettings(encodingSetting(config.Setting{Name: "hll-sparse-max-bytes", Type: config.Memory{Max: math.MaxInt64},
		Help: "largest sparse HyperLogLog, header included, before it turns dense"},
		func(l *store.Limits) *int { return &l.HLLSparseMaxBytes }))
}
