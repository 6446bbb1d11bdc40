package store

import (
	"math"
	"slices"
	"strconv"
)

// ZSetOp is the operation of ZCombine.
type ZSetOp uint8

const (
	ZUnion ZSetOp = iota
	ZInter
	ZDiff
)

// ZAggregate is how ZUNION and ZINTER combine the scores of a member.
type ZAggregate uint8

const (
	ZSum ZAggregate = iota
	ZMin
	ZMax
)

// ZCombineSpec describes a ZUNION, ZINTER or ZDIFF: the input keys (sorted
// sets, or sets whose members score 1), their weights (nil for all 1) and
// the aggregate.
type ZCombineSpec struct {
	Op        ZSetOp
	Keys      [][]byte
	Weights   []float64
	Aggregate ZAggregate
}

// zsrc is one input of a combination.
type zsrc struct {
	k kv
	w float64
}

func (z *zsrc) len() int {
	switch z.k.kind() {
	case TypeZSet:
		return z.k.zlen()
	case TypeSet:
		return z.k.scard()
	}
	return 0
}

func (z *zsrc) each(fn func(m []byte, s float64)) {
	switch z.k.kind() {
	case TypeZSet:
		z.k.zwalk(0, z.k.zlen(), false, func(m []byte, s float64) bool { fn(m, s); return true })
	case TypeSet:
		z.k.seach(func(m []byte) bool { fn(m, 1); return true })
	}
}

func (z *zsrc) find(m []byte) (float64, bool) {
	switch z.k.kind() {
	case TypeZSet:
		return z.k.zscore(m)
	case TypeSet:
		return 1, z.k.shas(m)
	}
	return 0, false
}

// zaggregate is Redis's zunionInterAggregate.
func zaggregate(target *float64, v float64, agg ZAggregate) {
	switch agg {
	case ZSum:
		*target += v
		if math.IsNaN(*target) {
			*target = 0
		}
	case ZMin:
		if v < *target {
			*target = v
		}
	case ZMax:
		if v > *target {
			*target = v
		}
	}
}

// openZSources finds every key as a sorted set or set, under locks the
// caller holds; WrongType when one holds another type.
func (s *Store) openZSources(db int, sp *ZCombineSpec, now int64) ([]zsrc, Status) {
	src := make([]zsrc, len(sp.Keys))
	for i, key := range sp.Keys {
		src[i] = zsrc{k: s.find(db, key, now, true), w: 1}
		if t := src[i].k.kind(); t != TypeNone && t != TypeZSet && t != TypeSet {
			return nil, WrongType
		}
		if sp.Weights != nil {
			src[i].w = sp.Weights[i]
		}
	}
	return src, OK
}

// ZCheckSources returns WrongType when one of keys holds neither a sorted
// set nor a set: what ZUNION and its relatives answer before they look at
// their options.
func (s *Store) ZCheckSources(db int, keys [][]byte, now int64) Status {
	var m shardSet
	s.lockSets(&m, nil, keys)
	defer s.unlockSet(&m)
	_, st := s.openZSources(db, &ZCombineSpec{Keys: keys}, now)
	return st
}

// combine computes the result of sp, sorted by score and member; limit
// > 0 stops an intersection after limit members.
func combine(sp *ZCombineSpec, src []zsrc, limit int) []zentry {
	var out []zentry
	switch sp.Op {
	case ZUnion:
		slices.SortStableFunc(src, func(a, b zsrc) int { return a.len() - b.len() })
		acc := make(map[string]int)
		for i := range src {
			w := src[i].w
			src[i].each(func(m []byte, s float64) {
				v := w * s
				if math.IsNaN(v) {
					v = 0
				}
				if j, ok := acc[string(m)]; ok {
					zaggregate(&out[j].s, v, sp.Aggregate)
					return
				}
				acc[string(m)] = len(out)
				out = append(out, zentry{append([]byte(nil), m...), v})
			})
		}
	case ZInter:
		for i := range src {
			if !src[i].k.exists() {
				return nil
			}
		}
		slices.SortStableFunc(src, func(a, b zsrc) int { return a.len() - b.len() })
		src[0].each(func(m []byte, s float64) {
			if limit > 0 && len(out) >= limit {
				return
			}
			score := src[0].w * s
			if math.IsNaN(score) {
				score = 0
			}
			for j := 1; j < len(src); j++ {
				v, ok := s, true
				if !sameKey(&src[j].k, &src[0].k) {
					v, ok = src[j].find(m)
				}
				if !ok {
					return
				}
				zaggregate(&score, v*src[j].w, sp.Aggregate)
			}
			out = append(out, zentry{append([]byte(nil), m...), score})
		})
	case ZDiff:
		src[0].each(func(m []byte, s float64) {
			for j := 1; j < len(src); j++ {
				if sameKey(&src[j].k, &src[0].k) {
					return
				}
				if _, ok := src[j].find(m); ok {
					return
				}
			}
			out = append(out, zentry{append([]byte(nil), m...), s})
		})
	}
	sortEntries(out)
	return out
}

// ZCombine appends the result of sp through r, in order by score and
// member.
func (s *Store) ZCombine(db int, sp *ZCombineSpec, now int64, dst []byte, r ZReply) ([]byte, Status) {
	var m shardSet
	s.lockSets(&m, nil, sp.Keys)
	defer s.unlockSet(&m)
	src, st := s.openZSources(db, sp, now)
	if st != OK {
		return dst, st
	}
	es := combine(sp, src, 0)
	dst = r.Head(dst, len(es))
	for _, e := range es {
		dst = r.emit(dst, e.m, e.s)
	}
	return dst, OK
}

// ZCombineStore stores the result of sp in dstKey, replacing any value
// (deleting dstKey when the result is empty), and returns its size.
func (s *Store) ZCombineStore(db int, dstKey []byte, sp *ZCombineSpec, now int64) (int, Status) {
	var m shardSet
	s.lockSets(&m, dstKey, sp.Keys)
	defer s.unlockSet(&m)
	src, st := s.openZSources(db, sp, now)
	if st != OK {
		return 0, st
	}
	es := combine(sp, src, 0)
	var kd kv
	s.findInto(&kd, db, dstKey, now, false)
	if kd.exists() {
		kd.del()
	}
	if len(es) > 0 {
		kd.zstore(dstKey, es, s.limitsNow())
	}
	return len(es), OK
}

// ZInterCard returns the size of the intersection of keys, counting at
// most limit members when limit > 0.
func (s *Store) ZInterCard(db int, keys [][]byte, limit int, now int64) (int, Status) {
	var m shardSet
	sp := ZCombineSpec{Op: ZInter, Keys: keys}
	s.lockSets(&m, nil, keys)
	defer s.unlockSet(&m)
	src, st := s.openZSources(db, &sp, now)
	if st != OK {
		return 0, st
	}
	return len(combine(&sp, src, limit)), OK
}

// ZScan continues a ZSCAN of key's sorted set from cursor and returns the
// cursor to pass next, 0 at the end, calling fn with each member it visits
// that matches o.Pattern and its score as ZSCAN prints it. A listpack is
// returned whole with cursor 0, as Redis does; a skiplist's member dict is
// walked as SCAN walks the keyspace. It returns NotFound when key does
// not exist.
func (s *Store) ZScan(db int, key []byte, cursor uint64, now int64, o ScanOptions, fn func(m, score []byte)) (uint64, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeZSet, forRead)
	defer k.release()
	if st != OK {
		return 0, st
	}
	if k.enc() == EncListpack {
		lpEachPair(k.val(), func(m, sc []byte) {
			if o.Pattern == nil || Match(o.Pattern, m) {
				fn(m, sc)
			}
		})
		return 0, OK
	}
	count := o.Count
	if count <= 0 {
		count = 10
	}
	z, d := k.zsl(), k.obj()
	var sb [32]byte
	seen, iters := 0, count*10
	for {
		cursor = d.scan(z.a, cursor, func(r ref) {
			seen++
			if m := z.member(r); o.Pattern == nil || Match(o.Pattern, m) {
				fn(m, AppendScore(sb[:0], z.score(r)))
			}
		})
		if cursor == 0 || iters == 0 || seen >= count {
			return cursor, OK
		}
		iters--
	}
}

// AppendScore appends f as Redis 7.0 prints a score: "%.17g", with inf
// and -inf spelled out.
func AppendScore(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case f == math.Trunc(f) && math.Abs(f) < 1e17 && (f != 0 || !math.Signbit(f)):
		// an integer of at most 17 digits: what "%.17g" prints, faster
		return strconv.AppendInt(dst, int64(f), 10)
	}
	return strconv.AppendFloat(dst, f, 'g', 17, 64)
}

// ZRandMember appends a random member of key's sorted set through enc.
// It returns NotFound when key does not exist.
func (s *Store) ZRandMember(db int, key []byte, now int64, dst []byte, enc EncodeFunc) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeZSet, forRead)
	defer k.release()
	if st != OK {
		return dst, st
	}
	k.zwalk(int(k.sh.rand()%uint64(k.zlen())), 1, false, func(m []byte, _ float64) bool {
		dst = enc(dst, m)
		return true
	})
	return dst, OK
}

// ZRandMemberCount appends count random members through r, as Redis's
// zrandmemberWithCountCommand: distinct ones for a positive count (the
// whole set, highest score first, when count is at least its size), |count| that
// may repeat for a negative one, stopping with TooLarge once the reply
// has grown by more than maxOut bytes (the caller then closes the client
// as Redis does past its output buffer limit). count must be above
// math.MinInt64.
func (s *Store) ZRandMemberCount(db int, key []byte, now int64, count int64, maxOut int, dst []byte, r ZReply) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeZSet, forRead)
	defer k.release()
	if st != OK {
		return dst, st
	}
	size := k.zlen()
	emit := func(m []byte, sc float64) bool {
		dst = r.emit(dst, m, sc)
		return true
	}
	switch {
	case count == 0:
		return r.Head(dst, 0), OK
	case count < 0:
		start := len(dst)
		dst = r.Head(dst, int(-count))
		for i := int64(0); i < -count; i++ {
			k.zwalk(int(k.sh.rand()%uint64(size)), 1, false, emit)
			if len(dst)-start > maxOut {
				return dst[:start], TooLarge
			}
		}
		return dst, OK
	case count >= int64(size):
		// the whole set, from the highest score down, as Redis 7.0 replies
		dst = r.Head(dst, size)
		k.zwalk(size-1, size, true, emit)
		return dst, OK
	}
	// selection sampling (Knuth's algorithm S): exactly n, uniformly, in
	// the set's order
	n := int(count)
	dst = r.Head(dst, n)
	left := size
	k.zwalk(0, size, false, func(m []byte, sc float64) bool {
		if k.sh.rand()%uint64(left) < uint64(n) {
			dst = r.emit(dst, m, sc)
			n--
		}
		left--
		return n > 0
	})
	return dst, OK
}
