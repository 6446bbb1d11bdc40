package store

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/loopkv/loopkv/store/listpack"
)

// zsetCheck walks key's sorted set and checks its invariants, returning
// its members in order. A listpack: valid, pairs in (score, member) order.
// A skiplist: the order along level 0, the back links and tail, every
// level's spans adding up to the ranks of the nodes it links, the header's
// count and level, and the member dict holding exactly the nodes.
func zsetCheck(t *testing.T, s *Store, key string) []zentry {
	t.Helper()
	k := s.acquire(0, []byte(key), t0, false)
	defer k.release()
	if !k.exists() {
		return nil
	}
	var out []zentry
	if k.enc() == EncListpack {
		lp := k.val()
		if err := listpack.ValidatePairs(lp); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		lpEachPair(lp, func(m, sc []byte) {
			f, err := strconv.ParseFloat(string(sc), 64)
			if err != nil {
				t.Fatalf("%s: score %q: %v", key, sc, err)
			}
			out = append(out, zentry{append([]byte(nil), m...), f})
		})
	} else {
		z := k.zsl()
		rank := map[ref]int{}
		prev := noRef
		for x := z.fwd(noRef, 0); x != noRef; x = z.fwd(x, 0) {
			if z.back(x) != prev {
				t.Fatalf("%s: node %d's back link is wrong", key, len(out))
			}
			out = append(out, zentry{append([]byte(nil), z.member(x)...), z.score(x)})
			rank[x] = len(out)
			if l := z.levels(x); l < 1 || l > zslMaxLevel || l > z.level() {
				t.Fatalf("%s: node %d has %d levels, list %d", key, len(out), l, z.level())
			}
			prev = x
		}
		if z.tail() != prev || z.count() != len(out) {
			t.Fatalf("%s: tail/count wrong: count %d, walked %d", key, z.count(), len(out))
		}
		for i := 0; i < z.level(); i++ {
			r := 0
			for x := noRef; ; {
				f, sp := z.fwd(x, i), z.span(x, i)
				if f == noRef {
					break
				}
				if rank[f] != r+sp {
					t.Fatalf("%s: level %d: span to rank %d is %d from rank %d", key, i, rank[f], sp, r)
				}
				r = rank[f]
				x = f
			}
		}
		if z.level() > 1 && z.fwd(noRef, z.level()-1) == noRef {
			t.Fatalf("%s: level %d is empty", key, z.level())
		}
		d := k.obj()
		if d.count != len(out) {
			t.Fatalf("%s: dict has %d members, skiplist %d", key, d.count, len(out))
		}
		for x := range rank {
			m := z.member(x)
			if d.find(&k.t.a, s.fieldHash(m), m) != x {
				t.Fatalf("%s: dict does not find member %q", key, m)
			}
		}
	}
	for i := 1; i < len(out); i++ {
		if !zless(out[i-1].s, out[i-1].m, out[i].s, out[i].m) {
			t.Fatalf("%s: members %d and %d out of order: %v %q, %v %q", key, i-1, i, out[i-1].s, out[i-1].m, out[i].s, out[i].m)
		}
	}
	return out
}

// zmodel is a sorted set as a map, sorted on demand.
type zmodel map[string]float64

func (z zmodel) sorted() []zentry {
	var es []zentry
	for m, s := range z {
		es = append(es, zentry{[]byte(m), s})
	}
	sortEntries(es)
	return es
}

func sameEntries(a, b []zentry) bool {
	return slices.EqualFunc(a, b, func(x, y zentry) bool {
		return bytes.Equal(x.m, y.m) && (x.s == y.s || (x.s == 0 && y.s == 0))
	})
}

func fmtEntries(es []zentry) string {
	var b bytes.Buffer
	for _, e := range es {
		fmt.Fprintf(&b, "%s:%v ", e.m, e.s)
	}
	return b.String()
}

// zcollectReply is a ZReply writing "member:score|" entries.
func zcollectReply() ZReply {
	return ZReply{
		Head:   func(dst []byte, n int) []byte { return append(dst, fmt.Sprintf("%d#", n)...) },
		Member: func(dst, v []byte) []byte { return append(append(dst, v...), ':') },
		Score:  func(dst []byte, f float64) []byte { return append(AppendScore(dst, f), '|') },
	}
}

func fmtReply(es []zentry) string {
	b := []byte(fmt.Sprintf("%d#", len(es)))
	for _, e := range es {
		b = append(append(b, e.m...), ':')
		b = append(AppendScore(b, e.s), '|')
	}
	return string(b)
}

// FuzzZSet applies sorted-set operations to a Store with small listpack
// thresholds and to a map model, and compares every reply and, after each
// op, the whole set and its listpack or skiplist invariants. Each op is 3
// bytes: opcode, key and member, score.
func FuzzZSet(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 1, 2, 0, 2, 3, 3, 0, 0, 4, 0, 5, 5, 0, 1})
	f.Add([]byte{0, 0, 1, 0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 5, 0, 5, 6, 0, 6, 7, 0, 7, 8, 0, 8, 9, 0, 9, 10, 6, 0, 3, 7, 0, 2})
	f.Add([]byte{0, 0x10, 9, 0, 0x11, 9, 0, 0x12, 9, 0, 0x13, 9, 0, 0x14, 9, 0, 0x15, 9, 0, 0x16, 9, 0, 0x17, 9, 0, 0x18, 9, 2, 0x12, 1, 8, 0, 0})
	f.Add([]byte{0, 0x0f, 200, 1, 0x0f, 3, 9, 0, 1, 10, 0, 2, 11, 0, 0})
	f.Fuzz(runZSetOps)
}

func runZSetOps(t *testing.T, ops []byte) {
	{
		s := New(Options{Shards: 2, Databases: 1})
		l := DefaultLimits
		l.ZSetMaxListpackEntries, l.ZSetMaxListpackValue = 6, 8
		s.SetLimits(l)
		keys := []string{"a", "b"}
		model := map[string]zmodel{"a": {}, "b": {}}
		member := func(b byte) string {
			if b&0x0f == 0x0f {
				return "long-member-past-8"
			}
			if b&0x0f >= 12 {
				return strconv.Itoa(int(b&0x0f) - 14) // integers, stored as listpack ints
			}
			return string(rune('a' + b&0x0f))
		}
		score := func(b byte) float64 {
			switch b {
			case 255:
				return math.Inf(1)
			case 254:
				return math.Inf(-1)
			case 253:
				return 0.1
			}
			return float64(int(b%16) - 4)
		}
		rr := zcollectReply()
		for i := 0; i+2 < len(ops); i += 3 {
			op, key, mb, sb := ops[i]%12, keys[ops[i+1]>>7], ops[i+1]&0x7f, ops[i+2]
			m, sc := member(mb), score(sb)
			e := model[key]
			where := fmt.Sprintf("op %d (%d %s %q %v)", i/3, op, key, m, sc)
			switch op {
			case 0, 1: // ZADD, ZADD INCR
				flag := ZAddFlags(0)
				if op == 1 {
					flag = ZAddIncr
				}
				res, st := s.ZAdd(0, []byte(key), flag, [][]byte{AppendScore(nil, sc), []byte(m)}, t0)
				want := sc
				if op == 1 {
					want += e[m]
				}
				if math.IsNaN(want) {
					if st != NaNScore {
						t.Fatalf("%s: status %v, want NaNScore", where, st)
					}
					break
				}
				if st != OK {
					t.Fatalf("%s: %v", where, st)
				}
				_, had := e[m]
				if (res.Added == 1) == had {
					t.Fatalf("%s: added %d, had %v", where, res.Added, had)
				}
				e[m] = want
			case 2: // ZREM
				n, _ := s.ZRem(0, []byte(key), [][]byte{[]byte(m)}, t0)
				_, had := e[m]
				if (n == 1) != had {
					t.Fatalf("%s: removed %d, had %v", where, n, had)
				}
				delete(e, m)
			case 3: // ZSCORE and ZRANK
				f, ok, _ := s.ZScore(0, []byte(key), []byte(m), t0)
				w, had := e[m]
				if ok != had || f != w {
					t.Fatalf("%s: score %v %v, want %v %v", where, f, ok, w, had)
				}
				r, _, ok, _ := s.ZRank(0, []byte(key), []byte(m), sb&1 == 1, t0)
				if had {
					want := slices.IndexFunc(e.sorted(), func(z zentry) bool { return string(z.m) == m })
					if sb&1 == 1 {
						want = len(e) - 1 - want
					}
					if !ok || r != want {
						t.Fatalf("%s: rank %d, want %d", where, r, want)
					}
				}
			case 4, 5: // ZRANGE by rank, ZREVRANGE
				start, stop := int64(int(mb%8)-3), int64(int(sb%10)-4)
				sp := ZRangeSpec{Start: start, Stop: stop, Rev: op == 5}
				got, _ := s.ZRange(0, []byte(key), &sp, t0, nil, rr)
				es := e.sorted()
				if op == 5 {
					slices.Reverse(es)
				}
				n := int64(len(es))
				if start < 0 {
					start += n
				}
				if stop < 0 {
					stop += n
				}
				start = max(start, 0)
				stop = min(stop, n-1)
				var want []zentry
				if start <= stop && len(es) > 0 {
					want = es[start : stop+1]
				}
				if len(es) == 0 {
					break
				}
				if string(got) != fmtReply(want) {
					t.Fatalf("%s: ZRANGE %d %d: %s, want %s", where, sp.Start, sp.Stop, got, fmtReply(want))
				}
			case 6, 7: // ZRANGEBYSCORE with LIMIT, ZCOUNT
				lo, hi := score(mb), score(sb)
				sp := ZRangeSpec{By: ZByScore, Min: ZBound{Score: lo, Excl: mb&0x40 != 0}, Max: ZBound{Score: hi, Excl: sb&0x80 != 0},
					Limit: true, Offset: int64(mb % 3), Count: int64(sb%4) - 1, Rev: op == 7}
				var want []zentry
				for _, z := range e.sorted() {
					if (z.s > lo || !sp.Min.Excl && z.s == lo) && (z.s < hi || !sp.Max.Excl && z.s == hi) {
						want = append(want, z)
					}
				}
				n, _ := s.ZCount(0, []byte(key), &sp, t0)
				if n != len(want) {
					t.Fatalf("%s: ZCOUNT %d, want %d", where, n, len(want))
				}
				if op == 7 {
					slices.Reverse(want)
				}
				want = want[min(int(sp.Offset), len(want)):]
				if sp.Count >= 0 {
					want = want[:min(int(sp.Count), len(want))]
				}
				got, st := s.ZRange(0, []byte(key), &sp, t0, nil, rr)
				if st == OK && string(got) != fmtReply(want) {
					t.Fatalf("%s: ZRANGEBYSCORE: %s, want %s", where, got, fmtReply(want))
				}
			case 8: // ZPOPMIN / ZPOPMAX
				count := int(sb % 4)
				got, st := s.ZPop(0, []byte(key), mb&1 == 1, count, t0, nil, rr)
				es := e.sorted()
				if mb&1 == 1 {
					slices.Reverse(es)
				}
				want := es[:min(count, len(es))]
				if st == OK && string(got) != fmtReply(want) {
					t.Fatalf("%s: ZPOP: %s, want %s", where, got, fmtReply(want))
				}
				for _, z := range want {
					delete(e, string(z.m))
				}
			case 9: // ZREMRANGEBYRANK
				sp := ZRangeSpec{Start: int64(int(mb%8) - 3), Stop: int64(int(sb%8) - 3)}
				es := e.sorted()
				lo, hi := sp.Start, sp.Stop
				n := int64(len(es))
				if lo < 0 {
					lo += n
				}
				if hi < 0 {
					hi += n
				}
				lo, hi = max(lo, 0), min(hi, n-1)
				got, _ := s.ZRemRange(0, []byte(key), &sp, t0)
				want := 0
				if lo <= hi {
					want = int(hi - lo + 1)
					for _, z := range es[lo : hi+1] {
						delete(e, string(z.m))
					}
				}
				if got != want {
					t.Fatalf("%s: ZREMRANGEBYRANK removed %d, want %d", where, got, want)
				}
			case 10: // COPY to the other key, across shards maybe
				other := keys[1-ops[i+1]>>7]
				st := s.Copy(0, []byte(key), 0, []byte(other), t0, true)
				if len(e) == 0 {
					if st != NotFound {
						t.Fatalf("%s: COPY of a missing key: %v", where, st)
					}
					break
				}
				nm := zmodel{}
				for k, v := range e {
					nm[k] = v
				}
				model[other] = nm
			case 11: // ZUNIONSTORE a, b into key
				n, _ := s.ZCombineStore(0, []byte(key), &ZCombineSpec{Op: ZUnion, Keys: [][]byte{[]byte("a"), []byte("b")}}, t0)
				nm := zmodel{}
				for _, src := range []zmodel{model["a"], model["b"]} {
					for k, v := range src {
						nm[k] += v
						if math.IsNaN(nm[k]) {
							nm[k] = 0
						}
					}
				}
				if n != len(nm) {
					t.Fatalf("%s: ZUNIONSTORE %d, want %d", where, n, len(nm))
				}
				model[key] = nm
			}
			for _, k := range keys {
				got, want := zsetCheck(t, s, k), model[k].sorted()
				if !sameEntries(got, want) {
					t.Fatalf("%s: %s holds %s, want %s", where, k, fmtEntries(got), fmtEntries(want))
				}
			}
		}
	}
}
