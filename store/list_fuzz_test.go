package store

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/loopkv/loopkv/store/listpack"
)

// listCheck walks key's quicklist and checks its invariants: the header's
// count and node count, the prev links, no empty node, every node within
// the fill limit unless it holds one element.
func listCheck(t *testing.T, s *Store, key string, fill int) []string {
	t.Helper()
	k := s.acquire(0, []byte(key), t0, false)
	defer k.release()
	if !k.exists() {
		return nil
	}
	h := k.listHdr()
	var out []string
	nodes, prev := 0, noRef
	for r := h.head(); r != noRef; r = nodeNext(k.t.a.at(r)) {
		b := k.t.a.at(r)
		if nodePrev(b) != prev {
			t.Fatalf("%s: node %d's prev is %v, want %v", key, nodes, nodePrev(b), prev)
		}
		lp := nodeLP(b)
		if err := listpack.Validate(lp); err != nil {
			t.Fatalf("%s: node %d: %v", key, nodes, err)
		}
		c := listpack.Len(lp)
		if c == 0 {
			t.Fatalf("%s: node %d is empty", key, nodes)
		}
		if !listFits(fill, len(lp), c) {
			t.Fatalf("%s: node %d holds %d entries in %d bytes, past fill %d", key, nodes, c, len(lp), fill)
		}
		var sc [20]byte
		for off := listpack.First(lp); off >= 0; off = listpack.Next(lp, off) {
			out = append(out, string(listpack.Value(lp, off, sc[:0])))
		}
		prev = r
		nodes++
	}
	if h.tail() != prev || h.nodes() != nodes || h.count() != len(out) {
		t.Fatalf("%s: header tail %v nodes %d count %d, walked tail %v %d nodes %d elements", key, h.tail(), h.nodes(), h.count(), prev, nodes, len(out))
	}
	return out
}

// FuzzList applies list operations to a Store with tiny nodes and to a
// []string model and compares every reply and, after each op, the whole
// list and its quicklist invariants. Each op is 3 bytes: opcode, key, arg.
func FuzzList(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 0, 2, 1, 0, 3, 2, 0, 1})
	f.Add([]byte{0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0, 0, 5, 6, 0, 2, 7, 0, 1, 8, 0, 3})
	f.Add([]byte{1, 0, 200, 1, 0, 201, 9, 0, 1, 10, 0, 0, 11, 1, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		fill := 3
		if len(ops) > 0 && ops[0]&1 == 1 {
			fill = -1
		}
		s := New(Options{Shards: 2, Databases: 1})
		s.SetLimits(Limits{ListMaxListpackSize: fill})
		model := map[string][]string{}
		elem := func(b byte) string {
			switch {
			case b < 100:
				return fmt.Sprint(int(b%20) - 5)
			case b < 200:
				return string(rune('a' + b%7))
			}
			return strings.Repeat("x", int(b)*20) // past a 4 KiB node when several
		}
		raw := func(dst, v []byte) []byte { return append(dst, v...) }
		join := func(dst, v []byte) []byte { return append(append(dst, v...), '|') }
		split := func(b []byte) []string {
			if len(b) == 0 {
				return nil
			}
			return strings.Split(strings.TrimSuffix(string(b), "|"), "|")
		}
		none := func(dst []byte, _ int) []byte { return dst }
		for i := 0; i+2 < len(ops) && i < 300; i += 3 {
			op, key, arg := ops[i], []string{"a", "b"}[ops[i+1]&1], ops[i+2]
			m := model[key]
			kb := []byte(key)
			switch op % 12 {
			case 0, 1: // LPUSH, RPUSH
				e := elem(arg)
				end := ListEnd(op % 2)
				n, st := s.LPush(0, kb, end, [][]byte{[]byte(e)}, false, t0)
				if end == ListHead {
					m = append([]string{e}, m...)
				} else {
					m = append(m, e)
				}
				if st != OK || n != len(m) {
					t.Fatalf("op %d: push = %d %v, model %d", i, n, st, len(m))
				}
			case 2, 3: // LPOP, RPOP count
				cnt := int(arg%4) + 1
				got, st := s.LPop(0, kb, ListEnd(op%2), cnt, t0, nil, none, join)
				if len(m) == 0 {
					if st != NotFound {
						t.Fatalf("op %d: pop of missing = %v", i, st)
					}
					continue
				}
				n := min(cnt, len(m))
				var want []string
				if op%2 == 0 {
					want, m = slices.Clone(m[:n]), m[n:]
				} else {
					for j := 0; j < n; j++ {
						want = append(want, m[len(m)-1-j])
					}
					m = m[:len(m)-n]
				}
				if g := split(got); !slices.Equal(g, want) {
					t.Fatalf("op %d: pop %d = %q, model %q", i, cnt, g, want)
				}
			case 4: // LINDEX
				idx := int64(arg%16) - 8
				got, st := s.LIndex(0, kb, idx, t0, nil, raw)
				j := int(idx)
				if j < 0 {
					j += len(m)
				}
				if j < 0 || j >= len(m) {
					if st != NotFound {
						t.Fatalf("op %d: LINDEX %d = %v", i, idx, st)
					}
				} else if st != OK || string(got) != m[j] {
					t.Fatalf("op %d: LINDEX %d = %q %v, model %q", i, idx, got, st, m[j])
				}
			case 5: // LSET
				idx := int64(arg%8) - 4
				e := elem(arg * 3)
				st := s.LSet(0, kb, idx, []byte(e), t0)
				j := int(idx)
				if j < 0 {
					j += len(m)
				}
				switch {
				case len(m) == 0:
					if st != NotFound {
						t.Fatalf("op %d: LSET missing = %v", i, st)
					}
				case j < 0 || j >= len(m):
					if st != OutOfRange {
						t.Fatalf("op %d: LSET out of range = %v", i, st)
					}
				default:
					m[j] = e
				}
			case 6: // LTRIM
				start, stop := int64(arg%8)-3, int64(arg/8%8)-3
				s.LTrim(0, kb, start, stop, t0)
				first, n := listRange(start, stop, len(m))
				m = slices.Clone(m[first : first+n])
			case 7: // LREM
				cnt := int64(arg%5) - 2
				e := elem(arg / 5 * 10)
				n, _ := s.LRem(0, kb, cnt, []byte(e), t0)
				removed := 0
				if cnt >= 0 {
					var out []string
					for _, x := range m {
						if x == e && (cnt == 0 || int64(removed) < cnt) {
							removed++
							continue
						}
						out = append(out, x)
					}
					m = out
				} else {
					for j := len(m) - 1; j >= 0 && int64(removed) < -cnt; j-- {
						if m[j] == e {
							m = slices.Delete(m, j, j+1)
							removed++
						}
					}
				}
				if n != removed {
					t.Fatalf("op %d: LREM %d %q = %d, model %d", i, cnt, e, n, removed)
				}
			case 8: // LINSERT
				after := arg&1 == 1
				pivot, e := elem(arg/2*10), elem(arg)
				n, _ := s.LInsert(0, kb, after, []byte(pivot), []byte(e), t0)
				want := 0
				if len(m) > 0 {
					want = -1
					if j := slices.Index(m, pivot); j >= 0 {
						if after {
							j++
						}
						m = slices.Insert(m, j, e)
						want = len(m)
					}
				}
				if n != want {
					t.Fatalf("op %d: LINSERT = %d, model %d", i, n, want)
				}
			case 9: // LPOS with RANK and COUNT 0
				e := elem(arg)
				rank := int64(arg%5) - 2
				if rank == 0 {
					rank = 1
				}
				var got []int
				s.LPos(0, kb, []byte(e), LPosOptions{Rank: rank}, t0, func(p int) { got = append(got, p) })
				var want []int
				if rank > 0 {
					for j, x := range m {
						if x == e {
							want = append(want, j)
						}
					}
				} else {
					for j := len(m) - 1; j >= 0; j-- {
						if m[j] == e {
							want = append(want, j)
						}
					}
				}
				r := int(rank)
				if r < 0 {
					r = -r
				}
				if r-1 < len(want) {
					want = want[r-1:]
				} else {
					want = nil
				}
				if !slices.Equal(got, want) {
					t.Fatalf("op %d: LPOS %q RANK %d = %v, model %v", i, e, rank, got, want)
				}
			case 10: // LMOVE to the other key
				other := "b"
				if key == "b" {
					other = "a"
				}
				from, to := ListEnd(arg&1), ListEnd(arg>>1&1)
				got, st := s.LMove(0, kb, []byte(other), from, to, t0, nil, raw)
				if len(m) == 0 {
					if st != NotFound {
						t.Fatalf("op %d: LMOVE of missing = %v", i, st)
					}
					continue
				}
				var e string
				if from == ListHead {
					e, m = m[0], m[1:]
				} else {
					e, m = m[len(m)-1], m[:len(m)-1]
				}
				model[key] = m
				o := model[other]
				if to == ListHead {
					o = append([]string{e}, o...)
				} else {
					o = append(o, e)
				}
				model[other] = o
				if st != OK || string(got) != e {
					t.Fatalf("op %d: LMOVE = %q %v, model %q", i, got, st, e)
				}
				m = model[key]
			case 11: // LRANGE
				start, stop := int64(arg%8)-4, int64(arg/8%8)-2
				got, _ := s.LRange(0, kb, start, stop, t0, nil, none, join)
				first, n := listRange(start, stop, len(m))
				if g := split(got); !slices.Equal(g, m[first:first+n]) && !(len(g) == 0 && n == 0) {
					t.Fatalf("op %d: LRANGE %d %d = %q, model %q", i, start, stop, g, m[first:first+n])
				}
			}
			if len(m) == 0 {
				delete(model, key)
			} else {
				model[key] = m
			}
			for _, name := range []string{"a", "b"} {
				if got := listCheck(t, s, name, fill); !slices.Equal(got, model[name]) {
					t.Fatalf("op %d: %s = %q, model %q", i, name, got, model[name])
				}
			}
		}
		s.FlushAll()
		if n := s.UsedMemory(); n != 0 {
			t.Fatalf("UsedMemory = %d after FLUSHALL", n)
		}
	})
}

// Deleting a list frees every node; COPY and RENAME keep every element.
func TestListCopyRenameDelete(t *testing.T) {
	s := New(Options{})
	s.SetLimits(Limits{ListMaxListpackSize: 4})
	var elems [][]byte
	for i := 0; i < 100; i++ {
		elems = append(elems, []byte(fmt.Sprint("e", i)))
	}
	s.LPush(0, []byte("{t}a"), ListTail, elems, false, t0)
	s.Copy(0, []byte("{t}a"), 1, []byte("copy"), t0, false)
	s.Rename(0, []byte("{t}a"), []byte("{t}b"), t0, false)
	s.Rename(0, []byte("{t}b"), []byte("far"), t0, false)
	for _, kk := range []struct {
		db  int
		key string
	}{{1, "copy"}, {0, "far"}} {
		got, _ := s.LRange(kk.db, []byte(kk.key), 0, -1, t0, nil, func(d []byte, _ int) []byte { return d },
			func(d, v []byte) []byte { return append(append(d, v...), ' ') })
		if want := fmt.Sprintln(); len(got) == 0 || string(got[:3]) != "e0 " || want == "x" {
			t.Fatalf("%v = %q", kk, got)
		}
		if n, _ := s.LLen(kk.db, []byte(kk.key), t0); n != 100 {
			t.Fatalf("%v LLEN = %d", kk, n)
		}
	}
	s.Del(1, []byte("copy"), t0)
	s.Del(0, []byte("far"), t0)
	if m := s.UsedMemory(); m != 0 {
		t.Fatalf("UsedMemory = %d after deleting the lists", m)
	}
	if info, _ := s.Object(0, []byte("nope"), t0); info.Encoding != 0 {
		t.Fatal("missing key has an encoding")
	}
}
