package store

import "time"

// ExpireCond is the condition flags of EXPIRE and its variants (Redis 7).
type ExpireCond uint8

const (
	ExpireNX ExpireCond = 1 << iota // only if the key has no TTL
	ExpireXX                        // only if the key has a TTL
	ExpireGT                        // only if the new TTL is greater (no TTL counts as infinite)
	ExpireLT                        // only if the new TTL is less (no TTL counts as infinite)
)

// Expire sets key's TTL to the Unix ms at, if cond allows it; at or before
// now deletes the key, as Redis does. It reports whether the key existed and
// cond allowed the change (EXPIRE's 1 or 0).
func (s *Store) Expire(db int, key []byte, now, at int64, cond ExpireCond) bool {
	var k kv
	s.acquireInto(&k, db, key, now, false)
	defer k.release()
	if !k.exists() {
		return false
	}
	cur := k.expireAt() // 0: no TTL
	switch {
	case cond&ExpireNX != 0 && cur != 0,
		cond&ExpireXX != 0 && cur == 0,
		cond&ExpireGT != 0 && (cur == 0 || at <= cur),
		cond&ExpireLT != 0 && cur != 0 && at >= cur:
		return false
	}
	if at <= now {
		k.del()
		return true
	}
	k.setTTL(at)
	return true
}

// Persist removes key's TTL and reports whether it had one.
func (s *Store) Persist(db int, key []byte, now int64) bool {
	var k kv
	s.acquireInto(&k, db, key, now, false)
	defer k.release()
	if !k.exists() || k.expireAt() == 0 {
		return false
	}
	k.setTTL(0)
	return true
}

// ExpireAt returns key's TTL as a Unix ms time: -2 when key does not exist,
// -1 when it has no TTL.
func (s *Store) ExpireAt(db int, key []byte, now int64) int64 {
	var k kv
	s.acquirePeek(&k, db, key, now) // TTL does not count as an access
	defer k.release()
	switch {
	case !k.exists():
		return -2
	case k.expireAt() == 0:
		return -1
	}
	return k.expireAt()
}

// SetPaused stops (on) or resumes the deletion of keys for their TTL or
// for memory, as Redis 7.0 stops it while CLIENT PAUSE runs so that the
// data set stays as it was (for a failover). While paused, a key past its
// TTL reads as missing, as it does after its deletion, but stays in the
// keyspace, uncounted in expired_keys and with no expired event:
// DBSIZE, INFO keyspace and MEMORY USAGE still see it, and the first
// lookup or active expiry cycle after the pause deletes it.
// ActiveExpireCycle and Evict do nothing while paused. any goroutine.
func (s *Store) SetPaused(on bool) { s.paused.Store(on) }

// Active expiry parameters, as Redis's activeExpireCycle uses them.
const (
	expireSample     = 20 // keys sampled per table and round
	expireAcceptable = 25 // percent of expired keys in a sample that stops the rounds
)

// ActiveExpireCycle deletes expired keys in the background as Redis does
// every 100 ms: for each table (database of a shard) it samples up to 20
// keys with a TTL, deletes the expired ones, and samples again while more
// than 25% of a sample had expired. It stops when budget has elapsed and
// the next cycle resumes at the next table. It also refreshes each
// database's average TTL estimate. now is Unix ms.
func (s *Store) ActiveExpireCycle(now int64, budget time.Duration) {
	if s.paused.Load() {
		return
	}
	start := time.Now()
	ntables := uint64(len(s.shards) * s.databases)
	first := s.expireNext.Load() % ntables
	for i := uint64(0); i < ntables; i++ {
		idx := (first + i) % ntables
		if i%16 == 15 && time.Since(start) > budget {
			s.expireNext.Store(idx)
			return
		}
		sh := &s.shards[idx/uint64(s.databases)]
		db := int(idx % uint64(s.databases))
		s.lockShard(sh) // deleting saves the record for a pending snapshot (unlinkRec)
		ttlSum, ttlN, done := sh.expireTable(s, db, now, start, budget)
		s.unlockShard(sh)
		if ttlN > 0 {
			// Redis: db->avg_ttl = (db->avg_ttl/50)*49 + (avg_ttl/50).
			avg := ttlSum / ttlN
			old := s.avgTTL[db].Load()
			if old == 0 {
				s.avgTTL[db].Store(avg)
			} else {
				s.avgTTL[db].Store(old/50*49 + avg/50)
			}
		}
		if !done {
			s.expireNext.Store(idx)
			return
		}
	}
	s.expireNext.Store(first + 1)
}

// expireTable runs the sampling rounds on one table and returns the sum and
// count of the remaining TTLs it saw on live keys; done is false when the
// budget ran out first. Caller holds sh.mu.
func (sh *shard) expireTable(s *Store, db int, now int64, start time.Time, budget time.Duration) (ttlSum, ttlN int64, done bool) {
	t := &sh.dbs[db]
	for round := 1; len(t.expires) > 0; round++ {
		if round%16 == 0 && time.Since(start) > budget {
			return ttlSum, ttlN, false
		}
		n := min(expireSample, len(t.expires))
		expired := 0
		for j := 0; j < n && len(t.expires) > 0; j++ {
			r := t.expires[sh.rand()%uint64(len(t.expires))]
			at := recExpire(t.a.at(r))
			if at <= now {
				s.expireRec(sh, t, db, r)
				expired++
				continue
			}
			ttlSum += at - now
			ttlN++
		}
		if expired*100 <= n*expireAcceptable {
			break
		}
	}
	return ttlSum, ttlN, true
}
