package store

import (
	"runtime"
	"sync"
	"unsafe"
)

// Huge-page arena pages. At millions of keys every lookup reads a random
// record of a random arena page, and with the 4 KiB pages of the Go heap
// (which asks the kernel for no huge pages) each of those reads also misses
// the TLB. The arena is pointer-free, so its full-size pages (maxPage) need
// not live in the Go heap at all: they are cut from 64 MiB regions mapped
// outside it and advised MADV_HUGEPAGE on Linux (hugepage_linux.go), where
// the kernel backs them with 2 MiB pages. Elsewhere, or when mapping fails,
// pages come from the heap as before (hugepage_other.go).
//
// Lifetime. The collector does not see these pages, so they are released
// explicitly: arena.drop hands an arena's slots back when its table is
// flushed, and a runtime cleanup on the arena's hugeOwner does the same
// for an arena that becomes unreachable otherwise (a Store dropped whole).
// Both release on a goroutine of their own, never on a loop: a released
// slot is zeroed (the arena's fresh pages are zero, as make's are), then
// goes back to its region, and a region with no slot in use is unmapped.
// A slot is released only when its whole table goes, so the rule for
// slices from arena.at is unchanged: valid until their chunk is freed.
// Snapshot copies (snapCopy) clone pages into the heap and own no slot.

const (
	hugeRegionSize = 64 << 20
	hugeSlots      = hugeRegionSize / maxPage
	hugeAlign      = 2 << 20 // the x86-64 and arm64 (4 KiB granule) huge page
)

// hugeRegion is one mapped region, cut into hugeSlots slots of maxPage
// bytes. A free slot is always zero (fresh, or cleared when released).
// Guarded by hugePool's lock.
type hugeRegion struct {
	mem  []byte
	busy [hugeSlots / 64]uint64 // slots in use
	used int
}

// hugeSlot names k consecutive slots of a region from slot i.
type hugeSlot struct {
	r    *hugeRegion
	i, k uint16
}

func (s hugeSlot) bytes() []byte {
	off, end := int(s.i)*maxPage, int(s.i+s.k)*maxPage
	return s.r.mem[off:end:end]
}

// hugeOff keeps new arena pages in the heap: for benchmarks that compare
// the two in one process. Set it only while no store allocates.
var hugeOff bool

var hugePool struct {
	sync.Mutex
	regions []*hugeRegion
	off     bool // a mapping failed: the heap from now on
}

// hugeSet is the slots one arena holds: its full-size pages and the bucket
// arrays of its key dict.
type hugeSet struct{ slots []hugeSlot }

// hugeOwner carries the cleanup that releases an unreachable arena's slots;
// only its arena points to it.
type hugeOwner struct{ set *hugeSet }

// hugePage returns a page of maxPage bytes outside the heap for a, nil when
// there is none (the caller allocates it from the heap).
func (a *arena) hugePage() []byte { return a.hugeAlloc(1) }

// hugeAlloc returns k slots of a's outside the heap, nil when there are
// none.
func (a *arena) hugeAlloc(k int) []byte {
	if !hugeSupported || hugeOff {
		return nil
	}
	s, ok := hugeGet(k)
	if !ok {
		return nil
	}
	if a.huge == nil {
		o := &hugeOwner{set: &hugeSet{}}
		runtime.AddCleanup(o, func(set *hugeSet) { hugePut(set.slots) }, o.set)
		a.huge = o
	}
	a.huge.set.slots = append(a.huge.set.slots, s)
	return s.bytes()
}

// buckets returns a zeroed bucket array of n refs: for a key dict (key)
// whose array fills at least a slot, from a huge-page region when there is
// one, else from the heap.
func (a *arena) buckets(n int, key bool) []ref {
	if key && n*4 >= maxPage && n*4%maxPage == 0 && n*4 <= hugeRegionSize {
		if b := a.hugeAlloc(n * 4 / maxPage); b != nil {
			return unsafe.Slice((*ref)(unsafe.Pointer(unsafe.SliceData(b))), n)
		}
	}
	return make([]ref, n)
}

// freeBuckets releases bucket array b, off the caller's goroutine, when it
// came from a's huge-page slots (a heap one is the collector's).
func (a *arena) freeBuckets(b []ref) {
	if len(b)*4 < maxPage || a.huge == nil {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	set := a.huge.set
	for i, s := range set.slots {
		if unsafe.Pointer(&s.r.mem[int(s.i)*maxPage]) == p {
			set.slots = append(set.slots[:i], set.slots[i+1:]...)
			go hugePut([]hugeSlot{s})
			return
		}
	}
}

// drop releases the slots of a, whose pages nothing uses any more (its
// table is being discarded), off the caller's goroutine. Caller holds the
// shard lock.
func (a *arena) drop() {
	if a.huge == nil || len(a.huge.set.slots) == 0 {
		return
	}
	slots := a.huge.set.slots
	a.huge.set.slots = nil
	go hugePut(slots)
}

// hugeGet takes k consecutive free slots, mapping a region when no region
// has them.
func hugeGet(k int) (hugeSlot, bool) {
	p := &hugePool
	p.Lock()
	defer p.Unlock()
	if p.off || k < 1 || k > hugeSlots {
		return hugeSlot{}, false
	}
	for _, r := range p.regions {
		if s, ok := r.take(k); ok {
			return s, true
		}
	}
	mem, err := hugeMap(hugeRegionSize)
	if err != nil {
		p.off = true
		return hugeSlot{}, false
	}
	r := &hugeRegion{mem: mem}
	p.regions = append(p.regions, r)
	s, _ := r.take(k)
	return s, true
}

func (r *hugeRegion) isBusy(i int) bool { return r.busy[i/64]&(1<<(i%64)) != 0 }

func (r *hugeRegion) mark(s hugeSlot, busy bool) {
	for i := int(s.i); i < int(s.i+s.k); i++ {
		if busy {
			r.busy[i/64] |= 1 << (i % 64)
		} else {
			r.busy[i/64] &^= 1 << (i % 64)
		}
	}
	if busy {
		r.used += int(s.k)
	} else {
		r.used -= int(s.k)
	}
}

// take finds the first k consecutive free slots of r.
func (r *hugeRegion) take(k int) (hugeSlot, bool) {
	if hugeSlots-r.used < k {
		return hugeSlot{}, false
	}
	run := 0
	for i := range hugeSlots {
		if r.isBusy(i) {
			run = 0
			continue
		}
		if run++; run == k {
			s := hugeSlot{r, uint16(i + 1 - k), uint16(k)}
			r.mark(s, true)
			return s, true
		}
	}
	return hugeSlot{}, false
}

// hugePut zeroes the slots and returns them to their regions, unmapping
// the regions left with none in use.
func hugePut(slots []hugeSlot) {
	for _, s := range slots {
		clear(s.bytes())
	}
	p := &hugePool
	var unmap [][]byte
	p.Lock()
	for _, s := range slots {
		r := s.r
		r.mark(s, false)
		if r.used == 0 {
			for i, x := range p.regions {
				if x == r {
					p.regions = append(p.regions[:i], p.regions[i+1:]...)
					break
				}
			}
			unmap = append(unmap, r.mem)
			r.mem = nil
		}
	}
	p.Unlock()
	for _, m := range unmap {
		hugeUnmap(m)
	}
}
