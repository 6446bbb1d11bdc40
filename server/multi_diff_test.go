package server

import "testing"

var multiDiffCases = []diffCase{
	{"exec", []string{"MULTI", "SET a 1", "INCR a", "GET a", "LPUSH a x", "INCR a", "EXEC", "GET a"}},
	{"empty exec", []string{"MULTI", "EXEC"}},
	{"discard", []string{"SET a 1", "MULTI", "SET a 2", "DISCARD", "GET a", "DISCARD"}},
	{"errors outside", []string{"EXEC", "DISCARD", "UNWATCH", "WATCH"}},
	{"nested and watch inside", []string{"MULTI", "MULTI", "WATCH a", "SET a 1", "EXEC", "GET a"}},
	{"execabort arity", []string{"MULTI", "SET a 1", "SET a", "EXEC", "GET a", "EXEC"}},
	{"execabort unknown", []string{"MULTI", "SET a 1", "NOSUCH x", "EXEC", "GET a"}},
	{"execabort unknown subcommand", []string{"MULTI", "CONFIG NOSUCH", "EXEC"}},
	{"blocking does not block", []string{"MULTI", "BZPOPMIN z 0", "BZMPOP 0 1 z MIN", "BLPOP q 0", "BRPOP q 1", "BLMOVE q r LEFT LEFT 0", "RPUSH q a", "BLPOP q 0", "EXEC"}},
	{"watch unchanged", []string{"SET a 1", "WATCH a b", "GET a", "MULTI", "INCR a", "EXEC", "GET a"}},
	{"watch own write", []string{"SET a 1", "WATCH a", "SET a 2", "MULTI", "INCR a", "EXEC", "GET a"}},
	{"unwatch", []string{"SET a 1", "WATCH a", "SET a 2", "UNWATCH", "MULTI", "INCR a", "EXEC"}},
	{"watch flushall", []string{"SET a 1", "WATCH a", "FLUSHALL", "MULTI", "PING", "EXEC"}},
	{"discard unwatches", []string{"SET a 1", "WATCH a", "MULTI", "DISCARD", "SET a 2", "MULTI", "GET a", "EXEC"}},
	{"select inside", []string{"MULTI", "SELECT 1", "SET a 1", "SELECT 0", "DBSIZE", "EXEC", "SELECT 1", "GET a"}},
	{"keyspace walks", []string{"SET a 1", "MULTI", "KEYS *", "DBSIZE", "FLUSHDB", "DBSIZE", "EXEC"}},
	{"resp3 exec", []string{"#proto 3", "MULTI", "SET a 1", "GET a", "HSET h f v", "HGETALL h", "EXEC",
		"SET a 1", "WATCH a", "SET a 2", "MULTI", "GET a", "EXEC"}},
	{"reset", []string{"WATCH a", "MULTI", "SET a 1", "RESET", "EXEC", "GET a"}},
	{"info inside exec", []string{"SET a 1", "MULTI", "SET b 2", "INFO keyspace", "SELECT 2", "SET c 3", "INFO keyspace", "EXEC"}},
}

func TestMultiCommandsMatchRedis(t *testing.T) { runDiff(t, multiDiffCases) }
