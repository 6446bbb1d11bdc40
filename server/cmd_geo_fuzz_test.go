package server

import (
	"bytes"
	"strings"
	"testing"

	"github.com/loopkv/loopkv/resp"
)

// geoFuzzNames are the commands FuzzGeoArgs picks from by its first byte.
var geoFuzzNames = []string{"GEOADD", "GEODIST", "GEOHASH", "GEOPOS", "GEORADIUS", "GEORADIUS_RO",
	"GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO", "GEOSEARCH", "GEOSEARCHSTORE"}

// FuzzGeoArgs runs a GEO command with arbitrary arguments (the input after
// its first byte, split on spaces) against keys of every kind a search
// meets: a listpack and a skiplist of points, a sorted set of scores that
// are no geohashes, a string. The oracle: no panic, exactly one complete
// RESP reply, an error worded as Redis's are (ERR or WRONGTYPE), and the
// keyspace still answers.
func FuzzGeoArgs(f *testing.F) {
	for _, seed := range []string{
		"\x00g 13.361389 38.115556 Palermo", "\x00g NX CH 1 2 a 3 4 b", "\x00g XX 200 100 x",
		"\x01g Palermo Catania km", "\x02g Palermo x", "\x03odd neg pinf big",
		"\x04g 15 37 200 km WITHDIST WITHCOORD WITHHASH COUNT 2 ASC", "\x04g 15 37 200 km STORE d",
		"\x05big 10 10 1e10 mi COUNT 3 ANY", "\x06g Palermo 100 km STOREDIST d DESC",
		"\x07odd half 0 m", "\x08big FROMLONLAT 10 10 BYBOX 100 50 km DESC COUNT 5 WITHDIST",
		"\x08g FROMMEMBER Palermo BYRADIUS inf m", "\x08s FROMLONLAT 0 0 BYRADIUS 1 m",
		"\x09d big FROMMEMBER p7 BYRADIUS 300 km STOREDIST", "\x09d nokey FROMLONLAT 0 85.05112878 BYRADIUS 0 ft",
		"\x08big FROMLONLAT -180 -85.05112878 BYBOX 40000 40000 km", "\x08big FROMLONLAT 180 0 BYRADIUS 20037726 m ASC",
	} {
		f.Add([]byte(seed))
	}
	setup := []string{
		"GEOADD g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", geoFill("big", 200, 1.7),
		"ZADD odd -1 neg inf pinf -inf ninf 1.5 half 1e300 big 0 zero", "SET s v",
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 || len(in) > 512 {
			return
		}
		o := newOurServer()
		for _, line := range setup {
			o.do(t, diffSplit(t, line))
		}
		args := append([]string{geoFuzzNames[int(in[0])%len(geoFuzzNames)]}, strings.Fields(string(in[1:]))...)
		for _, proto := range []int{2, 3} {
			o.cl.proto = proto
			out := o.do(t, args)
			n, err := resp.ReadReply(out)
			if err != nil || n != len(out) {
				t.Fatalf("%q: reply %q is not one RESP value (n %d, %v)", args, out, n, err)
			}
			if out[0] == '-' && !bytes.HasPrefix(out, []byte("-ERR ")) && !bytes.HasPrefix(out, []byte("-WRONGTYPE ")) {
				t.Fatalf("%q: error %q", args, out)
			}
		}
		for _, key := range []string{"g", "big", "d", "odd"} {
			out := o.do(t, []string{"ZRANGE", key, "0", "-1", "WITHSCORES"})
			if n, err := resp.ReadReply(out); err != nil || n != len(out) || out[0] != '*' && !bytes.HasPrefix(out, []byte("-WRONGTYPE")) {
				t.Fatalf("%q: then ZRANGE %s gives %q", args, key, out)
			}
		}
	})
}
