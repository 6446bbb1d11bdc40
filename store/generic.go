package store

import "bytes"

// Del deletes key and reports whether it existed.
func (s *Store) Del(db int, key []byte, now int64) bool {
	var k kv
	s.acquireInto(&k, db, key, now, false)
	defer k.release()
	if !k.exists() {
		return false
	}
	k.del()
	return true
}

// DelKeys deletes every key of keys at once (all their shards locked
// together) and returns how many existed; a key named twice counts once.
func (s *Store) DelKeys(db int, keys [][]byte, now int64) int {
	return s.DelKeysFunc(db, keys, now, nil)
}

// CountExisting returns how many of keys exist, at one instant; a key named
// twice counts twice, as EXISTS does. It leaves their access fields alone.
func (s *Store) CountExisting(db int, keys [][]byte, now int64) int {
	var m shardSet
	s.lockKeysRead(&m, keys)
	defer s.unlockSet(&m)
	n := 0
	var k kv
	for _, key := range keys {
		slot := KeySlot(key) // as Redis's LOOKUP_NOTOUCH: EXISTS is no access
		if s.lookupInto(&k, &s.shards[s.shardOf(slot)], db, key, slot, now, true, false); k.exists() {
			n++
		}
	}
	return n
}

// Exists reports whether key exists, leaving its access field alone.
func (s *Store) Exists(db int, key []byte, now int64) bool {
	var k kv
	s.acquirePeek(&k, db, key, now)
	defer k.release()
	return k.exists()
}

// TypeOf returns key's type, TypeNone when it does not exist. It counts as
// a keyspace read but not as an access, as TYPE does in Redis.
func (s *Store) TypeOf(db int, key []byte, now int64) Type {
	var k kv
	s.acquirePeek(&k, db, key, now)
	defer k.release()
	return k.kind()
}

// Type returns the type name of key's value as TYPE prints it ("none" when
// key does not exist).
func (s *Store) Type(db int, key []byte, now int64) string { return s.TypeOf(db, key, now).String() }

// ObjectInfo is what OBJECT reports of a key.
type ObjectInfo struct {
	Type     Type
	Encoding Encoding
	Idle     int64 // ms since the last access, before this one (the LRU policies)
	Freq     uint8 // the LFU counter, decayed to now (the LFU policies)
	Int      int64 // the value of a string encoded as EncInt
}

// Object returns key's type, encoding, idle time and access frequency
// without touching its access field, as OBJECT does; it counts as a keyspace read. ok is false
// when key does not exist.
func (s *Store) Object(db int, key []byte, now int64) (ObjectInfo, bool) {
	slot := KeySlot(key)
	sh := &s.shards[s.shardOf(slot)]
	s.lockShard(sh)
	defer s.unlockShard(sh)
	t := &sh.dbs[db]
	r := t.keys.find(&t.a, s.hash(key), key)
	if r != noRef && t.expired(t.a.at(r), now) {
		if !s.paused.Load() { // SetPaused: missing, but left in place
			s.expireRec(sh, t, db, r)
		}
		r = noRef
	}
	if r == noRef {
		sh.misses++
		return ObjectInfo{}, false
	}
	sh.hits++
	b := t.a.at(r)
	info := ObjectInfo{Type: recType(b), Encoding: recEnc(b), Idle: int64(lruIdle(lruClock(now), recLRU(b))),
		Freq: s.lfu.decayed(recLRU(b), now)}
	if info.Type == TypeString && info.Encoding == EncInt {
		info.Int, _ = ParseInt(recVal(b))
	}
	return info, true
}

// Rename moves src's value and TTL to dst, replacing dst unless nx. It
// returns NotFound when src does not exist and NotSet when nx and dst
// exists (or dst is src).
func (s *Store) Rename(db int, src, dst []byte, now int64, nx bool) Status {
	return s.move(db, src, db, dst, now, !nx, true)
}

// Copy copies src's value and TTL in srcDB to dst in dstDB, replacing dst
// only when replace. It returns SameObject when src and dst are the same
// key of the same database, NotFound when src does not exist and NotSet
// when dst exists and not replace.
func (s *Store) Copy(srcDB int, src []byte, dstDB int, dst []byte, now int64, replace bool) Status {
	if srcDB == dstDB && bytes.Equal(src, dst) {
		return SameObject
	}
	return s.move(srcDB, src, dstDB, dst, now, replace, false)
}

// Move moves key from srcDB to dstDB unless it exists there. It returns
// NotFound when key does not exist in srcDB, NotSet when it exists in
// dstDB, and SameObject when the databases are the same.
func (s *Store) Move(srcDB, dstDB int, key []byte, now int64) Status {
	if srcDB == dstDB {
		return SameObject
	}
	return s.move(srcDB, key, dstDB, key, now, false, true)
}

// move implements Rename, Move (del) and Copy with both shards locked.
func (s *Store) move(srcDB int, src []byte, dstDB int, dst []byte, now int64, replace, del bool) Status {
	var m shardSet
	m.add(s.shardIndex(src))
	m.add(s.shardIndex(dst))
	s.lockSet(&m)
	defer s.unlockSet(&m)
	var ks kv
	s.findInto(&ks, srcDB, src, now, !del) // COPY reads its source, as Redis counts it
	if !ks.exists() {
		return NotFound
	}
	if srcDB == dstDB && bytes.Equal(src, dst) { // RENAME k k
		if replace {
			return OK
		}
		return NotSet
	}
	var kd kv
	s.findInto(&kd, dstDB, dst, now, false)
	if kd.exists() {
		if !replace {
			return NotSet
		}
		kd.del()
		kd.replaced = false // RENAME, COPY and MOVE add the key anew, as Redis's dbDelete then dbAdd
	}
	if del && ks.t == kd.t {
		// a rename within one table: the new record takes over the value,
		// so a hash table is not copied
		b := ks.rec()
		kd.create(dst, recType(b), recEnc(b), ks.val(), 0, recExpire(b))
		ks.t.unlinkRec(ks.r, s.sbits, false)
		return OK
	}
	kd.copyFrom(dst, &ks)
	if del {
		ks.del()
	}
	return OK
}

// copyFrom creates k, which does not exist, as a copy of src's value, type,
// encoding and TTL.
func (k *kv) copyFrom(key []byte, src *kv) {
	b := src.rec()
	typ, e, at := recType(b), recEnc(b), recExpire(b)
	if typ == TypeList {
		k.create(key, typ, e, src.val(), 0, at)
		k.listCloneFrom(src)
		return
	}
	if typ == TypeStream {
		k.create(key, typ, e, src.val(), 0, at)
		k.streamCloneFrom(src)
		return
	}
	if e == EncSkiplist {
		k.zslCreate(key, at)
		k.zslCloneFrom(src)
		return
	}
	if e != EncHashtable {
		k.create(key, typ, e, src.val(), 0, at)
		return
	}
	d := src.obj()
	nd := newDict(d.hdr, d.hmask)
	k.t.cloneDict(&nd, &src.t.a, d)
	var idx [4]byte
	le.PutUint32(idx[:], uint32(k.t.newObj(nd)))
	k.create(key, typ, e, idx[:], 0, at)
}

// cloneDict fills nd with copies of d's records, which live in arena from.
func (t *keyTable) cloneDict(nd *dict, from *arena, d *dict) {
	d.each(from, func(r ref) bool {
		b := from.at(r)
		n := fieldHdr + recKlenOf(b) + recVlenOf(b)
		nr, _, nb := t.a.alloc(n)
		copy(nb, from.at(r)[:n])
		nd.add(&t.a, nr, nd.hashOf(nb))
		return true
	})
}

// Keys calls fn with every live key of db matching the glob pattern (see
// Match). fn runs under a shard lock: it must copy what it keeps and must
// not call the store.
func (s *Store) Keys(db int, pattern []byte, now int64, fn func(key []byte)) {
	all := len(pattern) == 1 && pattern[0] == '*'
	for i := range s.shards {
		sh := &s.shards[i]
		s.lockShard(sh)
		t := &sh.dbs[db]
		t.keys.each(&t.a, func(r ref) bool {
			b := t.a.at(r)
			if !t.expired(b, now) && (all || Match(pattern, recKeyOf(b))) {
				fn(recKeyOf(b))
			}
			return true
		})
		s.unlockShard(sh)
	}
}

// ScanOptions filter SCAN's keys.
type ScanOptions struct {
	Pattern []byte // glob (see Match); nil matches every key
	Type    []byte // type name ("string", "hash", ...), any case; nil matches every type
	Count   int    // buckets' worth of keys to visit, default 10
}

// Scan continues the iteration of db at cursor (0 starts one) and returns
// the cursor to pass next, 0 when the iteration is complete. It calls fn,
// under a shard lock, with the live keys of the buckets it visits that pass
// o's filters. A key present during the whole iteration is passed at least
// once; see the package doc.
func (s *Store) Scan(db int, cursor uint64, now int64, o ScanOptions, fn func(key []byte)) uint64 {
	count := o.Count
	if count <= 0 {
		count = 10
	}
	sbits := s.sbits
	si := int(cursor & (1<<sbits - 1))
	v := cursor >> sbits
	want, typed := TypeNone, o.Type != nil
	if typed {
		var ok bool
		if want, ok = ParseType(o.Type); !ok {
			want = TypeNone // an unknown type matches no key
		}
	}
	seen, steps := 0, 0
	var t *keyTable
	visit := func(r ref) {
		seen++
		b := t.a.at(r)
		if t.expired(b, now) {
			return
		}
		if (!typed || recType(b) == want) && (o.Pattern == nil || Match(o.Pattern, recKeyOf(b))) {
			fn(recKeyOf(b))
		}
	}
	for si < len(s.shards) {
		sh := &s.shards[si]
		s.lockShard(sh)
		t = &sh.dbs[db]
		for {
			v = t.keys.scan(&t.a, v, visit)
			steps++
			if v == 0 || seen >= count || steps >= count*10 {
				break
			}
		}
		s.unlockShard(sh)
		if v == 0 {
			si++
		}
		if seen >= count || steps >= count*10 {
			break
		}
	}
	if si >= len(s.shards) {
		return 0
	}
	return v<<sbits | uint64(si)
}

// RandomKey appends a random live key of db to dst through enc and reports
// whether db had one.
func (s *Store) RandomKey(db int, now int64, dst []byte, enc EncodeFunc) ([]byte, bool) {
	first := &s.shards[0]
	s.lockShard(first)
	r := first.rand()
	s.unlockShard(first)
	n := len(s.shards)
	for i := 0; i < n; i++ {
		sh := &s.shards[(int(r%uint64(n))+i)%n]
		s.lockShard(sh)
		t := &sh.dbs[db]
		for tries := 0; t.keys.count > 0 && tries < 100; tries++ {
			r := t.keys.random(&t.a, sh.rand)
			b := t.a.at(r)
			if t.expired(b, now) {
				// while SetPaused, left in place: after 100 expired picks
				// the shard counts as empty (Redis 7.0.15 loops forever)
				if !s.paused.Load() {
					s.expireRec(sh, t, db, r)
				}
				continue
			}
			dst = enc(dst, recKeyOf(b))
			s.unlockShard(sh)
			return dst, true
		}
		s.unlockShard(sh)
	}
	return dst, false
}

// CountKeysInSlot returns the number of keys of db in hash slot slot.
func (s *Store) CountKeysInSlot(db int, slot uint16) int {
	sh := &s.shards[s.shardOf(slot)]
	s.lockShard(sh)
	defer s.unlockShard(sh)
	t := &sh.dbs[db]
	if t.slots == nil {
		return 0
	}
	return int(t.slots[int(slot)&(len(t.slots)-1)])
}

// KeysInSlot calls fn with up to count live keys of db in hash slot slot,
// walking only the shard that owns the slot. fn runs under the shard lock.
func (s *Store) KeysInSlot(db int, slot uint16, now int64, count int, fn func(key []byte)) {
	sh := &s.shards[s.shardOf(slot)]
	s.lockShard(sh)
	defer s.unlockShard(sh)
	t := &sh.dbs[db]
	if count <= 0 || t.slots == nil || t.slots[int(slot)&(len(t.slots)-1)] == 0 {
		return
	}
	t.keys.each(&t.a, func(r ref) bool {
		b := t.a.at(r)
		if !t.expired(b, now) && KeySlot(recKeyOf(b)) == slot {
			fn(recKeyOf(b))
			count--
		}
		return count > 0
	})
}
