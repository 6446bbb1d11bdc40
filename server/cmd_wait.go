package server

import (
	"math"

	"github.com/loopkv/loopkv/resp"
)

// WAIT numreplicas timeout (Redis replication.c, waitCommand). loopkv
// runs as a primary with no replicas, so no write is ever acknowledged:
// WAIT answers 0 at once when that is enough (numreplicas 0 or less), or
// when the client may not block (inside EXEC, or no connection); else it
// blocks, as Redis waits for acknowledgements that never come, until the
// timeout (0: forever) or CLIENT UNBLOCK, and then answers 0 (CLIENT
// UNBLOCK ... ERROR: the UNBLOCKED error). The wait is a waiter on no
// keys in the blocking table (blocking.go): its timer, CLIENT UNBLOCK, a
// disconnect and INFO's blocked_clients treat it as any other.

// waitAcks is WAIT's reply: the replicas that acknowledged, none.
var waitAcks = resp.AppendInt(nil, 0)

// cmdWait checks both arguments first, as Redis does, then answers or
// blocks.
func cmdWait(c *cmdCtx) {
	numReplicas, ok := parseInt(c.args[1])
	if !ok {
		c.errReply(errNotInteger)
		return
	}
	deadline, ok := parseTimeoutMs(c, c.args[2])
	if !ok {
		return
	}
	if numReplicas <= 0 || c.cl.conn == nil || c.cl.execing {
		c.out = append(c.out, waitAcks...)
		return
	}
	c.srv.block(newWaiter(c, nil, nil, waitAcks), deadline)
}

// parseTimeoutMs parses a timeout in whole milliseconds, as Redis 7.0's
// getTimeoutFromObjectOrReply with UNIT_MILLISECONDS: it returns the Unix
// ms deadline, 0 for none, or replies an error. A timeout whose deadline
// would pass the int64 range waits forever: Redis 7.0 adds it to the time
// unchecked, and the wrapped deadline never comes.
func parseTimeoutMs(c *cmdCtx, arg []byte) (int64, bool) {
	ms, ok := parseInt(arg)
	if !ok {
		c.errReply("ERR timeout is not an integer or out of range")
		return 0, false
	}
	if ms < 0 {
		c.errReply("ERR timeout is negative")
		return 0, false
	}
	if ms == 0 || ms > math.MaxInt64-c.now {
		return 0, true
	}
	return c.now + ms, true
}

var waitCommands = []command{
	{Name: "wait", Arity: 3, Flags: flagNoScript, ACL: catConnection,
		Tips: []string{"request_policy:all_shards", "response_policy:agg_min"},
		Doc: cmdDoc{Summary: "Wait for the synchronous replication of all the write commands sent in the context of the current connection",
			Since: "3.0.0", Group: "generic", Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "numreplicas", Type: argInteger},
				{Name: "timeout", Type: argInteger},
			}},
		Fn: cmdWait},
}

func init() { register(waitCommands...) }
