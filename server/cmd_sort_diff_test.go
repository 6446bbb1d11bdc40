package server

import "testing"

var sortDiffCases = []diffCase{
	{"sort-list", []string{
		"RPUSH l 3 1 2 10 -1.5 1e3", "SORT l", "SORT l DESC", "SORT l ALPHA", "SORT l ALPHA DESC", "SORT l LIMIT 1 2", "SORT l LIMIT 1 -1",
		"SORT l LIMIT -1 1", "SORT l LIMIT 5 1", "SORT l LIMIT 100 1", "SORT l LIMIT 0 0", "SORT l LIMIT x 1", "SORT l LIMIT 0",
		"SORT l BY nosort", "SORT l BY nosort DESC", "SORT l BY nosort LIMIT 1 2", "SORT l BY nosort DESC LIMIT 1 2", "SORT l FOO",
		"SORT l STORE d", "LRANGE d 0 -1", "TYPE d", "SORT l DESC LIMIT 0 2 STORE d", "LRANGE d 0 -1", "SORT_RO l STORE d", "SORT_RO l DESC",
		"SORT nokey", "SORT nokey STORE d", "EXISTS d", "RPUSH bad a 1", "SORT bad", "SORT bad ALPHA", "SET str v", "SORT str", "SORT str ALPHA",
		"RPUSH sp \" 2\" \"\" 1", "SORT sp", "RPUSH nan nan 1", "SORT nan", "RPUSH inf inf -inf 0", "SORT inf", "SORT l ASC DESC ASC",
	}},
	{"sort-by-get", []string{
		"RPUSH l 1 2 3 4", "SET w_1 40", "SET w_2 30", "SET w_3 20", "SET w_4 10", "SORT l BY w_*", "SORT l BY w_* DESC", "SORT l BY w_* LIMIT 1 2",
		"SORT l BY w_* GET #", "SORT l BY w_* GET # GET w_*", "SORT l GET o_*", "SET o_2 two", "SORT l GET o_* GET #", "SORT l GET nostar",
		"HSET h_1 f 9 g a", "HSET h_2 f 7 g c", "HSET h_3 f 8 g b", "HSET h_4 f 1 g d", "SORT l BY h_*->f", "SORT l BY h_*->f GET h_*->g",
		"SORT l BY h_*->g ALPHA GET h_*->g", "SORT l BY h_*->g ALPHA DESC", "SORT l BY h_*->nofield", "SORT l GET h_*->", "SORT l GET h_*->f GET w_*->f",
		"SET x_1 a", "SET x_2 b", "SET x_3 c", "SET x_4 d", "SORT l BY x_*", "SORT l BY x_* ALPHA DESC", "SORT l BY w_* STORE d GET h_*->g GET o_*",
		"LRANGE d 0 -1", "SORT l BY nosort GET w_*", "SORT l BY w_* GET # GET w_* STORE d", "LRANGE d 0 -1", "#proto 3", "SORT l GET o_* GET #",
		"SORT l BY w_*", "MULTI", "SORT l BY w_* GET o_* GET # STORE d", "SORT_RO l BY h_*->f", "EXEC", "LRANGE d 0 -1",
	}},
	{"sort-set-zset", []string{
		"SADD s 5 3 9 1", "SORT s", "SORT s DESC LIMIT 0 2", "SADD t b a c", "SORT t ALPHA", "SORT t BY nosort STORE d", "LRANGE d 0 -1",
		"S SORT t BY nosort", "ZADD z 3 a 1 b 2 c", "OBJECT ENCODING z", "SORT z ALPHA", "OBJECT ENCODING z", "ZADD y 1 x 2 w 3 v",
		"SORT y BY nosort", "SORT y BY nosort DESC", "SORT y BY nosort LIMIT 1 5", "SORT y BY nosort DESC LIMIT 1 1", "SORT y ALPHA DESC",
		"ZADD n 1 10 2 9 3 8", "SORT n", "SORT n BY nosort STORE d", "LRANGE d 0 -1", "HSET hh a 1", "SORT hh",
	}},
}

func TestSortMatchesRedis(t *testing.T) { runDiff(t, sortDiffCases) }
