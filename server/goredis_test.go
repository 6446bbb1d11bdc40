package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func newGoRedis(t *testing.T, o redis.Options) *redis.Client {
	t.Helper()
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = 5*time.Second, 5*time.Second, 5*time.Second
	o.MaxRetries = -1
	c := redis.NewClient(&o)
	t.Cleanup(func() { c.Close() })
	return c
}

func TestGoRedisRESP2AndRESP3(t *testing.T) {
	s, _ := startServer(t, Options{})
	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		c := newGoRedis(t, redis.Options{Addr: s.Addr(), Protocol: proto, ClientName: fmt.Sprintf("gr%d", proto)})
		if got, err := c.Ping(ctx).Result(); err != nil || got != "PONG" {
			t.Errorf("proto %d: PING = %q, %v", proto, got, err)
		}
		if got, err := c.Echo(ctx, "héllo\r\n").Result(); err != nil || got != "héllo\r\n" {
			t.Errorf("proto %d: ECHO = %q, %v", proto, got, err)
		}
		hello, err := c.Do(ctx, "HELLO", proto).Result()
		if err != nil {
			t.Fatalf("proto %d: HELLO: %v", proto, err)
		}
		if proto == 3 {
			m, ok := hello.(map[any]any)
			if !ok || m["proto"] != int64(3) || m["server"] != "redis" || m["version"] != "7.0.15" {
				t.Errorf("HELLO 3 = %#v", hello)
			}
		} else if a, ok := hello.([]any); !ok || len(a) != 14 {
			t.Errorf("HELLO 2 = %#v", hello)
		}
		info, err := c.ClientInfo(ctx).Result()
		if err != nil {
			t.Fatalf("proto %d: CLIENT INFO: %v", proto, err)
		}
		if info.Resp != proto || info.Name != fmt.Sprintf("gr%d", proto) || info.LibName == "" {
			t.Errorf("proto %d: CLIENT INFO = %+v", proto, info)
		}
		tm, err := c.Time(ctx).Result()
		if err != nil || time.Since(tm).Abs() > time.Minute {
			t.Errorf("proto %d: TIME = %v, %v", proto, tm, err)
		}
		cfg, err := c.ConfigGet(ctx, "save").Result()
		if err != nil || len(cfg) != 1 || cfg["save"] != "" {
			t.Errorf("proto %d: CONFIG GET save = %v, %v", proto, cfg, err)
		}
	}
}

func TestGoRedisPipeline(t *testing.T) {
	s, _ := startServer(t, Options{})
	c := newGoRedis(t, redis.Options{Addr: s.Addr()})
	ctx := context.Background()
	cmds, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := 0; i < 500; i++ {
			p.Echo(ctx, fmt.Sprint(i))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, cmd := range cmds {
		if got := cmd.(*redis.StringCmd).Val(); got != fmt.Sprint(i) {
			t.Fatalf("#%d: %q", i, got)
		}
	}
}

func TestGoRedisAuthWithRequirePass(t *testing.T) {
	s, _ := startServer(t, Options{RequirePass: "s3cret"})
	ctx := context.Background()
	anon := newGoRedis(t, redis.Options{Addr: s.Addr()})
	if err := anon.Ping(ctx).Err(); err == nil || !strings.HasPrefix(err.Error(), "NOAUTH") {
		t.Errorf("PING without password: %v, want NOAUTH", err)
	}
	wrong := newGoRedis(t, redis.Options{Addr: s.Addr(), Password: "nope"})
	if err := wrong.Ping(ctx).Err(); err == nil || !strings.Contains(err.Error(), "WRONGPASS") {
		t.Errorf("wrong password: %v, want WRONGPASS", err)
	}
	for _, proto := range []int{2, 3} {
		ok := newGoRedis(t, redis.Options{Addr: s.Addr(), Password: "s3cret", Protocol: proto})
		if err := ok.Ping(ctx).Err(); err != nil {
			t.Errorf("proto %d with password: %v", proto, err)
		}
	}
}

func TestGoRedisSelectsDatabase(t *testing.T) {
	s, _ := startServer(t, Options{Databases: 4})
	ctx := context.Background()
	c := newGoRedis(t, redis.Options{Addr: s.Addr(), DB: 3})
	info, err := c.ClientInfo(ctx).Result()
	if err != nil || info.DB != 3 {
		t.Fatalf("CLIENT INFO db = %+v, %v", info, err)
	}
	if err := c.Do(ctx, "SELECT", 4).Err(); err == nil || err.Error() != "ERR DB index is out of range" {
		t.Errorf("SELECT 4 of 4: %v", err)
	}
}

func TestGoRedisClientListAndKill(t *testing.T) {
	s, _ := startServer(t, Options{})
	ctx := context.Background()
	admin := newGoRedis(t, redis.Options{Addr: s.Addr()})
	victim := dialRaw(t, s.Addr())
	victim.do("CLIENT", "SETNAME", "victim")
	id := strings.TrimSuffix(strings.TrimPrefix(victim.do("CLIENT", "ID"), ":"), "\r\n")
	list, err := admin.ClientList(ctx).Result()
	if err != nil || !strings.Contains(list, "id="+id+" ") || !strings.Contains(list, "name=victim ") {
		t.Fatalf("CLIENT LIST = %q, %v", list, err)
	}
	n, err := admin.ClientKillByFilter(ctx, "ID", id).Result()
	if err != nil || n != 1 {
		t.Fatalf("CLIENT KILL ID %s = %d, %v", id, n, err)
	}
	victim.expectClosed()
	waitFor(t, func() bool {
		l, _ := admin.ClientList(ctx).Result()
		return !strings.Contains(l, "name=victim")
	}, "killed client to leave CLIENT LIST")
	// SKIPME defaults to yes: killing by our own address spares us.
	me, _ := admin.ClientInfo(ctx).Result()
	if n, err := admin.ClientKillByFilter(ctx, "ADDR", me.Addr).Result(); err != nil || n != 0 {
		t.Errorf("CLIENT KILL ADDR self = %d, %v", n, err)
	}
	if err := admin.Ping(ctx).Err(); err != nil {
		t.Errorf("admin after self-kill attempt: %v", err)
	}
}

func TestGoRedisInfoParses(t *testing.T) {
	s, _ := startServer(t, Options{})
	ctx := context.Background()
	c := newGoRedis(t, redis.Options{Addr: s.Addr()})
	c.Ping(ctx)
	m, err := c.InfoMap(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"Server":  {"redis_version", "loopkv_version", "redis_mode", "os", "arch_bits", "process_id", "tcp_port", "uptime_in_seconds"},
		"Clients": {"connected_clients", "maxclients"},
		"Memory":  {"used_memory", "used_memory_human"},
		"Stats": {"total_connections_received", "total_commands_processed", "instantaneous_ops_per_sec",
			"rejected_connections", "expired_keys", "evicted_keys", "keyspace_hits", "keyspace_misses"},
	}
	for sec, keys := range want {
		for _, k := range keys {
			if _, ok := m[sec][k]; !ok {
				t.Errorf("INFO %s lacks %s", sec, k)
			}
		}
	}
	if m["Server"]["redis_version"] != "7.0.15" || m["Server"]["redis_mode"] != "standalone" ||
		m["Clients"]["connected_clients"] != "1" || m["Server"]["tcp_port"] != fmt.Sprint(s.opts.Port) {
		t.Errorf("INFO values: %v %v", m["Server"], m["Clients"])
	}
	if _, ok := m["Keyspace"]; !ok {
		t.Error("INFO has no Keyspace section")
	}
	if err := c.ConfigResetStat(ctx).Err(); err != nil {
		t.Error(err)
	}
	var rerr redis.Error
	if err := c.Do(ctx, "CONFIG", "SET", "port", "1").Err(); !errors.As(err, &rerr) {
		t.Errorf("CONFIG SET port: %v", err)
	}
}
