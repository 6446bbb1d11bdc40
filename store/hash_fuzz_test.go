package store

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// hashModel is the oracle's view of one key: a hash (fields) or a string
// (str, fields nil), its TTL, and whether Redis would have converted it to
// a hash table by now.
type hashModel struct {
	fields map[string]string
	str    string
	at     int64
	table  bool
}

// FuzzHash runs random hash operations, expiry and string writes (for
// WrongType) on a Store with small conversion thresholds (4 fields, 8-byte
// values) against a map model, and checks every reply, the encoding and
// its conversions. Each op is 4 bytes: opcode, key, argument, time step.
func FuzzHash(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 0, 0, 2, 0, 3, 0, 1, 0})                         // two HSETs, HGET
	f.Add([]byte{1, 1, 1, 0, 1, 1, 3, 0, 1, 1, 5, 0, 6, 1, 0, 0})             // past 4 fields: a table
	f.Add([]byte{0, 2, 200, 0, 6, 2, 0, 0, 2, 2, 200, 0, 6, 2, 0, 0})         // a long value converts; delete it
	f.Add([]byte{4, 3, 130, 0, 4, 3, 250, 0, 3, 3, 0, 0, 9, 3, 0, 0})         // HINCRBY twice
	f.Add([]byte{0, 0, 1, 0, 7, 0, 3, 0, 3, 0, 1, 5})                         // expire, read after it
	f.Add([]byte{8, 1, 1, 0, 0, 1, 1, 0, 4, 1, 1, 0, 1, 1, 9, 0})             // a string: WrongType
	f.Add([]byte{1, 0, 1, 0, 1, 0, 2, 0, 11, 0, 3, 0, 11, 0, 250, 0})         // HRANDFIELD both ways
	f.Add([]byte{1, 0, 1, 0, 1, 0, 2, 0, 1, 0, 7, 0, 12, 0, 0, 0})            // HSCAN of a table
	f.Add([]byte{5, 2, 1, 0, 5, 2, 1, 0, 10, 2, 3, 0, 10, 2, 3, 0})           // HSETNX, HINCRBYFLOAT
	f.Add([]byte{1, 4, 1, 0, 1, 4, 2, 0, 1, 4, 9, 0, 2, 4, 1, 0, 6, 4, 0, 0}) // delete from a table
	f.Fuzz(func(t *testing.T, data []byte) {
		s := New(Options{Shards: 4, Databases: 1})
		lim := DefaultLimits
		lim.HashMaxListpackEntries, lim.HashMaxListpackValue = 4, 8
		s.SetLimits(lim)
		m := map[string]*hashModel{}
		now := t0
		keys := []string{"h", "g", "long-hash-key", "", "n"}
		fields := []string{"a", "b", "1", "-5", "12345678", "9223372036854775807", "", "f\x00", "c", "d"}
		live := func(k string) *hashModel {
			e := m[k]
			if e != nil && e.at != 0 && e.at <= now {
				delete(m, k)
				return nil
			}
			return e
		}
		for i := 0; i+4 <= len(data); i += 4 {
			op, kb, arg, step := data[i], data[i+1], data[i+2], data[i+3]
			now += int64(step % 8)
			key := keys[int(kb)%len(keys)]
			bk := []byte(key)
			fld := fields[int(arg)%len(fields)]
			val := fuzzHashValue(arg)
			e := live(key)
			isStr := e != nil && e.fields == nil
			where := fmt.Sprintf("op %d (%d %q %d)", i/4, op%13, key, arg)
			switch op % 13 {
			case 0, 1: // HSET one pair, or two
				fv := [][]byte{[]byte(fld), val}
				if op%13 == 1 {
					fv = append(fv, []byte(fields[int(arg+3)%len(fields)]), []byte("x"))
				}
				n, st := s.HSet(0, bk, fv, now)
				if isStr {
					checkStatus(t, where, st, WrongType)
					continue
				}
				checkStatus(t, where, st, OK)
				if e == nil {
					e = &hashModel{fields: map[string]string{}}
					m[key] = e
				}
				for _, a := range fv {
					e.table = e.table || len(a) > lim.HashMaxListpackValue
				}
				want := 0
				for j := 0; j < len(fv); j += 2 {
					if _, ok := e.fields[string(fv[j])]; !ok {
						want++
					}
					e.fields[string(fv[j])] = string(fv[j+1])
				}
				e.table = e.table || len(e.fields) > lim.HashMaxListpackEntries
				if n != want {
					t.Fatalf("%s: HSET added %d, want %d", where, n, want)
				}
			case 2: // HDEL
				n, st := s.HDel(0, bk, [][]byte{[]byte(fld), []byte(fld), []byte("c")}, now)
				if isStr {
					checkStatus(t, where, st, WrongType)
					continue
				}
				want := 0
				if e != nil {
					for _, f := range []string{fld, "c"} {
						if _, ok := e.fields[f]; ok {
							delete(e.fields, f)
							want++
						}
					}
					if len(e.fields) == 0 {
						delete(m, key)
					}
				}
				if st != OK || n != want {
					t.Fatalf("%s: HDEL = %d, %v; want %d", where, n, st, want)
				}
			case 3: // HGET
				got, st := s.HGet(0, bk, []byte(fld), now, nil, appendRaw)
				switch {
				case isStr:
					checkStatus(t, where, st, WrongType)
				case e == nil:
					checkStatus(t, where, st, NotFound)
				default:
					v, ok := e.fields[fld]
					if !ok {
						checkStatus(t, where, st, NotFound)
					} else if st != OK || string(got) != v {
						t.Fatalf("%s: HGET = %q, %v; want %q", where, got, st, v)
					}
				}
			case 4: // HINCRBY
				delta := int64(arg) - 128
				if arg == 255 {
					delta = 1 << 62
				}
				got, st := s.HIncrBy(0, bk, []byte(fld), now, delta)
				if isStr {
					checkStatus(t, where, st, WrongType)
					continue
				}
				if e == nil {
					e = &hashModel{fields: map[string]string{}}
					m[key] = e
				}
				cur, ok := e.fields[fld]
				n, isInt := int64(0), true
				if ok {
					n, isInt = ParseInt([]byte(cur))
				}
				switch {
				case !isInt:
					checkStatus(t, where, st, HashNotInteger)
				case (delta > 0 && n > 0 && n > 1<<63-1-delta) || (delta < 0 && n < 0 && n < -1<<63-delta):
					checkStatus(t, where, st, Overflow)
				default:
					checkStatus(t, where, st, OK)
					if got != n+delta {
						t.Fatalf("%s: HINCRBY = %d, want %d", where, got, n+delta)
					}
					text := strconv.FormatInt(n+delta, 10)
					e.fields[fld] = text
					e.table = e.table || len(fld) > lim.HashMaxListpackValue || len(text) > lim.HashMaxListpackValue ||
						len(e.fields) > lim.HashMaxListpackEntries
				}
				if len(e.fields) == 0 { // a failed HINCRBY on a new key leaves none
					delete(m, key)
				}
			case 5: // HSETNX
				set, st := s.HSetNX(0, bk, []byte(fld), val, now)
				if isStr {
					checkStatus(t, where, st, WrongType)
					continue
				}
				if e == nil {
					e = &hashModel{fields: map[string]string{}}
					m[key] = e
				}
				_, had := e.fields[fld]
				if st != OK || set == had {
					t.Fatalf("%s: HSETNX = %v, %v; field existed %v", where, set, st, had)
				}
				if !had {
					e.fields[fld] = string(val)
					e.table = e.table || len(fld) > lim.HashMaxListpackValue || len(val) > lim.HashMaxListpackValue ||
						len(e.fields) > lim.HashMaxListpackEntries
				}
			case 6: // HLEN, HGETALL, and the encoding
				checkHashAll(t, where, s, bk, now, e)
			case 7: // EXPIRE in 0..7 ms (0 deletes)
				at := now + int64(arg%8)
				if ok := s.Expire(0, bk, now, at, 0); ok != (e != nil) {
					t.Fatalf("%s: EXPIRE = %v, key exists %v", where, ok, e != nil)
				}
				if e != nil {
					if at <= now {
						delete(m, key)
					} else {
						e.at = at
					}
				}
			case 8: // SET: the key becomes a string
				s.Set(0, bk, []byte("str"), now, SetOptions{})
				m[key] = &hashModel{str: "str"}
			case 9: // HSTRLEN and HEXISTS
				n, st := s.HStrLen(0, bk, []byte(fld), now)
				ok, st2 := s.HExists(0, bk, []byte(fld), now)
				switch {
				case isStr:
					checkStatus(t, where, st, WrongType)
					checkStatus(t, where, st2, WrongType)
				case e == nil:
					if n != 0 || ok {
						t.Fatalf("%s: HSTRLEN %d, HEXISTS %v of a missing key", where, n, ok)
					}
				default:
					v, has := e.fields[fld]
					if n != len(v) || ok != has {
						t.Fatalf("%s: HSTRLEN %d, HEXISTS %v; want %d, %v", where, n, ok, len(v), has)
					}
				}
			case 10: // HINCRBYFLOAT by 1.5: check the status and the integer part
				_, st := s.HIncrByFloat(0, bk, []byte(fld), []byte("1.5"), now, nil, appendRaw)
				if isStr {
					checkStatus(t, where, st, WrongType)
					continue
				}
				if e == nil {
					e = &hashModel{fields: map[string]string{}}
					m[key] = e
				}
				cur, had := e.fields[fld]
				if !had {
					cur = "0"
				}
				got, _ := s.HGet(0, bk, []byte(fld), now, nil, appendRaw)
				if _, _, ok := parseLongDouble([]byte(cur)); !ok {
					checkStatus(t, where, st, HashNotFloat)
				} else {
					checkStatus(t, where, st, OK)
					e.fields[fld] = string(got)
					e.table = e.table || len(fld) > lim.HashMaxListpackValue || len(got) > lim.HashMaxListpackValue ||
						len(e.fields) > lim.HashMaxListpackEntries
				}
			case 11: // HRANDFIELD count WITHVALUES
				checkHashRand(t, where, s, bk, now, int64(int8(arg)), e)
			case 12: // HSCAN to the end
				checkHashScan(t, where, s, bk, now, e)
			}
		}
		for k := range m {
			if live(k) != nil {
				checkHashAll(t, "end", s, []byte(k), now, m[k])
			}
		}
	})
}

// fuzzHashValue is a value of a length and shape chosen by b: short or
// long, integer or not.
func fuzzHashValue(b byte) []byte {
	switch {
	case b >= 200:
		return bytes.Repeat([]byte{'v'}, int(b-190)) // 10..65 bytes: past the 8-byte limit
	case b%3 == 0:
		return []byte(strconv.Itoa(int(b) * 1000))
	}
	return bytes.Repeat([]byte{'a' + b%26}, int(b%9))
}

func appendRaw(dst, v []byte) []byte { return append(dst, v...) }

func checkStatus(t *testing.T, where string, got, want Status) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: status %v, want %v", where, got, want)
	}
}

// pairsReply collects HGetAll and HRandFieldCount replies as text.
var pairsReply = PairReply{
	Head:  func(dst []byte, n int) []byte { return fmt.Appendf(dst, "%d:", n) },
	Entry: func(dst []byte) []byte { return append(dst, '|') },
	Elem:  func(dst, v []byte) []byte { return fmt.Appendf(dst, "%q,", v) },
}

// parsePairs splits a pairsReply text into its count and entries.
func parsePairs(t *testing.T, b []byte) (int, [][]string) {
	s := string(b)
	colon := strings.IndexByte(s, ':')
	n, _ := strconv.Atoi(s[:colon])
	var entries [][]string
	for _, ent := range strings.Split(s[colon+1:], "|")[1:] {
		var elems []string
		for rest := ent; rest != ""; {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				t.Fatalf("bad reply %q", b)
			}
			u, _ := strconv.Unquote(q)
			elems = append(elems, u)
			rest = rest[len(q)+1:]
		}
		entries = append(entries, elems)
	}
	return n, entries
}

func checkHashAll(t *testing.T, where string, s *Store, key []byte, now int64, e *hashModel) {
	t.Helper()
	n, st := s.HLen(0, key, now)
	out, st2 := s.HGetAll(0, key, now, HashBoth, nil, pairsReply)
	info, exists := s.Object(0, key, now)
	switch {
	case e == nil:
		if st != NotFound || st2 != NotFound || exists {
			t.Fatalf("%s: HLEN %v, HGETALL %v, exists %v for a missing key", where, st, st2, exists)
		}
		return
	case e.fields == nil:
		checkStatus(t, where, st, WrongType)
		return
	}
	cnt, entries := parsePairs(t, out)
	var got, want []string
	for _, ent := range entries {
		got = append(got, ent[0]+"="+ent[1])
	}
	for f, v := range e.fields {
		want = append(want, f+"="+v)
	}
	sort.Strings(got)
	sort.Strings(want)
	if n != len(e.fields) || cnt != n || strings.Join(got, ";") != strings.Join(want, ";") {
		t.Fatalf("%s: HLEN %d, HGETALL %d %q; want %q", where, n, cnt, got, want)
	}
	wantEnc := EncListpack
	if e.table {
		wantEnc = EncHashtable
	}
	if info.Encoding != wantEnc {
		t.Fatalf("%s: encoding %v, want %v", where, info.Encoding, wantEnc)
	}
}

func checkHashRand(t *testing.T, where string, s *Store, key []byte, now, count int64, e *hashModel) {
	t.Helper()
	out, st := s.HRandFieldCount(0, key, now, count, true, 1<<20, nil, pairsReply)
	switch {
	case e == nil:
		checkStatus(t, where, st, NotFound)
		return
	case e.fields == nil:
		checkStatus(t, where, st, WrongType)
		return
	}
	checkStatus(t, where, st, OK)
	n, entries := parsePairs(t, out)
	want := int(max(count, -count))
	if count > 0 {
		want = min(want, len(e.fields))
	}
	if n != want || len(entries) != want {
		t.Fatalf("%s: HRANDFIELD %d: %d entries (header %d), want %d", where, count, len(entries), n, want)
	}
	seen := map[string]bool{}
	for _, ent := range entries {
		if v, ok := e.fields[ent[0]]; !ok || v != ent[1] {
			t.Fatalf("%s: HRANDFIELD returned %q=%q, not in the hash", where, ent[0], ent[1])
		}
		if count > 0 && seen[ent[0]] {
			t.Fatalf("%s: HRANDFIELD %d repeats %q", where, count, ent[0])
		}
		seen[ent[0]] = true
	}
}

func checkHashScan(t *testing.T, where string, s *Store, key []byte, now int64, e *hashModel) {
	t.Helper()
	seen := map[string]string{}
	var cursor uint64
	for calls := 0; ; calls++ {
		next, st := s.HScan(0, key, cursor, now, ScanOptions{Count: 1}, func(f, v []byte) { seen[string(f)] = string(v) })
		switch {
		case e == nil:
			checkStatus(t, where, st, NotFound)
			return
		case e.fields == nil:
			checkStatus(t, where, st, WrongType)
			return
		}
		if cursor = next; cursor == 0 {
			break
		}
		if calls > 1000 {
			t.Fatalf("%s: HSCAN does not end", where)
		}
	}
	if len(seen) != len(e.fields) {
		t.Fatalf("%s: HSCAN saw %d fields, want %d", where, len(seen), len(e.fields))
	}
	for f, v := range e.fields {
		if seen[f] != v {
			t.Fatalf("%s: HSCAN %q = %q, want %q", where, f, seen[f], v)
		}
	}
}
