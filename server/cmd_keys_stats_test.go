package server

import (
	"regexp"
	"strconv"
	"testing"
)

// statsSequence touches keys through every read and write path, hits and
// misses alike.
var statsSequence = []string{
	"SET a 1", "GET a", "GET missing", "MGET a missing a", "EXISTS a missing", "TOUCH a missing", "TYPE a", "TYPE missing",
	"STRLEN a", "STRLEN missing", "GETRANGE a 0 1", "GETRANGE missing 0 1", "TTL a", "PTTL missing", "EXPIRETIME a",
	"INCR a", "APPEND a x", "GETDEL a", "GETDEL a", "SET b 2", "GETEX b", "GETEX missing", "SET b 3 GET", "SET c 3 GET",
	"GETSET b 4", "GETSET d 4", "RENAME b e", "COPY e f", "COPY missing f", "RENAME missing x", "DEL e f", "SETRANGE g 1 x", "INCRBYFLOAT h 1", "EXPIRE g 100",
	"PERSIST g", "SETNX g 1", "MSET i 1 j 2", "MSETNX i 1", "SCAN 0", "KEYS *", "DBSIZE", "RANDOMKEY",
}

// TestKeyspaceHitsAndMissesMatchRedis runs statsSequence on both servers
// and compares INFO's keyspace_hits and keyspace_misses with Stats.
func TestKeyspaceHitsAndMissesMatchRedis(t *testing.T) {
	ref := startDiffRedis(t)
	ours := newOurServer()
	ref.do(t, []string{"CONFIG", "RESETSTAT"})
	for _, line := range statsSequence {
		args := diffSplit(t, line)
		ref.do(t, args)
		ours.do(t, args)
	}
	info := string(ref.do(t, []string{"INFO", "stats"}))
	field := func(name string) int64 {
		m := regexp.MustCompile(name + `:(\d+)`).FindStringSubmatch(info)
		if m == nil {
			t.Fatalf("INFO has no %s", name)
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return n
	}
	st := ours.s.store.Stats()
	if h := field("keyspace_hits"); st.KeyspaceHits != h {
		t.Errorf("keyspace_hits = %d, redis %d", st.KeyspaceHits, h)
	}
	if m := field("keyspace_misses"); st.KeyspaceMisses != m {
		t.Errorf("keyspace_misses = %d, redis %d", st.KeyspaceMisses, m)
	}
}
