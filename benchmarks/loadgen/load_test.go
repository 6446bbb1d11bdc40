package loadgen

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// query sends one command on c and returns its raw reply.
func query(t *testing.T, c *Conn, args ...string) string {
	t.Helper()
	c.Append(args...)
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	for {
		n, _, err := readReply(c.in[c.r:c.w])
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			s := string(c.in[c.r : c.r+n])
			c.r += n
			return s
		}
		if err := c.fill(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSetShapePadsKeysAndRejectsKeysThatDoNotFit(t *testing.T) {
	m := mustMix("get=1", 1_000_000, "uniform", "16")
	if err := m.SetShape(14, 10); err != nil {
		t.Fatal(err)
	}
	g := newGen(m, 1)
	for n, want := range map[uint64]string{0: "lkb:0000000000", 7: "lkb:0000000007", 999999: "lkb:0000999999"} {
		if got := string(g.keyOf(prefixString, n)); got != want {
			t.Errorf("keyOf(%d) = %q, want %q", n, got, want)
		}
	}
	for i := range 1000 {
		if k := g.pickKey(prefixString); len(k) != 14 {
			t.Fatalf("pick %d: key %q is not 14 bytes", i, k)
		}
	}
	bad := []struct {
		spec           string
		keys, len, fld int
	}{
		{"get=1", 1_000_000, 9, 10},  // "lkb:" + 6 digits
		{"incr=1", 1_000_000, 11, 1}, // "lkb:n:" + 6 digits
		{"hset=1", 10, 5, 0},         // no fields
	}
	for _, b := range bad {
		m := mustMix(b.spec, b.keys, "uniform", "16")
		if err := m.SetShape(b.len, b.fld); err == nil {
			t.Errorf("%+v: SetShape accepted it", b)
		}
	}
}

func TestLoadWritesEveryStringAndHashWithFixedLengthKeys(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg Target) {
		c, err := Dial(tg, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(false)
		hashes := !strings.HasPrefix(query(t, c, "HSET", "probe", "f", "v"), "-")
		query(t, c, "DEL", "probe")
		spec := "set=1"
		if hashes {
			spec = "set=1,hset=1,hget=1"
		}
		m := mustMix(spec, 2000, "uniform", "16")
		if err := m.SetShape(14, 10); err != nil {
			t.Fatal(err)
		}
		r, err := RunLoad(LoadConfig{Target: tg, Conns: 3, Pipeline: 64, Mix: m})
		checkResult(t, r, err)
		want := int64(2000)
		if hashes {
			want = 4000
		}
		if r.Ops != want || r.OpsPerSec <= 0 || (tg.Pid > 0) != (r.ServerCPUPerOp >= 0) {
			t.Errorf("load: %d ops (want %d), %.0f/s, %v µs/op server", r.Ops, want, r.OpsPerSec, r.ServerCPUPerOp)
		}
		if got := query(t, c, "DBSIZE"); got != ":"+strconv.FormatInt(want, 10)+"\r\n" {
			t.Errorf("DBSIZE = %q, want %d", got, want)
		}
		if got := query(t, c, "STRLEN", "lkb:0000001999"); got != ":16\r\n" {
			t.Errorf("STRLEN of the last key = %q", got)
		}
		if got := query(t, c, "EXISTS", "lkb:0000002000"); got != ":0\r\n" {
			t.Errorf("EXISTS past the key space = %q", got)
		}
		if !hashes {
			t.Log("the server has no HSET: hashes not checked")
			return
		}
		for _, k := range []string{"lkh:0000000000", "lkh:0000001999"} {
			if got := query(t, c, "HLEN", k); got != ":10\r\n" {
				t.Errorf("HLEN %s = %q, want 10", k, got)
			}
			if got := query(t, c, "HSTRLEN", k, "f9"); got != ":16\r\n" {
				t.Errorf("HSTRLEN %s f9 = %q, want 16", k, got)
			}
		}
		// hset and hget stay on the loaded hashes and fields.
		tr, err := RunThroughput(ThroughputConfig{Target: tg, Conns: 2, Pipeline: 8, Mix: m, Requests: 4000,
			Duration: 5 * time.Second})
		checkResult(t, tr, err)
		if got := query(t, c, "DBSIZE"); got != ":4000\r\n" {
			t.Errorf("DBSIZE after hset/hget = %q, want 4000", got)
		}
		if got := query(t, c, "HLEN", "lkh:0000000500"); got != ":10\r\n" {
			t.Errorf("HLEN after hset/hget = %q, want 10", got)
		}
	})
}
