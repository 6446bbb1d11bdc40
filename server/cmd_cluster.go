package server

import (
	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// CLUSTER's keyspace subcommands. loopkv places every key by its Redis
// Cluster hash slot even outside cluster mode (store/doc.go), so KEYSLOT,
// COUNTKEYSINSLOT and GETKEYSINSLOT answer, on the client's database,
// where a non-cluster redis-server refuses them; cluster mode will add the
// rest of CLUSTER.

func cmdClusterKeySlot(c *cmdCtx) { c.integer(int64(store.KeySlot(c.args[2]))) }

func cmdClusterCountKeysInSlot(c *cmdCtx) {
	slot, ok := intArg(c, c.args[2])
	if !ok {
		return
	}
	if slot < 0 || slot >= store.Slots {
		c.errReply("ERR Invalid slot")
		return
	}
	c.integer(int64(c.store.CountKeysInSlot(c.db(), uint16(slot))))
}

func cmdClusterGetKeysInSlot(c *cmdCtx) {
	slot, ok := intArg(c, c.args[2])
	if !ok {
		return
	}
	count, ok := intArg(c, c.args[3])
	if !ok {
		return
	}
	if slot < 0 || slot >= store.Slots || count < 0 {
		c.errReply("ERR Invalid slot or number of keys")
		return
	}
	n := min(int64(c.store.CountKeysInSlot(c.db(), uint16(slot))), count)
	mark := len(c.out)
	c.arrayLen(int(n))
	got := int64(0)
	c.store.KeysInSlot(c.db(), uint16(slot), c.now, int(n), func(key []byte) {
		c.bulk(key)
		got++
	})
	if got != n { // keys expired between the count and the walk
		body := append([]byte(nil), c.out[mark+len(resp.AppendArrayLen(nil, int(n))):]...)
		c.out = append(resp.AppendArrayLen(c.out[:mark], int(got)), body...)
	}
}

// cmdClusterDisabled is ASKING, READONLY and READWRITE outside cluster
// mode, which loopkv does not run yet: Redis's reply there. Their rows
// also keep the @connection category as large as Redis 7.0's, which ACL
// GETUSER's choice of categories depends on (acl.go commandRules).
func cmdClusterDisabled(c *cmdCtx) { c.errReply("ERR This instance has cluster support disabled") }

var clusterCommands = []command{
	{Name: "asking", Arity: 1, Flags: flagFast, ACL: catConnection,
		Doc: cmdDoc{Summary: "Sent by cluster clients after an -ASK redirect", Since: "3.0.0", Group: "cluster",
			Complexity: "O(1)"},
		ClockFree: true,
		Fn:        cmdClusterDisabled},
	{Name: "readonly", Arity: 1, Flags: flagLoading | flagStale | flagFast, ACL: catConnection,
		Doc: cmdDoc{Summary: "Enables read queries for a connection to a cluster replica node", Since: "3.0.0", Group: "cluster",
			Complexity: "O(1)"},
		ClockFree: true,
		Fn:        cmdClusterDisabled},
	{Name: "readwrite", Arity: 1, Flags: flagLoading | flagStale | flagFast, ACL: catConnection,
		Doc: cmdDoc{Summary: "Disables read queries for a connection to a cluster replica node", Since: "3.0.0", Group: "cluster",
			Complexity: "O(1)"},
		ClockFree: true,
		Fn:        cmdClusterDisabled},
	{Name: "cluster", Arity: -2,
		Doc: cmdDoc{Summary: "A container for cluster commands", Since: "3.0.0", Group: "cluster",
			Complexity: "Depends on subcommand."},
		Subs: []command{
			{Name: "keyslot", Arity: 3, Flags: flagStale,
				Doc: cmdDoc{Summary: "Returns the hash slot of the specified key", Since: "3.0.0", Group: "cluster",
					Complexity: "O(N) where N is the number of bytes in the key",
					Args: []cmdArg{
						{Name: "key", Type: argString},
					}},
				ClockFree: true,
				Fn:        cmdClusterKeySlot},
			{Name: "countkeysinslot", Arity: 3, Flags: flagStale,
				Doc: cmdDoc{Summary: "Return the number of local keys in the specified hash slot", Since: "3.0.0", Group: "cluster",
					Complexity: "O(1)",
					Args: []cmdArg{
						{Name: "slot", Type: argInteger},
					}},
				Fn: cmdClusterCountKeysInSlot},
			{Name: "getkeysinslot", Arity: 4, Flags: flagStale,
				Tips: []string{"nondeterministic_output"},
				Doc: cmdDoc{Summary: "Return local key names in the specified hash slot", Since: "3.0.0", Group: "cluster",
					Complexity: "O(log(N)) where N is the number of requested keys",
					Args: []cmdArg{
						{Name: "slot", Type: argInteger},
						{Name: "count", Type: argInteger},
					}},
				Fn: cmdClusterGetKeysInSlot},
		}},
}

func init() { register(clusterCommands...) }
