package server

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func init() {
	engineSuite = append(engineSuite, struct {
		name string
		fn   func(*testing.T)
	}{"AccessFieldsMoveWithRDB", TestAccessFieldsMoveWithRDB})
}

// TestAccessFieldsMoveWithRDB: under an LFU policy an RDB file carries
// each key's access counter (FREQ) and under an LRU policy its idle time
// (IDLE), both ways between loopkv and redis-server, as Redis's
// rdbSaveKeyValuePair and objectSetLRUOrLFU do. With lfu-log-factor 0
// every access counts and with lfu-decay-time 0 nothing decays, so the
// counters are exact.
func TestAccessFieldsMoveWithRDB(t *testing.T) {
	lfuArgs := []string{"--maxmemory-policy", "allkeys-lfu", "--lfu-log-factor", "0", "--lfu-decay-time", "0"}
	lruArgs := []string{"--maxmemory-policy", "allkeys-lru"}
	// accesses gives key i i*3 GETs, so the counters are 5, 8, 11, ...
	accesses := func(c *rawConn) {
		for i := range 6 {
			k := "k" + strconv.Itoa(i)
			c.do("SET", k, "v")
			for range i * 3 {
				c.do("GET", k)
			}
		}
		payload := bulkValue(t, c.do("DUMP", "k0"))
		c.do("RESTORE", "idle", "0", payload, "IDLETIME", "5000")
		c.do("RESTORE", "freq", "0", payload, "FREQ", "200")
	}
	field := func(c *rawConn, sub, key string) int {
		r := c.do("OBJECT", sub, key)
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(r, ":")))
		if err != nil {
			t.Fatalf("OBJECT %s %s: %q", sub, key, r)
		}
		return n
	}
	check := func(t *testing.T, how string, lfu bool, got, want *rawConn) {
		keys := []string{"k0", "k1", "k2", "k3", "k4", "k5", "idle", "freq"}
		for _, k := range keys {
			if lfu {
				if g, w := field(got, "FREQ", k), field(want, "FREQ", k); g != w {
					t.Errorf("%s: OBJECT FREQ %s = %d, want %d", how, k, g, w)
				}
				continue
			}
			if g, w := field(got, "IDLETIME", k), field(want, "IDLETIME", k); g < w-2 || g > w+2 {
				t.Errorf("%s: OBJECT IDLETIME %s = %d, want about %d", how, k, g, w)
			}
		}
	}
	for _, lfu := range []bool{true, false} {
		args, policy := lruArgs, "allkeys-lru"
		if lfu {
			args, policy = lfuArgs, "allkeys-lfu"
		}
		opts := func(dir string, load bool) Options {
			return Options{Loops: 1, MaxMemoryPolicy: policy, Persist: PersistOptions{Dir: dir, LoadOnStart: load}}
		}
		setLFU := func(c *rawConn) {
			if lfu {
				c.do("CONFIG", "SET", "lfu-log-factor", "0", "lfu-decay-time", "0")
			}
		}
		// loopkv saves, redis-server loads
		dir := t.TempDir()
		s, _ := startServer(t, opts(dir, false))
		ours := dialRaw(t, s.Addr())
		setLFU(ours)
		accesses(ours)
		if r := ours.do("SAVE"); r != "+OK\r\n" {
			t.Fatalf("SAVE: %q", r)
		}
		rdir := t.TempDir()
		copyFile(t, filepath.Join(dir, "dump.rdb"), rdir, "dump.rdb")
		ref := dialRaw(t, startRefRedis(t, append([]string{"--dir", rdir}, args...)...))
		check(t, policy+": loopkv to redis", lfu, ref, ours)

		// redis-server saves, loopkv loads
		rdir = t.TempDir()
		ref = dialRaw(t, startRefRedis(t, append([]string{"--dir", rdir}, args...)...))
		accesses(ref)
		if r := ref.do("SAVE"); r != "+OK\r\n" {
			t.Fatalf("redis SAVE: %q", r)
		}
		dir = t.TempDir()
		copyFile(t, filepath.Join(rdir, "dump.rdb"), dir, "dump.rdb")
		s, _ = startServer(t, opts(dir, true))
		ours = dialRaw(t, s.Addr())
		setLFU(ours)
		check(t, policy+": redis to loopkv", lfu, ours, ref)
	}
}
