package store

import (
	"strconv"

	"github.com/loopkv/loopkv/store/listpack"
)

// Streams (Redis t_stream.c). A stream is a sequence of nodes, each a
// listpack in Redis's own stream-node format (so that RDB's
// STREAM_LISTPACKS types store each node verbatim), keyed by its master
// ID. Redis keeps the nodes in a rax; here the ID index is a sorted array
// of (master ID, node ref) in one arena chunk, so the collector sees no
// pointer per node or entry and a lookup is a binary search. Appends go to
// the last node, and whole nodes leave from anywhere (XTRIM, XDEL of a
// node's last live entry), so the array's moves are rare and short. The
// key record's value is the stream header:
//
//	0  length   uint64  live entries
//	8  last     ID      last generated ID (ms, seq: two uint64)
//	24 first    ID      recorded first entry ID
//	40 maxDel   ID      max deleted entry ID
//	56 added    uint64  entries added over the stream's life
//	64 index    ref     the ID index chunk, noRef while it has no node
//	68 nodes    uint32  nodes in the index
//	72 groups   ref     consumer groups (stream_group.go; no command makes one yet)
//	76 idxClass uint8   the index chunk's class
//
// An index entry is 20 bytes: the master ID (ms, seq) and the node's ref.
// A node is a list node (list.go: a 16-byte header, then the listpack)
// whose prev and next are unused. Its listpack starts with the master
// entry, count (live entries), deleted, the number of master fields, the
// master fields and a 0; then each entry is flags, ms and seq deltas from
// the master ID, either the values alone (flag SAMEFIELDS: its fields are
// the master's) or the number of fields and the field, value pairs, and
// last lp-count, the number of the entry's elements before it, which lets
// a reverse walk find the entry's start. A deleted entry keeps its place
// with flag DELETED until its node goes. A node takes entries until it
// reaches stream-node-max-bytes or stream-node-max-entries (live and
// deleted), as streamAppendItem decides.

const (
	shLen      = 0
	shLast     = 8
	shFirst    = 24
	shMaxDel   = 40
	shAdded    = 56
	shIndex    = 64
	shNodes    = 68
	shGroups   = 72
	shIdxClass = 76
	shSize     = 80

	sixEntry = 20 // bytes per index entry

	streamFlagDeleted    = 1
	streamFlagSameFields = 2

	streamMaxNodeBytes = 1 << 30 // STREAM_LISTPACK_MAX_SIZE
)

// StreamID is a stream entry ID, ms-seq.
type StreamID struct{ Ms, Seq uint64 }

// MaxStreamID is the largest ID, "+".
var MaxStreamID = StreamID{^uint64(0), ^uint64(0)}

// Cmp compares a and b: -1, 0 or 1.
func (a StreamID) Cmp(b StreamID) int {
	switch {
	case a.Ms < b.Ms:
		return -1
	case a.Ms > b.Ms:
		return 1
	case a.Seq < b.Seq:
		return -1
	case a.Seq > b.Seq:
		return 1
	}
	return 0
}

// Less reports whether a < b.
func (a StreamID) Less(b StreamID) bool { return a.Cmp(b) < 0 }

// IsZero reports whether a is 0-0.
func (a StreamID) IsZero() bool { return a.Ms == 0 && a.Seq == 0 }

// Incr returns the ID after a, false when a is the largest.
func (a StreamID) Incr() (StreamID, bool) {
	switch {
	case a.Seq != ^uint64(0):
		return StreamID{a.Ms, a.Seq + 1}, true
	case a.Ms != ^uint64(0):
		return StreamID{a.Ms + 1, 0}, true
	}
	return a, false
}

// Decr returns the ID before a, false when a is 0-0.
func (a StreamID) Decr() (StreamID, bool) {
	switch {
	case a.Seq != 0:
		return StreamID{a.Ms, a.Seq - 1}, true
	case a.Ms != 0:
		return StreamID{a.Ms - 1, ^uint64(0)}, true
	}
	return a, false
}

// AppendStreamID appends id as text, "ms-seq".
func AppendStreamID(dst []byte, id StreamID) []byte {
	dst = strconv.AppendUint(dst, id.Ms, 10)
	dst = append(dst, '-')
	return strconv.AppendUint(dst, id.Seq, 10)
}

// String returns id as text.
func (a StreamID) String() string { return string(AppendStreamID(nil, a)) }

func getID(b []byte) StreamID     { return StreamID{le.Uint64(b), le.Uint64(b[8:])} }
func putID(b []byte, id StreamID) { le.PutUint64(b, id.Ms); le.PutUint64(b[8:], id.Seq) }

// streamHdr is a view of a stream's header; valid until the key record
// moves (it never does while it is a stream: the header's size is fixed).
type streamHdr []byte

func (h streamHdr) length() int64         { return int64(le.Uint64(h[shLen:])) }
func (h streamHdr) setLength(n int64)     { le.PutUint64(h[shLen:], uint64(n)) }
func (h streamHdr) last() StreamID        { return getID(h[shLast:]) }
func (h streamHdr) setLast(id StreamID)   { putID(h[shLast:], id) }
func (h streamHdr) first() StreamID       { return getID(h[shFirst:]) }
func (h streamHdr) setFirst(id StreamID)  { putID(h[shFirst:], id) }
func (h streamHdr) maxDel() StreamID      { return getID(h[shMaxDel:]) }
func (h streamHdr) setMaxDel(id StreamID) { putID(h[shMaxDel:], id) }
func (h streamHdr) added() uint64         { return le.Uint64(h[shAdded:]) }
func (h streamHdr) setAdded(n uint64)     { le.PutUint64(h[shAdded:], n) }
func (h streamHdr) index() ref            { return ref(le.Uint32(h[shIndex:])) }
func (h streamHdr) nodes() int            { return int(le.Uint32(h[shNodes:])) }
func (h streamHdr) setNodes(n int)        { le.PutUint32(h[shNodes:], uint32(n)) }

func (k *kv) streamHdr() streamHdr { return streamHdr(k.val()) }

// streamCreate creates key, which does not exist, as an empty stream.
func (k *kv) streamCreate(key []byte) {
	var hdr [shSize]byte
	k.create(key, TypeStream, EncStream, hdr[:], 0, 0)
}

// sindex is a stream's ID index: its arena and header.
type sindex struct {
	a *arena
	h streamHdr
}

func (x sindex) entry(i int) []byte {
	return x.a.at(x.h.index())[i*sixEntry : (i+1)*sixEntry]
}
func (x sindex) master(i int) StreamID { return getID(x.entry(i)) }
func (x sindex) node(i int) ref        { return ref(le.Uint32(x.entry(i)[16:])) }
func (x sindex) setNode(i int, r ref)  { le.PutUint32(x.entry(i)[16:], uint32(r)) }
func (x sindex) lp(i int) []byte       { return nodeLP(x.a.at(x.node(i))) }

// capacity returns the entries the index chunk holds.
func (x sindex) capacity() int {
	r := x.h.index()
	if r == noRef {
		return 0
	}
	c := x.h[shIdxClass]
	if c == classLarge {
		return len(x.a.at(r)) / sixEntry
	}
	return int(classSizes[c]) / sixEntry
}

// seek returns the index of the last node whose master ID is <= id, -1
// when id is before every node.
func (x sindex) seek(id StreamID) int {
	lo, hi := 0, x.h.nodes() // the answer is in [lo-1, hi-1]
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if x.master(m).Cmp(id) <= 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

func (k *kv) sindex() sindex { return sindex{&k.t.a, k.streamHdr()} }

// streamAddNode appends a node (ref r, master ID id) to the index,
// growing its chunk when full.
func (k *kv) streamAddNode(id StreamID, r ref) {
	x := k.sindex()
	n := x.h.nodes()
	if n == x.capacity() {
		t := k.t
		nr, c, nb := t.a.alloc(max(2*n, 4) * sixEntry)
		x = k.sindex()
		if old := x.h.index(); old != noRef {
			copy(nb, t.a.at(old)[:n*sixEntry])
			t.a.release(old, x.h[shIdxClass], x.capacity()*sixEntry)
		}
		le.PutUint32(x.h[shIndex:], uint32(nr))
		x.h[shIdxClass] = c
	}
	e := x.entry(n)
	putID(e, id)
	le.PutUint32(e[16:], uint32(r))
	x.h.setNodes(n + 1)
}

// streamDropNode frees node i and removes it from the index.
func (k *kv) streamDropNode(i int) {
	x := k.sindex()
	k.t.freeNode(x.node(i))
	n := x.h.nodes()
	b := x.a.at(x.h.index())
	copy(b[i*sixEntry:], b[(i+1)*sixEntry:n*sixEntry])
	x.h.setNodes(n - 1)
}

// streamNodeRoom returns node i's listpack with room for add more bytes,
// moving it to a bigger chunk when needed.
func (k *kv) streamNodeRoom(i, add int) []byte {
	t := k.t
	x := k.sindex()
	r := x.node(i)
	lp := nodeLP(t.a.at(r))
	if len(lp)+add <= cap(lp) {
		return lp
	}
	nr, nb := t.newNode(len(lp) + add + len(lp)/4)
	copy(nb[lnHdr:], nodeLP(t.a.at(r)))
	t.freeNode(r)
	k.sindex().setNode(i, nr)
	return nodeLP(nb)
}

// streamFree frees a stream's nodes and index (before its record goes).
func (t *keyTable) streamFree(val []byte) {
	x := sindex{&t.a, streamHdr(val)}
	for i := 0; i < x.h.nodes(); i++ {
		t.freeNode(x.node(i))
	}
	if r := x.h.index(); r != noRef {
		t.a.release(r, x.h[shIdxClass], x.capacity()*sixEntry)
	}
	t.streamGroupsFree(x.h)
}

// streamCloneFrom fills k, just created with a copy of src's header, with
// copies of src's nodes (src may live in another arena).
func (k *kv) streamCloneFrom(src *kv) {
	h := k.streamHdr()
	le.PutUint32(h[shIndex:], 0)
	h.setNodes(0)
	from := src.sindex()
	for i := 0; i < from.h.nodes(); i++ {
		lp := from.lp(i)
		nr, nb := k.t.newNode(len(lp))
		copy(nb[lnHdr:], from.lp(i))
		k.streamAddNode(from.master(i), nr)
	}
	k.streamGroupsCloneFrom(src)
}

// lpInt returns the integer entry at off of a stream node (an entry that
// is not one reads as 0; loading refuses such nodes).
func lpInt(lp []byte, off int) int64 {
	s, v, isInt := listpack.Get(lp, off)
	if !isInt {
		v, _ = ParseInt(s)
	}
	return v
}

// snode is a parsed stream node: its master entry's positions.
type snode struct {
	lp      []byte
	master  StreamID
	count   int64 // live entries
	deleted int64
	nf      int // master fields
	mfield  int // offset of the first master field
	first   int // offset of the first entry (the terminator when none)
}

func parseNode(lp []byte, master StreamID) snode {
	n := snode{lp: lp, master: master}
	off := listpack.First(lp)
	n.count = lpInt(lp, off)
	off = listpack.Next(lp, off)
	n.deleted = lpInt(lp, off)
	off = listpack.Next(lp, off)
	n.nf = int(lpInt(lp, off))
	off = listpack.Next(lp, off)
	n.mfield = off
	for i := 0; i < n.nf; i++ {
		off = listpack.Next(lp, off)
	}
	off = listpack.Next(lp, off) // the master's 0
	if off < 0 {
		off = listpack.End(lp)
	}
	n.first = off
	return n
}

// sentry is one entry of a node.
type sentry struct {
	off   int // its flags
	flags int64
	id    StreamID
	nf    int  // fields
	fv    int  // offset of the first field (SAMEFIELDS: the first value)
	same  bool // SAMEFIELDS: the fields are the master's
	next  int  // offset after its lp-count (the next entry or the terminator)
}

func (e *sentry) deleted() bool { return e.flags&streamFlagDeleted != 0 }

// entryAt parses the entry whose flags are at off.
func (n *snode) entryAt(off int) sentry {
	lp := n.lp
	e := sentry{off: off, flags: lpInt(lp, off)}
	off = listpack.Next(lp, off)
	e.id.Ms = n.master.Ms + uint64(lpInt(lp, off))
	off = listpack.Next(lp, off)
	e.id.Seq = n.master.Seq + uint64(lpInt(lp, off))
	off = listpack.Next(lp, off)
	skip := 0
	if e.flags&streamFlagSameFields != 0 {
		e.same, e.nf = true, n.nf
		skip = n.nf
	} else {
		e.nf = int(lpInt(lp, off))
		off = listpack.Next(lp, off)
		skip = 2 * e.nf
	}
	e.fv = off
	for i := 0; i < skip; i++ {
		off = listpack.Next(lp, off)
	}
	e.next = listpack.Next(lp, off) // past lp-count
	if e.next < 0 {
		e.next = listpack.End(lp)
	}
	return e
}

// entryBefore returns the offset of the flags of the entry that ends at
// end (the next entry's offset or the terminator), -1 when none does.
func (n *snode) entryBefore(end int) int {
	if end <= n.first {
		return -1
	}
	lp := n.lp
	off := listpack.Prev(lp, end) // lp-count
	for c := lpInt(lp, off); c > 0; c-- {
		off = listpack.Prev(lp, off)
	}
	return off
}

// fields calls fn with each field and value of e, integers formatted into
// scratch.
func (n *snode) fields(e *sentry, scratch *[2][20]byte, fn func(f, v []byte)) {
	lp := n.lp
	off, moff := e.fv, n.mfield
	for i := 0; i < e.nf; i++ {
		var f []byte
		if e.same {
			f = listpack.Value(lp, moff, scratch[0][:0])
			moff = listpack.Next(lp, moff)
		} else {
			f = listpack.Value(lp, off, scratch[0][:0])
			off = listpack.Next(lp, off)
		}
		v := listpack.Value(lp, off, scratch[1][:0])
		off = listpack.Next(lp, off)
		fn(f, v)
	}
}

// StreamLimits are the node limits in force: stream-node-max-bytes and
// stream-node-max-entries.
type StreamLimits struct {
	MaxBytes   int
	MaxEntries int
}

// DefaultStreamLimits are Redis 7.0's defaults.
var DefaultStreamLimits = StreamLimits{MaxBytes: 4096, MaxEntries: 100}

// streamAppend appends an entry with ID id (greater than the last) and
// the field, value pairs fv, starting a node when the last one is full.
func (k *kv) streamAppend(id StreamID, fv [][]byte, lim StreamLimits) {
	x := k.sindex()
	n := x.h.nodes()
	ni := n - 1
	if ni >= 0 {
		lp := x.lp(ni)
		tot := 0
		for _, b := range fv {
			tot += len(b)
		}
		maxBytes := lim.MaxBytes
		if maxBytes <= 0 || maxBytes > streamMaxNodeBytes {
			maxBytes = streamMaxNodeBytes
		}
		if len(lp)+tot >= maxBytes {
			ni = -1
		} else if lim.MaxEntries > 0 {
			nd := parseNode(lp, x.master(ni))
			if nd.count+nd.deleted >= int64(lim.MaxEntries) {
				ni = -1
			}
		}
	}
	nf := len(fv) / 2
	if ni < 0 {
		size := listpack.EmptySize + 3*listpack.EncodedIntSize(int64(nf)) + 1
		for i := 0; i < len(fv); i += 2 {
			size += listpack.EncodedSize(fv[i])
		}
		r, nb := k.t.newNode(size + entrySize(fv, true, 0, 0))
		lp := nodeLP(nb)
		lp = listpack.AppendInt(lp, 0) // count, counted in below
		lp = listpack.AppendInt(lp, 0)
		lp = listpack.AppendInt(lp, int64(nf))
		for i := 0; i < len(fv); i += 2 {
			lp = listpack.AppendString(lp, fv[i])
		}
		_ = listpack.AppendInt(lp, 0)
		k.streamAddNode(id, r)
		ni = n
		x = k.sindex()
	}
	master := x.master(ni)
	nd := parseNode(x.lp(ni), master)
	same := nd.nf == nf
	for i, off := 0, nd.mfield; same && i < nf; i++ {
		s, v, isInt := listpack.Get(nd.lp, off)
		if isInt {
			s = strconv.AppendInt(k.sh.num[0][:0], v, 10)
		}
		same = string(s) == string(fv[2*i])
		off = listpack.Next(nd.lp, off)
	}
	dms, dseq := int64(id.Ms-master.Ms), int64(id.Seq-master.Seq)
	add := entrySize(fv, same, dms, dseq) + 10 // and the count's growth
	lp := k.streamNodeRoom(ni, add)
	lp = listpack.ReplaceInt(lp, listpack.First(lp), nd.count+1)
	flags := int64(0)
	if same {
		flags = streamFlagSameFields
	}
	lp = listpack.AppendInt(lp, flags)
	lp = listpack.AppendInt(lp, dms)
	lp = listpack.AppendInt(lp, dseq)
	elems := 3 + nf
	if !same {
		lp = listpack.AppendInt(lp, int64(nf))
		elems += nf + 1
	}
	for i := 0; i < len(fv); i += 2 {
		if !same {
			lp = listpack.AppendString(lp, fv[i])
		}
		lp = listpack.AppendString(lp, fv[i+1])
	}
	_ = listpack.AppendInt(lp, int64(elems))
	h := k.streamHdr()
	h.setLength(h.length() + 1)
	h.setAdded(h.added() + 1)
	h.setLast(id)
	if h.length() == 1 {
		h.setFirst(id)
	}
}

// entrySize returns the listpack bytes of an entry.
func entrySize(fv [][]byte, same bool, dms, dseq int64) int {
	n := 3*listpack.EncodedIntSize(0) + listpack.EncodedIntSize(dms) + listpack.EncodedIntSize(dseq)
	for i := 0; i < len(fv); i += 2 {
		if !same {
			n += listpack.EncodedSize(fv[i])
		}
		n += listpack.EncodedSize(fv[i+1])
	}
	return n + 2*listpack.EncodedIntSize(int64(len(fv)))
}

// streamMarkDeleted marks the live entry e of node i deleted and updates
// the node's counts and the stream's length; a node left with no live
// entry goes. It reports whether node i went.
func (k *kv) streamMarkDeleted(i int, e *sentry) bool {
	x := k.sindex()
	lp := k.streamNodeRoom(i, 10)
	listpack.ReplaceInt(lp, e.off, e.flags|streamFlagDeleted) // same size: a 7-bit integer
	nd := parseNode(lp, x.master(i))
	h := k.streamHdr()
	h.setLength(h.length() - 1)
	if nd.count == 1 {
		k.streamDropNode(i)
		return true
	}
	off := listpack.First(lp)
	lp = listpack.ReplaceInt(lp, off, nd.count-1)
	off = listpack.Next(lp, off)
	listpack.ReplaceInt(lp, off, nd.deleted+1)
	return false
}

// streamEdge returns the ID of the first (last when rev) live entry, false
// when the stream is empty.
func (k *kv) streamEdge(rev bool) (StreamID, bool) {
	var it streamIter
	k.streamIterInit(&it, StreamID{}, MaxStreamID, rev)
	if it.next() {
		return it.e.id, true
	}
	return StreamID{}, false
}

// streamIter walks the live entries whose IDs are within [start, end],
// in order (reverse order when rev): after each next that reports true,
// nd and e are the entry's node and the entry. The stream must not change
// during the walk. It is a plain struct, so a walk allocates nothing.
type streamIter struct {
	x          sindex
	start, end StreamID
	rev        bool
	loaded     bool // nd is node i
	done       bool
	i          int
	off        int // forward: the next entry's offset; reverse: the end of the next entry back
	nd         snode
	e          sentry
}

func (k *kv) streamIterInit(it *streamIter, start, end StreamID, rev bool) {
	*it = streamIter{x: k.sindex(), start: start, end: end, rev: rev}
	if it.x.h.nodes() == 0 || end.Less(start) {
		it.done = true
		return
	}
	if rev {
		it.i = it.x.seek(end)
	} else {
		it.i = max(it.x.seek(start), 0)
	}
}

// next moves to the next entry, false at the end.
func (it *streamIter) next() bool {
	for !it.done {
		if !it.loaded {
			if it.i < 0 || it.i >= it.x.h.nodes() {
				it.done = true
				return false
			}
			it.nd = parseNode(it.x.lp(it.i), it.x.master(it.i))
			if !it.rev && it.end.Less(it.nd.master) {
				it.done = true
				return false
			}
			it.off = it.nd.first
			if it.rev {
				it.off = it.nd.entryBefore(listpack.End(it.nd.lp))
			}
			it.loaded = true
		}
		if it.off < 0 || it.nd.lp[it.off] == 0xff {
			it.loaded = false
			if it.rev {
				it.i--
			} else {
				it.i++
			}
			continue
		}
		it.e = it.nd.entryAt(it.off)
		if it.rev {
			it.off = it.nd.entryBefore(it.off)
			if it.e.deleted() || it.end.Less(it.e.id) {
				continue
			}
			if it.e.id.Less(it.start) {
				it.done = true
				return false
			}
			return true
		}
		it.off = it.e.next
		if it.e.deleted() || it.e.id.Less(it.start) {
			continue
		}
		if it.end.Less(it.e.id) {
			it.done = true
			return false
		}
		return true
	}
	return false
}

// streamUsage estimates the bytes of a stream's nodes from its first
// samples (0: all), and its index chunk. Caller holds the shard lock.
func (t *keyTable) streamUsage(h streamHdr, samples int) int64 {
	x := sindex{&t.a, h}
	n := int64(x.capacity() * sixEntry)
	var sum, seen int64
	for i := 0; i < h.nodes() && (samples == 0 || seen < int64(samples)); i++ {
		sum += int64(lnHdr + nodeCap(t.a.at(x.node(i))))
		seen++
	}
	if seen > 0 {
		n += sum * int64(h.nodes()) / seen
	}
	return n + t.streamGroupsUsage(h)
}
