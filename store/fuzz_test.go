package store

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"testing"
)

// modelEntry is the oracle's view of one key.
type modelEntry struct {
	val string
	at  int64 // 0 = no TTL
}

// model is a map with Redis's expiry rule: a key whose TTL has passed does
// not exist.
type model map[string]modelEntry

func (m model) live(k string, now int64) (modelEntry, bool) {
	e, ok := m[k]
	if ok && e.at != 0 && e.at <= now {
		delete(m, k)
		return modelEntry{}, false
	}
	return e, ok
}

// FuzzStore decodes operations from the fuzz input, applies them to a
// Store (4 shards, 2 databases) and to a map model, and compares every
// result. Each op is 4 bytes: opcode, key (1 of 8), value/amount byte, time
// step.
func FuzzStore(f *testing.F) {
	f.Add([]byte{0, 1, 'a', 0, 1, 1, 0, 0})                   // set then get
	f.Add([]byte{0, 1, 'a', 0, 4, 1, 3, 0, 1, 1, 0, 5})       // set, expire in 3, get after 5
	f.Add([]byte{6, 2, 5, 0, 6, 2, 250, 0, 1, 2, 0, 0})       // incrby twice, get
	f.Add([]byte{0, 1, 'x', 0, 8, 1, 2, 0, 11, 0, 0, 0})      // set, rename, scan
	f.Add([]byte{7, 3, 'q', 0, 9, 3, 4, 0, 10, 3, 'z', 1})    // append, setrange, getrange
	f.Add([]byte{0, 9, 'v', 0, 0, 10, 'w', 0, 12, 1, 0, 200}) // two dbs, active expire
	f.Add([]byte{0, 1, 'a', 0, 15, 1, 2, 0, 14, 2, 'b', 0})   // set, copy to db1, set xx get
	f.Add([]byte{16, 1, 2, 0, 16, 1, 3, 0, 13, 2, 0, 0})      // msetnx twice, getdel
	f.Fuzz(func(t *testing.T, data []byte) {
		s := New(Options{Shards: 4, Databases: 2})
		models := []model{{}, {}}
		now := t0
		keys := []string{"a", "b", "c", "d", "k1", "k2", "long-key-name", ""}
		for i := 0; i+4 <= len(data); i += 4 {
			op, kb, arg, step := data[i], data[i+1], data[i+2], data[i+3]
			now += int64(step % 16)
			db := int(kb>>3) & 1
			key := keys[kb&7]
			m := models[db]
			bk := []byte(key)
			switch op % 17 {
			case 0: // SET, sometimes with a TTL, sometimes NX
				val := bytes.Repeat([]byte{arg}, int(arg%40))
				o := SetOptions{}
				if arg&1 != 0 {
					o.ExpireAt = now + int64(arg%8)
				}
				if arg&2 != 0 {
					o.Mode = SetNX
				}
				_, exists := m.live(key, now)
				st := s.Set(db, bk, val, now, o)
				if o.Mode == SetNX && exists {
					if st != NotSet {
						t.Fatalf("op %d: SET NX on existing = %v", i, st)
					}
					break
				}
				m[key] = modelEntry{string(val), o.ExpireAt}
			case 1: // GET
				got, st := s.Get(db, bk, now, nil, rawEnc)
				e, ok := m.live(key, now)
				if ok != (st == OK) || (ok && string(got) != e.val) {
					t.Fatalf("op %d: GET %q = %q %v, model %q %v", i, key, got, st, e.val, ok)
				}
			case 2: // DEL
				_, ok := m.live(key, now)
				if got := s.Del(db, bk, now); got != ok {
					t.Fatalf("op %d: DEL = %v, model %v", i, got, ok)
				}
				delete(m, key)
			case 3: // EXISTS / TTL
				e, ok := m.live(key, now)
				want := int64(-2)
				if ok {
					want = -1
					if e.at != 0 {
						want = e.at
					}
				}
				if got := s.ExpireAt(db, bk, now); got != want {
					t.Fatalf("op %d: ExpireAt = %d, model %d", i, got, want)
				}
			case 4: // EXPIRE relative, may be in the past
				at := now + int64(arg%8) - 2
				e, ok := m.live(key, now)
				if got := s.Expire(db, bk, now, at, 0); got != ok {
					t.Fatalf("op %d: EXPIRE = %v, model %v", i, got, ok)
				}
				if ok {
					if at <= now {
						delete(m, key)
					} else {
						m[key] = modelEntry{e.val, at}
					}
				}
			case 5: // PERSIST
				e, ok := m.live(key, now)
				want := ok && e.at != 0
				if got := s.Persist(db, bk, now); got != want {
					t.Fatalf("op %d: PERSIST = %v, model %v", i, got, want)
				}
				if ok {
					m[key] = modelEntry{e.val, 0}
				}
			case 6: // INCRBY
				delta := int64(int8(arg))
				e, ok := m.live(key, now)
				cur := int64(0)
				valid := true
				if ok {
					cur, valid = ParseInt([]byte(e.val))
				}
				got, st := s.IncrBy(db, bk, now, delta)
				if !valid {
					if st != NotInteger {
						t.Fatalf("op %d: INCRBY on %q = %v", i, e.val, st)
					}
					break
				}
				if st != OK || got != cur+delta {
					t.Fatalf("op %d: INCRBY = %d %v, model %d", i, got, st, cur+delta)
				}
				m[key] = modelEntry{strconv.FormatInt(cur+delta, 10), e.at}
			case 7: // APPEND
				val := bytes.Repeat([]byte{arg}, int(arg%5))
				e, _ := m.live(key, now)
				n, _ := s.Append(db, bk, val, now)
				e.val += string(val)
				m[key] = e
				if n != len(e.val) {
					t.Fatalf("op %d: APPEND = %d, model %d", i, n, len(e.val))
				}
			case 8: // RENAME to another key
				dst := keys[arg&7]
				e, ok := m.live(key, now)
				st := s.Rename(db, bk, []byte(dst), now, false)
				if ok != (st == OK) {
					t.Fatalf("op %d: RENAME = %v, model %v", i, st, ok)
				}
				if ok {
					delete(m, key)
					m[dst] = e
				}
			case 9: // SETRANGE
				off := int64(arg % 12)
				val := []byte{'A' + arg%26}
				e, _ := m.live(key, now)
				v := []byte(e.val)
				for int64(len(v)) < off+1 {
					v = append(v, 0)
				}
				v[off] = val[0]
				e.val = string(v)
				m[key] = e
				if n, _ := s.SetRange(db, bk, off, val, now); n != len(v) {
					t.Fatalf("op %d: SETRANGE = %d, model %d", i, n, len(v))
				}
			case 10: // GETRANGE
				start, end := int64(int8(arg)%8), int64(int8(step)%8)
				e, ok := m.live(key, now)
				got, st := s.GetRange(db, bk, now, start, end, nil, rawEnc)
				if ok != (st == OK) {
					t.Fatalf("op %d: GETRANGE status %v, model %v", i, st, ok)
				}
				if ok {
					if want := modelRange(e.val, start, end); string(got) != want {
						t.Fatalf("op %d: GETRANGE %q %d %d = %q, want %q", i, e.val, start, end, got, want)
					}
				}
			case 11: // full SCAN and KEYS agree with the model
				var want []string
				for k := range m {
					if _, ok := m.live(k, now); ok {
						want = append(want, k)
					}
				}
				sort.Strings(want)
				seen := scanAll(s, db, now, ScanOptions{Count: 1 + int(arg%5)}, nil)
				var got []string
				for k := range seen {
					got = append(got, k)
				}
				sort.Strings(got)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("op %d: SCAN = %q, model %q", i, got, want)
				}
				var kgot []string
				s.Keys(db, []byte("*"), now, func(k []byte) { kgot = append(kgot, string(k)) })
				sort.Strings(kgot)
				if fmt.Sprint(kgot) != fmt.Sprint(want) {
					t.Fatalf("op %d: KEYS = %q, model %q", i, kgot, want)
				}
			case 12: // active expiry never deletes a live key
				s.ActiveExpireCycle(now, 1<<40)
			case 13: // GETDEL
				e, ok := m.live(key, now)
				got, st := s.GetDel(db, bk, now, nil, rawEnc)
				if ok != (st == OK) || (ok && string(got) != e.val) {
					t.Fatalf("op %d: GETDEL = %q %v, model %q %v", i, got, st, e.val, ok)
				}
				delete(m, key)
			case 14: // SET ... XX GET
				val := []byte{arg}
				e, ok := m.live(key, now)
				got, found, st := s.SetGet(db, bk, val, now, SetOptions{Mode: SetXX, KeepTTL: arg&1 != 0}, nil, rawEnc)
				if found != ok || (ok && string(got) != e.val) || (st == OK) != ok {
					t.Fatalf("op %d: SET XX GET = %q %v %v, model %q %v", i, got, found, st, e.val, ok)
				}
				if ok {
					if arg&1 == 0 {
						e.at = 0
					}
					e.val = string(val)
					m[key] = e
				}
			case 15: // COPY to the other database, REPLACE when arg is odd
				dst := keys[arg&7]
				e, ok := m.live(key, now)
				om := models[1-db]
				_, dstOK := om.live(dst, now)
				replace := arg&8 != 0
				want := OK
				switch {
				case !ok:
					want = NotFound
				case dstOK && !replace:
					want = NotSet
				}
				if st := s.Copy(db, bk, 1-db, []byte(dst), now, replace); st != want {
					t.Fatalf("op %d: COPY = %v, model %v", i, st, want)
				}
				if want == OK {
					om[dst] = e
				}
			case 16: // MSETNX of two keys
				k2 := keys[arg&7]
				_, ok1 := m.live(key, now)
				_, ok2 := m.live(k2, now)
				want := !ok1 && !ok2
				kv := [][]byte{bk, []byte("m1"), []byte(k2), []byte("m2")}
				if got := s.MSetNX(db, kv, now); got != want {
					t.Fatalf("op %d: MSETNX = %v, model %v", i, got, want)
				}
				if want {
					m[key] = modelEntry{"m1", 0}
					m[k2] = modelEntry{"m2", 0}
				}
			}
		}
		// Final check: every key agrees, and once every key has been
		// touched (deleting the expired ones), DBSize equals the live count.
		for db, m := range models {
			live := 0
			for _, k := range keys {
				_, ok := m.live(k, now)
				if ok {
					live++
				}
				if _, st := s.Get(db, []byte(k), now, nil, rawEnc); ok != (st == OK) {
					t.Fatalf("final: db%d %q store %v model %v", db, k, st, ok)
				}
			}
			if n := s.DBSize(db); n != live {
				t.Fatalf("final: DBSize(%d) = %d, model %d", db, n, live)
			}
		}
	})
}

// modelRange is GETRANGE written from Redis's description.
func modelRange(v string, start, end int64) string {
	n := int64(len(v))
	if start < 0 && end < 0 && start > end {
		return ""
	}
	if start < 0 {
		start = n + start
	}
	if end < 0 {
		end = n + end
	}
	if start < 0 {
		start = 0
	}
	if end < 0 {
		end = 0
	}
	if end >= n {
		end = n - 1
	}
	if start > end || n == 0 {
		return ""
	}
	return v[start : end+1]
}
