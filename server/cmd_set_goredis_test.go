package server

import (
	"context"
	"crypto/tls"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

func init() {
	engineSuite = append(engineSuite,
		struct {
			name string
			fn   func(*testing.T)
		}{"GoRedisSets", TestGoRedisSets},
		struct {
			name string
			fn   func(*testing.T)
		}{"SRandMemberPastOutputLimitClosesClient", TestSRandMemberPastOutputLimitClosesClient})
}

// TestGoRedisSets runs go-redis's set commands over plaintext and TLS, in
// RESP2 and RESP3, on sets of both encodings.
func TestGoRedisSets(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{})
	for _, tr := range []struct {
		name string
		addr string
		tls  *tls.Config
	}{{"plain", s.Addr(), nil}, {"tls", s.TLSAddr(), p.clientConfig()}} {
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/resp%d", tr.name, proto), func(t *testing.T) {
				c := newGoRedis(t, redis.Options{Addr: tr.addr, Protocol: proto, TLSConfig: tr.tls})
				goRedisSetOps(t, c, fmt.Sprintf("%s%d:", tr.name, proto))
			})
		}
	}
}

func goRedisSetOps(t *testing.T, c *redis.Client, prefix string) {
	ctx := context.Background()
	k := func(name string) string { return "{" + prefix + "}" + name }
	check := func(what string, err error, ok bool, got any) {
		t.Helper()
		if err != nil || !ok {
			t.Errorf("%s = %v, %v", what, got, err)
		}
	}
	nums := make([]any, 600)
	for i := range nums {
		nums[i] = i
	}
	n, err := c.SAdd(ctx, k("i"), nums[:10]...).Result()
	check("SADD ints", err, n == 10, n)
	n, err = c.SAdd(ctx, k("h"), "a", "b", "c", 1).Result()
	check("SADD strings", err, n == 4, n)
	n, err = c.SAdd(ctx, k("big"), nums...).Result()
	check("SADD 600", err, n == 600, n)
	enc, err := c.ObjectEncoding(ctx, k("big")).Result()
	if err == nil && enc != "hashtable" { // OBJECT may not be there yet; when it is, it must say hashtable
		t.Errorf("OBJECT ENCODING of 600 integers = %q", enc)
	}
	n, err = c.SCard(ctx, k("big")).Result()
	check("SCARD", err, n == 600, n)
	ok, err := c.SIsMember(ctx, k("h"), "b").Result()
	check("SISMEMBER", err, ok, ok)
	bs, err := c.SMIsMember(ctx, k("i"), 3, 99, "x").Result()
	check("SMISMEMBER", err, slices.Equal(bs, []bool{true, false, false}), bs)
	ms, err := c.SMembers(ctx, k("i")).Result()
	check("SMEMBERS intset", err, slices.Equal(ms, strings.Fields("0 1 2 3 4 5 6 7 8 9")), ms)
	mm, err := c.SMembersMap(ctx, k("h")).Result()
	check("SMEMBERS hashtable", err, len(mm) == 4, mm)
	r, err := c.SRandMember(ctx, k("h")).Result()
	check("SRANDMEMBER", err, mm[r] == struct{}{}, r)
	rs, err := c.SRandMemberN(ctx, k("big"), -20).Result()
	check("SRANDMEMBER -20", err, len(rs) == 20, rs)
	rs, err = c.SRandMemberN(ctx, k("big"), 50).Result()
	slices.Sort(rs)
	check("SRANDMEMBER 50", err, len(slices.Compact(rs)) == 50, rs)
	popped, err := c.SPop(ctx, k("i")).Result()
	check("SPOP", err, popped != "", popped)
	ps, err := c.SPopN(ctx, k("i"), 100).Result()
	check("SPOP 100", err, len(ps) == 9, ps)
	n, err = c.Exists(ctx, k("i")).Result()
	check("EXISTS after popping all", err, n == 0, n)
	ok, err = c.SMove(ctx, k("h"), k("dst"), "a").Result()
	check("SMOVE", err, ok, ok)
	ms, err = c.SInter(ctx, k("big"), k("h")).Result()
	check("SINTER", err, slices.Equal(ms, []string{"1"}), ms)
	n, err = c.SInterCard(ctx, 1, k("big"), k("h")).Result()
	check("SINTERCARD LIMIT 1", err, n == 1, n)
	n, err = c.SUnionStore(ctx, k("u"), k("h"), k("dst")).Result()
	check("SUNIONSTORE", err, n == 4, n)
	ms, err = c.SDiff(ctx, k("u"), k("big")).Result()
	slices.Sort(ms)
	check("SDIFF", err, slices.Equal(ms, []string{"a", "b", "c"}), ms)
	n, err = c.SDiffStore(ctx, k("d"), k("big"), k("u")).Result()
	check("SDIFFSTORE", err, n == 599, n)
	n, err = c.SInterStore(ctx, k("e"), k("big"), k("missing")).Result()
	check("SINTERSTORE empty", err, n == 0, n)
	ms, err = c.SUnion(ctx, k("dst"), k("missing")).Result()
	check("SUNION", err, slices.Equal(ms, []string{"a"}), ms)
	seen := map[string]bool{}
	iter := c.SScan(ctx, k("big"), 0, "5*", 7).Iterator()
	for iter.Next(ctx) {
		seen[iter.Val()] = true
	}
	want := 0
	for i := range 600 {
		if strings.HasPrefix(strconv.Itoa(i), "5") {
			want++
			if !seen[strconv.Itoa(i)] {
				t.Errorf("SSCAN MATCH 5* missed %d", i)
			}
		}
	}
	check("SSCAN", iter.Err(), len(seen) == want, len(seen))
	c.Set(ctx, k("str"), "v", 0)
	if err := c.SAdd(ctx, k("str"), "a").Err(); err == nil || err.Error() != "WRONGTYPE Operation against a key holding the wrong kind of value" {
		t.Errorf("SADD on a string: %v", err)
	}
	if err := c.SRandMemberN(ctx, k("big"), -9223372036854775808).Err(); err == nil ||
		err.Error() != "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807" {
		t.Errorf("SRANDMEMBER -2^63: %v", err)
	}
	ps, err = c.SPopN(ctx, k("d"), 9223372036854775807).Result()
	check("SPOP 2^63-1", err, len(ps) == 599, len(ps))
}

// TestSRandMemberPastOutputLimitClosesClient: SRANDMEMBER with a huge
// negative count writes until the client passes its output buffer limit,
// as Redis does, and then the client is closed (not the server, and
// without writing an unbounded reply).
func TestSRandMemberPastOutputLimitClosesClient(t *testing.T) {
	s, _ := startServer(t, Options{ClientOutputBufferLimit: 1 << 20})
	rc := dialRaw(t, s.Addr())
	if got := rc.do("SADD", "s", "a", "b", "c"); got != ":3\r\n" {
		t.Fatalf("SADD = %q", got)
	}
	rc.send(multibulk("SRANDMEMBER", "s", "-9223372036854775807"))
	if rest := rc.expectClosed(); len(rest) > 0 {
		t.Errorf("read %d bytes before the close, want none", len(rest))
	}
	other := dialRaw(t, s.Addr())
	if got := other.do("SCARD", "s"); got != ":3\r\n" {
		t.Errorf("SCARD after the close = %q", got)
	}
}
