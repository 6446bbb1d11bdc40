package store

import (
	"math"
	"sync"
	"sync/atomic"
)

// A key record (a dict record whose key is a key of the keyspace):
//
//	0  next      ref
//	4  hash      uint32: 24 bits of hash, the Type in bits 24-26, the saved
//	             parity in bit 27 (snapshot.go), the Encoding in 28-31
//	8  klen      uint32
//	12 vlen      uint32: bytes of value in use
//	16 expireAt  int64: Unix ms, 0 for no TTL
//	24 lru       uint32: 24-bit LRU clock, the chunk's class in the top byte
//	28 ttlIdx    uint32: index in keyTable.expires
//	32 key, then the value
//
// A string, listpack or intset value is stored in the record itself, with
// the chunk's spare room after it for in-place growth; a value encoded as
// a hash table is a 4-byte index into keyTable.objs.
const (
	keyExpire = 16
	keyLRU    = 24
	keyTTLIdx = 28
	keyHdr    = 32
)

// shard is one lock's worth of the keyspace: a contiguous range of hash
// slots, holding a keyTable per database.
type shard struct {
	mu  sync.Mutex
	idx int        // index in keyspace.shards
	dbs []keyTable // one per database
	// guarded by mu
	hits    int64  // keyspace_hits
	misses  int64  // keyspace_misses
	expired int64  // keys deleted because their TTL passed
	evicted int64  // keys deleted by Evict
	rnd     uint64 // xorshift state for sampling
	// num holds integers of compact values formatted for a reply, so that
	// a view passed to an EncodeFunc does not make a stack buffer escape
	num [2][20]byte
	// moving holds a copy of an element that moves between values (LMOVE)
	moving []byte
	// view is View's Value, so that passing it to the callback allocates nothing
	view Value
	_    [64]byte
}

// keyTable is one database's part of one shard.
type keyTable struct {
	acct    memAcct // bytes of the table's chunks and bucket arrays
	a       arena
	keys    dict
	expires []ref    // records with a TTL; the record's ttlIdx is its index
	objs    []dict   // values encoded as hash tables, by index
	objFree []uint32 // free indexes of objs
	trash   []dict   // deleted big hash-table values, freed by RehashCycle
	slots   []uint32 // keys per hash slot of the shard's range, nil while empty
	// walk is the pending snapshot walking this table, nil for none; a
	// record whose saved bit differs from parity is one it has not saved
	// yet (snapshot.go)
	walk   *tableWalk
	parity byte
}

func (t *keyTable) init(total *atomic.Int64) {
	t.acct = memAcct{total: total}
	t.a.init(&t.acct)
	t.keys = newDict(keyHdr, 1<<dictMaxBits-1)
}

// rand returns the next pseudo-random number of the shard. Caller holds mu.
func (sh *shard) rand() uint64 {
	x := sh.rnd
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	sh.rnd = x
	return x
}

// Record field accessors; b is a.at(r) of a key record.

func keyHashWord(h uint32, t Type, e Encoding) uint32 {
	return h&(1<<dictMaxBits-1) | uint32(t)<<24 | uint32(e)<<28
}
func recType(b []byte) Type          { return Type(b[recHash+3] & 0x07) }
func recEnc(b []byte) Encoding       { return Encoding(b[recHash+3] >> 4) }
func setRecEnc(b []byte, e Encoding) { b[recHash+3] = b[recHash+3]&0x0f | byte(e)<<4 }
func recExpire(b []byte) int64       { return int64(le.Uint64(b[keyExpire:])) }
func setRecExpire(b []byte, at int64) {
	le.PutUint64(b[keyExpire:], uint64(at))
}
func recLRU(b []byte) uint32  { return le.Uint32(b[keyLRU:]) & lruClockMax }
func recClass(b []byte) uint8 { return b[keyLRU+3] }
func setRecLRU(b []byte, lru uint32) {
	le.PutUint32(b[keyLRU:], lru&lruClockMax|uint32(b[keyLRU+3])<<24)
}
func recTTLIdx(b []byte) int       { return int(le.Uint32(b[keyTTLIdx:])) }
func setRecTTLIdx(b []byte, i int) { le.PutUint32(b[keyTTLIdx:], uint32(i)) }
func recKeyOf(b []byte) []byte     { return recKey(b, keyHdr) }
func recVal(b []byte) []byte {
	off := keyHdr + recKlenOf(b)
	return b[off : off+recVlenOf(b) : off+recVlenOf(b)]
}

// recCap returns the bytes of value a key record's chunk has room for.
func recCap(b []byte) int {
	c := recClass(b)
	sz := len(b) // a large chunk is its whole page
	if c != classLarge {
		sz = int(classSizes[c])
	}
	return sz - keyHdr - recKlenOf(b)
}

func (t *keyTable) expired(b []byte, now int64) bool {
	at := recExpire(b)
	return at != 0 && at <= now
}

// newRec allocates a key record for key with room for vcap bytes of value,
// and fills its header; the value bytes are left for the caller.
func (t *keyTable) newRec(h uint32, key []byte, typ Type, enc Encoding, vlen, vcap int, lru uint32) (ref, []byte) {
	r, c, b := t.a.alloc(keyHdr + len(key) + vcap)
	le.PutUint32(b[recHash:], keyHashWord(h, typ, enc))
	setRecParity(b, t.parity) // not in a walking snapshot's image
	le.PutUint32(b[recKlen:], uint32(len(key)))
	setRecVlen(b, vlen)
	setRecExpire(b, 0)
	le.PutUint32(b[keyLRU:], lru&lruClockMax|uint32(c)<<24)
	copy(b[keyHdr:], key)
	return r, b
}

func (t *keyTable) freeRec(r ref, b []byte) {
	t.a.release(r, recClass(b), keyHdr+recKlenOf(b)+recVlenOf(b))
}

// insert links a new record r, with expiry at (0 for none), counting its slot.
func (t *keyTable) insert(r ref, h uint32, slot uint16, sbits uint, at int64) {
	t.keys.add(&t.a, r, h)
	if at != 0 {
		t.addTTL(r, at)
	}
	t.slotAdd(slot, sbits, 1)
}

// remove unlinks and frees record r, releasing its hash-table value.
func (t *keyTable) remove(r ref, sbits uint) { t.unlinkRec(r, sbits, true) }

// unlinkRec removes record r; dropValue false keeps a hash-table value,
// which another record of the table has taken over (RENAME).
func (t *keyTable) unlinkRec(r ref, sbits uint, dropValue bool) {
	t.cowRec(r)
	b := t.a.at(r)
	h := le.Uint32(b[recHash:]) & t.keys.hmask
	if recExpire(b) != 0 {
		t.dropTTL(b)
	}
	t.slotAdd(KeySlot(recKeyOf(b)), sbits, -1)
	t.keys.unlink(&t.a, r, h)
	switch {
	case !dropValue:
	case recEnc(b) == EncHashtable, recEnc(b) == EncSkiplist:
		// a skiplist's members are its dict's records: lazily freed alike
		t.dropObj(int(le.Uint32(recVal(b))))
	case recType(b) == TypeList:
		t.listFree(recVal(b))
	case recType(b) == TypeStream:
		t.streamFree(recVal(b))
	}
	t.freeRec(r, b)
}

func (t *keyTable) slotAdd(slot uint16, sbits uint, d int) {
	local := int(slot) & (1<<(16-2-sbits) - 1)
	if t.slots == nil {
		t.slots = make([]uint32, 1<<(14-sbits))
	}
	t.slots[local] += uint32(d)
}

// setTTL sets or clears (at == 0) r's expiry, keeping expires in step.
func (t *keyTable) setTTL(r ref, at int64) {
	b := t.a.at(r)
	cur := recExpire(b)
	switch {
	case cur == 0 && at != 0:
		t.addTTL(r, at)
	case cur != 0 && at == 0:
		t.dropTTL(b)
		setRecExpire(b, 0)
	default:
		setRecExpire(b, at)
	}
}

func (t *keyTable) addTTL(r ref, at int64) {
	b := t.a.at(r)
	setRecExpire(b, at)
	setRecTTLIdx(b, len(t.expires))
	t.expires = append(t.expires, r)
}

func (t *keyTable) dropTTL(b []byte) {
	i := recTTLIdx(b)
	last := len(t.expires) - 1
	t.expires[i] = t.expires[last]
	setRecTTLIdx(t.a.at(t.expires[i]), i)
	t.expires = t.expires[:last]
}

// relocate moves record r into a chunk with room for vcap bytes of value,
// keeping its first keep bytes of value, and returns the new ref and bytes.
func (t *keyTable) relocate(r ref, vlen, vcap, keep int) (ref, []byte) {
	b := t.a.at(r)
	h := le.Uint32(b[recHash:]) & t.keys.hmask
	nr, c, nb := t.a.alloc(keyHdr + recKlenOf(b) + vcap)
	b = t.a.at(r) // the page table may have grown
	n := keyHdr + recKlenOf(b)
	copy(nb[:n+keep], b[:n+keep])
	nb[keyLRU+3] = c
	setRecVlen(nb, vlen)
	t.keys.relink(&t.a, r, nr, h)
	if recExpire(b) != 0 {
		t.expires[recTTLIdx(b)] = nr
	}
	t.freeRec(r, b)
	return nr, t.a.at(nr)
}

// newObj stores d as a hash-table value and returns its index.
func (t *keyTable) newObj(d dict) int {
	if n := len(t.objFree); n > 0 {
		i := int(t.objFree[n-1])
		t.objFree = t.objFree[:n-1]
		t.objs[i] = d
		return i
	}
	t.objs = append(t.objs, d)
	return len(t.objs) - 1
}

// dropObj frees hash-table value i and its records.
// A big one goes to the table's trash, which RehashCycle frees by steps,
// as Redis's lazyfree frees big values off the main thread: no command
// holds the lock while a million fields are released.
func (t *keyTable) dropObj(i int) {
	d := t.objs[i]
	t.objs[i] = dict{}
	t.objFree = append(t.objFree, uint32(i))
	t.a.acct.add(-d.arrayBytes()) // the arrays go to the collector with d
	d.rehash = 0                  // the sweep's cursor: next bucket of tab[0], then tab[1]
	if d.count > lazyFreeMin {
		t.trash = append(t.trash, d)
		return
	}
	t.sweep(&d, math.MaxInt)
}

// lazyFreeMin is the most fields a value frees at once when it is deleted;
// Redis's LAZYFREE_THRESHOLD.
const lazyFreeMin = 64

// sweep frees up to n buckets' worth of d's records from its cursor (the
// buckets of tab[0], then of tab[1]) and reports whether d is empty.
func (t *keyTable) sweep(d *dict, n int) bool {
	for {
		for ; d.rehash < len(d.tab[0]); d.rehash++ {
			if n == 0 {
				return false
			}
			for r := d.tab[0][d.rehash]; r != noRef; {
				next := recNextOf(t.a.at(r))
				t.freeField(r)
				r = next
			}
			n--
		}
		if d.tab[1] == nil {
			break
		}
		d.tab[0], d.tab[1] = d.tab[1], nil
		d.rehash = 0
	}
	*d = dict{}
	return true
}

// sweepTrash frees up to n buckets' worth of the trash.
func (t *keyTable) sweepTrash(n int) {
	for len(t.trash) > 0 && n > 0 {
		d := &t.trash[len(t.trash)-1]
		if !t.sweep(d, n) {
			return
		}
		t.trash = t.trash[:len(t.trash)-1]
		n -= 64
	}
}

// fieldHdr is the header of a record of a hash-table value (a hash's field
// and value, or a set's member): the common 16 bytes only.
const fieldHdr = 16
