package server

import "testing"

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"NotifyStreamsMatchRedis", TestNotifyStreamsMatchRedis},
		{"WatchStreamsMatchesRedis", TestWatchStreamsMatchesRedis},
		{"TrackingStreamsMatchesRedis", TestTrackingStreamsMatchesRedis},
	}...)
}

// notifyStreamScript: every stream write's events (xadd, xtrim, xdel,
// xsetid; new; del none: an emptied stream stays), and the writes that
// change nothing and publish nothing.
var notifyStreamScript = []string{
	"XADD s 1-1 a 1", "XADD s 1-2 a 2 b 3", "XADD s 1-2 a 1", "XADD s NOMKSTREAM 2-0 a 1", "XADD n NOMKSTREAM 1-1 a 1",
	"XADD s MAXLEN 1 3-0 c 1", "XADD s MAXLEN 5 4-0 c 1", "XADD s MINID = 4 5-0 c 1", "XADD s MAXLEN ~ 0 6-0 c 1",
	"XTRIM s MAXLEN 1", "XTRIM s MAXLEN 1", "XTRIM nokey MAXLEN 1", "XDEL s 6-0 9-9", "XDEL s 6-0", "XLEN s", "EXISTS s",
	"XSETID s 10-0", "XSETID s 1-0", "XSETID nokey 5", "XADD s MAXLEN 0 11-0 a b", "XRANGE s - +", "XREAD STREAMS s 0",
	"XINFO STREAM s", "MULTI", "XADD t 1-1 a b", "XDEL t 1-1", "EXEC", "DEL s t", "async XREAD BLOCK 0 STREAMS w $",
	"XADD w 1-1 a b", "await",
}

func TestNotifyStreamsMatchRedis(t *testing.T) {
	s, _ := startServer(t, Options{})
	ref := startRefRedis(t)
	for _, proto := range []int{2, 3} {
		diffNotify(t, s.Addr(), ref, proto, "KEA", notifyStreamScript)
	}
	diffNotify(t, s.Addr(), ref, 2, "KEn", notifyStreamScript)
	diffNotify(t, s.Addr(), ref, 2, "Ktn", notifyStreamScript)
	diffNotify(t, s.Addr(), ref, 3, "Eg", notifyStreamScript)
}

// watchStreamScript: a stream write that changes the stream aborts a
// watcher's EXEC; one that changes nothing (an XADD refused, XTRIM or
// XDEL of nothing, a read) does not.
var watchStreamScript = []pubsubStep{
	{0, "WATCH s", 1, 0, false},
	{1, "XADD s 1-1 a b", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "XLEN s", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{0, "WATCH s", 1, 0, false},
	{1, "XADD s 1-1 a b", 1, 0, false},
	{1, "XTRIM s MAXLEN 5", 1, 0, false},
	{1, "XDEL s 7-7", 1, 0, false},
	{1, "XRANGE s - +", 1, 0, false},
	{1, "XREAD STREAMS s 0", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "XLEN s", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{0, "WATCH s", 1, 0, false},
	{1, "XDEL s 1-1", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{0, "WATCH s", 1, 0, false},
	{1, "XSETID s 5-0", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{0, "WATCH s", 1, 0, false},
	{1, "XADD s 6-0 a b", 1, 0, false},
	{1, "XTRIM s MAXLEN 0", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "EXEC", 1, 0, false},
}

func TestWatchStreamsMatchesRedis(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	diffPubsubScript(t, s, 2, watchStreamScript)
}

// trackingStreamScript: connection 0 tracks in RESP3 and reads streams
// (XRANGE, XREVRANGE, XREAD, XLEN, XINFO STREAM); connection 1's stream
// writes invalidate them, a write that changes nothing and XSETID do not.
var trackingStreamScript = []pubsubStep{
	{0, "HELLO 3", 1, 0, true},
	{1, "XADD s1 1-1 a b", 1, 0, false},
	{1, "XADD s2 1-1 a b", 1, 0, false},
	{0, "CLIENT TRACKING ON", 1, 0, false},
	{0, "XRANGE s1 - +", 1, 0, false},
	{1, "XADD s1 1-2 c d", 1, 1, false},
	{0, "XREVRANGE s1 + -", 1, 0, false},
	{1, "XDEL s1 9-9", 1, 0, false},
	{1, "XDEL s1 1-1", 1, 1, false},
	{0, "XREAD STREAMS s1 s2 0 0", 1, 0, false},
	{1, "XTRIM s2 MAXLEN 5", 1, 0, false},
	{1, "XTRIM s2 MAXLEN 0", 1, 1, false},
	{0, "XLEN s1", 1, 0, false},
	{1, "XSETID s1 7-0", 1, 0, false},
	{1, "XADD s1 NOMKSTREAM 8-0 e f", 1, 1, false},
	{0, "XINFO STREAM s1", 1, 0, false},
	{1, "XADD s1 MAXLEN 0 9-0 g h", 1, 1, false},
	{0, "PING", 1, 0, false},
}

func TestTrackingStreamsMatchesRedis(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	diffPubsubScript(t, s, 2, trackingStreamScript)
}
