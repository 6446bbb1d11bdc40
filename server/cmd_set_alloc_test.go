package server

// The set commands on the hot path join zeroAllocCommands: SADD of a
// member already there, SISMEMBER, SCARD, SMISMEMBER, SRANDMEMBER and SPOP
// (alone and with a count of 1) on warm sets of the three encodings. The
// hash-table and intset SPOP sets are big enough for every run of the
// allocation tests to pop a member; the listpack one (at most 128 members)
// empties after the first 128 runs, which are the ones that count.
func init() {
	zeroAllocCommands = append(zeroAllocCommands, []struct {
		name  string
		setup []string
		cmd   []string
	}{
		{"SADD/existing/intset", []string{"SADD s 1 2 3"}, []string{"SADD", "s", "2"}},
		{"SADD/existing/listpack", []string{"SADD l a b c"}, []string{"SADD", "l", "b"}},
		{"SADD/existing/hashtable", []string{"SADD h " + words(200, 8)}, []string{"SADD", "h", "m7xxxxxx"}},
		{"SISMEMBER/intset", []string{"SADD s 1 2 3"}, []string{"SISMEMBER", "s", "3"}},
		{"SISMEMBER/listpack", []string{"SADD l a b c"}, []string{"SISMEMBER", "l", "c"}},
		{"SISMEMBER/hashtable", []string{"SADD h " + words(200, 8)}, []string{"SISMEMBER", "h", "m7xxxxxx"}},
		{"SCARD", []string{"SADD l a b c"}, []string{"SCARD", "l"}},
		{"SMISMEMBER", []string{"SADD l a b c"}, []string{"SMISMEMBER", "l", "a", "x"}},
		{"SPOP/intset", []string{"SADD s " + ints(0, 512)}, []string{"SPOP", "s"}},
		{"SPOP/listpack", []string{"SADD l " + words(128, 8)}, []string{"SPOP", "l"}},
		{"SPOP/hashtable", []string{"SADD h " + words(4000, 8)}, []string{"SPOP", "h"}},
		{"SPOP/nokey", nil, []string{"SPOP", "myset"}}, // redis-benchmark's SPOP: its set is empty after the first
		{"SPOP/count=1", []string{"SADD h " + words(4000, 8)}, []string{"SPOP", "h", "1"}},
		{"SRANDMEMBER/listpack", []string{"SADD l a b c"}, []string{"SRANDMEMBER", "l"}},
		{"SRANDMEMBER/hashtable", []string{"SADD h " + words(200, 8)}, []string{"SRANDMEMBER", "h"}},
		{"SRANDMEMBER/listpack/-5", []string{"SADD l a b c"}, []string{"SRANDMEMBER", "l", "-5"}},
		{"SRANDMEMBER/listpack/2", []string{"SADD l a b c"}, []string{"SRANDMEMBER", "l", "2"}},
	}...)
}
