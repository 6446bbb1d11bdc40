package server

import (
	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// XREAD [COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id
// ...] (Redis's xreadCommand). It replies at once with every stream that
// has entries past its ID; when none has and BLOCK is given, the client
// waits (blocking.go) on all the keys, with $ resolved to each stream's
// last ID now, until an XADD gives one of them such an entry: the reply
// then holds that stream alone, as Redis serves it. Inside MULTI (and
// for an in-process client) it does not block: the reply is a null
// array, as a timeout's.
func cmdXRead(c *cmdCtx) {
	a := c.args
	count, streams := int64(0), 0
	block, deadline := false, int64(0)
	for i := 1; i < len(a); i++ {
		more := len(a) - i - 1
		switch {
		case more > 0 && optIs(a[i], "block"):
			i++
			var ok bool
			if deadline, ok = parseTimeoutMs(c, a[i]); !ok { // cmd_wait.go
				return
			}
			block = true
		case more > 0 && optIs(a[i], "count"):
			i++
			n, ok := intArg(c, a[i])
			if !ok {
				return
			}
			count = max(n, 0)
		case more > 0 && optIs(a[i], "streams"):
			streams = i + 1
			if (len(a)-streams)%2 != 0 {
				c.errReply("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.")
				return
			}
			i = len(a)
		case more >= 2 && optIs(a[i], "group"):
			c.errReply("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.")
			return
		case optIs(a[i], "noack"):
			c.errReply("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.")
			return
		default:
			c.errReply(errSyntax)
			return
		}
	}
	if streams == 0 {
		c.errReply(errSyntax)
		return
	}
	n := (len(a) - streams) / 2
	keys, idArgs := a[streams:streams+n], a[streams+n:]
	var buf [8]store.StreamID
	ids := buf[:0]
	for i, arg := range idArgs {
		last, exists, st := c.store.XLastID(c.db(), keys[i], c.now)
		if st != store.OK {
			c.errReply(statusError(st))
			return
		}
		switch {
		case len(arg) == 1 && arg[0] == '$':
			if !exists {
				last = store.StreamID{}
			}
			ids = append(ids, last)
			continue
		case len(arg) == 1 && arg[0] == '>':
			c.errReply("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.")
			return
		}
		id, ok := strictIDArg(c, arg)
		if !ok {
			return
		}
		ids = append(ids, id)
	}
	if xreadNow(c, keys, ids, count) {
		return
	}
	if !block || c.cl.conn == nil || c.cl.execing {
		c.nullArray()
		return
	}
	w := newWaiter(c, keys, popStream, nullArrayReply(c.cl.proto))
	w.xread, w.xids, w.count = true, append([]store.StreamID(nil), ids...), int(min(count, 1<<31-1))
	c.srv.block(w, deadline)
}

// xreadNow replies with the streams that have entries past their IDs,
// reporting false (and replying nothing) when none has.
func xreadNow(c *cmdCtx, keys [][]byte, ids []store.StreamID, count int64) bool {
	mark := len(c.out)
	out, outer := resp.BeginArray(c.out)
	served := 0
	for i, key := range keys {
		start, ok := ids[i].Incr()
		if !ok {
			continue
		}
		km := len(out)
		if c.cl.proto < 3 {
			out = append(out, "*2\r\n"...)
		}
		out = resp.AppendBulk(out, key)
		var n int
		out, n = xreadRange(c.store, c.db(), key, start, count, out)
		if n == 0 {
			out = out[:km]
			continue
		}
		served++
	}
	if served == 0 {
		c.out = out[:mark]
		return false
	}
	c.out = endMapOrArray(out, outer, served, c.cl.proto)
	return true
}

// xreadRange appends the entries of key from start on, at most count (0:
// all), as an array, and returns how many.
func xreadRange(s *store.Store, db int, key []byte, start store.StreamID, count int64, out []byte) ([]byte, int) {
	if count == 0 {
		count = -1
	}
	out, mark := resp.BeginArray(out)
	out, n, st := s.XRange(db, key, start, store.MaxStreamID, count, false, nowMs(), out, streamReply)
	if st != store.OK || n == 0 {
		return out[:mark], 0
	}
	return resp.EndArray(out, mark, n), n
}

// endMapOrArray closes a header reserved by resp.BeginArray for n pairs:
// an array of n (RESP2) or a map of n (RESP3, whose header differs only
// in its first byte).
func endMapOrArray(out []byte, mark, n, proto int) []byte {
	out = resp.EndArray(out, mark, n)
	if proto >= 3 {
		out[mark] = '%'
	}
	return out
}

// popStream serves an XREAD waiter from key: its entries past the
// waiter's ID for key, as a one-stream reply. It changes nothing.
func popStream(s *store.Store, w *waiter, key []byte, dst []byte) ([]byte, bool, store.Status) {
	var id store.StreamID
	for i, k := range w.keys {
		if string(k) == string(key) {
			id = w.xids[i]
			break
		}
	}
	start, ok := id.Incr()
	if !ok {
		return dst, false, store.OK
	}
	mark := len(dst)
	if w.proto >= 3 {
		dst = append(dst, "%1\r\n"...)
	} else {
		dst = append(dst, "*1\r\n*2\r\n"...)
	}
	dst = resp.AppendBulk(dst, key)
	dst, n := xreadRange(s, w.db, key, start, int64(w.count), dst)
	if n == 0 {
		return dst[:mark], false, store.OK
	}
	return dst, true, store.OK
}
