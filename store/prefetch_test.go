package store

import (
	"fmt"
	"hash/crc32"
	"sync"
	"testing"
	"time"
)

// tableState sums up everything a lookup could change in db of s: the
// shards' counters, each table's dict state and every byte of its arena
// pages and bucket arrays.
func tableState(s *Store, db int) string {
	c := crc32.NewIEEE()
	var st []any
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		t := &sh.dbs[db]
		st = append(st, sh.hits, sh.misses, sh.expired, t.keys.count, t.keys.rehash, len(t.expires), t.acct.used)
		for _, p := range t.a.pages {
			c.Write(p)
		}
		for _, tb := range t.keys.tab {
			for _, r := range tb {
				c.Write([]byte{byte(r), byte(r >> 8), byte(r >> 16), byte(r >> 24)})
			}
		}
		sh.mu.Unlock()
	}
	return fmt.Sprint(st, c.Sum32())
}

// Prefetch reads and changes nothing a command can see: no hit or miss,
// LRU clock, expiry, rehash step or byte of any table, whatever the keys
// (present, missing, expired, of any type, in a table mid-rehash, more of
// them than PrefetchMax) and whatever the database number.
func TestPrefetchChangesNothing(t *testing.T) {
	s := New(Options{Shards: 4})
	const now = t0 + 10_000
	var keys [][]byte
	for i := range 3000 {
		k := []byte(fmt.Sprintf("pf:%d", i))
		keys = append(keys, k)
		switch i % 4 {
		case 0:
			s.Set(0, k, []byte("v"), t0, SetOptions{})
		case 1:
			s.Set(0, k, []byte("dead"), t0, SetOptions{ExpireAt: t0 + 1}) // expired at now
		case 2:
			s.HSet(0, k, [][]byte{[]byte("f"), []byte("v")}, t0)
		}
	}
	rehashing := false
	for i := range s.shards {
		rehashing = rehashing || s.shards[i].dbs[0].keys.rehashing()
	}
	if !rehashing {
		t.Fatal("no table is mid-rehash: the test does not cover it")
	}
	before := tableState(s, 0)
	for i := 0; i < len(keys); i += 7 {
		s.Prefetch(0, keys[i:min(i+40, len(keys))])
	}
	s.Prefetch(1, keys[:5])
	s.Prefetch(-1, keys[:5])
	s.Prefetch(s.Databases(), keys[:5])
	s.Prefetch(0, nil)
	s.Prefetch(0, [][]byte{{}, nil})
	if after := tableState(s, 0); after != before {
		t.Fatalf("Prefetch changed the store:\nbefore %s\nafter  %s", before, after)
	}
	if n := s.DBSize(0); n != 2250 {
		t.Fatalf("DBSize = %d after the prefetches, want 2250 (expired keys not deleted)", n)
	}
	if info, ok := s.Object(0, keys[0], now); !ok || info.Idle != 10_000 {
		t.Fatalf("Object(%s) = %+v, %v: want idle 10000 ms (no LRU stamp)", keys[0], info, ok)
	}
}

// Prefetch runs concurrently with writes, deletes, rehashes and flushes of
// tables whose arena pages and bucket arrays are huge-page slots that a
// flush or a finished rehash releases and may unmap: under the shard
// locks it only reads memory its table still holds (run with -race).
func TestPrefetchConcurrentWithReleases(t *testing.T) {
	s := New(Options{Shards: 1}) // one shard: its bucket array reaches a huge-page slot
	const n = 70_000             // past 65,536 buckets
	key := func(i int) []byte { return []byte(fmt.Sprintf("k:%d", i)) }
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ks [PrefetchMax][]byte
		for j := 0; ; j++ {
			select {
			case <-stop:
				return
			default:
			}
			for i := range ks {
				ks[i] = fmt.Appendf(ks[i][:0], "k:%d", (j*PrefetchMax+i*7919)%n)
			}
			s.Prefetch(0, ks[:])
		}
	}()
	val := make([]byte, 16)
	for gen := range 2 {
		for i := range n {
			s.Set(0, key(i), val, t0, SetOptions{})
			if i%5 == 0 {
				s.Del(0, key(i/2), t0)
			}
		}
		if gen == 0 {
			if a := &s.shards[0].dbs[0].a; a.huge == nil && hugeSupported && !hugePool.off {
				t.Fatal("no huge-page slot in use: the test does not cover releases")
			}
		}
		s.RehashCycle(10 * time.Millisecond)
		s.FlushDB(0)
	}
	close(stop)
	wg.Wait()
}
