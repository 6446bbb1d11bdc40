package server

import (
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// halfCloseScript is what connection i sends before it shuts its write
// side: replies small enough for a loop to defer (gnetHoldMax) on even
// connections, and on odd ones one too large to defer after them.
func halfCloseScript(i int) string {
	k := fmt.Sprintf("hc:%d", i)
	s := multibulk("SET", k, "1") + multibulk("INCR", k) + multibulk("MULTI") + multibulk("INCR", k) +
		multibulk("GET", k) + multibulk("EXEC") + multibulk("PING")
	if i%2 == 1 {
		s += multibulk("SET", k+":big", strings.Repeat("v", gnetHoldMax+100)) + multibulk("GET", k+":big")
	}
	return s + multibulk("GET", k)
}

// halfCloseReplies sends halfCloseScript on n connections to addr, each
// shutting its write side after it, and returns what each read until the
// server closed it. The scripts are sent between hold and the function it
// returns (when hold is not nil).
func halfCloseReplies(t *testing.T, addr string, n int, hold func() (release func())) []string {
	t.Helper()
	conns := make([]*net.TCPConn, n)
	for i := range conns {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		_ = c.SetDeadline(time.Now().Add(20 * time.Second))
		// A round trip first: the server has admitted the connection
		// before its script and end of file come.
		pong := make([]byte, len("+PONG\r\n"))
		if _, err := io.WriteString(c, multibulk("PING")); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, pong); err != nil || string(pong) != "+PONG\r\n" {
			t.Fatalf("PING: %q %v", pong, err)
		}
		conns[i] = c.(*net.TCPConn)
	}
	release := func() {}
	if hold != nil {
		release = hold()
	}
	got := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := io.WriteString(c, halfCloseScript(i)); err != nil {
				errs[i] = err
				return
			}
			_ = c.CloseWrite()
			b, err := io.ReadAll(c)
			got[i], errs[i] = string(b), err
		}()
	}
	time.Sleep(50 * time.Millisecond) // the scripts and their ends reach the server's socket
	release()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
	}
	return got
}

// TestGnetRepliesBeforeHalfCloseMatchRedis: clients that send their
// commands and shut their side at once get every reply, in order, before
// the server closes, as from redis-server. A gnet loop defers small
// replies to the end of its batch, and reads the end of file before that
// when the file's end was there with the commands (the loop is held while
// they come). TestNetpollRepliesBeforeHalfCloseMatchRedis is its netpoll
// twin.
func TestGnetRepliesBeforeHalfCloseMatchRedis(t *testing.T) {
	ref := startRefRedis(t)
	s, _ := startServerOnFreePorts(t, Options{Engine: "gnet", Loops: 1}, false)
	if got := dialRaw(t, s.Addr()).do("PING"); got != "+PONG\r\n" {
		t.Fatalf("PING: %q", got)
	}
	o := gnetOutOf(t, s)
	const n = 16
	want := halfCloseReplies(t, ref, n, nil)
	got := halfCloseReplies(t, s.Addr(), n, func() func() { return holdLoop(t, o) })
	for i := range n {
		if got[i] != want[i] {
			t.Errorf("connection %d: %d bytes %.80q..., redis %d bytes %.80q...", i, len(got[i]), got[i], len(want[i]), want[i])
		}
	}
}

// holdLoop keeps o's loop busy until the returned function runs.
func holdLoop(t *testing.T, o *gnetOut) (release func()) {
	t.Helper()
	ch, held := make(chan struct{}), make(chan struct{})
	if err := o.ls.loop.Execute(func() { close(held); <-ch }); err != nil {
		t.Fatal(err)
	}
	<-held
	return func() { close(ch) }
}

// gnetOutOf returns the deferred replies of s's one gnet loop.
func gnetOutOf(t *testing.T, s *Server) *gnetOut {
	t.Helper()
	s.trMu.Lock()
	gt, _ := s.tr.(*gnetTransport)
	s.trMu.Unlock()
	if gt == nil {
		t.Fatal("not a gnet server")
	}
	gt.mu.Lock()
	defer gt.mu.Unlock()
	if len(gt.outs) != 1 {
		t.Fatalf("%d gnet loops with connections, want 1", len(gt.outs))
	}
	for _, o := range gt.outs {
		return o
	}
	return nil
}

// onLoop runs fn on o's loop and waits for it.
func onLoop(t *testing.T, o *gnetOut, fn func()) {
	t.Helper()
	done := make(chan struct{})
	if err := o.ls.loop.Execute(func() { fn(); close(done) }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("loop did not run the function")
	}
}

// TestGnetLoopDefersABatchAndWritesALoneClientAtOnce: replies read in
// one batch of a loop's callbacks are written together at its end (one
// flush for all the connections), and a loop whose flushes keep finding
// one connection writes at once for a while (gnetLoneFlushes,
// gnetLoneInline).
func TestGnetLoopDefersABatchAndWritesALoneClientAtOnce(t *testing.T) {
	s, _ := startServerOnFreePorts(t, Options{Engine: "gnet", Loops: 1}, false)
	const n = 10
	conns := make([]*rawConn, n)
	for i := range conns {
		conns[i] = dialRaw(t, s.Addr())
	}
	if got := conns[0].do("PING"); got != "+PONG\r\n" {
		t.Fatalf("PING: %q", got)
	}
	o := gnetOutOf(t, s)
	state := func() (lone, inline int) {
		onLoop(t, o, func() { lone, inline = o.lone, o.inline })
		return
	}
	for i := range gnetLoneFlushes - 2 { // one PING (and its flush) at a time
		if got := conns[0].do("ECHO", fmt.Sprint(i)); got != fmt.Sprintf("$1\r\n%d\r\n", i) {
			t.Fatalf("ECHO %d: %q", i, got)
		}
	}
	if lone, inline := state(); lone != gnetLoneFlushes-1 || inline != 0 {
		t.Fatalf("after %d lone flushes: lone %d inline %d", gnetLoneFlushes-1, lone, inline)
	}

	// every connection's command waits in the kernel while the loop is
	// held, so the loop reads them all in its next batch
	release := holdLoop(t, o)
	for i, c := range conns {
		c.send(multibulk("ECHO", fmt.Sprintf("batch %d", i)))
	}
	time.Sleep(50 * time.Millisecond)
	release()
	for i, c := range conns {
		want := fmt.Sprintf("batch %d", i)
		if got := c.reply(); got != fmt.Sprintf("$%d\r\n%s\r\n", len(want), want) {
			t.Fatalf("connection %d: %q", i, got)
		}
	}
	// The batch's flush found many connections and reset lone. The bell
	// that runs it is an event in the loop's epoll set, so a connection
	// whose bytes reached the socket after the bell rang (a loaded machine
	// defers loopback delivery to ksoftirqd) gets a flush of its own after
	// it: lone 1. Without the reset lone would have reached
	// gnetLoneFlushes and set inline.
	lone0, inline0 := state()
	if lone0 > 1 || inline0 != 0 {
		t.Fatalf("after a batch of %d connections: lone %d inline %d, want lone 0 (or 1) and inline 0", n, lone0, inline0)
	}

	for i := range gnetLoneFlushes + 2 {
		if got := conns[1].do("PING"); got != "+PONG\r\n" {
			t.Fatalf("PING %d: %q", i, got)
		}
	}
	// gnetLoneFlushes-lone0 deferred PINGs, then the rest written at once
	if lone, inline := state(); lone != 0 || inline != gnetLoneInline-2-lone0 {
		t.Fatalf("after %d lone PINGs: lone %d inline %d, want 0 %d", gnetLoneFlushes+2, lone, inline, gnetLoneInline-2-lone0)
	}

	// a quiet loop lets its buffer go (trim, within two of its periods)
	var held bool
	onLoop(t, o, func() { held = o.buf != nil })
	if !held {
		t.Fatal("no buffer after deferred replies")
	}
	waitFor(t, func() bool {
		onLoop(t, o, func() { held = o.buf != nil })
		return !held
	}, "the quiet loop to drop its buffer for deferred replies")
}

// TestGnetLoopsTriggerWithoutClosures: a gnet loop's poller is found
// (loopPoller: a gnet whose layout changed fails here rather than
// falling back unnoticed); a deferred batch rings the loop's doorbell and
// allocates nothing; a Wake allocates nothing (the loop's wake stack); a
// task queued with Execute (a func made once) allocates only gnet's queue
// node, where gnet's own Execute adds a closure.
func TestGnetLoopsTriggerWithoutClosures(t *testing.T) {
	s, _ := startServerOnFreePorts(t, Options{Engine: "gnet", Loops: 1}, false)
	const n = 8
	conns := make([]net.Conn, n)
	for i := range conns {
		c, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		conns[i] = c
	}
	req, want := []byte("*1\r\n$4\r\nPING\r\n"), "+PONG\r\n"
	buf := make([]byte, len(want))
	batch := func() {
		for _, c := range conns {
			if _, err := c.Write(req); err != nil {
				t.Fatal(err)
			}
		}
		for i, c := range conns {
			if _, err := io.ReadFull(c, buf); err != nil || string(buf) != want {
				t.Fatalf("connection %d: %q, %v", i, buf, err)
			}
		}
	}
	batch()
	o := gnetOutOf(t, s)
	l, _ := o.ls.loop.(gnetLoop)
	if l.p == nil || o.poller != l.p {
		t.Fatalf("loop poller %p, deferred replies' %p: gnet's eventloop has no field poller of type *netpoll.Poller", l.p, o.poller)
	}
	if gnetBellBuilt && !o.hasBell {
		t.Fatal("no doorbell on the loop")
	}
	if o.hasBell {
		if a := testing.AllocsPerRun(100, batch); a != 0 {
			t.Errorf("a batch of %d PINGs: %.2f allocations, want 0", n, a)
		}
	}

	snap := s.clients.snapshot()
	if len(snap) != n {
		t.Fatalf("%d clients, want %d", len(snap), n)
	}
	g, _ := snap[0].tc.(*gnetConn)
	if g == nil {
		t.Fatalf("client's transport %T, want *gnetConn", snap[0].tc)
	}
	ran := make(chan struct{})
	fence := func() { ran <- struct{}{} }
	if a := testing.AllocsPerRun(200, func() {
		if err := o.ls.loop.Execute(fence); err != nil {
			t.Fatal(err)
		}
		<-ran
	}); a > 1 {
		t.Errorf("Execute of a func made once: %.2f allocations per task, want at most gnet's queue node", a)
	}
	// a wake runs the connection's traffic handler: with nothing to read
	// it writes nothing, and the fence queued after it runs after it
	if a := testing.AllocsPerRun(200, func() {
		g.Wake()
		if err := o.ls.loop.Execute(fence); err != nil {
			t.Fatal(err)
		}
		<-ran
	}); a > 1 && o.hasBell {
		t.Errorf("Wake and a fence: %.2f allocations, want at most the fence's queue node (a wake is on the loop's wake stack)", a)
	} else if a > 2 {
		t.Errorf("Wake and a fence without a doorbell: %.2f allocations, want at most gnet's two queue nodes", a)
	}
	batch()
}

// TestGnetCrossLoopPublishAllocatesNothing: a message published on one
// loop to a subscriber on the other (posted to its outbox, its loop woken
// through the wake stack, sealed and written there) allocates nothing in
// the steady state, nor does the publisher's reply.
func TestGnetCrossLoopPublishAllocatesNothing(t *testing.T) {
	s, _ := startServerOnFreePorts(t, Options{Engine: "gnet", Loops: 2}, false)
	sub := dialRaw(t, s.Addr())
	pub := otherLoopConn(t, s, sub)
	if got := sub.do("SUBSCRIBE", "ch"); got != "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n" {
		t.Fatalf("SUBSCRIBE: %q", got)
	}
	req := []byte(multibulk("PUBLISH", "ch", "x"))
	msg, ack := "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$1\r\nx\r\n", ":1\r\n"
	mbuf, abuf := make([]byte, len(msg)), make([]byte, len(ack))
	publish := func() {
		if _, err := pub.c.Write(req); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(pub.c, abuf); err != nil || string(abuf) != ack {
			t.Fatalf("PUBLISH: %q, %v", abuf, err)
		}
		if _, err := io.ReadFull(sub.c, mbuf); err != nil || string(mbuf) != msg {
			t.Fatalf("message: %q, %v", mbuf, err)
		}
	}
	for range 10 {
		publish()
	}
	if !gnetBellBuilt {
		t.Skip("without gnet's poll_opt reactor on Linux a wake is a task on gnet's queue (one node)")
	}
	if a := testing.AllocsPerRun(200, publish); a != 0 {
		t.Errorf("PUBLISH to a subscriber on the other loop: %.2f allocations per message, want 0", a)
	}
}
