package store

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
				v.fill(t, t.a.at(r), 0, &s.lfu)
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
// TTL, in databases dbs (default 0 and 3).
func fillEveryEncoding(s *Store, now int64, dbs ...int) {
	b := func(s string) []byte { return []byte(s) }
	if len(dbs) == 0 {
		dbs = []int{0, 3}
	}
	for _, db := range dbs {
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
		for i := 0; i < 1500; i++ {
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

// TestSnapshotCopiesOnWrite: a write to a key copies that record once,
// before the change, and nothing else; the walk copies the rest a batch at
// a time and drops each batch; at the end no table has a walk and every
// record's saved bit equals its table's parity again.
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
	s.Set(0, []byte("k1"), []byte("created"), t0, SetOptions{}) // k1 is in db 1
	if sn.ClonedBytes() != 0 {
		t.Fatalf("creating a key copied %d bytes", sn.ClonedBytes())
	}
	s.Set(0, []byte("k2"), []byte("changed"), t0, SetOptions{})
	one := sn.ClonedBytes()
	if one == 0 || sn.HeldBytes() != one || one > 128 {
		t.Fatalf("after a write: cloned %d, held %d (one record)", one, sn.HeldBytes())
	}
	s.Set(0, []byte("k2"), []byte("again"), t0, SetOptions{})
	if sn.ClonedBytes() != one {
		t.Fatalf("a second write to the key copied again: %d -> %d", one, sn.ClonedBytes())
	}
	s.Set(0, []byte("k4"), []byte("other"), t0, SetOptions{})
	if n := sn.ClonedBytes(); n <= one || n > 2*one+64 {
		t.Fatalf("a write to another key copied %d bytes (one record: %d)", n-one, one)
	}
	s.Set(0, []byte("new"), []byte("key"), t0, SetOptions{})
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
	checkNoWalk(t, s)
}

// checkNoWalk fails unless no table has a pending walk and every record's
// saved bit equals its table's parity (the invariant outside snapshots).
func checkNoWalk(t *testing.T, s *Store) {
	t.Helper()
	for i := range s.shards {
		for db := range s.shards[i].dbs {
			tb := &s.shards[i].dbs[db]
			if tb.walk != nil {
				t.Errorf("shard %d db %d still has a walk", i, db)
			}
			bad := 0
			tb.keys.each(&tb.a, func(r ref) bool {
				if tb.unsaved(r) {
					bad++
				}
				return true
			})
			if bad != 0 {
				t.Errorf("shard %d db %d: %d records unsaved", i, db, bad)
			}
		}
	}
}

// TestSnapshotIsPointInTime: snapshots taken while writers change every
// type across shards and databases (SET, HSET, LPUSH, ZADD, SADD, DEL,
// EXPIRE, RENAME, FLUSHDB, SWAPDB, GETDEL, GETEX) and readers (whose lazy
// expiry deletes keys) work, each equal the keyspace at their instant, as a
// copy taken under every shard lock at that instant shows.
func TestSnapshotIsPointInTime(t *testing.T) {
	s := New(Options{Shards: 8, Databases: 4})
	fillEveryEncoding(s, t0)
	var stop, readsOnly atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewPCG(uint64(w), 7))
			key := func() []byte { return []byte("key" + strconv.Itoa(rnd.IntN(200))) }
			for i := 0; !stop.Load(); i++ {
				db := rnd.IntN(4)
				now := t0 + int64(i)
				val := []byte(strconv.Itoa(i))
				noHead := func(dst []byte, n int) []byte { return dst }
				op := rnd.IntN(30)
				if readsOnly.Load() && op < 20 {
					op += 20
				}
				switch op {
				case 0, 1, 2:
					s.Set(db, key(), val, now, SetOptions{})
				case 3, 4:
					s.HSet(db, key(), [][]byte{val, val}, now)
				case 5, 6:
					s.LPush(db, key(), ListHead, [][]byte{val}, false, now)
				case 7, 8:
					s.ZAdd(db, key(), 0, [][]byte{val, val}, now)
				case 9, 10:
					s.SAdd(db, key(), [][]byte{val}, now)
				case 11, 12:
					s.Del(db, key(), now)
				case 13:
					s.Expire(db, key(), now, now+int64(rnd.IntN(200)), 0)
				case 14, 15:
					s.Rename(db, key(), key(), now, false)
				case 16:
					if rnd.IntN(50) == 0 {
						s.FlushDB(db)
					}
				case 17:
					if rnd.IntN(10) == 0 {
						s.SwapDB(db, rnd.IntN(4))
					}
				case 18:
					s.GetDel(db, key(), now, nil, rawEnc)
				case 19:
					s.GetEx(db, key(), now, GetExOptions{ExpireAt: now + 50}, nil, rawEnc)
				// reads, which copy nothing unless they delete an expired key
				case 20:
					s.HGetAll(db, key(), now, HashBoth, nil, PairReply{Head: noHead, Elem: rawEnc})
				case 21:
					s.LRange(db, key(), 0, -1, now, nil, noHead, rawEnc)
				case 22:
					s.ZRange(db, key(), &ZRangeSpec{By: ZByRank, Start: 0, Stop: -1}, now, nil, ZReply{Head: noHead, Member: rawEnc})
				case 23:
					s.SMembers(db, key(), now, func([]byte) {})
				case 24:
					s.MGet(db, [][]byte{key(), key()}, now, nil, rawEnc, rawMissing)
				case 25:
					s.Exists(db, key(), now)
				case 26:
					if rnd.IntN(20) == 0 {
						s.ActiveExpireCycle(now, time.Millisecond)
						s.RehashCycle(time.Millisecond)
					}
				default:
					s.Get(db, key(), now, nil, rawEnc)
				}
			}
		}()
	}
	for round := 0; round < 12; round++ {
		// in odd rounds the workers only read until the walk is half done:
		// reads (and their lazy expiry) meet tables still live for the snapshot
		readsOnly.Store(round%2 == 1)
		v := s.Lock(nil, true)
		sn := v.SnapshotAt(t0)
		want := liveDump(v)
		v.Unlock()
		n := 0
		got := snapDump(t, sn, func() {
			if n++; n%20 == 0 {
				runtime.Gosched()
			}
			if n == len(want)/2 {
				readsOnly.Store(false)
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
	checkNoWalk(t, s)
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
	// DUMP's path allocates nothing, in every encoding
	n := 0
	each := func(a, b []byte, score float64) bool { n += len(a) + len(b); return true }
	nodes := func(lp []byte) bool { n += len(lp); return true }
	for k := range want {
		if !strings.HasPrefix(k, "0/") {
			continue
		}
		key := []byte(k[2:])
		allocs := testing.AllocsPerRun(20, func() {
			s.View(0, key, t0, func(v *Value) { v.Each(each); v.Nodes(nodes); n += v.Len() })
		})
		if allocs != 0 {
			t.Errorf("View of %s allocates %v", key, allocs)
		}
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

// TestSnapshotReadsCopyNothing: reads, walks, INFO's counters and the
// background cycles copy no table for a pending snapshot; a read that
// deletes an expired key, and active expiry, copy first.
func TestSnapshotReadsCopyNothing(t *testing.T) {
	s := New(Options{Shards: 4})
	fillEveryEncoding(s, t0)
	sn := s.SnapshotAt(t0)
	defer sn.Close()
	noHead := func(dst []byte, n int) []byte { return dst }
	for _, k := range []string{"int", "raw", "embstr", "nope", "h:ht"} {
		s.Get(0, []byte(k), t0, nil, rawEnc)
		s.Exists(0, []byte(k), t0)
		s.TypeOf(0, []byte(k), t0)
		s.ExpireAt(0, []byte(k), t0)
		s.Object(0, []byte(k), t0)
		s.View(0, []byte(k), t0, func(*Value) {})
	}
	s.HGetAll(0, []byte("h:ht"), t0, HashBoth, nil, PairReply{Head: noHead, Elem: rawEnc})
	s.LRange(0, []byte("l:big"), 0, -1, t0, nil, noHead, rawEnc)
	s.ZRange(0, []byte("z:sl"), &ZRangeSpec{By: ZByRank, Start: 0, Stop: -1}, t0, nil, ZReply{Head: noHead, Member: rawEnc})
	s.SMembers(0, []byte("s:ht"), t0, func([]byte) {})
	s.MGet(0, [][]byte{[]byte("int"), []byte("raw")}, t0, nil, rawEnc, rawMissing)
	s.CountExisting(0, [][]byte{[]byte("int"), []byte("raw")}, t0)
	s.Keys(0, []byte("*"), t0, func([]byte) {})
	s.Scan(0, 0, t0, ScanOptions{Count: 1000}, func([]byte) {})
	s.Stats()
	s.DBSize(0)
	for i := 0; i < 20; i++ {
		s.RandomKey(0, t0, nil, rawEnc)
	}
	s.Evict(t0, EvictOptions{MaxMemory: s.UsedMemory() + 1, Policy: AllKeysLRU})
	s.ActiveExpireCycle(t0, time.Second)
	s.RehashCycle(time.Second)
	if n := sn.ClonedBytes(); n != 0 {
		t.Fatalf("reads copied %d bytes", n)
	}
	// embstr expires at t0+5000: a read that deletes it copies first
	if _, st := s.Get(0, []byte("embstr"), t0+5000, nil, rawEnc); st != NotFound {
		t.Fatalf("expired embstr: %v", st)
	}
	if sn.ClonedBytes() == 0 {
		t.Fatal("the lazy deletion copied nothing")
	}
	s.ActiveExpireCycle(t0+60000, time.Second) // deletes h:ht, z:sl, l:big in every db
	if s.Exists(3, []byte("h:ht"), t0) {
		t.Fatal("h:ht not expired")
	}
	got := snapDump(t, sn, nil)
	for _, k := range []string{"0/embstr", "0/h:ht", "3/h:ht", "3/z:sl", "3/l:big"} {
		if _, ok := got[k]; !ok {
			t.Errorf("%s missing from the snapshot", k)
		}
	}
}

// TestSnapshotSeesNoWrite: every kind of write, each right after a
// snapshot of a keyspace holding every encoding, changes the keyspace and
// leaves the snapshot as it was.
func TestSnapshotSeesNoWrite(t *testing.T) {
	b := func(s string) []byte { return []byte(s) }
	bb := func(ss ...string) [][]byte {
		var out [][]byte
		for _, s := range ss {
			out = append(out, b(s))
		}
		return out
	}
	noHead := func(dst []byte, n int) []byte { return dst }
	found := func(dst, key []byte, n int) []byte { return dst }
	zr := ZReply{Head: noHead, Member: rawEnc}
	all := &ZRangeSpec{By: ZByRank, Start: 0, Stop: -1}
	ops := map[string]func(s *Store){
		"SetGet":       func(s *Store) { s.SetGet(0, b("int"), b("x"), t0, SetOptions{}, nil, rawEnc) },
		"GetDel":       func(s *Store) { s.GetDel(0, b("raw"), t0, nil, rawEnc) },
		"GetEx":        func(s *Store) { s.GetEx(0, b("embstr"), t0, GetExOptions{Persist: true}, nil, rawEnc) },
		"Append":       func(s *Store) { s.Append(0, b("raw"), b("more"), t0) },
		"SetRange":     func(s *Store) { s.SetRange(0, b("raw"), 3, b("XY"), t0) },
		"IncrBy":       func(s *Store) { s.IncrBy(0, b("int"), t0, 1) },
		"IncrByFloat":  func(s *Store) { s.IncrByFloat(0, b("int"), t0, b("0.5"), nil, rawEnc) },
		"MSet":         func(s *Store) { s.MSet(0, bb("int", "1", "new", "2"), t0) },
		"MSetNX":       func(s *Store) { s.MSetNX(0, bb("new1", "1", "new2", "2"), t0) },
		"Set":          func(s *Store) { s.Set(0, b("h:lp"), b("now a string"), t0, SetOptions{}) },
		"Del":          func(s *Store) { s.Del(0, b("l:big"), t0) },
		"DelKeys":      func(s *Store) { s.DelKeys(0, bb("int", "z:sl", "s:ht"), t0) },
		"Expire":       func(s *Store) { s.Expire(0, b("int"), t0, t0+1, 0) },
		"ExpireDel":    func(s *Store) { s.Expire(0, b("int"), t0, t0-1, 0) },
		"Persist":      func(s *Store) { s.Persist(0, b("embstr"), t0) },
		"Rename":       func(s *Store) { s.Rename(0, b("h:ht"), b("renamed"), t0, false) },
		"Copy":         func(s *Store) { s.Copy(0, b("z:sl"), 1, b("copied"), t0, false) },
		"Move":         func(s *Store) { s.Move(0, 1, b("h:lp"), t0) },
		"HSet":         func(s *Store) { s.HSet(0, b("h:lp"), bb("f1", "changed"), t0) },
		"HDel":         func(s *Store) { s.HDel(0, b("h:ht"), bb("field1"), t0) },
		"HIncrBy":      func(s *Store) { s.HIncrBy(0, b("h:lp"), b("7"), t0, 2) },
		"HIncrByFloat": func(s *Store) { s.HIncrByFloat(0, b("h:ht"), b("field2"), b("1.5"), t0, nil, rawEnc) },
		"LPush":        func(s *Store) { s.LPush(0, b("l:small"), ListHead, bb("new"), false, t0) },
		"LPop":         func(s *Store) { s.LPop(0, b("l:big"), ListTail, 3, t0, nil, noHead, rawEnc) },
		"LSet":         func(s *Store) { s.LSet(0, b("l:big"), 2, b("set"), t0) },
		"LTrim":        func(s *Store) { s.LTrim(0, b("l:big"), 10, 20, t0) },
		"LRem":         func(s *Store) { s.LRem(0, b("l:small"), 0, b("x"), t0) },
		"LInsert":      func(s *Store) { s.LInsert(0, b("l:small"), true, b("12"), b("ins"), t0) },
		"LMove":        func(s *Store) { s.LMove(0, b("l:big"), b("l:small"), ListHead, ListTail, t0, nil, rawEnc) },
		"LMPop":        func(s *Store) { s.LMPop(0, bb("l:small"), ListHead, 2, t0, nil, found, rawEnc) },
		"SAdd":         func(s *Store) { s.SAdd(0, b("s:int"), bb("x"), t0) },
		"SRem":         func(s *Store) { s.SRem(0, b("s:ht"), bb("m1"), t0) },
		"SPop":         func(s *Store) { s.SPop(0, b("s:lp"), t0, nil, rawEnc) },
		"SPopCount":    func(s *Store) { s.SPopCount(0, b("s:ht"), 10, t0, func([]byte) {}) },
		"SMove":        func(s *Store) { s.SMove(0, b("s:int"), b("s:lp"), b("1"), t0) },
		"SInterStore":  func(s *Store) { s.SInterStore(0, b("s:lp"), bb("s:lp", "s:int"), t0) },
		"SUnionStore":  func(s *Store) { s.SUnionStore(0, b("dst"), bb("s:lp", "s:int"), t0) },
		"SDiffStore":   func(s *Store) { s.SDiffStore(0, b("dst"), bb("s:bigint", "s:int"), t0) },
		"ZAdd":         func(s *Store) { s.ZAdd(0, b("z:lp"), 0, bb("7", "one"), t0) },
		"ZRem":         func(s *Store) { s.ZRem(0, b("z:sl"), bb("member1"), t0) },
		"ZRemRange":    func(s *Store) { s.ZRemRange(0, b("z:sl"), &ZRangeSpec{By: ZByRank, Start: 0, Stop: 5}, t0) },
		"ZPop":         func(s *Store) { s.ZPop(0, b("z:lp"), true, 1, t0, nil, zr) },
		"ZMPop":        func(s *Store) { s.ZMPop(0, bb("z:sl"), false, 2, t0, nil, found, zr) },
		"ZRangeStore":  func(s *Store) { s.ZRangeStore(0, b("z:lp"), b("z:sl"), all, t0) },
		"FlushDB":      func(s *Store) { s.FlushDB(0) },
		"FlushAll":     func(s *Store) { s.FlushAll() },
		"SwapDB":       func(s *Store) { s.SwapDB(0, 1) },
		"EvictRandom": func(s *Store) {
			s.Evict(t0, EvictOptions{MaxMemory: s.UsedMemory() / 2, Policy: AllKeysRandom, Budget: time.Second})
		},
		"EvictLRU": func(s *Store) {
			s.Evict(t0, EvictOptions{MaxMemory: s.UsedMemory() / 2, Policy: AllKeysLRU, Budget: time.Second})
		},
		"EvictTTL": func(s *Store) {
			s.Evict(t0, EvictOptions{MaxMemory: s.UsedMemory() - 1, Policy: VolatileTTL, Budget: time.Second})
		},
		"RandomKeyExpire": func(s *Store) {
			for i := 0; i < 50; i++ {
				s.RandomKey(0, t0+100000, nil, rawEnc)
			}
		},
		"ActiveExpire": func(s *Store) { s.ActiveExpireCycle(t0+100000, time.Second) },
		"LazyExpire":   func(s *Store) { s.Get(0, b("embstr"), t0+5000, nil, rawEnc) },
		"ObjectExpire": func(s *Store) { s.Object(0, b("embstr"), t0+5000) },
		"LoadString":   func(s *Store) { s.LoadString(0, b("int"), b("loaded"), 0, true) },
		"LoadCompact": func(s *Store) {
			s.LoadCompact(0, b("h:ht"), TypeHash, EncListpack, listpack.AppendString(listpack.AppendString(listpack.New(nil), b("a")), b("b")), 0, true)
		},
		"LoadList": func(s *Store) {
			s.LoadList(0, b("l:big"), [][]byte{listpack.AppendString(listpack.New(nil), b("a"))}, 0, true)
		},
		"LockView": func(s *Store) {
			v := s.Lock(bb("int", "raw"), false)
			v.Set(0, b("int"), b("in a transaction"), t0, SetOptions{})
			v.Del(0, b("raw"), t0)
			v.Unlock()
		},
	}
	for name, op := range ops {
		s := New(Options{Shards: 4})
		fillEveryEncoding(s, t0, 0)
		v := s.Lock(nil, true)
		want := liveDump(v)
		v.Unlock()
		sn := s.SnapshotAt(t0)
		op(s)
		v = s.Lock(nil, true)
		after := liveDump(v)
		v.Unlock()
		if maps.Equal(after, want) {
			t.Errorf("%s changed nothing", name)
		}
		got := snapDump(t, sn, nil)
		sn.Close()
		if !maps.Equal(got, want) {
			diffDumps(t, name, got, want)
		}
	}
}

// TestLoadedKeysAreFresh: a loaded key's LRU clock is the load's time, and
// SetIdle backdates it (RESTORE IDLETIME) without counting an access.
func TestLoadedKeysAreFresh(t *testing.T) {
	s := New(Options{Shards: 2})
	now := time.Now().UnixMilli()
	s.LoadString(0, []byte("s"), []byte("v"), 0, false)
	s.LoadCompact(0, []byte("h"), TypeHash, EncListpack, listpack.AppendString(listpack.AppendString(listpack.New(nil), []byte("f")), []byte("v")), 0, false)
	for _, k := range []string{"s", "h"} {
		if info, _ := s.Object(0, []byte(k), now); info.Idle > 2000 {
			t.Errorf("%s: idle %d ms after its load", k, info.Idle)
		}
	}
	hits := s.Stats().KeyspaceHits
	if !s.SetIdle(0, []byte("h"), now, 100) || s.SetIdle(0, []byte("nope"), now, 100) {
		t.Fatal("SetIdle found the wrong keys")
	}
	if s.Stats().KeyspaceHits != hits {
		t.Error("SetIdle counted a hit")
	}
	if info, _ := s.Object(0, []byte("h"), now); info.Idle < 99000 || info.Idle > 101000 {
		t.Errorf("idle %d ms after SetIdle 100 s", info.Idle)
	}
}

// TestSnapshotInsideATransaction: a snapshot taken on a view of every shard
// shows the transaction's changes before it and none after.
func TestSnapshotInsideATransaction(t *testing.T) {
	s := New(Options{Shards: 4})
	v := s.Lock(nil, true)
	v.Set(0, []byte("before"), []byte("1"), t0, SetOptions{})
	sn := v.SnapshotAt(t0)
	v.Set(0, []byte("after"), []byte("2"), t0, SetOptions{})
	v.Set(0, []byte("before"), []byte("changed"), t0, SetOptions{})
	v.Unlock()
	defer sn.Close()
	got := snapDump(t, sn, nil)
	if len(got) != 1 || !strings.HasSuffix(got["0/before"], `"1"`) {
		t.Errorf("snapshot = %v", got)
	}
}

// TestZeroAllocWhileSnapshotPending: with a snapshot pending, commands on
// shards already copied, and reads of shards not copied, allocate nothing.
func TestZeroAllocWhileSnapshotPending(t *testing.T) {
	s := New(Options{Shards: 4})
	fillEveryEncoding(s, t0, 0)
	sn := s.SnapshotAt(t0)
	defer sn.Close()
	key, val := []byte("int"), []byte("7")
	s.Set(0, key, val, t0, SetOptions{}) // copies int's shard
	other := []byte("h:ht")
	for s.shardIndex(other) == s.shardIndex(key) {
		other = append(other, 'x')
	}
	dst := make([]byte, 0, 64)
	for name, fn := range map[string]func(){
		"Set":    func() { s.Set(0, key, val, t0, SetOptions{}) },
		"Incr":   func() { s.IncrBy(0, key, t0, 1) },
		"Get":    func() { dst, _ = s.Get(0, key, t0, dst[:0], rawEnc) },
		"Exists": func() { s.Exists(0, other, t0) },
		"HGet":   func() { dst, _ = s.HGet(0, []byte("h:ht"), []byte("field1"), t0, dst[:0], rawEnc) },
	} {
		if a := testing.AllocsPerRun(100, fn); a != 0 {
			t.Errorf("%s: %v allocs", name, a)
		}
	}
}

// TestSnapshotWalkHoldsOneBatch: with no writer, the walk holds one
// batch of records at a time (walkBytes, plus the record that crossed
// it), copies each record once, and holds nothing once done.
func TestSnapshotWalkHoldsOneBatch(t *testing.T) {
	s := New(Options{Shards: 4})
	var total int64
	for i := 0; i < 4000; i++ {
		s.Set(i%3, []byte("key"+strconv.Itoa(i)), bytes.Repeat([]byte{'v'}, i%100), t0, SetOptions{})
	}
	total = s.UsedMemory()
	sn := s.SnapshotAt(t0)
	defer sn.Close()
	var peak int64
	n := 0
	sn.Each(func(int, *Value) error { peak = max(peak, sn.HeldBytes()); n++; return nil })
	if n != 4000 || peak == 0 || peak > walkBytes+256 || sn.ClonedBytes() > total || sn.HeldBytes() != 0 {
		t.Errorf("%d keys; peak held %d (batch %d), cloned %d (store %d), held after %d",
			n, peak, walkBytes, sn.ClonedBytes(), total, sn.HeldBytes())
	}
	checkNoWalk(t, s)
}
