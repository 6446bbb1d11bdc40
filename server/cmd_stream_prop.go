package server

import (
	"strconv"

	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// Streams in the replication stream and the AOF, as Redis 7.0 writes
// them: XADD with the ID it generated, and XADD's or XTRIM's ~ trimming as
// the exact trim it did (= and the resulting length, or first ID for
// MINID), so that a replay does what the command did. Redis keeps LIMIT
// there, which a replaying master client ignores; loopkv drops it, since a
// LIMIT without ~ is an error to an ordinary client.

// xadd appends XADD's deterministic form; reply is its ID.
func (p *propagator) xadd(c *cmdCtx, reply []byte) bool {
	id, ok := replyBulk(reply)
	if !ok {
		return false
	}
	var o store.XAddOptions
	mark := len(c.out)
	i, ok := parseAddTrim(c, true, &o)
	c.out = c.out[:mark]
	if !ok {
		return false
	}
	fields := c.args[i+1:]
	n := 3 + len(fields)
	if o.NoMkStream {
		n++
	}
	if o.Trim.Strategy != store.TrimNone {
		n += 3
	}
	p.begin(c.db(), n)
	p.str("XADD")
	p.arg(c.args[1])
	if o.NoMkStream {
		p.str("NOMKSTREAM")
	}
	p.trim(c, &o.Trim)
	p.arg(id)
	p.begin1(fields)
	return true
}

// xtrim appends XTRIM's deterministic form.
func (p *propagator) xtrim(c *cmdCtx) bool {
	var o store.XAddOptions
	mark := len(c.out)
	_, ok := parseAddTrim(c, false, &o)
	c.out = c.out[:mark]
	if !ok {
		return false
	}
	p.begin(c.db(), 5)
	p.str("XTRIM")
	p.arg(c.args[1])
	p.trim(c, &o.Trim)
	return true
}

// trim appends MAXLEN|MINID = threshold: the command's own, or for ~ what
// the stream holds now (its length, or its first entry's ID).
func (p *propagator) trim(c *cmdCtx, t *store.XTrimOptions) {
	if t.Strategy == store.TrimNone {
		return
	}
	key := c.args[1]
	if t.Strategy == store.TrimMaxLen {
		p.str("MAXLEN")
		p.str("=")
		if t.Approx {
			n, _ := c.store.XLen(c.db(), key, c.now)
			p.num(n)
		} else {
			p.num(t.MaxLen)
		}
		return
	}
	p.str("MINID")
	p.str("=")
	id := t.MinID
	if t.Approx {
		c.store.XInfo(c.db(), key, c.now, func(v *store.StreamInfo) {
			var buf [64]byte
			if b, n := v.Range(store.StreamID{}, store.MaxStreamID, 1, false, buf[:0], streamIDOnly); n == 1 {
				id = parseReplyID(b)
			}
		})
	}
	var buf [41]byte
	p.arg(store.AppendStreamID(buf[:0], id))
}

// streamIDOnly is a StreamReply that keeps the entry's ID alone.
var streamIDOnly = store.StreamReply{
	Entry: func(dst []byte, id store.StreamID, _ int) []byte { return store.AppendStreamID(dst, id) },
	Elem:  func(dst, _ []byte) []byte { return dst },
}

func parseReplyID(b []byte) store.StreamID {
	id, _, _ := parseStreamID(b, true, 0, false)
	return id
}

// appendStreamCommands appends the commands that rebuild stream v, as
// Redis's rewriteStreamObject: one XADD per entry (an empty stream as XADD
// MAXLEN 0 of a placeholder), then XSETID with the last ID, entries added
// and max deleted ID, then its consumer groups (appendStreamGroupCommands).
func appendStreamCommands(buf []byte, v *store.Value) []byte {
	var idb [41]byte
	if v.Len() > 0 {
		v.StreamEntries(func(id store.StreamID, fv [][]byte) bool {
			buf = resp.AppendArrayLen(buf, 3+len(fv))
			buf = resp.AppendBulkString(buf, "XADD")
			buf = resp.AppendBulk(buf, v.Key)
			buf = resp.AppendBulk(buf, store.AppendStreamID(idb[:0], id))
			for _, b := range fv {
				buf = resp.AppendBulk(buf, b)
			}
			return true
		})
	} else {
		buf = resp.AppendArrayLen(buf, 7)
		for _, s := range []string{"XADD", string(v.Key), "MAXLEN", "0", "0-1", "x", "y"} {
			buf = resp.AppendBulkString(buf, s)
		}
	}
	m := v.StreamMeta()
	buf = resp.AppendArrayLen(buf, 7)
	buf = resp.AppendBulkString(buf, "XSETID")
	buf = resp.AppendBulk(buf, v.Key)
	buf = resp.AppendBulk(buf, store.AppendStreamID(idb[:0], m.LastID))
	buf = resp.AppendBulkString(buf, "ENTRIESADDED")
	buf = resp.AppendBulkInt(buf, int64(m.EntriesAdded))
	buf = resp.AppendBulkString(buf, "MAXDELETEDID")
	buf = resp.AppendBulk(buf, store.AppendStreamID(idb[:0], m.MaxDeletedID))
	return appendStreamGroupCommands(buf, v)
}

// appendStreamGroupCommands appends the commands that rebuild stream v's
// consumer groups, as Redis 7.0's rewriteStreamObject writes them: per
// group (by name) XGROUP CREATE key group last-id ENTRIESREAD n (-1 when
// not known), then per consumer (by name) an XCLAIM key group consumer 0
// id TIME ms RETRYCOUNT n JUSTID FORCE per pending entry it holds (by
// ID), or XGROUP CREATECONSUMER key group consumer when it holds none.
// (No command makes groups yet; a loader will.)
func appendStreamGroupCommands(buf []byte, v *store.Value) []byte {
	var idb [41]byte
	v.StreamGroups(func(g *store.StreamGroup) bool {
		buf = resp.AppendArrayLen(buf, 7)
		buf = resp.AppendBulkString(buf, "XGROUP")
		buf = resp.AppendBulkString(buf, "CREATE")
		buf = resp.AppendBulk(buf, v.Key)
		buf = resp.AppendBulk(buf, g.Name)
		buf = resp.AppendBulk(buf, store.AppendStreamID(idb[:0], g.LastID))
		buf = resp.AppendBulkString(buf, "ENTRIESREAD")
		buf = resp.AppendBulkInt(buf, g.EntriesRead)
		byCons := store.PendingByConsumer(g)
		j := 0
		for ci, c := range g.Consumers {
			held := false
			for ; j < len(byCons) && g.Pending[byCons[j]].Consumer == ci; j++ {
				p := &g.Pending[byCons[j]]
				held = true
				buf = resp.AppendArrayLen(buf, 12)
				buf = resp.AppendBulkString(buf, "XCLAIM")
				buf = resp.AppendBulk(buf, v.Key)
				buf = resp.AppendBulk(buf, g.Name)
				buf = resp.AppendBulk(buf, c.Name)
				buf = resp.AppendBulkString(buf, "0")
				buf = resp.AppendBulk(buf, store.AppendStreamID(idb[:0], p.ID))
				buf = resp.AppendBulkString(buf, "TIME")
				buf = resp.AppendBulkInt(buf, p.DeliveryTime)
				buf = resp.AppendBulkString(buf, "RETRYCOUNT")
				buf = resp.AppendBulk(buf, strconv.AppendUint(idb[:0], p.DeliveryCount, 10))
				buf = resp.AppendBulkString(buf, "JUSTID")
				buf = resp.AppendBulkString(buf, "FORCE")
			}
			if !held {
				buf = resp.AppendArrayLen(buf, 5)
				buf = resp.AppendBulkString(buf, "XGROUP")
				buf = resp.AppendBulkString(buf, "CREATECONSUMER")
				buf = resp.AppendBulk(buf, v.Key)
				buf = resp.AppendBulk(buf, g.Name)
				buf = resp.AppendBulk(buf, c.Name)
			}
		}
		return true
	})
	return buf
}
