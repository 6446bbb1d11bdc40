package store

import "github.com/loopkv/loopkv/store/hll"

// HyperLogLog operations (Redis hyperloglog.c). A HyperLogLog is a string
// value in Redis's own format (package hll), edited in place in its record:
// a sparse edit takes the room it may need first (room), a conversion to
// dense resizes the record once. Each operation returns NotHLL for a string
// that is not a HyperLogLog and CorruptHLL for a damaged one.

// hllOpen checks that the existing key k holds a HyperLogLog and makes its
// string raw, as Redis's dbUnshareStringValue does before an HLL command
// touches the value.
func hllOpen(k *kv) Status {
	if st := k.check(TypeString); st != OK {
		return st
	}
	if !hll.Check(k.val()) {
		return NotHLL
	}
	k.setEnc(EncRaw)
	return OK
}

// hllCreate creates key, which k found missing, as an empty HyperLogLog.
func (k *kv) hllCreate(key []byte) {
	var tmp [hll.HdrSize + 2]byte
	k.create(key, TypeString, EncRaw, hll.AppendEmpty(tmp[:0]), 0, 0)
}

// hllSet raises register index of k's HyperLogLog to count if lower,
// turning a sparse value dense when Redis would.
func (k *kv) hllSet(index int, count uint8, maxBytes int) hll.Result {
	if hll.IsDense(k.val()) {
		return hll.DenseAdd(k.val(), index, count)
	}
	v := k.room(hll.SparseGrowth)
	nv, r := hll.SparseAdd(v, index, count, maxBytes)
	switch r {
	case hll.Changed:
		k.setLen(nv)
		return r
	case hll.Promote:
		if !k.hllToDense() {
			return hll.Corrupt
		}
		return hll.DenseAdd(k.val(), index, count)
	}
	return r
}

// hllToDense converts k's sparse HyperLogLog to dense, keeping its header
// (cached cardinality included); false when the sparse runs are damaged.
func (k *kv) hllToDense() bool {
	var regs [hll.Registers]uint8
	if !hll.MaxInto(&regs, k.val()) {
		return false
	}
	hll.ToDense(k.resize(hll.DenseSize, 0), &regs)
	return true
}

// PFAdd adds elems to the HyperLogLog at key, creating it when missing
// (also with no elements). changed counts the changes, the creation and
// each register that grew (Redis's dirty count); when there are any, the
// cached cardinality is made stale.
// On CorruptHLL the registers raised before the damage was met stay
// raised, as in Redis.
func (s *Store) PFAdd(db int, key []byte, elems [][]byte, now int64) (changed int, st Status) {
	var k kv
	s.acquireInto(&k, db, key, now, false)
	defer k.release()
	if !k.exists() {
		k.hllCreate(key)
		changed = 1
	} else if st := hllOpen(&k); st != OK {
		return 0, st
	}
	maxBytes := s.limitsNow().HLLSparseMaxBytes
	for _, e := range elems {
		index, count := hll.Hash(e)
		switch k.hllSet(index, count, maxBytes) {
		case hll.Changed:
			changed++
		case hll.Corrupt:
			return 0, CorruptHLL
		}
	}
	if changed > 0 {
		hll.Invalidate(k.val())
	}
	return changed, OK
}

// PFCount estimates the cardinality of the union of the HyperLogLogs at
// keys, a missing key counting as empty. With one key it uses and keeps
// the value's cached cardinality: cached reports that it computed and
// stored it (a change of the value, which Redis propagates).
func (s *Store) PFCount(db int, keys [][]byte, now int64) (n uint64, cached bool, st Status) {
	if len(keys) == 1 {
		return s.pfCountOne(db, keys[0], now)
	}
	var m shardSet
	s.lockKeysRead(&m, keys)
	defer s.unlockSet(&m)
	var regs [hll.Registers]uint8
	var k kv
	for _, key := range keys {
		if s.findReadInto(&k, db, key, now, true); !k.exists() {
			continue
		}
		if st := k.check(TypeString); st != OK {
			return 0, false, st
		}
		if !hll.Check(k.val()) {
			return 0, false, NotHLL
		}
		if !hll.MaxInto(&regs, k.val()) {
			return 0, false, CorruptHLL
		}
	}
	return hll.CountRegisters(&regs), false, OK
}

// pfCountOne is PFCount of one key.
func (s *Store) pfCountOne(db int, key []byte, now int64) (uint64, bool, Status) {
	var k kv
	s.acquireInto(&k, db, key, now, true) // a read that may store the cache
	defer k.release()
	if !k.exists() {
		return 0, false, OK
	}
	if st := hllOpen(&k); st != OK {
		return 0, false, st
	}
	v := k.val()
	if n, ok := hll.Cached(v); ok {
		return n, false, OK
	}
	n, ok := hll.Count(v)
	if !ok {
		return 0, false, CorruptHLL
	}
	hll.SetCached(v, n)
	return n, true, OK
}

// PFMerge merges the HyperLogLogs at keys into the one at keys[0], which
// is both a source and the destination (created when missing), as Redis's
// PFMERGE reads it. The destination turns dense when any source is dense.
func (s *Store) PFMerge(db int, keys [][]byte, now int64) Status {
	var m shardSet
	s.lockKeys(&m, keys, 1)
	defer s.unlockSet(&m)
	var regs [hll.Registers]uint8
	var k kv
	dense := false
	for _, key := range keys {
		if s.findReadInto(&k, db, key, now, true); !k.exists() {
			continue
		}
		if st := k.check(TypeString); st != OK {
			return st
		}
		v := k.val()
		if !hll.Check(v) {
			return NotHLL
		}
		dense = dense || hll.IsDense(v)
		if !hll.MaxInto(&regs, v) {
			return CorruptHLL
		}
	}
	s.findInto(&k, db, keys[0], now, false)
	if !k.exists() {
		k.hllCreate(keys[0])
	} else {
		k.setEnc(EncRaw)
	}
	if dense && !hll.IsDense(k.val()) && !k.hllToDense() {
		return CorruptHLL
	}
	maxBytes := s.limitsNow().HLLSparseMaxBytes
	for i, r := range regs {
		if r != 0 {
			k.hllSet(i, r, maxBytes)
		}
	}
	hll.Invalidate(k.val())
	return OK
}

// HLLDebugOp is a PFDEBUG subcommand.
type HLLDebugOp uint8

const (
	HLLDebugNone     HLLDebugOp = iota // an unknown subcommand: only the key checks
	HLLDebugGetReg                     // the registers, the value turned dense first
	HLLDebugDecode                     // a sparse value's opcodes as text
	HLLDebugEncoding                   // dense or sparse
	HLLDebugToDense                    // turn a sparse value dense
)

// HLLDebug is PFDEBUG op on the HyperLogLog at key: NotFound when key is
// missing, then the type checks. GetReg fills regs; Decode appends the
// opcodes' text to dst (nothing for a dense value); converted reports that
// GetReg or ToDense turned a sparse value dense; dense whether the value
// is dense (before Decode, after the others).
func (s *Store) HLLDebug(db int, key []byte, now int64, op HLLDebugOp, regs *[hll.Registers]uint8, dst []byte) (out []byte, converted, dense bool, st Status) {
	var k kv
	s.acquireInto(&k, db, key, now, false)
	defer k.release()
	if !k.exists() {
		return dst, false, false, NotFound
	}
	if st := hllOpen(&k); st != OK {
		return dst, false, false, st
	}
	dense = hll.IsDense(k.val())
	switch op {
	case HLLDebugGetReg, HLLDebugToDense:
		if !dense {
			if !k.hllToDense() {
				return dst, false, false, CorruptHLL
			}
			converted, dense = true, true
		}
		if op == HLLDebugGetReg {
			clear(regs[:])
			hll.MaxInto(regs, k.val())
		}
	case HLLDebugDecode:
		if !dense {
			dst = hll.AppendDecode(dst, k.val())
		}
	}
	return dst, converted, dense, OK
}
