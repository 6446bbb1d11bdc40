package store

// A Journal records, in order, the keys the store removes by itself while
// a caller's operations run: keys whose TTL had passed when an operation
// looked them up (lazy expiry) or when ActiveExpireCycle sampled them, and
// keys Evict deleted. The server reads it after each command to publish
// the expired and evicted keyspace events and to propagate the deletions
// before the command itself, as Redis's expireIfNeeded and
// performEvictions do.
//
// A Journal is used by one goroutine at a time: the operations of a view
// made by WithJournal (and of the Lock views of that view) append to it.
// Its buffers are reused after Reset, so a steady workload does not
// allocate.
//
// With TrackNew, the journal also records the keys the operations create
// (for the "new" keyspace event), and with TrackDeleted the keys they
// delete (an HDEL that removes a hash's last field deletes the key), in
// the same order as the removals; Len and Each still see only the
// removals, Entries and Entry see all.
type Journal struct {
	keys      []byte         // the keys, one after the other
	ents      []journalEntry // in the order the store removed (or created) them
	removed   int            // entries that are removals by the store itself
	trackNew  bool
	trackDel  bool
	trackMiss bool
	onRecord  func(db int, key []byte, kind JournalKind)
}

// JournalKind is what happened to a key a Journal recorded.
type JournalKind uint8

const (
	JournalExpired JournalKind = iota // deleted because its TTL had passed
	JournalEvicted                    // deleted by Evict
	JournalNew                        // created (recorded only with TrackNew)
	JournalDeleted                    // deleted by an operation (recorded only with TrackDeleted)
	JournalMiss                       // a read that did not find the key (recorded only with TrackMisses)
)

// journalEntry is one recorded key: keys[start:end] of the Journal.
type journalEntry struct {
	start, end uint32
	db         int32
	kind       JournalKind
}

// Len returns the number of keys removed since the last Reset.
func (j *Journal) Len() int { return j.removed }

// Each calls fn with every key removed since the last Reset, in the order
// they were removed: its database, its name, and whether Evict removed it
// (false: it had expired). key is valid until Reset.
func (j *Journal) Each(fn func(db int, key []byte, evicted bool)) {
	for _, e := range j.ents {
		if e.kind <= JournalEvicted {
			fn(int(e.db), j.keys[e.start:e.end:e.end], e.kind == JournalEvicted)
		}
	}
}

// Entries returns the number of entries, removals and creations, recorded
// since the last Reset.
func (j *Journal) Entries() int { return len(j.ents) }

// Entry returns the i-th entry recorded, 0 <= i < Entries(); key is valid
// until Reset.
func (j *Journal) Entry(i int) (db int, key []byte, kind JournalKind) {
	e := j.ents[i]
	return int(e.db), j.keys[e.start:e.end:e.end], e.kind
}

// TrackNew sets whether the journal records the keys operations create.
func (j *Journal) TrackNew(on bool) { j.trackNew = on }

// TrackDeleted sets whether the journal records the keys operations delete.
func (j *Journal) TrackDeleted(on bool) { j.trackDel = on }

// TrackMisses sets whether the journal records the keys reads did not
// find, where keyspace_misses counts them (for the "keymiss" event).
func (j *Journal) TrackMisses(on bool) { j.trackMiss = on }

// OnRecord sets fn, which the store calls right after it records each
// entry, under the lock of the key's shard: the events of a background
// view (active expiry) then reach subscribers before any other operation
// can touch the key. fn must not call the store; key is valid until Reset.
func (j *Journal) OnRecord(fn func(db int, key []byte, kind JournalKind)) { j.onRecord = fn }

// Reset forgets the recorded keys, keeping the buffers.
func (j *Journal) Reset() {
	j.keys = j.keys[:0]
	j.ents = j.ents[:0]
	j.removed = 0
}

// journalKeep bounds the buffers a Journal keeps across Reset: a command
// that removed a million keys does not pin their names afterwards.
const journalKeep = 64 << 10

func (j *Journal) add(db int, key []byte, kind JournalKind) {
	if len(j.ents) == 0 && cap(j.keys) > journalKeep {
		j.keys, j.ents = nil, nil
	}
	start := len(j.keys)
	j.keys = append(j.keys, key...)
	j.ents = append(j.ents, journalEntry{start: uint32(start), end: uint32(len(j.keys)), db: int32(db), kind: kind})
	if kind <= JournalEvicted {
		j.removed++
	}
	if j.onRecord != nil {
		j.onRecord(db, j.keys[start:len(j.keys):len(j.keys)], kind)
	}
}

// WithJournal returns a view of s whose operations record into j the keys
// the store removes by itself (see Journal). Lock views of the returned
// view record into j too. The view shares s's keyspace, and s's held
// locks when s is a Lock view.
func (s *Store) WithJournal(j *Journal) *Store {
	return &Store{keyspace: s.keyspace, held: s.held, j: j}
}

// expireRec deletes record r of table t (database db), whose TTL has
// passed, counting it and recording it in the view's journal. Caller holds
// sh.mu.
func (s *Store) expireRec(sh *shard, t *keyTable, db int, r ref) {
	if s.j != nil {
		s.j.add(db, recKeyOf(t.a.at(r)), JournalExpired)
	}
	t.remove(r, s.sbits)
	sh.expired++
}

// evictRec deletes record r of table t (database db) to free memory,
// counting it and recording it in the view's journal. Caller holds sh.mu.
func (s *Store) evictRec(sh *shard, t *keyTable, db int, r ref) {
	if s.j != nil {
		s.j.add(db, recKeyOf(t.a.at(r)), JournalEvicted)
	}
	t.remove(r, s.sbits)
	sh.evicted++
}

// created records key, just created in database db, when the view's
// journal tracks creations.
func (s *Store) created(db int, key []byte) {
	if s.j != nil && s.j.trackNew {
		s.j.add(db, key, JournalNew)
	}
}

// QuietListLen returns the length of key's list in db, 0 when it does not
// exist or is not a list, without counting a keyspace hit or miss (the
// server's count of LTRIM's changes, not a client's read).
func (s *Store) QuietListLen(db int, key []byte, now int64) int {
	var k kv
	s.acquireInto(&k, db, key, now, false)
	defer k.release()
	if k.kind() != TypeList {
		return 0
	}
	return k.listHdr().count()
}

// DelKeysFunc is DelKeys calling deleted (unless nil), under the keys'
// locks, with each key it deleted, in order (DEL's keyspace events name
// them).
func (s *Store) DelKeysFunc(db int, keys [][]byte, now int64, deleted func(key []byte)) int {
	var m shardSet
	s.lockKeys(&m, keys, 1)
	defer s.unlockSet(&m)
	n := 0
	for _, key := range keys {
		if k := s.find(db, key, now, false); k.exists() {
			k.del()
			if deleted != nil {
				deleted(key)
			}
			n++
		}
	}
	return n
}
