package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// nextMessage waits for the next go-redis pub/sub message.
func nextMessage(t *testing.T, ch <-chan *redis.Message) *redis.Message {
	t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("no keyspace event within 5s")
		return nil
	}
}

// subscribeGoRedis subscribes a go-redis client to channel and returns its
// messages.
func subscribeGoRedis(t *testing.T, addr, channel string) <-chan *redis.Message {
	t.Helper()
	c := newGoRedis(t, redis.Options{Addr: addr})
	ps := c.Subscribe(context.Background(), channel)
	if _, err := ps.Receive(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ps.Close() })
	return ps.Channel()
}

// go-redis's PubSub receives keyspace and keyevent messages (RESP2 and
// RESP3), with notify-keyspace-events set through Options as the daemon
// sets it from redis.conf.
func TestNotifyGoRedisPubSub(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2, NotifyKeyspaceEvents: "KEA"})
	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		c := newGoRedis(t, redis.Options{Addr: s.Addr(), Protocol: proto})
		if got := c.ConfigGet(ctx, "notify-keyspace-events").Val()["notify-keyspace-events"]; got != "AKE" {
			t.Fatalf("proto %d: CONFIG GET = %q", proto, got)
		}
		ps := c.PSubscribe(ctx, "__key*__:*")
		if _, err := ps.Receive(ctx); err != nil {
			t.Fatalf("proto %d: psubscribe: %v", proto, err)
		}
		ch := ps.Channel()
		key := "gk" + strconv.Itoa(proto)
		if err := c.HSet(ctx, key, "f", "v").Err(); err != nil {
			t.Fatal(err)
		}
		c.Del(ctx, key)
		want := []string{"__keyspace@0__:" + key + " hset", "__keyevent@0__:hset " + key,
			"__keyspace@0__:" + key + " del", "__keyevent@0__:del " + key}
		for _, w := range want {
			m := nextMessage(t, ch)
			if got := m.Channel + " " + m.Payload; got != w || m.Pattern != "__key*__:*" {
				t.Fatalf("proto %d: message %q (pattern %q), want %q", proto, got, m.Pattern, w)
			}
		}
		ps.Close()
	}
}

// Keys whose TTL passes while nobody reads them are deleted by the
// ticker's active expiry, which publishes their expired events.
func TestNotifyActiveExpiry(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2, NotifyKeyspaceEvents: "Ex"})
	ctx := context.Background()
	ch := subscribeGoRedis(t, s.Addr(), "__keyevent@3__:expired")
	w := newGoRedis(t, redis.Options{Addr: s.Addr(), DB: 3})
	want := map[string]bool{}
	for i := range 20 {
		k := fmt.Sprintf("ttl%d", i)
		want[k] = true
		w.Set(ctx, k, "v", 30*time.Millisecond)
	}
	for len(want) > 0 {
		m := nextMessage(t, ch)
		if !want[m.Payload] {
			t.Fatalf("unexpected expired %q", m.Payload)
		}
		delete(want, m.Payload)
	}
	if n := w.DBSize(ctx).Val(); n != 0 {
		t.Fatalf("DBSIZE %d after every key expired", n)
	}
}

// Eviction under maxmemory publishes an evicted event for every key
// evicted, both by the eviction lowering maxmemory starts and by the
// eviction before a command, and the events name the keys that are gone.
func TestNotifyEvicted(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2, NotifyKeyspaceEvents: "Ee"})
	ctx := context.Background()
	ch := subscribeGoRedis(t, s.Addr(), "__keyevent@0__:evicted")
	w := newGoRedis(t, redis.Options{Addr: s.Addr()})
	for i := range 2000 {
		w.Set(ctx, fmt.Sprintf("key:%d", i), "some value of a few bytes", 0)
	}
	used := s.store.UsedMemory()
	w.ConfigSet(ctx, "maxmemory-policy", "allkeys-random")
	w.ConfigSet(ctx, "maxmemory", strconv.FormatInt(used*3/4, 10))
	for i := range 1000 {
		w.Set(ctx, fmt.Sprintf("more:%d", i), "some value of a few bytes", 0)
	}
	w.ConfigSet(ctx, "maxmemory", "0")
	evicted, _ := strconv.Atoi(strings.TrimPrefix(infoField(w.Info(ctx, "stats").Val(), "evicted_keys:"), "evicted_keys:"))
	if evicted == 0 {
		t.Fatal("nothing evicted")
	}
	for i := 0; i < evicted; i++ {
		m := nextMessage(t, ch)
		if w.Exists(ctx, m.Payload).Val() != 0 {
			t.Fatalf("evicted %q still exists", m.Payload)
		}
	}
	select {
	case m := <-ch:
		t.Fatalf("more evicted events than evicted_keys %d: %q", evicted, m.Payload)
	case <-time.After(100 * time.Millisecond):
	}
}

// A TLS subscriber receives the events of a plaintext writer's commands
// and of the ticker's active expiry, sealed by its own loop.
func TestNotifyOverTLS(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{NotifyKeyspaceEvents: "KEA"})
	ctx := context.Background()
	sub := redis.NewClient(&redis.Options{Addr: s.TLSAddr(), Protocol: 3, TLSConfig: p.clientConfig()})
	defer sub.Close()
	ps := sub.PSubscribe(ctx, "__keyevent@0__:*")
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	ch := ps.Channel()
	w := newGoRedis(t, redis.Options{Addr: s.Addr()})
	w.Set(ctx, "tk", "v", 30*time.Millisecond)
	for _, want := range []string{"__keyevent@0__:set tk", "__keyevent@0__:expire tk", "__keyevent@0__:expired tk"} {
		if m := nextMessage(t, ch); m.Channel+" "+m.Payload != want {
			t.Fatalf("message %q, want %q", m.Channel+" "+m.Payload, want)
		}
	}
}
