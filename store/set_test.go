package store

import (
	"slices"
	"strconv"
	"testing"
	"time"
)

func setArgs(prefix string, from, to int) [][]byte {
	var ms [][]byte
	for i := from; i < to; i++ {
		ms = append(ms, []byte(prefix+strconv.Itoa(i)))
	}
	return ms
}

// TestSetMemoryIsReturned: every chunk and bucket array a set takes
// (intsets growing in place, conversions, stored results, SPOP's rebuilt
// set, big sets freed in steps) is given back when the keys go.
func TestSetMemoryIsReturned(t *testing.T) {
	s := New(Options{Shards: 4})
	base := s.UsedMemory()
	s.SAdd(0, []byte("i"), setArgs("", 0, 600), t0)    // a hash table: too many for an intset
	s.SAdd(0, []byte("h"), setArgs("m", 0, 300), t0)   // a hash table from the start
	s.SAdd(0, []byte("small"), setArgs("", 0, 20), t0) // an intset
	s.SAdd(0, []byte("l"), setArgs("", 0, 100), t0)    // an intset growing in place,
	s.SAdd(0, []byte("l"), [][]byte{[]byte("x")}, t0)  // then a listpack
	s.SAdd(0, []byte("l2"), setArgs("m", 0, 100), t0)  // a listpack,
	s.SAdd(0, []byte("l2"), setArgs("n", 0, 40), t0)   // then a hash table
	s.SPopCount(0, []byte("l"), 90, t0, func([]byte) {})
	s.SUnionStore(0, []byte("u"), [][]byte{[]byte("h"), []byte("small")}, t0)
	s.SInterStore(0, []byte("n"), [][]byte{[]byte("i"), []byte("small")}, t0)
	s.SDiffStore(0, []byte("d"), [][]byte{[]byte("i"), []byte("small")}, t0)
	s.SPopCount(0, []byte("i"), 590, t0, func([]byte) {}) // rebuilds i from 10 members
	s.SRem(0, []byte("small"), setArgs("", 0, 10), t0)
	for k, want := range map[string]Encoding{"i": EncListpack, "l": EncListpack, "l2": EncHashtable, "n": EncIntset} {
		if info, _ := s.Object(0, []byte(k), t0); info.Encoding != want {
			t.Errorf("%s: %v, want %v", k, info.Encoding, want)
		}
	}
	if s.UsedMemory() <= base {
		t.Fatalf("UsedMemory %d with sets, %d empty", s.UsedMemory(), base)
	}
	for _, k := range []string{"i", "h", "small", "u", "n", "d", "l", "l2"} {
		if !s.Del(0, []byte(k), t0) {
			t.Errorf("DEL %s: missing", k)
		}
	}
	s.RehashCycle(time.Second) // frees the big tables DEL left to it
	if got := s.UsedMemory(); got != base {
		t.Errorf("UsedMemory after deleting every set = %d, want %d", got, base)
	}
}

// TestSetOpsOnTheSameKey: a key named twice, or as its own destination,
// behaves as in Redis.
func TestSetOpsOnTheSameKey(t *testing.T) {
	s := New(Options{Shards: 4})
	k := []byte("k")
	s.SAdd(0, k, setArgs("", 0, 5), t0)
	if n, _ := s.SInter(0, [][]byte{k, k}, t0, 0, nil); n != 5 {
		t.Errorf("SINTER k k = %d, want 5", n)
	}
	if n, _ := s.SDiffStore(0, []byte("d"), [][]byte{k, k}, t0); n != 0 || s.Exists(0, []byte("d"), t0) {
		t.Errorf("SDIFFSTORE d k k = %d, want 0 and no d", n)
	}
	if n, _ := s.SUnionStore(0, k, [][]byte{k, []byte("missing")}, t0); n != 5 {
		t.Errorf("SUNIONSTORE k k missing = %d, want 5", n)
	}
	if n, _ := s.SInterStore(0, k, [][]byte{k, []byte("missing")}, t0); n != 0 || s.Exists(0, k, t0) {
		t.Errorf("SINTERSTORE k k missing = %d, want 0 and k deleted", n)
	}
}

// TestSetListpackOrderAndConversions: a listpack set keeps insertion
// order through adds, removals and SPOP; an intset turns into a listpack
// of its integers in order, then the new member; the limits convert as
// Redis 7.2's do.
func TestSetListpackOrderAndConversions(t *testing.T) {
	s := New(Options{Shards: 4})
	members := func(k string) []string {
		var got []string
		s.SMembers(0, []byte(k), t0, func(m []byte) { got = append(got, string(m)) })
		return got
	}
	enc := func(k string) Encoding { info, _ := s.Object(0, []byte(k), t0); return info.Encoding }
	bs := func(ms ...string) [][]byte { return bs(ms) }
	s.SAdd(0, []byte("a"), bs("z", "5", "y", "z", "-1"), t0)
	s.SRem(0, []byte("a"), bs("y"), t0)
	s.SAdd(0, []byte("a"), bs("y", "x"), t0)
	if got, want := members("a"), []string{"z", "5", "-1", "y", "x"}; !slices.Equal(got, want) || enc("a") != EncListpack {
		t.Errorf("a = %q %v, want %q listpack", got, enc("a"), want)
	}
	s.SAdd(0, []byte("i"), bs("30", "-2", "7"), t0)
	s.SAdd(0, []byte("i"), bs("q", "1"), t0)
	if got, want := members("i"), []string{"-2", "7", "30", "q", "1"}; !slices.Equal(got, want) || enc("i") != EncListpack {
		t.Errorf("i = %q %v, want %q listpack", got, enc("i"), want)
	}
	var popped []string
	s.SPopCount(0, []byte("i"), 4, t0, func(m []byte) { popped = append(popped, string(m)) })
	if rest := members("i"); len(rest) != 1 || len(popped) != 4 || enc("i") != EncListpack {
		t.Errorf("SPOP 4 of 5 = %q, left %q %v", popped, rest, enc("i"))
	}
	// an intset with a member too long for a listpack becomes a hash table
	s.SAdd(0, []byte("w"), bs("-9223372036854775808"), t0)
	l := DefaultLimits
	l.SetMaxListpackValue = 10
	s.SetLimits(l)
	s.SAdd(0, []byte("w"), bs("a"), t0)
	if enc("w") != EncHashtable {
		t.Errorf("w = %v, want hashtable (its integer is 20 bytes)", enc("w"))
	}
	// SADD of more members than a listpack holds converts it first, and a
	// new set of many members starts as what will hold them all
	s.SetLimits(DefaultLimits)
	s.SAdd(0, []byte("b"), bs("b"), t0)
	s.SAdd(0, []byte("b"), setArgs("", 0, 129), t0)
	s.SAdd(0, []byte("c"), append(setArgs("", 0, 200), []byte("c")), t0)
	s.SAdd(0, []byte("d"), append(setArgs("", 0, 127), []byte("1")), t0)
	// (c: an intset of 200 meeting a string is too big for a listpack)
	for k, want := range map[string]Encoding{"b": EncHashtable, "c": EncHashtable, "d": EncIntset} {
		if enc(k) != want {
			t.Errorf("%s = %v, want %v", k, enc(k), want)
		}
	}
	l.SetMaxListpackValue, l.SetMaxIntsetEntries = 64, 100
	s.SetLimits(l)
	s.SAdd(0, []byte("e"), setArgs("", 0, 101), t0)
	if enc("e") != EncListpack {
		t.Errorf("SADD e of 101 integers past set-max-intset-entries 100 = %v, want listpack", enc("e"))
	}
}
