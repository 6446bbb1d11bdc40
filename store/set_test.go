package store

import (
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
	s.SAdd(0, []byte("i"), setArgs("", 0, 600), t0)    // an intset, then a hash table
	s.SAdd(0, []byte("h"), setArgs("m", 0, 300), t0)   // a hash table from the start
	s.SAdd(0, []byte("small"), setArgs("", 0, 20), t0) // an intset
	s.SUnionStore(0, []byte("u"), [][]byte{[]byte("h"), []byte("small")}, t0)
	s.SInterStore(0, []byte("n"), [][]byte{[]byte("i"), []byte("small")}, t0)
	s.SDiffStore(0, []byte("d"), [][]byte{[]byte("i"), []byte("small")}, t0)
	s.SPopCount(0, []byte("i"), 590, t0, func([]byte) {}) // rebuilds i from 10 members
	s.SRem(0, []byte("small"), setArgs("", 0, 10), t0)
	if info, _ := s.Object(0, []byte("i"), t0); info.Encoding != EncIntset {
		t.Errorf("i after SPOP 590 of 600: %v, want intset", info.Encoding)
	}
	if s.UsedMemory() <= base {
		t.Fatalf("UsedMemory %d with sets, %d empty", s.UsedMemory(), base)
	}
	for _, k := range []string{"i", "h", "small", "u", "n", "d"} {
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
