package server

import "testing"

// OBJECT, MOVE and SWAPDB against redis-server (strings here; the hash and
// set families add their encodings to their own cases).
var objectDiffCases = []diffCase{
	{"object-encoding-strings", []string{
		"SET i 12345", "OBJECT ENCODING i", "SET big 12345678901234567890", "OBJECT ENCODING big",
		"SET e hello", "OBJECT ENCODING e", "SET r 0123456789012345678901234567890123456789012345", "OBJECT ENCODING r",
		"SET z 0123", "OBJECT ENCODING z", "SET neg -42", "OBJECT ENCODING neg", "APPEND i 6", "OBJECT ENCODING i",
		"SETRANGE e 0 H", "OBJECT ENCODING e", "SET n 10", "INCR n", "OBJECT ENCODING n", "INCRBYFLOAT f 1.5", "OBJECT ENCODING f",
		"SET s 44444444444444444444444444444444444444444444", "OBJECT ENCODING s", "OBJECT encoding missing",
		"object Encoding i",
	}},
	{"object-refcount-idletime-freq-help", []string{
		"SET shared 100", "OBJECT REFCOUNT shared", "SET unshared 10000", "OBJECT REFCOUNT unshared",
		"SET str abc", "OBJECT REFCOUNT str", "OBJECT REFCOUNT missing", "SET neg -1", "OBJECT REFCOUNT neg",
		"OBJECT IDLETIME str", "OBJECT IDLETIME missing", "OBJECT FREQ str", "OBJECT FREQ missing",
		"OBJECT HELP", "OBJECT help", "OBJECT", "OBJECT FOO", "OBJECT ENCODING", "OBJECT ENCODING a b", "OBJECT HELP x",
		"#proto 3", "OBJECT ENCODING missing", "OBJECT HELP",
	}},
	// under an LFU policy (with lfu-log-factor 0 every access counts, so
	// the counters are deterministic): FREQ answers, IDLETIME refuses; a
	// switch back reinterprets the field, as Redis does
	{"object-freq-lfu", []string{
		"CONFIG SET maxmemory-policy allkeys-lfu", "CONFIG SET lfu-log-factor 0", "CONFIG GET lfu-log-factor", "CONFIG GET lfu-decay-time",
		"SET k v", "OBJECT FREQ k", "GET k", "GET k", "OBJECT FREQ k", "EXISTS k", "OBJECT FREQ k",
		"HSET h f v", "HGET h f", "OBJECT FREQ h", "TYPE h", "OBJECT FREQ h",
		"OBJECT IDLETIME k", "OBJECT IDLETIME missing", "OBJECT FREQ missing",
		"SET n 100", "OBJECT REFCOUNT n", // (its FREQ is Redis's shared object's)
		"TTL k", "PTTL k", "EXISTS k h", "OBJECT FREQ k",
		"CONFIG SET maxmemory-policy volatile-lfu", "OBJECT FREQ k",
		"CONFIG SET maxmemory-policy allkeys-lru", "OBJECT FREQ k",
		"CONFIG SET maxmemory-policy allkeys-lfu", "OBJECT FREQ k",
		"CONFIG SET lfu-log-factor -1", "CONFIG SET lfu-decay-time x", "CONFIG SET lfu-decay-time 0",
		"CONFIG SET maxmemory-policy noeviction", "CONFIG SET lfu-log-factor 10", "CONFIG SET lfu-decay-time 1",
	}},
	{"move", []string{
		"SET k v EX 1000", "MOVE k 1", "EXISTS k", "#db 1", "GET k", "TTL k", "MOVE k 0", "#db 0", "GET k",
		"MOVE k 0", "MOVE missing 1", "MOVE k x", "MOVE k 16", "MOVE k -1", "MOVE k 2147483648", "MOVE k 1.5", "MOVE k 01", "MOVE k -2147483649",
		"SET k2 a", "#db 1", "SET k2 b", "#db 0", "MOVE k2 1", "GET k2", "MOVE", "MOVE k",
	}},
	{"swapdb", []string{
		"SET a in0", "#db 1", "SET b in1", "SWAPDB 0 1", "GET a", "GET b", "#db 0", "GET b", "GET a",
		"SWAPDB 0 0", "GET b", "SWAPDB x 1", "SWAPDB 1 y", "SWAPDB 0 16", "SWAPDB -1 0", "SWAPDB 0 1.0", "SWAPDB 2147483648 0", "SWAPDB 0 -2147483649", "SWAPDB 01 0", "SWAPDB 0",
		"DBSIZE", "#db 1", "DBSIZE",
	}},
	{"type-and-scan-type", []string{
		"SET s v", "TYPE s", "TYPE missing", "S SCAN 0 TYPE string", "S SCAN 0 TYPE STRING", "S SCAN 0 TYPE hash",
		"S SCAN 0 TYPE nosuch", "RENAME s t", "TYPE t", "COPY t u DB 2", "#db 2", "TYPE u",
	}},
}

func TestObjectMoveSwapDBMatchRedis(t *testing.T) { runDiff(t, objectDiffCases) }
