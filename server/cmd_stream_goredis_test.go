package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func init() {
	engineSuite = append(engineSuite, struct {
		name string
		fn   func(*testing.T)
	}{"GoRedisStreams", TestGoRedisStreams})
}

// TestGoRedisStreams drives the stream commands through go-redis, in
// RESP2 and RESP3, and checks the decoded replies, XINFO STREAM's structs
// and a blocking XREAD served by another connection's XADD.
func TestGoRedisStreams(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			ctx := context.Background()
			c := newGoRedis(t, redis.Options{Addr: s.Addr(), Protocol: proto})
			key := fmt.Sprint("st", proto)
			for i := range 150 {
				id, err := c.XAdd(ctx, &redis.XAddArgs{Stream: key, ID: fmt.Sprintf("1-%d", i+1), Values: []string{"n", fmt.Sprint(i), "k", "v"}}).Result()
				if err != nil || id != fmt.Sprintf("1-%d", i+1) {
					t.Fatalf("XADD: %q, %v", id, err)
				}
			}
			auto, err := c.XAdd(ctx, &redis.XAddArgs{Stream: key, MaxLen: 100, Approx: true, Values: map[string]any{"auto": "1"}}).Result()
			if err != nil || auto == "" {
				t.Fatalf("XADD * MAXLEN ~: %q, %v", auto, err)
			}
			if n, err := c.XLen(ctx, key).Result(); err != nil || n != 151 && n != 101 && n != 51 {
				t.Fatalf("XLEN after ~ trim: %d, %v", n, err)
			}
			msgs, err := c.XRangeN(ctx, key, "(1-140", "+", 3).Result()
			if err != nil || len(msgs) != 3 || msgs[0].ID != "1-141" || msgs[0].Values["n"] != "140" {
				t.Fatalf("XRANGE: %v, %v", msgs, err)
			}
			rev, err := c.XRevRangeN(ctx, key, "+", "-", 2).Result()
			if err != nil || len(rev) != 2 || rev[0].ID != auto || rev[1].ID != "1-150" {
				t.Fatalf("XREVRANGE: %v, %v", rev, err)
			}
			if n, err := c.XDel(ctx, key, "1-150", "9-9").Result(); err != nil || n != 1 {
				t.Fatalf("XDEL: %d, %v", n, err)
			}
			if n, err := c.XTrimMaxLen(ctx, key, 10).Result(); err != nil || n < 1 {
				t.Fatalf("XTRIM: %d, %v", n, err)
			}
			info, err := c.XInfoStream(ctx, key).Result()
			if err != nil || info.Length != 10 || info.LastGeneratedID != auto || info.MaxDeletedEntryID != "1-150" ||
				info.EntriesAdded != 151 || info.LastEntry.ID != auto || info.FirstEntry.ID != "1-141" || info.RadixTreeKeys < 1 {
				t.Fatalf("XINFO STREAM: %+v, %v", info, err)
			}
			full, err := c.XInfoStreamFull(ctx, key, 3).Result()
			if err != nil || full.Length != 10 || len(full.Entries) != 3 || full.Entries[0].ID != "1-141" || len(full.Groups) != 0 {
				t.Fatalf("XINFO STREAM FULL: %+v, %v", full, err)
			}
			// XREAD BLOCK on one connection, served by XADD on another
			w := newGoRedis(t, redis.Options{Addr: s.Addr(), Protocol: proto})
			done := make(chan []redis.XStream, 1)
			go func() {
				r, err := w.XRead(ctx, &redis.XReadArgs{Streams: []string{"nokey" + key, key, "$", "$"}, Block: 5 * time.Second}).Result()
				if err != nil {
					t.Errorf("XREAD BLOCK: %v", err)
				}
				done <- r
			}()
			waitForBlocked(t, s, 1)
			if _, err := c.XAdd(ctx, &redis.XAddArgs{Stream: key, ID: "*", Values: []string{"late", "x"}}).Result(); err != nil {
				t.Fatal(err)
			}
			r := <-done
			if len(r) != 1 || r[0].Stream != key || len(r[0].Messages) != 1 || r[0].Messages[0].Values["late"] != "x" {
				t.Fatalf("XREAD BLOCK served: %+v", r)
			}
			if _, err := c.XRead(ctx, &redis.XReadArgs{Streams: []string{key, "$"}, Block: 10 * time.Millisecond}).Result(); err != redis.Nil {
				t.Fatalf("XREAD BLOCK timed out: %v, want redis.Nil", err)
			}
		})
	}
}
