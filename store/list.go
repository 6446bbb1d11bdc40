package store

import (
	"github.com/loopkv/loopkv/store/listpack"
)

// Lists (Redis t_list.c, quicklist.c). A list is a quicklist: a doubly
// linked sequence of nodes, each a listpack of elements in Redis's own
// format (so that an RDB writer stores each node verbatim, as Redis 7's
// quicklist 2 encoding does), living in the key's arena and linked by
// refs. The key record's value is the list header:
//
//	0  head   ref     first node
//	4  tail   ref     last node
//	8  count  uint64  elements
//	16 nodes  uint32  nodes
//
// A node chunk is a 16-byte header (prev ref, next ref, the chunk's class
// byte) and then its listpack, edited in place in the chunk's spare room
// and moved to a bigger chunk when it outgrows it. A node holds at most
// what list-max-listpack-size allows (Limits.ListMaxListpackSize: a
// positive count of entries, capped at 8 KiB as Redis's safety limit, or
// -1 .. -5 for 4 .. 64 KiB), so a push at either end touches one node, and
// LINDEX walks nodes, not elements. A node emptied by a pop or a removal
// is unlinked; the last element popped deletes the key. OBJECT ENCODING
// answers quicklist, as Redis 7.0 does for every list.

const (
	lhHead  = 0
	lhTail  = 4
	lhCount = 8
	lhNodes = 16
	lhSize  = 20

	lnPrev  = 0
	lnNext  = 4
	lnClass = 8
	lnHdr   = 16

	listSafetyLimit = 8192 // Redis's SIZE_SAFETY_LIMIT for count-limited nodes
)

// ListEnd names an end of a list.
type ListEnd uint8

const (
	ListHead ListEnd = iota // the left end: LPUSH, LPOP
	ListTail                // the right end: RPUSH, RPOP
)

// listHdr is a view of a list's header; valid until the key record moves
// (it never does while it is a list: the header's size is fixed).
type listHdr []byte

func (h listHdr) head() ref      { return ref(le.Uint32(h[lhHead:])) }
func (h listHdr) tail() ref      { return ref(le.Uint32(h[lhTail:])) }
func (h listHdr) count() int     { return int(le.Uint64(h[lhCount:])) }
func (h listHdr) nodes() int     { return int(le.Uint32(h[lhNodes:])) }
func (h listHdr) setHead(r ref)  { le.PutUint32(h[lhHead:], uint32(r)) }
func (h listHdr) setTail(r ref)  { le.PutUint32(h[lhTail:], uint32(r)) }
func (h listHdr) addCount(d int) { le.PutUint64(h[lhCount:], uint64(h.count()+d)) }
func (h listHdr) addNodes(d int) { le.PutUint32(h[lhNodes:], uint32(h.nodes()+d)) }
func (h listHdr) end(e ListEnd) ref {
	if e == ListHead {
		return h.head()
	}
	return h.tail()
}

func (k *kv) listHdr() listHdr { return listHdr(k.val()) }

// listCreate creates key, which does not exist, as an empty list.
func (k *kv) listCreate(key []byte) {
	var hdr [lhSize]byte
	k.create(key, TypeList, EncQuicklist, hdr[:], 0, 0)
}

// node accessors; b is a.at(node ref).
func nodePrev(b []byte) ref       { return ref(le.Uint32(b[lnPrev:])) }
func nodeNext(b []byte) ref       { return ref(le.Uint32(b[lnNext:])) }
func setNodePrev(b []byte, r ref) { le.PutUint32(b[lnPrev:], uint32(r)) }
func setNodeNext(b []byte, r ref) { le.PutUint32(b[lnNext:], uint32(r)) }
func nodeCap(b []byte) int {
	if c := b[lnClass]; c != classLarge {
		return int(classSizes[c]) - lnHdr
	}
	return len(b) - lnHdr
}

// nodeLP returns the node's listpack with its spare room as capacity.
func nodeLP(b []byte) []byte {
	n := int(le.Uint32(b[lnHdr:])) // the listpack's total-bytes header
	return b[lnHdr : lnHdr+n : lnHdr+nodeCap(b)]
}

// newNode allocates an empty node with room for lpCap bytes of listpack.
func (t *keyTable) newNode(lpCap int) (ref, []byte) {
	r, c, b := t.a.alloc(lnHdr + max(lpCap, listpack.HeaderSize+1))
	clear(b[:lnHdr])
	b[lnClass] = c
	listpack.New(b[lnHdr:lnHdr])
	return r, b
}

func (t *keyTable) freeNode(r ref) {
	b := t.a.at(r)
	c := b[lnClass]
	t.a.release(r, c, lnHdr+nodeCap(b))
}

// listFits reports whether a node whose listpack would be size bytes with
// count entries stays within list-max-listpack-size (Redis's
// quicklistNodeExceedsLimit).
func listFits(fill, size, count int) bool {
	if fill >= 0 {
		return size <= listSafetyLimit && count <= max(fill, 1)
	}
	limit := 4096 << min(-fill-1, 4)
	return size <= limit || count == 1
}

// nodeRoom returns node r's listpack with room for add more bytes, moving
// the node to a bigger chunk (and relinking its neighbours and the header)
// when needed. It returns the node's ref, which may have changed.
func (k *kv) nodeRoom(r ref, add int) (ref, []byte) {
	t := k.t
	b := t.a.at(r)
	lp := nodeLP(b)
	if len(lp)+add <= cap(lp) {
		return r, lp
	}
	nr, nb := t.newNode(len(lp) + add + len(lp)/2)
	b = t.a.at(r)
	copy(nb[lnPrev:lnNext+4], b[lnPrev:lnNext+4])
	copy(nb[lnHdr:], nodeLP(b))
	h := k.listHdr()
	if p := nodePrev(b); p != noRef {
		setNodeNext(t.a.at(p), nr)
	} else {
		h.setHead(nr)
	}
	if n := nodeNext(b); n != noRef {
		setNodePrev(t.a.at(n), nr)
	} else {
		h.setTail(nr)
	}
	t.freeNode(r)
	return nr, nodeLP(nb)
}

// linkNode links the new node nr after node at (noRef: at the head).
func (k *kv) linkNode(nr, at ref) {
	t, h := k.t, k.listHdr()
	nb := t.a.at(nr)
	var next ref
	if at == noRef {
		next = h.head()
		h.setHead(nr)
	} else {
		next = nodeNext(t.a.at(at))
		setNodeNext(t.a.at(at), nr)
	}
	setNodePrev(nb, at)
	setNodeNext(nb, next)
	if next != noRef {
		setNodePrev(t.a.at(next), nr)
	} else {
		h.setTail(nr)
	}
	h.addNodes(1)
}

// unlinkNode removes and frees node r.
func (k *kv) unlinkNode(r ref) {
	t, h := k.t, k.listHdr()
	b := t.a.at(r)
	p, n := nodePrev(b), nodeNext(b)
	if p != noRef {
		setNodeNext(t.a.at(p), n)
	} else {
		h.setHead(n)
	}
	if n != noRef {
		setNodePrev(t.a.at(n), p)
	} else {
		h.setTail(p)
	}
	h.addNodes(-1)
	t.freeNode(r)
}

// listPush adds elem at end e.
func (k *kv) listPush(elem []byte, e ListEnd, fill int) {
	h := k.listHdr()
	r := h.end(e)
	add := listpack.EncodedSize(elem)
	if r != noRef {
		lp := nodeLP(k.t.a.at(r))
		if !listFits(fill, len(lp)+add, listpack.Len(lp)+1) {
			r = noRef
		}
	}
	if r == noRef {
		r, _ = k.t.newNode(listpack.HeaderSize + 1 + add)
		if e == ListHead {
			k.linkNode(r, noRef)
		} else {
			k.linkNode(r, h.tail())
		}
	}
	r, lp := k.nodeRoom(r, add)
	if e == ListHead {
		lp = listpack.Insert(lp, listpack.HeaderSize, elem)
	} else {
		lp = listpack.AppendString(lp, elem)
	}
	_ = lp
	k.listHdr().addCount(1)
}

// listPop removes the element at end e and passes it to fn (a view valid
// for the call). The caller deletes the key when the list is empty.
func (k *kv) listPop(e ListEnd, fn func(elem []byte)) {
	h := k.listHdr()
	r := h.end(e)
	lp := nodeLP(k.t.a.at(r))
	off := listpack.First(lp)
	if e == ListTail {
		off = listpack.Last(lp)
	}
	if fn != nil {
		fn(listpack.Value(lp, off, k.sh.num[0][:0]))
	}
	lp = listpack.Delete(lp, off, 1)
	h.addCount(-1)
	if listpack.Len(lp) == 0 {
		k.unlinkNode(r)
	}
}

// listDrop removes n elements from end e, whole nodes at a time where it
// can, so that LTRIM and a big LPOP cost O(nodes), not O(elements).
func (k *kv) listDrop(e ListEnd, n int) {
	a := &k.t.a
	for n > 0 {
		h := k.listHdr()
		r := h.end(e)
		lp := nodeLP(a.at(r))
		c := listpack.Len(lp)
		if n >= c {
			k.unlinkNode(r)
			h.addCount(-c)
			n -= c
			continue
		}
		off := listpack.First(lp)
		if e == ListTail {
			off = listpack.Seek(lp, c-n)
		}
		listpack.Delete(lp, off, n)
		h.addCount(-n)
		return
	}
}

// listPos is a position in a list: a node and an entry offset in its
// listpack.
type listPos struct {
	node ref
	off  int
}

// listSeek returns the position of element index (negative counts from
// the tail), walking nodes from the nearer end; ok is false out of range.
func (k *kv) listSeek(index int) (listPos, bool) {
	h := k.listHdr()
	n := h.count()
	if index < 0 {
		index += n
	}
	if index < 0 || index >= n {
		return listPos{}, false
	}
	a := &k.t.a
	if index < n/2 {
		for r := h.head(); r != noRef; r = nodeNext(a.at(r)) {
			lp := nodeLP(a.at(r))
			if c := listpack.Len(lp); index >= c {
				index -= c
				continue
			}
			return listPos{r, listpack.Seek(lp, index)}, true
		}
	} else {
		back := n - 1 - index
		for r := h.tail(); r != noRef; r = nodePrev(a.at(r)) {
			lp := nodeLP(a.at(r))
			if c := listpack.Len(lp); back >= c {
				back -= c
				continue
			}
			return listPos{r, listpack.Seek(lp, -1-back)}, true
		}
	}
	return listPos{}, false
}

// listNext returns the position after p, ok false at the tail.
func (k *kv) listNext(p listPos) (listPos, bool) {
	a := &k.t.a
	lp := nodeLP(a.at(p.node))
	if off := listpack.Next(lp, p.off); off >= 0 {
		return listPos{p.node, off}, true
	}
	for r := nodeNext(a.at(p.node)); r != noRef; r = nodeNext(a.at(r)) {
		if off := listpack.First(nodeLP(a.at(r))); off >= 0 {
			return listPos{r, off}, true
		}
	}
	return listPos{}, false
}

// listPrev returns the position before p, ok false at the head.
func (k *kv) listPrev(p listPos) (listPos, bool) {
	a := &k.t.a
	lp := nodeLP(a.at(p.node))
	if off := listpack.Prev(lp, p.off); off >= 0 {
		return listPos{p.node, off}, true
	}
	for r := nodePrev(a.at(p.node)); r != noRef; r = nodePrev(a.at(r)) {
		if off := listpack.Last(nodeLP(a.at(r))); off >= 0 {
			return listPos{r, off}, true
		}
	}
	return listPos{}, false
}

// listGet returns the element at p, an integer formatted into the shard's
// num buffer: valid until the next listGet.
func (k *kv) listGet(p listPos) []byte {
	return listpack.Value(nodeLP(k.t.a.at(p.node)), p.off, k.sh.num[0][:0])
}

// listDelete deletes the element at p and returns the position of the one
// that followed it (ok false when p was the last).
func (k *kv) listDelete(p listPos) (listPos, bool) {
	a := &k.t.a
	b := a.at(p.node)
	lp := listpack.Delete(nodeLP(b), p.off, 1)
	k.listHdr().addCount(-1)
	if listpack.Len(lp) > 0 {
		if lp[p.off] != 0xff {
			return p, true
		}
		return k.nextNodeFirst(p.node)
	}
	next, ok := k.nextNodeFirst(p.node)
	k.unlinkNode(p.node)
	return next, ok
}

// nextNodeFirst returns the first position of the nodes after r.
func (k *kv) nextNodeFirst(r ref) (listPos, bool) {
	a := &k.t.a
	for n := nodeNext(a.at(r)); n != noRef; n = nodeNext(a.at(n)) {
		if off := listpack.First(nodeLP(a.at(n))); off >= 0 {
			return listPos{n, off}, true
		}
	}
	return listPos{}, false
}

// listReplace replaces the element at p with elem. When the bigger
// element would take its node past the fill limit, the old element is
// deleted and elem inserted in its place by listInsert, which splits the
// node as Redis's quicklistReplaceEntry does (it gives the new element a
// node of its own between the halves): the node never passes the limit.
func (k *kv) listReplace(p listPos, elem []byte, fill int) {
	lp := nodeLP(k.t.a.at(p.node))
	add := listpack.EncodedSize(elem) - listpack.EntrySize(lp, p.off)
	if c := listpack.Len(lp); add <= 0 || c == 1 || listFits(fill, len(lp)+add, c) {
		_, lp = k.nodeRoom(p.node, max(add, 0))
		listpack.Replace(lp, p.off, elem)
		return
	}
	if next, ok := k.listDelete(p); ok {
		k.listInsert(next, elem, false, fill)
		return
	}
	last, _ := k.listSeek(-1) // p was the last element, and not the only one
	k.listInsert(last, elem, true, fill)
}

// listInsert inserts elem before (after false) or after the element at p.
// A node that would pass the fill limit is split at p first, as Redis's
// _quicklistInsert does.
func (k *kv) listInsert(p listPos, elem []byte, after bool, fill int) {
	a := &k.t.a
	add := listpack.EncodedSize(elem)
	lp := nodeLP(a.at(p.node))
	off := p.off
	if after {
		off += listpack.EntrySize(lp, off)
	}
	if !listFits(fill, len(lp)+add, listpack.Len(lp)+1) {
		// split: the entries from off on move to a new node after p.node
		tailBytes := len(lp) - 1 - off
		nr, nb := k.t.newNode(listpack.HeaderSize + 1 + tailBytes + add)
		nlp := nodeLP(nb)
		lp = nodeLP(a.at(p.node))
		for o := off; lp[o] != 0xff; o += listpack.EntrySize(lp, o) {
			nlp = listpack.AppendString(nlp, listpack.Value(lp, o, k.sh.num[0][:0]))
		}
		listpack.Delete(lp, off, listpack.Len(lp))
		k.linkNode(nr, p.node)
		if listpack.Len(nodeLP(a.at(p.node))) == 0 {
			k.unlinkNode(p.node)
		}
		// insert at the head of the new node, or start a node of its own
		// when even that does not fit
		nlp = nodeLP(a.at(nr))
		if !listFits(fill, len(nlp)+add, listpack.Len(nlp)+1) {
			r2, _ := k.t.newNode(listpack.HeaderSize + 1 + add)
			prev := nodePrev(a.at(nr))
			k.linkNode(r2, prev)
			nr = r2
		}
		nr, nlp = k.nodeRoom(nr, add)
		listpack.Insert(nlp, listpack.HeaderSize, elem)
		k.listHdr().addCount(1)
		return
	}
	_, lp = k.nodeRoom(p.node, add)
	listpack.Insert(lp, off, elem)
	k.listHdr().addCount(1)
}

// listEach calls fn with every element from the head (or from the tail
// when rev) until fn returns false.
func (k *kv) listEach(rev bool, fn func(elem []byte) bool) {
	a := &k.t.a
	h := k.listHdr()
	scratch := k.sh.num[0][:0]
	if !rev {
		for r := h.head(); r != noRef; r = nodeNext(a.at(r)) {
			lp := nodeLP(a.at(r))
			for off := listpack.First(lp); off >= 0; off = listpack.Next(lp, off) {
				if !fn(listpack.Value(lp, off, scratch)) {
					return
				}
			}
		}
		return
	}
	for r := h.tail(); r != noRef; r = nodePrev(a.at(r)) {
		lp := nodeLP(a.at(r))
		for off := listpack.Last(lp); off >= 0; off = listpack.Prev(lp, off) {
			if !fn(listpack.Value(lp, off, scratch)) {
				return
			}
		}
	}
}

// listFree frees every node of the list (before its record is removed).
func (t *keyTable) listFree(val []byte) {
	h := listHdr(val)
	for r := h.head(); r != noRef; {
		next := nodeNext(t.a.at(r))
		t.freeNode(r)
		r = next
	}
}

// listCloneFrom fills k, just created with a copy of src's header, with
// copies of src's nodes (src may live in another arena).
func (k *kv) listCloneFrom(src *kv) {
	h := k.listHdr()
	h.setHead(noRef)
	h.setTail(noRef)
	le.PutUint32(h[lhNodes:], 0)
	from := &src.t.a
	for r := src.listHdr().head(); r != noRef; r = nodeNext(from.at(r)) {
		lp := nodeLP(from.at(r))
		nr, nb := k.t.newNode(len(lp))
		copy(nb[lnHdr:], nodeLP(from.at(r)))
		k.linkNode(nr, k.listHdr().tail())
	}
}
