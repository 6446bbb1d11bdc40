package store

import (
	"bytes"
	"cmp"
	"slices"
)

// Consumer groups' storage (groundwork: no command creates a group yet).
// Redis keeps a stream's groups in a rax by name, each group's pending
// entries list (PEL) in a rax by ID, its consumers in a rax by name and
// each consumer's own PEL in another rax. Here every one of those is a
// sorted array of fixed-width entries in one arena chunk (a garray),
// so the collector sees no pointer per group, consumer or pending entry,
// and the arrays walk in the order Redis's raxes iterate (names as
// memcmp orders them, shorter prefix first; IDs ascending). A consumer's
// own PEL is its group's PEL filtered by consumer: the same IDs in the
// same order, without a second copy to keep in step.
//
// The stream header's groups ref names a 16-byte chunk holding the
// garray descriptor of the group refs. A group is one chunk, its size
// fixed by its name (so it never moves and its ref is stable):
//
//	0  last     ID      last delivered ID
//	16 read     int64   entries read, -1 when not known (SCG_INVALID_ENTRIES_READ)
//	24 pel      garray  of pending entries (peSize bytes each), by ID
//	40 cons     garray  of consumer refs, by name
//	56 nameLen  uint32
//	60 name
//
// A consumer is one chunk, its size fixed by its name:
//
//	0  seen     int64   seen-time, ms
//	8  pending  uint32  its entries in the group's PEL
//	12 nameLen  uint32
//	16 name
//
// A pending entry is the ID (16), the delivery time (int64 ms), the
// delivery count (uint64) and its consumer's ref (uint32), padded to 40.

const (
	gLast    = 0
	gRead    = 16
	gPEL     = 24
	gCons    = 40
	gNameLen = 56
	gName    = 60

	cSeen    = 0
	cPending = 8
	cNameLen = 12
	cName    = 16

	peTime  = 16
	peCount = 24
	peCons  = 32
	peSize  = 40

	gaDesc = 16 // bytes of a garray descriptor: ref, count, class, first index

	// GroupEntriesReadInvalid is a group's entries-read when it is not
	// known (Redis's SCG_INVALID_ENTRIES_READ).
	GroupEntriesReadInvalid = -1
)

// garray is a view of the descriptor of a growable array of fixed-width
// entries in one arena chunk: the chunk's ref (noRef while it has none),
// the entries held, the chunk's class and the index of the first entry
// in the chunk. Entries sit at [lo, lo+n) of the chunk, so removing the
// first one (XACK of the oldest pending entry, the common case) moves
// nothing, and a removal or insertion moves the shorter side. Valid
// while the chunk holding the descriptor lives.
type garray []byte

func (d garray) ref() ref     { return ref(le.Uint32(d)) }
func (d garray) n() int       { return int(le.Uint32(d[4:])) }
func (d garray) setN(n int)   { le.PutUint32(d[4:], uint32(n)) }
func (d garray) class() uint8 { return d[8] }
func (d garray) lo() int      { return int(le.Uint32(d[12:])) }
func (d garray) setLo(i int)  { le.PutUint32(d[12:], uint32(i)) }
func (d garray) set(r ref, c uint8) {
	le.PutUint32(d, uint32(r))
	d[8] = c
}

// capacity returns the entries of width w the chunk holds.
func (d garray) capacity(a *arena, w int) int {
	if d.ref() == noRef {
		return 0
	}
	if c := d.class(); c != classLarge {
		return int(classSizes[c]) / w
	}
	return len(a.at(d.ref())) / w
}

// at returns entry i (width w).
func (d garray) at(a *arena, w, i int) []byte {
	i += d.lo()
	return a.at(d.ref())[i*w : (i+1)*w : (i+1)*w]
}

// resize moves the entries to the start of a chunk holding capacity
// entries of width w (at least n), or frees the chunk when capacity is 0.
func (d garray) resize(a *arena, w, capacity int) {
	old, oc, ocap, lo := d.ref(), d.class(), d.capacity(a, w), d.lo()
	d.setLo(0)
	if capacity == 0 {
		if old != noRef {
			a.release(old, oc, ocap*w)
		}
		d.set(noRef, 0)
		return
	}
	r, c, b := a.alloc(capacity * w)
	if old != noRef {
		copy(b, a.at(old)[lo*w:(lo+d.n())*w])
		a.release(old, oc, ocap*w)
	}
	d.set(r, c)
}

// insert makes room for an entry at i (0 <= i <= n) and returns it,
// uncleared.
func (d garray) insert(a *arena, w, i int) []byte {
	n, lo, c := d.n(), d.lo(), d.capacity(a, w)
	switch {
	case n == c:
		d.resize(a, w, max(2*n, 4))
		lo = 0
	case lo > 0 && (i < n/2 || lo+n == c):
		b := a.at(d.ref())
		copy(b[(lo-1)*w:], b[lo*w:(lo+i)*w])
		lo--
		d.setLo(lo)
		d.setN(n + 1)
		return b[(lo+i)*w : (lo+i+1)*w : (lo+i+1)*w]
	}
	b := a.at(d.ref())
	copy(b[(lo+i+1)*w:(lo+n+1)*w], b[(lo+i)*w:(lo+n)*w])
	d.setN(n + 1)
	return b[(lo+i)*w : (lo+i+1)*w : (lo+i+1)*w]
}

// remove removes entry i, giving back memory once a quarter is in use.
func (d garray) remove(a *arena, w, i int) {
	n, lo := d.n(), d.lo()
	b := a.at(d.ref())
	if i < n/2 {
		copy(b[(lo+1)*w:], b[lo*w:(lo+i)*w])
		d.setLo(lo + 1)
	} else {
		copy(b[(lo+i)*w:], b[(lo+i+1)*w:(lo+n)*w])
	}
	d.setN(n - 1)
	switch c := d.capacity(a, w); {
	case n == 1:
		d.resize(a, w, 0)
	case c > 8 && n-1 <= c/4:
		d.resize(a, w, c/2)
	}
}

// search returns the first index whose entry is not below the key as cmp
// reports (cmp(i) < 0: entry i is below), and whether it equals it.
func (d garray) search(cmp func(i int) int) (int, bool) {
	lo, hi := 0, d.n()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cmp(m) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < d.n() && cmp(lo) == 0
}

// sgroup is a view of a group's chunk; valid until the group is destroyed.
type sgroup struct {
	a *arena
	r ref
	b []byte
}

func (g sgroup) name() []byte           { return g.b[gName : gName+int(le.Uint32(g.b[gNameLen:]))] }
func (g sgroup) last() StreamID         { return getID(g.b[gLast:]) }
func (g sgroup) setLast(id StreamID)    { putID(g.b[gLast:], id) }
func (g sgroup) entriesRead() int64     { return int64(le.Uint64(g.b[gRead:])) }
func (g sgroup) setEntriesRead(n int64) { le.PutUint64(g.b[gRead:], uint64(n)) }
func (g sgroup) pel() garray            { return garray(g.b[gPEL : gPEL+gaDesc]) }
func (g sgroup) cons() garray           { return garray(g.b[gCons : gCons+gaDesc]) }

// pelEntry is a view of one pending entry.
type pelEntry []byte

func (e pelEntry) id() StreamID         { return getID(e) }
func (e pelEntry) time() int64          { return int64(le.Uint64(e[peTime:])) }
func (e pelEntry) setTime(ms int64)     { le.PutUint64(e[peTime:], uint64(ms)) }
func (e pelEntry) count() uint64        { return le.Uint64(e[peCount:]) }
func (e pelEntry) setCount(n uint64)    { le.PutUint64(e[peCount:], n) }
func (e pelEntry) consumer() ref        { return ref(le.Uint32(e[peCons:])) }
func (e pelEntry) setConsumer(r ref)    { le.PutUint32(e[peCons:], uint32(r)) }
func (g sgroup) pelAt(i int) pelEntry   { return pelEntry(g.pel().at(g.a, peSize, i)) }
func (g sgroup) consAt(i int) sconsumer { return g.consumerAt(ref(le.Uint32(g.cons().at(g.a, 4, i)))) }

// sconsumer is a view of a consumer's chunk; valid until it is deleted.
type sconsumer struct {
	r ref
	b []byte
}

func (c sconsumer) name() []byte            { return c.b[cName : cName+int(le.Uint32(c.b[cNameLen:]))] }
func (c sconsumer) seen() int64             { return int64(le.Uint64(c.b[cSeen:])) }
func (c sconsumer) setSeen(ms int64)        { le.PutUint64(c.b[cSeen:], uint64(ms)) }
func (c sconsumer) pending() int            { return int(le.Uint32(c.b[cPending:])) }
func (c sconsumer) addPending(d int)        { le.PutUint32(c.b[cPending:], uint32(c.pending()+d)) }
func (g sgroup) consumerAt(r ref) sconsumer { return sconsumer{r, g.a.at(r)} }

// streamGroupList returns the descriptor of the stream's group refs, nil
// when it has none; with create, a stream without one gets one.
func (k *kv) streamGroupList(create bool) garray {
	h := k.streamHdr()
	r := ref(le.Uint32(h[shGroups:]))
	if r == noRef {
		if !create {
			return nil
		}
		var b []byte
		r, _, b = k.t.a.alloc(16)
		clear(b[:gaDesc])
		le.PutUint32(k.streamHdr()[shGroups:], uint32(r))
	}
	return garray(k.t.a.at(r)[:gaDesc])
}

// streamGroupCount returns the stream's consumer groups.
func (k *kv) streamGroupCount() int {
	if d := k.streamGroupList(false); d != nil {
		return d.n()
	}
	return 0
}

func (k *kv) groupAt(d garray, i int) sgroup {
	r := ref(le.Uint32(d.at(&k.t.a, 4, i)))
	return sgroup{&k.t.a, r, k.t.a.at(r)}
}

// streamGroupFind returns the group named name, ok false when there is
// none.
func (k *kv) streamGroupFind(name []byte) (sgroup, bool) {
	d := k.streamGroupList(false)
	if d == nil {
		return sgroup{}, false
	}
	i, ok := d.search(func(i int) int { return bytes.Compare(k.groupAt(d, i).name(), name) })
	if !ok {
		return sgroup{}, false
	}
	return k.groupAt(d, i), true
}

// streamGroupCreate adds a group named name whose last delivered ID is
// last and entries read read; false when the stream has one of that
// name (BUSYGROUP).
func (k *kv) streamGroupCreate(name []byte, last StreamID, read int64) (sgroup, bool) {
	d := k.streamGroupList(true)
	i, ok := d.search(func(i int) int { return bytes.Compare(k.groupAt(d, i).name(), name) })
	if ok {
		return sgroup{}, false
	}
	a := &k.t.a
	r, _, b := a.alloc(gName + len(name))
	clear(b[:gName])
	le.PutUint32(b[gNameLen:], uint32(len(name)))
	copy(b[gName:], name)
	g := sgroup{a, r, b}
	g.setLast(last)
	g.setEntriesRead(read)
	le.PutUint32(d.insert(a, 4, i), uint32(r))
	return g, true
}

// streamGroupDestroy removes the group named name with its consumers and
// PEL; false when there is none.
func (k *kv) streamGroupDestroy(name []byte) bool {
	d := k.streamGroupList(false)
	if d == nil {
		return false
	}
	i, ok := d.search(func(i int) int { return bytes.Compare(k.groupAt(d, i).name(), name) })
	if !ok {
		return false
	}
	k.groupAt(d, i).free()
	d.remove(&k.t.a, 4, i)
	return true
}

// free releases the group's consumers, PEL and chunk.
func (g sgroup) free() {
	cons := g.cons()
	for i := 0; i < cons.n(); i++ {
		c := g.consAt(i)
		g.a.release(c.r, classOf(cName+len(c.name())), cName+len(c.name()))
	}
	cons.resize(g.a, 4, 0)
	g.pel().resize(g.a, peSize, 0)
	size := gName + len(g.name())
	g.a.release(g.r, classOf(size), size)
}

// streamGroupsFree releases every group of the stream whose header is h
// (before its record goes).
func (t *keyTable) streamGroupsFree(h streamHdr) {
	r := ref(le.Uint32(h[shGroups:]))
	if r == noRef {
		return
	}
	a := &t.a
	d := garray(a.at(r)[:gaDesc])
	for i := 0; i < d.n(); i++ {
		gr := ref(le.Uint32(d.at(a, 4, i)))
		sgroup{a, gr, a.at(gr)}.free()
	}
	d.resize(a, 4, 0)
	a.release(r, classOf(16), 16)
	le.PutUint32(h[shGroups:], 0)
}

// consumerFind returns the index of the consumer named name in the
// group's list (where it would go when ok is false).
func (g sgroup) consumerFind(name []byte) (int, bool) {
	return g.cons().search(func(i int) int { return bytes.Compare(g.consAt(i).name(), name) })
}

// consumerCreate adds a consumer named name seen at now; false when the
// group has one of that name.
func (g sgroup) consumerCreate(name []byte, now int64) (sconsumer, bool) {
	i, ok := g.consumerFind(name)
	if ok {
		return g.consAt(i), false
	}
	r, _, b := g.a.alloc(cName + len(name))
	clear(b[:cName])
	le.PutUint32(b[cNameLen:], uint32(len(name)))
	copy(b[cName:], name)
	c := sconsumer{r, b}
	c.setSeen(now)
	le.PutUint32(g.cons().insert(g.a, 4, i), uint32(r))
	return c, true
}

// consumerDelete removes the consumer named name and its pending
// entries from the PEL, and returns how many it had; ok false when there
// is none.
func (g sgroup) consumerDelete(name []byte) (int, bool) {
	i, ok := g.consumerFind(name)
	if !ok {
		return 0, false
	}
	c := g.consAt(i)
	n := c.pending()
	pel := g.pel()
	for j := 0; j < pel.n() && c.pending() > 0; {
		if g.pelAt(j).consumer() == c.r {
			pel.remove(g.a, peSize, j)
			c.addPending(-1)
			continue
		}
		j++
	}
	g.a.release(c.r, classOf(cName+len(c.name())), cName+len(c.name()))
	g.cons().remove(g.a, 4, i)
	return n, true
}

// pelFind returns the index of id in the PEL (where it would go when ok
// is false).
func (g sgroup) pelFind(id StreamID) (int, bool) {
	return g.pel().search(func(i int) int { return g.pelAt(i).id().Cmp(id) })
}

// pelAdd records id as delivered to consumer c at now, delivery count 1;
// an ID already pending moves to c (Redis's XREADGROUP with an ID the
// PEL holds after XGROUP SETID, and XCLAIM) with its count kept.
func (g sgroup) pelAdd(id StreamID, c sconsumer, now int64) pelEntry {
	i, ok := g.pelFind(id)
	var e pelEntry
	if ok {
		e = g.pelAt(i)
		g.consumerAt(e.consumer()).addPending(-1)
	} else {
		e = pelEntry(g.pel().insert(g.a, peSize, i))
		clear(e)
		putID(e, id)
		e.setCount(1)
	}
	e.setTime(now)
	e.setConsumer(c.r)
	c.addPending(1)
	return e
}

// pelRemove removes id from the PEL (XACK); false when it is not pending.
func (g sgroup) pelRemove(id StreamID) bool {
	i, ok := g.pelFind(id)
	if !ok {
		return false
	}
	g.consumerAt(g.pelAt(i).consumer()).addPending(-1)
	g.pel().remove(g.a, peSize, i)
	return true
}

// streamGroupsCloneFrom gives k, a copy of src's header just made, copies
// of src's groups (src may live in another arena): their consumers in
// the same order and their PELs naming the copies.
func (k *kv) streamGroupsCloneFrom(src *kv) {
	le.PutUint32(k.streamHdr()[shGroups:], 0)
	d := src.streamGroupList(false)
	if d == nil {
		return
	}
	for i := 0; i < d.n(); i++ {
		sg := src.groupAt(d, i)
		g, _ := k.streamGroupCreate(sg.name(), sg.last(), sg.entriesRead())
		refs := make(map[ref]sconsumer, sg.cons().n()) // only during the copy
		for j := 0; j < sg.cons().n(); j++ {
			sc := sg.consAt(j)
			c, _ := g.consumerCreate(sc.name(), sc.seen())
			refs[sc.r] = c
		}
		for j := 0; j < sg.pel().n(); j++ {
			se := sg.pelAt(j)
			c := refs[se.consumer()]
			e := g.pelAdd(se.id(), c, se.time())
			e.setCount(se.count())
		}
	}
}

// StreamGroup is one consumer group as RDB stores it and AOF rewrite
// rebuilds it.
type StreamGroup struct {
	Name        []byte
	LastID      StreamID
	EntriesRead int64            // GroupEntriesReadInvalid when not known
	Pending     []StreamPending  // ascending IDs
	Consumers   []StreamConsumer // ascending names (memcmp)
}

// StreamPending is a pending entry of a group.
type StreamPending struct {
	ID            StreamID
	DeliveryTime  int64 // ms
	DeliveryCount uint64
	Consumer      int // index in the group's Consumers
}

// StreamConsumer is a consumer of a group.
type StreamConsumer struct {
	Name     []byte
	SeenTime int64 // ms
}

// StreamGroups calls fn with each consumer group of a stream value in
// Redis's order (names as memcmp orders them), until fn returns false; g
// and its slices are valid during the call.
func (v *Value) StreamGroups(fn func(g *StreamGroup) bool) {
	if v.Type != TypeStream {
		return
	}
	h := streamHdr(v.val)
	r := ref(le.Uint32(h[shGroups:]))
	if r == noRef {
		return
	}
	a := &v.t.a
	d := garray(a.at(r)[:gaDesc])
	var sg StreamGroup
	for i := 0; i < d.n(); i++ {
		gr := ref(le.Uint32(d.at(a, 4, i)))
		g := sgroup{a, gr, a.at(gr)}
		sg = StreamGroup{Name: g.name(), LastID: g.last(), EntriesRead: g.entriesRead(),
			Pending: sg.Pending[:0], Consumers: sg.Consumers[:0]}
		for j := 0; j < g.cons().n(); j++ {
			c := g.consAt(j)
			sg.Consumers = append(sg.Consumers, StreamConsumer{Name: c.name(), SeenTime: c.seen()})
		}
		for j := 0; j < g.pel().n(); j++ {
			e := g.pelAt(j)
			ci, _ := g.consumerFind(g.consumerAt(e.consumer()).name())
			sg.Pending = append(sg.Pending, StreamPending{ID: e.id(), DeliveryTime: e.time(), DeliveryCount: e.count(),
				Consumer: ci})
		}
		if !fn(&sg) {
			return
		}
	}
}

// LoadStreamGroups adds groups to key's stream, which has none (a
// loader's step after LoadStream). Refused with ErrStreamGroups: a
// group name twice, a consumer name twice or out of order, pending IDs
// not ascending, a pending entry naming no consumer.
func (s *Store) LoadStreamGroups(db int, key []byte, groups []StreamGroup) error {
	for gi := range groups {
		g := &groups[gi]
		for i := range g.Consumers {
			if i > 0 && bytes.Compare(g.Consumers[i-1].Name, g.Consumers[i].Name) >= 0 {
				return ErrStreamGroups
			}
		}
		for i, p := range g.Pending {
			if i > 0 && !g.Pending[i-1].ID.Less(p.ID) || p.Consumer < 0 || p.Consumer >= len(g.Consumers) {
				return ErrStreamGroups
			}
		}
		for _, o := range groups[:gi] {
			if bytes.Equal(o.Name, g.Name) {
				return ErrStreamGroups
			}
		}
	}
	var k kv
	st := s.openInto(&k, db, key, 0, TypeStream, forWrite)
	defer k.release()
	if st != OK || !k.exists() || k.streamGroupCount() != 0 {
		return ErrStreamGroups
	}
	for gi := range groups {
		sg := &groups[gi]
		g, _ := k.streamGroupCreate(sg.Name, sg.LastID, sg.EntriesRead)
		cons := make([]sconsumer, len(sg.Consumers))
		for i, c := range sg.Consumers {
			cons[i], _ = g.consumerCreate(c.Name, c.SeenTime)
		}
		for _, p := range sg.Pending {
			g.pelAdd(p.ID, cons[p.Consumer], p.DeliveryTime).setCount(p.DeliveryCount)
		}
	}
	return nil
}

// PendingByConsumer returns the indexes of g.Pending ordered by consumer,
// each consumer's by ID: a consumer's own PEL, as RDB and AOF rewrite
// write it.
func PendingByConsumer(g *StreamGroup) []int {
	idx := make([]int, len(g.Pending))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(g.Pending[a].Consumer, g.Pending[b].Consumer) })
	return idx
}

// streamGroupsUsage returns the bytes of the chunks of a stream's groups
// (MEMORY USAGE). Caller holds the shard lock.
func (t *keyTable) streamGroupsUsage(h streamHdr) int64 {
	r := ref(le.Uint32(h[shGroups:]))
	if r == noRef {
		return 0
	}
	a := &t.a
	d := garray(a.at(r)[:gaDesc])
	n := int64(16 + d.capacity(a, 4)*4)
	for i := 0; i < d.n(); i++ {
		gr := ref(le.Uint32(d.at(a, 4, i)))
		g := sgroup{a, gr, a.at(gr)}
		n += int64(chunkSize(classOf(gName+len(g.name())), gName+len(g.name())))
		n += int64(g.pel().capacity(a, peSize)*peSize + g.cons().capacity(a, 4)*4)
		for j := 0; j < g.cons().n(); j++ {
			size := cName + len(g.consAt(j).name())
			n += int64(chunkSize(classOf(size), size))
		}
	}
	return n
}
