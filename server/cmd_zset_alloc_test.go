package server

// The hot sorted-set commands join the zero-allocation tables of
// cmd_string_alloc_test.go, on both encodings: a listpack zset z and a
// skiplist s (past 128 members).
func init() {
	s := zsetFill("s", "m", 0, 200, 1)
	z := "ZADD z 1 a 2 b 3 c 4 d 5 e 6 f 7 g 8 h 9 i 10 j 1.5 k"
	zeroAllocCommands = append(zeroAllocCommands, []struct {
		name  string
		setup []string
		cmd   []string
	}{
		{"ZADD/listpack/existing", []string{z}, []string{"ZADD", "z", "3", "c"}},
		{"ZADD/listpack/update", []string{z}, []string{"ZADD", "z", "3.5", "c"}},
		{"ZADD/skiplist/existing", []string{s}, []string{"ZADD", "s", "150", "m150"}},
		{"ZSCORE/listpack", []string{z}, []string{"ZSCORE", "z", "k"}},
		{"ZSCORE/skiplist", []string{s}, []string{"ZSCORE", "s", "m150"}},
		{"ZSCORE/nokey", nil, []string{"ZSCORE", "nokey", "m"}},
		{"ZINCRBY/listpack", []string{z}, []string{"ZINCRBY", "z", "0", "c"}},
		{"ZINCRBY/skiplist", []string{s}, []string{"ZINCRBY", "s", "1", "m100"}},
		{"ZRANGE/listpack", []string{z}, []string{"ZRANGE", "z", "0", "9"}},
		{"ZRANGE/skiplist", []string{s}, []string{"ZRANGE", "s", "0", "9"}},
		{"ZRANGE/skiplist/withscores", []string{s}, []string{"ZRANGE", "s", "0", "9", "WITHSCORES"}},
		{"ZRANGEBYSCORE/skiplist", []string{s}, []string{"ZRANGEBYSCORE", "s", "(10", "20", "LIMIT", "0", "5"}},
		{"ZCARD", []string{z}, []string{"ZCARD", "z"}},
		{"ZRANK/skiplist", []string{s}, []string{"ZRANK", "s", "m77"}},
		{"ZCOUNT/skiplist", []string{s}, []string{"ZCOUNT", "s", "10", "(100"}},
	}...)
}
