package server

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"
)

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"TrackingInvalidatesAcrossLoops", TestTrackingInvalidatesAcrossLoops},
		{"RueidisDefaultOptionsSeeWrites", TestRueidisDefaultOptionsSeeWrites},
		{"TrackingInvalidationsMatchRedis", TestTrackingInvalidationsMatchRedis},
		{"TrackingTableIsBounded", TestTrackingTableIsBounded},
	}...)
}

var trackingDiffCases = []diffCase{
	{"tracking errors", []string{"CLIENT TRACKING maybe", "CLIENT TRACKING on prefix a", "CLIENT TRACKING on optin optout",
		"CLIENT TRACKING on bcast optin", "CLIENT TRACKING on redirect 9999", "CLIENT TRACKING on redirect x",
		"CLIENT TRACKING on foo", "CLIENT CACHING yes", "CLIENT GETREDIR", "CLIENT TRACKINGINFO"}},
	{"optin", []string{"CLIENT TRACKING on optin", "CLIENT CACHING no", "CLIENT CACHING maybe", "CLIENT CACHING yes",
		"CLIENT TRACKINGINFO", "GET a", "CLIENT TRACKINGINFO", "CLIENT TRACKING on bcast", "CLIENT TRACKING on optout",
		"CLIENT GETREDIR", "CLIENT TRACKING off", "CLIENT GETREDIR"}},
	{"bcast", []string{"CLIENT TRACKING on bcast prefix a prefix ab", "CLIENT TRACKING on bcast prefix a prefix b noloop",
		"CLIENT TRACKINGINFO", "CLIENT TRACKING off", "CLIENT TRACKING on optout", "CLIENT CACHING yes",
		"CLIENT TRACKINGINFO", "CLIENT TRACKING off", "CLIENT TRACKING on", "CLIENT CACHING yes", "#proto 3", "CLIENT TRACKINGINFO",
		"CLIENT TRACKING off", "CLIENT TRACKINGINFO"}},
	{"max keys", []string{"CONFIG GET tracking-table-max-keys", "CONFIG SET tracking-table-max-keys 10", "CONFIG GET tracking-table-max-keys",
		"CONFIG SET tracking-table-max-keys 1000000"}},
}

func TestTrackingCommandsMatchRedis(t *testing.T) { runDiff(t, trackingDiffCases) }

// trackingScript: connection 0 tracks (RESP3, then RESP2 as the redirect
// target of connection 2), connection 1 writes. A push that should not
// come shows as a misplaced reply in a later step.
var trackingScript = []pubsubStep{
	{0, "HELLO 3", 1, 0, true},
	// BCAST with prefixes: one push per batch of keys, self-writes too
	{0, "CLIENT TRACKING ON BCAST PREFIX a: PREFIX b:", 1, 0, false},
	{1, "#info tracking_clients tracking_total_keys tracking_total_items tracking_total_prefixes", 1, 0, false},
	{1, "SET a:1 x", 1, 1, false},
	{1, "SET c:1 x", 1, 0, false},
	{1, "MSET b:1 x b:2 y c:2 z", 1, 1, false},
	{0, "SET a:2 x", 2, 0, false},
	{0, "CLIENT TRACKING OFF", 1, 0, false},
	{0, "CLIENT TRACKING ON BCAST PREFIX a: NOLOOP", 1, 0, false},
	{0, "SET a:3 x", 1, 0, false},
	{1, "SET a:3 y", 1, 1, false},
	{0, "CLIENT TRACKING OFF", 1, 0, false},
	// OPTIN: only reads after CLIENT CACHING YES are tracked
	{0, "CLIENT TRACKING ON OPTIN", 1, 0, false},
	{0, "GET k1", 1, 0, false},
	{1, "SET k1 v", 1, 0, false},
	{0, "CLIENT CACHING YES", 1, 0, false},
	{0, "GET k2", 1, 0, false},
	{0, "GET k1", 1, 0, false},
	{1, "SET k1 w", 1, 0, false},
	{1, "SET k2 v", 1, 1, false},
	{0, "CLIENT TRACKING OFF", 1, 0, false},
	// OPTOUT: every read but those after CLIENT CACHING NO
	{0, "CLIENT TRACKING ON OPTOUT", 1, 0, false},
	{0, "CLIENT CACHING NO", 1, 0, false},
	{0, "GET k3", 1, 0, false},
	{0, "GET k4", 1, 0, false},
	{1, "SET k3 v", 1, 0, false},
	{1, "SET k4 v", 1, 1, false},
	{0, "CLIENT TRACKING OFF", 1, 0, false},
	// NOLOOP: an own write invalidates without a push, and forgets the key
	{0, "CLIENT TRACKING ON NOLOOP", 1, 0, false},
	{0, "GET k5", 1, 0, false},
	{0, "SET k5 x", 1, 0, false},
	{1, "SET k5 y", 1, 0, false},
	{1, "MSET m1 a m2 b m3 c", 1, 0, false},
	{0, "MGET m1 m2 m3", 1, 0, false},
	{1, "DEL m1 m2", 1, 2, false},
	{1, "#info tracking_clients tracking_total_keys tracking_total_items tracking_total_prefixes", 1, 0, false},
	{1, "EXPIRE m3 100", 1, 0, false},
	{1, "SET m3 v", 1, 1, false},
	{0, "GET m3", 1, 0, false},
	{1, "FLUSHDB", 1, 1, false},
	{0, "CLIENT TRACKING OFF", 1, 0, false},
	{0, "CLIENT TRACKING ON", 1, 0, false},
	{0, "GET s1", 1, 0, false},
	{0, "SET s1 v", 2, 0, false},
	{0, "GET m9", 1, 0, false},
	{1, "DEL m9", 1, 0, false},
	{1, "SET m8 v", 1, 0, false},
	{0, "PING", 1, 0, false},
	{1, "SET m9 v", 1, 1, false},
	// RESET ends tracking
	{0, "GET r1", 1, 0, false},
	{0, "RESET", 1, 0, false},
	{1, "SET r1 v", 1, 0, false},
	{1, "#info tracking_clients tracking_total_keys", 1, 0, false},
	// RESP2: connection 2 redirects to 0, subscribed to __redis__:invalidate
	{0, "SUBSCRIBE __redis__:invalidate", 1, 0, false},
	{2, "CLIENT TRACKING ON REDIRECT {id0}", 1, 0, false},
	{2, "GET x1", 1, 0, false},
	{1, "SET x1 v", 1, 1, false},
	{2, "CLIENT TRACKING ON REDIRECT {id0} BCAST PREFIX y", 1, 0, false},
	{2, "CLIENT TRACKING OFF", 1, 0, false},
	{2, "CLIENT TRACKING ON REDIRECT {id0} BCAST PREFIX y", 1, 0, false},
	{1, "SET y1 v", 1, 1, false},
	{1, "SET z1 v", 1, 0, false},
	{0, "PING", 1, 0, false},
}

// Invalidation pushes and messages in every tracking mode (BCAST with
// prefixes, OPTIN, OPTOUT, NOLOOP, REDIRECT in RESP2), byte for byte as
// redis-server sends them, and the INFO tracking fields.
func TestTrackingInvalidationsMatchRedis(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	diffPubsubScript(t, s, 3, trackingScript)
}

// A RESP3 tracking client gets an invalidation push when a client on
// another loop writes a key it read; a RESP2 client's invalidations go to
// the client it redirects to, on __redis__:invalidate.
func TestTrackingInvalidatesAcrossLoops(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	a := dialRaw(t, s.Addr())
	b := otherLoopConn(t, s, a)
	a.do("HELLO", "3")
	if got := a.do("CLIENT", "TRACKING", "ON"); got != "+OK\r\n" {
		t.Fatalf("CLIENT TRACKING ON = %q", got)
	}
	a.do("GET", "k")
	if got := b.do("INFO"); !strings.Contains(got, "tracking_clients:1\r\n") || !strings.Contains(got, "tracking_total_keys:1\r\n") ||
		!strings.Contains(got, "tracking_total_items:1\r\n") {
		t.Fatalf("INFO while tracking one key: %q", got)
	}
	b.do("SET", "k", "1")
	if got := a.reply(); got != ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n" {
		t.Fatalf("invalidation = %q", got)
	}
	b.do("SET", "k", "2") // a has not read k again: no invalidation
	a.do("GET", "k")
	b.do("FLUSHALL")
	if got := a.reply(); got != ">2\r\n$10\r\ninvalidate\r\n_\r\n" {
		t.Fatalf("FLUSHALL's invalidation = %q", got)
	}
	// RESP2 with REDIRECT
	r := dialRaw(t, s.Addr())
	rid := strings.TrimSpace(strings.TrimPrefix(r.do("CLIENT", "ID"), ":"))
	r.do("SUBSCRIBE", invalidateChannel)
	c := dialRaw(t, s.Addr())
	if got := c.do("CLIENT", "TRACKING", "ON", "REDIRECT", rid); got != "+OK\r\n" {
		t.Fatalf("CLIENT TRACKING ON REDIRECT = %q", got)
	}
	if got := c.do("CLIENT", "GETREDIR"); got != ":"+rid+"\r\n" {
		t.Fatalf("GETREDIR = %q", got)
	}
	if got := b.do("CLIENT", "LIST", "ID", strings.TrimSpace(strings.TrimPrefix(c.do("CLIENT", "ID"), ":"))); !strings.Contains(got, " flags=t ") || !strings.Contains(got, " redir="+rid+" ") {
		t.Fatalf("CLIENT LIST = %q", got)
	}
	c.do("MGET", "x", "y")
	b.do("SET", "y", "1") // a write that changes y (DEL of a missing key tells nobody, as in Redis)
	if got := r.reply(); got != "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$1\r\ny\r\n" {
		t.Fatalf("redirected invalidation = %q", got)
	}
}

// rueidis with its default options (RESP3, CLIENT TRACKING ON OPTIN,
// DoCache as CLIENT CACHING YES + MULTI/PTTL/GET/EXEC) connects, caches,
// and sees a write by another client, over plaintext and TLS.
func TestRueidisDefaultOptionsSeeWrites(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{Loops: 2})
	for _, tc := range []struct {
		name string
		opt  rueidis.ClientOption
	}{
		{"plaintext", rueidis.ClientOption{InitAddress: []string{s.Addr()}, DisableRetry: true}},
		{"tls", rueidis.ClientOption{InitAddress: []string{s.TLSAddr()}, TLSConfig: p.clientConfig(), DisableRetry: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			tc.opt.ForceSingleClient = true
			cl, err := rueidis.NewClient(tc.opt)
			if err != nil {
				t.Fatalf("rueidis connect: %v", err)
			}
			defer cl.Close()
			key := "rk-" + tc.name
			if err := cl.Do(ctx, cl.B().Set().Key(key).Value("v1").Build()).Error(); err != nil {
				t.Fatal(err)
			}
			get := func() (string, bool) {
				r := cl.DoCache(ctx, cl.B().Get().Key(key).Cache(), time.Minute)
				v, err := r.ToString()
				if err != nil {
					t.Fatalf("DoCache: %v", err)
				}
				return v, r.IsCacheHit()
			}
			if v, _ := get(); v != "v1" {
				t.Fatalf("first DoCache = %q", v)
			}
			if v, hit := get(); v != "v1" || !hit {
				t.Fatalf("second DoCache = %q, hit %v; want a cache hit", v, hit)
			}
			other := dialRaw(t, s.Addr())
			other.do("SET", key, "v2")
			// within one round trip: the invalidation is in the reader's
			// outbox before the writer's reply, and goes out before the
			// reply to the reader's next command (a PING here)
			if err := cl.Do(ctx, cl.B().Ping().Build()).Error(); err != nil {
				t.Fatal(err)
			}
			if v, hit := get(); v != "v2" || hit {
				t.Fatalf("DoCache one round trip after another client's write = %q (cache hit %v), want v2 from the server", v, hit)
			}
		})
	}
}

// tracking-table-max-keys bounds the table: past it, keys are dropped and
// their readers told (one invalidation each); the keys kept stay tracked.
func TestTrackingTableIsBounded(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	a := dialRaw(t, s.Addr())
	b := otherLoopConn(t, s, a)
	a.do("HELLO", "3")
	if got := b.do("CONFIG", "SET", "tracking-table-max-keys", "3"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET = %q", got)
	}
	a.do("CLIENT", "TRACKING", "ON")
	const n = 10
	for i := 0; i < n; i++ {
		a.send(multibulk("GET", "k"+strconv.Itoa(i)))
	}
	dropped := map[string]bool{}
	for replies := 0; replies < n || len(dropped) < n-3; {
		got := a.reply()
		if !strings.HasPrefix(got, ">") {
			if got != "_\r\n" {
				t.Fatalf("GET = %q", got)
			}
			replies++
			continue
		}
		key := strings.TrimPrefix(strings.TrimSuffix(got, "\r\n"), ">2\r\n$10\r\ninvalidate\r\n*1\r\n$2\r\n")
		if len(key) != 2 || dropped[key] {
			t.Fatalf("invalidation %q (dropped so far %v)", got, dropped)
		}
		dropped[key] = true
	}
	if got := infoValue(t, b, "tracking_total_keys"); got != "3" {
		t.Fatalf("tracking_total_keys = %s, want 3", got)
	}
	for i := 0; i < n; i++ {
		if k := "k" + strconv.Itoa(i); !dropped[k] {
			b.do("SET", k, "v")
			if got := a.reply(); got != ">2\r\n$10\r\ninvalidate\r\n*1\r\n$2\r\n"+k+"\r\n" {
				t.Fatalf("invalidation of kept key %s = %q", k, got)
			}
		}
	}
	if got := a.do("PING"); got != "+PONG\r\n" {
		t.Fatalf("PING after the invalidations = %q", got)
	}
}
