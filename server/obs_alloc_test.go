package server

import "testing"

// The hot commands allocate nothing with the command statistics on and
// off: latency tracking, the latency monitor armed, the slow log armed
// above the commands' durations or disabled.
var obsAllocSettings = []struct {
	name     string
	settings [][2]string
}{
	{"tracking=yes", nil},
	{"tracking=no", [][2]string{{"latency-tracking", "no"}, {"slowlog-log-slower-than", "-1"}}},
	{"monitor=1000ms", [][2]string{{"latency-monitor-threshold", "1000"}, {"slowlog-log-slower-than", "1000000"}}},
}

func TestHotCommandsDoNotAllocateWithStats(t *testing.T) {
	for _, st := range obsAllocSettings {
		for _, tt := range zeroAllocCommands {
			s, cl, scratch := newAllocServer(t, tt.setup)
			for _, kv := range st.settings {
				if msg := findConfigParam([]byte(kv[0])).set(s, kv[1]); msg != "" {
					t.Fatal(msg)
				}
			}
			in := diffEncode(tt.cmd)
			out := make([]byte, 0, 4096)
			s.execute(cl, in, out, allocNow, scratch)
			if a := testing.AllocsPerRun(100, func() { s.execute(cl, in, out[:0], allocNow, scratch) }); a != 0 {
				t.Errorf("%s %s: %v allocs per execute, want 0", st.name, tt.name, a)
			}
		}
	}
}
