package server

import "testing"

// GEOPOS, GEODIST and GEOHASH of existing members, and GEOADD of up to
// eight points, reply a fixed shape
// and join the zero-allocation tables of cmd_string_alloc_test.go, on
// both encodings: a listpack g and a skiplist big (past 128 members).
func init() {
	g := "GEOADD g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania"
	big := geoFill("big", 200, 0.01)
	zeroAllocCommands = append(zeroAllocCommands, []struct {
		name  string
		setup []string
		cmd   []string
	}{
		{"GEOPOS/listpack", []string{g}, []string{"GEOPOS", "g", "Palermo", "Catania", "nosuch"}},
		{"GEOPOS/skiplist", []string{big}, []string{"GEOPOS", "big", "p150", "p3"}},
		{"GEODIST/listpack", []string{g}, []string{"GEODIST", "g", "Palermo", "Catania"}},
		{"GEODIST/skiplist/km", []string{big}, []string{"GEODIST", "big", "p150", "p3", "km"}},
		{"GEODIST/missing", []string{g}, []string{"GEODIST", "g", "Palermo", "nosuch"}},
		{"GEOHASH/listpack", []string{g}, []string{"GEOHASH", "g", "Palermo", "Catania"}},
		{"GEOHASH/skiplist", []string{big}, []string{"GEOHASH", "big", "p150"}},
		{"GEOADD/existing", []string{g}, []string{"GEOADD", "g", "13.361389", "38.115556", "Palermo"}},
		{"GEOADD/skiplist/XX CH", []string{big}, []string{"GEOADD", "big", "XX", "CH", "1.5", "2.5", "p150"}},
	}...)
}

// TestGeoReadsDoNotAllocateInRESP3 is the same for RESP3 replies (the
// points as doubles, nulls as _).
func TestGeoReadsDoNotAllocateInRESP3(t *testing.T) {
	for _, cmd := range [][]string{
		{"GEOPOS", "big", "p150", "p3", "nosuch"},
		{"GEODIST", "big", "p150", "p3", "mi"},
		{"GEOHASH", "big", "p1", "nosuch"},
	} {
		s, cl, scratch := newAllocServer(t, []string{geoFill("big", 200, 0.01)})
		cl.proto = 3
		args := make([][]byte, len(cmd))
		for i, a := range cmd {
			args[i] = []byte(a)
		}
		c := &cmdCtx{srv: s, cl: cl, store: s.store, args: args, out: make([]byte, 0, 4096), now: allocNow}
		allocs := testing.AllocsPerRun(200, func() {
			c.out = c.out[:0]
			s.call(c, scratch)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocs per command, want 0", cmd[0], allocs)
		}
		if len(c.out) == 0 || c.out[0] == '-' {
			t.Errorf("%s: reply %q", cmd[0], c.out)
		}
	}
}
