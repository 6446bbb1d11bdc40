package server

import "testing"

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"BlockingRepliesMatchRedis", TestBlockingRepliesMatchRedis},
	}...)
}

// blockingSteps is every blocking command over real sockets: connections 0
// and 1 block, connection 2 writes. Each time-out, each served reply (read
// on connection 0 after the write's own reply), the order of two waiters,
// a waiter left blocked by a write of another type, CLIENT UNBLOCK, a
// transaction's pushes and the argument errors, in the connections'
// protocol (RESP2 first, then again after HELLO 3).
var blockingSteps = []pubsubStep{
	// time-outs: a null array for every command, BLMOVE and BRPOPLPUSH too
	{0, "BLPOP q1 q2 0.01", 1, 0, false},
	{0, "BRPOP q1 0.01", 1, 0, false},
	{0, "BLMOVE q1 d LEFT RIGHT 0.01", 1, 0, false},
	{0, "BRPOPLPUSH q1 d 0.01", 1, 0, false},
	{0, "BLMPOP 0.01 2 q1 q2 LEFT", 1, 0, false},
	{0, "BLMPOP 0.01 1 q1 RIGHT COUNT 3", 1, 0, false},
	{0, "BZPOPMIN z1 z2 0.01", 1, 0, false},
	{0, "BZPOPMAX z1 0.01", 1, 0, false},
	{0, "BZMPOP 0.01 2 z1 z2 MIN COUNT 2", 1, 0, false},
	// served by a later write, from the second key named
	{0, "BLPOP q1 q2 0", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "RPUSH q2 a b c", 1, 1, false},
	{2, "LRANGE q2 0 -1", 1, 0, false},
	{0, "BRPOP q1 q2 0", 1, 0, false},
	{0, "BRPOP q3 0", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "LPUSH q3 x y", 1, 1, false},
	{0, "BLMOVE q4 d RIGHT LEFT 0", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "RPUSH q4 m1 m2", 1, 1, false},
	{0, "BRPOPLPUSH q5 d 0", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "RPUSH q5 n1", 1, 1, false},
	{2, "LRANGE d 0 -1", 1, 0, false},
	{0, "BLMPOP 0 2 q6 q7 RIGHT COUNT 5", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "RPUSH q7 a b c", 1, 1, false},
	{0, "BZPOPMIN z1 z2 0", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "ZADD z2 2.5 b 1 a", 1, 1, false},
	{0, "BZPOPMAX z3 0", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "ZADD z3 1 a 3 c 2 b", 1, 1, false},
	{0, "BZMPOP 0 1 z4 MAX COUNT 2", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "ZADD z4 1 a 2 b 3 c inf d", 1, 1, false},
	{2, "ZRANGE z4 0 -1 WITHSCORES", 1, 0, false},
	// two waiters on one key are served in the order they blocked
	{0, "BLPOP f 0", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{1, "BLPOP f 0", 0, 0, false},
	{2, "#await blocked_clients 2", 1, 0, false},
	{2, "RPUSH f first second third", 1, 1, false},
	{1, "PING", 2, 0, false},
	{2, "LRANGE f 0 -1", 1, 0, false},
	// a write of another type leaves the waiter blocked; a push then serves it
	{0, "BLPOP w 0", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "SET w v", 1, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "DEL w", 1, 0, false},
	{2, "RPUSH w a", 1, 1, false},
	// a transaction's pushes serve once it has run
	{0, "BLMPOP 0 1 e LEFT COUNT 10", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "MULTI", 1, 0, false},
	{2, "RPUSH e 1", 1, 0, false},
	{2, "RPUSH e 2", 1, 0, false},
	{2, "EXEC", 1, 1, false},
	// CLIENT UNBLOCK: TIMEOUT answers as a time-out, ERROR with -UNBLOCKED
	{0, "BLMOVE u d LEFT LEFT 0", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "CLIENT UNBLOCK {id0} TIMEOUT", 1, 1, false},
	{0, "BZPOPMIN u 0", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "CLIENT UNBLOCK {id0} ERROR", 1, 1, false},
	{2, "CLIENT UNBLOCK {id0}", 1, 0, false},
	// what is refused before blocking
	{2, "SET s v", 1, 0, false},
	{0, "BLPOP s 0", 1, 0, false},
	{0, "BLPOP q -1", 1, 0, false},
	{0, "BLPOP q abc", 1, 0, false},
	{0, "BLPOP q inf", 1, 0, false},
	{0, "BLMPOP 0 0 q LEFT", 1, 0, false},
	{0, "BLMPOP 0 1 q MIDDLE", 1, 0, false},
	{0, "BLMPOP 0 1 q LEFT COUNT 0", 1, 0, false},
	{0, "BZMPOP 0 1 z MID", 1, 0, false},
	{0, "BLMOVE q d UP LEFT 0", 1, 0, false},
	{0, "BZPOPMIN s 0", 1, 0, false},
	{2, "FLUSHALL", 1, 0, false},
}

// Every blocking command's replies over real sockets, in RESP2 and RESP3,
// byte for byte as redis-server's, with the waiters and the writer spread
// over two loops.
func TestBlockingRepliesMatchRedis(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	steps := append([]pubsubStep(nil), blockingSteps...)
	steps = append(steps, pubsubStep{0, "HELLO 3", 1, 0, true}, pubsubStep{1, "HELLO 3", 1, 0, true})
	steps = append(steps, blockingSteps...)
	diffPubsubScript(t, s, 3, steps)
}
