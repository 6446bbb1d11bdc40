package store

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

const t0 = int64(1_700_000_000_000) // a fixed "now", Unix ms

// rawEnc appends v as is.
func rawEnc(dst, v []byte) []byte { return append(dst, v...) }

func get(s *Store, db int, key string, now int64) (string, Status) {
	v, st := s.Get(db, []byte(key), now, nil, rawEnc)
	return string(v), st
}

func TestSetGetOverwriteAndDatabases(t *testing.T) {
	s := New(Options{})
	s.Set(0, []byte("k"), []byte("hello"), t0, SetOptions{})
	if v, st := get(s, 0, "k", t0); v != "hello" || st != OK {
		t.Fatalf("get = %q %v, want hello OK", v, st)
	}
	if _, st := get(s, 1, "k", t0); st != NotFound {
		t.Fatalf("db1 get = %v, want NotFound", st)
	}
	s.Set(0, []byte("k"), []byte("hi"), t0, SetOptions{})
	s.Set(0, []byte("k"), []byte("a much longer value than before"), t0, SetOptions{})
	if v, _ := get(s, 0, "k", t0); v != "a much longer value than before" {
		t.Fatalf("get = %q", v)
	}
	if st := s.Set(0, []byte("k"), []byte("x"), t0, SetOptions{Mode: SetNX}); st != NotSet {
		t.Fatalf("NX on existing = %v, want NotSet", st)
	}
	if st := s.Set(0, []byte("new"), []byte("x"), t0, SetOptions{Mode: SetXX}); st != NotSet {
		t.Fatalf("XX on missing = %v, want NotSet", st)
	}
	if n := s.DBSize(0); n != 1 {
		t.Fatalf("DBSize = %d, want 1", n)
	}
}

func TestValueIsCopiedNotAliased(t *testing.T) {
	s := New(Options{})
	val := []byte("abc")
	s.Set(0, []byte("k"), val, t0, SetOptions{})
	val[0] = 'X'
	if v, _ := get(s, 0, "k", t0); v != "abc" {
		t.Fatalf("stored value changed with the caller's buffer: %q", v)
	}
}

var incrTests = []struct {
	start string // "" = missing
	delta int64
	want  int64
	st    Status
}{
	{"", 1, 1, OK},
	{"10", -15, -5, OK},
	{"9223372036854775806", 1, math.MaxInt64, OK},
	{"9223372036854775807", 1, 0, Overflow},
	{"-9223372036854775808", -1, 0, Overflow},
	{"1.5", 1, 0, NotInteger},
	{"01", 1, 0, NotInteger},
	{" 1", 1, 0, NotInteger},
	{"-0", 1, 0, NotInteger},
	{"abc", 1, 0, NotInteger},
}

func TestIncrByFollowsRedisIntegerRules(t *testing.T) {
	for i, tt := range incrTests {
		s := New(Options{})
		if tt.start != "" {
			s.Set(0, []byte("n"), []byte(tt.start), t0, SetOptions{})
		}
		n, st := s.IncrBy(0, []byte("n"), t0, tt.delta)
		if st != tt.st || (st == OK && n != tt.want) {
			t.Errorf("#%d: IncrBy(%q, %d) = %d %v, want %d %v", i, tt.start, tt.delta, n, st, tt.want, tt.st)
		}
	}
}

var floatTests = []struct {
	start, incr, want string
	st                Status
}{
	{"10.50", "0.1", "10.6", OK},
	{"10.6", "-5", "5.6", OK},
	{"5.0e3", "2.0e2", "5200", OK},
	{"0.1", "0.2", "0.3", OK},
	{"", "3", "3", OK},
	{"1", "-1", "0", OK},
	{"abc", "1", "", NotFloat},
	{"1", "x", "", NotFloat},
	{"1", " 1", "", NotFloat},
	{"1", "inf", "", NaNOrInf},
	{"1", "", "", NotFloat},
}

func TestIncrByFloatFormatsAsRedis(t *testing.T) {
	for i, tt := range floatTests {
		s := New(Options{})
		if tt.start != "" {
			s.Set(0, []byte("f"), []byte(tt.start), t0, SetOptions{})
		}
		v, st := s.IncrByFloat(0, []byte("f"), t0, []byte(tt.incr), nil, rawEnc)
		if st != tt.st || string(v) != tt.want {
			t.Errorf("#%d: IncrByFloat(%q, %q) = %q %v, want %q %v", i, tt.start, tt.incr, v, st, tt.want, tt.st)
		}
	}
}

func TestLazyExpiryDeletesOnAccess(t *testing.T) {
	s := New(Options{})
	s.Set(0, []byte("k"), []byte("v"), t0, SetOptions{ExpireAt: t0 + 100})
	if _, st := get(s, 0, "k", t0+99); st != OK {
		t.Fatalf("before expiry: %v", st)
	}
	if at := s.ExpireAt(0, []byte("k"), t0+99); at != t0+100 {
		t.Fatalf("ExpireAt = %d, want %d", at, t0+100)
	}
	if _, st := get(s, 0, "k", t0+100); st != NotFound {
		t.Fatalf("at expiry: %v, want NotFound", st)
	}
	st := s.Stats()
	if st.ExpiredKeys != 1 || st.DBs[0].Keys != 0 || st.DBs[0].Expires != 0 {
		t.Fatalf("stats after lazy expiry = %+v", st)
	}
}

func TestSetClearsTTLUnlessKeepTTL(t *testing.T) {
	s := New(Options{})
	k := []byte("k")
	s.Set(0, k, []byte("v"), t0, SetOptions{ExpireAt: t0 + 1000})
	s.Set(0, k, []byte("w"), t0, SetOptions{KeepTTL: true})
	if at := s.ExpireAt(0, k, t0); at != t0+1000 {
		t.Fatalf("KEEPTTL lost the TTL: %d", at)
	}
	s.Set(0, k, []byte("x"), t0, SetOptions{})
	if at := s.ExpireAt(0, k, t0); at != -1 {
		t.Fatalf("plain SET kept the TTL: %d", at)
	}
}

var expireCondTests = []struct {
	cur  int64 // current TTL: 0 = none
	at   int64
	cond ExpireCond
	want bool
}{
	{0, t0 + 10, ExpireNX, true},
	{t0 + 5, t0 + 10, ExpireNX, false},
	{0, t0 + 10, ExpireXX, false},
	{t0 + 5, t0 + 10, ExpireXX, true},
	{0, t0 + 10, ExpireGT, false},
	{t0 + 5, t0 + 10, ExpireGT, true},
	{t0 + 50, t0 + 10, ExpireGT, false},
	{0, t0 + 10, ExpireLT, true},
	{t0 + 5, t0 + 10, ExpireLT, false},
	{t0 + 50, t0 + 10, ExpireLT, true},
}

func TestExpireConditions(t *testing.T) {
	for i, tt := range expireCondTests {
		s := New(Options{})
		s.Set(0, []byte("k"), []byte("v"), t0, SetOptions{ExpireAt: tt.cur})
		if got := s.Expire(0, []byte("k"), t0, tt.at, tt.cond); got != tt.want {
			t.Errorf("#%d: Expire = %v, want %v", i, got, tt.want)
		}
	}
}

func TestExpireInThePastDeletesKey(t *testing.T) {
	s := New(Options{})
	s.Set(0, []byte("k"), []byte("v"), t0, SetOptions{})
	if !s.Expire(0, []byte("k"), t0, t0-1, 0) {
		t.Fatal("Expire in the past returned false")
	}
	if s.DBSize(0) != 0 {
		t.Fatal("key still there after EXPIRE in the past")
	}
}

func TestActiveExpireCycleRemovesExpiredKeys(t *testing.T) {
	s := New(Options{Shards: 4})
	for i := 0; i < 1000; i++ {
		at := t0 + 10
		if i%10 == 0 {
			at = t0 + 1_000_000
		}
		s.Set(i%3, []byte(fmt.Sprint("k", i)), []byte("v"), t0, SetOptions{ExpireAt: at})
	}
	s.Set(0, []byte("forever"), []byte("v"), t0, SetOptions{})
	s.ActiveExpireCycle(t0+5, time.Second)
	if got := s.Stats().ExpiredKeys; got != 0 {
		t.Fatalf("cycle before expiry deleted %d keys", got)
	}
	s.ActiveExpireCycle(t0+20, time.Second)
	st := s.Stats()
	keys := 0
	for _, d := range st.DBs {
		keys += d.Keys
	}
	// Sampling stops once <= 25% of a sample is expired, so a few expired
	// keys may survive one cycle, but most must go.
	if st.ExpiredKeys < 800 || keys > 201 {
		t.Fatalf("after cycle: expired %d, keys left %d", st.ExpiredKeys, keys)
	}
	for i := 0; i < 20; i++ {
		s.ActiveExpireCycle(t0+20, time.Second)
	}
	if got := s.Stats().ExpiredKeys; got != 900 {
		t.Fatalf("after repeated cycles expired %d, want 900", got)
	}
	if s.Stats().DBs[0].AvgTTL <= 0 {
		t.Fatal("AvgTTL not estimated")
	}
}

func TestRenameAndCopy(t *testing.T) {
	s := New(Options{})
	s.Set(0, []byte("a"), []byte("1"), t0, SetOptions{ExpireAt: t0 + 5000})
	if st := s.Rename(0, []byte("missing"), []byte("b"), t0, false); st != NotFound {
		t.Fatalf("rename missing = %v", st)
	}
	if st := s.Rename(0, []byte("a"), []byte("b"), t0, false); st != OK {
		t.Fatalf("rename = %v", st)
	}
	if s.ExpireAt(0, []byte("b"), t0) != t0+5000 || s.Exists(0, []byte("a"), t0) {
		t.Fatal("rename lost the TTL or kept the source")
	}
	s.Set(0, []byte("c"), []byte("2"), t0, SetOptions{})
	if st := s.Rename(0, []byte("b"), []byte("c"), t0, true); st != NotSet {
		t.Fatalf("renamenx onto existing = %v", st)
	}
	if st := s.Copy(0, []byte("b"), 3, []byte("b"), t0, false); st != OK {
		t.Fatalf("copy to db3 = %v", st)
	}
	if v, _ := get(s, 3, "b", t0); v != "1" {
		t.Fatalf("copied value = %q", v)
	}
	if st := s.Copy(0, []byte("b"), 0, []byte("b"), t0, true); st != SameObject {
		t.Fatalf("copy onto itself = %v", st)
	}
	if st := s.Copy(0, []byte("b"), 0, []byte("c"), t0, false); st != NotSet {
		t.Fatalf("copy without replace = %v", st)
	}
}

func TestAppendSetRangeGetRange(t *testing.T) {
	s := New(Options{})
	k := []byte("s")
	if n, _ := s.Append(0, k, []byte("Hello"), t0); n != 5 {
		t.Fatalf("append = %d", n)
	}
	if n, _ := s.Append(0, k, []byte(" World"), t0); n != 11 {
		t.Fatalf("append = %d", n)
	}
	if n, _ := s.SetRange(0, k, 6, []byte("Redis"), t0); n != 11 {
		t.Fatalf("setrange = %d", n)
	}
	if n, _ := s.SetRange(0, []byte("z"), 3, []byte("x"), t0); n != 4 {
		t.Fatalf("setrange padding = %d", n)
	}
	if v, _ := get(s, 0, "z", t0); v != "\x00\x00\x00x" {
		t.Fatalf("padded value = %q", v)
	}
	if _, st := s.SetRange(0, k, MaxValueLen, []byte("x"), t0); st != TooLarge {
		t.Fatalf("setrange past the limit = %v", st)
	}
	for _, r := range []struct {
		start, end int64
		want       string
	}{{0, 4, "Hello"}, {-5, -1, "Redis"}, {-1, -5, ""}, {5, 100, " Redis"}, {20, 30, ""}} {
		v, _ := s.GetRange(0, k, t0, r.start, r.end, nil, rawEnc)
		if string(v) != r.want {
			t.Errorf("GetRange(%d,%d) = %q, want %q", r.start, r.end, v, r.want)
		}
	}
}

var matchTests = []struct {
	pat, s string
	want   bool
}{
	{"*", "anything", true},
	{"h?llo", "hello", true},
	{"h?llo", "hllo", false},
	{"h*llo", "heeeello", true},
	{"h[ae]llo", "hallo", true},
	{"h[ae]llo", "hillo", false},
	{"h[^e]llo", "hallo", true},
	{"h[^e]llo", "hello", false},
	{"h[a-b]llo", "hbllo", true},
	{"h[b-a]llo", "hbllo", true},
	{"h\\*llo", "h*llo", true},
	{"h\\*llo", "hello", false},
	{"a[", "a", false},
	{"a[bc", "ab", true},
	{"*a*b*c*", "xaybzc", true},
	{"*a*b*c*", "xaybz", false},
	{"", "", true},
	{"a*", "a", true},
	{"[\\]]", "]", true},
	{"\\", "\\", true},
}

func TestMatchFollowsStringmatchlen(t *testing.T) {
	for i, tt := range matchTests {
		if got := Match([]byte(tt.pat), []byte(tt.s)); got != tt.want {
			t.Errorf("#%d: Match(%q, %q) = %v, want %v", i, tt.pat, tt.s, got, tt.want)
		}
	}
}

func TestParseIntNeverAcceptsWhatRedisRejects(t *testing.T) {
	for _, s := range []string{"", "-", "+1", "01", "-0", " 1", "1 ", "1a", "99999999999999999999", "9223372036854775808", "-9223372036854775809"} {
		if _, ok := ParseInt([]byte(s)); ok {
			t.Errorf("ParseInt(%q) accepted", s)
		}
	}
	for s, want := range map[string]int64{"0": 0, "-1": -1, "9223372036854775807": math.MaxInt64, "-9223372036854775808": math.MinInt64} {
		if v, ok := ParseInt([]byte(s)); !ok || v != want {
			t.Errorf("ParseInt(%q) = %d %v", s, v, ok)
		}
	}
}

// scanAll runs a whole SCAN iteration and returns the keys seen.
func scanAll(s *Store, db int, now int64, o ScanOptions, during func()) map[string]int {
	seen := map[string]int{}
	cur := uint64(0)
	for {
		cur = s.Scan(db, cur, now, o, func(k []byte) { seen[string(k)]++ })
		if during != nil {
			during()
		}
		if cur == 0 {
			return seen
		}
	}
}

func TestScanReturnsEveryKeyPresentThroughoutUnderChurn(t *testing.T) {
	s := New(Options{Shards: 8})
	for i := 0; i < 2000; i++ {
		s.Set(0, []byte(fmt.Sprint("stable", i)), []byte("v"), t0, SetOptions{})
	}
	// Between SCAN calls, add and delete other keys so that tables grow,
	// shrink and rehash under the cursor.
	n := 0
	churn := func() {
		for j := 0; j < 300; j++ {
			s.Set(0, []byte(fmt.Sprint("tmp", n)), []byte("v"), t0, SetOptions{})
			if n >= 200 {
				s.Del(0, []byte(fmt.Sprint("tmp", n-200)), t0)
			}
			n++
		}
		if n%3000 == 0 { // occasionally delete a whole batch to force shrinks
			for j := n - 200; j < n; j++ {
				s.Del(0, []byte(fmt.Sprint("tmp", j)), t0)
			}
		}
	}
	seen := scanAll(s, 0, t0, ScanOptions{Count: 7}, churn)
	for i := 0; i < 2000; i++ {
		if seen[fmt.Sprint("stable", i)] == 0 {
			t.Fatalf("SCAN missed stable%d (present during the whole iteration)", i)
		}
	}
}

func TestScanFiltersByMatchAndType(t *testing.T) {
	s := New(Options{})
	for _, k := range []string{"user:1", "user:2", "item:1"} {
		s.Set(0, []byte(k), []byte("v"), t0, SetOptions{})
	}
	s.Set(0, []byte("user:old"), []byte("v"), t0, SetOptions{ExpireAt: t0 + 1})
	got := scanAll(s, 0, t0+5, ScanOptions{Pattern: []byte("user:*")}, nil)
	if len(got) != 2 || got["user:1"] == 0 || got["user:2"] == 0 {
		t.Fatalf("MATCH user:* = %v", got)
	}
	if got := scanAll(s, 0, t0, ScanOptions{Type: []byte("list")}, nil); len(got) != 0 {
		t.Fatalf("TYPE list = %v", got)
	}
	if got := scanAll(s, 0, t0, ScanOptions{Type: []byte("STRING")}, nil); len(got) != 4 {
		t.Fatalf("TYPE STRING = %v", got)
	}
}

func TestKeysAndRandomKey(t *testing.T) {
	s := New(Options{})
	if _, ok := s.RandomKey(0, t0, nil, rawEnc); ok {
		t.Fatal("RandomKey on empty db")
	}
	var want []string
	for i := 0; i < 50; i++ {
		k := fmt.Sprint("k", i)
		want = append(want, k)
		s.Set(0, []byte(k), []byte("v"), t0, SetOptions{})
	}
	var got []string
	s.Keys(0, []byte("*"), t0, func(k []byte) { got = append(got, string(k)) })
	sort.Strings(got)
	sort.Strings(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("KEYS * = %v", got)
	}
	k, ok := s.RandomKey(0, t0, nil, rawEnc)
	if !ok || !s.Exists(0, k, t0) {
		t.Fatalf("RandomKey = %q %v", k, ok)
	}
}

func TestMSetNXIsAllOrNothing(t *testing.T) {
	s := New(Options{})
	s.Set(0, []byte("b"), []byte("old"), t0, SetOptions{})
	if s.MSetNX(0, [][]byte{[]byte("a"), []byte("1"), []byte("b"), []byte("2")}, t0) {
		t.Fatal("MSETNX succeeded with an existing key")
	}
	if s.Exists(0, []byte("a"), t0) {
		t.Fatal("MSETNX set a key although it failed")
	}
	if !s.MSetNX(0, [][]byte{[]byte("a"), []byte("1"), []byte("c"), []byte("2")}, t0) {
		t.Fatal("MSETNX failed on new keys")
	}
}

func TestStatsAndFlush(t *testing.T) {
	s := New(Options{})
	s.Set(0, []byte("a"), []byte("1"), t0, SetOptions{})
	s.Set(2, []byte("b"), []byte("1"), t0, SetOptions{ExpireAt: t0 + 10})
	get(s, 0, "a", t0)
	get(s, 0, "zz", t0)
	st := s.Stats()
	if st.KeyspaceHits != 1 || st.KeyspaceMisses != 1 || st.DBs[0].Keys != 1 || st.DBs[2].Expires != 1 || st.UsedMemory <= 0 {
		t.Fatalf("stats = %+v", st)
	}
	s.FlushDB(0)
	if s.DBSize(0) != 0 || s.DBSize(2) != 1 {
		t.Fatal("FlushDB flushed the wrong db")
	}
	s.FlushAll()
	if st := s.Stats(); st.UsedMemory != 0 || st.DBs[2].Keys != 0 {
		t.Fatalf("after FlushAll: %+v", st)
	}
}

func TestConcurrentLoopsKeepCountersExact(t *testing.T) {
	s := New(Options{Shards: 4})
	const loops, per = 4, 2000
	var wg sync.WaitGroup
	for g := 0; g < loops; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			buf := make([]byte, 0, 64)
			for i := 0; i < per; i++ {
				s.IncrBy(0, []byte("counter"), t0, 1)
				k := []byte(fmt.Sprint("g", g, "-", i%50))
				s.Set(0, k, []byte("value"), t0, SetOptions{ExpireAt: t0 + int64(i%3)*10})
				buf, _ = s.Get(0, k, t0+15, buf[:0], rawEnc)
				s.MSet(0, [][]byte{k, []byte("x"), []byte("shared"), []byte("y")}, t0)
				s.Rename(0, k, []byte(fmt.Sprint("r", g)), t0, false)
				if i%100 == 0 {
					s.ActiveExpireCycle(t0+15, time.Millisecond)
					s.Scan(0, 0, t0, ScanOptions{}, func([]byte) {})
					s.Stats()
				}
			}
		}(g)
	}
	wg.Wait()
	if v, _ := get(s, 0, "counter", t0); v != fmt.Sprint(loops*per) {
		t.Fatalf("counter = %s, want %d", v, loops*per)
	}
}

func TestUsedMemoryReturnsToZero(t *testing.T) {
	s := New(Options{})
	for i := 0; i < 100; i++ {
		k := []byte(fmt.Sprint("k", i))
		s.Set(0, k, bytes.Repeat([]byte("x"), i), t0, SetOptions{})
		s.Append(0, k, []byte("yyyy"), t0)
		s.SetRange(0, k, 200, []byte("z"), t0)
		s.IncrByFloat(0, []byte(fmt.Sprint("f", i)), t0, []byte("1.5"), nil, rawEnc)
	}
	for i := 0; i < 100; i++ {
		s.Del(0, []byte(fmt.Sprint("k", i)), t0)
		s.Del(0, []byte(fmt.Sprint("f", i)), t0)
	}
	if m := s.Stats().UsedMemory; m != 0 {
		t.Fatalf("UsedMemory = %d after deleting everything", m)
	}
}

func TestScanGuaranteeWithConcurrentWriters(t *testing.T) {
	s := New(Options{Shards: 4})
	for i := 0; i < 500; i++ {
		s.Set(0, []byte(fmt.Sprint("stable", i)), []byte("v"), t0, SetOptions{})
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				k := []byte(fmt.Sprint("tmp", g, "-", n%3000))
				if n%6000 < 3000 {
					s.Set(0, k, []byte("v"), t0, SetOptions{})
				} else {
					s.Del(0, k, t0)
				}
			}
		}(g)
	}
	for round := 0; round < 5; round++ {
		seen := scanAll(s, 0, t0, ScanOptions{Count: 5}, nil)
		for i := 0; i < 500; i++ {
			if seen[fmt.Sprint("stable", i)] == 0 {
				close(stop)
				wg.Wait()
				t.Fatalf("round %d: SCAN missed stable%d", round, i)
			}
		}
	}
	close(stop)
	wg.Wait()
}

func TestSmallValueReleasesBigBuffer(t *testing.T) {
	s := New(Options{})
	s.Set(0, []byte("k"), make([]byte, 1<<20), t0, SetOptions{})
	big := s.Stats().UsedMemory
	s.Set(0, []byte("k"), []byte("small"), t0, SetOptions{})
	if m := s.Stats().UsedMemory; m > big/100 {
		t.Fatalf("UsedMemory %d after overwriting a 1 MiB value with 5 bytes (was %d)", m, big)
	}
}

func TestShardsRoundUpToPowerOfTwo(t *testing.T) {
	for _, n := range []int{1, 3, 64, 100, 5000} {
		s := New(Options{Shards: n})
		if got := len(s.shards); got&(got-1) != 0 || got < min(n, maxShards) || got > maxShards {
			t.Errorf("Shards %d gave %d shards", n, got)
		}
		for i := 0; i < 100; i++ {
			s.Set(0, []byte(fmt.Sprint(i)), []byte("v"), t0, SetOptions{})
		}
		if s.DBSize(0) != 100 {
			t.Errorf("Shards %d: DBSize %d", n, s.DBSize(0))
		}
	}
}

func TestMGetNeverSeesHalfAnMSet(t *testing.T) {
	s := New(Options{Shards: 16})
	keys := [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("d")}
	s.MSet(0, [][]byte{keys[0], []byte("0"), keys[1], []byte("0"), keys[2], []byte("0"), keys[3], []byte("0")}, t0)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i < 3000; i++ {
			v := []byte(fmt.Sprint(i))
			s.MSet(0, [][]byte{keys[0], v, keys[1], v, keys[2], v, keys[3], v}, t0)
		}
	}()
	miss := func(dst []byte) []byte { return append(dst, "nil,"...) }
	enc := func(dst, v []byte) []byte { return append(append(dst, v...), ',') }
	for {
		select {
		case <-done:
			return
		default:
		}
		got := string(s.MGet(0, keys, t0, nil, enc, miss))
		parts := strings.Split(got, ",")
		for _, p := range parts[1:4] {
			if p != parts[0] {
				t.Fatalf("MGET saw a torn MSET: %q", got)
			}
		}
	}
}

func TestDelKeysAndCountExisting(t *testing.T) {
	s := New(Options{})
	s.MSet(0, [][]byte{[]byte("a"), []byte("1"), []byte("b"), []byte("2")}, t0)
	s.Set(0, []byte("old"), []byte("v"), t0, SetOptions{ExpireAt: t0 + 1})
	keys := [][]byte{[]byte("a"), []byte("a"), []byte("b"), []byte("old"), []byte("none")}
	if n := s.CountExisting(0, keys, t0+5); n != 3 {
		t.Fatalf("CountExisting = %d, want 3", n)
	}
	if n := s.DelKeys(0, keys, t0+5); n != 2 {
		t.Fatalf("DelKeys = %d, want 2", n)
	}
	if s.DBSize(0) != 0 {
		t.Fatalf("DBSize = %d after DelKeys", s.DBSize(0))
	}
}

// TestPausedKeepsExpiredKeys: while SetPaused, a key past its TTL reads
// as missing but stays, uncounted and unjournaled, through lookups, the
// active cycle and Evict; a write that makes the key again replaces it
// (one record, counted expired then); after the pause a lookup deletes
// the rest.
func TestPausedKeepsExpiredKeys(t *testing.T) {
	s := New(Options{Shards: 4})
	var j Journal
	v := s.WithJournal(&j)
	for _, k := range []string{"a", "b", "c"} {
		s.Set(0, []byte(k), []byte("1"), t0, SetOptions{ExpireAt: t0 + 10})
	}
	s.SetPaused(true)
	later := int64(t0 + 20)
	if _, st := get(v, 0, "a", later); st != NotFound || v.Exists(0, []byte("b"), later) {
		t.Fatalf("an expired key read during the pause: %v", st)
	}
	if _, ok := v.Object(0, []byte("c"), later); ok {
		t.Fatal("OBJECT found an expired key")
	}
	if _, ok := v.RandomKey(0, later, nil, rawEnc); ok {
		t.Fatal("RANDOMKEY found an expired key")
	}
	v.ActiveExpireCycle(later, time.Second)
	if n, st := v.Evict(later, EvictOptions{MaxMemory: 1, Policy: AllKeysRandom}); n != 0 || st != OK {
		t.Fatalf("Evict during the pause: %d %v", n, st)
	}
	if st := s.Stats(); st.ExpiredKeys != 0 || st.DBs[0].Keys != 3 || j.Len() != 0 {
		t.Fatalf("during the pause: %+v, %d journaled", st, j.Len())
	}
	v.Set(0, []byte("a"), []byte("2"), later, SetOptions{})
	if got, st := get(v, 0, "a", later); st != OK || got != "2" || s.DBSize(0) != 3 || s.Stats().ExpiredKeys != 1 {
		t.Fatalf("a write over an expired key during the pause: %q %v, %d keys, %d expired", got, st, s.DBSize(0), s.Stats().ExpiredKeys)
	}
	s.SetPaused(false)
	v.Exists(0, []byte("b"), later)
	v.Exists(0, []byte("c"), later)
	want := []journaled{{0, "a", false}, {0, "b", false}, {0, "c", false}}
	if got := journalOf(&j); !slices.Equal(got, want) || s.DBSize(0) != 1 {
		t.Fatalf("journal %v, want %v; %d keys", got, want, s.DBSize(0))
	}
}
