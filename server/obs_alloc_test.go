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
				if msg := findConfigParam([]byte(kv[0])).setValue(s, kv[1]); msg != "" {
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

// BenchmarkCommandStats times what every command pays for the statistics:
// the clock, the counters and the checks of endCall.
func BenchmarkCommandStats(b *testing.B) {
	s, cl, _ := newAllocServer(b, nil)
	c := &cmdCtx{srv: s, cl: cl, store: s.store, args: [][]byte{[]byte("GET"), []byte("k")}}
	cmd := commandByName("get")
	b.ReportAllocs()
	for b.Loop() {
		s.endCall(c, cmd, beginCall(c))
	}
}

// FuzzLatencyPercentiles: CONFIG SET latency-tracking-info-percentiles
// never panics, and what CONFIG GET prints after a value it took sets the
// same percentiles again.
func FuzzLatencyPercentiles(f *testing.F) {
	for _, seed := range []string{"50 99 99.9", "", "0 100", "50.5", "1e2", "x", "101", "-0", "NaN", "99.9999999"} {
		f.Add(seed)
	}
	p := findConfigParam([]byte("latency-tracking-info-percentiles"))
	f.Fuzz(func(t *testing.T, v string) {
		s, _, _ := newAllocServer(t, nil)
		if p.setValue(s, v) != "" {
			return
		}
		first := p.get(s)
		if msg := p.setValue(s, first); msg != "" {
			t.Fatalf("%q printed as %q, which is refused: %s", v, first, msg)
		}
		if again := p.get(s); again != first {
			t.Fatalf("%q printed as %q, then %q", v, first, again)
		}
	})
}
