package server

import (
	"strings"
	"testing"
)

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"NotifyGeoMatchesRedis", TestNotifyGeoMatchesRedis},
		{"WatchGeoMatchesRedis", TestWatchGeoMatchesRedis},
		{"PropagationGeoMatchesRedis", TestPropagationGeoMatchesRedis},
		{"TrackingGeoMatchesRedis", TestTrackingGeoMatchesRedis},
	}...)
}

// notifyGeoScript: GEOADD is a "zadd" (only when it changed something),
// the searches with STORE publish georadiusstore or geosearchstore, and
// an empty result deletes the destination with "del".
var notifyGeoScript = []string{
	"GEOADD g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", "GEOADD g 13.361389 38.115556 Palermo",
	"GEOADD g NX 1 1 Palermo", "GEOADD g XX CH 1 1 Palermo", "GEOADD g 200 1 bad", "GEOPOS g Palermo",
	"GEORADIUS g 15 37 200 km STORE d", "GEORADIUS g 15 37 200 km STOREDIST d", "GEORADIUSBYMEMBER g Catania 10 km STORE d2",
	"GEOSEARCHSTORE d3 g FROMMEMBER Catania BYRADIUS 10 km", "GEOSEARCHSTORE d3 g FROMLONLAT 0 -80 BYRADIUS 1 m",
	"GEOSEARCHSTORE d3 g FROMLONLAT 0 -80 BYRADIUS 1 m", "GEORADIUS nokey 1 1 1 km STORE d2", "GEORADIUS nokey 1 1 1 km STORE d2",
	"GEOSEARCH g FROMLONLAT 15 37 BYRADIUS 200 km", "SET s v", "GEOADD s 1 1 x",
}

func TestNotifyGeoMatchesRedis(t *testing.T) {
	s, _ := startServer(t, Options{})
	ref := startRefRedis(t)
	for _, proto := range []int{2, 3} {
		diffNotify(t, s.Addr(), ref, proto, "KEA", notifyGeoScript)
	}
	diffNotify(t, s.Addr(), ref, 2, "Kz", notifyGeoScript)
	diffNotify(t, s.Addr(), ref, 2, "Eg", notifyGeoScript)
	diffNotify(t, s.Addr(), ref, 3, "KEm", append([]string{"GEOPOS nokey a", "GEODIST nokey a b", "GEOHASH nokey a",
		"GEOSEARCH nokey FROMLONLAT 0 0 BYRADIUS 1 m", "GEORADIUS nokey 0 0 1 m STORE d", "GEOSEARCH g FROMMEMBER nosuch BYRADIUS 1 m"},
		notifyGeoScript...))
}

// watchGeoScript: a GEOADD that changes the key, and a STORE into it,
// abort a transaction watching it; a GEOADD that changes nothing and the
// reads do not.
var watchGeoScript = []pubsubStep{
	{1, "GEOADD g 13.361389 38.115556 Palermo", 1, 0, false},
	{0, "WATCH g", 1, 0, false},
	{1, "GEOADD g 13.361389 38.115556 Palermo", 1, 0, false},
	{1, "GEOPOS g Palermo", 1, 0, false},
	{1, "GEOSEARCH g FROMMEMBER Palermo BYRADIUS 1 km", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "GEOPOS g Palermo", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{0, "WATCH g", 1, 0, false},
	{1, "GEOADD g 15.087269 37.502669 Catania", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{0, "WATCH d", 1, 0, false},
	{1, "GEOSEARCHSTORE d g FROMMEMBER Palermo BYRADIUS 500 km", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{0, "WATCH d", 1, 0, false},
	{1, "GEORADIUS g 0 0 1 m STORE d", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "EXEC", 1, 0, false},
}

func TestWatchGeoMatchesRedis(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	diffPubsubScript(t, s, 2, watchGeoScript)
}

// TestPropagationGeoMatchesRedis: GEOADD goes to the change stream as the
// ZADD of its hashes, the STORE searches as they came; the stream replayed
// into redis-server gives loopkv's keyspace, which is redis-server's.
func TestPropagationGeoMatchesRedis(t *testing.T) {
	ref := startRefRedis(t)
	s, _ := startServer(t, Options{})
	sink := attachSink(s)
	a, b := dialRaw(t, s.Addr()), dialRaw(t, ref)
	for _, line := range []string{
		"GEOADD g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", "GEOADD g nx CH 1 1 Palermo 2 2 x",
		"GEOADD g 13.361389 38.115556 Palermo", "GEOADD g 200 0 bad", "GEORADIUS g 15 37 200 km STOREDIST d1",
		"GEORADIUSBYMEMBER g Palermo 200 km STORE d2 COUNT 1", "GEOSEARCHSTORE d3 g FROMLONLAT 15 37 BYBOX 400 400 km STOREDIST",
		"GEOSEARCHSTORE d1 g FROMLONLAT 0 -80 BYRADIUS 1 m", "GEORADIUS g 15 37 200 km",
		"MULTI", "GEOADD t 1 2 a 3 4 b", "GEOADD t XX 5 6 a", "GEOSEARCHSTORE d4 t FROMMEMBER a BYRADIUS 1000 km", "EXEC",
	} {
		args := strings.Fields(line)
		if x, y := a.do(args...), b.do(args...); x != y {
			t.Fatalf("%s: loopkv %q, redis %q", line, x, y)
		}
	}
	stream := string(sink.bytes())
	for _, want := range []string{"$4\r\nzadd\r\n$1\r\ng\r\n$16\r\n3479099956230698\r\n$7\r\nPalermo\r\n", "$4\r\nzadd\r\n$1\r\ng\r\n$2\r\nnx\r\n$2\r\nCH\r\n"} {
		if !strings.Contains(stream, want) {
			t.Errorf("stream lacks %q:\n%q", want, stream)
		}
	}
	for _, bad := range []string{"GEOADD", "geoadd", "bad", "$9\r\nGEORADIUS\r\n$1\r\ng\r\n$2\r\n15\r\n$2\r\n37\r\n$3\r\n200\r\n$2\r\nkm\r\n*"} {
		if strings.Contains(stream, bad) {
			t.Errorf("stream holds %q:\n%q", bad, stream)
		}
	}
	rc := dialRaw(t, loadStreamIntoRedis(t, []byte(stream)))
	mine := dumpKeyspace(t, dialRaw(t, s.Addr()))
	if got := dumpKeyspace(t, rc); got != mine {
		t.Errorf("replayed stream differs from loopkv's keyspace\nloopkv:\n%s\nreplayed:\n%s", mine, got)
	}
	if r := dumpKeyspace(t, dialRaw(t, ref)); r != mine {
		t.Errorf("loopkv's keyspace differs from redis-server's\nloopkv:\n%s\nredis:\n%s", mine, r)
	}
}

// trackingGeoScript: the geo reads track their key; GEOADD and a STORE
// into a tracked destination invalidate it (an empty result deleting it
// too), a GEOADD that changes nothing does not; GEORADIUS, a write
// command even without STORE, tracks nothing.
var trackingGeoScript = []pubsubStep{
	{0, "HELLO 3", 1, 0, true},
	{1, "GEOADD g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", 1, 0, false},
	{0, "CLIENT TRACKING ON", 1, 0, false},
	{0, "GEOPOS g Palermo", 1, 0, false},
	{1, "GEOADD g 1 1 x", 1, 1, false},
	{0, "GEODIST g Palermo Catania", 1, 0, false},
	{1, "GEOADD g 13.361389 38.115556 Palermo", 1, 0, false},
	{0, "GEOSEARCH g FROMMEMBER Palermo BYRADIUS 300 km", 1, 0, false},
	{0, "GEOHASH d x", 1, 0, false},
	{1, "GEOSEARCHSTORE d g FROMMEMBER Palermo BYRADIUS 300 km", 1, 1, false},
	{0, "GEORADIUS d 15 37 1 km", 1, 0, false},
	{1, "GEORADIUS g 0 0 1 m STORE d2", 1, 0, false},
	{1, "GEOSEARCHSTORE d g FROMMEMBER Palermo BYRADIUS 300 km", 1, 0, false},
	{0, "GEORADIUS_RO d 15 37 1 km", 1, 0, false},
	{1, "GEORADIUS g 0 0 1 m STORE d", 1, 1, false},
	{0, "PING", 1, 0, false},
}

func TestTrackingGeoMatchesRedis(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	diffPubsubScript(t, s, 2, trackingGeoScript)
}
