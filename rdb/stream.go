package rdb

import (
	"encoding/binary"
	"strconv"

	"github.com/loopkv/loopkv/store"
)

// Streams: STREAM_LISTPACKS (15, Redis 5 and 6), STREAM_LISTPACKS_2 (19,
// Redis 7.0, written) and STREAM_LISTPACKS_3 (21, Redis 7.2) are
//
//	nodes            length
//	per node         its master ID as a 16-byte string (ms, seq: big
//	                 endian), its listpack as a string
//	length           length: live entries
//	last ID          two lengths, ms and seq
//	first ID         two lengths (19 and 21 only)
//	max deleted ID   two lengths (19 and 21 only)
//	entries added    length (19 and 21 only)
//	groups           length, then each group (see readStreamGroups)
//
// A 15 stream's first ID is its first entry's, its max deleted ID 0-0 and
// its entries added its length, as Redis loads it.

// stream appends v as STREAM_LISTPACKS_2.
func (e *encoder) stream(v *store.Value) {
	n := 0
	v.StreamNodes(func(store.StreamID, []byte) bool { n++; return true })
	e.buf = appendLen(e.buf, uint64(n))
	v.StreamNodes(func(master store.StreamID, lp []byte) bool {
		var key [16]byte
		binary.BigEndian.PutUint64(key[:], master.Ms)
		binary.BigEndian.PutUint64(key[8:], master.Seq)
		e.str(key[:])
		e.str(lp)
		return true
	})
	m := v.StreamMeta()
	e.buf = appendLen(e.buf, uint64(m.Length))
	e.buf = appendLen(appendLen(e.buf, m.LastID.Ms), m.LastID.Seq)
	e.buf = appendLen(appendLen(e.buf, m.FirstID.Ms), m.FirstID.Seq)
	e.buf = appendLen(appendLen(e.buf, m.MaxDeletedID.Ms), m.MaxDeletedID.Seq)
	e.buf = appendLen(e.buf, m.EntriesAdded)
	e.streamGroups(v)
	e.spill()
}

// readStream reads a stream of RDB type t into d.obj: its nodes, checked
// as Redis's deep integrity check checks them, and its metadata.
func (d *decoder) readStream(t byte) error {
	o := &d.obj
	o.typ = store.TypeStream
	n, err := d.r.readCount("a stream's node count")
	if err != nil {
		return err
	}
	var last store.StreamID
	var live int64
	for i := uint64(0); i < n; i++ {
		at := d.r.offset()
		k, err := d.str("a stream node's master ID")
		if err != nil {
			return err
		}
		if k.n != 16 {
			return errAt(at, "stream node key is "+strconv.Itoa(k.n)+" bytes, not the 16 of a stream ID")
		}
		kb := d.bytes(k)
		master := store.StreamID{Ms: binary.BigEndian.Uint64(kb), Seq: binary.BigEndian.Uint64(kb[8:])}
		at = d.r.offset()
		s, err := d.str("a stream node")
		if err != nil {
			return err
		}
		cnt, l, err := store.ValidateStreamNode(d.bytes(s), master, last, i == 0)
		if err != nil {
			return blobErr(at, "stream node", err)
		}
		live += cnt
		last = l
		o.nodes = append(o.nodes, s)
		o.masters = append(o.masters, master)
	}
	m := &o.stream
	at := d.r.offset()
	length, err := d.r.readCount("a stream's length")
	if err != nil {
		return err
	}
	if length != uint64(live) {
		return errAt(at, "stream length "+strconv.FormatUint(length, 10)+" does not match its nodes' "+strconv.FormatInt(live, 10)+" entries")
	}
	m.Length = int64(length)
	at = d.r.offset()
	if m.LastID, err = d.readStreamID("a stream's last ID"); err != nil {
		return err
	}
	if n > 0 && m.LastID.Less(last) {
		return errAt(at, "stream's last ID "+m.LastID.String()+" is below its last entry "+last.String())
	}
	if t == typeStreamLP {
		m.EntriesAdded = length
		if n > 0 {
			m.FirstID = d.firstEntry()
		}
	} else {
		if m.FirstID, err = d.readStreamID("a stream's first ID"); err != nil {
			return err
		}
		if m.MaxDeletedID, err = d.readStreamID("a stream's max deleted ID"); err != nil {
			return err
		}
		if m.EntriesAdded, err = d.r.readCount("a stream's entries added"); err != nil {
			return err
		}
	}
	at = d.r.offset()
	groups, err := d.r.readCount("a stream's consumer group count")
	if err != nil {
		return err
	}
	if groups > 0 {
		return errAt(at, "stream consumer groups are not supported")
	}
	return nil
}

// readStreamID reads an ID as two lengths.
func (d *decoder) readStreamID(what string) (store.StreamID, error) {
	ms, err := d.r.readCount(what)
	if err != nil {
		return store.StreamID{}, err
	}
	seq, err := d.r.readCount(what)
	return store.StreamID{Ms: ms, Seq: seq}, err
}

// firstEntry returns the first live entry's ID of the decoded nodes.
func (d *decoder) firstEntry() store.StreamID {
	for i, s := range d.obj.nodes {
		if id, ok := store.StreamNodeFirst(d.bytes(s), d.obj.masters[i]); ok {
			return id
		}
	}
	return store.StreamID{}
}
