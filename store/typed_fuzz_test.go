package store

import (
	"fmt"
	"maps"
	"testing"
)

// typedVal is the oracle's view of one key of any type.
type typedVal struct {
	typ  Type
	str  string
	hash map[string]string
	big  bool // the hash has converted to a hash table (never back)
	at   int64
}

// FuzzTypedKeyspace runs strings and hashes on the same few keys, with
// expiry, RENAME, COPY, MOVE and small encoding limits, against a map
// model: every reply, every WRONGTYPE, every TYPE and every OBJECT
// ENCODING must agree. Each op is 4 bytes: opcode, key (1 of 4, in 2
// databases), argument, time step.
func FuzzTypedKeyspace(f *testing.F) {
	f.Add([]byte{0, 0, 'a', 0, 2, 0, 1, 0, 1, 0, 0, 0})             // SET, HSET on it (WRONGTYPE), GET
	f.Add([]byte{2, 1, 1, 0, 2, 1, 2, 0, 2, 1, 9, 0, 4, 1, 0, 0})   // HSETs past the listpack, HGET
	f.Add([]byte{2, 1, 3, 0, 7, 1, 2, 0, 3, 2, 3, 0, 8, 1, 50, 10}) // HSET, RENAME, HGET, EXPIRE
	f.Add([]byte{2, 2, 200, 0, 9, 2, 3, 0, 10, 3, 0, 0, 6, 2, 0, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		s := New(Options{Shards: 4, Databases: 2})
		s.SetLimits(Limits{HashMaxListpackEntries: 3, HashMaxListpackValue: 8})
		type mkey struct {
			db  int
			key string
		}
		m := map[mkey]*typedVal{}
		now := t0
		live := func(k mkey) *typedVal {
			v := m[k]
			if v != nil && v.at != 0 && v.at <= now {
				delete(m, k)
				return nil
			}
			return v
		}
		keyOf := func(b byte) mkey { return mkey{int(b>>2) & 1, []string{"a", "b", "{a}c", "d"}[b&3]} }
		field := func(b byte) string { return []string{"f", "g", "h", "i", "j", "0", "-7", "f2"}[b&7] }
		value := func(b byte) string {
			if b >= 128 {
				return fmt.Sprintf("a-long-value-%d", b) // past HashMaxListpackValue
			}
			return fmt.Sprint(int(b) - 40)
		}
		hashEnc := func(v *typedVal) Encoding {
			if v.big {
				return EncHashtable
			}
			return EncListpack
		}
		for i := 0; i+3 < len(ops) && i < 400; i += 4 {
			op, k, arg := ops[i], keyOf(ops[i+1]), ops[i+2]
			now += int64(ops[i+3])
			key := []byte(k.key)
			v := live(k)
			isHash := v != nil && v.typ == TypeHash
			wrong := v != nil && !isHash
			switch op % 11 {
			case 0: // SET
				s.Set(k.db, key, []byte(value(arg)), now, SetOptions{})
				m[k] = &typedVal{typ: TypeString, str: value(arg)}
			case 1: // GET
				got, st := s.Get(k.db, key, now, nil, rawEnc)
				switch {
				case v == nil && st != NotFound, v != nil && v.typ == TypeString && (st != OK || string(got) != v.str),
					isHash && st != WrongType:
					t.Fatalf("op %d: GET %v = %q %v, model %+v", i, k, got, st, v)
				}
			case 2: // HSET field value
				f, val := field(arg), value(arg*37)
				n, st := s.HSet(k.db, key, [][]byte{[]byte(f), []byte(val)}, now)
				if wrong {
					if st != WrongType {
						t.Fatalf("op %d: HSET on a string = %v", i, st)
					}
					continue
				}
				if v == nil {
					v = &typedVal{typ: TypeHash, hash: map[string]string{}}
					m[k] = v
				}
				_, had := v.hash[f]
				v.hash[f] = val
				if len(val) > 8 || len(f) > 8 || len(v.hash) > 3 {
					v.big = true
				}
				if st != OK || (n == 1) == had {
					t.Fatalf("op %d: HSET %s = %d %v, model had it: %v", i, f, n, st, had)
				}
			case 3: // HGET
				f := field(arg)
				got, st := s.HGet(k.db, key, []byte(f), now, nil, rawEnc)
				want, ok := "", false
				if isHash {
					want, ok = v.hash[f]
				}
				switch {
				case wrong && st != WrongType, !wrong && ok != (st == OK), ok && string(got) != want:
					t.Fatalf("op %d: HGET %v %s = %q %v, model %q %v", i, k, f, got, st, want, ok)
				}
			case 4: // HDEL
				f := field(arg)
				n, st := s.HDel(k.db, key, [][]byte{[]byte(f)}, now)
				if wrong {
					if st != WrongType {
						t.Fatalf("op %d: HDEL on a string = %v", i, st)
					}
					continue
				}
				_, had := false, false
				if isHash {
					_, had = v.hash[f]
					delete(v.hash, f)
					if len(v.hash) == 0 {
						delete(m, k)
					}
				}
				if (n == 1) != had {
					t.Fatalf("op %d: HDEL = %d, model had it %v", i, n, had)
				}
			case 5: // HLEN
				n, st := s.HLen(k.db, key, now)
				want := 0
				if isHash {
					want = len(v.hash)
				}
				if wrong != (st == WrongType) || n != want {
					t.Fatalf("op %d: HLEN = %d %v, model %d", i, n, st, want)
				}
			case 6: // DEL
				if s.Del(k.db, key, now) != (v != nil) {
					t.Fatalf("op %d: DEL disagrees with the model", i)
				}
				delete(m, k)
			case 7: // RENAME to another key of the same db (same shard for a and {a}c)
				dst := mkey{k.db, []string{"a", "b", "{a}c", "d"}[arg&3]}
				st := s.Rename(k.db, key, []byte(dst.key), now, false)
				if v == nil {
					if st != NotFound {
						t.Fatalf("op %d: RENAME of a missing key = %v", i, st)
					}
					continue
				}
				live(dst)
				delete(m, k)
				m[dst] = v
			case 8: // EXPIRE in arg ms
				if s.Expire(k.db, key, now, now+int64(arg), 0) != (v != nil) {
					t.Fatalf("op %d: EXPIRE disagrees with the model", i)
				}
				if v != nil {
					v.at = now + int64(arg)
					if arg == 0 {
						delete(m, k)
					}
				}
			case 9: // COPY to the other database, REPLACE
				dst := mkey{1 - k.db, k.key}
				st := s.Copy(k.db, key, dst.db, key, now, true)
				if v == nil {
					if st != NotFound {
						t.Fatalf("op %d: COPY of a missing key = %v", i, st)
					}
					continue
				}
				c := *v
				c.hash = maps.Clone(v.hash)
				m[dst] = &c
			case 10: // MOVE to the other database
				dst := mkey{1 - k.db, k.key}
				st := s.Move(k.db, dst.db, key, now)
				switch {
				case v == nil && st != NotFound:
					t.Fatalf("op %d: MOVE of a missing key = %v", i, st)
				case v != nil && live(dst) != nil && st != NotSet:
					t.Fatalf("op %d: MOVE onto an existing key = %v", i, st)
				case v != nil && m[dst] == nil:
					if st != OK {
						t.Fatalf("op %d: MOVE = %v", i, st)
					}
					delete(m, k)
					m[dst] = v
				}
			}
			// every key's type and encoding agree after every op
			for _, db := range []int{0, 1} {
				for _, name := range []string{"a", "b", "{a}c", "d"} {
					mk := mkey{db, name}
					mv := live(mk)
					info, ok := s.Object(db, []byte(name), now)
					switch {
					case ok != (mv != nil):
						t.Fatalf("op %d: %v exists %v, model %+v", i, mk, ok, mv)
					case !ok:
					case info.Type != mv.typ:
						t.Fatalf("op %d: %v TYPE %v, model %v", i, mk, info.Type, mv.typ)
					case mv.typ == TypeHash && info.Encoding != hashEnc(mv):
						t.Fatalf("op %d: %v ENCODING %v, model %v (%d fields)", i, mk, info.Encoding, hashEnc(mv), len(mv.hash))
					}
				}
			}
		}
		for k, v := range m {
			if live(k) == nil || v.typ != TypeHash {
				continue
			}
			for f, want := range v.hash {
				if got, st := s.HGet(k.db, []byte(k.key), []byte(f), now, nil, rawEnc); st != OK || string(got) != want {
					t.Fatalf("end: HGET %v %s = %q %v, model %q", k, f, got, st, want)
				}
			}
		}
		s.FlushAll()
		for i := 0; i < 100 && s.UsedMemory() != 0; i++ {
			s.RehashCycle(1 << 30)
		}
		if n := s.UsedMemory(); n != 0 {
			t.Fatalf("UsedMemory = %d after FLUSHALL", n)
		}
	})
}
