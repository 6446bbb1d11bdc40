package store

// MemoryUsage estimates the bytes key and its value take in the store, for
// MEMORY USAGE: the key record's chunk and its bucket in the keyspace, and
// for a value kept outside the record (hash table, skiplist, quicklist)
// its bucket arrays and the chunks of its first samples entries (list
// nodes), scaled to all of them, as Redis's objectComputeSize samples;
// samples 0 counts every one. It neither touches the key nor counts a
// keyspace hit, and like Redis 7.0's, which finds the key in the main dict
// without a lookup, it measures a key past its expiry that no one has
// deleted yet, and leaves it so.
func (s *Store) MemoryUsage(db int, key []byte, samples int) (n int64, ok bool) {
	slot := KeySlot(key)
	sh := &s.shards[s.shardOf(slot)]
	s.lockShard(sh)
	defer s.unlockShard(sh)
	t := &sh.dbs[db]
	r := t.keys.find(&t.a, s.hash(key), key)
	if r == noRef {
		return 0, false
	}
	b := t.a.at(r)
	n = int64(keyHdr+recKlenOf(b)+recCap(b)) + 4 // the record's chunk, its bucket's ref
	val := recVal(b)
	switch enc := recEnc(b); {
	case recType(b) == TypeList:
		n += t.nodesUsage(listHdr(val), samples)
	case recType(b) == TypeStream:
		n += t.streamUsage(streamHdr(val), samples)
	case enc == EncHashtable, enc == EncSkiplist: // the member dict's index leads both headers
		n += t.dictUsage(&t.objs[le.Uint32(val)], samples)
	}
	return n, true
}

// dictUsage estimates the bytes of an aggregate's dict: its bucket arrays
// and its records, sampled (samples 0: all). Caller holds the shard lock.
func (t *keyTable) dictUsage(d *dict, samples int) int64 {
	var sum, seen int64
	d.each(&t.a, func(r ref) bool {
		b := t.a.at(r)
		sz := fieldHdr + recKlenOf(b) + recVlenOf(b)
		sum += int64(chunkSize(classOf(sz), sz))
		seen++
		return samples == 0 || seen < int64(samples)
	})
	n := d.arrayBytes()
	if seen > 0 {
		n += sum * int64(d.count) / seen
	}
	return n
}

// nodesUsage estimates the bytes of a quicklist's nodes from its first
// samples (0: all). Caller holds the shard lock.
func (t *keyTable) nodesUsage(h listHdr, samples int) int64 {
	var sum, seen int64
	for r := h.head(); r != noRef && (samples == 0 || seen < int64(samples)); {
		b := t.a.at(r)
		sum += int64(lnHdr + nodeCap(b))
		seen++
		r = nodeNext(b)
	}
	if seen == 0 {
		return 0
	}
	return sum * int64(h.nodes()) / seen
}

// DictOverhead returns the bytes database db spends on indexing its keys
// rather than holding them, as MEMORY STATS reports per database: the
// keyspace's bucket arrays (main) and the list of keys with a TTL
// (expires).
func (s *Store) DictOverhead(db int) (main, expires int64) {
	for i := range s.shards {
		sh := &s.shards[i]
		s.lockShard(sh)
		t := &sh.dbs[db]
		main += t.keys.arrayBytes()
		expires += int64(4 * cap(t.expires))
		s.unlockShard(sh)
	}
	return main, expires
}
