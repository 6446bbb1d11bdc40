package server

// redis-cli's rendering of set replies, RESP3 sets included, joins
// TestRedisCLI (its outputs checked against redis-server 7.0.15's).
func init() {
	redisCLITests = append(redisCLITests, []struct {
		args []string
		want string
	}{
		{[]string{"--no-raw", "sadd", "cli:s", "3", "1", "2"}, "(integer) 3\n"},
		{[]string{"--no-raw", "smembers", "cli:s"}, "1) \"1\"\n2) \"2\"\n3) \"3\"\n"},
		{[]string{"-3", "--no-raw", "smembers", "cli:s"}, "1~ \"1\"\n2~ \"2\"\n3~ \"3\"\n"},
		{[]string{"-3", "--no-raw", "spop", "cli:s", "0"}, "(empty set)\n"},
		{[]string{"--no-raw", "spop", "cli:s", "0"}, "(empty array)\n"},
		{[]string{"--no-raw", "smismember", "cli:s", "1", "9"}, "1) (integer) 1\n2) (integer) 0\n"},
		{[]string{"-3", "--no-raw", "sscan", "cli:s", "0"}, "1) \"0\"\n2) 1) \"1\"\n   2) \"2\"\n   3) \"3\"\n"},
		{[]string{"set", "cli:str", "v"}, "OK\n"},
		{[]string{"--no-raw", "sadd", "cli:str", "x"}, "(error) WRONGTYPE Operation against a key holding the wrong kind of value\n"},
	}...)
}
