package server

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestGoRedisSortedSets drives the sorted-set commands through go-redis,
// in RESP2 and RESP3 (pairs and doubles), on a listpack zset and a
// skiplist of 300 members, and checks the decoded replies.
func init() {
	engineSuite = append(engineSuite, struct {
		name string
		fn   func(*testing.T)
	}{"GoRedisSortedSets", TestGoRedisSortedSets})
}

func TestGoRedisSortedSets(t *testing.T) {
	s, _ := startServer(t, Options{})
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			c := newGoRedis(t, redis.Options{Addr: s.Addr(), Protocol: proto})
			for _, n := range []int{5, 300} {
				goRedisZSetChecks(t, c, fmt.Sprintf("z%d:%d", proto, n), n)
			}
		})
	}
}

func goRedisZSetChecks(t *testing.T, c *redis.Client, key string, n int) {
	t.Helper()
	ctx := context.Background()
	var zs []redis.Z
	for i := 0; i < n; i++ {
		zs = append(zs, redis.Z{Score: float64(i) + 0.5, Member: fmt.Sprint("m", i)})
	}
	if added, err := c.ZAdd(ctx, key, zs...).Result(); err != nil || added != int64(n) {
		t.Fatalf("ZADD %s: %d, %v", key, added, err)
	}
	got, err := c.ZRangeWithScores(ctx, key, 0, 2).Result()
	if err != nil || len(got) != 3 || got[1].Member != "m1" || got[1].Score != 1.5 {
		t.Fatalf("ZRANGE %s 0 2 WITHSCORES: %v, %v", key, got, err)
	}
	if f, err := c.ZScore(ctx, key, "m3").Result(); err != nil || f != 3.5 {
		t.Fatalf("ZSCORE: %v, %v", f, err)
	}
	if f, err := c.ZIncrBy(ctx, key, math.Inf(1), "m0").Result(); err != nil || !math.IsInf(f, 1) {
		t.Fatalf("ZINCRBY inf: %v, %v", f, err)
	}
	if r, err := c.ZRevRank(ctx, key, "m0").Result(); err != nil || r != 0 {
		t.Fatalf("ZREVRANK of the inf member: %v, %v", r, err)
	}
	by, err := c.ZRangeByScoreWithScores(ctx, key, &redis.ZRangeBy{Min: "(1.5", Max: "+inf", Offset: 1, Count: 2}).Result()
	if err != nil || len(by) != 2 || by[0].Member != "m3" {
		t.Fatalf("ZRANGEBYSCORE: %v, %v", by, err)
	}
	pop, err := c.ZPopMax(ctx, key, 2).Result()
	if err != nil || len(pop) != 2 || pop[0].Member != "m0" || pop[1].Member != fmt.Sprint("m", n-1) {
		t.Fatalf("ZPOPMAX 2: %v, %v", pop, err)
	}
	u, err := c.ZUnionWithScores(ctx, redis.ZStore{Keys: []string{key, key}}).Result()
	if err != nil || len(u) != n-2 || u[0].Score != 3 {
		t.Fatalf("ZUNION WITHSCORES: %d members, %v", len(u), err)
	}
	if card, err := c.ZCard(ctx, key).Result(); err != nil || card != int64(n-2) {
		t.Fatalf("ZCARD: %v, %v", card, err)
	}
}
