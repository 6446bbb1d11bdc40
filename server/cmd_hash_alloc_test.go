package server

import "strings"

// The hot hash commands join the zero-allocation tables of
// cmd_string_alloc_test.go, on both encodings: a listpack hash h and a
// hash table t (past 128 fields).
func init() {
	t := hashFill("t", "f", 0, 200, 4)
	zeroAllocCommands = append(zeroAllocCommands, []struct {
		name  string
		setup []string
		cmd   []string
	}{
		{"HSET/listpack/existing", []string{"HSET h f v g 12"}, []string{"HSET", "h", "f", "w"}},
		{"HSET/listpack/int", []string{"HSET h f v g 12"}, []string{"HSET", "h", "g", "13"}},
		{"HSET/hashtable/existing", []string{t}, []string{"HSET", "t", "f7", "abcd"}},
		{"HGET/listpack", []string{"HSET h f v g 12"}, []string{"HGET", "h", "f"}},
		{"HGET/listpack/int", []string{"HSET h f v g 12"}, []string{"HGET", "h", "g"}},
		{"HGET/listpack/miss", []string{"HSET h f v"}, []string{"HGET", "h", "x"}},
		{"HGET/hashtable", []string{t}, []string{"HGET", "t", "f150"}},
		{"HGET/nokey", nil, []string{"HGET", "nokey", "f"}},
		{"HINCRBY/listpack", []string{"HSET h n 5"}, []string{"HINCRBY", "h", "n", "3"}},
		{"HINCRBY/hashtable", []string{t, "HSET t n 5"}, []string{"HINCRBY", "t", "n", "3"}},
		{"HMGET", []string{"HSET h a 1 b " + strings.Repeat("x", 30)}, []string{"HMGET", "h", "a", "b", "c"}},
		{"HEXISTS", []string{"HSET h a 1"}, []string{"HEXISTS", "h", "a"}},
		{"HLEN", []string{"HSET h a 1"}, []string{"HLEN", "h"}},
		{"HSTRLEN", []string{"HSET h a 12345"}, []string{"HSTRLEN", "h", "a"}},
		{"HGETALL/listpack", []string{"HSET h a 1 b 2 c 3"}, []string{"HGETALL", "h"}},
		{"HSETNX/existing", []string{"HSET h a 1"}, []string{"HSETNX", "h", "a", "2"}},
	}...)
}
