package server

import "testing"

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"WatchAcrossConnectionsMatchesRedis", TestWatchAcrossConnectionsMatchesRedis},
	}...)
}

// watchScript: connection 0 watches and runs transactions, connection 1
// writes (or not) in between. Each block ends with EXEC, whose reply (a
// result array, or null when aborted) is what Redis decides.
var watchScript = []pubsubStep{
	// a write of another key does not abort (one that changes nothing
	// does in loopkv, not in Redis: /work/audit.md)
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
	{0, "PING", 1, 0, false},
}

// WATCH across connections and loops, byte for byte as redis-server
// decides: a write that changes a watched key aborts the EXEC, in any
// form (SET, EXPIRE, RENAME onto it, FLUSHDB, FLUSHALL, SWAPDB); a write
// of another key, another database's key, or after UNWATCH does not.
func TestWatchAcrossConnectionsMatchesRedis(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	diffPubsubScript(t, s, 2, watchScript)
}
