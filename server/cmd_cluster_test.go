package server

import (
	"strings"
	"testing"
)

// CLUSTER KEYSLOT gives Redis Cluster's slots; COUNTKEYSINSLOT and
// GETKEYSINSLOT follow the keyspace. (A non-cluster redis-server refuses
// these, so the slots are checked against the documented values.)
func TestClusterSlotCommands(t *testing.T) {
	o := newOurServer()
	for _, tt := range []struct{ cmd, want string }{
		{"CLUSTER KEYSLOT foo", ":12182\r\n"},
		{"CLUSTER KEYSLOT {user1000}.following", ":3443\r\n"},
		{"SET {user1000}.a 1", "+OK\r\n"},
		{"SET {user1000}.b 2", "+OK\r\n"},
		{"SET other 3", "+OK\r\n"},
		{"CLUSTER COUNTKEYSINSLOT 3443", ":2\r\n"},
		{"CLUSTER COUNTKEYSINSLOT 0", ":0\r\n"},
		{"CLUSTER GETKEYSINSLOT 3443 1", "*1\r\n"},
		{"CLUSTER GETKEYSINSLOT 3443 0", "*0\r\n"},
		{"CLUSTER COUNTKEYSINSLOT 16384", "-ERR Invalid slot\r\n"},
		{"CLUSTER COUNTKEYSINSLOT -1", "-ERR Invalid slot\r\n"},
		{"CLUSTER COUNTKEYSINSLOT x", "-ERR value is not an integer or out of range\r\n"},
		{"CLUSTER GETKEYSINSLOT 3443 -1", "-ERR Invalid slot or number of keys\r\n"},
		{"CLUSTER KEYSLOT", "-ERR wrong number of arguments for 'cluster|keyslot' command\r\n"},
	} {
		got := string(o.do(t, strings.Fields(tt.cmd)))
		if !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s = %q, want %q", tt.cmd, got, tt.want)
		}
	}
	got := string(o.do(t, []string{"CLUSTER", "GETKEYSINSLOT", "3443", "10"}))
	if !strings.HasPrefix(got, "*2\r\n") || !strings.Contains(got, "{user1000}.a") || !strings.Contains(got, "{user1000}.b") {
		t.Fatalf("GETKEYSINSLOT = %q", got)
	}
}

// ASKING, READONLY and READWRITE outside cluster mode answer as a
// non-cluster redis-server does, in both protocols.
func TestClusterModeCommandsMatchRedis(t *testing.T) {
	runDiff(t, []diffCase{
		{"cluster-mode-off", []string{"ASKING", "READONLY", "READWRITE", "READONLY x", "ASKING x",
			"#proto 3", "READWRITE", "ASKING"}},
	})
}
