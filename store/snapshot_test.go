package store

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/loopkv/loopkv/store/intset"
	"github.com/loopkv/loopkv/store/listpack"
)

// canonValue describes a Value as type, encoding, TTL and contents (hash
// fields and set members sorted, sorted sets and lists in order).
func canonValue(v *Value) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s ttl=%d len=%d ", v.Type, v.Enc, v.ExpireAt, v.Len())
	if v.Type == TypeString {
		fmt.Fprintf(&b, "%q", v.Raw)
		return b.String()
	}
	var es []string
	v.Each(func(a, x []byte, score float64) bool {
		switch v.Type {
		case TypeHash:
			es = append(es, fmt.Sprintf("%q=%q", a, x))
		case TypeZSet:
			es = append(es, fmt.Sprintf("%q:%v", a, score))
		default:
			es = append(es, strconv.Quote(string(a)))
		}
		return true
	})
	if v.Type == TypeHash || v.Type == TypeSet {
		slices.Sort(es)
	}
	b.WriteString(strings.Join(es, ","))
	return b.String()
}

// snapDump walks sn into a map of "db/key" to canonValue, checking that
// databases come in order.
func snapDump(t *testing.T, sn *Snapshot, each func()) map[string]string {
	t.Helper()
	got := map[string]string{}
	last := 0
	err := sn.Each(func(db int, v *Value) error {
		if db < last {
			t.Fatalf("db %d after db %d", db, last)
		}
		last = db
		k := fmt.Sprintf("%d/%s", db, v.Key)
		if _, dup := got[k]; dup {
			t.Fatalf("key %s twice", k)
		}
		got[k] = canonValue(v)
		if each != nil {
			each()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// liveDump copies every table of s, whose shards the caller holds, as
// snapDump describes it.
func liveDump(s *Store) map[string]string {
	m := map[string]string{}
	var v Value
	for i := range s.shards {
		sh := &s.shards[i]
		for db := range sh.dbs {
			t := &sh.dbs[db]
			t.keys.each(&t.a, func(r ref) bool {
				v.fill(t, t.a.at(r), 0)
				m[fmt.Sprintf("%d/%s", db, v.Key)] = canonValue(&v)
				return true
			})
		}
	}
	return m
}

// apiDump describes every key of s through its public read operations,
// independently of Value.
func apiDump(t *testing.T, s *Store, now int64) map[string]string {
	t.Helper()
	m := map[string]string{}
	var keys []string
	for db := 0; db < s.Databases(); db++ {
		keys = keys[:0]
		s.Keys(db, []byte("*"), now, func(k []byte) { keys = append(keys, string(k)) })
		for _, k := range keys {
			key := []byte(k)
			info, ok := s.Object(db, key, now)
			if !ok {
				t.Fatalf("%s: listed but missing", k)
			}
			d := fmt.Sprintf("%s %s ttl=%d ", info.Type, info.Encoding, s.ExpireAt(db, key, now))
			var es []string
			collect := func(dst, v []byte) []byte { es = append(es, strconv.Quote(string(v))); return dst }
			noHead := func(dst []byte, n int) []byte { return dst }
			switch info.Type {
			case TypeString:
				v, _ := s.Get(db, key, now, nil, rawEnc)
				d += strconv.Quote(string(v))
			case TypeHash:
				s.HGetAll(db, key, now, HashBoth, nil, PairReply{Head: noHead, Elem: collect})
				var pairs []string
				for i := 0; i+1 < len(es); i += 2 {
					pairs = append(pairs, es[i]+"="+es[i+1])
				}
				slices.Sort(pairs)
				d += strings.Join(pairs, ",")
			case TypeSet:
				s.SMembers(db, key, now, func(m []byte) { es = append(es, strconv.Quote(string(m))) })
				slices.Sort(es)
				d += strings.Join(es, ",")
			case TypeZSet:
				s.ZRange(db, key, &ZRangeSpec{By: ZByRank, Start: 0, Stop: -1}, now, nil, ZReply{Head: noHead,
					Member: collect, Score: func(dst []byte, f float64) []byte {
						es[len(es)-1] += ":" + strconv.FormatFloat(f, 'g', -1, 64)
						return dst
					}})
				d += strings.Join(es, ",")
			case TypeList:
				s.LRange(db, key, 0, -1, now, nil, noHead, collect)
				d += strings.Join(es, ",")
			}
			m[fmt.Sprintf("%d/%s", db, k)] = d
		}
	}
	return m
}

func diffDumps(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	n := 0
	for k, w := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%s: %s missing, want %.200s", what, k, w)
			n++
		} else if g != w {
			t.Errorf("%s: %s =\n  %.300s\nwant\n  %.300s", what, k, g, w)
			n++
		}
		if n > 10 {
			t.Fatalf("%s: too many differences", what)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: extra %s = %.200s", what, k, g)
		}
	}
}

// fillEveryEncoding gives s a key of every type and encoding, some with a
// TTL, in databases 0 and 3.
func fillEveryEncoding(s *Store, now int64) {
	b := func(s string) []byte { return []byte(s) }
	for _, db := range []int{0, 3} {
		s.Set(db, b("int"), b("12345"), now, SetOptions{})
		s.Set(db, b("neg"), b("-9223372036854775808"), now, SetOptions{})
		s.Set(db, b("embstr"), b("hello"), now, SetOptions{ExpireAt: now + 5000})
		s.Set(db, b("raw"), bytes.Repeat(b("r"), 100), now, SetOptions{})
		s.Set(db, b("empty"), nil, now, SetOptions{})
		s.HSet(db, b("h:lp"), [][]byte{b("f1"), b("v1"), b("7"), b("-3"), b("f3"), nil}, now)
		var fv [][]byte
		for i := 0; i < 300; i++ {
			fv = append(fv, b("field"+strconv.Itoa(i)), b(strconv.Itoa(i*i)))
		}
		s.HSet(db, b("h:ht"), fv, now)
		s.HSet(db, b("h:long"), [][]byte{b("f"), bytes.Repeat(b("v"), 100)}, now)
		s.Expire(db, b("h:ht"), now, now+60000, 0)
		s.SAdd(db, b("s:int"), [][]byte{b("1"), b("-70000"), b("3000000000")}, now)
		s.SAdd(db, b("s:lp"), [][]byte{b("a"), b("1"), b("bb")}, now)
		s.SAdd(db, b("s:ht"), setArgs("m", 0, 400), now)
		s.SAdd(db, b("s:bigint"), setArgs("", 0, 600), now)
		s.ZAdd(db, b("z:lp"), 0, [][]byte{b("1"), b("one"), b("2.5"), b("two"), b("-inf"), b("low"), b("1"), b("aaa")}, now)
		var sm [][]byte
		for i := 0; i < 300; i++ {
			sm = append(sm, AppendScore(nil, float64(i%37)/3), b("member"+strconv.Itoa(i)))
		}
		s.ZAdd(db, b("z:sl"), 0, sm, now)
		s.Expire(db, b("z:sl"), now, now+7000, 0)
		s.LPush(db, b("l:small"), ListTail, [][]byte{b("x"), b("12"), b("y")}, false, now)
		var es [][]byte
		for i := 0; i < 5000; i++ {
			es = append(es, b("element-"+strconv.Itoa(i)))
		}
		s.LPush(db, b("l:big"), ListTail, es, false, now)
		s.LPush(db, b("l:big"), ListHead, [][]byte{bytes.Repeat(b("L"), 20000)}, false, now)
		s.Expire(db, b("l:big"), now, now+9000, 0)
	}
}

// loadValue stores v into s as an RDB loader would: strings and compact
// values whole, big values with the ordinary operations.
func loadValue(t *testing.T, s *Store, db int, v *Value, now int64) {
	t.Helper()
	key := slices.Clone(v.Key)
	var err error
	switch {
	case v.Type == TypeString:
		if st := s.LoadString(db, key, v.Raw, v.ExpireAt, false); st != OK {
			t.Fatalf("LoadString %s: %v", key, st)
		}
		return
	case v.Type == TypeList:
		var nodes [][]byte
		v.Nodes(func(lp []byte) bool { nodes = append(nodes, slices.Clone(lp)); return true })
		err = s.LoadList(db, key, nodes, v.ExpireAt, false)
	case v.Raw != nil:
		err = s.LoadCompact(db, key, v.Type, v.Enc, v.Raw, v.ExpireAt, false)
	default:
		var args [][]byte
		v.Each(func(a, b []byte, score float64) bool {
			switch v.Type {
			case TypeHash:
				args = append(args, slices.Clone(a), slices.Clone(b))
			case TypeZSet:
				args = append(args, AppendScore(nil, score), slices.Clone(a))
			default:
				args = append(args, slices.Clone(a))
			}
			return true
		})
		switch v.Type {
		case TypeHash:
			s.HSet(db, key, args, now)
		case TypeSet:
			s.SAdd(db, key, args, now)
		case TypeZSet:
			s.ZAdd(db, key, 0, args, now)
		}
		if v.ExpireAt != 0 {
			s.Expire(db, key, now, v.ExpireAt, 0)
		}
	}
	if err != nil {
		t.Fatalf("load %s %s %s: %v", key, v.Type, v.Enc, err)
	}
}

// TestSnapshotRoundTripsEveryEncoding: every type and encoding, with TTLs,
// walked from a snapshot and loaded into a fresh store, reads back the same
// through the public operations, encodings included, even though the
// source was emptied right after the snapshot.
func TestSnapshotRoundTripsEveryEncoding(t *testing.T) {
	src := New(Options{Shards: 8})
	fillEveryEncoding(src, t0)
	want := apiDump(t, src, t0)
	sn := src.SnapshotAt(t0)
	defer sn.Close()
	if k, e := sn.DBSize(3); k != 16 || e != 4 {
		t.Fatalf("DBSize(3) = %d, %d; want 16, 4", k, e)
	}
	src.FlushAll()
	src.Set(0, []byte("int"), []byte("changed"), t0, SetOptions{})

	dst := New(Options{Shards: 4})
	var encs []string
	err := sn.Each(func(db int, v *Value) error {
		encs = append(encs, v.Type.String()+" "+v.Enc.String())
		loadValue(t, dst, db, v, t0)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{"string int", "string embstr", "string raw", "hash listpack", "hash hashtable",
		"set intset", "set listpack", "set hashtable", "zset listpack", "zset skiplist", "list quicklist"} {
		if !slices.Contains(encs, e) {
			t.Errorf("no %s in the snapshot", e)
		}
	}
	diffDumps(t, "loaded", apiDump(t, dst, t0), want)
	if err := sn.Each(func(int, *Value) error { return nil }); !errors.Is(err, ErrSnapshotWalked) {
		t.Errorf("second Each = %v, want ErrSnapshotWalked", err)
	}
	if sn.HeldBytes() != 0 || sn.ClonedBytes() == 0 {
		t.Errorf("held %d, cloned %d: want 0 held after the walk, some cloned", sn.HeldBytes(), sn.ClonedBytes())
	}
}

// TestSnapshotCopiesOnlyWhatChanges: a write to a shard copies its tables
// once, before the change; reads copy nothing; the walk copies the rest
// one table at a time and drops each copy.
func TestSnapshotCopiesOnWrite(t *testing.T) {
	s := New(Options{Shards: 4})
	for i := 0; i < 1000; i++ {
		s.Set(i%2, []byte("k"+strconv.Itoa(i)), []byte("v"+strconv.Itoa(i)), t0, SetOptions{})
	}
	v := s.Lock(nil, true)
	want := liveDump(v)
	v.Unlock()
	sn := s.SnapshotAt(t0)
	defer sn.Close()
	if sn.ClonedBytes() != 0 {
		t.Fatalf("cloned %d bytes before any write", sn.ClonedBytes())
	}
	s.Set(0, []byte("k1"), []byte("changed"), t0, SetOptions{})
	one := sn.ClonedBytes()
	if one == 0 || sn.HeldBytes() != one {
		t.Fatalf("after a write: cloned %d, held %d", one, sn.HeldBytes())
	}
	s.Set(0, []byte("k1"), []byte("again"), t0, SetOptions{})
	if sn.ClonedBytes() != one {
		t.Fatalf("a second write to the shard copied again: %d -> %d", one, sn.ClonedBytes())
	}
	s.Del(1, []byte("k3"), t0)
	s.SwapDB(0, 1)
	s.FlushDB(0)
	s.Rename(0, []byte("k1"), []byte("k2"), t0, false)
	if k, _ := sn.DBSize(0); k != 500 {
		t.Fatalf("DBSize(0) = %d, want 500", k)
	}
	diffDumps(t, "snapshot", snapDump(t, sn, nil), want)
	if sn.HeldBytes() != 0 {
		t.Errorf("held %d bytes after the walk", sn.HeldBytes())
	}
	for i := range s.shards {
		if n := len(s.shards[i].snaps); n != 0 {
			t.Errorf("shard %d still lists %d snapshots", i, n)
		}
	}
}

// TestSnapshotIsPointInTime: snapshots taken while writers change every
// type across shards and databases (SET, HSET, LPUSH, ZADD, SADD, DEL,
// EXPIRE, RENAME, FLUSHDB, SWAPDB) each equal the keyspace at their
// instant, as a copy taken under every shard lock at that instant shows.
func TestSnapshotIsPointInTime(t *testing.T) {
	s := New(Options{Shards: 8, Databases: 4})
	fillEveryEncoding(s, t0)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewPCG(uint64(w), 7))
			key := func() []byte { return []byte("key" + strconv.Itoa(rnd.IntN(200))) }
			for i := 0; !stop.Load(); i++ {
				db := rnd.IntN(4)
				val := []byte(strconv.Itoa(i))
				switch rnd.IntN(20) {
				case 0, 1, 2:
					s.Set(db, key(), val, t0, SetOptions{})
				case 3, 4:
					s.HSet(db, key(), [][]byte{val, val}, t0)
				case 5, 6:
					s.LPush(db, key(), ListHead, [][]byte{val}, false, t0)
				case 7, 8:
					s.ZAdd(db, key(), 0, [][]byte{val, val}, t0)
				case 9, 10:
					s.SAdd(db, key(), [][]byte{val}, t0)
				case 11, 12:
					s.Del(db, key(), t0)
				case 13:
					s.Expire(db, key(), t0, t0+int64(rnd.IntN(100000)), 0)
				case 14, 15:
					s.Rename(db, key(), key(), t0, false)
				case 16:
					if rnd.IntN(50) == 0 {
						s.FlushDB(db)
					}
				case 17:
					if rnd.IntN(10) == 0 {
						s.SwapDB(db, rnd.IntN(4))
					}
				default:
					s.Get(db, key(), t0, nil, rawEnc)
				}
			}
		}()
	}
	for round := 0; round < 8; round++ {
		v := s.Lock(nil, true)
		sn := v.SnapshotAt(t0)
		want := liveDump(v)
		v.Unlock()
		n := 0
		got := snapDump(t, sn, func() {
			if n++; n%20 == 0 {
				runtime.Gosched()
			}
		})
		sn.Close()
		diffDumps(t, fmt.Sprintf("round %d", round), got, want)
	}
	stop.Store(true)
	wg.Wait()
}

// TestSnapshotCloseReleases: Close before or in place of the walk leaves
// no shard waiting, and is safe twice; Each after Close refuses.
func TestSnapshotCloseReleases(t *testing.T) {
	s := New(Options{Shards: 4})
	fillEveryEncoding(s, t0)
	sn := s.Snapshot()
	s.Set(0, []byte("int"), []byte("1"), t0, SetOptions{})
	sn.Close()
	sn.Close()
	if sn.HeldBytes() != 0 {
		t.Errorf("held %d after Close", sn.HeldBytes())
	}
	for i := range s.shards {
		if len(s.shards[i].snaps) != 0 {
			t.Errorf("shard %d still waits", i)
		}
	}
	if err := sn.Each(func(int, *Value) error { return nil }); !errors.Is(err, ErrSnapshotClosed) {
		t.Errorf("Each after Close = %v", err)
	}
	// two snapshots at once share nothing they should not
	a := s.SnapshotAt(t0)
	s.Set(0, []byte("int"), []byte("2"), t0, SetOptions{})
	b := s.SnapshotAt(t0)
	s.Set(0, []byte("int"), []byte("3"), t0, SetOptions{})
	for want, sn := range map[string]*Snapshot{`"1"`: a, `"2"`: b} {
		if got := snapDump(t, sn, nil)["0/int"]; !strings.HasSuffix(got, want) {
			t.Errorf("int = %s, want %s", got, want)
		}
		sn.Close()
	}
	stopErr := errors.New("stop")
	c := s.Snapshot()
	if err := c.Each(func(int, *Value) error { return stopErr }); err != stopErr {
		t.Errorf("Each = %v, want fn's error", err)
	}
	c.Close()
}

// TestViewShowsTheLiveValue: View gives the key's value in every encoding,
// as the snapshot would, and reports missing and expired keys.
func TestViewShowsTheLiveValue(t *testing.T) {
	s := New(Options{Shards: 4})
	fillEveryEncoding(s, t0)
	v := s.Lock(nil, true)
	want := liveDump(v)
	v.Unlock()
	for k, w := range want {
		db, key, _ := strings.Cut(k, "/")
		n, _ := strconv.Atoi(db)
		var got string
		if !s.View(n, []byte(key), t0, func(v *Value) { got = canonValue(v) }) || got != w {
			t.Errorf("View %s = %s, want %s", k, got, w)
		}
	}
	if s.View(0, []byte("nope"), t0, func(*Value) { t.Error("called") }) {
		t.Error("View of a missing key")
	}
	if s.View(0, []byte("embstr"), t0+5000, func(*Value) { t.Error("called") }) {
		t.Error("View of an expired key")
	}
	if allocs := testing.AllocsPerRun(100, func() { s.View(0, []byte("h:lp"), t0, func(*Value) {}) }); allocs != 0 {
		t.Errorf("View allocates %v", allocs)
	}
}

// TestLoadCompactRefusesCorrupt: a damaged or inconsistent compact value is
// refused with an error and stores nothing, not even over an existing key
// with replace; values past the Limits are converted; empty ones skipped.
func TestLoadCompactRefusesCorrupt(t *testing.T) {
	s := New(Options{Shards: 4})
	lp := func(es ...string) []byte {
		b := listpack.New(nil)
		for _, e := range es {
			b = listpack.AppendString(b, []byte(e))
		}
		return b
	}
	is := func(vs ...int64) []byte {
		b := intset.New(nil)
		for _, v := range vs {
			b, _ = intset.Add(b, v)
		}
		return b
	}
	good := lp("f", "v")
	trunc := good[:len(good)-1]
	badCount := slices.Clone(good)
	badCount[4] = 3
	unsortedIS := is(1, 2, 3)
	le.PutUint16(unsortedIS[intset.HeaderSize:], 5)
	cases := []struct {
		name string
		t    Type
		e    Encoding
		blob []byte
	}{
		{"truncated hash", TypeHash, EncListpack, trunc},
		{"bad count", TypeHash, EncListpack, badCount},
		{"odd hash", TypeHash, EncListpack, lp("f", "v", "g")},
		{"repeated field", TypeHash, EncListpack, lp("f", "v", "f", "w")},
		{"repeated int field", TypeHash, EncListpack, lp("12", "v", "12", "w")},
		{"zset score not a number", TypeZSet, EncListpack, lp("m", "abc")},
		{"zset NaN", TypeZSet, EncListpack, lp("m", "nan")},
		{"zset out of order", TypeZSet, EncListpack, lp("m", "2", "n", "1")},
		{"zset same score out of order", TypeZSet, EncListpack, lp("n", "1", "m", "1")},
		{"zset repeated", TypeZSet, EncListpack, lp("m", "1", "m", "2")},
		{"set repeated", TypeSet, EncListpack, lp("a", "b", "a")},
		{"set truncated", TypeSet, EncListpack, trunc},
		{"intset unsorted", TypeSet, EncIntset, unsortedIS},
		{"intset short", TypeSet, EncIntset, is(1, 2)[:10]},
		{"list truncated", TypeList, EncQuicklist, trunc},
		{"string as compact", TypeString, EncRaw, good},
		{"hash as intset", TypeHash, EncIntset, is(1)},
	}
	s.Set(0, []byte("old"), []byte("keep"), t0, SetOptions{})
	for _, c := range cases {
		for _, key := range []string{"new", "old"} {
			err := s.LoadCompact(0, []byte(key), c.t, c.e, c.blob, 0, true)
			if err == nil {
				t.Errorf("%s: accepted", c.name)
			}
		}
		if s.Exists(0, []byte("new"), t0) {
			t.Errorf("%s: stored", c.name)
		}
		if v, _ := get(s, 0, "old", t0); v != "keep" {
			t.Errorf("%s: replaced the old key", c.name)
		}
	}
	var ce *listpack.CorruptError
	if err := s.LoadCompact(0, []byte("x"), TypeHash, EncListpack, trunc, 0, false); !errors.As(err, &ce) {
		t.Errorf("truncated: %v is not a *listpack.CorruptError", err)
	}
	if err := s.LoadCompact(0, []byte("old"), TypeHash, EncListpack, good, 0, false); !errors.Is(err, ErrKeyExists) {
		t.Errorf("existing key without replace: %v", err)
	}
	if err := s.LoadCompact(0, []byte("e"), TypeHash, EncListpack, lp(), 0, false); !errors.Is(err, ErrEmptyValue) {
		t.Errorf("empty hash: %v", err)
	}
	if err := s.LoadList(0, []byte("e"), [][]byte{lp(), lp()}, 0, false); !errors.Is(err, ErrEmptyValue) || s.Exists(0, []byte("e"), t0) {
		t.Errorf("empty list: %v", err)
	}
	if st := s.LoadString(0, []byte("old"), []byte("x"), 0, false); st != NotSet {
		t.Errorf("LoadString over an existing key: %v", st)
	}
	// past the limits: converted as Redis converts on load
	s.SetLimits(Limits{HashMaxListpackEntries: 1, HashMaxListpackValue: 64, SetMaxIntsetEntries: 2,
		SetMaxListpackEntries: 2, SetMaxListpackValue: 3, ZSetMaxListpackEntries: 1, ZSetMaxListpackValue: 64, ListMaxListpackSize: -2})
	for _, c := range []struct {
		key  string
		t    Type
		e    Encoding
		blob []byte
		want Encoding
	}{
		{"h1", TypeHash, EncListpack, lp("f", "v"), EncListpack},
		{"h2", TypeHash, EncListpack, lp("f", "v", "g", "w"), EncHashtable},
		{"s1", TypeSet, EncIntset, is(1, 2, 3), EncHashtable},
		{"s2", TypeSet, EncListpack, lp("a", "long"), EncHashtable},
		{"s3", TypeSet, EncListpack, lp("a", "b"), EncListpack},
		{"z1", TypeZSet, EncListpack, lp("a", "1", "b", "2"), EncSkiplist},
		{"z2", TypeZSet, EncListpack, lp("a", "1.5"), EncListpack},
	} {
		if err := s.LoadCompact(1, []byte(c.key), c.t, c.e, c.blob, t0+1000, false); err != nil {
			t.Fatalf("%s: %v", c.key, err)
		}
		info, _ := s.Object(1, []byte(c.key), t0)
		if info.Encoding != c.want || s.ExpireAt(1, []byte(c.key), t0) != t0+1000 {
			t.Errorf("%s: %v ttl %d, want %v", c.key, info.Encoding, s.ExpireAt(1, []byte(c.key), t0), c.want)
		}
	}
	if sc, ok, _ := s.ZScore(1, []byte("z1"), []byte("b"), t0); !ok || sc != 2 {
		t.Errorf("z1 b = %v %v", sc, ok)
	}
}
