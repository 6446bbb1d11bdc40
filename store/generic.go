package store

import "bytes"

// Del deletes key and reports whether it existed.
func (s *Store) Del(db int, key []byte, now int64) bool {
	h := s.hash(key)
	sh := s.lock(h)
	defer sh.mu.Unlock()
	t := sh.table(db)
	e := sh.lookup(t, h, key, now, false)
	if e == nil {
		return false
	}
	sh.del(t, e)
	return true
}

// DelKeys deletes every key of keys at once (all their shards locked
// together) and returns how many existed; a key named twice counts once.
func (s *Store) DelKeys(db int, keys [][]byte, now int64) int {
	var m shardSet
	s.lockKeys(&m, keys, 1)
	defer s.unlockSet(&m)
	n := 0
	for _, k := range keys {
		h := s.hash(k)
		sh := &s.shards[s.shardIndex(h)]
		t := sh.table(db)
		if e := sh.lookup(t, h, k, now, false); e != nil {
			sh.del(t, e)
			n++
		}
	}
	return n
}

// CountExisting returns how many of keys exist, at one instant; a key named
// twice counts twice, as EXISTS does.
func (s *Store) CountExisting(db int, keys [][]byte, now int64) int {
	var m shardSet
	s.lockKeys(&m, keys, 1)
	defer s.unlockSet(&m)
	n := 0
	for _, k := range keys {
		h := s.hash(k)
		sh := &s.shards[s.shardIndex(h)]
		if sh.lookup(sh.table(db), h, k, now, true) != nil {
			n++
		}
	}
	return n
}

// Exists reports whether key exists.
func (s *Store) Exists(db int, key []byte, now int64) bool {
	h := s.hash(key)
	sh := s.lock(h)
	defer sh.mu.Unlock()
	return sh.lookup(sh.table(db), h, key, now, true) != nil
}

// Type returns the type name of key's value as TYPE prints it: "string", or
// "none" when key does not exist.
func (s *Store) Type(db int, key []byte, now int64) string {
	if s.Exists(db, key, now) {
		return "string"
	}
	return "none"
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

// move implements Rename (del) and Copy with both shards locked.
func (s *Store) move(srcDB int, src []byte, dstDB int, dst []byte, now int64, replace, del bool) Status {
	hs, hd := s.hash(src), s.hash(dst)
	var m shardSet
	m.add(s.shardIndex(hs))
	m.add(s.shardIndex(hd))
	s.lockSet(&m)
	defer s.unlockSet(&m)
	ss, sd := &s.shards[s.shardIndex(hs)], &s.shards[s.shardIndex(hd)]
	ts, td := ss.table(srcDB), sd.table(dstDB)
	e := ss.lookup(ts, hs, src, now, !del) // COPY reads its source, as Redis counts it
	if e == nil {
		return NotFound
	}
	if srcDB == dstDB && bytes.Equal(src, dst) { // RENAME k k
		if replace {
			return OK
		}
		return NotSet
	}
	if old := sd.lookup(td, hd, dst, now, false); old != nil {
		if !replace {
			return NotSet
		}
		sd.del(td, old)
	}
	sd.add(td, hd, dst, e.val, e.expireAt, now)
	if del {
		ss.del(ts, e)
	}
	return OK
}

// Keys calls fn with every live key of db matching the glob pattern (see
// Match). fn runs under a shard lock: it must copy what it keeps and must
// not call the store.
func (s *Store) Keys(db int, pattern []byte, now int64, fn func(key []byte)) {
	all := len(pattern) == 1 && pattern[0] == '*'
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for _, e := range sh.table(db).buckets {
			for ; e != nil; e = e.next {
				if e.expireAt != 0 && e.expireAt <= now {
					continue
				}
				if all || Match(pattern, e.key) {
					fn(e.key)
				}
			}
		}
		sh.mu.Unlock()
	}
}

// ScanOptions filter SCAN's keys.
type ScanOptions struct {
	Pattern []byte // glob (see Match); nil matches every key
	Type    []byte // type name ("string"), any case; nil matches every type
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
	sbits := 64 - s.shift
	if s.shift >= 64 {
		sbits = 0
	}
	si := int(cursor & (1<<sbits - 1))
	v := cursor >> sbits
	typeOK := o.Type == nil || bytes.EqualFold(o.Type, []byte("string"))
	seen, steps := 0, 0
	visit := func(e *entry) {
		seen++
		if e.expireAt != 0 && e.expireAt <= now {
			return
		}
		if typeOK && (o.Pattern == nil || Match(o.Pattern, e.key)) {
			fn(e.key)
		}
	}
	for si < len(s.shards) {
		sh := &s.shards[si]
		sh.mu.Lock()
		t := sh.table(db)
		for {
			v = t.scanStep(v, visit)
			steps++
			if v == 0 || seen >= count || steps >= count*10 {
				break
			}
		}
		sh.mu.Unlock()
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
	first.mu.Lock()
	r := first.rand()
	first.mu.Unlock()
	n := len(s.shards)
	for i := 0; i < n; i++ {
		sh := &s.shards[(int(r%uint64(n))+i)%n]
		sh.mu.Lock()
		t := sh.table(db)
		for tries := 0; t.count > 0 && tries < 100; tries++ {
			b := t.buckets[sh.rand()&uint64(len(t.buckets)-1)]
			if b == nil {
				continue
			}
			ln := 0
			for e := b; e != nil; e = e.next {
				ln++
			}
			e := b
			for k := int(sh.rand() % uint64(ln)); k > 0; k-- {
				e = e.next
			}
			if e.expireAt != 0 && e.expireAt <= now {
				sh.del(t, e)
				sh.expired++
				continue
			}
			dst = enc(dst, e.key)
			sh.mu.Unlock()
			return dst, true
		}
		sh.mu.Unlock()
	}
	return dst, false
}
