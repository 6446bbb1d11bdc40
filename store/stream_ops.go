package store

import (
	"encoding/binary"

	"github.com/loopkv/loopkv/store/listpack"
)

var be = binary.BigEndian

// The stream operations of Redis 7.0's t_stream.c. Each starts with
// openInto and works on the nodes through stream.go. Replies are appended
// under the shard lock through a StreamReply.

// Trim strategies (XADD and XTRIM's MAXLEN and MINID).
const (
	TrimNone   = iota
	TrimMaxLen // MAXLEN: keep at most MaxLen entries
	TrimMinID  // MINID: drop the entries below MinID
)

// XTrimOptions are XADD's and XTRIM's trimming arguments.
type XTrimOptions struct {
	Strategy uint8
	Approx   bool // ~: whole nodes only
	MaxLen   int64
	MinID    StreamID
	Limit    int64 // entries removed at most; 0 for no limit
}

// XAddOptions are XADD's arguments besides the fields.
type XAddOptions struct {
	NoMkStream bool
	IDGiven    bool // an explicit ID (else *)
	SeqGiven   bool // with IDGiven: its sequence too (else ms-*)
	ID         StreamID
	Trim       XTrimOptions
}

// StreamReply appends a stream's entries: Entry before each entry's
// fields (n of them: 2n elements follow), Elem for each field and value.
type StreamReply struct {
	Entry func(dst []byte, id StreamID, n int) []byte
	Elem  EncodeFunc
}

func (k *kv) streamLimits() StreamLimits {
	l := k.s.limitsNow()
	return StreamLimits{MaxBytes: l.StreamNodeMaxBytes, MaxEntries: l.StreamNodeMaxEntries}
}

// XAdd appends an entry of the field, value pairs fv to key's stream,
// creating it unless o.NoMkStream (NotFound when it does not exist then),
// and trims it as o.Trim says. It returns the entry's ID and the entries
// trimmed. StreamIDTooSmall: the ID is not above the stream's last;
// StreamExhausted: the last ID is the largest.
func (s *Store) XAdd(db int, key []byte, fv [][]byte, o *XAddOptions, now int64) (StreamID, int64, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeStream, forWrite)
	defer k.release()
	if st != OK {
		return StreamID{}, 0, st
	}
	if !k.exists() && o.NoMkStream {
		return StreamID{}, 0, NotFound
	}
	var last StreamID // a new stream's is 0-0; it is created once the ID is good
	if k.exists() {
		last = k.streamHdr().last()
	}
	if last == MaxStreamID {
		return StreamID{}, 0, StreamExhausted
	}
	var id StreamID
	switch {
	case o.IDGiven && o.SeqGiven:
		id = o.ID
	case o.IDGiven:
		id = StreamID{o.ID.Ms, 0}
		if o.ID.Ms == last.Ms {
			if last.Seq == ^uint64(0) {
				return StreamID{}, 0, TooLarge // Redis 7.0's ERANGE there
			}
			id.Seq = last.Seq + 1
		}
	default:
		ms := uint64(max(now, 0))
		if ms > last.Ms {
			id = StreamID{ms, 0}
		} else {
			id, _ = last.Incr()
		}
	}
	if id.Cmp(last) <= 0 {
		return StreamID{}, 0, StreamIDTooSmall
	}
	if !k.exists() {
		k.streamCreate(key)
	}
	k.streamAppend(id, fv, k.streamLimits())
	var n int64
	if o.Trim.Strategy != TrimNone {
		n = k.streamTrim(&o.Trim)
	}
	return id, n, OK
}

// XLen returns the number of entries of key's stream, 0 when it does not
// exist.
func (s *Store) XLen(db int, key []byte, now int64) (int64, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeStream, forRead)
	defer k.release()
	if st != OK {
		return 0, okIfMissing(st)
	}
	return k.streamHdr().length(), OK
}

// XTrim trims key's stream as o says and returns the entries removed (0
// when key does not exist).
func (s *Store) XTrim(db int, key []byte, o *XTrimOptions, now int64) (int64, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeStream, forUpdate)
	defer k.release()
	if st != OK {
		return 0, okIfMissing(st)
	}
	return k.streamTrim(o), OK
}

// streamTrim removes entries from the head as o says (Redis's
// streamTrim): whole nodes while they go entirely, then, unless o.Approx,
// the entries of the next node marked deleted; at most o.Limit entries
// when it is set, counted in whole nodes.
func (k *kv) streamTrim(o *XTrimOptions) int64 {
	var deleted int64
	x := k.sindex()
	h := x.h
	i := 0 // the nodes before i are freed, and leave the index at the end in one move
	for ; i < h.nodes(); i++ {
		if o.Strategy == TrimMaxLen && h.length() <= o.MaxLen {
			break
		}
		nd := parseNode(x.lp(i), x.master(i))
		if o.Limit > 0 && deleted+nd.count > o.Limit {
			break
		}
		var whole bool
		if o.Strategy == TrimMaxLen {
			whole = h.length()-nd.count >= o.MaxLen
		} else {
			lastOff := nd.entryBefore(len(nd.lp) - 1)
			whole = lastOff < 0 || nd.entryAt(lastOff).id.Less(o.MinID)
		}
		if whole {
			k.t.freeNode(x.node(i))
			h.setLength(h.length() - nd.count)
			deleted += nd.count
			continue
		}
		if !o.Approx {
			deleted += k.streamTrimNode(i, &nd, o)
		}
		break
	}
	if i > 0 {
		n := h.nodes()
		b := x.a.at(h.index())
		copy(b, b[i*sixEntry:n*sixEntry])
		h.setNodes(n - i)
	}
	if id, ok := k.streamEdge(false); ok {
		h.setFirst(id)
	} else {
		h.setFirst(StreamID{})
	}
	return deleted
}

// streamTrimNode marks deleted the entries of node i (parsed as nd) that
// the trim removes, and returns how many.
func (k *kv) streamTrimNode(i int, nd *snode, o *XTrimOptions) int64 {
	h := k.streamHdr()
	var d int64
	for off := nd.first; nd.lp[off] != 0xff; {
		e := nd.entryAt(off)
		off = e.next
		if o.Strategy == TrimMaxLen && h.length() <= o.MaxLen || o.Strategy == TrimMinID && !e.id.Less(o.MinID) {
			break
		}
		if !e.deleted() {
			nodeSetInt(nd.lp, e.off, e.flags|streamFlagDeleted)
			h.setLength(h.length() - 1)
			d++
		}
	}
	lp := k.streamNodeRoom(i, 10)
	lp = listpack.ReplaceInt(lp, listpack.First(lp), nd.count-d)
	listpack.ReplaceInt(lp, listpack.Next(lp, listpack.First(lp)), nd.deleted+d)
	return d
}

// nodeSetInt replaces the 7-bit integer at off (an entry's flags) in
// place.
func nodeSetInt(lp []byte, off int, v int64) { listpack.ReplaceInt(lp, off, v) }

// XDel deletes the entries with the given IDs from key's stream and
// returns how many there were (0 when key does not exist).
func (s *Store) XDel(db int, key []byte, ids []StreamID, now int64) (int64, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeStream, forUpdate)
	defer k.release()
	if st != OK {
		return 0, okIfMissing(st)
	}
	var n int64
	firstGone := false
	for _, id := range ids {
		x := k.sindex()
		i := x.seek(id)
		if i < 0 {
			continue
		}
		nd := parseNode(x.lp(i), x.master(i))
		for off := nd.first; nd.lp[off] != 0xff; {
			e := nd.entryAt(off)
			off = e.next
			if e.id != id {
				if id.Less(e.id) {
					break
				}
				continue
			}
			if !e.deleted() {
				h := k.streamHdr()
				if id == h.first() {
					firstGone = true
				}
				k.streamMarkDeleted(i, &e)
				if h.maxDel().Less(id) {
					h.setMaxDel(id)
				}
				n++
			}
			break
		}
	}
	if n > 0 {
		h := k.streamHdr()
		if h.length() == 0 {
			h.setFirst(StreamID{})
		} else if firstGone {
			id, _ := k.streamEdge(false)
			h.setFirst(id)
		}
	}
	return n, OK
}

// XRange appends, through r, the entries of key's stream from start to
// end (reversed when rev: from end down to start), at most count of them
// when count >= 0, and returns how many. NotFound when key does not exist.
func (s *Store) XRange(db int, key []byte, start, end StreamID, count int64, rev bool, now int64, dst []byte, r StreamReply) ([]byte, int, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeStream, forRead)
	defer k.release()
	if st != OK {
		return dst, 0, st
	}
	return k.streamRange(start, end, count, rev, dst, r)
}

func (k *kv) streamRange(start, end StreamID, count int64, rev bool, dst []byte, r StreamReply) ([]byte, int, Status) {
	n := 0
	num := &k.sh.num
	var it streamIter
	k.streamIterInit(&it, start, end, rev)
	for (count < 0 || int64(n) < count) && it.next() {
		nd, e := &it.nd, &it.e
		dst = r.Entry(dst, e.id, e.nf)
		lp := nd.lp
		off, moff := e.fv, nd.mfield
		for j := 0; j < e.nf; j++ {
			if e.same {
				dst = r.Elem(dst, listpack.Value(lp, moff, num[0][:0]))
				moff = listpack.Next(lp, moff)
			} else {
				dst = r.Elem(dst, listpack.Value(lp, off, num[0][:0]))
				off = listpack.Next(lp, off)
			}
			dst = r.Elem(dst, listpack.Value(lp, off, num[1][:0]))
			off = listpack.Next(lp, off)
		}
		n++
	}
	return dst, n, OK
}

// XLastID returns the last generated ID of key's stream, ok false when
// key does not exist (XREAD's $).
func (s *Store) XLastID(db int, key []byte, now int64) (StreamID, bool, Status) {
	var k kv
	st := s.openInto(&k, db, key, now, TypeStream, forRead)
	defer k.release()
	if st != OK {
		return StreamID{}, false, okIfMissing(st)
	}
	return k.streamHdr().last(), true, OK
}

// XSetID sets key's last ID, and its entries-added count when added >= 0
// and its max deleted ID when maxDel is not 0-0 (XSETID). NotFound when
// key does not exist; StreamSetIDTop and StreamSetIDAdded for Redis
// 7.0's two refusals of an existing stream.
func (s *Store) XSetID(db int, key []byte, id StreamID, added int64, maxDel StreamID, now int64) Status {
	var k kv
	st := s.openInto(&k, db, key, now, TypeStream, forUpdate)
	defer k.release()
	if st != OK {
		return st
	}
	// No check against the current max deleted ID: Redis 7.0.15 has none
	// (XSETID s 3 on an empty stream whose max deleted ID is 15-0 is OK).
	h := k.streamHdr()
	if h.length() > 0 {
		top, _ := k.streamEdge(true)
		if id.Less(top) {
			return StreamSetIDTop
		}
		if added != -1 && h.length() > added {
			return StreamSetIDAdded
		}
	}
	h = k.streamHdr()
	h.setLast(id)
	if added != -1 {
		h.setAdded(uint64(added))
	}
	if !maxDel.IsZero() {
		h.setMaxDel(maxDel)
	}
	return OK
}

// StreamInfo describes a stream for XINFO STREAM; Range reads its
// entries during the callback that received it.
type StreamInfo struct {
	Length       int64
	Nodes        int
	LastID       StreamID
	MaxDeletedID StreamID
	EntriesAdded uint64
	FirstID      StreamID // recorded-first-entry-id
	Groups       int
	k            *kv
}

// Range is XRange on the stream being described.
func (v *StreamInfo) Range(start, end StreamID, count int64, rev bool, dst []byte, r StreamReply) ([]byte, int) {
	dst, n, _ := v.k.streamRange(start, end, count, rev, dst, r)
	return dst, n
}

// RaxNodes is XINFO's radix-tree-nodes: the nodes of the rax Redis
// would keep for these master IDs (16 bytes each, big endian): a
// compressed node per run of bytes the keys share below a branch, a
// branch node where they part, and a leaf per key; 1 for none.
func (v *StreamInfo) RaxNodes() int {
	x := v.k.sindex()
	n := x.h.nodes()
	if n == 0 {
		return 1
	}
	keys := make([][16]byte, n)
	for i := range keys {
		id := x.master(i)
		be.PutUint64(keys[i][:], id.Ms)
		be.PutUint64(keys[i][8:], id.Seq)
	}
	return raxCount(keys, 0)
}

// raxCount counts the rax nodes of the sorted, distinct keys below depth.
func raxCount(keys [][16]byte, depth int) int {
	if len(keys) == 1 {
		if depth == 16 {
			return 1
		}
		return 2 // the compressed rest and the leaf
	}
	n := 0
	l := depth
	for l < 16 && keys[0][l] == keys[len(keys)-1][l] {
		l++
	}
	if l > depth {
		n++
	}
	n++ // the branch at l
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j][l] == keys[i][l] {
			j++
		}
		n += raxCount(keys[i:j], l+1)
		i = j
	}
	return n
}

// XInfo calls fn with a description of key's stream under its lock.
// NotFound when key does not exist.
func (s *Store) XInfo(db int, key []byte, now int64, fn func(v *StreamInfo)) Status {
	var k kv
	st := s.openInto(&k, db, key, now, TypeStream, forRead)
	defer k.release()
	if st != OK {
		return st
	}
	h := k.streamHdr()
	v := StreamInfo{Length: h.length(), Nodes: h.nodes(), LastID: h.last(), MaxDeletedID: h.maxDel(),
		EntriesAdded: h.added(), FirstID: h.first(), k: &k}
	fn(&v)
	return OK
}
