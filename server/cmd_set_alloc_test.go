package server

// The set commands on the hot path join zeroAllocCommands: SADD of a
// member already there, SISMEMBER, SCARD, SMISMEMBER and SPOP (alone and
// with a count of 1) on warm sets of both encodings. The SPOP sets are big
// enough for every run of the allocation tests to pop a member.
func init() {
	zeroAllocCommands = append(zeroAllocCommands, []struct {
		name  string
		setup []string
		cmd   []string
	}{
		{"SADD/existing/intset", []string{"SADD s 1 2 3"}, []string{"SADD", "s", "2"}},
		{"SADD/existing/hashtable", []string{"SADD h a b c"}, []string{"SADD", "h", "b"}},
		{"SISMEMBER/intset", []string{"SADD s 1 2 3"}, []string{"SISMEMBER", "s", "3"}},
		{"SISMEMBER/hashtable", []string{"SADD h a b c"}, []string{"SISMEMBER", "h", "c"}},
		{"SCARD", []string{"SADD h a b c"}, []string{"SCARD", "h"}},
		{"SMISMEMBER", []string{"SADD h a b c"}, []string{"SMISMEMBER", "h", "a", "x"}},
		{"SPOP/intset", []string{"SADD s " + ints(0, 512)}, []string{"SPOP", "s"}},
		{"SPOP/hashtable", []string{"SADD h " + words(4000, 8)}, []string{"SPOP", "h"}},
		{"SPOP/count=1", []string{"SADD h " + words(4000, 8)}, []string{"SPOP", "h", "1"}},
		{"SRANDMEMBER", []string{"SADD h a b c"}, []string{"SRANDMEMBER", "h"}},
	}...)
}
