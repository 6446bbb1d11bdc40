package server

import (
	"bytes"
	"github.com/loopkv/loopkv/config"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// Client-side caching (Redis tracking.c). A tracking client's reads
// remember their keys in the server's tracking table (by key name, any
// database, as Redis); the next write of such a key sends every client that
// read it one invalidation and forgets the key for them. BCAST clients are
// told about every written key under their prefixes instead. An
// invalidation is a RESP3 push [invalidate, [key]], or, for a client that
// redirects to a RESP2 connection, a message on __redis__:invalidate; it
// takes the pub/sub path (the receiver's outbox, written by its own loop).
// The table holds at most tracking-table-max-keys keys: past that, keys
// are invalidated and dropped, as Redis does. When nobody tracks, a write
// costs one atomic load.

// trackState is a tracking client's mode; nil when tracking is off.
type trackState struct {
	redirect uint64 // client id; 0 for none
	bcast    bool
	optin    bool
	optout   bool
	noloop   bool
	prefixes []string
	caching  int8 // CLIENT CACHING: 1 yes, -1 no, for the next command; 0 unset
}

// trackTable is the server's tracked keys and BCAST clients.
type trackTable struct {
	mu      sync.Mutex
	keys    map[string]map[*client]struct{}
	bcast   []*client
	n       atomic.Int64 // tracking clients
	maxKeys atomic.Int64 // tracking-table-max-keys
}

// sizes returns INFO's tracking_total_keys, _items (key, client pairs)
// and _prefixes (of BCAST clients).
func (t *trackTable) sizes() (keys, items, prefixes int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, set := range t.keys {
		items += int64(len(set))
	}
	for _, b := range t.bcast {
		prefixes += int64(len(b.track.prefixes))
	}
	return int64(len(t.keys)), items, prefixes
}

const invalidateChannel = "__redis__:invalidate"

func cmdClientTracking(c *cmdCtx) {
	cl := c.cl
	on := false
	switch {
	case optIs(c.args[2], "on"):
		on = true
	case optIs(c.args[2], "off"):
	default:
		c.errReply(errSyntax)
		return
	}
	ts := trackState{}
	for i := 3; i < len(c.args); i++ {
		a := c.args[i]
		switch {
		case optIs(a, "redirect") && i+1 < len(c.args):
			i++
			id, ok := store.ParseInt(c.args[i])
			if !ok {
				c.errReply(errNotInteger)
				return
			}
			if id != int64(cl.id) && c.srv.clients.get(uint64(id)) == nil {
				c.errReply("ERR The client ID you want redirect to does not exist")
				return
			}
			ts.redirect = uint64(id)
		case optIs(a, "prefix") && i+1 < len(c.args):
			i++
			ts.prefixes = append(ts.prefixes, string(c.args[i]))
		case optIs(a, "bcast"):
			ts.bcast = true
		case optIs(a, "optin"):
			ts.optin = true
		case optIs(a, "optout"):
			ts.optout = true
		case optIs(a, "noloop"):
			ts.noloop = true
		default:
			c.errReply(errSyntax)
			return
		}
	}
	if !on {
		c.srv.trackingOff(cl)
		c.ok()
		return
	}
	switch {
	case len(ts.prefixes) > 0 && !ts.bcast:
		c.errReply("ERR PREFIX option requires BCAST mode to be enabled")
		return
	case ts.optin && ts.optout:
		c.errReply("ERR You can't specify both OPTIN mode and OPTOUT mode")
		return
	case (ts.optin || ts.optout) && ts.bcast:
		c.errReply("ERR OPTIN and OPTOUT are not compatible with BCAST")
		return
	}
	if old := cl.track; old != nil {
		if old.bcast != ts.bcast {
			c.errReply("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.")
			return
		}
		if old.optin != ts.optin || old.optout != ts.optout {
			c.errReply("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.")
			return
		}
	}
	for i, p := range ts.prefixes {
		for j, q := range ts.prefixes {
			if i != j && len(p) <= len(q) && q[:len(p)] == p {
				c.errReply("ERR Prefix '" + p + "' overlaps with another provided prefix '" + q + "'. Prefixes for a single client must not overlap.")
				return
			}
		}
	}
	c.srv.trackingOn(cl, ts)
	c.ok()
}

// trackingOn starts tracking for cl (or changes its options).
func (s *Server) trackingOn(cl *client, ts trackState) {
	t := &s.tracking
	t.mu.Lock()
	if cl.track == nil {
		t.n.Add(1)
		if ts.bcast {
			t.bcast = append(t.bcast, cl)
		}
		cl.track = &ts
	} else {
		old := cl.track
		old.redirect, old.noloop = ts.redirect, ts.noloop
		old.prefixes = append(old.prefixes, ts.prefixes...)
	}
	t.mu.Unlock()
	cl.publishRedirect()
}

// trackingOff stops tracking for cl; its keys are dropped lazily (an
// invalidation for a client that no longer tracks is not sent).
func (s *Server) trackingOff(cl *client) {
	if cl.track == nil {
		return
	}
	t := &s.tracking
	t.mu.Lock()
	for i, b := range t.bcast {
		if b == cl {
			t.bcast = append(t.bcast[:i], t.bcast[i+1:]...)
			break
		}
	}
	for k, set := range t.keys {
		if _, ok := set[cl]; ok {
			delete(set, cl)
			if len(set) == 0 {
				delete(t.keys, k)
			}
		}
	}
	cl.track = nil
	t.n.Add(-1)
	t.mu.Unlock()
	cl.publishRedirect()
}

func (cl *client) publishRedirect() {
	if cl.conn == nil {
		return
	}
	r := int64(-1)
	if cl.track != nil {
		r = int64(cl.track.redirect)
	}
	cl.conn.shared.redirect.Store(r)
}

func cmdClientCaching(c *cmdCtx) {
	ts := c.cl.track
	yes := optIs(c.args[2], "yes")
	if !yes && !optIs(c.args[2], "no") {
		c.errReply(errSyntax)
		return
	}
	switch {
	case ts == nil || (!ts.optin && !ts.optout):
		if ts != nil {
			if yes {
				c.errReply("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
			} else {
				c.errReply("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
			}
			return
		}
		c.errReply("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
		return
	case yes && !ts.optin:
		c.errReply("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
		return
	case !yes && !ts.optout:
		c.errReply("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
		return
	}
	ts.caching = 1
	if !yes {
		ts.caching = -1
	}
	c.ok()
}

func cmdClientGetredir(c *cmdCtx) {
	if c.cl.track == nil {
		c.integer(-1)
		return
	}
	c.integer(int64(c.cl.track.redirect))
}

func cmdClientTrackinginfo(c *cmdCtx) {
	ts := c.cl.track
	c.mapLen(3)
	c.bulkString("flags")
	if ts == nil {
		c.setLen(1)
		c.bulkString("off")
		c.bulkString("redirect")
		c.integer(-1)
		c.bulkString("prefixes")
		c.arrayLen(0)
		return
	}
	flags := []string{"on"}
	if ts.bcast {
		flags = append(flags, "bcast")
	}
	if ts.optin {
		flags = append(flags, "optin")
		if ts.caching == 1 {
			flags = append(flags, "caching-yes")
		}
	}
	if ts.optout {
		flags = append(flags, "optout")
		if ts.caching == -1 {
			flags = append(flags, "caching-no")
		}
	}
	if ts.noloop {
		flags = append(flags, "noloop")
	}
	if ts.redirect != 0 && c.srv.clients.get(ts.redirect) == nil {
		flags = append(flags, "broken_redirect")
	}
	c.setLen(len(flags))
	for _, f := range flags {
		c.bulkString(f)
	}
	c.bulkString("redirect")
	c.integer(int64(ts.redirect))
	c.bulkString("prefixes")
	c.arrayLen(len(ts.prefixes))
	for _, p := range ts.prefixes {
		c.bulkString(p)
	}
}

// trackRead remembers the keys a read-only command of a tracking client
// read, unless OPTIN without CACHING YES, or OPTOUT with CACHING NO.
// owning loop only.
func (s *Server) trackRead(c *cmdCtx, cmd *command) {
	ts := c.cl.track
	if ts.bcast || (ts.optin && ts.caching != 1) || (ts.optout && ts.caching == -1) {
		return
	}
	var buf [8]keyRef
	refs, ok := commandKeys(cmd, c.args, buf[:], keysPartial)
	if !ok || len(refs) == 0 {
		return
	}
	t := &s.tracking
	t.mu.Lock()
	if t.keys == nil {
		t.keys = make(map[string]map[*client]struct{})
	}
	for _, r := range refs {
		k := c.args[r.Pos]
		set := t.keys[string(k)]
		if set == nil {
			set = make(map[*client]struct{}, 1)
			t.keys[string(k)] = set
		}
		set[c.cl] = struct{}{}
	}
	var over []string
	if max := t.maxKeys.Load(); max > 0 {
		for k := range t.keys {
			if int64(len(t.keys)-len(over)) <= max {
				break
			}
			over = append(over, k)
		}
	}
	t.mu.Unlock()
	for _, k := range over {
		s.invalidateKey(nil, []byte(k))
	}
}

// trackWrite sends the invalidations of the keys cmd wrote. A write
// without key specs (FLUSHDB, FLUSHALL, SWAPDB) invalidates everything.
// The clients that read a key get one invalidation per key; a BCAST client
// gets one per prefix of its own with every key the command wrote under it
// (Redis collects those for the event loop's round, in beforeSleep).
func (s *Server) trackWrite(c *cmdCtx, cmd *command) {
	if len(cmd.Keys) == 0 {
		s.invalidateAll(c)
		return
	}
	var buf [8]keyRef
	refs, ok := commandKeys(cmd, c.args, buf[:], keysPartial)
	if !ok {
		return
	}
	var kbuf [8][]byte
	keys := kbuf[:0]
	for _, r := range refs {
		if r.Flags&keyRO != 0 && r.Flags&(keyRW|keyOW|keyRM) == 0 {
			continue
		}
		s.invalidateKey(c, c.args[r.Pos])
		keys = append(keys, c.args[r.Pos])
	}
	if len(keys) > 0 {
		s.broadcastKeys(c, keys)
	}
}

// invalidateKey tells the clients that read key that it changed and
// forgets it. c is the writer (nil for the table's own evictions), skipped
// by NOLOOP clients.
func (s *Server) invalidateKey(c *cmdCtx, key []byte) {
	t := &s.tracking
	var targets []trackTarget
	t.mu.Lock()
	for cl := range t.keys[string(key)] {
		ts := cl.track
		if ts == nil || (c != nil && ts.noloop && cl == c.cl) {
			continue
		}
		targets = append(targets, trackTarget{cl.conn, ts.redirect})
	}
	delete(t.keys, string(key))
	t.mu.Unlock()
	one := [1][]byte{key}
	for _, tg := range targets {
		s.sendInvalidation(c, tg, one[:])
	}
}

// broadcastKeys sends each BCAST client, for each of its prefixes in
// order (none: the empty prefix), the keys written under it, but not to
// a NOLOOP client that wrote them.
func (s *Server) broadcastKeys(c *cmdCtx, keys [][]byte) {
	t := &s.tracking
	type batch struct {
		tg   trackTarget
		keys [][]byte
	}
	var out []batch
	t.mu.Lock()
	for _, b := range t.bcast {
		ts := b.track
		if ts == nil || (ts.noloop && b == c.cl) {
			continue
		}
		prefixes := ts.prefixes
		if len(prefixes) == 0 {
			prefixes = []string{""}
		}
		for _, p := range sortedPrefixes(prefixes) {
			var match [][]byte
			for _, k := range keys {
				if bytes.HasPrefix(k, []byte(p)) {
					match = append(match, k)
				}
			}
			if len(match) > 0 {
				out = append(out, batch{trackTarget{b.conn, ts.redirect}, match})
			}
		}
	}
	t.mu.Unlock()
	for _, bt := range out {
		s.sendInvalidation(c, bt.tg, bt.keys)
	}
}

// sortedPrefixes returns prefixes in Redis's prefix-table (byte) order.
func sortedPrefixes(prefixes []string) []string {
	if slices.IsSorted(prefixes) {
		return prefixes
	}
	return slices.Sorted(slices.Values(prefixes))
}

type trackTarget struct {
	cs       *connState
	redirect uint64
}

// invalidateAll sends a null invalidation (every key) to every tracking
// client and empties the table.
func (s *Server) invalidateAll(c *cmdCtx) {
	t := &s.tracking
	seen := map[*client]bool{}
	var targets []trackTarget
	t.mu.Lock()
	add := func(cl *client) {
		if cl.track != nil && !seen[cl] && !(cl.track.noloop && c != nil && cl == c.cl) {
			seen[cl] = true
			targets = append(targets, trackTarget{cl.conn, cl.track.redirect})
		}
	}
	for _, set := range t.keys {
		for cl := range set {
			add(cl)
		}
	}
	for _, b := range t.bcast {
		add(b)
	}
	t.keys = nil
	t.mu.Unlock()
	for _, tg := range targets {
		s.sendInvalidation(c, tg, nil)
	}
}

// sendInvalidation posts one invalidation of keys (nil: all keys) to the
// tracking client, or to the client it redirects to. The writer's own
// invalidation follows its reply, as in Redis.
func (s *Server) sendInvalidation(c *cmdCtx, tg trackTarget, keys [][]byte) {
	cs := tg.cs
	if tg.redirect != 0 {
		cs = s.clients.get(tg.redirect)
	}
	if cs == nil {
		return // an in-process client, or a redirect to a client gone
	}
	proto := int(cs.shared.proto.Load())
	var now int64
	if c != nil {
		now = c.now
	}
	var buf [128]byte
	b := buf[:0]
	if proto == 3 {
		b = resp.AppendPushLen(b, 2, 3)
		b = resp.AppendBulkString(b, "invalidate")
	} else {
		b = resp.AppendArrayLen(b, 3)
		b = resp.AppendBulkString(b, "message")
		b = resp.AppendBulkString(b, invalidateChannel)
	}
	if keys == nil {
		b = resp.AppendNullArray(b, proto)
	} else {
		b = resp.AppendArrayLen(b, len(keys))
		for _, k := range keys {
			b = resp.AppendBulk(b, k)
		}
	}
	if c != nil && c.cl.conn == cs {
		p := c.pushOut() // reply_mode.go
		*p = append(*p, b...)
		return
	}
	s.post(cs, s.cfg.pubsubLimit(), now, b)
}

// endTrackingCommand clears CLIENT CACHING after the command that followed
// it (after EXEC for a transaction), as Redis does.
func (cl *client) endTrackingCommand(cmd *command) {
	if cl.track == nil || cl.track.caching == 0 || cl.execing || cl.multi != nil {
		return
	}
	if cmd.full == "client|caching" {
		return
	}
	cl.track.caching = 0
}

var trackingSettings = []configParam{
	{Setting: config.Setting{Name: "tracking-table-max-keys", Default: "1000000",
		Type: config.Int{Max: math.MaxInt64, Unsigned: true},
		Help: "keys the client-tracking table remembers; 0 is no limit"},
		get:   func(s *Server) string { return strconv.FormatInt(s.tracking.maxKeys.Load(), 10) },
		apply: func(s *Server, v config.Value) { s.tracking.maxKeys.Store(v.N) }},
}

func init() { registerSettings(trackingSettings...) }
