package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strconv"

	"github.com/loopkv/loopkv/store"
	"github.com/loopkv/loopkv/store/intset"
	"github.com/loopkv/loopkv/store/listpack"
)

// span is a string in the decoder's arena.
type span struct{ off, n int }

// object is one decoded value, complete and checked, before it reaches the
// store. Its strings live in the decoder's arena until the next value.
type object struct {
	typ    store.Type
	enc    store.Encoding // EncListpack or EncIntset: blob holds the value; else items do
	blob   span           // the string, or the compact value
	items  []span         // LIST elements, set members, hash field and value pairs, zset members
	nodes  []span         // a quicklist's or ziplist's nodes as listpacks (non-empty ones)
	scores []float64      // zset: the score of each member in items
	empty  bool           // a collection with nothing in it (Redis skips such keys)
	// a stream's nodes are in nodes, their master IDs here (stream.go)
	masters []store.StreamID
	stream  store.StreamMeta
}

// decoder turns RDB values into objects.
type decoder struct {
	r     *reader
	arena []byte
	obj   object
	lp    []byte   // scratch listpack for ziplist and zipmap conversions
	keys  [][]byte // scratch for the duplicate check
	perm  []int    // scratch for the duplicate check: indexes into keys
	offs  []int64  // the file offset of each item of readItems and readZSet
	ibuf  []byte   // scratch for integers in the duplicate check
}

func (d *decoder) bytes(s span) []byte { return d.arena[s.off : s.off+s.n] }

// reset starts a new key.
func (d *decoder) reset() {
	d.arena = d.arena[:0]
	d.obj = object{items: d.obj.items[:0], scores: d.obj.scores[:0], nodes: d.obj.nodes[:0], masters: d.obj.masters[:0]}
}

// str reads a string into the arena.
func (d *decoder) str(what string) (span, error) {
	off := len(d.arena)
	a, err := d.r.readString(d.arena, what)
	d.arena = a
	return span{off, len(a) - off}, err
}

// readValue decodes a value of RDB type t into d.obj.
func (d *decoder) readValue(t byte) error {
	at := d.r.offset()
	o := &d.obj
	switch t {
	case typeString:
		o.typ = store.TypeString
		s, err := d.str("a string value")
		o.blob = s
		return err
	case typeList:
		o.typ = store.TypeList
		return d.readItems("a list", 1, at)
	case typeSet:
		o.typ = store.TypeSet
		return d.readItems("a set", 1, at)
	case typeHash:
		o.typ = store.TypeHash
		return d.readItems("a hash", 2, at)
	case typeZSet, typeZSet2:
		o.typ = store.TypeZSet
		return d.readZSet(t == typeZSet2, at)
	case typeListQuicklist, typeListQuicklist2:
		o.typ = store.TypeList
		return d.readQuicklist(t == typeListQuicklist2)
	case typeListZiplist:
		o.typ = store.TypeList
		return d.readZiplistItems()
	case typeSetIntset, typeSetListpack, typeHashListpack, typeZSetListpack:
		return d.readCompact(t)
	case typeHashZipmap, typeHashZiplist, typeZSetZiplist:
		return d.readConverted(t)
	case typeStreamLP, typeStreamLP2, typeStreamLP3:
		return d.readStream(t)
	case typeModulePreGA, typeModule2:
		return errAt(at-1, "value type "+strconv.Itoa(int(t))+" ("+typeName(t)+") is not supported")
	}
	return errAt(at-1, "unknown value type "+strconv.Itoa(int(t)))
}

// readItems reads a count and count*stride strings (LIST, SET, HASH) and
// checks that set members and hash fields are unique.
func (d *decoder) readItems(what string, stride int, at int64) error {
	n, err := d.count(what)
	if err != nil || n == 0 {
		return err
	}
	d.offs = d.offs[:0]
	for i := uint64(0); i < n; i++ {
		d.offs = append(d.offs, d.r.offset())
		for j := 0; j < stride; j++ {
			s, err := d.str("an element of " + what)
			if err != nil {
				return err
			}
			d.obj.items = append(d.obj.items, s)
		}
	}
	if d.obj.typ != store.TypeList {
		if i := d.dupSpans(stride); i >= 0 {
			return errAt(d.offs[i], "duplicate members in "+what)
		}
	}
	return nil
}

// count reads a collection's count; a zero one makes the object empty.
func (d *decoder) count(what string) (uint64, error) {
	n, err := d.r.readCount(what)
	if err == nil && n == 0 {
		d.obj.empty = true
	}
	return n, err
}

// readZSet reads ZSET (text scores) or ZSET_2 (binary scores).
func (d *decoder) readZSet(binaryScores bool, at int64) error {
	n, err := d.count("a sorted set")
	if err != nil || n == 0 {
		return err
	}
	d.offs = d.offs[:0]
	for i := uint64(0); i < n; i++ {
		d.offs = append(d.offs, d.r.offset())
		m, err := d.str("a sorted set member")
		if err != nil {
			return err
		}
		sat := d.r.offset()
		var f float64
		if binaryScores {
			p, err := d.r.next(8, "a score")
			if err != nil {
				return err
			}
			f = math.Float64frombits(binary.LittleEndian.Uint64(p))
		} else if f, err = d.textScore(); err != nil {
			return err
		}
		if math.IsNaN(f) {
			return errAt(sat, "sorted set score is NaN")
		}
		d.obj.items = append(d.obj.items, m)
		d.obj.scores = append(d.obj.scores, f)
	}
	if i := d.dupSpans(1); i >= 0 {
		return errAt(d.offs[i], "duplicate members in a sorted set")
	}
	return nil
}

// textScore reads a ZSET score: a length byte (253 NaN, 254 +inf, 255 -inf)
// and that many bytes of text (rdbLoadDoubleValue).
func (d *decoder) textScore() (float64, error) {
	at := d.r.offset()
	n, err := d.r.byte("a score")
	if err != nil {
		return 0, err
	}
	switch n {
	case 253:
		return math.NaN(), nil
	case 254:
		return math.Inf(1), nil
	case 255:
		return math.Inf(-1), nil
	}
	p, err := d.r.next(int(n), "a score")
	if err != nil {
		return 0, err
	}
	f, ok := store.ParseScore(p)
	if !ok {
		return 0, errAt(at, "score "+strconv.Quote(string(p))+" is not a number")
	}
	return f, nil
}

// readQuicklist reads LIST_QUICKLIST (ziplist nodes) or LIST_QUICKLIST_2
// (a container kind, then a listpack or one plain element, per node).
func (d *decoder) readQuicklist(v2 bool) error {
	n, err := d.r.readCount("a quicklist")
	if err != nil {
		return err
	}
	for i := uint64(0); i < n; i++ {
		kind := uint64(containerPacked)
		if v2 {
			at := d.r.offset()
			if kind, err = d.r.readCount("a quicklist node"); err != nil {
				return err
			}
			if kind != containerPlain && kind != containerPacked {
				return errAt(at, "unknown quicklist node container "+strconv.FormatUint(kind, 10))
			}
		}
		at := d.r.offset()
		s, err := d.str("a quicklist node")
		if err != nil {
			return err
		}
		switch {
		case kind == containerPlain:
			d.addNode(listpack.AppendString(listpack.New(d.lp), d.bytes(s)))
		case v2:
			lp := d.bytes(s)
			if err := listpack.Validate(lp); err != nil {
				return blobErr(at, "quicklist node", err)
			}
			if listpack.Len(lp) > 0 {
				d.obj.nodes = append(d.obj.nodes, s)
			}
		default:
			if err := d.ziplistNode(d.bytes(s), at); err != nil {
				return err
			}
		}
	}
	d.obj.empty = len(d.obj.nodes) == 0
	return nil
}

// readZiplistItems reads LIST_ZIPLIST, a list of one ziplist.
func (d *decoder) readZiplistItems() error {
	at := d.r.offset()
	s, err := d.str("a ziplist")
	if err != nil {
		return err
	}
	if err := d.ziplistNode(d.bytes(s), at); err != nil {
		return err
	}
	d.obj.empty = len(d.obj.nodes) == 0
	return nil
}

// ziplistNode converts a ziplist to a listpack node.
func (d *decoder) ziplistNode(zl []byte, at int64) error {
	lp, err := ziplistToListpack(listpack.New(d.lp), zl)
	d.lp = lp
	if err != nil {
		return blobErr(at, "ziplist", err)
	}
	d.addNode(lp)
	return nil
}

// addNode copies a listpack with entries into the arena as a node.
func (d *decoder) addNode(lp []byte) {
	d.lp = lp
	if listpack.Len(lp) == 0 {
		return
	}
	off := len(d.arena)
	d.arena = append(d.arena, lp...)
	d.obj.nodes = append(d.obj.nodes, span{off, len(lp)})
}

// ziplistToListpack appends zl's entries to the listpack lp.
func ziplistToListpack(lp, zl []byte) ([]byte, error) {
	_, err := ziplistEach(zl, func(s []byte, v int64, isInt bool) error {
		if isInt {
			lp = listpack.AppendInt(lp, v)
		} else {
			lp = listpack.AppendString(lp, s)
		}
		return nil
	})
	return lp, err
}

// readCompact reads SET_INTSET, SET_LISTPACK, HASH_LISTPACK or
// ZSET_LISTPACK and checks it as Redis's deep integrity check does.
func (d *decoder) readCompact(t byte) error {
	at := d.r.offset()
	s, err := d.str("a compact value")
	if err != nil {
		return err
	}
	o := &d.obj
	o.blob, o.enc = s, store.EncListpack
	b := d.bytes(s)
	switch t {
	case typeSetIntset:
		o.typ, o.enc = store.TypeSet, store.EncIntset
		if err := intset.Validate(b); err != nil {
			return blobErr(at, "intset", err)
		}
		o.empty = intset.Len(b) == 0
		return nil
	case typeSetListpack:
		o.typ = store.TypeSet
	case typeHashListpack:
		o.typ = store.TypeHash
	case typeZSetListpack:
		o.typ = store.TypeZSet
	}
	if err := listpack.Validate(b); err != nil {
		return blobErr(at, "listpack", err)
	}
	return d.checkListpack(b, at)
}

// readConverted reads HASH_ZIPMAP, HASH_ZIPLIST or ZSET_ZIPLIST and
// converts it to a listpack, as Redis 7 does on load.
func (d *decoder) readConverted(t byte) error {
	at := d.r.offset()
	s, err := d.str("a ziplist")
	if err != nil {
		return err
	}
	lp := listpack.New(d.lp)
	src := d.bytes(s)
	if t == typeHashZipmap {
		_, err = zipmapEach(src, func(k, v []byte) error {
			lp = listpack.AppendString(listpack.AppendString(lp, k), v)
			return nil
		})
		err = blobErr(at, "zipmap", err)
		d.obj.typ = store.TypeHash
	} else {
		lp, err = ziplistToListpack(lp, src)
		err = blobErr(at, "ziplist", err)
		d.obj.typ = store.TypeHash
		if t == typeZSetZiplist {
			d.obj.typ = store.TypeZSet
		}
	}
	d.lp = lp
	if err != nil {
		return err
	}
	off := len(d.arena)
	d.arena = append(d.arena, lp...)
	d.obj.blob, d.obj.enc = span{off, len(lp)}, store.EncListpack
	return d.checkListpack(lp, at)
}

// checkListpack checks a valid listpack as the value d.obj.typ: pairs for
// hashes and sorted sets, unique members or fields, and for sorted sets
// valid scores in order.
func (d *decoder) checkListpack(lp []byte, at int64) error {
	n := listpack.Len(lp)
	if n == 0 {
		d.obj.empty = true
		return nil
	}
	stride := 1
	if d.obj.typ != store.TypeSet {
		stride = 2
		if n%2 != 0 {
			return errAt(at, "listpack of a "+d.obj.typ.String()+" has an odd count "+strconv.Itoa(n))
		}
	}
	if d.obj.typ == store.TypeZSet {
		if err := checkZSetOrder(lp); err != nil {
			return errAt(at, err.Error())
		}
	}
	d.keys, d.ibuf = d.keys[:0], slices.Grow(d.ibuf[:0], 21*n)
	i := 0
	for off := listpack.First(lp); off >= 0; off = listpack.Next(lp, off) {
		if i%stride == 0 {
			s, v, isInt := listpack.Get(lp, off)
			if isInt {
				k := len(d.ibuf)
				d.ibuf = strconv.AppendInt(d.ibuf, v, 10)
				s = d.ibuf[k:]
			}
			d.keys = append(d.keys, s)
		}
		i++
	}
	if d.dup() >= 0 {
		return errAt(at, "duplicate members in a "+d.obj.typ.String()+" listpack")
	}
	return nil
}

// checkZSetOrder checks a listpack zset's member, score pairs: every score a
// number and the pairs ascending by score, then member.
func checkZSetOrder(lp []byte) error {
	var prevM []byte
	var prevS float64
	var bufs [2][24]byte // integer members alternate, so prevM stays valid
	first := true
	for i, off := 0, listpack.First(lp); off >= 0; i++ {
		m := listpack.Value(lp, off, bufs[i&1][:0])
		soff := listpack.Next(lp, off)
		s, v, isInt := listpack.Get(lp, soff)
		f := float64(v)
		if !isInt {
			var ok bool
			if f, ok = store.ParseScore(s); !ok {
				return errors.New("sorted set score " + strconv.Quote(string(s)) + " is not a number")
			}
		}
		if !first && (f < prevS || f == prevS && bytes.Compare(m, prevM) <= 0) {
			return errors.New("sorted set listpack is not in order")
		}
		first, prevM, prevS = false, m, f
		off = listpack.Next(lp, soff)
	}
	return nil
}

// dupSpans returns the index (in strides) of an item, taken every stride,
// equal to an earlier one, or -1.
func (d *decoder) dupSpans(stride int) int {
	d.keys = d.keys[:0]
	for i := 0; i < len(d.obj.items); i += stride {
		d.keys = append(d.keys, d.bytes(d.obj.items[i]))
	}
	return d.dup()
}

// dup returns the index of a string of d.keys equal to an earlier one (the
// last of the equal ones), or -1.
func (d *decoder) dup() int {
	d.perm = d.perm[:0]
	for i := range d.keys {
		d.perm = append(d.perm, i)
	}
	slices.SortFunc(d.perm, func(a, b int) int {
		if c := bytes.Compare(d.keys[a], d.keys[b]); c != 0 {
			return c
		}
		return a - b
	})
	found := -1
	for i := 1; i < len(d.perm); i++ {
		if bytes.Equal(d.keys[d.perm[i]], d.keys[d.perm[i-1]]) {
			found = max(found, d.perm[i])
		}
	}
	return found
}

// blobErr turns a fault inside a listpack, intset, ziplist or zipmap that
// starts at file offset at into an *Error.
func blobErr(at int64, what string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return errAt(at, what+" is corrupt: "+err.Error())
}
