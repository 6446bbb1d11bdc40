package store

import (
	"errors"
	"math"
	"sync/atomic"
	"time"
)

// Snapshot is a point-in-time image of the whole keyspace, taken in
// O(shards × databases) time: writes after it do not change what it shows,
// and no loop waits for it beyond the copy of the one record (and value)
// a write is about to change. See "Point-in-time snapshots" in the package
// documentation. Its methods must not be called while the caller holds a
// Lock view.
type Snapshot struct {
	ks     *keyspace
	st     *Store // a view with no journal, for the copies
	dbs    int
	now    int64 // the snapshot's instant (Unix ms), for Value.Idle and Value.Freq
	counts []DBStats
	// walks has one entry per table, shard*dbs + db, nil for a table that
	// was empty at the instant; an entry is guarded by its shard's lock.
	walks  []*tableWalk
	cloned atomic.Int64 // bytes copied so far
	held   atomic.Int64 // bytes of copies not yet dropped
	walked atomic.Bool
	closed atomic.Bool
}

// tableWalk is what a snapshot has of one table: the records it has not
// saved yet, in the table it walks (src), and the ones writers saved for it
// before changing or deleting them (side).
type tableWalk struct {
	sn     *Snapshot
	sh     *shard
	db     int
	src    *keyTable // the table walked (SwapDB moves it); nil when done
	cursor uint64    // the walk's position in src.keys's bucket arrays
	side   recBuf    // the records writers saved
}

// recBuf holds copies of key records: a string or compact value as the
// record's bytes, in chunks, and a value with records of its own (a hash
// table, skiplist or list) copied whole into a private table.
type recBuf struct {
	chunks [][]byte
	recs   [][]byte  // the records, each in a chunk
	big    *keyTable // nil until a value needs it
	bytes  int64     // of recs and big
}

// recChunk is the largest size of a recBuf chunk.
const recChunk = 64 << 10

// flatRec reports whether key record b is whole in its bytes.
func flatRec(b []byte) bool {
	e := recEnc(b)
	return recType(b) != TypeList && recType(b) != TypeStream && e != EncHashtable && e != EncSkiplist
}

// reset empties rb for reuse, keeping its first chunk.
func (rb *recBuf) reset() {
	if len(rb.chunks) > 0 {
		rb.chunks = append(rb.chunks[:0], rb.chunks[0][:0])
	}
	clear(rb.recs)
	rb.recs = rb.recs[:0]
	rb.big = nil
	rb.bytes = 0
}

// each calls fn with each record of rb, and the table its value's records
// live in, until fn returns false.
func (rb *recBuf) each(fn func(t *keyTable, b []byte) bool) {
	for _, b := range rb.recs {
		if !fn(nil, b) {
			return
		}
	}
	if t := rb.big; t != nil {
		t.keys.each(&t.a, func(r ref) bool { return fn(t, t.a.at(r)) })
	}
}

// Errors of Snapshot.Each.
var (
	ErrSnapshotClosed = errors.New("store: snapshot closed")
	ErrSnapshotWalked = errors.New("store: snapshot already walked")
)

// recSaved is the bit of a key record's hash word (the top bit of the
// Type's nibble) that, equal to its table's parity, says that the table's
// pending snapshot has the record already or does not want it.
const recSaved = 0x08

func recParity(b []byte) byte          { return b[recHash+3] & recSaved }
func setRecParity(b []byte, p byte)    { b[recHash+3] = b[recHash+3]&^recSaved | p }
func (t *keyTable) unsaved(r ref) bool { return recParity(t.a.at(r)) != t.parity }

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
		st:     &Store{keyspace: s.keyspace},
		dbs:    s.databases,
		now:    now,
		counts: make([]DBStats, s.databases),
		walks:  make([]*tableWalk, len(s.shards)*s.databases),
	}
	// A table has one walk at a time: an earlier snapshot still walking
	// it first gets the rest of it copied, one table per lock hold.
	for i := range s.shards {
		sh := &s.shards[i]
		s.lockShard(sh)
		sh.finishWalks()
		s.unlockShard(sh)
	}
	// every shard locked at once: the instant is between two operations
	// of every shard, multi-shard ones included
	for i := range s.shards {
		s.lockShard(&s.shards[i])
	}
	for i := range s.shards {
		sh := &s.shards[i]
		sh.finishWalks() // a snapshot taken meanwhile
		for db := range sh.dbs {
			t := &sh.dbs[db]
			sn.counts[db].Keys += t.keys.count
			sn.counts[db].Expires += len(t.expires)
			if t.keys.count == 0 {
				continue
			}
			// every record of t now differs from its parity: unsaved
			t.parity ^= recSaved
			t.keys.frozen = true
			w := &tableWalk{sn: sn, sh: sh, db: db, src: t}
			t.walk = w
			sn.walks[i*sn.dbs+db] = w
		}
	}
	for i := range s.shards {
		s.unlockShard(&s.shards[i])
	}
	return sn
}

// finishWalks completes the walks of sh's tables: each one's remaining
// records go to its side list (nowhere, for a closed snapshot). Caller
// holds sh.mu.
func (sh *shard) finishWalks() {
	for db := range sh.dbs {
		if w := sh.dbs[db].walk; w != nil {
			w.step(nil, math.MaxInt)
		}
	}
}

// cow saves k's record for the pending snapshot walking its table before
// the caller changes it: every write's lookup calls it.
func (k *kv) cow() {
	if k.t.walk != nil && k.r != noRef {
		k.t.walk.save(k.t, k.r)
	}
}

// cowRec is cow for record r of t, before its deletion.
func (t *keyTable) cowRec(r ref) {
	if t.walk != nil {
		t.walk.save(t, r)
	}
}

// save copies record r of t, which the walk has not saved yet, to the side
// list, and marks it saved. Caller holds the shard lock.
func (w *tableWalk) save(t *keyTable, r ref) {
	if !t.unsaved(r) {
		return
	}
	setRecParity(t.a.at(r), t.parity)
	if !w.sn.closed.Load() {
		w.copyRec(&w.side, t, r)
	}
}

// copyRec copies record r of t and its value into dst (the side list or a
// walker's batch), with its TTL and LRU clock.
func (w *tableWalk) copyRec(dst *recBuf, t *keyTable, r ref) {
	b := t.a.at(r)
	var n int64
	if flatRec(b) {
		b = b[:keyHdr+recKlenOf(b)+recVlenOf(b)]
		i := len(dst.chunks) - 1
		if i < 0 || cap(dst.chunks[i])-len(dst.chunks[i]) < len(b) {
			// chunks double from 512 bytes: a side list of one record
			// costs little
			size := 512
			if i >= 0 {
				size = min(recChunk, 2*cap(dst.chunks[i]))
			}
			dst.chunks = append(dst.chunks, make([]byte, 0, max(size, len(b))))
			i++
		}
		c := append(dst.chunks[i], b...)
		dst.chunks[i] = c
		dst.recs = append(dst.recs, c[len(c)-len(b):len(c):len(c)])
		n = int64(len(b))
	} else {
		if dst.big == nil {
			dst.big = &keyTable{}
			dst.big.init(new(atomic.Int64))
		}
		before := dst.big.acct.used
		key := recKeyOf(b)
		src := kv{s: w.sn.st, sh: w.sh, t: t, r: r, db: w.db}
		k := kv{s: w.sn.st, sh: w.sh, t: dst.big, h: t.keys.hashOf(b), slot: KeySlot(key), db: w.db, replaced: true}
		k.copyFrom(key, &src)
		setRecLRU(dst.big.a.at(k.r), recLRU(t.a.at(r)))
		n = dst.big.acct.used - before
	}
	dst.bytes += n
	w.sn.cloned.Add(n)
	w.sn.held.Add(n)
}

// walkHold bounds what one lock hold of the walk copies: records, bytes,
// and buckets visited.
const (
	walkRecs    = 256
	walkBytes   = 64 << 10
	walkBuckets = 4 * walkRecs
	walkWindow  = 8 // tables a walk steps through in turn
)

// step walks on through w.src, saving up to n unsaved records into dst
// (only marking them, when dst is nil: a walk finished for a later
// snapshot, or closed) and reports whether the walk is done, then
// detached from its table. Records a finishing walk saves for an open
// snapshot go to its side list. Caller holds the shard lock.
func (w *tableWalk) step(dst *recBuf, n int) bool {
	t := w.src
	if t == nil {
		return true
	}
	finish := n == math.MaxInt
	if dst == nil {
		dst = &w.side
	}
	if w.sn.closed.Load() {
		dst = nil
	}
	for buckets := 0; finish || (n > 0 && buckets < walkBuckets && (dst == nil || dst.bytes < walkBytes)); buckets++ {
		// the position runs over tab[0], then tab[1]: while the walk lasts
		// no rehash step moves a record between buckets (dict.frozen), and
		// the records of arrays an emptied dict replaced are all new
		d := &t.keys
		tb, i := d.tab[0], int(w.cursor)
		if i >= len(tb) {
			tb, i = d.tab[1], i-len(tb)
		}
		if i >= len(tb) {
			d.frozen = false
			if t.walk == w {
				t.walk = nil
			}
			w.src = nil
			return true
		}
		for r := tb[i]; r != noRef; {
			b := t.a.at(r)
			next := recNextOf(b)
			if recParity(b) != t.parity {
				if dst != nil {
					w.copyRec(dst, t, r)
				}
				setRecParity(t.a.at(r), t.parity)
				n--
			}
			r = next
		}
		w.cursor++
	}
	return false
}

// finishWalk copies to its walk's side list the records of the table its
// walk has not saved yet, before FlushDB drops them with the table's
// memory (and huge-page slots) at once: a copy of the rest of the table,
// for a rare command. Caller holds the shard lock.
func (t *keyTable) finishWalk() {
	if t.walk != nil {
		t.walk.step(nil, math.MaxInt)
	}
}

// movedWalk follows a table that SwapDB moved to another database.
func (t *keyTable) movedWalk() {
	if t.walk != nil {
		t.walk.src = t
	}
}

// DBSize returns db's keys and keys with a TTL at the snapshot's instant,
// expired keys not yet deleted included (as Each visits them).
func (sn *Snapshot) DBSize(db int) (keys, expires int) {
	return sn.counts[db].Keys, sn.counts[db].Expires
}

// ClonedBytes returns the bytes of records copied for the snapshot so far,
// by writers before they changed them and by the walker (INFO's
// rdb_last_cow_size at the end).
func (sn *Snapshot) ClonedBytes() int64 { return sn.cloned.Load() }

// HeldBytes returns the bytes of copies the snapshot holds now (INFO's
// current_cow_size): the side lists not yet walked and the walker's batch.
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
	// the batch's first chunk holds a whole step of small records, and
	// reset keeps it: the walk allocates nothing per step for them
	batch := recBuf{chunks: [][]byte{make([]byte, 0, walkBytes+recChunk)}}
	var side recBuf // what writers saved, taken from a walk at each step
	var active []*tableWalk
	for db := 0; db < sn.dbs; db++ {
		active = active[:0]
		for i := range sn.ks.shards {
			if w := sn.walks[i*sn.dbs+db]; w != nil {
				active = append(active, w)
			}
		}
		// one step in each of walkWindow tables in turn: the walk never
		// takes again the lock it just released (sync.Mutex would let it
		// barge in before the woken writer waiting for it, for up to 1 ms),
		// and stays within a few tables' memory
		for len(active) > 0 {
			keep := active[:0]
			for j, w := range active {
				if j >= walkWindow {
					keep = append(keep, active[j:]...)
					break
				}
				if sn.closed.Load() {
					return ErrSnapshotClosed
				}
				batch.reset()
				w.sh.mu.Lock()
				done := w.step(&batch, walkRecs)
				side, w.side = w.side, side
				if done {
					w.side = recBuf{}
				}
				w.sh.mu.Unlock()
				err := sn.emit(db, &batch, &v, fn)
				if err == nil {
					err = sn.emit(db, &side, &v, fn)
				}
				sn.held.Add(-side.bytes) // not emitted, after an error
				side.reset()
				if err != nil {
					return err
				}
				if !done {
					keep = append(keep, w)
				}
			}
			active = keep
		}
	}
	return nil
}

// emit calls fn with each record of rb, a batch or side list no writer
// sees any more, and then no longer counts it as held.
func (sn *Snapshot) emit(db int, rb *recBuf, v *Value, fn func(db int, v *Value) error) error {
	var err error
	rb.each(func(t *keyTable, b []byte) bool {
		v.fill(t, b, sn.now, &sn.ks.lfu)
		err = fn(db, v)
		return err == nil
	})
	*v = Value{}
	sn.held.Add(-rb.bytes)
	rb.bytes = 0
	return err
}

// Close frees what the snapshot still holds, and marks saved the records
// its walk had not reached, a bounded step per lock hold. It is safe to
// call twice, and after or instead of Each (not during it).
func (sn *Snapshot) Close() {
	if !sn.closed.CompareAndSwap(false, true) {
		return
	}
	for _, w := range sn.walks {
		if w == nil {
			continue
		}
		for done := false; !done; {
			w.sh.mu.Lock()
			done = w.step(nil, walkRecs)
			if done {
				sn.held.Add(-w.side.bytes)
				w.side = recBuf{}
			}
			w.sh.mu.Unlock()
		}
	}
}
