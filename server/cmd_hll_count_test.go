package server

import (
	"bytes"
	"strconv"
	"testing"
)

// The same elements go to redis-server and to our in-process server; the
// estimates, and the values' bytes, must agree at every step: one element
// at a time to 300 (the sparse range and its small-cardinality corrections),
// then in batches to 200,000 (through the promotion to dense and the
// estimator's middle and large range).
func TestPFCountMatchesRedisUpTo200k(t *testing.T) {
	ref := startDiffRedis(t)
	ours := newOurServer()
	both := func(args []string) {
		t.Helper()
		want := ref.do(t, args)
		if got := ours.do(t, args); !bytes.Equal(got, want) {
			t.Fatalf("%s %s (%d args): got %.200q, want %.200q", args[0], args[1], len(args), got, want)
		}
	}
	next := 0
	add := func(key string, n int) {
		args := []string{"PFADD", key}
		for i := 0; i < n; i++ {
			args = append(args, "el:"+strconv.Itoa(next))
			next++
		}
		both(args)
	}
	for next < 300 {
		add("h", 1)
		both([]string{"GET", "h"})
		both([]string{"PFCOUNT", "h"})
	}
	for batch := 7; next < 200000; batch = min(batch*2, 2503) {
		add("h", batch)
		both([]string{"PFCOUNT", "h"})
		both([]string{"GET", "h"})
		if next%3 == 0 { // a second key in the count, and a merge of both
			add("g", 11)
			both([]string{"PFCOUNT", "h", "g"})
			both([]string{"PFMERGE", "m", "g", "h"})
			both([]string{"PFCOUNT", "m"})
		}
	}
	both([]string{"GET", "m"})
	both([]string{"GET", "g"})
}

// DUMP payloads of HyperLogLogs move from redis-server to loopkv and
// back: the values arrive intact (the same bytes, the same counts), and
// loopkv goes on editing them as redis-server does.
func TestHLLDumpRestoreWithRedis(t *testing.T) {
	ref := startDiffRedis(t)
	ours := newOurServer()
	var elems = func(prefix string, n int) []string {
		args := []string{"PFADD", prefix}
		for i := 0; i < n; i++ {
			args = append(args, prefix+strconv.Itoa(i))
		}
		return args
	}
	keys := map[string]int{"empty": 0, "small": 5, "sparse": 400, "dense": 5000}
	for k, n := range keys {
		ref.do(t, elems(k, n))
	}
	ref.do(t, []string{"PFCOUNT", "sparse"}) // a valid cached cardinality travels too
	for k := range keys {
		payload := bulkValue(t, string(ref.do(t, []string{"DUMP", k})))
		if r := ours.do(t, []string{"RESTORE", k, "0", payload}); string(r) != "+OK\r\n" {
			t.Fatalf("RESTORE %s into loopkv: %q", k, r)
		}
		for _, args := range [][]string{{"GET", k}, {"PFCOUNT", k}, {"GET", k}, {"PFADD", k, "x", "y", "z"},
			{"GET", k}, {"PFDEBUG", "ENCODING", k}} {
			want := ref.do(t, args)
			if got := ours.do(t, args); !bytes.Equal(got, want) {
				t.Errorf("after RESTORE of %s: %q: got %.120q, want %.120q", k, args, got, want)
			}
		}
		// and back: loopkv's payload restores in redis-server as the same value
		payload = bulkValue(t, string(ours.do(t, []string{"DUMP", k})))
		if r := ref.do(t, []string{"RESTORE", k + ":back", "0", payload}); string(r) != "+OK\r\n" {
			t.Fatalf("RESTORE %s into redis-server: %q", k, r)
		}
		if got, want := ref.do(t, []string{"GET", k + ":back"}), ref.do(t, []string{"GET", k}); !bytes.Equal(got, want) {
			t.Errorf("%s back in redis-server: got %.120q, want %.120q", k, got, want)
		}
		if r := ref.do(t, []string{"PFCOUNT", k + ":back"}); !bytes.Equal(r, ours.do(t, []string{"PFCOUNT", k})) {
			t.Errorf("%s: PFCOUNT in redis-server of loopkv's payload %q", k, r)
		}
	}
}

// Sparse values edited at length: with hll-sparse-max-bytes raised, many
// keys take random elements one PFADD at a time and merge into each other
// while sparse, so every split and join of the opcodes (and, at the end,
// the promotion of long sparse values) is compared byte for byte.
func TestHLLSparseEditsMatchRedisByteForByte(t *testing.T) {
	ref := startDiffRedis(t)
	ours := newOurServer()
	both := func(args ...string) {
		t.Helper()
		want := ref.do(t, args)
		if got := ours.do(t, args); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %.300q, want %.300q", args, got, want)
		}
	}
	for _, limit := range []string{"12000", "300", "3000"} {
		both("FLUSHALL")
		if r := ref.do(t, []string{"CONFIG", "SET", "hll-sparse-max-bytes", limit}); string(r) != "+OK\r\n" {
			t.Fatal(string(r))
		}
		both("CONFIG", "SET", "hll-sparse-max-bytes", limit)
		seed := uint32(7)
		rnd := func(n int) int {
			seed = seed*1664525 + 1013904223
			return int(seed>>8) % n
		}
		keys := []string{"a", "b", "c", "d"}
		steps := 1500
		if raceEnabled { // make test's run: a third of the edits, the same paths
			steps = 500
		}
		for i := 0; i < steps; i++ {
			k := keys[rnd(len(keys))]
			switch rnd(10) {
			case 0:
				both("PFMERGE", k, keys[rnd(len(keys))], keys[rnd(len(keys))])
			case 1:
				both("PFCOUNT", k)
			default:
				args := []string{"PFADD", k}
				for j := rnd(4); j >= 0; j-- {
					args = append(args, strconv.Itoa(rnd(1<<30)))
				}
				both(args...)
			}
			both("GET", k)
		}
		for _, k := range keys {
			both("PFDEBUG", "ENCODING", k)
			both("PFCOUNT", k)
		}
		both("PFCOUNT", "a", "b", "c", "d")
	}
	both("SET", "x", "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff")
	both("OBJECT", "ENCODING", "x")
	both("PFCOUNT", "x")
	both("OBJECT", "ENCODING", "x")
	both("GET", "x")
}
