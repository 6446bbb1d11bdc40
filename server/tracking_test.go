package server

import (
	"context"
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
	b.do("DEL", "y")
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
			var v string
			for i := 0; i < 100; i++ { // the invalidation arrives within a round trip or so
				if v, _ = get(); v == "v2" {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if v != "v2" {
				t.Fatalf("DoCache after another client's write = %q", v)
			}
		})
	}
}
