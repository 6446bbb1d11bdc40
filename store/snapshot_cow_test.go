package store

import (
	"errors"
	"strconv"
	"testing"
	"time"
)

// growing fills db of s with at least 3000 keys, then until some table is
// rehashing, so that a snapshot starts in the middle of an incremental
// rehash.
func growing(t *testing.T, s *Store, db, from int) int {
	t.Helper()
	for i := from; ; i++ {
		s.Set(db, []byte("g"+strconv.Itoa(i)), []byte(strconv.Itoa(i)), t0, SetOptions{})
		for j := range s.shards {
			if i-from >= 3000 && s.shards[j].dbs[db].keys.rehashing() {
				return i + 1
			}
		}
		if i > from+1<<16 {
			t.Fatal("no table started a rehash")
		}
	}
}

// TestSnapshotWalkMeetsEveryWrite: the walk's callback runs with no lock
// held, so it may itself write to the store; writes between the walk's
// batches (to big aggregates, deletions that shrink tables, creations that
// grow them, a table rehashing when the snapshot started, rehash and
// lazy-free cycles, active expiry and eviction) leave the image as it was
// at the instant, and once the walk is done every table is back to the
// invariant with no walk.
func TestSnapshotWalkMeetsEveryWrite(t *testing.T) {
	s := New(Options{Shards: 2, Databases: 4})
	fillEveryEncoding(s, t0, 0, 1)
	n := growing(t, s, 0, 0)
	n = growing(t, s, 2, n)
	v := s.Lock(nil, true)
	want := liveDump(v)
	sn := v.SnapshotAt(t0)
	v.Unlock()
	defer sn.Close()
	b := func(s string) []byte { return []byte(s) }
	calls := 0
	got := snapDump(t, sn, func() {
		calls++
		now := t0 + int64(calls)
		i := strconv.Itoa(calls)
		switch calls % 13 {
		case 0:
			s.HSet(0, b("h:ht"), [][]byte{b("field1"), b("changed" + i), b("new" + i), b("x")}, now)
		case 1:
			s.ZAdd(1, b("z:sl"), 0, [][]byte{b("99"), b("member3"), b("1"), b("znew" + i)}, now)
		case 2:
			s.LPush(0, b("l:big"), ListHead, [][]byte{b("pushed" + i)}, false, now)
			s.LPop(1, b("l:big"), ListHead, 3, now, nil, func(dst []byte, n int) []byte { return dst }, rawEnc)
		case 3:
			s.SRem(0, b("s:ht"), [][]byte{b("m" + i), b("m1")}, now)
		case 4:
			s.Del(0, b("g"+strconv.Itoa(calls*7%n)), now)
			s.Del(2, b("g"+strconv.Itoa(calls*11%n)), now)
		case 5:
			for j := 0; j < 20; j++ { // grows tables (and starts rehashes) mid-walk
				s.Set(2, b("new"+i+"-"+strconv.Itoa(j)), b("v"), now, SetOptions{})
			}
		case 6:
			s.Rename(0, b("g"+strconv.Itoa(calls%n)), b("renamed"+i), now, false)
		case 7:
			s.Expire(0, b("g"+strconv.Itoa(calls*3%n)), now, now+1, 0)
			s.ActiveExpireCycle(now+10, time.Millisecond)
		case 8:
			s.RehashCycle(time.Millisecond)
		case 9:
			s.Evict(now, EvictOptions{MaxMemory: s.UsedMemory() - 2000, Policy: AllKeysRandom})
		case 10:
			s.Set(2, b("g"+strconv.Itoa(calls*5%n)), b("overwritten"), now, SetOptions{})
			s.Del(1, b("h:ht"), now) // a big value: lazily freed
		case 11:
			s.Move(0, 3, b("g"+strconv.Itoa(calls*13%n)), now)
			s.Copy(2, b("g"+strconv.Itoa(calls*17%n)), 3, b("copied"+i), now, true)
		case 12:
			s.HSet(1, b("h:ht"), [][]byte{b("again" + i), b("1")}, now)
		}
	})
	diffDumps(t, "snapshot", got, want)
	if sn.HeldBytes() != 0 {
		t.Errorf("held %d after the walk", sn.HeldBytes())
	}
	checkNoWalk(t, s)
}

// TestSnapshotAbortedWalk: a walk stopped by its callback's error, then
// closed, leaves no walk and every record saved; writes meanwhile keep
// working, and the next snapshot shows the keyspace at its own instant.
func TestSnapshotAbortedWalk(t *testing.T) {
	s := New(Options{Shards: 2})
	fillEveryEncoding(s, t0)
	growing(t, s, 0, 0)
	sn := s.SnapshotAt(t0)
	stop := errors.New("disk full")
	seen := 0
	err := sn.Each(func(int, *Value) error {
		if seen++; seen == 300 {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Fatalf("Each = %v", err)
	}
	s.Set(0, []byte("g1"), []byte("after"), t0, SetOptions{})
	s.HSet(0, []byte("h:ht"), [][]byte{[]byte("f"), []byte("v")}, t0)
	sn.Close()
	if sn.HeldBytes() != 0 {
		t.Errorf("held %d after Close", sn.HeldBytes())
	}
	checkNoWalk(t, s)
	// closed before any walk
	sn = s.SnapshotAt(t0)
	s.Set(0, []byte("g2"), []byte("x"), t0, SetOptions{})
	sn.Close()
	checkNoWalk(t, s)
	v := s.Lock(nil, true)
	want := liveDump(v)
	v.Unlock()
	sn = s.SnapshotAt(t0)
	defer sn.Close()
	s.Set(0, []byte("g1"), []byte("later"), t0, SetOptions{})
	diffDumps(t, "next snapshot", snapDump(t, sn, nil), want)
	checkNoWalk(t, s)
}

// TestSnapshotOverlapping: a snapshot taken while an earlier one is half
// walked gets the earlier one's rest copied first (one walk per table);
// both show their own instant.
func TestSnapshotOverlapping(t *testing.T) {
	s := New(Options{Shards: 2})
	fillEveryEncoding(s, t0)
	growing(t, s, 0, 0)
	v := s.Lock(nil, true)
	wantA := liveDump(v)
	a := v.SnapshotAt(t0)
	v.Unlock()
	defer a.Close()
	var wantB map[string]string
	var b *Snapshot
	calls := 0
	gotA := snapDump(t, a, func() {
		calls++
		switch calls {
		case 100:
			s.Set(0, []byte("g3"), []byte("between"), t0, SetOptions{})
			s.Del(0, []byte("g4"), t0)
			v := s.Lock(nil, true)
			wantB = liveDump(v)
			b = v.SnapshotAt(t0)
			v.Unlock()
		case 200:
			s.Set(0, []byte("g3"), []byte("after b"), t0, SetOptions{})
			s.HSet(0, []byte("h:ht"), [][]byte{[]byte("field2"), []byte("after b")}, t0)
		}
	})
	diffDumps(t, "first snapshot", gotA, wantA)
	if b == nil {
		t.Fatal("walk too short")
	}
	defer b.Close()
	diffDumps(t, "second snapshot", snapDump(t, b, nil), wantB)
	if a.HeldBytes() != 0 || b.HeldBytes() != 0 {
		t.Errorf("held %d, %d after the walks", a.HeldBytes(), b.HeldBytes())
	}
	checkNoWalk(t, s)
}
