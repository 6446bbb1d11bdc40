package rdb

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/loopkv/loopkv/store"
)

// Consumer groups in a stream's RDB record (groundwork: the loader still
// refuses a stream with groups, as the store has no group commands yet;
// readStreamGroups and storeGroups are what it will use;
// streamGroups writes the store's groups, none until commands make them). After
// the group count, each group is
//
//	name             string
//	last ID          two lengths, ms and seq
//	entries read     length (19 and 21 only; -1, "not known", as 2^64-1)
//	PEL              length, then per entry its ID as 16 raw bytes (ms,
//	                 seq: big endian), its delivery time (8 bytes, ms,
//	                 little endian) and its delivery count (length)
//	consumers        length, then per consumer its name (string), its
//	                 seen time (8 bytes, ms, little endian), its active
//	                 time (the same; 21 only) and its PEL: a length and
//	                 the IDs as 16 raw bytes, each in the group's PEL
//
// Redis writes groups, PELs and consumers in its raxes' order (names as
// memcmp orders them, IDs ascending) but reads any order; here a load
// refuses a name or ID twice, a consumer's ID the group's PEL lacks or
// another consumer holds, and a pending entry no consumer holds (Redis's
// deep integrity check refuses that last one too).

// streamGroupRec is one group as read; its strings are spans of the
// decoder's arena.
type streamGroupRec struct {
	name      span
	last      store.StreamID
	read      int64
	pel       []streamPendingRec
	consumers []streamConsumerRec
}

type streamPendingRec struct {
	id       store.StreamID
	time     int64
	count    uint64
	consumer int // index in consumers; -1 until a consumer names it
}

type streamConsumerRec struct {
	name   span
	seen   int64
	active int64 // type 21 only
	pel    []store.StreamID
}

// readStreamGroups reads n groups of a stream of RDB type t, checking them
// as the comment above says.
func (d *decoder) readStreamGroups(t byte, n uint64) ([]streamGroupRec, error) {
	var groups []streamGroupRec
	for i := uint64(0); i < n; i++ {
		at := d.r.offset()
		var g streamGroupRec
		var err error
		if g.name, err = d.str("a stream consumer group's name"); err != nil {
			return nil, err
		}
		for _, o := range groups {
			if string(d.bytes(o.name)) == string(d.bytes(g.name)) {
				return nil, errAt(at, "stream consumer group name "+strconv.Quote(string(d.bytes(g.name)))+" appears twice")
			}
		}
		if g.last, err = d.readStreamID("a stream consumer group's last ID"); err != nil {
			return nil, err
		}
		g.read = store.GroupEntriesReadInvalid
		if t != typeStreamLP {
			r, err := d.r.readCount("a stream consumer group's entries read")
			if err != nil {
				return nil, err
			}
			g.read = int64(r)
		}
		if g.pel, err = d.readGroupPEL(); err != nil {
			return nil, err
		}
		if g.consumers, err = d.readConsumers(t, &g); err != nil {
			return nil, err
		}
		for _, p := range g.pel {
			if p.consumer < 0 {
				return nil, errAt(at, "stream consumer group "+strconv.Quote(string(d.bytes(g.name)))+" has pending entry "+p.id.String()+" with no consumer")
			}
		}
		groups = append(groups, g)
	}
	return groups, nil
}

// readGroupPEL reads a group's pending entries and sorts them by ID.
func (d *decoder) readGroupPEL() ([]streamPendingRec, error) {
	n, err := d.r.readCount("a stream consumer group's PEL size")
	if err != nil {
		return nil, err
	}
	var pel []streamPendingRec
	for i := uint64(0); i < n; i++ {
		at := d.r.offset()
		id, err := d.rawStreamID("a pending entry's ID")
		if err != nil {
			return nil, err
		}
		p, err := d.r.next(8, "a pending entry's delivery time")
		if err != nil {
			return nil, err
		}
		e := streamPendingRec{id: id, time: int64(binary.LittleEndian.Uint64(p)), consumer: -1}
		if e.count, err = d.r.readCount("a pending entry's delivery count"); err != nil {
			return nil, err
		}
		if j, found := pelSearch(pel, id); found {
			return nil, errAt(at, "pending entry "+id.String()+" appears twice in a consumer group's PEL")
		} else {
			pel = slices.Insert(pel, j, e)
		}
	}
	return pel, nil
}

func pelSearch(pel []streamPendingRec, id store.StreamID) (int, bool) {
	return slices.BinarySearchFunc(pel, id, func(e streamPendingRec, id store.StreamID) int { return e.id.Cmp(id) })
}

// readConsumers reads a group's consumers, naming their entries in g.pel.
func (d *decoder) readConsumers(t byte, g *streamGroupRec) ([]streamConsumerRec, error) {
	n, err := d.r.readCount("a stream consumer group's consumer count")
	if err != nil {
		return nil, err
	}
	var cons []streamConsumerRec
	for i := uint64(0); i < n; i++ {
		at := d.r.offset()
		var c streamConsumerRec
		if c.name, err = d.str("a stream consumer's name"); err != nil {
			return nil, err
		}
		for _, o := range cons {
			if string(d.bytes(o.name)) == string(d.bytes(c.name)) {
				return nil, errAt(at, "stream consumer "+strconv.Quote(string(d.bytes(c.name)))+" appears twice in a group")
			}
		}
		if c.seen, err = d.millis("a stream consumer's seen time"); err != nil {
			return nil, err
		}
		if t == typeStreamLP3 {
			if c.active, err = d.millis("a stream consumer's active time"); err != nil {
				return nil, err
			}
		}
		np, err := d.r.readCount("a stream consumer's PEL size")
		if err != nil {
			return nil, err
		}
		for j := uint64(0); j < np; j++ {
			at := d.r.offset()
			id, err := d.rawStreamID("a stream consumer's pending entry ID")
			if err != nil {
				return nil, err
			}
			k, found := pelSearch(g.pel, id)
			if !found {
				return nil, errAt(at, "stream consumer's pending entry "+id.String()+" is not in its group's PEL")
			}
			if g.pel[k].consumer >= 0 {
				return nil, errAt(at, "pending entry "+id.String()+" is held by two consumers, or twice by one")
			}
			g.pel[k].consumer = len(cons)
			c.pel = append(c.pel, id)
		}
		cons = append(cons, c)
	}
	return cons, nil
}

// rawStreamID reads an ID as 16 raw bytes, ms and seq big endian.
func (d *decoder) rawStreamID(what string) (store.StreamID, error) {
	p, err := d.r.next(16, what)
	if err != nil {
		return store.StreamID{}, err
	}
	return store.StreamID{Ms: binary.BigEndian.Uint64(p), Seq: binary.BigEndian.Uint64(p[8:])}, nil
}

// millis reads a millisecond time as 8 bytes, little endian.
func (d *decoder) millis(what string) (int64, error) {
	p, err := d.r.next(8, what)
	if err != nil {
		return 0, err
	}
	return int64(binary.LittleEndian.Uint64(p)), nil
}

// streamGroups appends v's consumer groups as STREAM_LISTPACKS_2 writes
// them (the count first), in the store's order, which is Redis's: groups
// and consumers by name, PELs by ID.
func (e *encoder) streamGroups(v *store.Value) {
	n := 0
	v.StreamGroups(func(*store.StreamGroup) bool { n++; return true })
	e.buf = appendLen(e.buf, uint64(n))
	v.StreamGroups(func(g *store.StreamGroup) bool {
		e.str(g.Name)
		e.buf = appendLen(appendLen(e.buf, g.LastID.Ms), g.LastID.Seq)
		e.buf = appendLen(e.buf, uint64(g.EntriesRead))
		e.buf = appendLen(e.buf, uint64(len(g.Pending)))
		for _, p := range g.Pending {
			e.buf = appendRawID(e.buf, p.ID)
			e.buf = binary.LittleEndian.AppendUint64(e.buf, uint64(p.DeliveryTime))
			e.buf = appendLen(e.buf, p.DeliveryCount)
			e.spill()
		}
		e.buf = appendLen(e.buf, uint64(len(g.Consumers)))
		byCons := store.PendingByConsumer(g)
		j := 0
		for ci, c := range g.Consumers {
			e.str(c.Name)
			e.buf = binary.LittleEndian.AppendUint64(e.buf, uint64(c.SeenTime))
			end := j
			for end < len(byCons) && g.Pending[byCons[end]].Consumer == ci {
				end++
			}
			e.buf = appendLen(e.buf, uint64(end-j))
			for ; j < end; j++ {
				e.buf = appendRawID(e.buf, g.Pending[byCons[j]].ID)
				e.spill()
			}
		}
		return true
	})
}

// storeGroups converts groups as read to the store's form (the decoder's
// arena holds their names until the next value).
func (d *decoder) storeGroups(groups []streamGroupRec) []store.StreamGroup {
	out := make([]store.StreamGroup, len(groups))
	for i, g := range groups {
		sg := store.StreamGroup{Name: d.bytes(g.name), LastID: g.last, EntriesRead: g.read}
		order := make([]int, len(g.consumers)) // consumers by name: the store's order
		for j := range order {
			order[j] = j
		}
		slices.SortFunc(order, func(a, b int) int {
			return cmp.Compare(string(d.bytes(g.consumers[a].name)), string(d.bytes(g.consumers[b].name)))
		})
		rank := make([]int, len(order))
		for r, j := range order {
			rank[j] = r
			sg.Consumers = append(sg.Consumers, store.StreamConsumer{Name: d.bytes(g.consumers[j].name), SeenTime: g.consumers[j].seen})
		}
		for _, p := range g.pel {
			sg.Pending = append(sg.Pending, store.StreamPending{ID: p.id, DeliveryTime: p.time, DeliveryCount: p.count,
				Consumer: rank[p.consumer]})
		}
		out[i] = sg
	}
	slices.SortFunc(out, func(a, b store.StreamGroup) int { return cmp.Compare(string(a.Name), string(b.Name)) })
	return out
}

func appendRawID(dst []byte, id store.StreamID) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(dst, id.Ms), id.Seq)
}
