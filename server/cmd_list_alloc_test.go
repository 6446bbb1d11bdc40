package server

func init() {
	// a pushed element is popped again, so the list stays the same size
	zeroAllocCommands = append(zeroAllocCommands, []struct {
		name  string
		setup []string
		cmd   []string
	}{
		{"RPOPLPUSH/rotate", []string{"RPUSH l a b c d e"}, []string{"RPOPLPUSH", "l", "l"}},
		{"LMOVE/rotate", []string{"RPUSH l a b c d e"}, []string{"LMOVE", "l", "l", "LEFT", "RIGHT"}},
		{"LINDEX", []string{"RPUSH l a b c d e 12"}, []string{"LINDEX", "l", "-1"}},
		{"LLEN", []string{"RPUSH l a b"}, []string{"LLEN", "l"}},
		{"LRANGE/5", []string{"RPUSH l a b c d e"}, []string{"LRANGE", "l", "0", "-1"}},
		{"LSET", []string{"RPUSH l a b c"}, []string{"LSET", "l", "1", "x"}},
		{"LPOS", []string{"RPUSH l a b c"}, []string{"LPOS", "l", "c"}},
	}...)
}
