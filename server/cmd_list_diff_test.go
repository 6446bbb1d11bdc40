package server

import "testing"

// List commands against redis-server, RESP2 and RESP3, with small nodes
// (list-max-listpack-size 4) so that ranges, inserts and removals cross
// quicklist nodes.
var listDiffCases = []diffCase{
	{"push-pop", []string{
		"CONFIG SET list-max-listpack-size 4",
		"LPUSH l a b c", "RPUSH l d e f g h", "LLEN l", "LRANGE l 0 -1", "LPOP l", "RPOP l", "LPOP l 2", "RPOP l 3",
		"LRANGE l 0 -1", "LPOP l 0", "LPOP l 10", "LPOP l", "EXISTS l", "LPOP l", "LPOP l 2", "RPOP l 0",
		"LPUSHX l x", "RPUSHX l x", "EXISTS l", "RPUSH l 1 2 3", "LPUSHX l 0", "RPUSHX l 4 5", "LRANGE l 0 -1",
		"LPOP l -1", "LPOP l abc", "LPOP l 1 2", "LPOP", "LPUSH l", "RPUSH", "OBJECT ENCODING l", "TYPE l",
		"SET s v", "LPUSH s x", "LPOP s", "LPOP s 2", "LLEN s", "LRANGE s 0 1", "RPUSHX s x",
		"#proto 3", "LPOP missing", "LPOP missing 2", "LPOP l 0", "LRANGE l 0 -1", "RPOP l 2", "LPOP s 0",
	}},
	{"range-index-set", []string{
		"CONFIG SET list-max-listpack-size 4",
		"RPUSH l 0 1 2 3 4 5 6 7 8 9 10 11 12", "LRANGE l 0 3", "LRANGE l -3 -1", "LRANGE l 5 100", "LRANGE l -100 2",
		"LRANGE l 7 3", "LRANGE l 20 30", "LRANGE l -1 -3", "LRANGE l x 1", "LRANGE l 0 y", "LRANGE missing 0 -1",
		"LINDEX l 0", "LINDEX l -1", "LINDEX l 6", "LINDEX l 13", "LINDEX l -14", "LINDEX l x", "LINDEX missing 0",
		"LSET l 0 zero", "LSET l -1 last", "LSET l 6 a-much-longer-element-than-the-rest", "LRANGE l 0 -1",
		"LSET l 13 x", "LSET l -14 x", "LSET l x v", "LSET missing 0 v", "LSET missing x v",
		"LINDEX l 9223372036854775807", "LINDEX l -9223372036854775808", "LSET l 9223372036854775807 x",
		"SET s v", "LSET s 0 v", "LSET s x v", "LINDEX s 0",
	}},
	{"insert-rem-trim", []string{
		"CONFIG SET list-max-listpack-size 4",
		"RPUSH l a b c d a b c d a", "LINSERT l BEFORE c X", "LINSERT l AFTER d Y", "LINSERT l after a Z",
		"LINSERT l BEFORE nope W", "LINSERT l MIDDLE a W", "LINSERT missing BEFORE a W", "LRANGE l 0 -1",
		"LREM l 1 a", "LREM l -1 a", "LRANGE l 0 -1", "LREM l 0 b", "LREM l 0 nope", "LREM l x a", "LRANGE l 0 -1",
		"RPUSH l 1 2 3 4 5 6 7 8", "LTRIM l 2 -3", "LRANGE l 0 -1", "LTRIM l -2 -1", "LRANGE l 0 -1", "LTRIM l 5 1",
		"EXISTS l", "LTRIM missing 0 1", "LTRIM l x 1", "LREM missing 0 a", "SET s v", "LINSERT s BEFORE a b",
		"LREM s 0 a", "LTRIM s 0 1",
	}},
	{"lpos", []string{
		"RPUSH l a b c 1 2 3 c c", "LPOS l c", "LPOS l c RANK 2", "LPOS l c RANK -1", "LPOS l c RANK -3", "LPOS l c RANK 4",
		"LPOS l c COUNT 0", "LPOS l c COUNT 2", "LPOS l c COUNT 0 RANK -1", "LPOS l c COUNT 0 MAXLEN 4",
		"LPOS l c MAXLEN 3", "LPOS l 2", "LPOS l nope", "LPOS l nope COUNT 0", "LPOS missing a", "LPOS missing a COUNT 1",
		"LPOS l c RANK 0", "LPOS l c COUNT -1", "LPOS l c MAXLEN -1", "LPOS l c RANK x", "LPOS l c FOO 1",
		"LPOS l c RANK", "LPOS l c RANK -9223372036854775808", "LPOS l c RANK 9223372036854775807",
		"SET s v", "LPOS s a", "#proto 3", "LPOS l c COUNT 0", "LPOS missing a", "LPOS missing a COUNT 0",
	}},
	{"lmove-rpoplpush-lmpop", []string{
		"RPUSH a 1 2 3", "LMOVE a b LEFT RIGHT", "LMOVE a b RIGHT LEFT", "LRANGE a 0 -1", "LRANGE b 0 -1",
		"LMOVE a a LEFT RIGHT", "LRANGE a 0 -1", "RPOPLPUSH b a", "LRANGE a 0 -1", "LMOVE missing b LEFT LEFT",
		"LMOVE a b UP LEFT", "LMOVE a b LEFT DOWN", "SET s v", "LMOVE a s LEFT LEFT", "LRANGE a 0 -1", "LMOVE s a LEFT LEFT",
		"RPOPLPUSH s a", "RPOPLPUSH a s", "RPOPLPUSH missing a", "LMOVE b b RIGHT RIGHT", "LRANGE b 0 -1",
		"RPUSH c x y z", "LMPOP 2 missing c LEFT", "LMPOP 2 missing c RIGHT COUNT 5", "EXISTS c", "LMPOP 1 missing LEFT",
		"LMPOP 0 a LEFT", "LMPOP -1 a LEFT", "LMPOP x a LEFT", "LMPOP 3 a b LEFT", "LMPOP 1 a MIDDLE", "LMPOP 1 a LEFT COUNT 0",
		"LMPOP 1 a LEFT COUNT -2", "LMPOP 1 a LEFT COUNT 1 COUNT 1", "LMPOP 1 a LEFT FOO", "LMPOP 2 s a LEFT",
		"LMPOP 2 a s LEFT", "LMPOP 1 a", "#proto 3", "LMPOP 1 missing LEFT", "LMPOP 1 a RIGHT COUNT 2",
	}},
	{"resp3", []string{
		"CONFIG SET list-max-listpack-size 4", "#proto 3", "RPUSH l 0 1 2 3 4 5 6 7 8 9", "LRANGE l -3 -1", "LRANGE l 5 1",
		"LRANGE missing 0 -1", "LINDEX l -1", "LINDEX l 10", "LINDEX missing 0", "LSET l -2 x", "LSET l 10 x", "LINSERT l BEFORE nope y",
		"LINSERT missing BEFORE a b", "LINSERT l AFTER x y", "LREM l -1 y", "LTRIM l 1 -2", "LRANGE l 0 -1", "LPOS l x", "LPOS l nope",
		"LPOS l 5 RANK -1 COUNT 0", "LPOS l nope COUNT 2", "LMOVE missing d LEFT RIGHT", "RPOPLPUSH missing d", "LMOVE l d RIGHT LEFT",
		"RPOPLPUSH l d", "LRANGE d 0 -1", "LMPOP 2 missing l RIGHT COUNT 3", "LMPOP 1 missing LEFT", "RPOP missing", "RPOP missing 3",
		"LPOP l 100", "EXISTS l", "LLEN missing", "LPUSHX missing a", "SET s v", "LINDEX s 0", "LMOVE s d LEFT LEFT",
	}},
}

func TestListCommandsMatchRedis(t *testing.T) { runDiff(t, listDiffCases) }
