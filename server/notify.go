package server

import (
	"bytes"
	"github.com/loopkv/loopkv/config"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/loopkv/loopkv/store"
)

// Keyspace notifications (Redis notify.c) and the change count (Redis's
// server.dirty).
//
// Every handler calls c.notify for every change it makes, as Redis's
// commands call notifyKeyspaceEvent: the class of the event (its flag
// letter in notify-keyspace-events), the event's name and the key. notify
// counts the change in c.dirty and, when the class is enabled, publishes
// the event through the pub/sub table (pubsub.go) to
// __keyspace@<db>__:<key> (message: the event) and
// __keyevent@<db>__:<event> (message: the key), as Redis does.
//
// The keys the store removes by itself while a command runs (lazy expiry,
// eviction before the command) are recorded in the journal of the loop's
// store view (store.Journal): notify publishes their "expired" and
// "evicted" events first, so that they come before the command's own
// events as in Redis, and endCommand publishes what is left once the
// command has run. Active expiry and eviction outside commands record into
// the background journal (s.bg) and are published by the goroutine that
// ran them. With notify-keyspace-events empty, notify costs one atomic
// load and a branch beyond the count.

// notifyClass is a set of event classes, Redis's NOTIFY_* bits.
type notifyClass uint32

const (
	notifyKeyspace notifyClass = 1 << iota // K: __keyspace@<db>__ channels
	notifyKeyevent                         // E: __keyevent@<db>__ channels
	notifyGeneric                          // g: DEL, EXPIRE, RENAME, ...
	notifyString                           // $
	notifyList                             // l
	notifySet                              // s
	notifyHash                             // h
	notifyZSet                             // z
	notifyExpired                          // x
	notifyEvicted                          // e
	notifyStream                           // t
	notifyKeyMiss                          // m (not in A)
	notifyLoaded                           // module key loaded (no letter)
	notifyModule                           // d
	notifyNew                              // n (not in A)

	// notifyAll is the 'A' alias.
	notifyAll = notifyGeneric | notifyString | notifyList | notifySet | notifyHash | notifyZSet |
		notifyExpired | notifyEvicted | notifyStream | notifyModule
)

// notifyLetters maps the letters of notify-keyspace-events to classes, in
// the order Redis prints them (keyspaceEventsFlagsToString).
var notifyLetters = []struct {
	c byte
	f notifyClass
}{
	{'g', notifyGeneric}, {'$', notifyString}, {'l', notifyList}, {'s', notifySet}, {'h', notifyHash},
	{'z', notifyZSet}, {'x', notifyExpired}, {'e', notifyEvicted}, {'t', notifyStream},
	{'d', notifyModule}, {'n', notifyNew}, {'K', notifyKeyspace}, {'E', notifyKeyevent}, {'m', notifyKeyMiss},
}

// parseNotifyFlags parses a notify-keyspace-events value; ok is false for
// a letter Redis does not know.
func parseNotifyFlags(v string) (notifyClass, bool) {
	var f notifyClass
	for i := 0; i < len(v); i++ {
		if v[i] == 'A' {
			f |= notifyAll
			continue
		}
		found := false
		for _, l := range notifyLetters {
			if l.c == v[i] {
				f |= l.f
				found = true
				break
			}
		}
		if !found {
			return 0, false
		}
	}
	return f, true
}

// notifyFlagsString prints f as CONFIG GET does (Redis's
// keyspaceEventsFlagsToString): A stands for every class of notifyAll and
// then hides n too, though n stays set.
func notifyFlagsString(f notifyClass) string {
	var b []byte
	all := f&notifyAll == notifyAll
	if all {
		b = append(b, 'A')
	}
	for _, l := range notifyLetters {
		channel := l.f&(notifyKeyspace|notifyKeyevent|notifyKeyMiss) != 0
		if f&l.f != 0 && (!all || channel) {
			b = append(b, l.c)
		}
	}
	return string(b)
}

// notifyConfig is notify-keyspace-events, read by every loop.
type notifyConfig struct {
	flags atomic.Uint32 // a notifyClass
}

func (n *notifyConfig) load() notifyClass { return notifyClass(n.flags.Load()) }

// CheckNotifyKeyspaceEvents returns Redis's reason when v is not a valid
// notify-keyspace-events value, "" when it is.
func CheckNotifyKeyspaceEvents(v string) string {
	if _, ok := parseNotifyFlags(v); !ok {
		return errNotifyLetters
	}
	return ""
}

const errNotifyLetters = "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."

// setNotifyFlags is CONFIG SET notify-keyspace-events.
func setNotifyFlags(s *Server, v string) string {
	f, ok := parseNotifyFlags(v)
	if !ok {
		return errNotifyLetters
	}
	s.notifyCfg.flags.Store(uint32(f))
	return ""
}

// notifyEventsType is notify-keyspace-events' type: Redis's letters, quoted
// when rewritten.
type notifyEventsType struct{}

// Parse accepts the letters parseNotifyFlags knows.
func (notifyEventsType) Parse(v string) (config.Value, string) {
	if msg := CheckNotifyKeyspaceEvents(v); msg != "" {
		return config.Value{}, msg
	}
	return config.Value{S: v}, ""
}

// notifySettings is notify-keyspace-events.
var notifySettings = []configParam{
	{Setting: config.Setting{Name: "notify-keyspace-events", Default: "", Type: notifyEventsType{},
		Help: "keyspace events published: letters of K E g $ l s h z x e t m d n A; empty for none"},
		get: func(s *Server) string { return notifyFlagsString(s.notifyCfg.load()) },
		set: setNotifyFlags,
		opt: func(o *Options, v config.Value) string { o.NotifyKeyspaceEvents = v.S; return "" }},
}

func init() { registerSettings(notifySettings...) }

// loopJournal is one loop's store view, the journal that view records
// into, and the loop's scratch for channel names. owning loop only.
type loopJournal struct {
	j     store.Journal
	store *store.Store // s.store.WithJournal(&j); nil until the loop's first command
	done  int          // entries of j already published
	mark  int          // entries of j before the running command (markJournal)
	buf   []byte       // channel names of the event being published
	enc   [2][]byte    // the message of a publish, RESP2 and RESP3 (pubsub.go)
}

// encScratch returns the buffers publish encodes a message into: the
// loop's, or new ones for a client without a loop.
func (c *cmdCtx) encScratch() (b2, b3 []byte) {
	if c.jl == nil {
		return make([]byte, 0, 256), make([]byte, 0, 256)
	}
	if c.jl.enc[0] == nil {
		c.jl.enc = [2][]byte{make([]byte, 0, 256), make([]byte, 0, 256)}
	}
	return c.jl.enc[0][:0], c.jl.enc[1][:0]
}

// keepEncScratch keeps the buffers publish used, grown, for the next one.
func (c *cmdCtx) keepEncScratch(b2, b3 []byte) {
	if c.jl != nil && cap(b2) <= journalScratchKeep && cap(b3) <= journalScratchKeep {
		c.jl.enc = [2][]byte{b2[:0], b3[:0]}
	}
}

// journalScratchKeep bounds the scratch a loop keeps between publishes.
const journalScratchKeep = 64 << 10

// loopStore returns the store view and journal cl's commands run on: its
// loop's, or the plain store (no journal) for a client without a loop.
func (s *Server) loopStore(cl *client) (*store.Store, *loopJournal) {
	if cl.conn == nil || cl.conn.ls == nil {
		return s.store, nil
	}
	lj := &cl.conn.ls.journal
	if lj.store == nil {
		lj.store = s.store.WithJournal(&lj.j)
		lj.j.OnRecord(s.onJournalRecord) // an evicted key's watchers, under its shard's lock
	}
	f := s.notifyCfg.load()
	on := f&(notifyKeyspace|notifyKeyevent) != 0
	lj.j.TrackNew(on && f&notifyNew != 0)
	lj.j.TrackDeleted(true) // for emptied: "del" events and the change count
	lj.j.TrackMisses(on && f&notifyKeyMiss != 0)
	return lj.store, lj
}

// notify records one change of key made by the running command, and
// publishes its event when class is enabled: Redis's
// notifyKeyspaceEvent, with the server.dirty++ that goes with it.
func (c *cmdCtx) notify(class notifyClass, event string, key []byte) {
	c.dirty++
	c.publishEvent(class, event, key)
}

// notifyN is notify for a change that counts n times in the change count
// (Redis's server.dirty += n: SADD of three new members counts three).
func (c *cmdCtx) notifyN(class notifyClass, event string, key []byte, n int) {
	c.dirty += int64(n)
	c.publishEvent(class, event, key)
}

// addDirty counts n changes that publish no event (FLUSHALL, SWAPDB).
func (c *cmdCtx) addDirty(n int) { c.dirty += int64(n) }

// publishEvent publishes one event of the running command in c's
// database, after the journal's events still unpublished.
func (c *cmdCtx) publishEvent(class notifyClass, event string, key []byte) {
	c.publishIn(c.db(), class, event, key)
}

// publishIn is publishEvent for a key of database db (COPY ... DB, MOVE).
func (c *cmdCtx) publishIn(db int, class notifyClass, event string, key []byte) {
	flags := c.srv.notifyCfg.load()
	if flags&class == 0 || flags&(notifyKeyspace|notifyKeyevent) == 0 {
		return
	}
	c.publishJournal(flags, 0, nil)
	c.srv.publishKeyEvent(c, flags, db, event, key)
}

// publishJournal publishes the events of the journal's entries not yet
// published, before an event on key of db: up to the creation of another
// key, whose "new" belongs with that key's own event (MSET creates every
// key before the first set event, where Redis interleaves new and set).
// A nil key publishes them all.
func (c *cmdCtx) publishJournal(flags notifyClass, db int, key []byte) {
	lj := c.jl
	if lj == nil {
		return
	}
	for ; lj.done < lj.j.Entries(); lj.done++ {
		edb, ekey, kind := lj.j.Entry(lj.done)
		if key != nil && kind == store.JournalNew && (edb != db || !bytes.Equal(ekey, key)) {
			return
		}
		c.srv.publishJournaled(c, flags, edb, ekey, kind)
	}
}

// endCommand runs after every command a client sent: it publishes the
// events of the keys the store removed by itself that no notify has
// published yet, empties the journal and moves the command's changes to
// the batch's count (endBatch adds it to s.dirty). Propagation of the journal's deletions (helper "prop") reads the
// journal before this.
func (c *cmdCtx) endCommand() {
	if lj := c.jl; lj != nil && lj.j.Entries() > 0 {
		if flags := c.srv.notifyCfg.load(); flags&(notifyKeyspace|notifyKeyevent) != 0 {
			c.publishJournal(flags, 0, nil)
		}
		lj.j.Reset()
		lj.done, lj.mark = 0, 0
	}
	c.batchDirty += c.dirty
	c.dirty = 0
}

// endBatch adds the batch's changes to s.dirty: one atomic add per batch,
// not per command, on the counter every loop shares.
func (c *cmdCtx) endBatch() {
	if c.batchDirty != 0 {
		c.srv.dirty.Add(c.batchDirty)
		c.batchDirty = 0
	}
}

// publishJournaled publishes the event of one journal entry.
func (s *Server) publishJournaled(c *cmdCtx, flags notifyClass, db int, key []byte, kind store.JournalKind) {
	class, event := notifyExpired, "expired"
	switch kind {
	case store.JournalDeleted:
		return // the handler's own del event (emptied)
	case store.JournalEvicted:
		class, event = notifyEvicted, "evicted"
	case store.JournalNew:
		class, event = notifyNew, "new"
	case store.JournalMiss:
		class, event = notifyKeyMiss, "keymiss"
	}
	if flags&class != 0 {
		s.publishKeyEvent(c, flags, db, event, key)
	}
}

// publishKeyEvent publishes event on key of db to the keyspace and keyevent
// channels that flags enables, in Redis's order. The channel names are
// built in the loop's scratch (or a stack buffer for a client without a
// loop).
func (s *Server) publishKeyEvent(c *cmdCtx, flags notifyClass, db int, event string, key []byte) {
	var buf []byte
	if c.jl != nil {
		buf = c.jl.buf[:0]
	}
	if flags&notifyKeyspace != 0 {
		buf = appendEventChannel(buf, "__keyspace@", db, key)
		s.publish(c, false, buf, eventBytes(event))
	}
	if flags&notifyKeyevent != 0 {
		buf = appendEventChannel(buf[:0], "__keyevent@", db, eventBytes(event))
		s.publish(c, false, buf, key)
	}
	if c.jl != nil && cap(buf) <= journalScratchKeep {
		c.jl.buf = buf
	}
}

// eventBytes views an event name as bytes, read only.
func eventBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// appendEventChannel appends prefix, db, "__:" and name.
func appendEventChannel(b []byte, prefix string, db int, name []byte) []byte {
	b = append(b, prefix...)
	b = strconv.AppendInt(b, int64(db), 10)
	b = append(b, "__:"...)
	return append(b, name...)
}

// bgJournal is the journal of the store operations that run outside
// commands: the ticker's active expiry and the eviction that lowering
// maxmemory starts. Its events are published by the goroutine that ran
// them, as Redis's cron publishes them.
type bgJournal struct {
	mu   sync.Mutex
	j    store.Journal
	view *store.Store
	lj   loopJournal // scratch for publishing; its journal is unused
	c    cmdCtx      // the context events are published in
}

// onJournalRecord runs as a journal records a key the store removed or
// created, under the key's shard lock: an evicted key's watchers are
// dirty (multi.go), before any EXEC can lock the key after the eviction.
func (s *Server) onJournalRecord(db int, key []byte, kind store.JournalKind) {
	if kind == store.JournalEvicted {
		s.touchEvicted(db, key)
	}
}

// inBackground runs fn on the background store view, publishing the
// events of the keys its operations remove as they go (OnRecord), then
// propagates their deletions. now is Unix ms. Calls serialise.
func (s *Server) inBackground(now int64, fn func(st *store.Store)) {
	if s.store == nil {
		return
	}
	bg := &s.bg
	bg.mu.Lock()
	defer bg.mu.Unlock()
	if bg.view == nil {
		bg.view = s.store.WithJournal(&bg.j)
		bg.c = cmdCtx{srv: s, jl: &bg.lj}
		// published as each key goes, under its shard's lock: before a
		// loop can create the key again
		bg.j.OnRecord(func(db int, key []byte, kind store.JournalKind) {
			s.onJournalRecord(db, key, kind)
			if flags := s.notifyCfg.load(); flags&(notifyKeyspace|notifyKeyevent) != 0 {
				s.publishJournaled(&bg.c, flags, db, key, kind)
			}
		})
	}
	bg.c.now = now
	fn(bg.view)
	if bg.j.Len() == 0 {
		return
	}
	s.propagateBackground(&bg.j, now) // propagate.go
	bg.j.Reset()
}

// notifySet publishes SET's events: set, and expire when o gave a TTL.
func (c *cmdCtx) notifySet(o store.SetOptions) {
	c.notify(notifyString, "set", c.args[1])
	if o.ExpireAt != 0 {
		c.publishEvent(notifyGeneric, "expire", c.args[1])
	}
}

// notifyPairs publishes event for each key of key-value arguments (MSET),
// each after its own "new" (the store created them all at once).
func (c *cmdCtx) notifyPairs(class notifyClass, event string) {
	flags := c.srv.notifyCfg.load()
	for i := 1; i+1 < len(c.args); i += 2 {
		c.dirty++
		if flags&class != 0 && flags&(notifyKeyspace|notifyKeyevent) != 0 {
			c.publishJournal(flags, c.db(), c.args[i])
			c.srv.publishKeyEvent(c, flags, c.db(), event, c.args[i])
		}
	}
}

// notifyOn reports whether events of class are published.
func (s *Server) notifyOn(class notifyClass) bool {
	f := s.notifyCfg.load()
	return f&class != 0 && f&(notifyKeyspace|notifyKeyevent) != 0
}

// notifyExpire publishes what EXPIRE did to key given the new expiry at:
// "del" when at had passed (the key is gone), "expire" otherwise.
func (c *cmdCtx) notifyExpire(at int64, key []byte) {
	if at <= c.now {
		c.notify(notifyGeneric, "del", key)
		return
	}
	c.notify(notifyGeneric, "expire", key)
}

// notifyRename publishes RENAME's rename_from and rename_to, unless the
// source and destination are one key (Redis replies without a change).
func (c *cmdCtx) notifyRename() {
	if bytes.Equal(c.args[1], c.args[2]) {
		return
	}
	c.notify(notifyGeneric, "rename_from", c.args[1])
	c.publishEvent(notifyGeneric, "rename_to", c.args[2])
}

// delKeys deletes keys as DEL and UNLINK do and returns how many existed,
// counting each and publishing its "del" (under the keys' locks: the
// events name exactly the keys that existed).
func (c *cmdCtx) delKeys(keys [][]byte) int {
	if !c.srv.notifyOn(notifyGeneric) {
		n := c.store.DelKeys(c.db(), keys, c.now)
		c.addDirty(n)
		return n
	}
	return c.store.DelKeysFunc(c.db(), keys, c.now, func(k []byte) { c.notify(notifyGeneric, "del", k) })
}

// flushAllCount is the number of keys FLUSHALL removes, for the change
// count (Redis's emptyData result).
func (c *cmdCtx) flushAllCount() int {
	n := 0
	for db := range c.store.Databases() {
		n += c.store.DBSize(db)
	}
	return n
}

// emptied reports whether the running command's last store operation
// deleted key of db (a pop or removal that took the last element), as the
// journal records it while generic events are on; the handler then
// publishes "del". Without a journal (a client without a loop) it reports
// false.
func (c *cmdCtx) emptied(db int, key []byte) bool {
	lj := c.jl
	if lj == nil {
		return false
	}
	for i := lj.j.Entries() - 1; i >= max(lj.done, lj.mark); i-- {
		if edb, ekey, kind := lj.j.Entry(i); kind == store.JournalDeleted && edb == db && bytes.Equal(ekey, key) {
			return true
		}
	}
	return false
}

// notifyRemoved is notifyN for an operation that removed elements of key
// (HDEL, SREM, LPOP ...): its event, then "del" when it took the last one.
func (c *cmdCtx) notifyRemoved(class notifyClass, event string, key []byte, n int) {
	gone := c.emptied(c.db(), key) // before notifyN publishes the journal
	c.notifyN(class, event, key, n)
	if gone {
		c.publishEvent(notifyGeneric, "del", key)
	}
}

// notifyStore publishes what a STORE command (SINTERSTORE, ZUNIONSTORE,
// SORT ... STORE) did to dst: event when it stored n > 0 elements, "del"
// when the empty result deleted an existing dst, nothing otherwise.
func (c *cmdCtx) notifyStore(class notifyClass, event string, dst []byte, n int) {
	switch {
	case n > 0:
		c.notify(class, event, dst)
	case c.emptied(c.db(), dst):
		c.notify(notifyGeneric, "del", dst)
	}
}

// notifySMove publishes SMOVE's events, as Redis orders them: srem on the
// source (and del when emptied), then the destination's new and sadd.
func (c *cmdCtx) notifySMove() {
	src, dst := c.args[1], c.args[2]
	if bytes.Equal(src, dst) {
		return // Redis answers without a change
	}
	gone := c.emptied(c.db(), src)
	flags := c.srv.notifyCfg.load()
	c.dirty += 2
	if flags&(notifyKeyspace|notifyKeyevent) == 0 {
		return
	}
	c.publishJournal(flags, c.db(), src) // up to dst's "new"
	if flags&notifySet != 0 {
		c.srv.publishKeyEvent(c, flags, c.db(), "srem", src)
	}
	if gone {
		c.publishEvent(notifyGeneric, "del", src)
	}
	c.publishEvent(notifySet, "sadd", dst)
}

// listEvent names the event of a list operation at end e.
func listEvent(e store.ListEnd, head, tail string) string {
	if e == store.ListHead {
		return head
	}
	return tail
}

// notifyPopIn is notifyRemoved for a pop from key of database db (LMPOP,
// and the blocking pops, whose waiter may sit in another database) that
// counts n changes.
func (c *cmdCtx) notifyPopIn(db int, class notifyClass, event string, key []byte, n int) {
	c.poppedIn(db, class, event, key, c.emptied(db, key), n)
}

// poppedIn is notifyPopIn once emptied has been read (before any publish).
func (c *cmdCtx) poppedIn(db int, class notifyClass, event string, key []byte, gone bool, n int) {
	c.dirty += int64(n)
	c.publishIn(db, class, event, key)
	if gone {
		c.publishIn(db, notifyGeneric, "del", key)
	}
}

// notifyLMove publishes LMOVE's events as Redis orders them: the push on
// dst (after its "new"), then the pop on src, and "del" when src emptied;
// it counts n changes.
func (c *cmdCtx) notifyLMove(db int, src, dst []byte, from, to store.ListEnd, n int) {
	gone := c.emptied(db, src)
	c.publishIn(db, notifyList, listEvent(to, "lpush", "rpush"), dst)
	c.poppedIn(db, notifyList, listEvent(from, "lpop", "rpop"), src, gone, n)
}

// notifyTrim publishes LTRIM's ltrim (when the list existed, with before
// elements) and del (when it emptied the list), counting the elements
// removed.
func (c *cmdCtx) notifyTrim(before int) {
	key := c.args[1]
	if before == 0 {
		return
	}
	gone := c.emptied(c.db(), key)
	c.notifyN(notifyList, "ltrim", key, before-c.store.QuietListLen(c.db(), key, c.now))
	if gone {
		c.publishEvent(notifyGeneric, "del", key)
	}
}

// popReplyKey returns the key of an LMPOP or ZMPOP reply, which starts
// with a 2-element array header and the key's bulk string.
func popReplyKey(reply []byte) []byte {
	key, _ := splitPopReply(reply)
	return key
}

// popReplyCount returns the number of elements of an LMPOP or ZMPOP
// reply: the length of the array after the key.
func popReplyCount(reply []byte) int {
	_, rest := splitPopReply(reply)
	return arrayHeaderLen(rest)
}

// arrayHeaderLen returns N of a reply that starts with "*N\r\n", 0 for
// anything else.
func arrayHeaderLen(reply []byte) int {
	j := bytes.IndexByte(reply, '\r')
	if j < 2 || (reply[0] != '*' && reply[0] != '~') {
		return 0
	}
	n, _ := store.ParseInt(reply[1:j])
	return int(max(n, 0))
}

// splitPopReply splits an LMPOP or ZMPOP reply into its key and what
// follows the key.
func splitPopReply(reply []byte) (key, rest []byte) {
	i := bytes.IndexByte(reply, '\n') // the array header
	if i < 0 {
		return nil, nil
	}
	reply = reply[i+1:]
	j := bytes.IndexByte(reply, '\r')
	if j < 2 || reply[0] != '$' {
		return nil, nil
	}
	n, ok := store.ParseInt(reply[1:j])
	if !ok || n < 0 || int64(len(reply)) < int64(j)+4+n {
		return nil, nil
	}
	return reply[j+2 : j+2+int(n)], reply[j+4+int(n):]
}

// The sorted-set event names.

func zaddEvent(f store.ZAddFlags) string {
	if f&store.ZAddIncr != 0 {
		return "zincr"
	}
	return "zadd"
}

func zpopEvent(max bool) string {
	if max {
		return "zpopmax"
	}
	return "zpopmin"
}

func zremrangeEvent(by store.ZBy) string {
	switch by {
	case store.ZByRank:
		return "zremrangebyrank"
	case store.ZByScore:
		return "zremrangebyscore"
	}
	return "zremrangebylex"
}

func zstoreEvent(op store.ZSetOp) string {
	switch op {
	case store.ZUnion:
		return "zunionstore"
	case store.ZInter:
		return "zinterstore"
	}
	return "zdiffstore"
}

// zpopped reports whether a ZPOPMIN/ZPOPMAX reply holds a member: it is
// not an empty array.
func zpopped(reply []byte) bool {
	return len(reply) > 0 && !bytes.HasPrefix(reply[1:], []byte("0\r\n"))
}

// notifyServed publishes the events of a blocking pop's pop from key of db,
// whose reply is reply, in c (the blocked command itself, or the writer
// that served a waiter: later is true): as LMOVE for BLMOVE, else the pop
// and "del" when it emptied key. The change count is Redis 7.0's: the
// elements popped for BLMPOP and BZMPOP, one for the other pops, except
// that a served BLPOP, BRPOP or BLMOVE counts none.
func (c *cmdCtx) notifyServed(w *waiter, db int, key, reply []byte, later bool) {
	n := 1
	switch {
	case w.count > 0:
		n = popReplyCount(reply)
	case later && !w.zset:
		n = 0
	}
	switch {
	case w.dst != nil:
		c.notifyLMove(db, key, w.dst, w.end, w.to, n)
	case w.zset:
		c.notifyPopIn(db, notifyZSet, zpopEvent(w.end == store.ListTail), key, n)
	default:
		c.notifyPopIn(db, notifyList, listEvent(w.end, "lpop", "rpop"), key, n)
	}
}

// notifySortStore publishes SORT ... STORE's sortstore (counting each
// element stored, as Redis does) or del.
func (c *cmdCtx) notifySortStore(dst []byte, n int) {
	if n > 0 {
		c.notifyN(notifyList, "sortstore", dst, n)
		return
	}
	c.notifyStore(notifyList, "sortstore", dst, 0)
}

// markJournal notes where the running command's entries start, so that
// emptied never sees a deletion by an earlier command of a transaction.
func (c *cmdCtx) markJournal() {
	if c.jl != nil {
		c.jl.mark = c.jl.j.Entries()
	}
}
