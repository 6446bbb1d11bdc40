package store

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"testing"
)

// setEntry is the oracle's view of one key for FuzzSetOps: a string (only
// there to be the wrong type) or a set with the encoding Redis 7.2 would
// give it and, for a listpack, its members' order when the model knows it
// (not for a stored result, whose order follows the sources' hash tables).
type setEntry struct {
	str      bool
	members  map[string]bool
	enc      Encoding
	order    []string // a listpack's members in order, when ordKnown
	ordKnown bool
	at       int64 // 0 = no TTL
}

type setModel map[string]*setEntry

func (m setModel) live(k string, now int64) *setEntry {
	e := m[k]
	if e != nil && e.at != 0 && e.at <= now {
		delete(m, k)
		return nil
	}
	return e
}

// The fuzz store's limits, small so that short inputs cross them:
// set-max-intset-entries, set-max-listpack-entries and -value. The intset
// limit is at least the listpack's, as Redis's defaults are, so that the
// encoding of a result does not depend on the order of the sources' hash
// tables.
const (
	fuzzIntsetMax = 5
	fuzzLpEntries = 4
	fuzzLpValue   = 11
)

// setVocab are the members the fuzz operations draw from: canonical
// integers of every intset width (one exactly fuzzLpValue long),
// non-canonical ones and strings, short and long.
var setVocab = []string{"0", "1", "2", "3", "-7", "100000", "-5000000000", "9223372036854775807",
	"-9223372036854775808", "a", "b", "07", "", "-0", "member-of-some-length", "9223372036854775808"}

func isSetInt(m string) bool { _, ok := ParseInt([]byte(m)); return ok }

// newSetEntry is an empty set of encoding enc.
func newSetEntry(enc Encoding) *setEntry {
	return &setEntry{members: map[string]bool{}, enc: enc, ordKnown: true}
}

// createSetEntry is setTypeCreate on the model.
func createSetEntry(first string, hint int) *setEntry {
	switch {
	case isSetInt(first) && hint <= fuzzIntsetMax:
		return newSetEntry(EncIntset)
	case hint <= fuzzLpEntries:
		return newSetEntry(EncListpack)
	}
	return newSetEntry(EncHashtable)
}

// maybeConvert is setTypeMaybeConvert on the model.
func (e *setEntry) maybeConvert(hint int) {
	if (e.enc == EncListpack && hint > fuzzLpEntries) || (e.enc == EncIntset && hint > fuzzIntsetMax) {
		e.toHashtable()
	}
}

func (e *setEntry) toHashtable() { e.enc, e.order = EncHashtable, nil }

// add is setTypeAdd on the model: it reports whether m is new and
// converts the encoding as Redis 7.2 does.
func (e *setEntry) add(m string) bool {
	if e.members[m] {
		return false
	}
	n := len(e.members)
	switch {
	case e.enc == EncIntset && isSetInt(m):
		if n >= fuzzIntsetMax {
			e.toHashtable()
		}
	case e.enc == EncIntset:
		digits := 0
		for x := range e.members {
			digits = max(digits, len(x))
		}
		if n < fuzzLpEntries && len(m) <= fuzzLpValue && digits <= fuzzLpValue {
			e.enc, e.order = EncListpack, e.intList()
		} else {
			e.toHashtable()
		}
	case e.enc == EncListpack:
		if n >= fuzzLpEntries || len(m) > fuzzLpValue {
			e.toHashtable()
		}
	}
	e.members[m] = true
	if e.enc == EncListpack {
		e.order = append(e.order, m)
	}
	return true
}

// remove deletes m and reports whether it was a member.
func (e *setEntry) remove(m string) bool {
	if !e.members[m] {
		return false
	}
	delete(e.members, m)
	if i := slices.Index(e.order, m); i >= 0 {
		e.order = slices.Delete(e.order, i, i+1)
	}
	return true
}

// maybeToIntset is maybeConvertToIntset on the model.
func (e *setEntry) maybeToIntset() {
	if len(e.members) > fuzzIntsetMax {
		return
	}
	for x := range e.members {
		if !isSetInt(x) {
			return
		}
	}
	e.enc, e.order = EncIntset, nil
}

// buildSetEntry is a set of encoding enc built by adding ms in order.
func buildSetEntry(enc Encoding, ms ...string) *setEntry {
	e := newSetEntry(enc)
	for _, m := range ms {
		e.add(m)
	}
	return e
}

func (e *setEntry) list() []string { return slices.Sorted(maps.Keys(e.members)) }

// intList returns the members, all integers, in increasing order.
func (e *setEntry) intList() []string {
	return slices.SortedFunc(maps.Keys(e.members), func(a, b string) int {
		x, _ := strconv.ParseInt(a, 10, 64)
		y, _ := strconv.ParseInt(b, 10, 64)
		return cmp.Compare(x, y)
	})
}

// FuzzSetOps runs random set operations on a Store (4 shards, 2 databases,
// the small limits above) and on a model, comparing every result and,
// after each operation, every key's type and encoding (intset, listpack or
// hashtable, as Redis 7.2 would have them). Each op is 4 bytes:
// opcode, key (1 of 4, and the database), argument, time step.
func FuzzSetOps(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 0, 0, 9, 0, 3, 0, 0, 0})                           // SADD 1, SADD a (converts), SMEMBERS
	f.Add([]byte{0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0})   // past the intset limit
	f.Add([]byte{0, 1, 200, 0, 5, 1, 3, 0, 6, 1, 250, 0, 4, 1, 0, 0})           // SPOP count, SRANDMEMBER -6, SPOP
	f.Add([]byte{0, 0, 77, 0, 0, 2, 99, 0, 8, 0, 4, 0, 8, 0, 5, 0, 9, 0, 3, 0}) // stores and reads of inter, union, diff
	f.Add([]byte{0, 0, 5, 0, 11, 0, 5, 0, 3, 0, 0, 9, 7, 0, 1, 0})              // EXPIRE then read after it passes, SMOVE
	f.Add([]byte{12, 1, 0, 0, 0, 1, 3, 0, 7, 0, 1, 0, 8, 1, 0, 0, 14, 0, 0, 0, 15, 1, 0, 0})
	f.Add([]byte{0, 0, 255, 0, 0, 0, 254, 0, 0, 0, 253, 0, 5, 0, 6, 0, 10, 0, 0, 0}) // SPOP keeping 1, SSCAN
	f.Fuzz(func(t *testing.T, data []byte) {
		s := New(Options{Shards: 4, Databases: 2})
		l := DefaultLimits
		l.SetMaxIntsetEntries = fuzzIntsetMax
		l.SetMaxListpackEntries, l.SetMaxListpackValue = fuzzLpEntries, fuzzLpValue
		s.SetLimits(l)
		models := []setModel{{}, {}}
		keys := []string{"s", "t", "u{s}", "v"}
		now := t0
		for i := 0; i+4 <= len(data); i += 4 {
			op, kb, arg, step := data[i], data[i+1], data[i+2], data[i+3]
			now += int64(step % 16)
			db := int(kb>>2) & 1
			m := models[db]
			key, key2 := keys[kb&3], keys[(kb+1+arg%3)&3]
			runSetOp(t, s, m, db, op%16, key, key2, []string{key, keys[(kb+3)&3], keys[(kb+2)&3]}, arg, now)
			checkSetKeys(t, s, m, db, keys, now, i/4)
		}
	})
}

// memberArgs returns 1 to 3 members chosen by arg, or 4 to 6 (repeats
// possible) when arg >= 192, enough to cross the limits in one SADD.
func memberArgs(arg byte) []string {
	v := len(setVocab)
	ms := []string{setVocab[int(arg)%v]}
	n := int(arg) % 3
	if arg >= 192 {
		n += 3
	}
	for j := 0; j < n; j++ {
		ms = append(ms, setVocab[(int(arg)/3+7*j)%v])
	}
	return ms
}

func bs(ms []string) [][]byte {
	out := make([][]byte, len(ms))
	for i, m := range ms {
		out[i] = []byte(m)
	}
	return out
}

// statusOK reports whether st is right for an operation on e: WrongType
// for a string, OK for a set, OK or NotFound for a missing key.
func statusOK(e *setEntry, st Status) bool {
	switch {
	case e == nil:
		return st == OK || st == NotFound
	case e.str:
		return st == WrongType
	}
	return st == OK
}

// runSetOp runs one operation on key (and key2, or the sources srcs) of
// the store and of the model.
func runSetOp(t *testing.T, s *Store, m setModel, db int, op byte, key, key2 string, srcs []string, arg byte, now int64) {
	t.Helper()
	bk := []byte(key)
	e := m.live(key, now)
	fail := func(format string, a ...any) {
		t.Helper()
		t.Fatalf("op %d on %q: "+format, append([]any{op, key}, a...)...)
	}
	collect := func() (func([]byte), *[]string) {
		var got []string
		return func(b []byte) { got = append(got, string(b)) }, &got
	}
	switch op {
	case 0: // SADD
		ms := memberArgs(arg)
		n, st := s.SAdd(db, bk, bs(ms), now)
		if !statusOK(e, st) {
			fail("SADD = %v", st)
		}
		if st != OK {
			return
		}
		if e == nil {
			e = createSetEntry(ms[0], len(ms))
			m[key] = e
		} else {
			e.maybeConvert(len(ms))
		}
		want := 0
		for _, x := range ms {
			if e.add(x) {
				want++
			}
		}
		if n != want {
			fail("SADD %q = %d, model %d", ms, n, want)
		}
	case 1: // SREM
		ms := memberArgs(arg)
		n, st := s.SRem(db, bk, bs(ms), now)
		if !statusOK(e, st) {
			fail("SREM = %v", st)
		}
		want := 0
		if st == OK && e != nil {
			for _, x := range ms {
				if e.remove(x) {
					want++
				}
			}
			if len(e.members) == 0 {
				delete(m, key)
			}
		}
		if n != want {
			fail("SREM %q = %d, model %d", ms, n, want)
		}
	case 2: // SCARD, SISMEMBER, SMISMEMBER
		n, st := s.SCard(db, bk, now)
		x := setVocab[int(arg)%len(setVocab)]
		in, st2 := s.SIsMember(db, bk, []byte(x), now)
		var mis []bool
		st3 := s.SMIsMember(db, bk, bs(setVocab), now, func(b bool) { mis = append(mis, b) })
		if e != nil && e.str {
			if st != WrongType || st2 != WrongType || st3 != WrongType {
				fail("reads on a string = %v %v %v", st, st2, st3)
			}
			return
		}
		size := 0
		if e != nil {
			size = len(e.members)
		}
		if n != size || in != (e != nil && e.members[x]) || len(mis) != len(setVocab) {
			fail("SCARD %d SISMEMBER %q %v SMISMEMBER %v, model %v", n, x, in, mis, e)
		}
		for j, v := range setVocab {
			if mis[j] != (e != nil && e.members[v]) {
				fail("SMISMEMBER %q = %v", v, mis[j])
			}
		}
	case 3: // SMEMBERS
		fn, got := collect()
		st := s.SMembers(db, bk, now, fn)
		if e == nil || e.str {
			if (e == nil && st != NotFound) || (e != nil && st != WrongType) {
				fail("SMEMBERS = %v", st)
			}
			return
		}
		checkMembers(t, e, *got, "SMEMBERS")
	case 4: // SPOP
		out, st := s.SPop(db, bk, now, nil, rawEnc)
		if e == nil || e.str {
			if (e == nil && st != NotFound) || (e != nil && st != WrongType) {
				fail("SPOP = %v", st)
			}
			return
		}
		if !e.members[string(out)] {
			fail("SPOP = %q, not a member of %v", out, e.list())
		}
		e.remove(string(out))
		if len(e.members) == 0 {
			delete(m, key)
		}
	case 5: // SPOP count
		count := uint64(arg % 9)
		fn, got := collect()
		st := s.SPopCount(db, bk, count, now, fn)
		if !statusOK(e, st) {
			fail("SPOP %d = %v", count, st)
		}
		if e == nil || e.str {
			return
		}
		size := uint64(len(e.members))
		if uint64(len(*got)) != min(count, size) {
			fail("SPOP %d gave %d of %d", count, len(*got), size)
		}
		for _, x := range *got {
			if !e.members[x] {
				fail("SPOP %d gave %q, not a member (or twice)", count, x)
			}
			e.remove(x)
		}
		rest := uint64(len(e.members))
		switch {
		case rest == 0:
			delete(m, key)
		case rest*spopMoveMul <= count && e.enc == EncHashtable:
			// Redis rebuilt the set from the members left, in a
			// listpack while they fit (an intset stays one, a listpack
			// keeps its order)
			ne := buildSetEntry(EncListpack, e.list()...)
			ne.at, ne.ordKnown = e.at, false
			m[key] = ne
		}
	case 6: // SRANDMEMBER count
		count := int64(int8(arg)) % 12
		var got []string
		st := s.SRandMemberCount(db, bk, count, now, func(b []byte) bool { got = append(got, string(b)); return true })
		if !statusOK(e, st) {
			fail("SRANDMEMBER %d = %v", count, st)
		}
		if e == nil || e.str {
			return
		}
		size := int64(len(e.members))
		want := count
		switch {
		case count < 0:
			want = -count
		case count >= size:
			want = size
		}
		if int64(len(got)) != want {
			fail("SRANDMEMBER %d gave %d of %d", count, len(got), size)
		}
		seen := map[string]bool{}
		for _, x := range got {
			if !e.members[x] || (count > 0 && seen[x]) {
				fail("SRANDMEMBER %d gave %q: not a member, or repeated", count, x)
			}
			seen[x] = true
		}
	case 7: // SMOVE key key2
		x := setVocab[int(arg)%len(setVocab)]
		d := m.live(key2, now)
		ok, st := s.SMove(db, bk, []byte(key2), []byte(x), now)
		switch {
		case e == nil:
			if ok || st != OK {
				fail("SMOVE from missing = %v %v", ok, st)
			}
		case e.str || (d != nil && d.str):
			if st != WrongType {
				fail("SMOVE = %v, want WrongType", st)
			}
		case key == key2:
			if st != OK || ok != e.members[x] {
				fail("SMOVE to itself = %v %v", ok, st)
			}
		default:
			if st != OK || ok != e.members[x] {
				fail("SMOVE %q = %v %v", x, ok, st)
			}
			if !ok {
				return
			}
			e.remove(x)
			if len(e.members) == 0 {
				delete(m, key)
			}
			if d == nil {
				d = createSetEntry(x, 1)
				m[key2] = d
			}
			d.add(x)
		}
	case 8, 9: // SINTERSTORE / SUNIONSTORE / SDIFFSTORE key2 key key3, or the read forms
		srcs = srcs[:2+int(arg/3)%2]
		want, wrong := modelSetOp(m, srcs, arg%3, now)
		var n int
		var st Status
		var got []string
		store := op == 8
		fn := func(b []byte) { got = append(got, string(b)) }
		ks := bs(srcs)
		switch {
		case arg%3 == 0 && store:
			n, st = s.SInterStore(db, []byte(key2), ks, now)
		case arg%3 == 0:
			n, st = s.SInter(db, ks, now, 0, fn)
		case arg%3 == 1 && store:
			n, st = s.SUnionStore(db, []byte(key2), ks, now)
		case arg%3 == 1:
			st = s.SUnion(db, ks, now, fn)
		case store:
			n, st = s.SDiffStore(db, []byte(key2), ks, now)
		default:
			st = s.SDiff(db, ks, now, fn)
		}
		if wrong {
			if st != WrongType {
				fail("set op %d = %v, want WrongType", arg%3, st)
			}
			return
		}
		if st != OK {
			fail("set op %d = %v", arg%3, st)
		}
		if !store {
			if arg%3 == 0 { // SINTER lists the smallest set's members in its order
				want = &setEntry{members: want.members, enc: EncHashtable}
			}
			checkMembers(t, want, got, "set op")
			return
		}
		if n != len(want.members) {
			fail("store op %d = %d, model %d", arg%3, n, len(want.members))
		}
		delete(m, key2)
		if n > 0 {
			m[key2] = want
		}
	case 10: // SSCAN to the end, COUNT 1
		var got []string
		cursor := uint64(0)
		for steps := 0; ; steps++ {
			var st Status
			cursor, st = s.SScan(db, bk, cursor, now, ScanOptions{Count: 1}, func(b []byte) { got = append(got, string(b)) })
			if st != OK || cursor == 0 || steps > 1000 {
				if e != nil && !e.str && st != OK {
					fail("SSCAN = %v", st)
				}
				break
			}
		}
		if e != nil && !e.str {
			slices.Sort(got)
			if !slices.Equal(slices.Compact(got), e.list()) {
				fail("SSCAN = %q, model %q", got, e.list())
			}
		}
	case 11: // EXPIRE, maybe in the past
		at := now + int64(arg%8) - 2
		if got := s.Expire(db, bk, now, at, 0); got != (e != nil) {
			fail("EXPIRE = %v", got)
		}
		if e != nil {
			e.at = at
			m.live(key, now)
		}
	case 12: // SET: a string to meet the wrong type
		s.Set(db, bk, []byte("str"), now, SetOptions{})
		m[key] = &setEntry{str: true}
	case 13: // DEL
		if s.Del(db, bk, now) != (e != nil) {
			fail("DEL")
		}
		delete(m, key)
	case 14: // COPY key key2 REPLACE
		st := s.Copy(db, bk, db, []byte(key2), now, true)
		if key == key2 || e == nil {
			return
		}
		if st != OK {
			fail("COPY = %v", st)
		}
		c := *e
		c.members, c.order = maps.Clone(e.members), slices.Clone(e.order)
		m[key2] = &c
	case 15: // RENAME key key2
		st := s.Rename(db, bk, []byte(key2), now, false)
		if e == nil || key == key2 {
			return
		}
		if st != OK {
			fail("RENAME = %v", st)
		}
		delete(m, key)
		m[key2] = e
	}
}

// modelSetOp computes SINTER (0), SUNION (1) or SDIFF (2) of srcs on the
// model, with the encoding of the set Redis builds for it; wrong reports a
// source of the wrong type.
func modelSetOp(m setModel, srcs []string, kind byte, now int64) (res *setEntry, wrong bool) {
	var sets []*setEntry
	for _, k := range srcs {
		e := m.live(k, now)
		if e != nil && e.str {
			return nil, true
		}
		sets = append(sets, e)
	}
	res = newSetEntry(EncIntset)
	res.ordKnown = false
	switch kind {
	case 0:
		for _, e := range sets {
			if e == nil {
				return res, false
			}
		}
		defer res.maybeToIntset()
		res.enc = EncListpack
		for _, x := range sets[0].list() {
			all := true
			for _, e := range sets[1:] {
				all = all && e.members[x]
			}
			if all {
				res.add(x)
			}
		}
	case 1:
		for _, e := range sets {
			if e != nil {
				for _, x := range e.list() {
					res.add(x)
				}
			}
		}
	case 2:
		if sets[0] == nil || slices.Contains(srcs[1:], srcs[0]) {
			return res, false
		}
		one, two := 0, 0
		for _, e := range sets {
			if e != nil {
				one += len(sets[0].members)
				two += len(e.members)
			}
		}
		if one/2 > two { // algorithm 2: add the first set, remove the others
			res = buildSetEntry(EncIntset, sets[0].list()...)
			res.ordKnown = false
			for _, e := range sets[1:] {
				if e != nil {
					for x := range e.members {
						res.remove(x)
					}
				}
			}
			return res, false
		}
		for _, x := range sets[0].list() {
			in := false
			for _, e := range sets[1:] {
				in = in || (e != nil && e.members[x])
			}
			if !in {
				res.add(x)
			}
		}
	}
	return res, false
}

// checkMembers compares members got from the store with e's, in increasing
// numeric order when e is an intset, as Redis lists an intset, and in the
// model's order for a listpack whose order it knows.
func checkMembers(t *testing.T, e *setEntry, got []string, what string) {
	t.Helper()
	if e.enc == EncListpack && e.ordKnown && !slices.Equal(got, e.order) {
		t.Fatalf("%s of a listpack = %q, model %q", what, got, e.order)
	}
	if e.enc == EncIntset && len(e.members) > 0 {
		if !slices.IsSortedFunc(got, func(a, b string) int {
			x, _ := strconv.ParseInt(a, 10, 64)
			y, _ := strconv.ParseInt(b, 10, 64)
			return cmp.Compare(x, y)
		}) {
			t.Fatalf("%s of an intset not in order: %q", what, got)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, e.list()) {
		t.Fatalf("%s = %q, model %q", what, got, e.list())
	}
}

// checkSetKeys compares the type and encoding of every key with the model.
func checkSetKeys(t *testing.T, s *Store, m setModel, db int, keys []string, now int64, op int) {
	t.Helper()
	for _, k := range keys {
		e := m.live(k, now)
		info, ok := s.Object(db, []byte(k), now)
		if ok != (e != nil) {
			t.Fatalf("after op %d: %q exists %v, model %v", op, k, ok, e != nil)
		}
		if e == nil || e.str {
			continue
		}
		want := e.enc
		if info.Type != TypeSet || info.Encoding != want {
			t.Fatalf("after op %d: %q is %v %v, model %v (%q)", op, k, info.Type, info.Encoding, want, e.list())
		}
	}
}
