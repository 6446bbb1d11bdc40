package server

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"math"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/loopkv/loopkv/config"
	"github.com/loopkv/loopkv/rdb"
	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// DEBUG (Redis debug.c), the subcommands client and tool test suites use:
// OBJECT, SLEEP, SET-ACTIVE-EXPIRE, RELOAD, DIGEST, DIGEST-VALUE, PROTOCOL,
// ERROR, LOG, CHANGE-REPL-ID and QUICKLIST-PACKED-THRESHOLD; the others answer
// Redis's unknown-subcommand error. DEBUG is refused before it runs
// (after the arity check, before authentication, as Redis's
// processCommand) unless enable-debug-command allows the client.
//
// Where loopkv differs from Redis, which runs DEBUG on its only thread:
//   - SLEEP parks only its client, on a timer; the loops go on serving the
//     others (Redis stops the whole server). Inside EXEC it answers +OK at
//     once: a loop never sleeps.
//   - RELOAD parks its client while a goroutine saves, flushes and loads;
//     from the flush to the end of the load the other clients get -LOADING
//     for commands without the loading flag, as during the start-up load,
//     and INFO says loading:1; a write that lands between the save and the
//     flush is not in the file and is lost. The flush breaks every WATCH (Redis
//     breaks those of keys that existed); the loaded keys serve no blocked
//     client, as in Redis; tracking clients get no invalidation. A key conflict of NOFLUSH
//     without MERGE answers "Error trying to load the RDB dump" (Redis
//     exits); a key another client writes between the flush and the load
//     is replaced by the file's. RELOAD is refused inside EXEC.
//   - OBJECT and DIGEST-VALUE look the key up as a read (a logically
//     expired key is deleted and reported missing; Redis's dictFind sees
//     it), then put its access time back; lru: is the key's LRU clock
//     computed from its idle time, and serializedlength is measured with
//     rdbcompression yes.
//   - QUICKLIST-PACKED-THRESHOLD is checked and answers +OK, with no effect:
//     loopkv's lists have no plain nodes.

// debugState is DEBUG's run-time state.
type debugState struct {
	noActiveExpire atomic.Bool // SET-ACTIVE-EXPIRE 0: the ticker skips the active expiry cycle
}

// errDebugNotAllowed is Redis's refusal of DEBUG (processCommand).
const errDebugNotAllowed = "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", " +
	"you can run it from a local connection, otherwise you need to set this option in the configuration file, " +
	"and then restart the server."

// debugModes are enable-debug-command's values.
var debugModes = config.Enum{"no", "yes", "local"}

func init() {
	registerSettings(fixed(config.Setting{Name: "enable-debug-command", Default: "no", Type: debugModes,
		Help: "allow DEBUG: no, yes or local (loopback and Unix socket clients only)"}))
}

// debugRefusal is the error that refuses cmd to cl before it runs, or "":
// DEBUG while enable-debug-command is no, or local and cl is not local.
// owning loop only.
func (s *Server) debugRefusal(cl *client) string {
	v, ok := s.opts.Config["enable-debug-command"]
	if !ok {
		return errDebugNotAllowed
	}
	mode, msg := debugModes.Parse(v)
	switch {
	case msg != "" || mode.S == "no":
		return errDebugNotAllowed
	case mode.S == "local" && !localClient(cl):
		return errDebugNotAllowed
	}
	return ""
}

// localClient is Redis's islocalClient: a Unix socket, or a TCP peer at
// 127.0.0.1 or ::1 exactly. A client without a connection (tests, the
// embedded API) is local.
func localClient(cl *client) bool {
	if cl.conn == nil || cl.conn.addr == "" {
		return true
	}
	host, _, err := net.SplitHostPort(cl.conn.addr)
	if err != nil { // a Unix socket's address has no port
		return true
	}
	return host == "127.0.0.1" || host == "::1"
}

// cmdDebug dispatches DEBUG's subcommands; a known name with the wrong
// number of arguments gets the unknown-subcommand error, as in Redis.
func cmdDebug(c *cmdCtx) {
	sub, n := c.args[1], len(c.args)
	is := func(name string) bool { return bytes.EqualFold(sub, []byte(name)) }
	switch {
	case is("help") && n == 2:
		helpReply(c, debugHelp)
	case is("object") && n == 3:
		debugObject(c)
	case is("sleep") && n == 3:
		debugSleep(c)
	case is("set-active-expire") && n == 3:
		c.srv.debug.noActiveExpire.Store(atoi(c.args[2]) == 0)
		c.ok()
	case is("reload"):
		debugReload(c)
	case is("digest") && n == 2:
		debugDigest(c)
	case is("digest-value"):
		debugDigestValue(c)
	case is("protocol") && n == 3:
		debugProtocol(c)
	case is("error") && n == 3:
		c.errReply(debugErrorText(c.args[2]))
	case is("log") && n == 3:
		c.srv.log.Warn("DEBUG LOG: " + string(c.args[2]))
		c.ok()
	case is("change-repl-id") && n == 2:
		c.srv.log.Info("Changing replication IDs after receiving DEBUG change-repl-id")
		c.ok()
	case is("quicklist-packed-threshold") && n == 3:
		if v, ok := config.ParseMemory(string(c.args[2])); !ok || v > 1<<32 {
			c.errReply("ERR argument must be a memory value bigger than 1 and smaller than 4gb")
			return
		}
		c.ok()
	default:
		c.errReply("ERR unknown subcommand or wrong number of arguments for '" + clip(sub) + "'. Try DEBUG HELP.")
	}
}

// atoi is C's atoi: the leading optional sign and digits, 0 without any.
func atoi(b []byte) int64 {
	b = bytes.TrimLeft(b, " \t\n\v\f\r")
	i, neg := 0, false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg, i = b[i] == '-', i+1
	}
	var n int64
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		n = n*10 + int64(b[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}

// strtod is C's strtod without its end pointer: the longest leading
// decimal number of b (after white space), 0 when there is none.
func strtod(b []byte) float64 {
	b = bytes.TrimLeft(b, " \t\n\v\f\r")
	end := 0
	if end < len(b) && (b[end] == '+' || b[end] == '-') {
		end++
	}
	digits := func() int {
		k := 0
		for end < len(b) && '0' <= b[end] && b[end] <= '9' {
			end, k = end+1, k+1
		}
		return k
	}
	k := digits()
	if end < len(b) && b[end] == '.' {
		end++
		k += digits()
	}
	if k == 0 {
		return 0
	}
	if end < len(b) && (b[end] == 'e' || b[end] == 'E') {
		mant := end
		end++
		if end < len(b) && (b[end] == '+' || b[end] == '-') {
			end++
		}
		if digits() == 0 {
			end = mant
		}
	}
	f, _ := strconv.ParseFloat(string(b[:end]), 64) // a range error gives ±Inf, as strtod's HUGE_VAL
	return f
}

// debugProtocol is DEBUG PROTOCOL type: a sample reply of each RESP3
// type, for client tests, in RESP2 where it has one.
func debugProtocol(c *cmdCtx) {
	p := c.cl.proto
	switch t := c.args[2]; {
	case bytes.EqualFold(t, []byte("string")):
		c.bulkString("Hello World")
	case bytes.EqualFold(t, []byte("integer")):
		c.integer(12345)
	case bytes.EqualFold(t, []byte("double")):
		c.out = resp.AppendDouble(c.out, 3.141, p)
	case bytes.EqualFold(t, []byte("bignum")):
		c.out = resp.AppendBigNumber(c.out, []byte("1234567999999999999999999999999999999"), p)
	case bytes.EqualFold(t, []byte("null")):
		c.null()
	case bytes.EqualFold(t, []byte("array")), bytes.EqualFold(t, []byte("set")):
		if bytes.EqualFold(t, []byte("set")) {
			c.out = resp.AppendSetLen(c.out, 3, p)
		} else {
			c.arrayLen(3)
		}
		for i := int64(0); i < 3; i++ {
			c.integer(i)
		}
	case bytes.EqualFold(t, []byte("map")):
		c.out = resp.AppendMapLen(c.out, 3, p)
		for i := int64(0); i < 3; i++ {
			c.integer(i)
			c.out = resp.AppendBool(c.out, i == 1, p)
		}
	case bytes.EqualFold(t, []byte("attrib")):
		if p >= 3 {
			c.out = append(c.out, "|1\r\n"...)
			c.bulkString("key-popularity")
			c.arrayLen(2)
			c.bulkString("key:123")
			c.integer(90)
		}
		c.bulkString("Some real reply following the attribute")
	case bytes.EqualFold(t, []byte("push")):
		if p < 3 {
			c.errReply("ERR RESP2 is not supported by this command")
			return
		}
		c.out = resp.AppendPushLen(c.out, 2, p)
		c.bulkString("server-cpu-usage")
		c.integer(42)
		c.bulkString("Some real reply following the push reply")
	case bytes.EqualFold(t, []byte("verbatim")):
		c.out = resp.AppendVerbatim(c.out, "txt", []byte("This is a verbatim\nstring"), p)
	case bytes.EqualFold(t, []byte("true")), bytes.EqualFold(t, []byte("false")):
		c.out = resp.AppendBool(c.out, bytes.EqualFold(t, []byte("true")), p)
	default:
		c.errReply("ERR Wrong protocol type name. Please use one of the following: " +
			"string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false")
	}
}

// debugErrorText is DEBUG ERROR's reply: the message as given, line
// breaks made spaces.
func debugErrorText(msg []byte) string {
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, string(msg))
}

// debugSleep is DEBUG SLEEP seconds (any text: C's strtod reads what
// number it starts with). The client is parked until a timer releases it
// with +OK; a client without a loop sleeps in its caller's goroutine.
func debugSleep(c *cmdCtx) {
	secs := strtod(c.args[2])
	d := time.Duration(0)
	if secs > 0 {
		d = time.Duration(math.Min(secs*1e9, math.MaxInt64))
	}
	switch {
	case d == 0 || c.cl.execing:
		c.ok()
	case !parkable(c):
		time.Sleep(d)
		c.ok()
	default:
		s := c.srv
		w := s.newParked(c)
		holdClient(c, w)
		time.AfterFunc(d, func() { s.release(w, okReply) })
	}
}

// viewUntouched calls fn with key's value as a read (expiring it when its
// TTL has passed) and then puts back the key's access time, which the
// read stamped: DEBUG looks without touching, as Redis's dictFind. It
// reports whether key exists.
func viewUntouched(c *cmdCtx, key []byte, fn func(info store.ObjectInfo, v *store.Value)) bool {
	info, ok := c.store.Object(c.db(), key, c.now)
	if !ok {
		return false
	}
	if !c.store.View(c.db(), key, c.now, func(v *store.Value) { fn(info, v) }) {
		return false
	}
	if c.srv.cfg.mem.lfu() {
		c.store.SetFreq(c.db(), key, c.now, int64(info.Freq))
	} else {
		c.store.SetIdle(c.db(), key, c.now, info.Idle/1000)
	}
	return true
}

// lruClockMax is Redis's LRU_CLOCK_MAX: the LRU clock's 24 bits of seconds.
const lruClockMax = 1<<24 - 1

// debugObject is DEBUG OBJECT key, as Redis prints it.
func debugObject(c *cmdCtx) {
	found := viewUntouched(c, c.args[2], func(info store.ObjectInfo, v *store.Value) {
		b := append(c.out, "+Value at:0x"...)
		b = strconv.AppendUint(b, debugObjectID(v), 16)
		b = append(b, " refcount:"...)
		b = strconv.AppendInt(b, objectRefcount(c, info), 10)
		b = append(b, " encoding:"...)
		b = append(b, v.Enc.String()...)
		b = append(b, " serializedlength:"...)
		mark := len(b)
		b = rdb.DumpPayload(b, v)   // measured in place, then cut
		n := len(b) - mark - 1 - 10 // without the type byte and DUMP's trailer
		b = strconv.AppendInt(b[:mark], int64(n), 10)
		idle := info.Idle / 1000
		b = append(b, " lru:"...)
		b = strconv.AppendInt(b, (c.now/1000-idle)&lruClockMax, 10)
		b = append(b, " lru_seconds_idle:"...)
		b = strconv.AppendInt(b, idle, 10)
		if v.Enc == store.EncQuicklist {
			b = quicklistFields(c, b, v)
		}
		c.out = append(b, '\r', '\n')
	})
	if !found {
		c.errReply("ERR no such key")
	}
}

// debugObjectID stands for Redis's object address: a stable number from
// the key's bytes, shaped as a pointer.
func debugObjectID(v *store.Value) uint64 {
	h := sha1.Sum(v.Key)
	return 0x7f0000000000 | binary.BigEndian.Uint64(h[:8])&0xffffffff0
}

// quicklistFields appends DEBUG OBJECT's quicklist fields.
func quicklistFields(c *cmdCtx, b []byte, v *store.Value) []byte {
	nodes, size := 0, 0
	v.Nodes(func(lp []byte) bool { nodes, size = nodes+1, size+len(lp); return true })
	lim := c.store.Limits()
	b = append(b, " ql_nodes:"...)
	b = strconv.AppendInt(b, int64(nodes), 10)
	b = append(b, " ql_avg_node:"...)
	avg := 0.0
	if nodes > 0 {
		avg = float64(v.Len()) / float64(nodes)
	}
	b = strconv.AppendFloat(b, avg, 'f', 2, 64)
	b = append(b, " ql_listpack_max:"...)
	b = strconv.AppendInt(b, int64(lim.ListMaxListpackSize), 10)
	b = append(b, " ql_compressed:"...)
	b = strconv.AppendInt(b, b2i(lim.ListCompressDepth != 0), 10)
	b = append(b, " ql_uncompressed_size:"...)
	return strconv.AppendInt(b, int64(size), 10)
}

// digest is a DEBUG DIGEST accumulator (debug.c): xor adds an unordered
// element's SHA1, mix folds an ordered one in.
type digest [sha1.Size]byte

func (d *digest) xor(b []byte) {
	h := sha1.Sum(b)
	for i := range d {
		d[i] ^= h[i]
	}
}

func (d *digest) mix(b []byte) {
	d.xor(b)
	*d = sha1.Sum(d[:])
}

// mixUint32 mixes n in as its 4 bytes in network order.
func (d *digest) mixUint32(n uint32) {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], n)
	d.mix(b[:])
}

// hex appends d in lower-case hex.
func (d *digest) hex(b []byte) []byte {
	const digits = "0123456789abcdef"
	for _, x := range d {
		b = append(b, digits[x>>4], digits[x&15])
	}
	return b
}

// addValue adds v's type, content and whether it has a TTL to d, as
// Redis's xorObjectDigest: a list's elements in order, a set's members
// and a hash's or sorted set's pairs in any order (a pair is the SHA1 mix
// of field and value, or of member and score as "%.17g").
func (d *digest) addValue(v *store.Value) {
	d.mixUint32(uint32(v.Type))
	var num [32]byte
	switch v.Type {
	case store.TypeString:
		d.mix(v.Raw)
	case store.TypeList:
		v.Each(func(e, _ []byte, _ float64) bool { d.mix(e); return true })
	case store.TypeSet:
		v.Each(func(m, _ []byte, _ float64) bool { d.xor(m); return true })
	case store.TypeZSet:
		v.Each(func(m, _ []byte, score float64) bool {
			var pair digest
			pair.mix(m)
			pair.mix(store.AppendScore(num[:0], score))
			d.xor(pair[:])
			return true
		})
	case store.TypeHash:
		v.Each(func(f, val []byte, _ float64) bool {
			var pair digest
			pair.mix(f)
			pair.mix(val)
			d.xor(pair[:])
			return true
		})
	case store.TypeStream:
		d.addStream(v) // cmd_stream.go
	}
	if v.ExpireAt != 0 {
		d.xor([]byte("!!expire!!"))
	}
}

// datasetDigest accumulates Redis's computeDatasetDigest: for each
// database with keys, its number mixed in, then each key's digest (the
// key mixed, then its value added) xored in. Keys must come database by
// database, in ascending order.
type datasetDigest struct {
	final digest
	db    int // the database whose number was mixed in last; -1 for none
}

func (dd *datasetDigest) add(db int, v *store.Value) {
	if db != dd.db {
		dd.final.mixUint32(uint32(db))
		dd.db = db
	}
	var kd digest
	kd.mix(v.Key)
	kd.addValue(v)
	dd.final.xor(kd[:])
}

// debugDigest is DEBUG DIGEST: the digest of every database, from a
// snapshot (inside EXEC, which holds every shard, from each key in turn).
func debugDigest(c *cmdCtx) {
	dd := datasetDigest{db: -1}
	if c.cl.execing {
		for db := 0; db < c.store.Databases(); db++ {
			var keys [][]byte
			c.store.Keys(db, []byte("*"), c.now, func(k []byte) { keys = append(keys, bytes.Clone(k)) })
			for _, k := range keys {
				c.store.View(db, k, c.now, func(v *store.Value) { dd.add(db, v) })
			}
		}
	} else {
		sn := c.store.SnapshotAt(c.now)
		err := sn.Each(func(db int, v *store.Value) error { dd.add(db, v); return nil })
		sn.Close()
		if err != nil {
			c.errReply("ERR " + err.Error())
			return
		}
	}
	c.out = append(c.out, '+')
	c.out = dd.final.hex(c.out)
	c.out = append(c.out, '\r', '\n')
}

// debugDigestValue is DEBUG DIGEST-VALUE key...: each value's digest
// (without its key), zeros for a missing key.
func debugDigestValue(c *cmdCtx) {
	c.arrayLen(len(c.args) - 2)
	for _, key := range c.args[2:] {
		var d digest
		viewUntouched(c, key, func(_ store.ObjectInfo, v *store.Value) { d.addValue(v) })
		c.out = append(c.out, '+')
		c.out = d.hex(c.out)
		c.out = append(c.out, '\r', '\n')
	}
}

// reloadOptions are DEBUG RELOAD's options.
type reloadOptions struct{ merge, noFlush, noSave bool }

const errLoadDump = "ERR Error trying to load the RDB dump"

// debugReload is DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: save the RDB
// file, flush the keyspace and load the file back. The client is parked
// while a goroutine does it; a client without a loop waits in its caller.
func debugReload(c *cmdCtx) {
	var o reloadOptions
	for _, a := range c.args[2:] {
		switch {
		case bytes.EqualFold(a, []byte("merge")):
			o.merge = true
		case bytes.EqualFold(a, []byte("noflush")):
			o.noFlush = true
		case bytes.EqualFold(a, []byte("nosave")):
			o.noSave = true
		default:
			c.errReply("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.")
			return
		}
	}
	s := c.srv
	if c.cl.execing {
		c.errReply("ERR DEBUG RELOAD is not supported inside MULTI/EXEC")
		return
	}
	if !o.noFlush && s.watches.n.Load() > 0 {
		s.touchWatched(c, lookupCommand(c.args[0])) // multi.go: a row without keys marks every watcher, as the flush
		c.settleWatched(true)                       // the reload replaces every key
	}
	switch {
	case !parkable(c):
		c.out = append(c.out, s.reload(o)...)
	default:
		w := s.newParked(c)
		holdClient(c, w)
		go func() { s.release(w, s.reload(o)) }()
	}
}

// reload runs DEBUG RELOAD and returns its reply. It may wait for a
// running save to end first. Not on a loop.
//
// It is atomic to the other clients, as in single-threaded Redis: no write
// runs from before its save to the end of its load (holdWrites, the order
// lock), so none lands between the save and the flush to be lost, and no
// command touching keys runs during the flush and the load, which hold
// every shard (a Lock view), so none sees the keyspace half loaded. A loop
// whose command needs them blocks meanwhile, for the save's and the
// load's disk time: Redis blocks whole for DEBUG RELOAD, a debugging
// command, as long.
func (s *Server) reload(o reloadOptions) []byte {
	release := s.holdWrites() // propagate.go
	defer release()
	for !o.noSave {
		err := s.saveAndWait()
		if errors.Is(err, errSaveRunning) {
			s.waitSaveIdle()
			continue
		}
		if err != nil {
			return errBareReply
		}
		break
	}
	p := &s.persist
	var lv store.LockedView
	view := s.store.LockInto(&lv, nil, true)
	defer view.Unlock()
	if !o.noFlush {
		view.FlushAll()
	}
	path := s.rdbPath()
	keys, expired, err := s.loadRDBInto(view, true, path, o.merge || !o.noFlush) // persist_rdb.go
	if err != nil {
		s.log.Warn("DEBUG RELOAD could not load the RDB file", zap.String("file", path), zap.Error(err))
		return []byte("-" + errLoadDump + "\r\n")
	}
	p.loadedKeys.Store(keys)
	p.expiredKeys.Store(expired)
	s.log.Warn("DB reloaded by DEBUG RELOAD")
	return okReply
}

var debugCommands = []command{
	{Name: "debug", Arity: -2, Flags: flagAdmin | flagNoScript | flagLoading | flagStale, Protected: true,
		Doc: cmdDoc{Summary: "A container for debugging commands", Since: "1.0.0", Group: "server",
			Complexity: "Depends on subcommand.", DocFlags: docSyscmd},
		Fn: cmdDebug},
}

func init() { register(debugCommands...) }

var debugHelp = []string{
	"DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"AOF-FLUSH-SLEEP <microsec>",
	"    Server will sleep before flushing the AOF, this is used for testing.",
	"ASSERT",
	"    Crash by assertion failed.",
	"CHANGE-REPL-ID",
	"    Change the replication IDs of the instance.",
	"    Dangerous: should be used only for testing the replication subsystem.",
	"CONFIG-REWRITE-FORCE-ALL",
	"    Like CONFIG REWRITE but writes all configuration options, including",
	"    keywords not listed in original configuration file or default values.",
	"CRASH-AND-RECOVER [<milliseconds>]",
	"    Hard crash and restart after a <milliseconds> delay (default 0).",
	"DIGEST",
	"    Output a hex signature representing the current DB content.",
	"DIGEST-VALUE <key> [<key> ...]",
	"    Output a hex signature of the values of all the specified keys.",
	"ERROR <string>",
	"    Return a Redis protocol error with <string> as message. Useful for clients",
	"    unit tests to simulate Redis errors.",
	"LEAK <string>",
	"    Create a memory leak of the input string.",
	"LOG <message>",
	"    Write <message> to the server log.",
	"HTSTATS <dbid>",
	"    Return hash table statistics of the specified Redis database.",
	"HTSTATS-KEY <key>",
	"    Like HTSTATS but for the hash table stored at <key>'s value.",
	"LOADAOF",
	"    Flush the AOF buffers on disk and reload the AOF in memory.",
	"REPLICATE <string>",
	"    Replicates the provided string to replicas, allowing data divergence.",
	"MALLCTL <key> [<val>]",
	"    Get or set a malloc tuning integer.",
	"MALLCTL-STR <key> [<val>]",
	"    Get or set a malloc tuning string.",
	"OBJECT <key>",
	"    Show low level info about `key` and associated value.",
	"DROP-CLUSTER-PACKET-FILTER <packet-type>",
	"    Drop all packets that match the filtered type. Set to -1 allow all packets.",
	"OOM",
	"    Crash the server simulating an out-of-memory error.",
	"PANIC",
	"    Crash the server simulating a panic.",
	"POPULATE <count> [<prefix>] [<size>]",
	"    Create <count> string keys named key:<num>. If <prefix> is specified then",
	"    it is used instead of the 'key' prefix. These are not propagated to",
	"    replicas. Cluster slots are not respected so keys not belonging to the",
	"    current node can be created in cluster mode.",
	"PROTOCOL <type>",
	"    Reply with a test value of the specified type. <type> can be: string,",
	"    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
	"    true, false.",
	"RELOAD [option ...]",
	"    Save the RDB on disk and reload it back to memory. Valid <option> values:",
	"    * MERGE: conflicting keys will be loaded from RDB.",
	"    * NOFLUSH: the existing database will not be removed before load, but",
	"      conflicting keys will generate an exception and kill the server.",
	"    * NOSAVE: the database will be loaded from an existing RDB file.",
	"    Examples:",
	"    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
	"      the database.",
	"    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
	"      existing RDB file.",
	"    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
	"      file to the database.",
	"RESTART [<milliseconds>]",
	"    Graceful restart: save config, db, restart after a <milliseconds> delay (default 0).",
	"SDSLEN <key>",
	"    Show low level SDS string info representing `key` and value.",
	"SEGFAULT",
	"    Crash the server with sigsegv.",
	"SET-ACTIVE-EXPIRE <0|1>",
	"    Setting it to 0 disables expiring keys in background when they are not",
	"    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
	"    default.",
	"QUICKLIST-PACKED-THRESHOLD <size>",
	"    Sets the threshold for elements to be inserted as plain vs packed nodes",
	"    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
	"SET-SKIP-CHECKSUM-VALIDATION <0|1>",
	"    Enables or disables checksum checks for RDB files and RESTORE's payload.",
	"SLEEP <seconds>",
	"    Stop the server for <seconds>. Decimals allowed.",
	"STRINGMATCH-TEST",
	"    Run a fuzz tester against the stringmatchlen() function.",
	"STRUCTSIZE",
	"    Return the size of different Redis core C structures.",
	"LISTPACK <key>",
	"    Show low level info about the listpack encoding of <key>.",
	"QUICKLIST <key> [<0|1>]",
	"    Show low level info about the quicklist encoding of <key>.",
	"    The optional argument (0 by default) sets the level of detail",
	"CLIENT-EVICTION",
	"    Show low level client eviction pools info (maxmemory-clients).",
	"PAUSE-CRON <0|1>",
	"    Stop periodic cron job processing.",
	"REPLYBUFFER PEAK-RESET-TIME <NEVER||RESET|time>",
	"    Sets the time (in milliseconds) to wait between client reply buffer peak resets.",
	"    In case NEVER is provided the last observed peak will never be reset",
	"    In case RESET is provided the peak reset time will be restored to the default value",
	"REPLYBUFFER RESIZING <0|1>",
	"    Enable or disable the reply buffer resize cron job",
	"CLUSTERLINK KILL <to|from|all> <node-id>",
	"    Kills the link based on the direction to/from (both) with the provided node.",
	"HELP",
	"    Prints this help.",
}
