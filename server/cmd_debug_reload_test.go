package server

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestDebugReloadLosesNoConcurrentWrite: DEBUG RELOAD is atomic to the
// other clients, as in single-threaded Redis: writers on other
// connections (and loops) INCR their counters while it saves, flushes and
// loads again and again, and every INCR they had acknowledged is in the
// keyspace after, each counter equal to its acknowledged INCRs; none of
// them is answered with an error (-LOADING) meanwhile. With appendonly no
// (no sink: the writes are ordered for the reload only) and yes.
func TestDebugReloadLosesNoConcurrentWrite(t *testing.T) {
	for _, aof := range []string{"no", "yes"} {
		t.Run("appendonly-"+aof, func(t *testing.T) { debugReloadUnderWrites(t, aof) })
	}
}

// The dataset each reload saves and loads: strings, and hashes and sorted
// sets past the listpack limits.
const fillKeys, fillBig = 5000, 10

func debugReloadUnderWrites(t *testing.T, appendonly string) {
	s, _ := startServer(t, Options{Loops: 2, Persist: PersistOptions{Dir: t.TempDir()},
		AOF: AOFOptions{AppendOnly: appendonly}, Config: map[string]string{"enable-debug-command": "yes"}})
	rc := dialRaw(t, s.Addr())
	var fill strings.Builder
	for i := range fillKeys { // enough for each reload to take a while
		fill.WriteString(multibulk("SET", "fill:"+strconv.Itoa(i), "value-"+strconv.Itoa(i)))
	}
	for i := range fillBig { // and values the loader builds key by key (hashtable, skiplist)
		args := []string{"HSET", "hash:" + strconv.Itoa(i)}
		for f := range 200 {
			args = append(args, "f"+strconv.Itoa(f), strings.Repeat("v", 80))
		}
		fill.WriteString(multibulk(args...))
		args = []string{"ZADD", "zset:" + strconv.Itoa(i)}
		for f := range 200 {
			args = append(args, strconv.Itoa(f), "m"+strconv.Itoa(f))
		}
		fill.WriteString(multibulk(args...))
	}
	rc.send(fill.String())
	for range fillKeys + 2*fillBig {
		rc.reply()
	}
	const writers = 2
	var stop atomic.Bool
	acked := make([]int64, writers)
	errs := make([]string, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wc := dialRaw(t, s.Addr())
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := "counter:" + strconv.Itoa(w)
			for !stop.Load() {
				r := wc.do("INCR", key)
				if !strings.HasPrefix(r, ":") {
					errs[w] = r
					return
				}
				acked[w]++
			}
		}()
	}
	for i := range 4 {
		if r := rc.do("DEBUG", "RELOAD"); r != "+OK\r\n" {
			t.Fatalf("DEBUG RELOAD #%d: %q", i, r)
		}
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("INCRs acknowledged during the reloads: %v", acked)
	for w := range writers {
		if errs[w] != "" {
			t.Errorf("writer %d: INCR answered %q during DEBUG RELOAD", w, errs[w])
		}
		want := ":" + strconv.FormatInt(acked[w], 10) + "\r\n"
		if got := rc.do("INCRBY", "counter:"+strconv.Itoa(w), "0"); got != want {
			t.Errorf("writer %d: counter %q after %d acknowledged INCRs: writes lost across DEBUG RELOAD", w, got, acked[w])
		}
	}
	if got := rc.do("DBSIZE"); got != ":"+strconv.Itoa(fillKeys+2*fillBig+writers)+"\r\n" {
		t.Errorf("DBSIZE %q after the reloads", got)
	}
}
