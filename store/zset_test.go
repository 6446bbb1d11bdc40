package store

import (
	"fmt"
	"math"
	"strconv"
	"testing"
	"time"
)

// bigZSet adds n members to key in one ZADD.
func bigZSet(t *testing.T, s *Store, key string, n int) {
	t.Helper()
	sm := make([][]byte, 0, 2*n)
	for i := 0; i < n; i++ {
		sm = append(sm, []byte(fmt.Sprint(i%97)), []byte(fmt.Sprint("member-", i)))
	}
	if res, st := s.ZAdd(0, []byte(key), 0, sm, t0); st != OK || res.Added != n {
		t.Fatalf("ZADD: %+v %v", res, st)
	}
}

// TestZSetDeleteIsLazyAndFreesEveryByte deletes a big skiplist: DEL
// returns at once leaving the members to RehashCycle's sweep, after which
// the memory accounting is back where it started; ZREM of every member
// of another ends the same way.
func TestZSetDeleteIsLazyAndFreesEveryByte(t *testing.T) {
	s := New(Options{Shards: 1, Databases: 1})
	base := s.UsedMemory()
	bigZSet(t, s, "z", 5000)
	if info, _ := s.Object(0, []byte("z"), t0); info.Encoding != EncSkiplist {
		t.Fatalf("encoding %v, want skiplist", info.Encoding)
	}
	if !s.Del(0, []byte("z"), t0) {
		t.Fatal("DEL: key not found")
	}
	if len(s.shards[0].dbs[0].trash) != 1 {
		t.Fatalf("trash holds %d values after DEL of 5000 members, want 1", len(s.shards[0].dbs[0].trash))
	}
	for len(s.shards[0].dbs[0].trash) > 0 {
		s.RehashCycle(time.Millisecond)
	}
	if got := s.UsedMemory(); got != base {
		t.Fatalf("used memory %d after the sweep, want %d", got, base)
	}
	bigZSet(t, s, "y", 300)
	for i := 0; i < 300; i++ {
		if n, st := s.ZRem(0, []byte("y"), [][]byte{[]byte(fmt.Sprint("member-", i))}, t0); n != 1 || st != OK {
			t.Fatalf("ZREM member-%d: %d %v", i, n, st)
		}
	}
	if s.Exists(0, []byte("y"), t0) {
		t.Fatal("the key outlived its last member")
	}
	if got := s.UsedMemory(); got != base {
		t.Fatalf("used memory %d after removing every member, want %d", got, base)
	}
}

// TestZSetRenameAndMoveKeepSkiplist renames a skiplist within its table
// (the header moves, the members stay) and moves it to another database
// (a copy into another arena), checking the invariants after each.
func TestZSetRenameAndMoveKeepSkiplist(t *testing.T) {
	s := New(Options{Shards: 4, Databases: 2})
	bigZSet(t, s, "z", 400)
	want := zsetCheck(t, s, "z")
	if st := s.Rename(0, []byte("z"), []byte("z2"), t0, false); st != OK {
		t.Fatal(st)
	}
	if got := zsetCheck(t, s, "z2"); !sameEntries(got, want) {
		t.Fatal("RENAME changed the members")
	}
	if st := s.Move(0, 1, []byte("z2"), t0); st != OK {
		t.Fatal(st)
	}
	k := s.acquire(1, []byte("z2"), t0, false)
	n := k.zlen()
	k.release()
	if n != 400 {
		t.Fatalf("moved zset has %d members", n)
	}
}

// TestAppendScoreIntegersMatchG17 checks AppendScore's integer fast path
// against "%.17g" (strconv's 'g' with 17 digits) around its edges.
func TestAppendScoreIntegersMatchG17(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 150, 1e15, 1e16, 99999999999999984, 1e17, -1e17, 123456789012345678, 4503599627370496, -4503599627370495} {
		want := strconv.FormatFloat(f, 'g', 17, 64)
		if got := string(AppendScore(nil, f)); got != want {
			t.Errorf("AppendScore(%v) = %q, want %q", f, got, want)
		}
	}
	if got := string(AppendScore(nil, math.Copysign(0, -1))); got != "-0" {
		t.Errorf("AppendScore(-0) = %q, want -0", got)
	}
}
