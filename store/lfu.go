package store

// Redis's approximated LFU (the allkeys-lfu and volatile-lfu policies). A
// key record's 24-bit access field holds the LRU clock under every other
// policy; under an LFU policy it holds, as Redis's robj.lru does, a 16-bit
// time in minutes (the last decrement) above an 8-bit logarithmic access
// counter. Switching policies reinterprets the field, as Redis does, so the
// ranking takes a while to settle after a switch.
//
// The counter starts at LFUInitVal; an access raises it by one with
// probability 1 / ((counter − LFUInitVal) × log factor + 1), so it grows
// with the logarithm of the accesses and saturates at 255; and it loses one
// for each decay period (lfu-decay-time minutes) since the time stored
// beside it, applied when it is read or bumped. With a log factor of 0
// every access counts.

import "sync/atomic"

// LFUInitVal is a new key's counter, Redis's LFU_INIT_VAL, so that new
// keys are not the first evicted.
const LFUInitVal = 5

// LFU defaults: lfu-log-factor and lfu-decay-time, Redis's.
const (
	DefaultLFULogFactor = 10
	DefaultLFUDecayTime = 1 // minutes
)

// lfuMode is the store's access accounting, read on every lookup.
type lfuMode struct {
	on        atomic.Bool
	logFactor atomic.Int64
	decayTime atomic.Int64 // minutes; 0: counters never decay
}

// SetLFU selects what keys' access fields record: access counts for the
// LFU policies (on), the LRU clock otherwise. logFactor and decayTime are
// lfu-log-factor and lfu-decay-time (minutes); negative values are taken
// as 0.
func (s *Store) SetLFU(on bool, logFactor, decayTime int64) {
	s.lfu.logFactor.Store(max(logFactor, 0))
	s.lfu.decayTime.Store(max(decayTime, 0))
	s.lfu.on.Store(on)
}

// LFU reports whether access fields hold LFU counters (SetLFU).
func (s *Store) LFU() bool { return s.lfu.on.Load() }

// lfuMinutes is Redis's LFUGetTimeInMinutes: Unix minutes, 16 bits.
func lfuMinutes(now int64) uint32 { return uint32(now/60000) & 0xffff }

// lfuField packs a counter with the time of now.
func lfuField(now int64, counter uint8) uint32 { return lfuMinutes(now)<<8 | uint32(counter) }

// lfuDecayed returns field's counter less one per decay period elapsed
// since its time, at now (Redis's LFUDecrAndReturn), without storing it.
func (m *lfuMode) decayed(field uint32, now int64) uint8 {
	counter := uint8(field)
	period := m.decayTime.Load()
	if period == 0 {
		return counter
	}
	then, cur := field>>8&0xffff, lfuMinutes(now)
	var elapsed uint32
	if cur >= then {
		elapsed = cur - then
	} else {
		elapsed = 0xffff - then + cur // Redis's LFUTimeElapsed: one short across the wrap
	}
	n := int64(elapsed) / period
	if n >= int64(counter) {
		return 0
	}
	return counter - uint8(n)
}

// touch returns field after one access at now: decayed, then raised with
// the logarithmic probability (Redis's updateLFU). rnd is a uniform 64-bit
// random number.
func (m *lfuMode) touch(field uint32, now int64, rnd uint64) uint32 {
	c := m.decayed(field, now)
	if c < 255 {
		base := int64(c) - LFUInitVal
		if base <= 0 {
			c++
		} else {
			// increment when rnd/2^64 < 1/(base*factor+1), that is
			// rnd < 2^64/(base*factor+1), computed without floats
			d := uint64(base*m.logFactor.Load() + 1)
			if d == 1 || rnd < ^uint64(0)/d {
				c++
			}
		}
	}
	return lfuField(now, c)
}

// accessField is the access field a lookup at now leaves on a record whose
// field is old: the LRU clock, or the LFU counter after one access.
func (s *Store) accessField(sh *shard, old uint32, now int64) uint32 {
	if !s.lfu.on.Load() {
		return lruClock(now)
	}
	return s.lfu.touch(old, now, sh.rand())
}

// newField is a new record's access field at now.
func (s *Store) newField(now int64) uint32 {
	if !s.lfu.on.Load() {
		return lruClock(now)
	}
	return lfuField(now, LFUInitVal)
}

// SetFreq sets key's LFU counter to freq (0 to 255, clamped) as of now,
// without counting an access (RESTORE's FREQ, RDB's FREQ opcode), and
// reports whether key exists. The field is the LFU form whatever the
// policy; callers apply it only under an LFU policy, as Redis does.
func (s *Store) SetFreq(db int, key []byte, now, freq int64) bool {
	return s.setAccess(db, key, now, lfuField(now, uint8(min(max(freq, 0), 255))))
}
