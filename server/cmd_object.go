package server

import (
	"math"

	"github.com/loopkv/loopkv/store"
)

// Keyspace commands that move values between databases (MOVE, SWAPDB) and
// OBJECT, which looks inside a value (Redis db.c, object.c).

// dbIndexArg parses a database index as Redis's getIntFromObjectOrReply
// and selectDb do, replying with their errors; bad, when not "", replaces
// both of getIntFromObjectOrReply's errors.
func dbIndexArg(c *cmdCtx, arg []byte, bad string) (int, bool) {
	n, ok := store.ParseInt(arg)
	switch {
	case !ok && bad != "":
		c.errReply(bad)
		return 0, false
	case !ok:
		c.errReply(errNotInteger)
		return 0, false
	case (n < math.MinInt32 || n > math.MaxInt32) && bad != "":
		c.errReply(bad)
		return 0, false
	case n < math.MinInt32 || n > math.MaxInt32:
		c.errReply(errIntRange)
		return 0, false
	}
	if n < 0 || n >= int64(c.store.Databases()) {
		c.errReply(errDBIndex)
		return 0, false
	}
	return int(n), true
}

// cmdMove is MOVE key db.
func cmdMove(c *cmdCtx) {
	db, ok := dbIndexArg(c, c.args[2], "")
	if !ok {
		return
	}
	switch st := c.store.Move(c.db(), db, c.args[1], c.now); st {
	case store.OK:
		c.notify(notifyGeneric, "move_from", c.args[1])
		c.publishIn(db, notifyGeneric, "move_to", c.args[1])
		c.integer(1)
	case store.NotFound, store.NotSet:
		c.integer(0)
	default:
		c.errReply(statusError(st))
	}
}

// cmdSwapDB is SWAPDB index1 index2.
func cmdSwapDB(c *cmdCtx) {
	a, ok := dbIndexArg(c, c.args[1], "ERR invalid first DB index")
	if !ok {
		return
	}
	b, ok := dbIndexArg(c, c.args[2], "ERR invalid second DB index")
	if !ok {
		return
	}
	c.store.SwapDB(a, b)
	c.addDirty(1)
	c.ok()
}

// objectInfo looks up OBJECT's key, replying a null when it is missing.
func objectInfo(c *cmdCtx) (store.ObjectInfo, bool) {
	info, ok := c.store.Object(c.db(), c.args[2], c.now)
	if !ok {
		c.null()
	}
	return info, ok
}

func cmdObjectEncoding(c *cmdCtx) {
	if info, ok := objectInfo(c); ok {
		c.bulk([]byte(info.Encoding.String()))
	}
}

// sharedIntegers is Redis's OBJ_SHARED_INTEGERS: strings holding 0..9999
// are one shared object with an "infinite" refcount, unless an LRU or LFU
// policy needs each key's own clock.
const sharedIntegers = 10000

func cmdObjectRefcount(c *cmdCtx) {
	if info, ok := objectInfo(c); ok {
		c.integer(objectRefcount(c, info))
	}
}

// objectRefcount is the refcount Redis reports for a value: its shared
// integers' "infinite" one, or 1.
func objectRefcount(c *cmdCtx, info store.ObjectInfo) int64 {
	if info.Type == store.TypeString && info.Encoding == store.EncInt && 0 <= info.Int && info.Int < sharedIntegers &&
		!c.srv.cfg.mem.ownClockPolicy() {
		return math.MaxInt32
	}
	return 1
}

func cmdObjectIdletime(c *cmdCtx) {
	info, ok := objectInfo(c)
	switch {
	case !ok:
	case c.srv.cfg.mem.lfu():
		c.errReply("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
	default:
		c.integer(info.Idle / 1000)
	}
}

func cmdObjectFreq(c *cmdCtx) {
	info, ok := objectInfo(c)
	switch {
	case !ok:
	case !c.srv.cfg.mem.lfu():
		c.errReply("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
	default:
		c.integer(int64(info.Freq))
	}
}

var objectHelp = []string{
	"OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"ENCODING <key>",
	"    Return the kind of internal representation used in order to store the value",
	"    associated with a <key>.",
	"FREQ <key>",
	"    Return the access frequency index of the <key>. The returned integer is",
	"    proportional to the logarithm of the recent access frequency of the key.",
	"IDLETIME <key>",
	"    Return the idle time of the <key>, that is the approximated number of",
	"    seconds elapsed since the last access to the key.",
	"REFCOUNT <key>",
	"    Return the number of references of the value associated with the specified",
	"    <key>.",
	"HELP",
	"    Prints this help.",
}

// objectKeySpec is the one key of every OBJECT subcommand but HELP.
var objectKeySpec = []keySpec{{Flags: keyRO, BS: bsIndex(2), FK: fkRange(0, 1, 0)}}

// objectSub is the row of an OBJECT subcommand that reads its key.
func objectSub(name, summary, since string, fn func(*cmdCtx)) command {
	return command{Name: name, Arity: 3, Flags: flagReadOnly, ACL: catKeyspace,
		Tips: []string{"nondeterministic_output"},
		Keys: objectKeySpec,
		Doc: cmdDoc{Summary: summary, Since: since, Group: "generic", Complexity: "O(1)",
			Args: []cmdArg{{Name: "key", Type: argKey, KeySpec: 0}}},
		Fn: fn}
}

var objectCommands = []command{
	{Name: "move", Arity: 3, Flags: flagWrite | flagFast, ACL: catKeyspace,
		Keys: []keySpec{{Flags: keyRW | keyAccess | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Move a key to another database", Since: "1.0.0", Group: "generic",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "db", Type: argInteger},
			}},
		Fn: cmdMove},
	{Name: "swapdb", Arity: 3, Flags: flagWrite | flagFast, ACL: catKeyspace | catDangerous,
		Doc: cmdDoc{Summary: "Swaps two Redis databases", Since: "4.0.0", Group: "server",
			Complexity: "O(N) where N is the count of clients watching or blocking on keys from both databases.",
			Args: []cmdArg{
				{Name: "index1", Type: argInteger},
				{Name: "index2", Type: argInteger},
			}},
		Fn: cmdSwapDB},
	{Name: "object", Arity: -2,
		Doc: cmdDoc{Summary: "A container for object introspection commands", Since: "2.2.3", Group: "generic",
			Complexity: "Depends on subcommand."},
		Subs: []command{
			objectSub("encoding", "Inspect the internal encoding of a Redis object", "2.2.3", cmdObjectEncoding),
			objectSub("freq", "Get the logarithmic access frequency counter of a Redis object", "4.0.0", cmdObjectFreq),
			objectSub("idletime", "Get the time since a Redis object was last accessed", "2.2.3", cmdObjectIdletime),
			objectSub("refcount", "Get the number of references to the value of the key", "2.2.3", cmdObjectRefcount),
			{Name: "help", Arity: 2, Flags: flagLoading | flagStale, ACL: catKeyspace,
				Doc: cmdDoc{Summary: "Show helpful text about the different subcommands", Since: "6.2.0", Group: "generic",
					Complexity: "O(1)"},
				Fn: func(c *cmdCtx) { helpReply(c, objectHelp) }},
		}},
}

func init() { register(objectCommands...) }
