package store

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
)

// Redis Cluster's documented slots (CLUSTER KEYSLOT).
var keySlotTests = []struct {
	key  string
	slot uint16
}{
	{"foo", 12182},
	{"bar", 5061},
	{"hello", 866},
	{"{user1000}.following", 3443},
	{"{user1000}.followers", 3443},
	{"user1000", 3443},
	{"foo{}{bar}", 8363}, // an empty tag hashes the whole key
	{"foo{{bar}}zap", 4015},
	{"foo{bar}{zap}", 5061},
}

func TestKeySlotMatchesRedisCluster(t *testing.T) {
	if c := crc16([]byte("123456789")); c != 0x31c3 {
		t.Fatalf("crc16(123456789) = %#x, want XMODEM's 0x31c3", c)
	}
	for _, tt := range keySlotTests {
		if got := KeySlot([]byte(tt.key)); got != tt.slot {
			t.Errorf("KeySlot(%q) = %d, want %d", tt.key, got, tt.slot)
		}
	}
}

// crc16Bitwise is CRC16-CCITT (XMODEM) by its definition, a bit at a time.
func crc16Bitwise(b []byte) uint16 {
	var c uint16
	for _, x := range b {
		c ^= uint16(x) << 8
		for j := 0; j < 8; j++ {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
	}
	return c
}

// crc16 slices by 16, 8, 4, 2 and 1: it must agree with the bitwise
// definition at every length and alignment.
func TestCRC16SlicingMatchesBitwise(t *testing.T) {
	buf := make([]byte, 80)
	for i := range buf {
		buf[i] = byte(i*131 + 7)
	}
	for off := 0; off < 16; off++ {
		for n := 0; off+n <= len(buf); n++ {
			if got, want := crc16(buf[off:off+n]), crc16Bitwise(buf[off:off+n]); got != want {
				t.Fatalf("crc16(buf[%d:%d]) = %#x, want %#x", off, off+n, got, want)
			}
		}
	}
}

// KeySlot looks for a hash tag a word at a time: a '{' at any position of
// a key of any length is found, and a '{' that opens no tag, or an empty
// one, leaves the whole key hashed, as the byte-wise definition says.
func TestKeySlotFindsBracesAnywhere(t *testing.T) {
	ref := func(key []byte) uint16 {
		if i := strings.IndexByte(string(key), '{'); i >= 0 {
			if j := strings.IndexByte(string(key[i+1:]), '}'); j > 0 {
				return crc16Bitwise(key[i+1:i+1+j]) & (Slots - 1)
			}
		}
		return crc16Bitwise(key) & (Slots - 1)
	}
	for n := 0; n <= 40; n++ {
		key := []byte(strings.Repeat("k", n))
		if got, want := KeySlot(key), ref(key); got != want {
			t.Fatalf("KeySlot(%q) = %d, want %d", key, got, want)
		}
		for i := 0; i < n; i++ {
			for _, tail := range []string{"", "}", "ab}", "a}b}"} {
				k := append([]byte(strings.Repeat("x", i)+"{"+tail), strings.Repeat("z", max(0, n-i-1-len(tail)))...)
				k[len(k)/2] ^= 0x80 // a high byte: no false '{' from the word test's borrows
				if got, want := KeySlot(k), ref(k); got != want {
					t.Fatalf("KeySlot(%q) = %d, want %d", k, got, want)
				}
			}
		}
	}
}

// Keys sharing a hash tag share a slot and so a shard, and CountKeysInSlot
// follows inserts, deletes, renames and expiry.

func TestSlotCountsFollowTheKeyspace(t *testing.T) {
	s := New(Options{Shards: 16})
	tag := KeySlot([]byte("user1000"))
	for i := 0; i < 50; i++ {
		s.Set(0, []byte(fmt.Sprintf("{user1000}.%d", i)), []byte("v"), t0, SetOptions{})
	}
	if n := s.CountKeysInSlot(0, tag); n != 50 {
		t.Fatalf("CountKeysInSlot = %d, want 50", n)
	}
	s.Del(0, []byte("{user1000}.0"), t0)
	s.Rename(0, []byte("{user1000}.1"), []byte("elsewhere"), t0, false)
	s.Expire(0, []byte("{user1000}.2"), t0, t0+10, 0)
	s.Get(0, []byte("{user1000}.2"), t0+20, nil, rawEnc) // expires it
	if n := s.CountKeysInSlot(0, tag); n != 47 {
		t.Fatalf("CountKeysInSlot after DEL, RENAME, expiry = %d, want 47", n)
	}
	if n := s.CountKeysInSlot(0, KeySlot([]byte("elsewhere"))); n != 1 {
		t.Fatalf("CountKeysInSlot(elsewhere) = %d, want 1", n)
	}
	var listed int
	s.KeysInSlot(0, tag, t0+20, 1000, func(key []byte) {
		if KeySlot(key) != tag {
			t.Errorf("KeysInSlot listed %q of slot %d", key, KeySlot(key))
		}
		listed++
	})
	if listed != 47 {
		t.Fatalf("KeysInSlot listed %d keys, want 47", listed)
	}
	listed = 0
	s.KeysInSlot(0, tag, t0+20, 5, func([]byte) { listed++ })
	if listed != 5 {
		t.Fatalf("KeysInSlot with count 5 listed %d", listed)
	}
	if n := s.CountKeysInSlot(1, tag); n != 0 {
		t.Fatalf("db 1 CountKeysInSlot = %d, want 0", n)
	}
}

// A table grows by steps: after the insert that starts a rehash, the old
// table still holds most keys, every key stays reachable while the rehash
// is under way, and RehashCycle finishes it.
func TestTablesRehashIncrementally(t *testing.T) {
	s := New(Options{Shards: 1})
	sh := &s.shards[0]
	d := &sh.dbs[0].keys
	sawRehash := false
	for i := 0; i < 1<<14; i++ {
		before := d.rehash
		s.Set(0, []byte(fmt.Sprint("k", i)), []byte("v"), t0, SetOptions{})
		if d.rehashing() {
			sawRehash = true
			// one SET is a find and an add: two steps of one bucket and at most 10 empty ones each
			if before >= 0 && d.rehash-before > 22 {
				t.Fatalf("at %d keys one SET moved the rehash from bucket %d to %d", i+1, before, d.rehash)
			}
		}
	}
	if !sawRehash {
		t.Fatal("no rehash was ever in progress")
	}
	for d.count < 1<<15 && !d.rehashing() {
		s.Set(0, []byte(fmt.Sprint("k", d.count)), []byte("v"), t0, SetOptions{})
	}
	if !d.rehashing() {
		t.Fatal("the table did not start growing")
	}
	for i := 0; i < d.count; i++ {
		if _, st := s.Get(0, []byte(fmt.Sprint("k", i)), t0, nil, rawEnc); st != OK {
			t.Fatalf("k%d unreachable during the rehash: %v", i, st)
		}
	}
	for d.rehashing() {
		s.RehashCycle(1 << 30)
	}
	if n := len(d.tab[0]); n < d.count {
		t.Fatalf("after RehashCycle the table has %d buckets for %d keys", n, d.count)
	}
	// deleting most keys shrinks the table, again by steps
	for i, n := 0, d.count+1000; i < n; i++ {
		s.Del(0, []byte(fmt.Sprint("k", i)), t0)
	}
	s.RehashCycle(1 << 30)
	if s.DBSize(0) != 0 || s.UsedMemory() != 0 {
		t.Fatalf("after deleting every key: %d keys, %d bytes", s.DBSize(0), s.UsedMemory())
	}
}

func TestSwapDBAndMove(t *testing.T) {
	s := New(Options{})
	s.Set(0, []byte("a"), []byte("in0"), t0, SetOptions{})
	s.Set(1, []byte("b"), []byte("in1"), t0, SetOptions{ExpireAt: t0 + 5000})
	s.SwapDB(0, 1)
	if v, _ := get(s, 1, "a", t0); v != "in0" {
		t.Fatalf("db1 a = %q after SWAPDB", v)
	}
	if at := s.ExpireAt(0, []byte("b"), t0); at != t0+5000 {
		t.Fatalf("db0 b TTL = %d after SWAPDB", at)
	}
	// the swapped tables still account their memory to the store
	before := s.UsedMemory()
	s.Set(0, []byte("c"), make([]byte, 1000), t0, SetOptions{})
	if s.UsedMemory() <= before {
		t.Fatal("a write after SWAPDB was not accounted")
	}
	if st := s.Move(0, 2, []byte("b"), t0); st != OK {
		t.Fatalf("MOVE = %v", st)
	}
	if at := s.ExpireAt(2, []byte("b"), t0); at != t0+5000 {
		t.Fatalf("moved b TTL = %d", at)
	}
	s.Set(0, []byte("b"), []byte("again"), t0, SetOptions{})
	if st := s.Move(0, 2, []byte("b"), t0); st != NotSet {
		t.Fatalf("MOVE onto an existing key = %v, want NotSet", st)
	}
	if st := s.Move(0, 0, []byte("b"), t0); st != SameObject {
		t.Fatalf("MOVE to the same db = %v, want SameObject", st)
	}
	s.FlushAll()
	if s.UsedMemory() != 0 {
		t.Fatalf("UsedMemory = %d after FLUSHALL", s.UsedMemory())
	}
}

// A string command on a key of another type answers WrongType and changes
// nothing; SET replaces it.
func TestStringOpsOnOtherTypes(t *testing.T) {
	s := New(Options{})
	key := []byte("h")
	k := s.acquire(0, key, t0, false)
	k.create(key, TypeHash, EncListpack, []byte{7, 0, 0, 0, 0, 0, 0xff}, 0, 0)
	k.release()
	if _, st := s.Get(0, key, t0, nil, rawEnc); st != WrongType {
		t.Fatalf("GET = %v", st)
	}
	if _, st := s.IncrBy(0, key, t0, 1); st != WrongType {
		t.Fatalf("INCRBY = %v", st)
	}
	if _, st := s.Append(0, key, []byte("x"), t0); st != WrongType {
		t.Fatalf("APPEND = %v", st)
	}
	if _, _, st := s.SetGet(0, key, []byte("x"), t0, SetOptions{}, nil, rawEnc); st != WrongType {
		t.Fatalf("SET GET = %v", st)
	}
	if s.TypeOf(0, key, t0) != TypeHash {
		t.Fatalf("TYPE = %v after refused writes", s.TypeOf(0, key, t0))
	}
	if st := s.Set(0, key, []byte("now a string"), t0, SetOptions{}); st != OK {
		t.Fatalf("SET = %v", st)
	}
	if info, _ := s.Object(0, key, t0); info.Type != TypeString || info.Encoding != EncEmbstr {
		t.Fatalf("after SET: %v %v", info.Type, info.Encoding)
	}
}

var stringEncodingTests = []struct {
	val  string
	want Encoding
}{
	{"123", EncInt}, {"-9223372036854775808", EncInt}, {"9223372036854775808", EncEmbstr},
	{"0123", EncEmbstr}, {"abc", EncEmbstr}, {string(make([]byte, 44)), EncEmbstr}, {string(make([]byte, 45)), EncRaw},
}

func TestStringEncodingsAsRedis(t *testing.T) {
	s := New(Options{})
	for _, tt := range stringEncodingTests {
		s.Set(0, []byte("k"), []byte(tt.val), t0, SetOptions{})
		if info, _ := s.Object(0, []byte("k"), t0); info.Encoding != tt.want {
			t.Errorf("SET %q: encoding %v, want %v", tt.val, info.Encoding, tt.want)
		}
	}
	s.Append(0, []byte("k"), []byte("x"), t0)
	if info, _ := s.Object(0, []byte("k"), t0); info.Encoding != EncRaw {
		t.Errorf("after APPEND: %v, want raw", info.Encoding)
	}
	s.Set(0, []byte("n"), []byte("abc"), t0, SetOptions{})
	s.Set(0, []byte("n"), []byte("5"), t0, SetOptions{})
	s.IncrBy(0, []byte("n"), t0, 1)
	if info, _ := s.Object(0, []byte("n"), t0); info.Encoding != EncInt {
		t.Errorf("after INCR: %v, want int", info.Encoding)
	}
}

// The keyspace keeps its keys and values in pointer-free pages: the heap
// the collector must scan does not grow with the number of keys.
func TestGCScanWorkDoesNotGrowWithKeys(t *testing.T) {
	sample := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}}
	scan := func() uint64 {
		runtime.GC()
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	s := New(Options{})
	before := scan()
	const n = 200_000
	val := []byte("0123456789abcdef")
	for i := 0; i < n; i++ {
		s.Set(0, []byte(fmt.Sprintf("key:%010d", i)), val, t0, SetOptions{ExpireAt: t0 + int64(i)})
	}
	after := scan()
	grown := int64(after) - int64(before)
	if perKey := float64(grown) / n; perKey > 1 {
		t.Fatalf("scannable heap grew by %d bytes for %d keys (%.2f per key); want well under one pointer per key", grown, n, perKey)
	}
	runtime.KeepAlive(s)
}

// Deleting a value with many fields leaves them to RehashCycle, which frees
// them by steps; a small one is freed at once.
func TestBigValuesAreFreedLazily(t *testing.T) {
	s := New(Options{})
	mk := func(key string, fields int) {
		k := s.acquire(0, []byte(key), t0, false)
		defer k.release()
		idx := k.t.newHashtable()
		k.create([]byte(key), TypeSet, EncHashtable, idx[:], 0, 0)
		for i := 0; i < fields; i++ {
			k.fieldPut([]byte(fmt.Sprint("member:", i)), nil)
		}
	}
	mk("small", 10)
	s.Del(0, []byte("small"), t0)
	if m := s.UsedMemory(); m != 0 {
		t.Fatalf("UsedMemory = %d after deleting a 10-member set", m)
	}
	mk("big", 20000)
	s.Del(0, []byte("big"), t0)
	if s.UsedMemory() == 0 {
		t.Fatal("a 20000-member set was freed inside DEL")
	}
	if s.Exists(0, []byte("big"), t0) {
		t.Fatal("the deleted key still exists")
	}
	mk("big2", 100) // the keyspace stays usable while the trash waits
	s.Del(0, []byte("big2"), t0)
	for i := 0; i < 1000 && s.UsedMemory() != 0; i++ {
		s.RehashCycle(time.Millisecond)
	}
	if m := s.UsedMemory(); m != 0 {
		t.Fatalf("UsedMemory = %d after RehashCycle swept the trash", m)
	}
}

// RENAME within a shard hands the hash table to the new key; RENAME to
// another shard and COPY clone it. The members survive either way and the
// memory returns to zero.
func TestRenameAndCopyHashTableValues(t *testing.T) {
	s := New(Options{})
	key := []byte("{x}a")
	k := s.acquire(0, key, t0, false)
	idx := k.t.newHashtable()
	k.create(key, TypeSet, EncHashtable, idx[:], 0, 0)
	for i := 0; i < 100; i++ {
		k.fieldPut([]byte(fmt.Sprint("m", i)), []byte(fmt.Sprint("v", i)))
	}
	k.release()
	check := func(name string) {
		t.Helper()
		k := s.acquire(0, []byte(name), t0, false)
		defer k.release()
		if k.kind() != TypeSet || k.enc() != EncHashtable || k.fieldCount() != 100 {
			t.Fatalf("%s: type %v enc %v", name, k.kind(), k.enc())
		}
		for i := 0; i < 100; i++ {
			if v, ok := k.fieldGet([]byte(fmt.Sprint("m", i))); !ok || string(v) != fmt.Sprint("v", i) {
				t.Fatalf("%s: m%d = %q %v", name, i, v, ok)
			}
		}
	}
	if st := s.Rename(0, key, []byte("{x}b"), t0, false); st != OK {
		t.Fatal(st)
	}
	check("{x}b")
	if st := s.Rename(0, []byte("{x}b"), []byte("elsewhere"), t0, false); st != OK {
		t.Fatal(st)
	}
	check("elsewhere")
	if st := s.Copy(0, []byte("elsewhere"), 3, []byte("copied"), t0, false); st != OK {
		t.Fatal(st)
	}
	s.Del(0, []byte("elsewhere"), t0)
	k = s.acquire(3, []byte("copied"), t0, false)
	n := k.fieldCount()
	k.release()
	if n != 100 {
		t.Fatalf("copy has %d members", n)
	}
	s.Del(3, []byte("copied"), t0)
	for i := 0; i < 100 && s.UsedMemory() != 0; i++ {
		s.RehashCycle(time.Millisecond)
	}
	if m := s.UsedMemory(); m != 0 {
		t.Fatalf("UsedMemory = %d", m)
	}
}

// A Lock view runs operations under the locks it holds: another client
// never sees half of what it does, and its own multi-key operations do not
// deadlock on locks it already has.
func TestLockViewIsAtomic(t *testing.T) {
	s := New(Options{})
	a, b := []byte("a"), []byte("zzz") // different shards
	if s.shardIndex(a) == s.shardIndex(b) {
		t.Fatal("pick keys of different shards")
	}
	s.MSet(0, [][]byte{a, []byte("0"), b, []byte("0")}, t0)
	done := make(chan struct{})
	go func() {
		defer close(done)
		var lv LockedView // every other transaction reuses it, as EXEC does
		for i := 1; i <= 300; i++ {
			v := s.Lock([][]byte{a, b}, false)
			if i%2 == 0 {
				v.Unlock()
				v = s.LockInto(&lv, [][]byte{b, a}, false)
			}
			v.Set(0, a, []byte(fmt.Sprint(i)), t0, SetOptions{})
			v.IncrBy(0, b, t0, 1)
			v.MSet(0, [][]byte{a, []byte(fmt.Sprint(i)), b, []byte(fmt.Sprint(i))}, t0) // locks a and b again: held
			v.Rename(0, a, a, t0, false)
			v.Unlock()
		}
	}()
	for {
		select {
		case <-done:
			if got := string(s.MGet(0, [][]byte{a, b}, t0, nil, rawEnc, rawMissing)); got != "300300" {
				t.Fatalf("after the transactions: %q", got)
			}
			all := s.Lock(nil, true)
			all.FlushAll()
			all.Unlock()
			if s.DBSize(0) != 0 {
				t.Fatal("FLUSHALL on an all-shard view left keys")
			}
			return
		default:
		}
		got := s.MGet(0, [][]byte{a, b}, t0, nil, func(dst, v []byte) []byte { return append(append(dst, v...), ',') }, rawMissing)
		var x, y string
		fmt.Sscanf(strings.ReplaceAll(string(got), ",", " "), "%s %s", &x, &y)
		if x != y {
			t.Fatalf("saw half a transaction: a=%s b=%s", x, y)
		}
	}
}

// A LockedView reused by LockInto holds exactly the shards of its latest
// Lock: Unlock forgets the ones before, and locking allocates nothing.
func TestLockIntoReuse(t *testing.T) {
	s := New(Options{})
	a, b := []byte("a"), []byte("zzz") // different shards
	ia, ib := s.shardIndex(a), s.shardIndex(b)
	var lv LockedView
	v := s.LockInto(&lv, [][]byte{a, b}, false)
	v.Set(0, b, []byte("1"), t0, SetOptions{})
	if s.shards[ib].mu.TryLock() {
		t.Fatal("b's shard is not locked by the view holding it")
	}
	v.Unlock()
	v = s.LockInto(&lv, [][]byte{a}, false)
	if !s.shards[ib].mu.TryLock() {
		t.Fatal("b's shard is still locked after the view that held it was unlocked and relocked for a alone")
	}
	s.shards[ib].mu.Unlock()
	if s.shards[ia].mu.TryLock() {
		t.Fatal("a's shard is not locked")
	}
	v.Set(0, a, []byte("2"), t0, SetOptions{})
	v.Unlock()
	v = s.LockInto(&lv, nil, true)
	if n := v.DBSize(0); n != 2 {
		t.Fatalf("DBSize on an all-shard view = %d", n)
	}
	v.Unlock()
	func() {
		defer func() {
			if recover() == nil {
				t.Error("LockInto of a view still locked did not panic")
			}
		}()
		s.LockInto(&lv, [][]byte{a}, false)
		s.LockInto(&lv, [][]byte{a}, false)
	}()
	lv.v.Unlock()
	keys := [][]byte{a, b}
	if n := testing.AllocsPerRun(100, func() { s.LockInto(&lv, keys, false).Unlock() }); n != 0 {
		t.Fatalf("LockInto and Unlock: %v allocs, want 0", n)
	}
}
