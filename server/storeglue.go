package server

import (
	"time"

	"github.com/loopkv/loopkv/store"
)

// Calls into the store that server makes outside command handlers, kept in
// one place.

// activeExpire runs one active expiry cycle, on the background journal's
// view so that the expired keys are published (notify.go).
func (s *Server) activeExpire(now int64, budget time.Duration) {
	if s.store == nil {
		return
	}
	if s.debug.noActiveExpire.Load() { // DEBUG SET-ACTIVE-EXPIRE 0
		s.store.RehashCycle(rehashBudget)
		return
	}
	s.inBackground(now, func(st *store.Store) { st.ActiveExpireCycle(now, budget) })
	s.store.RehashCycle(rehashBudget)
}

// rehashBudget is how long each tick may free deleted big values and move
// buckets of growing or shrinking tables. It runs on the ticker goroutine,
// not a loop, and holds a shard at most 200 µs at a time, so it may take
// more than Redis's 1 ms per cron run: at 10 million keys a doubling of
// every table is ~16 M buckets, which 1 ms per 100 ms would leave for tens
// of seconds (found by the scaling study).
const rehashBudget = 5 * time.Millisecond

// keyspaceStats is what INFO reads from the store.
type keyspaceStats struct {
	used, arena                    int64
	expired, evicted, hits, misses int64
	dbs                            []dbStats
}

type dbStats struct {
	keys, expires int
	avgTTL        int64
}

func storeStats(st *store.Store) keyspaceStats {
	if st == nil {
		return keyspaceStats{}
	}
	s := st.Stats()
	ks := keyspaceStats{used: s.UsedMemory, arena: s.ArenaBytes, expired: s.ExpiredKeys, evicted: s.EvictedKeys,
		hits: s.KeyspaceHits, misses: s.KeyspaceMisses}
	for _, d := range s.DBs {
		ks.dbs = append(ks.dbs, dbStats{keys: d.Keys, expires: d.Expires, avgTTL: d.AvgTTL})
	}
	return ks
}
