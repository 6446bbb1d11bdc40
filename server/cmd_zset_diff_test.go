package server

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// zsetFill returns "ZADD key s0 m0 s1 m1 ..." with n members named
// prefix+i, scored i*step.
func zsetFill(key, prefix string, from, n int, step float64) string {
	var b strings.Builder
	b.WriteString("ZADD " + key)
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, " %s %s%d", strconv.FormatFloat(float64(i)*step, 'g', -1, 64), prefix, i)
	}
	return b.String()
}

// zsetReads are read commands run over a sorted set z whose members
// have scores between about -2 and 300.
var zsetReads = []string{
	"ZCARD z", "ZRANGE z 0 -1 WITHSCORES", "ZRANGE z 0 9", "ZRANGE z -3 -1 WITHSCORES", "ZRANGE z 5 2", "ZRANGE z -1000 1000",
	"ZRANGE z 0 0 REV WITHSCORES", "ZREVRANGE z 0 4 WITHSCORES", "ZREVRANGE z -2 -1", "ZRANGE z 1 (50 BYSCORE WITHSCORES",
	"ZRANGE z (50 1 BYSCORE REV", "ZRANGE z -inf +inf BYSCORE LIMIT 3 4 WITHSCORES", "ZRANGE z +inf -inf BYSCORE REV LIMIT 1 -1",
	"ZRANGEBYSCORE z (1 3", "ZRANGEBYSCORE z -inf 2.5 WITHSCORES", "ZRANGEBYSCORE z 2 1", "ZRANGEBYSCORE z (2 (2", "ZRANGEBYSCORE z 2 2",
	"ZRANGEBYSCORE z 0 100 LIMIT 0 0", "ZRANGEBYSCORE z 0 100 LIMIT 2 3", "ZRANGEBYSCORE z 0 100 LIMIT 1000 3", "ZRANGEBYSCORE z 0 100 LIMIT -1 3",
	"ZREVRANGEBYSCORE z 100 0 LIMIT 2 3 WITHSCORES", "ZREVRANGEBYSCORE z (10 (1", "ZREVRANGEBYSCORE z 1 10",
	"ZCOUNT z -inf +inf", "ZCOUNT z (1 3", "ZCOUNT z 3 1", "ZCOUNT z \"(\" 5", "ZCOUNT z \"\" 5", "ZCOUNT z \" 1\" 5", "ZCOUNT z 1e400 inf",
	"ZCOUNT z -1e400 (0", "ZCOUNT z x 1", "ZCOUNT z 1 nan", "ZCOUNT z \"1 \" 2", "ZCOUNT z 0x10 +Infinity",
	"ZRANK z m3", "ZRANK z nope", "ZREVRANK z m3", "ZREVRANK z m0", "ZSCORE z m3", "ZSCORE z nope", "ZMSCORE z m1 nope m2",
	"ZRANGE z 0 -1 BYLEX LIMIT 0 2", "ZREMRANGEBYRANK nokey 0 -1", "ZRANGE z 0 1 WITHSCORES LIMIT 0 1", "ZRANGE z 0 1 LIMIT 0 -1",
	"ZRANGE z 0 1 LIMIT 5 -1", "ZRANGE z a 1", "ZRANGE z 0 1 BYSCORE BYLEX", "ZRANGE z 0 1 REV REV", "ZREVRANGE z 0 1 REV",
	"ZRANGEBYSCORE z 0 1 BYSCORE", "ZRANGE z 0 1 LIMIT 0", "ZRANGE z 0 1 LIMIT x 1 BYSCORE", "ZRANGEBYSCORE z a 1", "ZRANGE z [a [z BYLEX WITHSCORES",
}

// zsetLexReads run over a sorted set l whose members all score 0.
var zsetLexReads = []string{
	"ZRANGEBYLEX l - +", "ZRANGEBYLEX l [b (d", "ZRANGEBYLEX l (b [d", "ZRANGEBYLEX l - [c", "ZRANGEBYLEX l (c +", "ZRANGEBYLEX l + -",
	"ZRANGEBYLEX l [d [b", "ZRANGEBYLEX l - + LIMIT 1 2", "ZRANGEBYLEX l - + LIMIT -1 2", "ZREVRANGEBYLEX l + - LIMIT 1 2",
	"ZREVRANGEBYLEX l [d [b", "ZRANGE l [b [d BYLEX", "ZRANGE l [d [b BYLEX REV", "ZRANGE l (a (e BYLEX REV LIMIT 1 1", "ZLEXCOUNT l - +",
	"ZLEXCOUNT l [b (d", "ZLEXCOUNT l (b (b", "ZLEXCOUNT l [b [b", "ZLEXCOUNT l b d", "ZLEXCOUNT l [b d", "ZLEXCOUNT l -a +",
	"ZRANGEBYLEX l \"[\" +", "ZRANGEBYLEX l \"(\" +", "ZRANGEBYLEX l - + WITHSCORES", "ZRANGEBYLEX l [ba [c", "ZRANGEBYLEX l (\"\" +",
}

func withPrefix(pre string, cmds []string) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = strings.Replace(c, " z", " "+pre, 1)
	}
	return out
}

func concat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var zsetConfig = []string{"#config zset-max-listpack-entries 128", "#config zset-max-listpack-value 64"}

var zsetDiffCases = []diffCase{
	{"zadd-basic", concat(zsetConfig, []string{
		"ZADD z 1 a", "ZADD z 2 b 3 c 1 a", "ZADD z 1.5 a", "ZRANGE z 0 -1 WITHSCORES", "ZADD z CH 1 a 9 b 9 d", "ZADD z NX 5 a 6 e",
		"ZADD z XX 7 a 8 f", "ZADD z XX CH 7 a 8 b", "ZADD z GT 1 a 100 b", "ZADD z GT CH 1 a 100 c", "ZADD z LT CH 1 a 100 c",
		"ZADD z XX GT 200 a 1 zz", "ZRANGE z 0 -1 WITHSCORES", "#enc z", "ZADD z XX NX 1 a", "ZADD z NX XX 1 a", "ZADD z GT LT 1 a",
		"ZADD z NX GT 1 a", "ZADD z NX LT 1 a", "ZADD z INCR 1 a 2 b", "ZADD z 1", "ZADD z 1 a 2", "ZADD z foo a", "ZADD z 1 a x b",
		"ZADD z nan a", "ZADD z inf a -inf b +inf c", "ZADD z INCR -inf a", "ZADD z INCR +inf a", "ZRANGE z 0 -1 WITHSCORES",
		"ZADD z 1e400 a", "ZADD z 1e-400 a", "ZADD z 4.9e-324 tiny", "ZADD z \" 1\" a", "ZADD z \"1 \" a", "ZADD z 0x10 hex",
		"ZADD z 0x1p-2 hex2", "ZADD z .5 half", "ZADD z 5. five", "ZADD z -0 negz", "ZADD z 1.1 f1 0.1 f2 1e20 f3 123456789012345678 f4",
		"ZADD z 3.0000000000000004 f5 -1e-5 f6 1e17 f7 1e16 f8 12345.678 f9", "ZRANGE z 0 -1 WITHSCORES", "ZADD z Infinity i1 -infinity i2",
		"ZADD z \"\" emptyscore", "ZADD nokey XX 1 a", "EXISTS nokey", "ZADD nokey XX INCR 1 a", "ZADD z INCR NX 1 a", "ZADD z INCR XX 1 new",
		"ZADD z INCR GT -1 a", "ZADD z INCR LT -1 a", "ZADD z INCR 0 a", "ZADD z INCR 1 brandnew", "ZADD z incr ch 2 brandnew",
		"ZADD z GT 5 gtnew", "ZADD z LT 5 ltnew", "ZSCORE z gtnew", "ZADD z 1 \"\"", "ZSCORE z \"\"", "ZSCORE z 1", "ZADD z 7 1 8 -3 9 007",
		"ZRANGE z 0 -1 WITHSCORES", "ZCARD z", "ZCARD nokey", "SET s v", "ZADD s 1 a", "ZADD s x a", "ZCARD s", "ZSCORE s a",
	})},
	{"zincrby", concat(zsetConfig, []string{
		"ZINCRBY z 1 a", "ZINCRBY z 2.5 a", "ZINCRBY z -10 a", "ZINCRBY z x a", "ZINCRBY z inf a", "ZINCRBY z -inf a", "ZINCRBY z inf a",
		"ZSCORE z a", "ZINCRBY z 0.1 b", "ZINCRBY z 0.2 b", "ZINCRBY z nx a", "ZINCRBY z incr a", "ZINCRBY z 1e308 c", "ZINCRBY z 1e308 c",
		"ZRANGE z 0 -1 WITHSCORES", "SET s v", "ZINCRBY s 1 a", "ZINCRBY s x a",
	})},
	{"zrem", concat(zsetConfig, []string{
		"ZADD z 1 a 2 b 3 c", "ZREM z a x a", "ZREM z nope", "ZREM nokey a", "ZREM z b c", "EXISTS z", "SET s v", "ZREM s a",
		zsetFill("z", "m", 0, 200, 1), "#enc z", "ZREM z m1 m5 m199 m0", "ZCARD z", "ZRANGE z 0 5 WITHSCORES", "ZREVRANGE z 0 2",
	})},
	{"reads-listpack", concat(zsetConfig, []string{"ZADD z 1 m1 2 m2 3 m3 -2 m0 0 m4 0 m5 2.5 m6 100 m7 300 m8", "#enc z"}, zsetReads)},
	{"reads-skiplist", concat(zsetConfig, []string{"ZADD z 1 m1 2 m2 3 m3 -2 m0 0 m4 0 m5 2.5 m6 100 m7 300 m8", zsetFill("z", "n", 0, 150, 2), "#enc z"}, zsetReads)},
	{"reads-lex", concat(zsetConfig, []string{"ZADD l 0 a 0 b 0 c 0 d 0 e 0 ba 0 \"\"", "#enc l"}, zsetLexReads,
		[]string{"ZADD l2 0 " + strings.Repeat("x", 70), "ZADD l 0 " + strings.Repeat("y", 70), "#enc l"}, zsetLexReads)},
	{"reads-resp3", concat(zsetConfig, []string{"#proto 3", "ZADD z 1 m1 2 m2 3 m3 -2 m0 0 m4 0 m5 2.5 m6 100 m7 300 m8 1.1 m9"}, zsetReads,
		[]string{zsetFill("z", "n", 0, 150, 2.5), "#enc z"}, zsetReads, []string{"ZADD z INCR 1 m1", "ZINCRBY z 1 m2", "ZADD z INCR NX 1 m1",
			"ZSCORE nokey a", "ZMSCORE nokey a b", "ZRANGE nokey 0 -1 WITHSCORES", "ZRANK nokey a"})},
	{"zremrange", concat(zsetConfig, []string{
		"ZADD z 1 a 2 b 3 c 4 d 5 e", "ZREMRANGEBYRANK z 1 2", "ZRANGE z 0 -1", "ZREMRANGEBYRANK z -1 -1", "ZREMRANGEBYRANK z 5 10",
		"ZREMRANGEBYRANK z 1 0", "ZREMRANGEBYRANK z x 1", "ZREMRANGEBYRANK z 0 -1", "EXISTS z", "ZADD z 1 a 2 b 3 c 4 d 5 e",
		"ZREMRANGEBYSCORE z (1 3", "ZREMRANGEBYSCORE z x 3", "ZREMRANGEBYSCORE z 10 1", "ZRANGE z 0 -1 WITHSCORES",
		"ZREMRANGEBYSCORE z -inf +inf", "EXISTS z", "ZADD z 0 a 0 b 0 c 0 d", "ZREMRANGEBYLEX z [b (d", "ZREMRANGEBYLEX z b d",
		"ZRANGE z 0 -1", "ZREMRANGEBYLEX z - +", "EXISTS z", zsetFill("z", "m", 0, 300, 0.5), "ZREMRANGEBYRANK z 10 20",
		"ZREMRANGEBYSCORE z 50 (100", "ZCARD z", "ZRANGE z 0 30 WITHSCORES", "ZREMRANGEBYRANK z 0 -1", "EXISTS z", "SET s v",
		"ZREMRANGEBYRANK s 0 1", "ZREMRANGEBYSCORE s 0 1", "ZREMRANGEBYLEX s - +", "ZREMRANGEBYLEX nokey - +",
	})},
	{"zpop", concat(zsetConfig, []string{
		"ZADD z 1 a 2 b 3 c 4 d 5 e", "ZPOPMIN z", "ZPOPMAX z", "ZPOPMIN z 2", "ZPOPMAX z 0", "ZPOPMAX z -1", "ZPOPMAX z x",
		"ZPOPMIN z 1 2", "ZPOPMIN z 10", "EXISTS z", "ZPOPMIN nokey", "ZPOPMIN nokey 3", zsetFill("z", "m", 0, 200, 1.5),
		"ZPOPMAX z 3", "ZPOPMIN z 2", "ZCARD z", "#proto 3", "ZPOPMIN z", "ZPOPMAX z 2", "ZPOPMIN z 0", "ZPOPMIN nokey", "ZPOPMIN nokey 2",
		"ZADD y 1 a", "ZPOPMIN y 5", "SET s v", "ZPOPMIN s", "ZPOPMAX s 1",
	})},
	{"zmpop", concat(zsetConfig, []string{
		"ZADD z 1 a 2 b 3 c", "ZMPOP 1 z MIN", "ZMPOP 2 nokey z MAX COUNT 5", "ZMPOP 1 z MIN", "ZMPOP 1 nokey MIN", "ZMPOP 0 z MIN",
		"ZMPOP -1 z MIN", "ZMPOP x z MIN", "ZMPOP 2 z MIN", "ZMPOP 1 z", "ZMPOP 1 z MID", "ZMPOP 1 z MIN COUNT 0", "ZMPOP 1 z MIN COUNT x",
		"ZMPOP 1 z MIN COUNT 1 COUNT 2", "ZMPOP 1 z MIN COUNT", "ZMPOP 1 z MIN FOO", "ZADD z 1 a 2 b 3 c", "SET s v", "ZMPOP 2 s z MIN",
		"ZMPOP 2 z s MAX COUNT 2", "#proto 3", "ZMPOP 2 nokey z MIN COUNT 10", "ZMPOP 1 nokey MIN", "ZADD z 1.5 a", "ZMPOP 1 z MAX",
	})},
	{"zrangestore", concat(zsetConfig, []string{
		"ZADD z 1 aaaaa 2 b 3 c", "ZRANGESTORE d z 0 -1", "#enc d", "ZRANGE d 0 -1 WITHSCORES", "ZRANGESTORE d z 1 (3 BYSCORE",
		"ZRANGE d 0 -1 WITHSCORES", "ZRANGESTORE d z [a [b BYLEX", "ZRANGESTORE d z 5 6", "EXISTS d", "ZRANGESTORE d nokey 0 -1",
		"SET d v", "ZRANGESTORE d z 0 -1 REV", "TYPE d", "ZRANGESTORE d z 0 -1 WITHSCORES", "ZRANGESTORE z z 0 0", "ZRANGE z 0 -1",
		"SET s v", "ZRANGESTORE d s 0 -1", "ZRANGESTORE d z +inf -inf BYSCORE REV LIMIT 0 1", "ZRANGE d 0 -1 WITHSCORES",
		zsetFill("big", "m", 0, 200, 1), "ZRANGESTORE d big 0 -1", "#enc d", "ZRANGESTORE d big 0 99", "#enc d", "ZCARD d",
		"#config zset-max-listpack-value 3", "ZADD e 1 aaaaa 2 b 3 c", "#enc e", "ZRANGESTORE e2 e 1 2", "#enc e2", "ZRANGESTORE e3 e 0 -1",
		"#enc e3", "#config zset-max-listpack-value 64",
	})},
	{"encodings", concat(zsetConfig, []string{
		"ZADD z 1 " + strings.Repeat("a", 64), "#enc z", "ZADD z 1 " + strings.Repeat("b", 65), "#enc z",
		"ZADD y 1 " + strings.Repeat("b", 65), "#enc y", "ZADD x 1 a 2 " + strings.Repeat("b", 65), "#enc x",
		zsetFill("w", "m", 0, 128, 1), "#enc w", "ZADD w 500 new", "#enc w", "ZREM w new m0 m1", "#enc w",
		"#config zset-max-listpack-entries 0", "ZADD v 1 a", "#enc v", "#config zset-max-listpack-entries 2", "ZADD u 1 a 2 b", "#enc u",
		"ZADD u 3 c", "#enc u", "ZADD t 1 a 2 b 3 c", "#enc t", "#config zset-max-listpack-entries 128", "#config zset-max-listpack-value 3",
		"ZADD s 1 abc", "#enc s", "ZADD s 1 abcd", "#enc s", "ZADD r 1 abcd", "#enc r", "#config zset-max-listpack-value 64",
		"ZADD p 1 a 2 b", "COPY p q", "#enc q", "ZRANGE q 0 -1 WITHSCORES", "COPY w w2", "#enc w2", "ZRANGE w2 0 3 WITHSCORES", "ZCARD w2",
		"RENAME w2 w3", "ZRANGE w3 -3 -1 WITHSCORES", "ZRANK w3 m100", "TYPE w3", "DEL w3", "EXISTS w3",
	})},
	{"zunion-zinter-zdiff", concat(zsetConfig, []string{
		"ZADD a 1 x 2 y 3 z", "ZADD b 10 y 20 w", "SADD s y q", "SADD is 1 2 y", "ZUNION 3 a b s WITHSCORES", "ZUNION 3 a b s",
		"ZUNION 3 a b s WEIGHTS 1 2 3 AGGREGATE MAX WITHSCORES", "ZUNION 2 a b AGGREGATE MIN WITHSCORES", "ZINTER 3 a b s WITHSCORES",
		"ZINTER 2 a b AGGREGATE MIN", "ZINTER 2 a b WEIGHTS 2 0.5 WITHSCORES", "ZINTER 2 a nokey", "ZINTER 2 a a WITHSCORES",
		"ZDIFF 2 a b WITHSCORES", "ZDIFF 2 a a", "ZDIFF 1 nokey", "ZDIFF 2 a s WITHSCORES", "ZUNION 2 a is WITHSCORES",
		"ZUNION 2 a b WEIGHTS 1", "ZUNION 2 a b WEIGHTS 1 2 3", "ZUNION 2 a b WITHSCORES WITHSCORES", "ZUNIONSTORE d 2 a b WITHSCORES",
		"ZUNIONSTORE d 2 a b", "ZRANGE d 0 -1 WITHSCORES", "#enc d", "ZINTERSTORE d 2 a b", "ZRANGE d 0 -1 WITHSCORES",
		"ZDIFFSTORE d 2 a b", "ZRANGE d 0 -1 WITHSCORES", "ZDIFFSTORE d 1 nokey", "EXISTS d", "ZINTERSTORE d 2 a nokey", "EXISTS d",
		"ZUNIONSTORE a 2 a nokey", "ZRANGE a 0 -1 WITHSCORES", "ZUNION 0 a", "ZUNIONSTORE d 0 a", "ZINTER -1 a", "ZDIFF x a", "ZUNION 2 a",
		"ZUNION 1 a WEIGHTS x", "ZUNION 1 a WEIGHTS nan", "ZUNION 1 a WEIGHTS inf WITHSCORES", "ZUNION 1 a AGGREGATE foo", "ZUNION 1 a AGGREGATE",
		"ZUNION 1 a WEIGHTS", "ZDIFF 1 a WEIGHTS 1", "ZDIFF 1 a AGGREGATE SUM", "ZDIFFSTORE d 1 a WITHSCORES", "SET str v",
		"ZUNION 2 a str", "ZUNION 2 a str WEIGHTS x", "ZUNIONSTORE d 2 a str", "ZINTER 2 str nokey", "ZDIFF 2 nokey str",
		"ZADD n1 inf x", "ZADD n2 -inf x", "ZUNION 2 n1 n2 WITHSCORES", "ZINTER 2 n1 n2 WITHSCORES", "ZUNION 2 n1 n2 WEIGHTS 0 1 WITHSCORES",
		"ZINTER 2 n1 n2 AGGREGATE MAX WITHSCORES", zsetFill("big", "m", 0, 200, 1), "ZUNIONSTORE d 2 big a", "#enc d", "ZCARD d",
		"ZINTERSTORE d 2 big big WEIGHTS 1 -1", "#enc d", "ZDIFFSTORE d 2 big a", "#enc d", "ZINTERSTORE d2 2 big a", "#enc d2",
		"ZADD long 1 " + long65, "ZUNIONSTORE d 1 long", "#enc d", "#proto 3", "ZUNION 2 a b WITHSCORES", "ZINTER 2 a b", "ZDIFF 2 a b WITHSCORES",
	})},
	{"zintercard", concat(zsetConfig, []string{
		"ZADD a 1 x 2 y 3 z", "ZADD b 10 y 20 z 30 w", "SADD s y z", "ZINTERCARD 2 a b", "ZINTERCARD 2 a b LIMIT 0", "ZINTERCARD 2 a b LIMIT 1",
		"ZINTERCARD 3 a b s", "ZINTERCARD 2 a nokey", "ZINTERCARD 2 a b LIMIT x", "ZINTERCARD 2 a b LIMIT -1", "ZINTERCARD x a", "ZINTERCARD 0 a",
		"ZINTERCARD 3 a b", "ZINTERCARD 1 a foo", "ZINTERCARD 1 a LIMIT", "SET str v", "ZINTERCARD 2 a str", "ZINTERCARD 2 a str LIMIT x",
		"ZINTERCARD 2 a b WEIGHTS 1 1",
	})},
	{"zscan", concat(zsetConfig, []string{
		"ZADD z 1 a 2.5 b -0 c 1.1 d 1e20 e inf f 3 aa", "ZSCAN z 0", "ZSCAN z 0 MATCH a*", "ZSCAN z 0 COUNT 1", "ZSCAN nokey 0",
		"ZSCAN nokey 0 COUNT 0", "ZSCAN z x", "ZSCAN z 0 COUNT 0", "ZSCAN z 0 NOVALUE", "SET s v", "ZSCAN s 0", "ZSCAN s 0 COUNT 0",
		"#proto 3", "ZSCAN z 0", "ZADD y 1 " + long65 + " 2.5 b -0 c 1.1 d", "S ZSCAN y 0 COUNT 100",
	})},
	{"zrandmember", concat(zsetConfig, []string{
		"ZADD z 1 a 2 b 3 c", "R ZRANDMEMBER z", "ZRANDMEMBER nokey", "ZRANDMEMBER nokey 5", "ZRANDMEMBER z 0", "ZRANDMEMBER z 0 WITHSCORES",
		"ZRANDMEMBER z 10 WITHSCORES", "ZRANDMEMBER z 3", "R ZRANDMEMBER z 2", "R ZRANDMEMBER z -5 WITHSCORES", "R ZRANDMEMBER z -5",
		"ZRANDMEMBER z x", "ZRANDMEMBER z 1 foo", "ZRANDMEMBER z 1 WITHSCORES x", "ZRANDMEMBER z -9223372036854775808",
		"ZRANDMEMBER z -9223372036854775807 WITHSCORES", "ZRANDMEMBER z 9223372036854775807 WITHSCORES", "SET s v", "ZRANDMEMBER s",
		"ZRANDMEMBER s 1", "#proto 3", "ZRANDMEMBER z 10 WITHSCORES", "R ZRANDMEMBER z -2 WITHSCORES", "ZRANDMEMBER nokey",
		zsetFill("big", "m", 100, 200, 1), "R ZRANDMEMBER big 5 WITHSCORES", "ZRANDMEMBER big 300", "R ZRANDMEMBER big -5",
	})},
	{"edge-scores-lex", concat(zsetConfig, []string{
		"ZADD z 0 \"\\xff\" 0 \"\\x7f\" 0 a 0 \"\\x00\"", "ZRANGEBYLEX z - +", "ZRANGEBYLEX z (a +", "ZREVRANGEBYLEX z + - LIMIT 1 2",
		"ZADD y 1e-5 a 0x1p-1074 b 1e308 c -1e308 d 0.30000000000000004 e 123.456 f -0.0 g", "ZRANGE y 0 -1 WITHSCORES", "ZSCAN y 0",
		"#proto 3", "ZRANGE y 0 -1 WITHSCORES", "ZRANGESTORE d y 0 1", "ZINTERSTORE i 2 y y WEIGHTS 1 -1", "ZRANGE i 0 -1 WITHSCORES",
		"SADD s a b", "ZINTERSTORE j 2 s y WEIGHTS 2 3 AGGREGATE MIN", "ZRANGE j 0 -1 WITHSCORES", "ZADD y GT INCR 5 newm", "ZADD y LT INCR -5 newm",
		"ZINCRBY y 1e308 c", "ZINCRBY y 1e308 c", "ZINCRBY y -inf c", "ZSCORE y c", "ZMSCORE y a b nope", "ZRANK y c", "ZREVRANGE y 0 0 WITHSCORES",
		"ZRANGEBYSCORE y -inf +inf LIMIT 2 2 WITHSCORES", "ZRANDMEMBER y 100", "ZPOPMIN y", "ZPOPMAX y 3", "ZMPOP 1 y MAX COUNT 2", "ZCARD y",
		"ZADD w 1 a 2 b", "ZRANGE w (1 +inf BYSCORE LIMIT 0 1 WITHSCORES", "ZRANGE w [a (b BYLEX REV", "ZRANGE w (b [a BYLEX REV",
		"ZREMRANGEBYSCORE w -inf (2", "ZRANGE w 0 -1", "ZLEXCOUNT w - +", "ZADD w NX XX 1 a", "ZADD w CH GT 3 b", "ZADD w CH LT 3 b",
	})},
}

func TestZSetCommandsMatchRedis(t *testing.T) { runDiff(t, zsetDiffCases) }

// TestZSetRandomOpsMatchRedis runs a seeded random sequence of sorted-set
// writes and reads on both servers, with small thresholds so that both
// encodings and the conversion are exercised, checking encodings as it goes.
func TestZSetRandomOpsMatchRedis(t *testing.T) {
	for _, proto := range []int{2, 3} {
		seed := int64(20261201 + proto)
		t.Logf("RESP%d seed %d", proto, seed)
		runDiff(t, []diffCase{{fmt.Sprintf("random-resp%d", proto), zsetRandomOps(rand.New(rand.NewSource(seed)), proto)}})
	}
}

// zsetRandomOps returns a random sequence of sorted-set commands with
// encoding checks, in RESP proto.
func zsetRandomOps(rnd *rand.Rand, proto int) []string {
	cmds := []string{"#config zset-max-listpack-entries 16", "#config zset-max-listpack-value 8"}
	if proto == 3 {
		cmds = append(cmds, "#proto 3")
	}
	member := func() string {
		if rnd.Intn(20) == 0 {
			return strings.Repeat("L", 9)
		}
		return "m" + strconv.Itoa(rnd.Intn(40))
	}
	score := func() string {
		switch rnd.Intn(8) {
		case 0:
			return strconv.Itoa(rnd.Intn(5))
		case 1:
			return strconv.FormatFloat(rnd.NormFloat64()*10, 'g', -1, 64)
		case 2:
			return "(" + strconv.Itoa(rnd.Intn(10))
		}
		return strconv.Itoa(rnd.Intn(20) - 5)
	}
	keys := []string{"k0", "k1", "k2"}
	for i := 0; i < 1500; i++ {
		k := keys[rnd.Intn(len(keys))]
		var c string
		switch rnd.Intn(17) {
		case 0, 1, 2:
			c = fmt.Sprintf("ZADD %s %s %s %s %s", k, strings.TrimPrefix(score(), "("), member(), strings.TrimPrefix(score(), "("), member())
		case 3:
			c = fmt.Sprintf("ZINCRBY %s %d %s", k, rnd.Intn(7)-3, member())
		case 4:
			c = fmt.Sprintf("ZREM %s %s %s", k, member(), member())
		case 5:
			c = fmt.Sprintf("ZRANGE %s %d %d WITHSCORES", k, rnd.Intn(10)-5, rnd.Intn(20)-5)
		case 6:
			c = fmt.Sprintf("ZRANGEBYSCORE %s %s %s WITHSCORES LIMIT %d %d", k, score(), score(), rnd.Intn(3), rnd.Intn(5)-1)
		case 7:
			c = fmt.Sprintf("ZREVRANGEBYSCORE %s %s %s", k, score(), score())
		case 8:
			c = fmt.Sprintf("ZRANK %s %s", k, member())
		case 9:
			c = fmt.Sprintf("ZCOUNT %s %s %s", k, score(), score())
		case 10:
			c = fmt.Sprintf("ZPOPMIN %s %d", k, rnd.Intn(3))
		case 11:
			c = fmt.Sprintf("ZREMRANGEBYRANK %s %d %d", k, rnd.Intn(6)-3, rnd.Intn(6)-3)
		case 12:
			c = fmt.Sprintf("ZREMRANGEBYSCORE %s %s %s", k, score(), score())
		case 13:
			c = fmt.Sprintf("ZREVRANK %s %s", k, member())
		case 14:
			c = fmt.Sprintf("ZADD %s INCR %d %s", k, rnd.Intn(5)-2, member())
		case 15:
			c = fmt.Sprintf("ZUNIONSTORE %s 2 %s %s AGGREGATE MAX", k, keys[rnd.Intn(3)], keys[rnd.Intn(3)])
		case 16:
			c = fmt.Sprintf("ZRANGESTORE %s %s 0 %d", k, keys[rnd.Intn(3)], rnd.Intn(30))
		}
		cmds = append(cmds, c, "#enc "+k)
		if i%50 == 0 {
			cmds = append(cmds, "ZRANGE "+k+" 0 -1 WITHSCORES")
		}
	}
	return cmds
}

// TestZSetRandMemberHugeCountsAreBounded checks ZRANDMEMBER's bounds: a
// negative count whose reply cannot fit the output limit closes the client
// unbuilt, and one past randChunk is drawn in chunks under one header.
func TestZSetRandMemberHugeCountsAreBounded(t *testing.T) {
	ours := newOurServer()
	ours.do(t, []string{"ZADD", "z", "1", "a", "2", "b"})
	for _, args := range [][]string{
		{"ZRANDMEMBER", "z", "-9223372036854775807"},
		{"ZRANDMEMBER", "z", "-4611686018427387903", "WITHSCORES"},
		{"ZRANDMEMBER", "z", "-100000000"},
	} {
		ours.cl.quit = false
		out := ours.do(t, args)
		if !ours.cl.quit || len(out) != 0 {
			t.Errorf("%v: quit %v, %d bytes of reply; want a close and no reply", args, ours.cl.quit, len(out))
		}
	}
	ours.cl.quit = false
	long := strings.Repeat("x", 1000)
	ours.do(t, []string{"ZADD", "g", "1", long})
	ours.s.cfg.outBufLimit.Store(1 << 20)
	if out := ours.do(t, []string{"ZRANDMEMBER", "g", "-100000"}); !ours.cl.quit || len(out) != 0 {
		t.Errorf("ZRANDMEMBER g -100000 past a 1 MiB limit: quit %v, %d bytes", ours.cl.quit, len(out))
	}
	for _, proto := range []int{2, 3} {
		ours.cl.quit = false
		ours.cl.proto = proto
		nd, rest := diffParseNode(ours.do(t, []string{"ZRANDMEMBER", "z", "-10000", "WITHSCORES"}))
		want := map[int]int{2: 20000, 3: 10000}[proto]
		if ours.cl.quit || len(rest) != 0 || len(nd.kids) != want || nd.head != "*"+strconv.Itoa(want) {
			t.Errorf("RESP%d ZRANDMEMBER z -10000 WITHSCORES: header %s, %d elements, want %d", proto, nd.head, len(nd.kids), want)
		}
	}
}
