package store

import "slices"

// Sorted-set operations the geospatial commands (server/cmd_geo.go) are
// built on: a member's score is its point's geohash (store/geohash).

// ZScoreRange is the scores Min <= score < Max of a search cell.
type ZScoreRange struct{ Min, Max float64 }

// ZScorePair returns the scores of two members of key's sorted set under
// one lock (GEODIST); ok1 and ok2 say which are present.
func (s *Store) ZScorePair(db int, key, m1, m2 []byte, now int64) (s1, s2 float64, ok1, ok2 bool, st Status) {
	var k kv
	st = s.openInto(&k, db, key, now, TypeZSet, forRead)
	defer k.release()
	if st != OK {
		return 0, 0, false, false, st
	}
	s1, ok1 = k.zscore(m1)
	s2, ok2 = k.zscore(m2)
	return s1, s2, ok1, ok2, OK
}

// The searches look their key up first with a counted read (ZCard, as
// Redis's lookupKeyRead counts one keyspace hit or miss per command), and
// again, uncounted, for the centre member and the walk.

// acquireUncounted is acquireReadInto that counts no keyspace hit or miss
// and leaves the access field alone.
func (s *Store) acquireUncounted(k *kv, db int, key []byte, now int64) {
	slot := KeySlot(key)
	sh := &s.shards[s.shardOf(slot)]
	s.lockShard(sh)
	s.lookupInto(k, sh, db, key, slot, now, false, false)
}

// ZScoreUncounted is ZScore for a key the command has counted already.
func (s *Store) ZScoreUncounted(db int, key, member []byte, now int64) (float64, bool, Status) {
	var k kv
	s.acquireUncounted(&k, db, key, now)
	defer k.release()
	if !k.exists() {
		return 0, false, NotFound
	}
	if st := k.check(TypeZSet); st != OK {
		return 0, false, st
	}
	f, ok := k.zscore(member)
	return f, ok, OK
}

// zwalkRanges calls visit for the members in each range, range after
// range, in score order within one; visit returning false ends the walk.
func (k *kv) zwalkRanges(ranges []ZScoreRange, visit func(m []byte, score float64) bool) {
	goOn := true
	for _, r := range ranges {
		sp := ZRangeSpec{By: ZByScore, Min: ZBound{Score: r.Min}, Max: ZBound{Score: r.Max, Excl: true}}
		lo, hi := k.zresolve(&sp)
		if lo > hi {
			continue
		}
		k.zwalk(lo, hi-lo+1, false, func(m []byte, score float64) bool {
			goOn = visit(m, score)
			return goOn
		})
		if !goOn {
			return
		}
	}
}

// ZWalkRanges calls visit, under key's lock, for the members of key's
// sorted set whose scores lie in ranges, as zwalkRanges; visit must not
// keep m. It returns NotFound when key does not exist. It counts no
// keyspace hit.
func (s *Store) ZWalkRanges(db int, key []byte, ranges []ZScoreRange, now int64, visit func(m []byte, score float64) bool) Status {
	var k kv
	s.acquireUncounted(&k, db, key, now)
	defer k.release()
	if !k.exists() {
		return NotFound
	}
	if st := k.check(TypeZSet); st != OK {
		return st
	}
	k.zwalkRanges(ranges, visit)
	return OK
}

// ZWalkStore is ZWalkRanges on src and a store into dst under both keys'
// locks: after the walk, result returns the members and scores to store
// (what visit copied, chosen and ordered). dst's value, whatever its type,
// is replaced, or deleted when there is nothing to store (or src does not
// exist), as Redis's GEORADIUS STORE and GEOSEARCHSTORE do. It returns the
// number stored and whether an existing dst was deleted.
func (s *Store) ZWalkStore(db int, dst, src []byte, ranges []ZScoreRange, now int64,
	visit func(m []byte, score float64) bool, result func() ([][]byte, []float64)) (n int, deleted bool, st Status) {
	var m shardSet
	m.add(s.shardIndex(src))
	m.add(s.shardIndex(dst))
	s.lockSet(&m)
	defer s.unlockSet(&m)
	var ks kv
	s.findReadInto(&ks, db, src, now, false)
	if st := ks.check(TypeZSet); st != OK {
		return 0, false, st
	}
	var members [][]byte
	var scores []float64
	if ks.exists() {
		ks.zwalkRanges(ranges, visit)
		members, scores = result()
	}
	var kd kv
	s.findInto(&kd, db, dst, now, false)
	if len(members) == 0 {
		if kd.exists() {
			kd.del()
			return 0, true, OK
		}
		return 0, false, OK
	}
	if kd.exists() {
		kd.del()
	}
	es := make([]zentry, len(members))
	for i := range members {
		es[i] = zentry{members[i], scores[i]}
	}
	sortEntries(es)
	// a member read twice (cells that coincide) is stored once
	es = slices.CompactFunc(es, func(a, b zentry) bool { return a.s == b.s && string(a.m) == string(b.m) })
	kd.zstore(dst, es, s.limitsNow())
	return len(es), false, OK
}
