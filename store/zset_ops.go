package store

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/loopkv/loopkv/store/listpack"
)

// ParseScore parses a score as Redis's getDoubleFromObject: strtod's
// syntax (decimal, hexadecimal, inf and infinity in any case, with a
// sign), no leading space, the whole input consumed, no NaN, and no
// overflow or underflow to zero.
func ParseScore(b []byte) (float64, bool) {
	if len(b) == 0 || len(b) > 5*1024 {
		return 0, false
	}
	switch b[0] {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return 0, false
	}
	f, ok := strtod(b)
	if !ok || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// ParseScoreBound parses a bound of a score range as Redis's
// zslParseRange: an optional "(" for an exclusive bound, then what strtod
// accepts up to the end (leading space allowed, an empty number is 0,
// overflow is infinite), but not NaN.
func ParseScoreBound(b []byte) (ZBound, bool) {
	var bd ZBound
	if len(b) > 0 && b[0] == '(' {
		bd.Excl = true
		b = b[1:]
	}
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] >= '\t' && b[i] <= '\r') {
		i++
	}
	if i == len(b) {
		return bd, i == 0 // strtod of "" parses nothing: 0, at the end
	}
	f, ok := strtod(b[i:])
	if !ok && !isOverflow(b[i:]) {
		return bd, false
	}
	if math.IsNaN(f) {
		return bd, false
	}
	bd.Score = f
	return bd, true
}

// isOverflow reports whether b is a decimal number strtod saturates.
func isOverflow(b []byte) bool {
	_, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), len(b)), 64)
	return err != nil && strings.Contains(err.Error(), "range")
}

// strtod parses all of b as C's strtod would, without the leading-space
// rule. Overflow returns ±Inf and false, underflow to zero false.
func strtod(b []byte) (float64, bool) {
	s := unsafe.String(unsafe.SliceData(b), len(b))
	body := s
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	hex := len(body) > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c >= '0' && c <= '9', c == '.', c == '+', c == '-':
		case !hex && (c == 'e' || c == 'E'):
		case hex && (c|0x20 >= 'a' && c|0x20 <= 'f' || c|0x20 == 'x' || c|0x20 == 'p'):
		default:
			switch strings.ToLower(body) {
			case "inf", "infinity", "nan":
				f, _ := strconv.ParseFloat(s, 64)
				return f, true
			}
			return 0, false
		}
	}
	if hex && !strings.ContainsAny(body, "pP") {
		s += "p0" // strtod makes the binary exponent optional
	}
	if strings.Contains(body, "_") {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return f, false
	}
	if f == 0 && !hex {
		// underflow: a non-zero digit before the exponent
		for i := 0; i < len(body) && body[i]|0x20 != 'e'; i++ {
			if body[i] >= '1' && body[i] <= '9' {
				return 0, false
			}
		}
	}
	return f, true
}

// ParseLexBound parses a bound of a lex range: "-", "+", or "[" or "("
// and the member.
func ParseLexBound(b []byte) (ZBound, bool) {
	if len(b) == 0 {
		return ZBound{}, false
	}
	switch b[0] {
	case '-', '+':
		if len(b) != 1 {
			return ZBound{}, false
		}
		if b[0] == '-' {
			return ZBound{Inf: -1}, true
		}
		return ZBound{Inf: 1}, true
	case '[':
		return ZBound{Lex: b[1:]}, true
	case '(':
		return ZBound{Lex: b[1:], Excl: true}, true
	}
	return ZBound{}, false
}

// ZBy is the kind of a sorted-set range.
type ZBy uint8

const (
	ZByRank  ZBy = iota // Start and Stop are ranks, negative from the end
	ZByScore            // Min and Max are scores
	ZByLex              // Min and Max are members
)

// ZBound is one end of a score or lex range.
type ZBound struct {
	Score float64
	Lex   []byte
	Excl  bool
	Inf   int8 // lex only: -1 for "-", +1 for "+"
}

// ZRangeSpec is a range of a sorted set as ZRANGE takes it. Min and Max
// are in increasing order whatever Rev says.
type ZRangeSpec struct {
	By          ZBy
	Rev         bool
	Start, Stop int64
	Min, Max    ZBound
	Limit       bool  // LIMIT was given
	Offset      int64 // LIMIT offset
	Count       int64 // LIMIT count, negative for all
}

// ZReply is how a store operation writes members with their scores: Head
// once with the number of members, then for each member Entry (when not
// nil), Member and, when Score is not nil, Score. The functions run under
// a shard lock: they must not keep their arguments nor call the store.
type ZReply struct {
	Head   func(dst []byte, n int) []byte
	Entry  func(dst []byte) []byte
	Member EncodeFunc
	Score  func(dst []byte, f float64) []byte
}

func (r *ZReply) emit(dst, m []byte, score float64) []byte {
	if r.Entry != nil {
		dst = r.Entry(dst)
	}
	dst = r.Member(dst, m)
	if r.Score != nil {
		dst = r.Score(dst, score)
	}
	return dst
}

// ZAddFlags are ZADD's options.
type ZAddFlags uint8

const (
	ZAddNX ZAddFlags = 1 << iota
	ZAddXX
	ZAddGT
	ZAddLT
	ZAddIncr
)

// ZAddResult is what ZAdd did.
type ZAddResult struct {
	Added, Updated int     // members added, members whose score changed
	Processed      int     // members not skipped by NX, XX, GT or LT
	Score          float64 // with ZAddIncr: the member's new score
}

// ZAdd adds or updates the score, member pairs of sm in key's sorted set,
// as Redis's zaddGenericCommand. Every score is parsed first (NotFloat
// when one is not a valid float, before any change); with ZAddIncr the
// score is added to the member's. An increment giving NaN returns NaNScore
// with the earlier pairs applied.
func (s *Store) ZAdd(db int, key []byte, f ZAddFlags, sm [][]byte, now int64) (ZAddResult, Status) {
	var res ZAddResult
	for i := 0; i < len(sm); i += 2 {
		if _, ok := ParseScore(sm[i]); !ok {
			return res, NotFloat
		}
	}
	var k kv
	st := s.openInto(&k, db, key, now, TypeZSet, forWrite)
	defer k.release()
	if st != OK {
		return res, st
	}
	l := s.limitsNow()
	if !k.exists() {
		if f&ZAddXX != 0 {
			return res, OK
		}
		k.zsetCreate(key, l, len(sm[1]))
	}
	for i := 0; i < len(sm); i += 2 {
		score, _ := ParseScore(sm[i])
		m := sm[i+1]
		cur, ok := k.zscore(m)
		if !ok {
			if f&ZAddXX != 0 {
				continue
			}
			k.zinsert(m, score, l)
			res.Added++
			res.Processed++
			res.Score = score
			continue
		}
		if f&ZAddNX != 0 {
			continue
		}
		if f&ZAddIncr != 0 {
			score += cur
			if math.IsNaN(score) {
				return res, NaNScore
			}
		}
		if (f&ZAddLT != 0 && score >= cur) || (f&ZAddGT != 0 && score <= cur) {
			continue
		}
		res.Processed++
		res.Score = score
		if score != cur {
			k.zupdate(m, cur, score)
			res.Updated++
		}
	}
	return res, OK
}

// ZRem removes members from key's sorted set and returns how many were
// there; the key is deleted when it is left empty.
func (s *Store) ZRem(db int, key []byte, members [][]byte, now int64) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeZSet, forUpdate)
	defer k.release()
	if st != OK {
		return 0, st
	}
	n := 0
	for _, m := range members {
		if k.zdelete(m) {
			n++
			if k.zlen() == 0 {
				k.del()
				break
			}
		}
	}
	return n, OK
}

// ZCard returns the number of members of key's sorted set.
func (s *Store) ZCard(db int, key []byte, now int64) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeZSet, forRead)
	defer k.release()
	if st != OK {
		return 0, st
	}
	return k.zlen(), OK
}

// ZScore returns member's score; ok is false when it is absent.
func (s *Store) ZScore(db int, key, member []byte, now int64) (float64, bool, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeZSet, forRead)
	defer k.release()
	if st != OK {
		return 0, false, st
	}
	f, ok := k.zscore(member)
	return f, ok, OK
}

// ZMScore appends each member's score through score, or null for a
// member (or key) that is absent.
func (s *Store) ZMScore(db int, key []byte, members [][]byte, now int64, dst []byte,
	score func(dst []byte, f float64) []byte, null func(dst []byte) []byte) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeZSet, forRead)
	defer k.release()
	if st == WrongType {
		return dst, st
	}
	for _, m := range members {
		if st == OK {
			if f, ok := k.zscore(m); ok {
				dst = score(dst, f)
				continue
			}
		}
		dst = null(dst)
	}
	return dst, OK
}

// ZRank returns member's 0-based rank, counted from the highest score
// when rev, and its score; ok is false when it is absent.
func (s *Store) ZRank(db int, key, member []byte, rev bool, now int64) (int, float64, bool, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeZSet, forRead)
	defer k.release()
	if st != OK {
		return 0, 0, false, st
	}
	r, f, ok := k.zrankOf(member)
	if rev {
		r = k.zlen() - 1 - r
	}
	return r, f, ok, OK
}

// countBefore returns how many members come before the first for which
// stop reports true; stop must be monotonic in the set's order.
func (k *kv) countBefore(stop func(m []byte, score float64) bool) int {
	if k.enc() == EncSkiplist {
		return k.zsl().countBefore(func(z zsl, x ref) bool { return stop(z.member(x), z.score(x)) })
	}
	lp := k.val()
	n := 0
	for off := listpack.First(lp); off >= 0; n++ {
		soff := listpack.Next(lp, off)
		if stop(listpack.Value(lp, off, k.sh.num[1][:0]), lpScore(lp, soff)) {
			break
		}
		off = listpack.Next(lp, soff)
	}
	return n
}

func lexGteMin(m []byte, b *ZBound) bool {
	switch {
	case b.Inf < 0:
		return true
	case b.Inf > 0:
		return false
	case b.Excl:
		return bytes.Compare(m, b.Lex) > 0
	}
	return bytes.Compare(m, b.Lex) >= 0
}

func lexGtMax(m []byte, b *ZBound) bool {
	switch {
	case b.Inf > 0:
		return false
	case b.Inf < 0:
		return true
	case b.Excl:
		return bytes.Compare(m, b.Lex) >= 0
	}
	return bytes.Compare(m, b.Lex) > 0
}

// zresolve returns the ascending 0-based ranks [lo, hi] of the members in
// spec's score, lex or rank range (before LIMIT and REV); lo > hi when
// there are none.
func (k *kv) zresolve(sp *ZRangeSpec) (lo, hi int) {
	n := k.zlen()
	switch sp.By {
	case ZByScore:
		mn, mx := &sp.Min, &sp.Max
		lo = k.countBefore(func(_ []byte, s float64) bool { return s > mn.Score || (!mn.Excl && s == mn.Score) })
		hi = k.countBefore(func(_ []byte, s float64) bool { return s > mx.Score || (mx.Excl && s == mx.Score) }) - 1
	case ZByLex:
		mn, mx := &sp.Min, &sp.Max
		lo = k.countBefore(func(m []byte, _ float64) bool { return lexGteMin(m, mn) })
		hi = k.countBefore(func(m []byte, _ float64) bool { return lexGtMax(m, mx) }) - 1
	default:
		start, stop := sp.Start, sp.Stop
		if start < 0 {
			start += int64(n)
		}
		if stop < 0 {
			stop += int64(n)
		}
		start = max(start, 0)
		if start > stop || start >= int64(n) {
			return 0, -1
		}
		stop = min(stop, int64(n)-1)
		if sp.Rev {
			return n - 1 - int(stop), n - 1 - int(start)
		}
		return int(start), int(stop)
	}
	return lo, hi
}

// zselect applies REV and LIMIT to the range: the rank to start from, the
// direction and the number of members.
func (k *kv) zselect(sp *ZRangeSpec) (start, n int) {
	lo, hi := k.zresolve(sp)
	if lo > hi {
		return 0, 0
	}
	n = hi - lo + 1
	off := 0
	if sp.Limit {
		if sp.Offset < 0 {
			return 0, 0
		}
		if sp.Offset >= int64(n) {
			return 0, 0
		}
		off = int(sp.Offset)
		n -= off
		if sp.Count >= 0 {
			n = int(min(int64(n), sp.Count))
		}
	}
	if sp.Rev {
		return hi - off, n
	}
	return lo + off, n
}

// ZRange appends the members of key's sorted set in spec's range through
// r. It returns NotFound, leaving dst alone, when key does not exist.
func (s *Store) ZRange(db int, key []byte, sp *ZRangeSpec, now int64, dst []byte, r ZReply) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeZSet, forRead)
	defer k.release()
	if st != OK {
		return dst, st
	}
	start, n := k.zselect(sp)
	dst = r.Head(dst, n)
	k.zwalk(start, n, sp.Rev, func(m []byte, score float64) bool {
		dst = r.emit(dst, m, score)
		return true
	})
	return dst, OK
}

// ZCount returns the number of members in spec's score or lex range.
func (s *Store) ZCount(db int, key []byte, sp *ZRangeSpec, now int64) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeZSet, forRead)
	defer k.release()
	if st != OK {
		return 0, st
	}
	lo, hi := k.zresolve(sp)
	return max(hi-lo+1, 0), OK
}

// ZRemRange removes the members in spec's rank, score or lex range and
// returns their number; the key is deleted when it is left empty.
func (s *Store) ZRemRange(db int, key []byte, sp *ZRangeSpec, now int64) (int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeZSet, forUpdate)
	defer k.release()
	if st != OK {
		return 0, st
	}
	lo, hi := k.zresolve(sp)
	if lo > hi {
		return 0, OK
	}
	k.zdeleteRank(lo, hi-lo+1)
	if k.zlen() == 0 {
		k.del()
	}
	return hi - lo + 1, OK
}

// ZPop removes up to count members with the lowest scores (the highest
// when max) from key's sorted set, appending them through r. It returns
// NotFound, leaving dst alone, when key does not exist. BZPOPMIN and
// BZPOPMAX serve a waiter with it.
func (s *Store) ZPop(db int, key []byte, max bool, count int, now int64, dst []byte, r ZReply) ([]byte, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeZSet, forUpdate)
	defer k.release()
	if st != OK {
		return dst, st
	}
	return k.zpop(max, count, dst, &r, true), OK
}

// zpop pops up to count members from one end into dst, calling r.Head
// when head.
func (k *kv) zpop(max bool, count int, dst []byte, r *ZReply, head bool) []byte {
	total := k.zlen()
	n := min(count, total)
	if head {
		dst = r.Head(dst, n)
	}
	start := 0
	if max {
		start = total - 1
	}
	k.zwalk(start, n, max, func(m []byte, score float64) bool {
		dst = r.emit(dst, m, score)
		return true
	})
	if max {
		k.zdeleteRank(total-n, n)
	} else {
		k.zdeleteRank(0, n)
	}
	if k.zlen() == 0 {
		k.del()
	}
	return dst
}

// ZMPop pops up to count members from the first non-empty sorted set
// among keys, appending through found (with the key and the number of
// members) and r (r.Head is not called). It returns NotFound when every
// key is missing, and WrongType at the first key of another type, as
// Redis's ZMPOP; BZMPOP serves a waiter with it.
func (s *Store) ZMPop(db int, keys [][]byte, max bool, count int, now int64, dst []byte,
	found func(dst, key []byte, n int) []byte, r ZReply) ([]byte, Status) {
	st := s.mpop(db, keys, TypeZSet, now, func(k *kv, key []byte) {
		dst = found(dst, key, min(count, k.zlen()))
		dst = k.zpop(max, count, dst, &r, false)
	})
	return dst, st
}

// zentry is a member and score copied out of the keyspace.
type zentry struct {
	m []byte
	s float64
}

// zcollect copies n members from rank start (down when rev).
func (k *kv) zcollect(start, n int, rev bool, out []zentry) []zentry {
	k.zwalk(start, n, rev, func(m []byte, score float64) bool {
		out = append(out, zentry{append([]byte(nil), m...), score})
		return true
	})
	return out
}

// zstore makes k (dst, not existing) hold es, in order by score and
// member, encoded as Redis's zsetConvertToListpackIfNeeded decides.
func (k *kv) zstore(key []byte, es []zentry, l *Limits) {
	maxlen, total := 0, 0
	for _, e := range es {
		maxlen = max(maxlen, len(e.m))
		total += len(e.m)
	}
	if len(es) <= l.ZSetMaxListpackEntries && maxlen <= l.ZSetMaxListpackValue && total+len(es)*24 < listpack.MaxSafeSize {
		k.createCompact(key, TypeZSet, EncListpack, listpack.New, 0)
		var sb [32]byte
		for _, e := range es {
			k.lpAppend(e.m, appendD2String(sb[:0], e.s))
		}
		return
	}
	k.zslCreate(key, 0)
	for _, e := range es {
		k.zslInsert(e.m, e.s)
	}
}

// ZRangeStore stores the members of src in spec's range in dst, replacing
// any value, deleting dst when there are none, and returns their number.
func (s *Store) ZRangeStore(db int, dst, src []byte, sp *ZRangeSpec, now int64) (int, Status) {
	var m shardSet
	m.add(s.shardIndex(src))
	m.add(s.shardIndex(dst))
	s.lockSet(&m)
	defer s.unlockSet(&m)
	var ks kv
	s.findInto(&ks, db, src, now, true)
	if st := ks.check(TypeZSet); st != OK {
		return 0, st
	}
	var es []zentry
	if ks.exists() {
		start, n := ks.zselect(sp)
		es = ks.zcollect(start, n, sp.Rev, nil)
	}
	var kd kv
	s.findInto(&kd, db, dst, now, false)
	if kd.exists() {
		kd.del()
	}
	if len(es) > 0 {
		sortEntries(es)
		kd.zstore(dst, es, s.limitsNow())
	}
	return len(es), OK
}

func sortEntries(es []zentry) {
	slices.SortFunc(es, func(a, b zentry) int {
		switch {
		case zless(a.s, a.m, b.s, b.m):
			return -1
		case zless(b.s, b.m, a.s, a.m):
			return 1
		}
		return 0
	})
}
