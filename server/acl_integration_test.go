package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestACLUsersFileOverTheWire loads a users file at start and checks, with
// go-redis over TCP, that AUTH picks the user, its key patterns and command
// rules hold, CLIENT LIST names it, and a deleted user's client is dropped.
func TestACLUsersFileOverTheWire(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users.acl")
	users := "user default on nopass ~* &* +@all\nuser alice on >wonderland ~app:* +get +set +client +ping\n"
	if err := os.WriteFile(path, []byte(users), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _ := startServer(t, Options{ACLFile: path})
	ctx := context.Background()
	alice := redis.NewClient(&redis.Options{Addr: s.Addr(), Username: "alice", Password: "wonderland", Protocol: 2})
	defer alice.Close()
	if err := alice.Set(ctx, "app:1", "v", 0).Err(); err != nil {
		t.Fatalf("SET app:1 as alice: %v", err)
	}
	if v, err := alice.Get(ctx, "app:1").Result(); err != nil || v != "v" {
		t.Fatalf("GET app:1 = %q, %v", v, err)
	}
	err := alice.Get(ctx, "other").Err()
	if err == nil || err.Error() != "NOPERM this user has no permissions to access one of the keys used as arguments" {
		t.Errorf("GET other as alice: %v", err)
	}
	err = alice.Del(ctx, "app:1").Err()
	if err == nil || err.Error() != "NOPERM this user has no permissions to run the 'del' command" {
		t.Errorf("DEL as alice: %v", err)
	}
	list, err := alice.ClientList(ctx).Result()
	if err != nil || !strings.Contains(list, " user=alice ") {
		t.Errorf("CLIENT LIST as alice = %q, %v", list, err)
	}
	bad := redis.NewClient(&redis.Options{Addr: s.Addr(), Username: "alice", Password: "nope", Protocol: 2, MaxRetries: -1})
	defer bad.Close()
	if err := bad.Ping(ctx).Err(); err == nil || !strings.HasPrefix(err.Error(), "WRONGPASS") {
		t.Errorf("PING with a wrong password: %v", err)
	}
	admin := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2})
	defer admin.Close()
	if n, err := admin.Do(ctx, "ACL", "DELUSER", "alice").Int(); err != nil || n != 1 {
		t.Fatalf("ACL DELUSER alice = %d, %v", n, err)
	}
	alice.Options().MaxRetries = -1
	if err := alice.Ping(ctx).Err(); err == nil {
		t.Errorf("PING as a deleted user succeeded")
	}
}
