package server

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// usageOf runs MEMORY USAGE key [SAMPLES n] and returns its integer, -1
// for a null.
func usageOf(t *testing.T, o *ourServer, args ...string) int64 {
	t.Helper()
	out := string(o.do(t, append([]string{"MEMORY", "USAGE"}, args...)))
	if out == "$-1\r\n" {
		return -1
	}
	if out[0] != ':' {
		t.Fatalf("MEMORY USAGE %v: %q", args, out)
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(out[1:]), 10, 64)
	return n
}

// TestMemoryUsageGrowsWithTheValue checks MEMORY USAGE's estimate in every
// encoding: positive, larger than the key and value bytes it holds,
// growing as the value grows and as it changes to a bigger encoding, the
// same with SAMPLES 0 for entries of one size, nil for a missing or
// expired key.
func TestMemoryUsageGrowsWithTheValue(t *testing.T) {
	o := newOurServer()
	if n := usageOf(t, o, "missing"); n != -1 {
		t.Fatalf("missing key: %d, want null", n)
	}
	grow := func(name string, add func(i int) []string, steps int, minPer int64) {
		t.Helper()
		first, last, lastEnc := int64(0), int64(0), ""
		for i := 0; i < steps; i++ {
			o.do(t, add(i))
			n := usageOf(t, o, name, "SAMPLES", "0") // every entry: sampling moves the estimate both ways
			enc := string(o.do(t, []string{"OBJECT", "ENCODING", name}))
			// chunks are reserved ahead (APPEND, listpacks) and a rehash
			// frees the old bucket array: a little less is fine, much
			// less only where the encoding changed and the slack went
			if n < last*9/10 && enc == lastEnc {
				t.Fatalf("%s after %d additions: %d, below %d before", name, i+1, n, last)
			}
			if n < int64(len(name))+minPer*int64(i+1) {
				t.Fatalf("%s after %d additions: %d bytes, below what it holds", name, i+1, n)
			}
			if i == 0 {
				first = n
			}
			last, lastEnc = n, enc
		}
		if last < 4*first {
			t.Fatalf("%s: %d bytes after %d additions, %d after one", name, last, steps, first)
		}
	}
	val := func(i int) string { return "value-" + strconv.Itoa(i) + strings.Repeat("x", 20) }
	o.do(t, []string{"SET", "s", "1"})
	if n := usageOf(t, o, "s"); n <= 1 {
		t.Fatalf("int string: %d", n)
	}
	grow("s", func(i int) []string { return []string{"APPEND", "s", strings.Repeat("y", 100)} }, 400, 100)   // past 32 KiB: a chunk of its own
	grow("l", func(i int) []string { return []string{"RPUSH", "l", val(i)} }, 2000, 20)                      // many quicklist nodes
	grow("h", func(i int) []string { return []string{"HSET", "h", "f" + strconv.Itoa(i), val(i)} }, 600, 20) // listpack, then hashtable
	grow("st", func(i int) []string { return []string{"SADD", "st", strconv.Itoa(i)} }, 1000, 1)             // intset, then hashtable
	grow("z", func(i int) []string { return []string{"ZADD", "z", strconv.Itoa(i), val(i)} }, 600, 20)       // listpack, then skiplist
	for _, k := range []string{"l", "h", "st", "z"} {
		all, def := usageOf(t, o, k, "SAMPLES", "0"), usageOf(t, o, k)
		if all <= 0 || def < all*9/10 || def > all*11/10 {
			t.Errorf("%s: SAMPLES 0 gives %d, the default %d: entries of one size should agree", k, all, def)
		}
	}
	// an expired key that a read has deleted measures nothing (one not yet
	// deleted is measured, as Redis does:
	// TestMemoryUsageMeasuresAnExpiredKeyNotYetDeleted)
	o.do(t, []string{"PEXPIRE", "h", "1"})
	time.Sleep(5 * time.Millisecond)
	o.do(t, []string{"EXISTS", "h"})
	if n := usageOf(t, o, "h"); n != -1 {
		t.Errorf("expired key after a read: %d, want null", n)
	}
}
