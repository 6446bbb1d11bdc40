package server

import (
	"bytes"
	"regexp"
	"sort"
	"strings"
	"testing"
)

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

// TestExecCommandStatsMatchRedis: the calls INFO commandstats counts for
// a transaction's commands, seen by an INFO inside it and after it, and
// around a CONFIG RESETSTAT inside it, are Redis's (EXEC adds up its
// commands' statistics at its end, and before each command without keys).
// INFO's keyspace sections and CONFIG RESETSTAT inside EXEC read the
// store through the transaction's view (they used to wait for its locks
// for ever).
func TestExecCommandStatsMatchRedis(t *testing.T) {
	ref := startDiffRedis(t)
	ours := newOurServer()
	calls := regexp.MustCompile(`cmdstat_[a-z|]+:calls=[0-9]+`)
	counted := func(reply []byte) []byte { // each INFO's calls, in name order (Redis lists them in its dict's)
		var secs []string
		for _, sec := range strings.Split(string(reply), "# Commandstats")[1:] {
			c := calls.FindAllString(sec, -1)
			sort.Strings(c)
			secs = append(secs, strings.Join(c, " "))
		}
		return []byte(strings.Join(secs, " | "))
	}
	script := []string{"CONFIG RESETSTAT", "SET x 0", "MULTI", "SET a 1", "SET b 2", "INCR a", "GET a", "INFO", "INFO stats", "INFO commandstats",
		"SET c 3", "SET d 4", "CONFIG RESETSTAT", "SET e 5", "INFO commandstats", "EXEC", "INFO commandstats"}
	for _, line := range script {
		args := diffSplit(t, line)
		w, g := ref.do(t, args), ours.do(t, args)
		if (args[0] == "INFO" || args[0] == "EXEC") && string(w) != "+QUEUED\r\n" {
			w, g = counted(w), counted(g)
			if len(w) == 0 {
				t.Fatalf("%s: no calls in redis's reply", line)
			}
		}
		if !bytes.Equal(w, g) {
			t.Errorf("%s:\nredis  %s\nloopkv %s", line, w, g)
		}
	}
}
