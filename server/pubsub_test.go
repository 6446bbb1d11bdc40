package server

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"PubSubFramingMatchesRedis", TestPubSubFramingMatchesRedis},
		{"PubSubFanOutAcrossLoops", TestPubSubFanOutAcrossLoops},
		{"PubSubFanOutOverTLS", TestPubSubFanOutOverTLS},
		{"PubSubSlowSubscriberIsCut", TestPubSubSlowSubscriberIsCut},
		{"GoRedisPubSub", TestGoRedisPubSub},
		{"PubSubACLChannelsMatchRedis", TestPubSubACLChannelsMatchRedis},
	}...)
}

// pubsubStep is one command of a framing script: sent on connection conn
// (0 the subscriber, 1 the publisher), followed by reading n replies on
// it and then m on the subscriber; skip when the replies differ between
// servers by nature (HELLO's id).
type pubsubStep struct {
	conn int
	cmd  string
	n, m int
	skip bool
}

var pubsubFraming = []pubsubStep{
	{0, "SUBSCRIBE c1 c2", 2, 0, false},
	{0, "SUBSCRIBE c1", 1, 0, false},
	{0, "PSUBSCRIBE p* q?", 2, 0, false},
	{0, "SSUBSCRIBE s1", 1, 0, false},
	{0, "GET x", 1, 0, false},
	{0, "CLIENT ID", 1, 0, false},
	{0, "PING", 1, 0, false},
	{0, "PING hi", 1, 0, false},
	{0, "PING a b", 1, 0, false},
	{1, "PUBLISH c1 m1", 1, 1, false},
	{1, "PUBLISH p1 m2", 1, 1, false},
	{1, "PUBLISH nobody m", 1, 0, false},
	{1, "SPUBLISH s1 m3", 1, 1, false},
	{1, "PUBSUB NUMSUB c1 c2 nobody", 1, 0, false},
	{1, "PUBSUB NUMSUB", 1, 0, false},
	{1, "PUBSUB NUMPAT", 1, 0, false},
	{1, "PUBSUB SHARDNUMSUB s1 x", 1, 0, false},
	{1, "PUBSUB CHANNELS c1", 1, 0, false},
	{1, "PUBSUB SHARDCHANNELS *", 1, 0, false},
	{1, "PUBSUB CHANNELS a b", 1, 0, false},
	{1, "#info pubsub_channels pubsub_patterns pubsubshard_channels", 1, 0, false},
	{1, "PUBSUB NOSUCH", 1, 0, false},
	{1, "INFO nosuch", 1, 0, false},
	{0, "UNSUBSCRIBE c1 nosuch", 2, 0, false},
	{0, "UNSUBSCRIBE", 1, 0, false},
	{0, "PUNSUBSCRIBE q?", 1, 0, false},
	{0, "PUNSUBSCRIBE", 1, 0, false},
	{0, "SUNSUBSCRIBE", 1, 0, false},
	{0, "UNSUBSCRIBE", 1, 0, false},
	{0, "PUNSUBSCRIBE", 1, 0, false},
	{0, "GET x", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "SUBSCRIBE t", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{0, "MULTI", 1, 0, false},
	{0, "EXEC", 1, 0, false},
	{0, "RESET", 1, 0, false},
	{0, "HELLO 3", 1, 0, true},
	{0, "SUBSCRIBE c1", 1, 0, false},
	{0, "PSUBSCRIBE c*", 1, 0, false},
	{0, "GET x", 1, 0, false},
	{0, "PING", 1, 0, false},
	{0, "SSUBSCRIBE s1 s2", 2, 0, false},
	{0, "#client flags sub psub ssub multi", 1, 0, false},
	{1, "PUBLISH c1 m4", 1, 2, false},
	{0, "PUBLISH c1 self", 3, 0, false},
	{0, "UNSUBSCRIBE nosuch", 1, 0, false},
	{0, "RESET", 1, 0, false},
	{1, "PUBSUB NUMSUB c1", 1, 0, false},
	{1, "PUBSUB NUMPAT", 1, 0, false},
	{1, "#info pubsub_channels pubsub_patterns pubsubshard_channels", 1, 0, false},
}

// runPubsubScript runs steps over conns connections to addr and returns
// each step's replies. "{id0}" in a command stands for connection 0's
// client id; a command "#info FIELD..." is INFO reduced to those fields'
// lines, "#client FIELD..." CLIENT INFO reduced to those fields, and
// "#await FIELD VALUE" asks INFO until FIELD has VALUE (a client another
// connection sent a blocking command: blocked_clients), for up to 10 s.
func runPubsubScript(t *testing.T, addr string, conns int, steps []pubsubStep) []string {
	cs := make([]*rawConn, conns)
	for i := range cs {
		cs[i] = dialRaw(t, addr)
	}
	id0 := strings.TrimSpace(strings.TrimPrefix(cs[0].do("CLIENT", "ID"), ":"))
	var out []string
	for _, st := range steps {
		c := cs[st.conn]
		args := strings.Fields(strings.ReplaceAll(st.cmd, "{id0}", id0))
		if args[0] == "#await" && len(args) == 3 {
			want := args[1] + ":" + args[2]
			var line string
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
				if line = infoFields(c.do("INFO", "everything"), args[1:2])[0]; line == want || time.Now().After(deadline) {
					break
				}
			}
			out = append(out, st.cmd+" => "+line)
			continue
		}
		info, clientInfo := args[0] == "#info", args[0] == "#client"
		switch {
		case info:
			args = []string{"INFO", "everything"}
		case clientInfo:
			args = []string{"CLIENT", "INFO"}
		}
		c.send(multibulk(args...))
		var got []string
		for i := 0; i < st.n; i++ {
			got = append(got, c.reply())
		}
		for i := 0; i < st.m; i++ {
			got = append(got, cs[0].reply())
		}
		switch {
		case info:
			got = infoFields(got[0], strings.Fields(st.cmd)[1:])
		case clientInfo:
			got = clientInfoFields(got[0], strings.Fields(st.cmd)[1:])
		}
		if st.skip {
			got = nil
		}
		out = append(out, st.cmd+" => "+strings.Join(got, " | "))
	}
	return out
}

// infoFields returns the lines of the INFO reply raw that name fields.
func infoFields(raw string, fields []string) []string {
	var out []string
	for _, f := range fields {
		line := f + ":<missing>"
		for _, l := range strings.Split(raw, "\r\n") {
			if strings.HasPrefix(l, f+":") {
				line = l
			}
		}
		out = append(out, line)
	}
	return out
}

// clientInfoFields returns the FIELD=value pairs of a CLIENT INFO reply
// raw that name fields.
func clientInfoFields(raw string, fields []string) []string {
	var out []string
	for _, f := range fields {
		pair := f + "=<missing>"
		for _, p := range strings.Fields(raw) {
			if strings.HasPrefix(p, f+"=") {
				pair = p
			}
		}
		out = append(out, pair)
	}
	return out
}

// diffPubsubScript runs steps on s and on a reference redis-server and
// reports every step whose replies differ.
func diffPubsubScript(t *testing.T, s *Server, conns int, steps []pubsubStep) {
	t.Helper()
	ref := startDiffRedis(t)
	got, want := runPubsubScript(t, s.Addr(), conns, steps), runPubsubScript(t, ref.addr, conns, steps)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("step %d:\n  got  %q\n  want %q", i, got[i], want[i])
		}
	}
}

// Subscribe confirmations, messages, pmessages, smessages, PUBSUB's
// replies and the RESP2 subscribed mode, byte for byte as redis-server.
func TestPubSubFramingMatchesRedis(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	diffPubsubScript(t, s, 2, pubsubFraming)
}

// readMessages reads n messages from rc and checks they are msg-0 ... in order.
func readMessages(rc *rawConn, kind, pattern, channel string, n int) error {
	for i := 0; i < n; i++ {
		rep, err := readRaw(rc.r)
		if err != nil {
			return err
		}
		payload := fmt.Sprintf("msg-%d", i)
		var want string
		if kind == "pmessage" {
			want = multibulk(kind, pattern, channel, payload)
		} else {
			want = multibulk(kind, channel, payload)
		}
		if rep != want {
			return fmt.Errorf("message %d = %q, want %q", i, rep, want)
		}
	}
	return nil
}

// fanOut subscribes subs (and a pattern and a shard subscriber), publishes
// n messages from pub and checks every subscriber got each once, in order.
func fanOut(t *testing.T, s *Server, pub *rawConn, subs []*rawConn, n int) {
	for _, c := range subs {
		c.send(multibulk("SUBSCRIBE", "news"))
	}
	for _, c := range subs {
		if got := c.reply(); got != "*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n" {
			t.Fatalf("SUBSCRIBE = %q", got)
		}
	}
	pat, shard := subs[0], subs[1]
	pat.do("PSUBSCRIBE", "ne*")
	shard.do("SSUBSCRIBE", "news")
	for i := 0; i < n; i++ {
		if got := pub.do("PUBLISH", "news", fmt.Sprintf("msg-%d", i)); got != fmt.Sprintf(":%d\r\n", len(subs)+1) {
			t.Fatalf("PUBLISH = %q", got)
		}
		if got := pub.do("SPUBLISH", "news", fmt.Sprintf("msg-%d", i)); got != ":1\r\n" {
			t.Fatalf("SPUBLISH = %q", got)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(subs))
	for i, c := range subs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch i {
			case 0: // channel and pattern messages interleave per publish
				for j := 0; j < n; j++ {
					p := fmt.Sprintf("msg-%d", j)
					for _, want := range []string{multibulk("message", "news", p), multibulk("pmessage", "ne*", "news", p)} {
						if rep, err := readRaw(c.r); err != nil || rep != want {
							errs <- fmt.Errorf("pattern subscriber: %q, %v, want %q", rep, err, want)
							return
						}
					}
				}
			case 1:
				for j := 0; j < n; j++ {
					p := fmt.Sprintf("msg-%d", j)
					for _, want := range []string{multibulk("message", "news", p), multibulk("smessage", "news", p)} {
						if rep, err := readRaw(c.r); err != nil || rep != want {
							errs <- fmt.Errorf("shard subscriber: %q, %v, want %q", rep, err, want)
							return
						}
					}
				}
			default:
				if err := readMessages(c, "message", "", "news", n); err != nil {
					errs <- fmt.Errorf("subscriber %d: %v", i, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// 1,000 subscribers spread over four loops each receive every message of
// one publisher once, in order.
func TestPubSubFanOutAcrossLoops(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 4})
	subs := make([]*rawConn, 1000)
	for i := range subs {
		subs[i] = dialRaw(t, s.Addr())
	}
	fanOut(t, s, dialRaw(t, s.Addr()), subs, 20)
	loops := map[*loopState]bool{}
	for _, cs := range s.clients.snapshot() {
		loops[cs.ls] = true
	}
	if len(loops) < 2 {
		t.Fatalf("subscribers on %d loops", len(loops))
	}
}

func dialRawTLS(t *testing.T, p *testPKI, addr string) *rawConn {
	c := dialTLS(t, addr, p.clientConfig())
	return &rawConn{t: t, c: c, r: bufio.NewReaderSize(c, 64<<10)}
}

// 1,000 subscribers over TLS, on both loops, get every message once, in
// order, sealed by their own loops (about 6 s per engine under -race).
func TestPubSubFanOutOverTLS(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{Loops: 2})
	subs := make([]*rawConn, 1000)
	for i := range subs {
		subs[i] = dialRawTLS(t, p, s.TLSAddr())
	}
	fanOut(t, s, dialRawTLS(t, p, s.TLSAddr()), subs, 20)
}

// A subscriber that does not read is closed once its pending output passes
// client-output-buffer-limit pubsub; the publisher never waits and the
// other subscribers keep receiving.
// Over plaintext and over TLS (the subscribers'), on both loops.
func TestPubSubSlowSubscriberIsCut(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{Loops: 2})
	t.Run("plaintext", func(t *testing.T) {
		slowSubscriberCut(t, s, func() *rawConn { return dialRaw(t, s.Addr()) })
	})
	t.Run("tls", func(t *testing.T) {
		slowSubscriberCut(t, s, func() *rawConn { return dialRawTLS(t, p, s.TLSAddr()) })
	})
}

// slowSubscriberCut subscribes a slow and a fast client from dial, and
// publishes past the slow one's limit.
func slowSubscriberCut(t *testing.T, s *Server, dial func() *rawConn) {
	pub := dialRaw(t, s.Addr())
	if got := pub.do("CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb 256kb 60"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET = %q", got)
	}
	slow := dial()
	fast := dial()
	slow.do("SUBSCRIBE", "ch")
	fast.do("SUBSCRIBE", "ch")
	payload := strings.Repeat("x", 64<<10)
	want := multibulk("message", "ch", payload)
	const n = 400 // 25 MiB: more than the socket buffers and the limit
	receivers := map[string]int{}
	for i := 0; i < n; i++ {
		receivers[pub.do("PUBLISH", "ch", payload)]++
		// the fast subscriber reads each message before the next is
		// published, so that only the slow one can reach the limit, however
		// slowly this test runs
		if rep, err := readRaw(fast.r); err != nil || rep != want {
			t.Fatalf("fast subscriber message %d: %v", i, err)
		}
	}
	if receivers[":1\r\n"] == 0 {
		t.Fatalf("the slow subscriber was never cut: PUBLISH replies %v", receivers)
	}
	slow.expectClosed()
	if got := pub.do("PUBSUB", "NUMSUB", "ch"); got != "*2\r\n$2\r\nch\r\n:1\r\n" {
		t.Fatalf("NUMSUB after the cut = %q", got)
	}
}

// go-redis's PubSub (RESP2 and RESP3): subscribe, patterns, receive.
func TestGoRedisPubSub(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		c := newGoRedis(t, redis.Options{Addr: s.Addr(), Protocol: proto})
		ps := c.Subscribe(ctx, "gr")
		if _, err := ps.Receive(ctx); err != nil {
			t.Fatalf("proto %d: subscribe: %v", proto, err)
		}
		if err := ps.PSubscribe(ctx, "g*"); err != nil {
			t.Fatal(err)
		}
		ch := ps.Channel()
		time.Sleep(20 * time.Millisecond)
		if n, err := c.Publish(ctx, "gr", "hello").Result(); err != nil || n != 2 {
			t.Fatalf("proto %d: PUBLISH = %d, %v", proto, n, err)
		}
		got := map[string]bool{}
		for i := 0; i < 2; i++ {
			select {
			case m := <-ch:
				got[m.Pattern+"|"+m.Channel+"|"+m.Payload] = true
			case <-time.After(5 * time.Second):
				t.Fatalf("proto %d: no message", proto)
			}
		}
		if !got["|gr|hello"] || !got["g*|gr|hello"] {
			t.Fatalf("proto %d: messages %v", proto, got)
		}
		if n, err := c.PubSubNumSub(ctx, "gr").Result(); err != nil || n["gr"] != 1 {
			t.Fatalf("proto %d: NUMSUB = %v, %v", proto, n, err)
		}
		ps.Close()
	}
}

// ACL channel rules (&pattern, resetchannels, allchannels) refuse
// PUBLISH, SUBSCRIBE and PSUBSCRIBE as redis-server does.
func TestPubSubACLChannelsMatchRedis(t *testing.T) {
	s, _ := startServer(t, Options{})
	ref := startDiffRedis(t)
	script := func(addr string) []string {
		rc := dialRaw(t, addr)
		var out []string
		for _, line := range []string{
			"ACL SETUSER u on nopass +@all ~* resetchannels &ch*", "AUTH u x",
			"PUBLISH other m", "PUBLISH chan m", "SPUBLISH other m", "SUBSCRIBE chan other", "PSUBSCRIBE c*",
			"PSUBSCRIBE ch*", "RESET", "ACL SETUSER u allchannels", "AUTH u x", "PUBLISH other m",
			"ACL LOG RESET", "ACL DELUSER u",
		} {
			out = append(out, line+" => "+rc.do(strings.Fields(line)...))
		}
		return out
	}
	got, want := script(s.Addr()), script(ref.addr)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got  %q\nwant %q", got[i], want[i])
		}
	}
}
