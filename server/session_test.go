package server

import (
	"strings"
	"testing"
)

// clockReadTests run one batch with the clock left to execute (now 0) and
// say whether the batch had to read it.
var clockReadTests = []struct {
	setup []string // run first, with a clock
	batch string
	reads bool
}{
	{nil, "PING\r\nECHO x\r\nPING\r\n", false},
	{nil, "PING\r\nSET k v PX 5000\r\n", true},
	{nil, "GET k\r\n", true},
	{nil, "NOSUCH\r\n", false},                                                             // unknown: no command ran
	{[]string{"ACL SETUSER default -ping"}, "PING\r\n", true},                              // a denial is logged with its time
	{[]string{"CONFIG SET maxmemory 1"}, "PING\r\n", true},                                 // eviction is expiry-aware
	{[]string{"ACL SETUSER default +@all", "CONFIG SET maxmemory 0"}, "ECHO y\r\n", false}, // restored
}

func TestBatchReadsClockOnlyWhenACommandNeedsIt(t *testing.T) {
	s, cl := newACLTestServer()
	for i, tt := range clockReadTests {
		for _, line := range tt.setup {
			if _, out, _ := s.execute(cl, []byte(line+"\r\n"), nil, nowMs(), make([]byte, 64)); strings.HasPrefix(string(out), "-") {
				t.Fatalf("#%d: %s: %q", i, line, out)
			}
		}
		before := nowMs()
		s.execute(cl, []byte(tt.batch), nil, 0, make([]byte, 64))
		if got := cl.ctx.now; (got != 0) != tt.reads || (got != 0 && got < before) {
			t.Errorf("#%d: %q left now %d (before %d), want read %v", i, tt.batch, got, before, tt.reads)
		}
	}
}

func TestLazyClockKeepsMillisecondExpiry(t *testing.T) {
	s, cl := newACLTestServer()
	before := nowMs()
	s.execute(cl, []byte("PING\r\nSET k v PX 5000\r\n"), nil, 0, make([]byte, 64))
	after := nowMs()
	at := s.store.ExpireAt(0, []byte("k"), after)
	if at < before+5000 || at > after+5000 {
		t.Errorf("expire at %d, want within [%d, %d]", at, before+5000, after+5000)
	}
}
