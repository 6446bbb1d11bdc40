package store

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

type journaled struct {
	db      int
	key     string
	evicted bool
}

func journalOf(j *Journal) []journaled {
	var got []journaled
	j.Each(func(db int, key []byte, evicted bool) {
		got = append(got, journaled{db, string(key), evicted})
	})
	return got
}

// TestJournalLazyExpiry: lookups that find a key past its TTL record it,
// in order, in the view's journal, and the plain store records nothing.
func TestJournalLazyExpiry(t *testing.T) {
	s := New(Options{})
	const t0 = 1_000_000
	s.Set(0, []byte("a"), []byte("1"), t0, SetOptions{ExpireAt: t0 + 10})
	s.Set(3, []byte("b"), []byte("1"), t0, SetOptions{ExpireAt: t0 + 10})
	s.Set(0, []byte("c"), []byte("1"), t0, SetOptions{ExpireAt: t0 + 10})
	s.Set(0, []byte("live"), []byte("1"), t0, SetOptions{})
	var j Journal
	v := s.WithJournal(&j)
	later := int64(t0 + 20)
	if v.Exists(3, []byte("b"), later) || v.Exists(0, []byte("a"), later) {
		t.Fatal("expired keys exist")
	}
	if !v.Exists(0, []byte("live"), later) {
		t.Fatal("live key gone")
	}
	s.Exists(0, []byte("c"), later) // not journaled: the plain store
	want := []journaled{{3, "b", false}, {0, "a", false}}
	if got := journalOf(&j); !slices.Equal(got, want) {
		t.Fatalf("journal %v, want %v", got, want)
	}
	if db, key, kind := j.Entry(1); db != 0 || string(key) != "a" || kind != JournalExpired {
		t.Fatalf("Entry(1) = %d %q %v", db, key, kind)
	}
	j.Reset()
	if j.Len() != 0 {
		t.Fatalf("Len after Reset = %d", j.Len())
	}
}

// TestJournalLockView: a Lock view of a journaled view records into the
// same journal, and an unjournaled Lock view into none.
func TestJournalLockView(t *testing.T) {
	s := New(Options{})
	const t0 = 1_000_000
	keys := [][]byte{[]byte("x"), []byte("y")}
	for _, k := range keys {
		s.Set(0, k, []byte("1"), t0, SetOptions{ExpireAt: t0 + 1})
	}
	var j Journal
	lv := s.WithJournal(&j).Lock(keys, false)
	if n := lv.DelKeys(0, keys, t0+5); n != 0 {
		t.Fatalf("DelKeys deleted %d expired keys", n)
	}
	lv.Unlock()
	want := []journaled{{0, "x", false}, {0, "y", false}}
	if got := journalOf(&j); !slices.Equal(got, want) {
		t.Fatalf("journal %v, want %v", got, want)
	}
}

// TestJournalActiveExpiryAndEviction: ActiveExpireCycle and Evict record
// every key they delete, and the counters agree with the journal.
func TestJournalActiveExpiryAndEviction(t *testing.T) {
	s := New(Options{Shards: 4})
	const t0 = 1_000_000
	for i := range 100 {
		s.Set(i%3, fmt.Appendf(nil, "e%d", i), []byte("v"), t0, SetOptions{ExpireAt: t0 + 1})
	}
	for i := range 200 {
		s.Set(0, fmt.Appendf(nil, "k%d", i), []byte("value"), t0, SetOptions{})
	}
	var j Journal
	v := s.WithJournal(&j)
	v.ActiveExpireCycle(t0+10, time.Minute)
	got := journalOf(&j)
	if st := s.Stats(); int(st.ExpiredKeys) != len(got) || len(got) != 100 {
		t.Fatalf("journal has %d keys, expired_keys %d, want 100", len(got), st.ExpiredKeys)
	}
	for _, e := range got {
		if e.evicted || e.key[0] != 'e' {
			t.Fatalf("bad entry %v", e)
		}
	}
	j.Reset()
	n, st := v.Evict(t0+10, EvictOptions{MaxMemory: s.UsedMemory() / 2, Policy: AllKeysRandom, Budget: time.Minute})
	if st != OK || n == 0 || j.Len() != n {
		t.Fatalf("Evict = %d, %v; journal has %d", n, st, j.Len())
	}
	j.Each(func(db int, key []byte, evicted bool) {
		if !evicted || db != 0 || s.Exists(0, key, t0+10) {
			t.Fatalf("bad eviction entry %d %q %v", db, key, evicted)
		}
	})
}

// TestJournalNoAllocs: recording and resetting reuse the buffers: an
// expiry through a journaled view allocates no more than through the store.
func TestJournalNoAllocs(t *testing.T) {
	s := New(Options{})
	var j Journal
	key := []byte("k")
	now := int64(1_000_000)
	run := func(v *Store) func() {
		return func() {
			s.Set(0, key, key, now, SetOptions{ExpireAt: now + 1})
			now += 2
			v.Exists(0, key, now)
			j.Reset()
		}
	}
	plain, journaled := run(s), run(s.WithJournal(&j))
	plain()
	journaled()
	if a, b := testing.AllocsPerRun(100, plain), testing.AllocsPerRun(100, journaled); b > a {
		t.Fatalf("%v allocations per expiry journaled, %v without", b, a)
	}
	if a := testing.AllocsPerRun(100, func() { j.add(0, key, JournalExpired); j.Reset() }); a != 0 {
		t.Fatalf("%v allocations per journal entry", a)
	}
}

// TestJournalTracksCreationsDeletionsAndMisses: with tracking on, creates,
// deletions by operations and read misses are entries in order, while Len
// and Each still see only the store's own removals.
func TestJournalTracksCreationsDeletionsAndMisses(t *testing.T) {
	s := New(Options{})
	const t0 = 1_000_000
	var j Journal
	j.TrackNew(true)
	j.TrackDeleted(true)
	j.TrackMisses(true)
	v := s.WithJournal(&j)
	v.Set(0, []byte("a"), []byte("1"), t0, SetOptions{ExpireAt: t0 + 1})
	v.Set(0, []byte("a"), []byte("2"), t0, SetOptions{}) // overwrite: no entry
	v.SAdd(0, []byte("s"), [][]byte{[]byte("m")}, t0)
	v.SRem(0, []byte("s"), [][]byte{[]byte("m")}, t0) // emptied: deleted
	v.Set(0, []byte("e"), []byte("1"), t0, SetOptions{ExpireAt: t0 + 1})
	v.Get(0, []byte("e"), t0+5, nil, func(d, b []byte) []byte { return d }) // expired, then a miss
	type entry struct {
		key  string
		kind JournalKind
	}
	var got []entry
	for i := range j.Entries() {
		_, key, kind := j.Entry(i)
		got = append(got, entry{string(key), kind})
	}
	want := []entry{{"a", JournalNew}, {"s", JournalNew}, {"s", JournalDeleted}, {"e", JournalNew},
		{"e", JournalExpired}, {"e", JournalMiss}}
	if !slices.Equal(got, want) {
		t.Fatalf("entries %v, want %v", got, want)
	}
	if j.Len() != 1 || !slices.Equal(journalOf(&j), []journaled{{0, "e", false}}) {
		t.Fatalf("Len %d, Each %v: want the expiry alone", j.Len(), journalOf(&j))
	}
}
