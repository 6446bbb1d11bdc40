package store

import (
	"bytes"
	"math"
	"slices"
)

// SORT and SORT_RO (Redis sort.c) over lists, sets and sorted sets.

// SortOptions are SORT's options.
type SortOptions struct {
	By     []byte   // BY pattern, nil for none
	NoSort bool     // BY with a pattern without '*': keep the source's order
	Gets   [][]byte // GET patterns, in order
	Offset int64    // LIMIT offset
	Count  int64    // LIMIT count, negative for all
	Desc   bool
	Alpha  bool
	Store  []byte // STORE destination, nil for a reply
}

// sortItem is one element of the vector being sorted.
type sortItem struct {
	elem  []byte
	score float64
	cmp   []byte // ALPHA with BY: the looked-up value, nil when missing
}

// Sort runs SORT on key and returns the output (one value per element, or
// one per GET pattern per element; nil for a GET of a missing value), with
// every shard locked so that the BY and GET lookups see one instant. It
// returns NotFloat when a weight is not a number ("One or more scores
// can't be converted into double") and WrongType when key holds another
// type. With o.Store the result is stored as a list in o.Store (deleted
// when empty) and out is nil; n is the output's length either way.
func (s *Store) Sort(db int, key []byte, o *SortOptions, now int64) (out [][]byte, n int, st Status) {
	var m shardSet
	for i := range s.shards {
		m.add(i)
	}
	s.lockSet(&m)
	defer s.unlockSet(&m)
	var k kv
	s.findInto(&k, db, key, now, true)
	t := k.kind()
	switch t {
	case TypeNone, TypeList, TypeSet, TypeZSet:
	default:
		return nil, 0, WrongType
	}
	dontsort := o.NoSort
	alpha, by := o.Alpha, o.By
	if dontsort && t == TypeSet && o.Store != nil {
		// sorted anyway so that the stored result is deterministic
		dontsort, alpha, by = false, true, nil
	}
	if t == TypeZSet && k.enc() == EncListpack {
		k.zsetConvert() // as Redis 7.0 does, destructively
	}
	size := 0
	switch t {
	case TypeList:
		size = k.listHdr().count()
	case TypeSet:
		size = k.scard()
	case TypeZSet:
		size = k.zlen()
	}
	start := max(o.Offset, 0)
	end := int64(size) - 1
	if o.Count >= 0 {
		end = start + o.Count - 1
	}
	if start >= int64(size) {
		start, end = int64(size)-1, int64(size)-2
	}
	end = min(end, int64(size)-1)
	var vec []sortItem
	add := func(e []byte) bool {
		vec = append(vec, sortItem{elem: append([]byte{}, e...)})
		return true
	}
	switch {
	case dontsort && t == TypeList && end >= start:
		i := int64(0)
		k.listEach(o.Desc, func(e []byte) bool {
			if i >= start {
				add(e)
			}
			i++
			return i <= end
		})
		start, end = 0, int64(len(vec))-1
	case dontsort && t == TypeZSet && end >= start:
		first := int(start)
		if o.Desc {
			first = size - 1 - int(start)
		}
		k.zwalk(first, int(end-start+1), o.Desc, func(e []byte, _ float64) bool { return add(e) })
		start, end = 0, int64(len(vec))-1
	case t == TypeList:
		k.listEach(false, add)
	case t == TypeSet:
		k.seach(add)
	case t == TypeZSet:
		k.zwalk(0, size, false, func(e []byte, _ float64) bool { return add(e) })
	}
	if !dontsort {
		if st := s.sortWeights(db, vec, by, alpha, now); st != OK {
			return nil, 0, st
		}
		sortVec(vec, by != nil, alpha, o.Desc)
	}
	for j := start; j <= end && j >= 0; j++ {
		e := vec[j].elem
		if len(o.Gets) == 0 {
			out = append(out, e)
			continue
		}
		for _, g := range o.Gets {
			v, _ := s.sortLookup(db, g, e, now)
			out = append(out, v)
		}
	}
	if o.Store == nil {
		return out, len(out), OK
	}
	var kd kv
	s.findInto(&kd, db, o.Store, now, false)
	if kd.exists() {
		kd.del()
	}
	if len(out) > 0 {
		kd.listCreate(o.Store)
		fill := s.listFill()
		for _, v := range out {
			kd.listPush(v, ListTail, fill)
		}
	}
	return nil, len(out), OK
}

// sortWeights fills each item's score, or with alpha and a BY pattern
// its compare value.
func (s *Store) sortWeights(db int, vec []sortItem, by []byte, alpha bool, now int64) Status {
	for i := range vec {
		v := vec[i].elem
		if by != nil {
			var ok bool
			if v, ok = s.sortLookup(db, by, v, now); !ok {
				continue
			}
		}
		if alpha {
			if by != nil {
				vec[i].cmp = v
			}
			continue
		}
		f, ok := sortStrtod(v)
		if !ok {
			return NotFloat
		}
		vec[i].score = f
	}
	return OK
}

// sortStrtod parses a weight as SORT does: strtod, leading space allowed,
// the whole input consumed, no NaN and no overflow.
func sortStrtod(b []byte) (float64, bool) {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] >= '\t' && b[i] <= '\r') {
		i++
	}
	if i == len(b) {
		return 0, i == 0
	}
	f, ok := strtod(b[i:])
	return f, ok && !math.IsNaN(f)
}

func sortVec(vec []sortItem, byPattern, alpha, desc bool) {
	slices.SortStableFunc(vec, func(a, b sortItem) int {
		var c int
		switch {
		case !alpha:
			switch {
			case a.score > b.score:
				c = 1
			case a.score < b.score:
				c = -1
			default:
				c = bytes.Compare(a.elem, b.elem)
			}
		case byPattern:
			switch {
			case a.cmp == nil && b.cmp == nil:
			case a.cmp == nil:
				c = -1
			case b.cmp == nil:
				c = 1
			default:
				c = bytes.Compare(a.cmp, b.cmp)
			}
		default:
			c = bytes.Compare(a.elem, b.elem)
		}
		if desc {
			return -c
		}
		return c
	})
}

// sortLookup is Redis's lookupKeyByPattern: "#" is the element itself;
// otherwise the first '*' of pattern is replaced by the element, and the
// key named so is read as a string, or, when "->field" follows the '*',
// as that field of a hash. ok is false when there is no such value.
func (s *Store) sortLookup(db int, pattern, elem []byte, now int64) ([]byte, bool) {
	if len(pattern) == 1 && pattern[0] == '#' {
		return elem, true
	}
	star := bytes.IndexByte(pattern, '*')
	if star < 0 {
		return nil, false
	}
	var field []byte
	post := pattern[star+1:]
	if f := bytes.Index(post, []byte("->")); f >= 0 && f+2 < len(post) {
		field = post[f+2:]
		post = post[:f]
	}
	name := make([]byte, 0, len(pattern)+len(elem))
	name = append(append(append(name, pattern[:star]...), elem...), post...)
	var k kv
	s.findInto(&k, db, name, now, true)
	if !k.exists() {
		return nil, false
	}
	if field != nil {
		if k.kind() != TypeHash {
			return nil, false
		}
		v, ok := k.hget(field, 0)
		if !ok {
			return nil, false
		}
		return append([]byte{}, v...), true
	}
	if k.kind() != TypeString {
		return nil, false
	}
	return append([]byte{}, k.val()...), true
}
