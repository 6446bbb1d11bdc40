package server

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// Publish/subscribe (Redis pubsub.c). The server's table maps channels,
// patterns and shard channels to their subscribing clients. PUBLISH walks
// the channel's subscribers and the patterns (matched with store.Match,
// the keyspace's glob) and posts the message to each subscriber's outbox
// (outbox.go), encoded for the subscriber's protocol; the subscriber's own
// loop writes it, sealed when TLS. No goroutine runs per subscriber or
// message. A subscriber whose pending output passes
// client-output-buffer-limit pubsub is closed; the publisher never waits.
// A message a client publishes to itself goes straight into its replies,
// before PUBLISH's own reply, as in Redis.

// pubsubKind selects the channel namespace of a (un)subscribe.
type pubsubKind int

const (
	kindChannel pubsubKind = iota
	kindPattern
	kindShard
)

var pubsubVerbs = [3][2]string{
	{"subscribe", "unsubscribe"},
	{"psubscribe", "punsubscribe"},
	{"ssubscribe", "sunsubscribe"},
}

// subState is a client's subscriptions, in the order it made them; nil
// when it has none. owning loop only.
type subState struct {
	names [3][]string
}

func (ss *subState) count(k pubsubKind) int {
	if ss == nil {
		return 0
	}
	return len(ss.names[k])
}

// subscribed reports whether the client is in subscribed mode.
func (cl *client) subscribed() bool {
	return cl.sub != nil && len(cl.sub.names[0])+len(cl.sub.names[1])+len(cl.sub.names[2]) > 0
}

// pubsubTable is the server's subscribers by channel, pattern and shard
// channel.
type pubsubTable struct {
	mu       sync.RWMutex
	m        [3]map[string][]*client
	patterns atomic.Int64 // len(m[kindPattern]), for PUBLISH's fast path
}

// size returns the number of channels of kind k with subscribers.
func (t *pubsubTable) size(k pubsubKind) int64 {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return int64(len(t.m[k]))
}

// subAllowed reports whether cmd may run on a RESP2 subscribed connection.
func subAllowed(cmd *command) bool {
	switch cmd.full {
	case "subscribe", "unsubscribe", "psubscribe", "punsubscribe", "ssubscribe", "sunsubscribe",
		"ping", "quit", "reset":
		return true
	}
	return false
}

// subscribedError is Redis's refusal of other commands in RESP2 subscribed mode.
func subscribedError(cmd *command) string {
	return "ERR Can't execute '" + cmd.full +
		"': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
}

// appendSubReply appends a (un)subscribe confirmation.
func appendSubReply(b []byte, proto int, verb string, name []byte, null bool, n int) []byte {
	b = resp.AppendPushLen(b, 3, proto)
	b = resp.AppendBulkString(b, verb)
	if null {
		b = resp.AppendNull(b, proto)
	} else {
		b = resp.AppendBulk(b, name)
	}
	return resp.AppendInt(b, int64(n))
}

// pushSubReply appends a (un)subscribe confirmation to the running
// client's output: a push, sent even under CLIENT REPLY OFF (reply_mode.go).
func (c *cmdCtx) pushSubReply(verb string, name []byte, null bool, n int) {
	p := c.pushOut()
	*p = appendSubReply(*p, c.cl.proto, verb, name, null, n)
}

// appendMessage appends a message push: [message, channel, payload], with
// the pattern before the channel for a pmessage.
func appendMessage(b []byte, proto int, kind pubsubKind, pattern, channel, msg []byte) []byte {
	n := 3
	if kind == kindPattern {
		n = 4
	}
	b = resp.AppendPushLen(b, n, proto)
	switch kind {
	case kindChannel:
		b = resp.AppendBulkString(b, "message")
	case kindPattern:
		b = resp.AppendBulkString(b, "pmessage")
		b = resp.AppendBulk(b, pattern)
	case kindShard:
		b = resp.AppendBulkString(b, "smessage")
	}
	b = resp.AppendBulk(b, channel)
	return resp.AppendBulk(b, msg)
}

// subCount is the count a confirmation reports: channels and patterns
// together, shard channels apart.
func subCount(ss *subState, k pubsubKind) int {
	if k == kindShard {
		return ss.count(kindShard)
	}
	return ss.count(kindChannel) + ss.count(kindPattern)
}

func (s *Server) subscribe(c *cmdCtx, k pubsubKind) {
	cl := c.cl
	if cl.sub == nil {
		cl.sub = &subState{}
	}
	ss := cl.sub
	t := &s.pubsub
	for _, name := range c.args[1:] {
		if !slices.Contains(ss.names[k], string(name)) {
			n := string(name)
			ss.names[k] = append(ss.names[k], n)
			t.mu.Lock()
			if t.m[k] == nil {
				t.m[k] = make(map[string][]*client)
			}
			t.m[k][n] = append(t.m[k][n], cl)
			if k == kindPattern {
				t.patterns.Store(int64(len(t.m[k])))
			}
			t.mu.Unlock()
		}
		c.pushSubReply(pubsubVerbs[k][0], name, false, subCount(ss, k))
	}
	cl.publishSubCounts()
}

// unsubscribeName takes cl off name; it reports whether it was on it.
func (s *Server) unsubscribeName(cl *client, k pubsubKind, name string) bool {
	ss := cl.sub
	i := slices.Index(ss.names[k], name)
	if i < 0 {
		return false
	}
	ss.names[k] = slices.Delete(ss.names[k], i, i+1)
	t := &s.pubsub
	t.mu.Lock()
	subs := t.m[k][name]
	if j := slices.Index(subs, cl); j >= 0 {
		subs[j] = subs[len(subs)-1]
		subs[len(subs)-1] = nil
		subs = subs[:len(subs)-1]
	}
	if len(subs) == 0 {
		delete(t.m[k], name)
	} else {
		t.m[k][name] = subs
	}
	if k == kindPattern {
		t.patterns.Store(int64(len(t.m[k])))
	}
	t.mu.Unlock()
	return true
}

func (s *Server) unsubscribe(c *cmdCtx, k pubsubKind) {
	cl := c.cl
	if cl.sub == nil {
		cl.sub = &subState{}
	}
	ss := cl.sub
	verb := pubsubVerbs[k][1]
	if len(c.args) == 1 {
		if len(ss.names[k]) == 0 {
			c.pushSubReply(verb, nil, true, subCount(ss, k))
		}
		for len(ss.names[k]) > 0 {
			name := ss.names[k][0]
			s.unsubscribeName(cl, k, name)
			c.pushSubReply(verb, []byte(name), false, subCount(ss, k))
		}
	} else {
		for _, name := range c.args[1:] {
			s.unsubscribeName(cl, k, string(name))
			c.pushSubReply(verb, name, false, subCount(ss, k))
		}
	}
	cl.publishSubCounts()
}

// unsubscribeAll forgets every subscription of cl (RESET, disconnect).
func (s *Server) unsubscribeAll(cl *client) {
	ss := cl.sub
	if ss == nil {
		return
	}
	for k := range ss.names {
		for len(ss.names[k]) > 0 {
			s.unsubscribeName(cl, pubsubKind(k), ss.names[k][0])
		}
	}
	cl.sub = nil
	cl.publishSubCounts()
}

// publishSubCounts stores the subscription counts CLIENT LIST reads.
func (cl *client) publishSubCounts() {
	if cl.conn == nil {
		return
	}
	sh := &cl.conn.shared
	sh.subs[0].Store(int32(cl.sub.count(kindChannel)))
	sh.subs[1].Store(int32(cl.sub.count(kindPattern)))
	sh.subs[2].Store(int32(cl.sub.count(kindShard)))
}

// publish delivers msg on channel to its subscribers (and, for channels,
// the matching patterns' subscribers) and returns how many received it.
func (s *Server) publish(c *cmdCtx, shard bool, channel, msg []byte) int {
	t := &s.pubsub
	k := kindChannel
	if shard {
		k = kindShard
	}
	n := 0
	lim := s.cfg.pubsubLimit()
	buf2, buf3 := c.encScratch() // the message encoded once per protocol (notify.go)
	t.mu.RLock()
	if subs := t.m[k][string(channel)]; len(subs) > 0 {
		enc := msgEncoding{k: k, channel: channel, msg: msg, b: [2][]byte{buf2[:0], buf3[:0]}}
		for _, sub := range subs {
			s.deliver(c, sub, &enc, lim)
			n++
		}
		buf2, buf3 = enc.b[0][:0], enc.b[1][:0] // keep what the encoding grew
	}
	if !shard && t.patterns.Load() > 0 {
		for pat, subs := range t.m[kindPattern] {
			if !store.Match([]byte(pat), channel) {
				continue
			}
			enc := msgEncoding{k: kindPattern, pat: eventBytes(pat), channel: channel, msg: msg, b: [2][]byte{buf2[:0], buf3[:0]}}
			for _, sub := range subs {
				s.deliver(c, sub, &enc, lim)
				n++
			}
			buf2, buf3 = enc.b[0][:0], enc.b[1][:0]
		}
	}
	t.mu.RUnlock()
	c.keepEncScratch(buf2, buf3)
	return n
}

// msgEncoding is one message, encoded at most once per protocol.
type msgEncoding struct {
	k                 pubsubKind
	pat, channel, msg []byte
	b                 [2][]byte // RESP2, RESP3; nil-length until encoded
}

func (e *msgEncoding) bytes(proto int) []byte {
	i := proto - 2
	if len(e.b[i]) == 0 {
		e.b[i] = appendMessage(e.b[i][:0], proto, e.k, e.pat, e.channel, e.msg)
	}
	return e.b[i]
}

// deliver hands one message to sub: into the publisher's own replies when
// sub is the publisher, else into sub's outbox.
func (s *Server) deliver(c *cmdCtx, sub *client, e *msgEncoding, lim outboxLimit) {
	if sub == c.cl {
		p := c.pushOut() // reply_mode.go
		*p = append(*p, e.bytes(sub.proto)...)
		return
	}
	cs := sub.conn
	if cs == nil {
		return // an in-process client of a test
	}
	s.post(cs, lim, c.now, e.bytes(int(cs.shared.proto.Load())))
}

func cmdSubscribe(c *cmdCtx)    { c.srv.subscribe(c, kindChannel) }
func cmdPSubscribe(c *cmdCtx)   { c.srv.subscribe(c, kindPattern) }
func cmdSSubscribe(c *cmdCtx)   { c.srv.subscribe(c, kindShard) }
func cmdUnsubscribe(c *cmdCtx)  { c.srv.unsubscribe(c, kindChannel) }
func cmdPUnsubscribe(c *cmdCtx) { c.srv.unsubscribe(c, kindPattern) }
func cmdSUnsubscribe(c *cmdCtx) { c.srv.unsubscribe(c, kindShard) }

func cmdPublish(c *cmdCtx) {
	c.integer(int64(c.srv.publish(c, false, c.args[1], c.args[2])))
}

func cmdSPublish(c *cmdCtx) {
	c.integer(int64(c.srv.publish(c, true, c.args[1], c.args[2])))
}

// pubsubChannels is PUBSUB CHANNELS and SHARDCHANNELS [pattern].
func pubsubChannels(c *cmdCtx, k pubsubKind) {
	if len(c.args) > 3 {
		c.errReply(errSubcommandSyntax(clip(c.args[1]), "PUBSUB"))
		return
	}
	t := &c.srv.pubsub
	var names []string
	t.mu.RLock()
	for name := range t.m[k] {
		if len(c.args) < 3 || store.Match(c.args[2], []byte(name)) {
			names = append(names, name)
		}
	}
	t.mu.RUnlock()
	c.arrayLen(len(names))
	for _, n := range names {
		c.bulkString(n)
	}
}

// pubsubNumsub is PUBSUB NUMSUB and SHARDNUMSUB [channel ...].
func pubsubNumsub(c *cmdCtx, k pubsubKind) {
	t := &c.srv.pubsub
	c.mapLen(len(c.args) - 2)
	t.mu.RLock()
	for _, ch := range c.args[2:] {
		c.bulk(ch)
		c.integer(int64(len(t.m[k][string(ch)])))
	}
	t.mu.RUnlock()
}

func cmdPubsubChannels(c *cmdCtx)      { pubsubChannels(c, kindChannel) }
func cmdPubsubShardChannels(c *cmdCtx) { pubsubChannels(c, kindShard) }
func cmdPubsubNumsub(c *cmdCtx)        { pubsubNumsub(c, kindChannel) }
func cmdPubsubShardNumsub(c *cmdCtx)   { pubsubNumsub(c, kindShard) }
func cmdPubsubNumpat(c *cmdCtx)        { c.integer(c.srv.pubsub.patterns.Load()) }

var pubsubHelp = []string{
	"PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CHANNELS [<pattern>]",
	"    Return the currently active channels matching a <pattern> (default: '*').",
	"NUMPAT",
	"    Return number of subscriptions to patterns.",
	"NUMSUB [<channel> ...]",
	"    Return the number of subscribers for the specified channels, excluding",
	"    pattern subscriptions(default: no channels).",
	"SHARDCHANNELS [<pattern>]",
	"    Return the currently active shard level channels matching a <pattern> (default: '*').",
	"SHARDNUMSUB [<shardchannel> ...]",
	"    Return the number of subscribers for the specified shard level channel(s)",
	"HELP",
	"    Prints this help.",
}

var pubsubCommands = []command{
	{Name: "subscribe", Arity: -2, Flags: flagPubSub | flagNoScript | flagLoading | flagStale, ACL: 0,
		Doc: cmdDoc{Summary: "Listen for messages published to the given channels", Since: "2.0.0", Group: "pubsub",
			Complexity: "O(N) where N is the number of channels to subscribe to.",
			Args: []cmdArg{
				{Name: "channel", Type: argString, Flags: argMultiple},
			}},
		Fn: cmdSubscribe},
	{Name: "unsubscribe", Arity: -1, Flags: flagPubSub | flagNoScript | flagLoading | flagStale, ACL: 0,
		Doc: cmdDoc{Summary: "Stop listening for messages posted to the given channels", Since: "2.0.0", Group: "pubsub",
			Complexity: "O(N) where N is the number of clients already subscribed to a channel.",
			Args: []cmdArg{
				{Name: "channel", Type: argString, Flags: argOptional | argMultiple},
			}},
		Fn: cmdUnsubscribe},
	{Name: "psubscribe", Arity: -2, Flags: flagPubSub | flagNoScript | flagLoading | flagStale, ACL: 0,
		Doc: cmdDoc{Summary: "Listen for messages published to channels matching the given patterns", Since: "2.0.0", Group: "pubsub",
			Complexity: "O(N) where N is the number of patterns the client is already subscribed to.",
			Args: []cmdArg{
				{Name: "pattern", Type: argBlock, Flags: argMultiple, Args: []cmdArg{
					{Name: "pattern", Type: argPattern},
				}},
			}},
		Fn: cmdPSubscribe},
	{Name: "punsubscribe", Arity: -1, Flags: flagPubSub | flagNoScript | flagLoading | flagStale, ACL: 0,
		Doc: cmdDoc{Summary: "Stop listening for messages posted to channels matching the given patterns", Since: "2.0.0", Group: "pubsub",
			Complexity: "O(N+M) where N is the number of patterns the client is already subscribed and M is the number of total patterns subscribed in the system (by any client).",
			Args: []cmdArg{
				{Name: "pattern", Type: argPattern, Flags: argOptional | argMultiple},
			}},
		Fn: cmdPUnsubscribe},
	{Name: "publish", Arity: 3, Flags: flagPubSub | flagLoading | flagStale | flagFast, ACL: 0,
		Doc: cmdDoc{Summary: "Post a message to a channel", Since: "2.0.0", Group: "pubsub",
			Complexity: "O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total number of subscribed patterns (by any client).",
			Args: []cmdArg{
				{Name: "channel", Type: argString},
				{Name: "message", Type: argString},
			}},
		Fn: cmdPublish},
	{Name: "ssubscribe", Arity: -2, Flags: flagPubSub | flagNoScript | flagLoading | flagStale, ACL: 0,
		Keys: []keySpec{{Flags: keyNotKey, BS: bsIndex(1), FK: fkRange(-1, 1, 0)}},
		Doc: cmdDoc{Summary: "Listen for messages published to the given shard channels", Since: "7.0.0", Group: "pubsub",
			Complexity: "O(N) where N is the number of shard channels to subscribe to.",
			Args: []cmdArg{
				{Name: "shardchannel", Type: argString, Flags: argMultiple},
			}},
		Fn: cmdSSubscribe},
	{Name: "sunsubscribe", Arity: -1, Flags: flagPubSub | flagNoScript | flagLoading | flagStale, ACL: 0,
		Keys: []keySpec{{Flags: keyNotKey, BS: bsIndex(1), FK: fkRange(-1, 1, 0)}},
		Doc: cmdDoc{Summary: "Stop listening for messages posted to the given shard channels", Since: "7.0.0", Group: "pubsub",
			Complexity: "O(N) where N is the number of clients already subscribed to a shard channel.",
			Args: []cmdArg{
				{Name: "shardchannel", Type: argString, Flags: argOptional | argMultiple},
			}},
		Fn: cmdSUnsubscribe},
	{Name: "spublish", Arity: 3, Flags: flagPubSub | flagLoading | flagStale | flagFast, ACL: 0,
		Keys: []keySpec{{Flags: keyNotKey, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Post a message to a shard channel", Since: "7.0.0", Group: "pubsub",
			Complexity: "O(N) where N is the number of clients subscribed to the receiving shard channel.",
			Args: []cmdArg{
				{Name: "shardchannel", Type: argString},
				{Name: "message", Type: argString},
			}},
		Fn: cmdSPublish},
	{Name: "pubsub", Arity: -2,
		Doc: cmdDoc{Summary: "A container for Pub/Sub commands", Since: "2.8.0", Group: "pubsub",
			Complexity: "Depends on subcommand."},
		Subs: []command{
			{Name: "channels", Arity: -2, Flags: flagPubSub | flagLoading | flagStale, ACL: 0,
				Doc: cmdDoc{Summary: "List active channels", Since: "2.8.0", Group: "pubsub",
					Complexity: "O(N) where N is the number of active channels, and assuming constant time pattern matching (relatively short channels and patterns)",
					Args: []cmdArg{
						{Name: "pattern", Type: argPattern, Flags: argOptional},
					}},
				Fn: cmdPubsubChannels},
			{Name: "numsub", Arity: -2, Flags: flagPubSub | flagLoading | flagStale, ACL: 0,
				Doc: cmdDoc{Summary: "Get the count of subscribers for channels", Since: "2.8.0", Group: "pubsub",
					Complexity: "O(N) for the NUMSUB subcommand, where N is the number of requested channels",
					Args: []cmdArg{
						{Name: "channel", Type: argString, Flags: argOptional | argMultiple},
					}},
				Fn: cmdPubsubNumsub},
			{Name: "numpat", Arity: 2, Flags: flagPubSub | flagLoading | flagStale, ACL: 0,
				Doc: cmdDoc{Summary: "Get the count of unique patterns pattern subscriptions", Since: "2.8.0", Group: "pubsub",
					Complexity: "O(1)"},
				Fn: cmdPubsubNumpat},
			{Name: "shardchannels", Arity: -2, Flags: flagPubSub | flagLoading | flagStale, ACL: 0,
				Doc: cmdDoc{Summary: "List active shard channels", Since: "7.0.0", Group: "pubsub",
					Complexity: "O(N) where N is the number of active shard channels, and assuming constant time pattern matching (relatively short shard channels).",
					Args: []cmdArg{
						{Name: "pattern", Type: argPattern, Flags: argOptional},
					}},
				Fn: cmdPubsubShardChannels},
			{Name: "shardnumsub", Arity: -2, Flags: flagPubSub | flagLoading | flagStale, ACL: 0,
				Doc: cmdDoc{Summary: "Get the count of subscribers for shard channels", Since: "7.0.0", Group: "pubsub",
					Complexity: "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard channels",
					Args: []cmdArg{
						{Name: "shardchannel", Type: argString, Flags: argOptional | argMultiple},
					}},
				Fn: cmdPubsubShardNumsub},
			{Name: "help", Arity: 2, Flags: flagLoading | flagStale, ACL: 0,
				Doc: cmdDoc{Summary: "Show helpful text about the different subcommands", Since: "6.2.0", Group: "pubsub",
					Complexity: "O(1)"},
				Fn: func(c *cmdCtx) { helpReply(c, pubsubHelp) }},
		}},
}

func init() { register(pubsubCommands...) }
