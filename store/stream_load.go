package store

import (
	"errors"
	"strconv"

	"github.com/loopkv/loopkv/store/listpack"
)

// The stream's side of snapshots and loading: a Value gives a stream's
// metadata and its nodes verbatim (RDB's STREAM_LISTPACKS types store
// them so), and LoadStream takes them back after checking each node as
// Redis's deep integrity check does (streamValidateListpackIntegrity).

// StreamMeta is a stream's metadata as RDB stores it.
type StreamMeta struct {
	Length       int64
	LastID       StreamID
	FirstID      StreamID // recorded first entry ID
	MaxDeletedID StreamID
	EntriesAdded uint64
}

// StreamMeta returns a stream value's metadata (zero for other types).
func (v *Value) StreamMeta() StreamMeta {
	if v.Type != TypeStream {
		return StreamMeta{}
	}
	h := streamHdr(v.val)
	return StreamMeta{Length: h.length(), LastID: h.last(), FirstID: h.first(), MaxDeletedID: h.maxDel(),
		EntriesAdded: h.added()}
}

// StreamNodes calls fn with each node of a stream, in ID order: its master
// ID and its listpack, until fn returns false.
func (v *Value) StreamNodes(fn func(master StreamID, lp []byte) bool) {
	if v.Type != TypeStream {
		return
	}
	x := sindex{&v.t.a, streamHdr(v.val)}
	for i := 0; i < x.h.nodes(); i++ {
		lp := x.lp(i)
		if !fn(x.master(i), lp[:len(lp):len(lp)]) {
			return
		}
	}
}

// StreamEntries calls fn with each live entry of a stream, in order: its
// ID and its field, value pairs (views valid during the call), until fn
// returns false. For AOF rewrite's XADD commands.
func (v *Value) StreamEntries(fn func(id StreamID, fv [][]byte) bool) {
	if v.Type != TypeStream {
		return
	}
	var num [2][20]byte
	var fv [][]byte
	var bufs []byte
	x := sindex{&v.t.a, streamHdr(v.val)}
	for i := 0; i < x.h.nodes(); i++ {
		nd := parseNode(x.lp(i), x.master(i))
		for off := nd.first; nd.lp[off] != 0xff; {
			e := nd.entryAt(off)
			off = e.next
			if e.deleted() {
				continue
			}
			fv, bufs = fv[:0], bufs[:0]
			var spans []int
			nd.fields(&e, &num, func(f, val []byte) {
				spans = append(spans, len(bufs))
				bufs = append(bufs, f...)
				spans = append(spans, len(bufs))
				bufs = append(bufs, val...)
			})
			spans = append(spans, len(bufs))
			for j := 0; j+1 < len(spans); j++ {
				fv = append(fv, bufs[spans[j]:spans[j+1]])
			}
			if !fn(e.id, fv) {
				return
			}
		}
	}
}

// streamCorrupt is a fault in a stream node, at byte off of its listpack.
func streamCorrupt(off int, why string) error {
	return &listpack.CorruptError{Offset: off, Reason: why}
}

// ValidateStreamNode checks lp as a stream node with master ID master, as
// Redis's deep integrity check does: a valid listpack; a master entry of
// integers and fields ending in 0; entries of integer flags and ID deltas,
// their fields, and an lp-count that matches; IDs ascending from master
// and above after (the previous node's last entry; 0-0 for the first
// node); live and deleted entries as the master counts them. It returns
// the live entries and the last entry's ID. Errors name the offset in lp.
func ValidateStreamNode(lp []byte, master, after StreamID, first bool) (int64, StreamID, error) {
	if err := listpack.Validate(lp); err != nil {
		return 0, StreamID{}, err
	}
	if listpack.First(lp) < 0 {
		return 0, StreamID{}, streamCorrupt(0, "empty stream node")
	}
	if !first && !after.Less(master) {
		return 0, StreamID{}, streamCorrupt(0, "stream node's master ID "+master.String()+" is not above the previous node's last entry")
	}
	off := listpack.First(lp)
	need := func() (int64, bool) { // the integer at off, moving past it
		if off < 0 || lp[off] == 0xff {
			return 0, false
		}
		_, v, isInt := listpack.Get(lp, off)
		if !isInt {
			return 0, false
		}
		off = listpack.Next(lp, off)
		return v, true
	}
	at := off
	count, ok1 := need()
	deleted, ok2 := need()
	nf, ok3 := need()
	if !ok1 || !ok2 || !ok3 || count < 0 || deleted < 0 || nf < 0 || nf > int64(len(lp)) {
		return 0, StreamID{}, streamCorrupt(at, "bad stream master entry")
	}
	for i := int64(0); i < nf; i++ {
		if off < 0 || lp[off] == 0xff {
			return 0, StreamID{}, streamCorrupt(at, "stream master entry is cut short")
		}
		off = listpack.Next(lp, off)
	}
	if z, ok := need(); !ok || z != 0 {
		return 0, StreamID{}, streamCorrupt(at, "stream master entry lacks its 0 terminator")
	}
	var live, dead int64
	last := after
	seen := false
	for off >= 0 && lp[off] != 0xff {
		at = off
		flags, ok1 := need()
		dms, ok2 := need()
		dseq, ok3 := need()
		if !ok1 || !ok2 || !ok3 || flags&^(streamFlagDeleted|streamFlagSameFields) != 0 {
			return 0, StreamID{}, streamCorrupt(at, "bad stream entry header")
		}
		id := StreamID{master.Ms + uint64(dms), master.Seq + uint64(dseq)}
		if id.Less(master) || (seen || !first) && !last.Less(id) {
			return 0, StreamID{}, streamCorrupt(at, "stream entry ID "+id.String()+" is out of order")
		}
		last, seen = id, true
		n, elems := nf, int64(3)
		if flags&streamFlagSameFields == 0 {
			var ok bool
			if n, ok = need(); !ok || n < 0 || n > int64(len(lp)) {
				return 0, StreamID{}, streamCorrupt(at, "bad stream entry field count")
			}
			elems += 1 + 2*n
			n *= 2
		} else {
			elems += n
		}
		for i := int64(0); i < n; i++ {
			if off < 0 || lp[off] == 0xff {
				return 0, StreamID{}, streamCorrupt(at, "stream entry is cut short")
			}
			off = listpack.Next(lp, off)
		}
		if c, ok := need(); !ok || c != elems {
			return 0, StreamID{}, streamCorrupt(at, "stream entry's lp-count does not match")
		}
		if flags&streamFlagDeleted != 0 {
			dead++
		} else {
			live++
		}
	}
	if live != count || dead != deleted {
		return 0, StreamID{}, streamCorrupt(0, "stream node counts "+strconv.FormatInt(count, 10)+" live and "+
			strconv.FormatInt(deleted, 10)+" deleted entries, it has "+strconv.FormatInt(live, 10)+" and "+strconv.FormatInt(dead, 10))
	}
	if !seen {
		return 0, StreamID{}, streamCorrupt(0, "stream node has no entry")
	}
	return live, last, nil
}

// ErrStreamMeta is LoadStream's error for metadata that does not fit the
// nodes (a length other than their live entries, a last ID below the last
// entry).
var ErrStreamMeta = errors.New("store: stream metadata does not match its nodes")

// ErrStreamGroups is LoadStreamGroups' error for groups that do not fit
// together or a key that is not a stream without groups.
var ErrStreamGroups = errors.New("store: stream consumer groups are inconsistent")

// LoadStream stores a stream of the given nodes (listpacks in Redis's
// stream-node format, with their master IDs) and metadata, with TTL
// expireAt. Every node is validated first. It returns ErrKeyExists when
// key exists and !replace.
func (s *Store) LoadStream(db int, key []byte, m StreamMeta, masters []StreamID, nodes [][]byte, expireAt int64, replace bool) error {
	var total int64
	var last StreamID
	for i, lp := range nodes {
		n, l, err := ValidateStreamNode(lp, masters[i], last, i == 0)
		if err != nil {
			return loadErr(TypeStream, EncStream, err)
		}
		total += n
		last = l
	}
	if total != m.Length || len(nodes) > 0 && m.LastID.Less(last) {
		return ErrStreamMeta
	}
	k, err := s.loadKey(db, key, replace)
	defer k.release()
	if err != nil {
		return err
	}
	k.streamCreate(key)
	for i, lp := range nodes {
		r, nb := k.t.newNode(len(lp))
		copy(nb[lnHdr:], lp)
		k.streamAddNode(masters[i], r)
	}
	h := k.streamHdr()
	h.setLength(m.Length)
	h.setLast(m.LastID)
	h.setFirst(m.FirstID)
	h.setMaxDel(m.MaxDeletedID)
	h.setAdded(m.EntriesAdded)
	if expireAt != 0 {
		k.setTTL(expireAt)
	}
	return nil
}

// StreamNodeFirst returns the first live entry's ID of a valid stream
// node, ok false when all its entries are deleted.
func StreamNodeFirst(lp []byte, master StreamID) (StreamID, bool) {
	nd := parseNode(lp, master)
	for off := nd.first; lp[off] != 0xff; {
		e := nd.entryAt(off)
		off = e.next
		if !e.deleted() {
			return e.id, true
		}
	}
	return StreamID{}, false
}
