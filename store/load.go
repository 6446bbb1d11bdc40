package store

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/loopkv/loopkv/store/intset"
	"github.com/loopkv/loopkv/store/listpack"
)

// Loading: an RDB file, RESTORE or an AOF's base put whole values into the
// store. Strings and compact aggregates (listpacks and intsets in Redis's
// byte format, verbatim from the file) are stored as they come, after
// validation, and converted to the big encoding when past the Limits in
// force, as Redis's rdbLoadObject does. Big values are built by the caller
// with the ordinary operations (HSet, SAdd, RPush, ZAdd) on a key that does
// not exist yet. Loading never evicts and never deletes expired keys: an
// expired key not yet deleted counts as existing (the caller runs Exists
// first to apply expiry, as RESTORE's lookup does), and a loaded key whose
// TTL has passed is deleted by the next access or expiry cycle.

// loadClock is the time a loaded key's LRU clock is stamped with: the load
// functions take no now (their callers are file readers), and a loaded key
// is as fresh as Redis makes it; SetIdle gives it an older one.
func loadClock() int64 { return time.Now().UnixMilli() }

// SetIdle sets key's LRU clock as if it was last accessed idle seconds
// before now (RESTORE's IDLETIME, RDB's IDLE opcode), without counting an
// access, and reports whether key exists.
func (s *Store) SetIdle(db int, key []byte, now, idle int64) bool {
	return s.setAccess(db, key, now, lruClock(now-max(idle, 0)*lruClockResolution))
}

// setAccess sets key's access field (LRU clock or LFU counter) to field
// and reports whether key exists at now.
func (s *Store) setAccess(db int, key []byte, now int64, field uint32) bool {
	slot := KeySlot(key)
	sh := &s.shards[s.shardOf(slot)]
	s.lockShard(sh) // the access field is no part of a snapshot's image: nothing to save
	defer s.unlockShard(sh)
	t := &sh.dbs[db]
	r := t.keys.find(&t.a, s.hash(key), key)
	if r == noRef || t.expired(t.a.at(r), now) {
		return false
	}
	setRecLRU(t.a.at(r), field)
	return true
}

// Errors of the load functions.
var (
	ErrKeyExists  = errors.New("store: key exists")                // and replace is false (RESTORE's BUSYKEY)
	ErrEmptyValue = errors.New("store: empty value")               // an aggregate with no entries: Redis skips such keys
	ErrBadValue   = errors.New("store: bad type/encoding to load") // a type and encoding LoadCompact does not take
)

// LoadString stores val as key's string value with TTL expireAt (Unix ms, 0
// for none), encoded as SET would encode it. It returns NotSet when key
// exists and !replace, TooLarge past MaxValueLen.
func (s *Store) LoadString(db int, key, val []byte, expireAt int64, replace bool) Status {
	if len(val) > MaxValueLen {
		return TooLarge
	}
	var k kv
	s.acquireInto(&k, db, key, 0, false)
	k.now = loadClock()
	defer k.release()
	mode := SetAlways
	if !replace {
		mode = SetNX
	} else if k.exists() {
		k.del()
		k.replaced = false // RESTORE REPLACE adds the key anew, as Redis's dbDelete then dbAdd ("new")
	}
	_, _, st := k.set(key, val, SetOptions{Mode: mode, ExpireAt: expireAt}, nil, nil)
	return st
}

// LoadCompact stores blob, a compact value in Redis's byte format, as key's
// value of type t with TTL expireAt: a listpack hash or sorted set (t
// TypeHash or TypeZSet, e EncListpack: RDB types 16 and 17), a listpack
// set (Redis 7.2's type 20) or an intset (type 11), or a list of one
// listpack node (e EncListpack or EncQuicklist). blob is validated first,
// as Redis's deep integrity check does (well-formed, no repeated field or
// member, a sorted set's scores numbers in order): a bad one is refused
// with an error wrapping the listpack's or intset's *CorruptError, and
// nothing is stored. A value past the Limits is converted to the hash
// table or skiplist. It returns ErrKeyExists when key exists and !replace,
// and ErrEmptyValue for a value without entries.
func (s *Store) LoadCompact(db int, key []byte, t Type, e Encoding, blob []byte, expireAt int64, replace bool) error {
	if t == TypeList && (e == EncListpack || e == EncQuicklist) {
		return s.LoadList(db, key, [][]byte{blob}, expireAt, replace)
	}
	l := s.limitsNow()
	var validate func([]byte) error
	switch {
	case t == TypeHash && e == EncListpack:
		validate = listpack.ValidatePairs
	case t == TypeZSet && e == EncListpack:
		validate = validateZSetListpack
	case t == TypeSet && e == EncListpack:
		validate = validateSetListpack
	case t == TypeSet && e == EncIntset:
		validate = intset.Validate
	default:
		return fmt.Errorf("%w: %s %s", ErrBadValue, t, e)
	}
	if err := validate(blob); err != nil {
		return loadErr(t, e, err)
	}
	var n, maxLen int
	big := false
	if e == EncIntset {
		n = intset.Len(blob)
		big = n > l.SetMaxIntsetEntries
	} else {
		n, maxLen = lpStats(blob)
		switch t {
		case TypeHash:
			big = n/2 > l.HashMaxListpackEntries || maxLen > l.HashMaxListpackValue
		case TypeZSet:
			big = n/2 > l.ZSetMaxListpackEntries || maxLen > l.ZSetMaxListpackValue
		default:
			big = n > l.SetMaxListpackEntries || maxLen > l.SetMaxListpackValue
		}
		big = big || !listpack.SafeToAdd(nil, len(blob))
	}
	if n == 0 {
		return ErrEmptyValue
	}
	k, err := s.loadKey(db, key, replace)
	defer k.release()
	if err != nil {
		return err
	}
	k.create(key, t, e, blob, len(blob), expireAt)
	if big {
		switch t {
		case TypeHash:
			k.hashToTable()
		case TypeSet:
			k.setToHashtable()
		case TypeZSet:
			k.zsetConvert()
		}
	}
	return nil
}

// LoadList stores a list whose elements are those of nodes, listpacks in
// Redis's format (RDB's quicklist 2 packed nodes; a plain node is a
// listpack of its one element), each kept as one node of the quicklist
// (empty ones skipped), with TTL expireAt. Every node is validated before
// anything is stored. It returns ErrKeyExists when key exists and
// !replace, ErrEmptyValue when no node has an element.
func (s *Store) LoadList(db int, key []byte, nodes [][]byte, expireAt int64, replace bool) error {
	total := 0
	for _, lp := range nodes {
		if err := listpack.Validate(lp); err != nil {
			return loadErr(TypeList, EncQuicklist, err)
		}
		total += listpack.Len(lp)
	}
	if total == 0 {
		return ErrEmptyValue
	}
	k, err := s.loadKey(db, key, replace)
	defer k.release()
	if err != nil {
		return err
	}
	k.listCreate(key)
	for _, lp := range nodes {
		if listpack.Len(lp) == 0 {
			continue
		}
		r, nb := k.t.newNode(len(lp))
		copy(nb[lnHdr:], lp)
		k.linkNode(r, k.listHdr().tail())
		k.listHdr().addCount(listpack.Len(lp))
	}
	if expireAt != 0 {
		k.setTTL(expireAt)
	}
	return nil
}

// loadKey locks key for a load and deletes its value when replace; it
// returns ErrKeyExists when key exists and !replace. The caller releases k.
func (s *Store) loadKey(db int, key []byte, replace bool) (kv, error) {
	var k kv
	s.acquireInto(&k, db, key, 0, false)
	k.now = loadClock()
	if k.exists() {
		if !replace {
			return k, ErrKeyExists
		}
		k.del()
		k.replaced = false // RESTORE REPLACE adds the key anew, as Redis's dbDelete then dbAdd ("new")
	}
	return k, nil
}

func loadErr(t Type, e Encoding, err error) error {
	return fmt.Errorf("store: bad %s %s: %w", t, e, err)
}

// lpStats returns a valid listpack's entries and its longest entry's
// length in its Value form.
func lpStats(lp []byte) (n, maxLen int) {
	var scratch [20]byte
	for off := listpack.First(lp); off >= 0; off = listpack.Next(lp, off) {
		maxLen = max(maxLen, len(listpack.Value(lp, off, scratch[:0])))
		n++
	}
	return n, maxLen
}

// validateSetListpack checks a listpack set: well-formed, no member twice.
func validateSetListpack(lp []byte) error {
	if err := listpack.Validate(lp); err != nil {
		return err
	}
	seen := make(map[string]struct{}, listpack.Len(lp))
	var scratch [20]byte
	for off := listpack.First(lp); off >= 0; off = listpack.Next(lp, off) {
		m := listpack.Value(lp, off, scratch[:0])
		if _, dup := seen[string(m)]; dup {
			return &listpack.CorruptError{Offset: off, Reason: "member " + strconv.Quote(string(m)) + " repeats"}
		}
		seen[string(m)] = struct{}{}
	}
	return nil
}

// validateZSetListpack checks a listpack sorted set: pairs of member and
// score, no member twice, each score a number (not NaN), in the order the
// store keeps (by score, then member).
func validateZSetListpack(lp []byte) error {
	if err := listpack.ValidatePairs(lp); err != nil {
		return err
	}
	var prev, cur [20]byte
	var pm []byte
	ps := math.Inf(-1)
	first := true
	for off := listpack.First(lp); off >= 0; {
		soff := listpack.Next(lp, off)
		s, _, isInt := listpack.Get(lp, soff)
		if !isInt {
			f, err := strconv.ParseFloat(string(s), 64)
			if (err != nil && !errors.Is(err, strconv.ErrRange)) || math.IsNaN(f) {
				return &listpack.CorruptError{Offset: soff, Reason: "score " + strconv.Quote(string(s)) + " is not a number"}
			}
		}
		score := lpScore(lp, soff)
		m := listpack.Value(lp, off, cur[:0])
		if !first && !zless(ps, pm, score, m) {
			return &listpack.CorruptError{Offset: off, Reason: "members out of order"}
		}
		first = false
		pm, ps = append(prev[:0], m...), score
		off = listpack.Next(lp, soff)
	}
	return nil
}
