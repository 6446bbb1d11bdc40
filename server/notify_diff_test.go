package server

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// The keyspace-notification differential tests run the same script on a
// real redis-server 7 and on loopkv, each with a subscriber on
// PSUBSCRIBE __key*@*__:* (and on a sync channel) and a writer on another
// connection, and compare, command by command, the raw messages the
// subscriber receives: after each command the writer publishes to the
// sync channel, and the messages before the sync message are the
// command's events. A script line may be a directive:
//
//	"sleep N"      wait N ms on both sides (lazy and active expiry)
//	"async CMD"    send CMD on a second writer without reading the reply (a blocking pop)
//	"await"        read the second writer's pending reply
//	"waitexpired"  read messages until an expired event arrives (active expiry), up to 2 s

const notifySync = "notify-sync"

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"NotifyStringsMatchRedis", TestNotifyStringsMatchRedis},
		{"NotifyConfigMatchRedis", TestNotifyConfigMatchRedis},
		{"NotifyGenericMatchRedis", TestNotifyGenericMatchRedis},
		{"NotifyHashesAndSetsMatchRedis", TestNotifyHashesAndSetsMatchRedis},
		{"NotifyListsAndSortedSetsMatchRedis", TestNotifyListsAndSortedSetsMatchRedis},
		{"BlockedServedAcrossDatabasesMatchRedis", TestBlockedServedAcrossDatabasesMatchRedis},
		{"NotifyKeyMissMatchRedis", TestNotifyKeyMissMatchRedis},
		{"NotifyGoRedisPubSub", TestNotifyGoRedisPubSub},
		{"NotifyActiveExpiry", TestNotifyActiveExpiry},
		{"NotifyEvicted", TestNotifyEvicted},
		{"NotifyOverTLS", TestNotifyOverTLS},
		{"NotifyRestoreMatchesRedis", TestNotifyRestoreMatchesRedis},
	}...)
}

type notifySide struct {
	t        *testing.T
	cmd, bg  *rawConn
	sub      *rawConn
	sync     *rawConn // publishes the sync messages: cmd may be inside MULTI
	proto    int
	syncs    int
	carry    []string // messages read past a sync while waiting for an event
	bgReply  bool
	bgPeriod time.Duration
}

func openNotifySide(t *testing.T, addr string, proto int, flags string) *notifySide {
	t.Helper()
	ns := &notifySide{t: t, proto: proto}
	ns.cmd, ns.bg, ns.sub, ns.sync = dialRaw(t, addr), dialRaw(t, addr), dialRaw(t, addr), dialRaw(t, addr)
	for _, c := range []*rawConn{ns.cmd, ns.bg, ns.sub} {
		if proto == 3 {
			c.do("HELLO", "3")
		}
	}
	ns.cmd.do("FLUSHALL")
	if r := ns.cmd.do("CONFIG", "SET", "notify-keyspace-events", flags); r != "+OK\r\n" {
		t.Fatalf("CONFIG SET notify-keyspace-events %s: %q", flags, r)
	}
	ns.sub.send(multibulk("PSUBSCRIBE", "__key*@*__:*"))
	ns.sub.reply()
	ns.sub.send(multibulk("SUBSCRIBE", notifySync))
	ns.sub.reply()
	return ns
}

func (ns *notifySide) close() {
	ns.cmd.do("CONFIG", "SET", "notify-keyspace-events", "")
}

// events reads the subscriber's messages up to the next sync message.
func (ns *notifySide) events() []string {
	ns.t.Helper()
	ns.sync.do("PUBLISH", notifySync, strconv.Itoa(ns.syncs))
	ns.syncs++
	var out []string
	for {
		m := ns.sub.reply()
		if strings.Contains(m, notifySync) {
			return out
		}
		out = append(out, m)
	}
}

// run runs one script line and returns the reply (or "") and the events.
func (ns *notifySide) run(line string) (string, []string) {
	ns.t.Helper()
	f := strings.Fields(line)
	switch f[0] {
	case "sleep":
		// no sync: whether the key expires now (active expiry) or at the
		// next command (lazily), its event comes before the next command's
		ms, _ := strconv.Atoi(f[1])
		time.Sleep(time.Duration(ms) * time.Millisecond)
		return "", nil
	case "async":
		ns.bg.send(multibulk(f[1:]...))
		time.Sleep(20 * time.Millisecond) // let it block before the next command
		return "", ns.events()
	case "await":
		return ns.bg.reply(), ns.events()
	case "waitexpired":
		var out []string
		deadline := time.Now().Add(2 * time.Second)
		for time.Now().Before(deadline) {
			evs := ns.events()
			out = append(out, evs...)
			if strings.Contains(strings.Join(evs, ""), "expired") {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		return "", out
	}
	return ns.cmd.do(f...), ns.events()
}

// changes reads rdb_changes_since_last_save (Redis's server.dirty).
func (ns *notifySide) changes() int {
	ns.t.Helper()
	n, _ := strconv.Atoi(infoValue(ns.t, ns.sync, "rdb_changes_since_last_save"))
	return n
}

// diffNotify runs script on both servers with flags and protocol proto and
// reports every command whose events differ.
func diffNotify(t *testing.T, ours, ref string, proto int, flags string, script []string) {
	t.Helper()
	a, b := openNotifySide(t, ours, proto, flags), openNotifySide(t, ref, proto, flags)
	defer a.close()
	defer b.close()
	total := 0
	defer func() {
		if total == 0 {
			t.Errorf("flags %q: redis published no event for the script", flags)
		}
	}()
	// A command followed by a sleep is compared together with the command
	// after the sleep: its key may expire before its own sync message.
	var got, want []string
	for i, line := range script {
		ca, cb := a.changes(), b.changes()
		gotReply, g := a.run(line)
		wantReply, w := b.run(line)
		if da, db := a.changes()-ca, b.changes()-cb; da != db {
			t.Errorf("flags %q proto %d: %s: %d changes counted, redis %d", flags, proto, line, da, db)
		}
		got, want = append(got, g...), append(want, w...)
		total += len(w)
		if gotReply != wantReply && line == "await" {
			t.Errorf("flags %q proto %d: blocked client's reply %q, redis %q", flags, proto, gotReply, wantReply)
		} else if gotReply != wantReply {
			t.Logf("flags %q proto %d: %s: reply %q, redis %q", flags, proto, line, gotReply, wantReply)
		}
		if i+1 < len(script) && strings.HasPrefix(script[i+1], "sleep") || strings.HasPrefix(line, "sleep") {
			continue
		}
		if strings.Join(got, "") != strings.Join(want, "") {
			t.Errorf("flags %q proto %d: %s:\n got  %q\n want %q", flags, proto, line, got, want)
		}
		got, want = got[:0], want[:0]
	}
}

// notifyStringScript covers the string commands.
var notifyStringScript = []string{
	"SET s v", "SET s v2 EX 100", "SET s v NX", "SET s v3 XX GET", "SETNX s x", "SETNX s2 x",
	"SETEX s3 100 v", "PSETEX s4 100000 v", "GETSET s v5", "MSET m1 a m2 b", "MSETNX m1 a m3 c", "MSETNX m4 a m5 c",
	"INCR n", "DECR n", "INCRBY n 5", "DECRBY n 2", "INCRBYFLOAT n 1.5", "INCR s", "APPEND ap x", "APPEND ap y",
	"SETRANGE sr 3 abc", "SETRANGE sr 0 \"\"", "GETDEL ap", "GETDEL ap", "GETEX s EX 100", "GETEX s PERSIST",
	"GETEX s PXAT 1", "GET s", "SET e v PX 1", "sleep 5", "GET e", "SET e v PX 1", "sleep 5", "SET e v",
}

func TestNotifyStringsMatchRedis(t *testing.T) {
	s, _ := startServer(t, Options{})
	ref := startRefRedis(t)
	for _, proto := range []int{2, 3} {
		diffNotify(t, s.Addr(), ref, proto, "KEA", notifyStringScript)
	}
	diffNotify(t, s.Addr(), ref, 2, "K$", notifyStringScript)
	diffNotify(t, s.Addr(), ref, 2, "Eg", notifyStringScript)
	diffNotify(t, s.Addr(), ref, 2, "KEn", notifyStringScript)
	diffNotify(t, s.Addr(), ref, 3, "KExn$", notifyStringScript)
}

// CONFIG SET notify-keyspace-events and CONFIG GET's normalised letters,
// and the error for an unknown letter, as redis-server has them.
func TestNotifyConfigMatchRedis(t *testing.T) {
	s, _ := startServer(t, Options{})
	ref := startRefRedis(t)
	script := func(addr string) []string {
		rc := dialRaw(t, addr)
		var out []string
		for _, f := range []string{"KEA", "Kg", "gK$lshzxetd", "KEAn", "AKEm", "E", "g", "", "n", "Kn", "KExm", "x?", "KEt", "d", "$lz", "KA"} {
			out = append(out, f+" => "+rc.do("CONFIG", "SET", "notify-keyspace-events", f)+rc.do("CONFIG", "GET", "notify-keyspace-events"))
		}
		rc.do("CONFIG", "SET", "notify-keyspace-events", "")
		return out
	}
	got, want := script(s.Addr()), script(ref)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got  %q\nwant %q", got[i], want[i])
		}
	}
}

// notifyGenericScript covers the key commands.
var notifyGenericScript = []string{
	"MSET a 1 b 2 c 3", "DEL a b x a", "UNLINK c d", "SET k v", "EXPIRE k 100", "EXPIRE k 200 NX", "EXPIRE k 300 XX",
	"EXPIRE k 50 GT", "PEXPIRE k 100000 LT", "PERSIST k", "PERSIST k", "EXPIREAT k 1", "EXISTS k", "SET k v",
	"PEXPIREAT k 1", "SET k v", "EXPIRE k -1", "SET k v", "EXPIRE nokey 10", "SET k v", "RENAME k k2",
	"RENAME k2 k2", "RENAMENX k2 k2", "SET k3 v", "RENAMENX k2 k3", "RENAMENX k2 k4", "RENAME k4 k3",
	"COPY k3 k5", "COPY k3 k5", "COPY k3 k5 REPLACE", "COPY k3 k6 DB 1", "MOVE k5 1", "MOVE k6 1", "SET k6 v",
	"MOVE k6 1", "SELECT 1", "SET k7 v", "DEL k7 k5", "SELECT 0", "SWAPDB 0 1", "TOUCH k6 k3", "FLUSHDB", "SET z 1",
	"FLUSHALL", "SET t v PX 1", "sleep 5", "RENAME t t2", "SET u v", "SET t v PX 1", "sleep 5", "RENAME u t",
	"SET t v PX 1", "sleep 5", "EXPIRE t 10",
}

func TestNotifyGenericMatchRedis(t *testing.T) {
	s, _ := startServer(t, Options{})
	ref := startRefRedis(t)
	for _, proto := range []int{2, 3} {
		diffNotify(t, s.Addr(), ref, proto, "KEA", notifyGenericScript)
	}
	diffNotify(t, s.Addr(), ref, 2, "KEn", notifyGenericScript)
	diffNotify(t, s.Addr(), ref, 2, "Kgn", notifyGenericScript)
	diffNotify(t, s.Addr(), ref, 3, "Ex", notifyGenericScript)
}

// notifyHashSetScript covers the hash and set commands.
var notifyHashSetScript = []string{
	"HSET h a 1 b 2", "HSET h a 3", "HMSET h c 3", "HSETNX h a 1", "HSETNX h d 1", "HINCRBY h n 2",
	"HINCRBYFLOAT h f 1.5", "HDEL h x", "HDEL h a b", "HDEL h c d n f", "HGET h a", "HINCRBY h2 x 1",
	"SADD s a b c", "SADD s a", "SREM s x", "SREM s a", "SPOP s", "SPOP nos", "SADD s2 1 2 3 4 5",
	"SPOP s2 0", "SPOP s2 2", "SPOP s2 10", "SADD s3 a b", "SMOVE s3 s4 a", "SMOVE s3 s4 x", "SMOVE s3 s3 b",
	"SMOVE s3 s4 b", "SADD x 1 2 3", "SADD y 2 3 4", "SINTERSTORE d x y", "SUNIONSTORE d x y",
	"SDIFFSTORE d x y", "SINTERSTORE d x nokey", "SINTERSTORE d x nokey", "SDIFFSTORE d2 x x",
	"SUNIONSTORE d3 x", "SET str v", "SUNIONSTORE str x", "SADD big " + strings.Repeat("m ", 1) + "n o p",
	"SREM big m n o p",
	"MULTI", "SADD tx a", "SREM tx a", "SADD tx a b", "SREM tx a", "SINTERSTORE tx2 tx", "SINTERSTORE tx2 nos",
	"SINTERSTORE tx2 tx", "SADD tx3 x", "DEL tx3", "SINTERSTORE tx3 nos", "EXEC",
}

func TestNotifyHashesAndSetsMatchRedis(t *testing.T) {
	s, _ := startServer(t, Options{})
	ref := startRefRedis(t)
	for _, proto := range []int{2, 3} {
		diffNotify(t, s.Addr(), ref, proto, "KEA", notifyHashSetScript)
	}
	diffNotify(t, s.Addr(), ref, 2, "KEn", notifyHashSetScript)
	diffNotify(t, s.Addr(), ref, 2, "Kshn", notifyHashSetScript)
	diffNotify(t, s.Addr(), ref, 3, "Eg", notifyHashSetScript)
	diffNotify(t, s.Addr(), ref, 2, "Kh", notifyHashSetScript)
}

// notifyListZSetScript covers the list, sorted-set and blocking commands.
var notifyListZSetScript = []string{
	"RPUSH l a b c d", "LPUSH l z", "LPUSHX nol x", "RPUSHX l e", "LPOP l", "RPOP l 2", "LPOP l 0", "LPOP nol",
	"LSET l 0 q", "LINSERT l BEFORE q p", "LINSERT l BEFORE nope p", "LREM l 0 zz", "LREM l 1 p", "LTRIM l 0 -1",
	"LTRIM nol 0 1", "LTRIM l 5 10", "RPUSH l2 a b", "LMOVE l2 l3 LEFT RIGHT", "LMOVE l2 l3 RIGHT LEFT",
	"LMOVE l3 l3 LEFT RIGHT", "RPOPLPUSH l3 l4", "LMPOP 2 nol l4 LEFT COUNT 5", "LMPOP 1 nol RIGHT",
	"RPUSH l5 a b c", "LPOP l5 3", "RPUSH l6 a", "RPOP l6",
	"ZADD z 1 a 2 b 3 c", "ZADD z 1 a", "ZADD z XX CH 5 a", "ZADD z NX 1 a", "ZINCRBY z 2 b", "ZADD z INCR 1 c",
	"ZREM z x", "ZREM z a", "ZPOPMIN z", "ZPOPMAX z 5", "ZPOPMIN nz", "ZADD z 1 a 2 b 3 c 4 d 5 e",
	"ZREMRANGEBYRANK z 0 0", "ZREMRANGEBYSCORE z 2 2", "ZREMRANGEBYLEX z [x [z", "ZREMRANGEBYLEX z - +",
	"ZADD z1 1 a 2 b", "ZADD z2 2 b 3 c", "ZUNIONSTORE zd 2 z1 z2", "ZINTERSTORE zd 2 z1 z2", "ZDIFFSTORE zd 2 z1 z2",
	"ZDIFFSTORE zd 2 z1 z1", "ZDIFFSTORE zd 2 z1 z1", "ZRANGESTORE zr z1 0 -1", "ZRANGESTORE zr z1 5 10",
	"ZMPOP 2 nz z2 MAX COUNT 10", "ZADD z3 1 a", "ZMPOP 1 z3 MIN",
	"RPUSH bl a b", "BLPOP bl 0", "BRPOP bl 0", "RPUSH bl a", "BLMOVE bl bl2 LEFT RIGHT 0", "BRPOPLPUSH bl2 bl3 0",
	"BLMPOP 0 1 bl3 LEFT COUNT 2", "ZADD bz 1 a 2 b", "BZPOPMIN bz 0", "BZPOPMAX bz 0", "ZADD bz 1 a", "BZMPOP 0 1 bz MIN",
	"async BLPOP w1 0", "RPUSH w1 a b", "await", "async BRPOP w2 0", "LPUSH w2 a", "await",
	"async BLMOVE w3 w4 RIGHT LEFT 0", "RPUSH w3 a", "await", "async BZPOPMAX w5 0", "ZADD w5 1 a 2 b", "await",
	"async BLMPOP 0 2 w6 w7 RIGHT COUNT 3", "RPUSH w7 a b", "await", "async BZMPOP 0 1 w8 MAX COUNT 2", "ZADD w8 1 a", "await",
	"MULTI", "async BLPOP w9 0", "RPUSH w9 x", "EXEC", "await",
	"RPUSH so 3 1 2", "SORT so STORE sd", "SORT so STORE sd", "SORT nol STORE sd", "SORT nol STORE sd",
	"SADD sos b a", "SORT sos ALPHA STORE so",
}

func TestNotifyListsAndSortedSetsMatchRedis(t *testing.T) {
	s, _ := startServer(t, Options{})
	ref := startRefRedis(t)
	for _, proto := range []int{2, 3} {
		diffNotify(t, s.Addr(), ref, proto, "KEA", notifyListZSetScript)
	}
	diffNotify(t, s.Addr(), ref, 2, "KEn", notifyListZSetScript)
	diffNotify(t, s.Addr(), ref, 2, "Klzn", notifyListZSetScript)
	diffNotify(t, s.Addr(), ref, 3, "Eg", notifyListZSetScript)
}

// notifyCrossDBScript: MOVE, COPY ... DB and SWAPDB give a key to a client
// blocked on it in the other database, which is served at once, as in
// Redis (issue 13); also inside MULTI. The waiter's reply is compared by
// "await".
var notifyCrossDBScript = []string{
	"async SELECT 1", "await",
	"async BLPOP k 0", "RPUSH k a b", "MOVE k 1", "await",
	"async BLPOP k2 0", "RPUSH k2 a", "COPY k2 k2 DB 1", "await", "COPY k2 k3 DB 1",
	"async BZPOPMIN z 0", "ZADD z 1 a", "SWAPDB 0 1", "await",
	"SWAPDB 0 1", "async BRPOP k4 0", "RPUSH k4 x", "MULTI", "MOVE k4 1", "EXEC", "await",
	"async BLMOVE k5 dst LEFT LEFT 0", "RPUSH k5 y", "MULTI", "SWAPDB 1 0", "EXEC", "await",
	"async BLPOP k6 0.3", "SET k6 str", "MOVE k6 1", "await",
}

func TestBlockedServedAcrossDatabasesMatchRedis(t *testing.T) {
	s, _ := startServer(t, Options{})
	ref := startRefRedis(t)
	diffNotify(t, s.Addr(), ref, 2, "KEA", notifyCrossDBScript)
	diffNotify(t, s.Addr(), ref, 3, "KEA", notifyCrossDBScript)
}

// notifyKeyMissScript covers reads of missing keys (the m class).
var notifyKeyMissScript = []string{
	"GET nx", "SET a 1", "GET a", "MGET a nx1 nx2", "EXISTS nx a", "TYPE nx", "TTL nx", "PTTL nx", "STRLEN nx",
	"HGET nh f", "HGETALL nh", "LRANGE nl 0 -1", "LLEN nl", "SMEMBERS ns", "SISMEMBER ns m", "ZSCORE nz m",
	"ZRANGE nz 0 -1", "OBJECT ENCODING nx", "SET b v GET", "GETDEL nx", "SINTER ns a", "SUNION ns1 ns2",
	"SET e v PX 1", "sleep 5", "GET e", "INCR nx3", "COPY nx4 dst", "DUMP nx", "GETRANGE nx 0 1",
	"HEXISTS nh f", "LINDEX nl 0", "ZCARD nz", "SCARD ns", "HLEN nh", "ZRANK nz m",
}

func TestNotifyKeyMissMatchRedis(t *testing.T) {
	s, _ := startServer(t, Options{})
	ref := startRefRedis(t)
	diffNotify(t, s.Addr(), ref, 2, "KEm", notifyKeyMissScript)
	diffNotify(t, s.Addr(), ref, 3, "KExm", notifyKeyMissScript)
}

// RESTORE publishes restore (after new, with REPLACE too), as Redis does.
func TestNotifyRestoreMatchesRedis(t *testing.T) {
	s, _ := startServer(t, Options{})
	ref := startRefRedis(t)
	r := dialRaw(t, ref)
	r.do("SET", "src", "value")
	dump := r.do("DUMP", "src")
	payload := dump[strings.Index(dump, "\r\n")+2 : len(dump)-2]
	for _, flags := range []string{"KEA", "KEAn", "Eg"} {
		a, b := openNotifySide(t, s.Addr(), 2, flags), openNotifySide(t, ref, 2, flags)
		for _, args := range [][]string{{"RESTORE", "k", "0", payload}, {"RESTORE", "k", "0", payload},
			{"RESTORE", "k", "0", payload, "REPLACE"}, {"RESTORE", "k2", "100000", payload}} {
			ra, rb := a.cmd.do(args...), b.cmd.do(args...)
			ga, gb := a.events(), b.events()
			if ra != rb || strings.Join(ga, "") != strings.Join(gb, "") {
				t.Errorf("flags %q: %v: reply %q events %q; redis %q %q", flags, args[:3], ra, ga, rb, gb)
			}
		}
		a.close()
		b.close()
	}
}
