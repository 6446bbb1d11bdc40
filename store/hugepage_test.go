package store

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"
)

// hugeVal is key i's value in the huge-page tests: 1000 bytes that differ
// per key and per generation.
func hugeVal(gen, i int) []byte {
	return bytes.Repeat([]byte(fmt.Sprintf("%d:%07d|", gen, i)), 100)
}

// hugeFill writes n keys of 1000 bytes into db 0 of s, enough to fill
// several full-size pages of a one-shard store.
func hugeFill(s *Store, gen, n int) {
	for i := range n {
		s.Set(0, []byte(fmt.Sprintf("k:%d", i)), hugeVal(gen, i), t0, SetOptions{})
	}
}

// hugeSlotsOf returns a copy of the slots db 0 of a one-shard store holds.
func hugeSlotsOf(t *testing.T, s *Store) []hugeSlot {
	t.Helper()
	a := &s.shards[0].dbs[0].a
	if a.huge == nil || len(a.huge.set.slots) == 0 {
		t.Fatalf("no arena page came from a huge-page region (%d pages)", len(a.pages))
	}
	for _, sl := range a.huge.set.slots {
		b := sl.bytes()
		if !slices.ContainsFunc(a.pages, func(p []byte) bool { return len(p) > 0 && &p[0] == &b[0] }) {
			t.Fatal("a huge-page slot the arena holds is none of its pages")
		}
	}
	return slices.Clone(a.huge.set.slots)
}

// hugeReleased reports whether every slot is back in its region (or its
// region unmapped).
func hugeReleased(slots []hugeSlot) bool {
	hugePool.Lock()
	defer hugePool.Unlock()
	for _, s := range slots {
		if s.r.mem == nil {
			continue
		}
		for i := s.i; i < s.i+s.k; i++ {
			if s.r.isBusy(int(i)) {
				return false
			}
		}
	}
	return true
}

// waitReleased waits until the slots are released, running collections so
// that cleanups run; it fails after a generous bound.
func waitReleased(t *testing.T, slots []hugeSlot) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !hugeReleased(slots); {
		if time.Now().After(deadline) {
			t.Fatal("huge-page slots of a discarded arena were never released")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

// Full-size arena pages come from huge-page regions; FLUSHDB gives them
// back, a snapshot taken before the flush still reads the old values while
// new writes reuse the slots, and values written after it read back.
func TestHugePagesFlushAndSnapshot(t *testing.T) {
	if !hugeSupported {
		t.Skip("no huge-page regions on this system")
	}
	const n = 3000
	s := New(Options{Shards: 1, Databases: 2})
	hugeFill(s, 1, n)
	slots := hugeSlotsOf(t, s)
	sn := s.Snapshot()
	defer sn.Close()
	s.FlushDB(0)
	waitReleased(t, slots)
	hugeFill(s, 2, n) // reuses the released (zeroed) slots
	for i := range n {
		got, st := s.Get(0, []byte(fmt.Sprintf("k:%d", i)), t0, nil, rawEnc)
		if st != OK || !bytes.Equal(got, hugeVal(2, i)) {
			t.Fatalf("after the flush and refill, k:%d = %.20q (%v)", i, got, st)
		}
	}
	seen := 0
	err := sn.Each(func(db int, v *Value) error {
		var i int
		if _, err := fmt.Sscanf(string(v.Key), "k:%d", &i); err != nil {
			return err
		}
		if !bytes.Equal(v.Raw, hugeVal(1, i)) {
			return fmt.Errorf("snapshot %s = %.20q, want generation 1", v.Key, v.Raw)
		}
		seen++
		return nil
	})
	if err != nil || seen != n {
		t.Fatalf("snapshot walk: %d keys, %v; want %d", seen, err, n)
	}
}

// A Store dropped whole (no flush) gives its huge-page slots back through
// the arena's cleanup, and a region with none in use is unmapped.
func TestHugePagesOfADroppedStoreAreReleased(t *testing.T) {
	if !hugeSupported {
		t.Skip("no huge-page regions on this system")
	}
	s := New(Options{Shards: 1, Databases: 1})
	hugeFill(s, 1, 3000)
	slots := hugeSlotsOf(t, s)
	s = nil
	waitReleased(t, slots)
	hugePool.Lock()
	defer hugePool.Unlock()
	for _, r := range hugePool.regions {
		if r.used == 0 {
			t.Fatal("a region with no slot in use is still mapped")
		}
	}
}

// Slots are handed out once each until released; a run of k takes the
// first k consecutive free ones, and released slots are reused first.
func TestHugeRegionSlots(t *testing.T) {
	r := &hugeRegion{mem: make([]byte, hugeRegionSize)}
	seen := map[uint16]bool{}
	for range hugeSlots {
		s, ok := r.take(1)
		if !ok || seen[s.i] {
			t.Fatalf("take: slot %d ok=%v (seen %v)", s.i, ok, seen[s.i])
		}
		seen[s.i] = true
	}
	if _, ok := r.take(1); ok {
		t.Fatal("take succeeded on a full region")
	}
	r.mark(hugeSlot{r, 7, 1}, false)
	if _, ok := r.take(2); ok {
		t.Fatal("a run of 2 taken where one slot is free")
	}
	r.mark(hugeSlot{r, 9, 3}, false)
	r.mark(hugeSlot{r, 20, 4}, false)
	if s, ok := r.take(4); !ok || s.i != 20 || s.k != 4 || len(s.bytes()) != 4*maxPage || cap(s.bytes()) != 4*maxPage {
		t.Fatalf("take(4): slot %d+%d ok=%v len %d", s.i, s.k, ok, len(s.bytes()))
	}
	if s, ok := r.take(1); !ok || s.i != 7 || r.used != hugeSlots-3 {
		t.Fatalf("take(1) after releases: slot %d ok=%v used %d", s.i, ok, r.used)
	}
}

// A key dict's bucket arrays of a slot or more come from huge-page slots:
// growing releases the array it rehashed out of, and deleting the last key
// releases the last one.
func TestHugeBucketArrays(t *testing.T) {
	if !hugeSupported {
		t.Skip("no huge-page regions on this system")
	}
	const n = 140_000 // grows through 65,536 and 131,072 buckets to 262,144
	s := New(Options{Shards: 1, Databases: 1})
	tb := &s.shards[0].dbs[0]
	inSlot := func(b []ref) (hugeSlot, bool) {
		if tb.a.huge == nil {
			return hugeSlot{}, false
		}
		for _, sl := range tb.a.huge.set.slots {
			if len(b) > 0 && unsafe.Pointer(&sl.bytes()[0]) == unsafe.Pointer(&b[0]) {
				return sl, true
			}
		}
		return hugeSlot{}, false
	}
	var arrays []hugeSlot // every array the dict had from a slot
	key := func(i int) []byte { return []byte(fmt.Sprintf("key:%d", i)) }
	for i := range n {
		s.Set(0, key(i), []byte("v"), t0, SetOptions{})
		for _, b := range tb.keys.tab {
			if sl, ok := inSlot(b); ok && !slices.Contains(arrays, sl) {
				arrays = append(arrays, sl)
			}
		}
	}
	for tb.keys.rehashing() {
		s.RehashCycle(10 * time.Millisecond)
	}
	if len(arrays) != 3 || len(tb.keys.tab[0]) != 262144 {
		t.Fatalf("%d bucket arrays from huge-page slots, %d buckets now; want 3 (65,536, 131,072, 262,144 buckets)", len(arrays), len(tb.keys.tab[0]))
	}
	// slots the arena holds for arrays: all it holds but its pages'
	arraySlots := func() int {
		n := 0
		for _, sl := range tb.a.huge.set.slots {
			n += int(sl.k)
			b := sl.bytes()
			if slices.ContainsFunc(tb.a.pages, func(p []byte) bool { return len(p) > 0 && &p[0] == &b[0] }) {
				n--
			}
		}
		return n
	}
	if last, ok := inSlot(tb.keys.tab[0]); !ok || last.k != 4 || arraySlots() != 4 {
		t.Fatalf("the 262,144-bucket array: in a slot %v, a run of %d; the arena holds %d array slots, want 4", ok, last.k, arraySlots())
	}
	for i := 0; i < n; i += 7 {
		if got, st := s.Get(0, key(i), t0, nil, rawEnc); st != OK || string(got) != "v" {
			t.Fatalf("GET %s = %q, %v", key(i), got, st)
		}
	}
	for i := range n {
		s.Del(0, key(i), t0)
	}
	if len(tb.keys.tab[0]) != 0 || arraySlots() != 0 {
		t.Fatalf("%d buckets and %d array slots left with no key", len(tb.keys.tab[0]), arraySlots())
	}
	held := slices.Clone(tb.a.huge.set.slots)
	s.FlushDB(0)
	waitReleased(t, held)
}
