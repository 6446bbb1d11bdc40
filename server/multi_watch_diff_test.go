package server

import "testing"

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"WatchAcrossConnectionsMatchesRedis", TestWatchAcrossConnectionsMatchesRedis},
		{"WatchSeesAServedBlockedMove", TestWatchSeesAServedBlockedMove},
	}...)
}

// watchScript: connection 0 watches and runs transactions, connection 1
// writes (or not) in between. Each block ends with EXEC, whose reply (a
// result array, or null when aborted) is what Redis decides.
var watchScript = []pubsubStep{
	// a write of another key does not abort
	{1, "SET w2 v", 1, 0, false},
	{0, "WATCH w2", 1, 0, false},
	{1, "SADD other m", 1, 0, false},
	{1, "SET w2x v", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "GET w2", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	// writes that change the key abort: SET, DEL, EXPIRE, RENAME onto it, FLUSHDB, SWAPDB
	{0, "WATCH w2", 1, 0, false},
	{1, "SET w2 v", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "GET w2", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{0, "WATCH w2", 1, 0, false},
	{1, "EXPIRE w2 100", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{1, "SET src v", 1, 0, false},
	{0, "WATCH w3", 1, 0, false},
	{1, "RENAME src w3", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{0, "WATCH w3", 1, 0, false},
	{1, "FLUSHDB", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{1, "SET w3 v", 1, 0, false},
	{0, "WATCH w3", 1, 0, false},
	{1, "FLUSHALL", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{1, "SELECT 1", 1, 0, false},
	{1, "SET w4 v", 1, 0, false},
	{0, "WATCH w4", 1, 0, false},
	{1, "SWAPDB 0 1", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	// UNWATCH, and a write in another database
	{0, "WATCH w4", 1, 0, false},
	{0, "UNWATCH", 1, 0, false},
	{1, "DEL w4", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{0, "WATCH w5", 1, 0, false},
	{1, "SET w5 v", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	// writes that change nothing abort nothing: DEL and EXPIRE of a
	// missing key, a SET NX that does not set, LPUSHX of a missing list,
	// FLUSHDB, FLUSHALL and SWAPDB of databases without the key
	{1, "SELECT 0", 1, 0, false},
	{0, "SELECT 0", 1, 0, false},
	{1, "SET n0 v", 1, 0, false},
	{0, "WATCH n1 n0 n2", 1, 0, false},
	{1, "DEL n1", 1, 0, false},
	{1, "EXPIRE n1 100", 1, 0, false},
	{1, "SET n0 x NX", 1, 0, false},
	{1, "LPUSHX n2 a", 1, 0, false},
	{1, "SREM n2 a", 1, 0, false},
	{1, "HDEL n2 f", 1, 0, false},
	{1, "PERSIST n0", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "GET n0", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{0, "WATCH n4", 1, 0, false},
	{1, "SET other v", 1, 0, false},
	{1, "FLUSHDB", 1, 0, false},
	{1, "FLUSHALL", 1, 0, false},
	{1, "SWAPDB 0 1", 1, 0, false},
	{1, "SWAPDB 0 1", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "GET n4", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	// a refused write touches nothing
	{1, "SET n4 v", 1, 0, false},
	{0, "WATCH n4", 1, 0, false},
	{1, "SWAPDB 0 99", 1, 0, false},
	{1, "LPUSH n4 a", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "GET n4", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	// the watched key existing in the database swapped in is touched
	{1, "SELECT 1", 1, 0, false},
	{1, "SET n5 v1", 1, 0, false},
	{1, "SELECT 0", 1, 0, false},
	{0, "WATCH n5", 1, 0, false},
	{1, "SWAPDB 0 1", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "GET n5", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{1, "FLUSHALL", 1, 0, false},
	// an eviction aborts the watchers of the evicted key, and only those
	{1, "SET a v", 1, 0, false},
	{1, "SET x v EX 100", 1, 0, false},
	{0, "WATCH a", 1, 0, false},
	{1, "CONFIG SET maxmemory-policy volatile-ttl", 1, 0, false},
	{1, "CONFIG SET maxmemory 1", 1, 0, false},
	{1, "PING", 1, 0, false},
	{1, "CONFIG SET maxmemory 0", 1, 0, false},
	{1, "EXISTS x", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "GET a", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{1, "SET y v EX 100", 1, 0, false},
	{0, "WATCH y", 1, 0, false},
	{1, "CONFIG SET maxmemory 1", 1, 0, false},
	{1, "PING", 1, 0, false},
	{1, "CONFIG SET maxmemory 0", 1, 0, false},
	{1, "EXISTS y", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "GET y", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{1, "CONFIG SET maxmemory-policy noeviction", 1, 0, false},
	{0, "PING", 1, 0, false},
	// a DEL or UNLINK of several keys touches only those it deletes: the
	// watch of a missing key named beside an existing one survives, the
	// watch of the existing one does not
	{1, "SET d1 v", 1, 0, false},
	{0, "WATCH d2", 1, 0, false},
	{1, "DEL d1 d2", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "GET d2", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{1, "SET d1 v", 1, 0, false},
	{0, "WATCH d2", 1, 0, false},
	{1, "UNLINK d2 d1 d2", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "GET d2", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{1, "SET d1 v", 1, 0, false},
	{0, "WATCH d2 d1", 1, 0, false},
	{1, "DEL d2 d1", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "GET d1", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	// and inside a transaction, a key it created first counts
	{0, "WATCH d3", 1, 0, false},
	{1, "MULTI", 1, 0, false},
	{1, "SET d3 v", 1, 0, false},
	{1, "DEL d4 d3", 1, 0, false},
	{1, "EXEC", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "GET d3", 1, 0, false},
	{0, "EXEC", 1, 0, false},
}

// WATCH across connections and loops, byte for byte as redis-server
// decides: a write that changes a watched key aborts the EXEC, in any
// form (SET, EXPIRE, RENAME onto it, FLUSHDB, FLUSHALL, SWAPDB, an
// eviction); a write of another key, another database's key, or after
// UNWATCH does not, nor does a write that changes nothing (DEL of a
// missing key, SET NX of an existing one, FLUSHDB of a database without
// the key), a refused one, or the eviction of another key.
func TestWatchAcrossConnectionsMatchesRedis(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	diffPubsubScript(t, s, 2, watchScript)
}

// watchServedScript: connection 1 watches d; connection 0 blocks in
// BLMOVE into d, and connection 2's push serves it: the move into d is a
// change of d, made when the waiter is served, which aborts the EXEC.
var watchServedScript = []pubsubStep{
	{1, "WATCH d", 1, 0, false},
	{0, "BLMOVE src d LEFT RIGHT 0", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "RPUSH src x", 1, 1, false},
	{1, "MULTI", 1, 0, false},
	{1, "LRANGE d 0 -1", 1, 0, false},
	{1, "EXEC", 1, 0, false},
	{1, "WATCH d", 1, 0, false},
	{0, "BZPOPMIN z 0", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "ZADD z 1 m", 1, 1, false},
	{1, "MULTI", 1, 0, false},
	{1, "EXEC", 1, 0, false},
	// a blocked move that times out changed nothing: the WATCH of its
	// source and destination survives
	{1, "WATCH d2 src2", 1, 0, false},
	{0, "BLMOVE src2 d2 LEFT RIGHT 0.05", 1, 0, false},
	{0, "BRPOPLPUSH src2 d2 0.05", 1, 0, false},
	{1, "MULTI", 1, 0, false},
	{1, "EXISTS d2", 1, 0, false},
	{1, "EXEC", 1, 0, false},
	// nor does one a WATCH made while it is blocked, until it is served
	{0, "BLMOVE src3 d3 LEFT RIGHT 0", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{1, "WATCH d3", 1, 0, false},
	{1, "MULTI", 1, 0, false},
	{1, "EXEC", 1, 0, false},
	{1, "WATCH d3", 1, 0, false},
	{2, "RPUSH src3 y", 1, 1, false},
	{1, "MULTI", 1, 0, false},
	{1, "EXEC", 1, 0, false},
}

// A blocked BLMOVE served later writes its destination: a WATCH of that
// key sees it, as in Redis; a blocked pop that writes no watched key does
// not, nor does a blocked move that times out (whose reply, a null array
// in RESP2, the script also compares).
func TestWatchSeesAServedBlockedMove(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	diffPubsubScript(t, s, 3, watchServedScript)
}
