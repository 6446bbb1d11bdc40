package server

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestBgsaveUnderWriteLoadIsAPointInTime: while writers on every loop run
// MULTI/EXEC transactions that INCR a pair of keys in different shards and
// one of them counts with INCR, a BGSAVE's file holds every pair equal and
// a counter between its values before BGSAVE was sent and after its
// reply: the image of one instant, not a mix of before and after.
func TestBgsaveUnderWriteLoadIsAPointInTime(t *testing.T) {
	dir := t.TempDir()
	s, _ := startServer(t, Options{Loops: 2, Persist: PersistOptions{Dir: dir}})
	const pairs = 64
	setup := dialRaw(t, s.Addr())
	var cmds [][]string
	for i := range 20000 { // enough keys that the save takes a while under the writes
		cmds = append(cmds, []string{"SET", "filler:" + strconv.Itoa(i), strings.Repeat("x", i%100)})
	}
	fill(t, setup, cmds)
	var stop atomic.Bool
	var counter atomic.Int64 // the last counter value a writer read back
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for w := range 4 {
		c := dialRaw(t, s.Addr())
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			for !stop.Load() {
				i := strconv.Itoa(rng.Intn(pairs))
				c.send(multibulk("MULTI") + multibulk("INCR", "a:"+i) + multibulk("INCR", "b:"+i) + multibulk("EXEC"))
				for range 3 {
					c.reply()
				}
				if r := c.reply(); !strings.HasPrefix(r, "*2") {
					errs <- "EXEC: " + r
					return
				}
				if w == 0 {
					r := c.do("INCR", "counter")
					n, _ := strconv.ParseInt(strings.TrimSpace(r[1:]), 10, 64)
					counter.Store(n)
				}
			}
		}()
	}
	for counter.Load() < 200 {
		select {
		case e := <-errs:
			t.Fatal(e)
		default:
		}
	}
	before := counter.Load()
	if r := setup.do("BGSAVE"); r != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", r)
	}
	after := counter.Load() + 1 // an INCR in flight at the reply may be in the image
	waitBgsave(t, setup)
	stop.Store(true)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	// The file, loaded by a second server.
	ldir := t.TempDir()
	copyFile(t, filepath.Join(dir, "dump.rdb"), ldir, "dump.rdb")
	s2, _ := startServer(t, Options{Loops: 1, Persist: PersistOptions{Dir: ldir, LoadOnStart: true}})
	c := dialRaw(t, s2.Addr())
	sum := 0
	for i := range pairs {
		a, b := c.do("GET", "a:"+strconv.Itoa(i)), c.do("GET", "b:"+strconv.Itoa(i))
		if a != b {
			t.Errorf("pair %d: a %q, b %q in the file", i, a, b)
		}
		if n, err := strconv.Atoi(strings.Split(a, "\r\n")[1]); err == nil {
			sum += n
		}
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(c.do("GET", "counter")[4:]), 10, 64)
	if n < before || n > after {
		t.Errorf("counter %d in the file, want within [%d, %d]", n, before, after)
	}
	if r := c.do("DBSIZE"); r != fmt.Sprintf(":%d\r\n", 20000+1+2*countNonEmpty(c, pairs)) {
		t.Errorf("DBSIZE %q", r)
	}
	t.Logf("counter %d within [%d, %d]; %d increments of pairs in the image", n, before, after, sum)
}

// countNonEmpty counts the pairs that exist.
func countNonEmpty(c *rawConn, pairs int) int {
	n := 0
	for i := range pairs {
		if c.do("EXISTS", "a:"+strconv.Itoa(i)) == ":1\r\n" {
			n++
		}
	}
	return n
}
