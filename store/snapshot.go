package store

import (
	"errors"
	"slices"
	"sync/atomic"
	"time"
)

// Snapshot is a point-in-time image of the whole keyspace, taken in
// O(shards × databases) time: writes after it do not change what it shows,
// and no loop waits for it beyond the copy of one table (of one shard's
// tables, for a multi-key write). See
// "Point-in-time snapshots" in the package documentation. Its methods must
// not be called while the caller holds a Lock view.
type Snapshot struct {
	ks     *keyspace
	dbs    int
	clock  uint32 // LRU clock at the snapshot's instant, for Value.Idle
	counts []DBStats
	// tabs has one entry per table, shard*dbs + db; an entry is guarded by
	// its shard's lock.
	tabs   []snapTable
	cloned atomic.Int64 // bytes copied so far
	held   atomic.Int64 // bytes of copies not yet dropped
	walked atomic.Bool
	closed atomic.Bool
}

// snapTable is what a snapshot holds of one table.
type snapTable struct {
	t     *keyTable // the copy, in state tabCopied
	size  int64     // its bytes
	state uint8
}

const (
	tabLive   uint8 = iota // unchanged since the snapshot: the live table is its image
	tabCopied              // copied before a change, or by the walker
	tabDone                // empty at the instant, walked, or closed
)

// Errors of Snapshot.Each.
var (
	ErrSnapshotClosed = errors.New("store: snapshot closed")
	ErrSnapshotWalked = errors.New("store: snapshot already walked")
)

// Snapshot returns a point-in-time image of the keyspace, whose Value.Idle
// times are measured at the wall clock's now. The caller walks it once with
// Each (from any goroutine) and then calls Close.
func (s *Store) Snapshot() *Snapshot { return s.SnapshotAt(time.Now().UnixMilli()) }

// SnapshotAt is Snapshot with Idle times measured at Unix ms now. On a
// Lock view (a save inside a transaction) it uses the view's locks, and
// the view must hold every shard (Lock(nil, true)): locking the others in
// order while holding some could deadlock.
func (s *Store) SnapshotAt(now int64) *Snapshot {
	sn := &Snapshot{
		ks:     s.keyspace,
		dbs:    s.databases,
		clock:  lruClock(now),
		counts: make([]DBStats, s.databases),
		tabs:   make([]snapTable, len(s.shards)*s.databases),
	}
	// every shard locked at once: the instant is between two operations
	// of every shard, multi-shard ones included
	for i := range s.shards {
		s.lockShardRead(&s.shards[i])
	}
	for i := range s.shards {
		sh := &s.shards[i]
		live := false
		for db := range sh.dbs {
			t := &sh.dbs[db]
			sn.counts[db].Keys += t.keys.count
			sn.counts[db].Expires += len(t.expires)
			if t.keys.count == 0 {
				sn.tabs[i*sn.dbs+db].state = tabDone
			} else {
				live = true
				t.snapLive = true
			}
		}
		if live {
			sh.snaps = append(sh.snaps, sn)
		}
	}
	for i := range s.shards {
		s.unlockShard(&s.shards[i])
	}
	return sn
}

// lockShardRead locks sh unless this view holds it, without the copy that
// lockShard makes for pending snapshots: for an operation that changes
// nothing a snapshot shows, or that calls sh.cowBefore first when it does
// (a read deleting an expired key). What a read may change without the copy
// is the LRU clock of the keys it touches and, through the incremental
// rehash steps of its lookups, the bucket arrays: the keys, values and
// TTLs stay as they were, and a copy taken later shows them alike.
func (s *Store) lockShardRead(sh *shard) {
	if s.held == nil || !s.held.has(sh.idx) {
		sh.mu.Lock()
	}
}

// cowBefore copies table db for pending snapshots before a change made
// under lockShardRead. Caller holds sh.mu.
func (sh *shard) cowBefore(db int) {
	if sh.dbs[db].snapLive {
		sh.cowTable(db)
	}
}

// DBSize returns db's keys and keys with a TTL at the snapshot's instant,
// expired keys not yet deleted included (as Each visits them).
func (sn *Snapshot) DBSize(db int) (keys, expires int) {
	return sn.counts[db].Keys, sn.counts[db].Expires
}

// ClonedBytes returns the bytes of tables copied for the snapshot so far,
// by writers and by the walker (INFO's rdb_last_cow_size at the end).
func (sn *Snapshot) ClonedBytes() int64 { return sn.cloned.Load() }

// HeldBytes returns the bytes of copies the snapshot holds now (INFO's
// current_cow_size).
func (sn *Snapshot) HeldBytes() int64 { return sn.held.Load() }

// Each calls fn with every key of the snapshot: the keys of database 0,
// then of 1, and so on, each database's keys together, in no particular
// order within one. v is valid only during the call. Each stops at and
// returns fn's first error. A snapshot is walked once.
func (sn *Snapshot) Each(fn func(db int, v *Value) error) error {
	if sn.closed.Load() {
		return ErrSnapshotClosed
	}
	if !sn.walked.CompareAndSwap(false, true) {
		return ErrSnapshotWalked
	}
	var v Value
	var err error
	visit := func(t *keyTable, db int) func(r ref) bool {
		return func(r ref) bool {
			v.fill(t, t.a.at(r), sn.clock)
			err = fn(db, &v)
			return err == nil
		}
	}
	for db := 0; db < sn.dbs; db++ {
		for i := range sn.ks.shards {
			if sn.closed.Load() {
				return ErrSnapshotClosed
			}
			t, size := sn.take(i, db)
			if t == nil {
				continue
			}
			t.keys.each(&t.a, visit(t, db))
			sn.held.Add(-size)
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// take returns the image of table (shard i, db), copying the live table
// when no writer has, and marks it walked; nil when it was empty.
func (sn *Snapshot) take(i, db int) (*keyTable, int64) {
	sh := &sn.ks.shards[i]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	st := &sn.tabs[i*sn.dbs+db]
	var t *keyTable
	size := st.size
	switch st.state {
	case tabLive:
		t, size = sh.dbs[db].snapCopy()
		sn.cloned.Add(size)
		sn.held.Add(size)
	case tabCopied:
		t = st.t
	}
	*st = snapTable{state: tabDone}
	sh.refreshLive(db)
	sh.pruneSnaps()
	return t, size
}

// Close frees what the snapshot still holds. It is safe to call twice,
// and after or instead of Each (not during it).
func (sn *Snapshot) Close() {
	if !sn.closed.CompareAndSwap(false, true) {
		return
	}
	for i := range sn.ks.shards {
		sh := &sn.ks.shards[i]
		sh.mu.Lock()
		for db := range sh.dbs {
			st := &sn.tabs[i*sn.dbs+db]
			if st.state == tabCopied {
				sn.held.Add(-st.size)
			}
			*st = snapTable{state: tabDone}
			sh.refreshLive(db)
		}
		sh.pruneSnaps()
		sh.mu.Unlock()
	}
}

// refreshLive recomputes whether a pending snapshot shows table db live.
// Caller holds sh.mu.
func (sh *shard) refreshLive(db int) {
	live := false
	for _, sn := range sh.snaps {
		live = live || sn.tabs[sh.idx*sn.dbs+db].state == tabLive
	}
	sh.dbs[db].snapLive = live
}

// pruneSnaps removes from sh's pending list the snapshots that show none
// of its tables live any more. Caller holds sh.mu.
func (sh *shard) pruneSnaps() {
	keep := sh.snaps[:0]
	for _, sn := range sh.snaps {
		for db := range sh.dbs {
			if sn.tabs[sh.idx*sn.dbs+db].state == tabLive {
				keep = append(keep, sn)
				break
			}
		}
	}
	clear(sh.snaps[len(keep):])
	sh.snaps = keep
}

// cow copies every table of sh that a pending snapshot shows live, before
// the caller (which took lockShard) changes any, and leaves sh with no
// pending snapshot. Caller holds sh.mu.
func (sh *shard) cow() {
	for db := range sh.dbs {
		if sh.dbs[db].snapLive {
			sh.cowTable(db)
		}
	}
}

// cowTable copies table db for every snapshot still showing it live,
// before the caller changes it. Snapshots waiting for the same table share
// its copy: none of them saw a change since it was taken. Caller holds
// sh.mu.
func (sh *shard) cowTable(db int) {
	var c *keyTable
	var size int64
	for _, sn := range sh.snaps {
		st := &sn.tabs[sh.idx*sn.dbs+db]
		if st.state != tabLive {
			continue
		}
		if c == nil {
			c, size = sh.dbs[db].snapCopy()
		}
		*st = snapTable{t: c, size: size, state: tabCopied}
		sn.cloned.Add(size)
		sn.held.Add(size)
	}
	sh.dbs[db].snapLive = false
	sh.pruneSnaps()
}

// snapCopy returns a read-only copy of the table as a snapshot needs it:
// its arena's pages (up to the cut point of the page being cut), its key
// dict and its hash-table values, and the bytes copied. All are
// pointer-free slices, so the copy is a memcpy of each.
func (t *keyTable) snapCopy() (*keyTable, int64) {
	c := &keyTable{}
	var n int64
	c.a.pages = make([][]byte, len(t.a.pages))
	for i, p := range t.a.pages {
		if p == nil {
			continue
		}
		if i == t.a.cur {
			p = p[:t.a.bump]
		}
		c.a.pages[i] = slices.Clone(p)
		n += int64(len(p))
	}
	c.keys, n = t.keys.snapCopy(n)
	c.objs = make([]dict, len(t.objs))
	for i := range t.objs {
		c.objs[i], n = t.objs[i].snapCopy(n)
	}
	return c, n
}

// snapCopy returns a copy of d with its own bucket arrays, adding their
// bytes to n.
func (d *dict) snapCopy(n int64) (dict, int64) {
	c := *d
	c.tab[0] = slices.Clone(d.tab[0])
	c.tab[1] = slices.Clone(d.tab[1])
	return c, n + d.arrayBytes()
}
