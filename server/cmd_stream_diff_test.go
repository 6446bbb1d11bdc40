package server

import (
	"fmt"
	"strings"
	"testing"
)

// streamFill returns "XADD key ms-(from) f v ..." lines for n entries with
// explicit IDs ms-from .. ms-(from+n-1), each with fields a and b.
func streamFill(key string, ms, from, n int) []string {
	var out []string
	for i := from; i < from+n; i++ {
		out = append(out, fmt.Sprintf("XADD %s %d-%d a %d b v%d", key, ms, i, i, i))
	}
	return out
}

var streamConfig = []string{"#config stream-node-max-entries 100", "#config stream-node-max-bytes 4096"}

// streamReads are read commands over a stream s with entries 1-0 .. 1-9
// and 2-0 .. 2-4 (fields a, b) and 3-0 (other fields).
var streamReads = []string{
	"XLEN s", "XLEN nokey", "XRANGE s - +", "XRANGE s - + COUNT 3", "XRANGE s 1-5 2-1", "XRANGE s (1-5 (2-1", "XRANGE s 1 1",
	"XRANGE s 2 +", "XRANGE s - 1", "XRANGE s (1 +", "XRANGE s 2-3 1-2", "XRANGE s - + COUNT 0", "XRANGE s - + COUNT -1",
	"XRANGE s - + COUNT x", "XRANGE s - + COUNT", "XRANGE s - + COUNT 1 COUNT 2", "XRANGE s - + FOO 1", "XRANGE s x +",
	"XRANGE s - y", "XRANGE s (- +", "XRANGE s - (+", "XRANGE s ( +", "XRANGE s (18446744073709551615-18446744073709551615 +",
	"XRANGE s - (0-0", "XRANGE s +5 +", "XRANGE s \" 1\" +", "XRANGE s 01-2 +", "XRANGE s 1-02 2", "XRANGE s -1 +", "XRANGE s 1- +",
	"XRANGE s 1-x +", "XRANGE s 18446744073709551616 +", "XRANGE s 1-18446744073709551615 +", "XRANGE nokey - +",
	"XRANGE nokey - + COUNT 0", "XREVRANGE s + -", "XREVRANGE s + - COUNT 2", "XREVRANGE s 2-1 1-5", "XREVRANGE s (2-1 (1-5",
	"XREVRANGE s 1 2", "XREVRANGE s 2 2", "XREVRANGE s + - COUNT 0", "XREVRANGE nokey + -", "XREVRANGE s (0-0 -",
	"XREAD STREAMS s 0", "XREAD COUNT 2 STREAMS s 1-8", "XREAD STREAMS s 3-0", "XREAD STREAMS s $", "XREAD STREAMS s nokey 2-3 0",
	"XREAD STREAMS nokey 0", "XREAD STREAMS s >", "XREAD STREAMS s", "XREAD STREAMS s s 0", "XREAD COUNT x STREAMS s 0",
	"XREAD COUNT -1 STREAMS s 2-2", "XREAD COUNT 0 STREAMS s 2-2", "XREAD FOO STREAMS s 0", "XREAD STREAMS s +", "XREAD STREAMS s -",
	"XREAD BLOCK -1 STREAMS s 0", "XREAD BLOCK x STREAMS s 0", "XREAD BLOCK 1.5 STREAMS s 0", "XREAD BLOCK 0 STREAMS s 0",
	"XREAD GROUP g c STREAMS s 0", "XREAD NOACK STREAMS s 0", "XREAD COUNT 1", "XREAD STREAMS s 18446744073709551615-18446744073709551615",
	"XREAD COUNT 1 STREAMS s s 1-3 2-0", "XINFO STREAM s", "XINFO STREAM s FULL", "XINFO STREAM s FULL COUNT 2",
	"XINFO STREAM s FULL COUNT 0", "XINFO STREAM s FULL COUNT -1", "XINFO STREAM s FULL COUNT x", "XINFO STREAM s foo",
	"XINFO STREAM s FULL foo", "XINFO STREAM nokey", "XINFO STREAM nokey foo", "XINFO GROUPS s", "XINFO GROUPS nokey",
	"XINFO CONSUMERS s g", "XINFO CONSUMERS nokey g", "XINFO HELP", "XINFO", "XINFO FOO", "TYPE s", "#enc s",
}

var streamDiffCases = []diffCase{
	{"xadd-ids", concat(streamConfig, []string{
		"XADD s 1-1 a 1", "XADD s 1-1 a 1", "XADD s 1-0 a 1", "XADD s 1 a 1", "XADD s 1-* a 1", "XADD s 1-* a 1", "XADD s 2-* a 1",
		"XADD s 0-0 a 1", "XADD new 0-0 a 1", "EXISTS new", "XADD new 0-* a 1", "XADD s 0-* a 1", "XADD s 5-18446744073709551615 a 1",
		"XADD s 5-* a 1", "XADD s 6-18446744073709551615 a 1", "XADD s 18446744073709551615-18446744073709551614 a 1",
		"XADD s 18446744073709551615-* a 1", "XADD s 18446744073709551615-* a 1", "XADD s 18446744073709551615-18446744073709551615 a 1",
		"XADD s * a 1", "XADD s 18446744073709551615-18446744073709551615 a 1", "XLEN s", "XRANGE s - +", "XADD s - a 1", "XADD s + a 1",
		"XADD s x a 1", "XADD s 1-x a 1", "XADD s -1 a 1", "XADD s 18446744073709551616 a 1", "XADD s2 \" 7\" a 1", "XADD s2 +8-1 a 1",
		"XADD s2 09-01 a 1", "XADD s2 10-** a 1", "XADD s2 *-1 a 1", "XADD s2 11-*1 a 1", "XRANGE s2 - +", "XADD s2 a", "XADD s2 20 a",
		"XADD s2 20 a b c", "XADD s2 20 a b c d", "XADD s2 21 \"\" \"\"", "XRANGE s2 20 21", "XADD s3 NOMKSTREAM 1 a b", "EXISTS s3",
		"XADD s2 NOMKSTREAM 30 a b", "XADD s2 nomkstream nomkstream 31 a b", "SET str x", "XADD str 1 a b", "XADD str NOMKSTREAM 1 a b",
		"XADD str MAXLEN x 1 a b", "TYPE s2", "#enc s2", "XADD s2 40 f1 v1 f2 v2 f3 v3 f4 v4 f5 v5", "XADD s2 41 f1 v1", "XADD s2 42 123 -5 x 1.5",
		"XRANGE s2 40 +", "XADD s2 50 " + strings.Repeat("y", 5000) + " v", "XADD s2 51 a " + strings.Repeat("z", 300), "XRANGE s2 50 +",
		"XINFO STREAM s2", "XLEN s2",
	})},
	{"xadd-trim", concat(streamConfig, streamFill("s", 1, 0, 30), []string{
		"XADD s MAXLEN 25 2-0 a 1", "XLEN s", "XRANGE s - + COUNT 2", "XADD s MAXLEN = 20 2-1 a 1", "XLEN s", "XADD s MAXLEN ~ 5 2-2 a 1",
		"XLEN s", "XADD s MINID 1-15 2-3 a 1", "XRANGE s - + COUNT 2", "XADD s MINID = 1-20 2-4 a 1", "XADD s MINID ~ 2 2-5 a 1", "XLEN s",
		"XADD s MAXLEN 1 MINID 1 2-6 a 1", "XADD s MINID 1 MAXLEN 1 2-6 a 1", "XADD s MAXLEN -1 2-6 a 1", "XADD s MAXLEN x 2-6 a 1",
		"XADD s MINID x 2-6 a 1", "XADD s MINID - 2-6 a 1", "XADD s MAXLEN 5 LIMIT 2 2-6 a 1", "XADD s MAXLEN ~ 5 LIMIT x 2-6 a 1",
		"XADD s MAXLEN ~ 5 LIMIT -1 2-6 a 1", "XADD s LIMIT 5 2-6 a 1", "XADD s LIMIT 0 2-6 a 1", "XADD s MAXLEN ~ 5 LIMIT 0 2-7 a 1",
		"XADD s MAXLEN ~ 1 LIMIT 5 2-8 a 1", "XLEN s", "XADD s maxlen 0 2-9 a 1", "XLEN s", "XRANGE s - +", "XINFO STREAM s",
		"XADD s MAXLEN 2-10 a 1", "XADD s MAXLEN = 2-10 a 1", "XADD s MAXLEN ~ 2-10 a 1", "XADD s MAXLEN", "XADD s MAXLEN 1",
		"XADD s MAXLEN 1 *", "XADD s MAXLEN 1 * a",
	}, streamFill("big", 1, 0, 350), []string{
		"XADD big MAXLEN ~ 10 2-0 a 1", "XLEN big", "XADD big MAXLEN ~ 10 LIMIT 100 2-1 a 1", "XLEN big", "XINFO STREAM big FULL COUNT 1",
		"XADD big MINID ~ 1-330 2-2 a 1", "XLEN big", "XADD big MINID 1-349 2-3 a 1", "XLEN big", "XRANGE big - +",
	})},
	{"xtrim", concat(streamConfig, streamFill("s", 1, 0, 250), []string{
		"XTRIM s MAXLEN 240", "XLEN s", "XTRIM s MAXLEN ~ 200", "XLEN s", "XTRIM s MAXLEN ~ 100 LIMIT 50", "XLEN s",
		"XTRIM s MAXLEN ~ 10 LIMIT 100", "XLEN s", "XTRIM s MINID 1-240", "XLEN s", "XRANGE s - + COUNT 1", "XTRIM s MINID = 1-245",
		"XTRIM s MINID ~ 1-249", "XTRIM s MAXLEN 0", "XLEN s", "EXISTS s", "XINFO STREAM s", "XTRIM nokey MAXLEN 1", "XTRIM nokey FOO",
		"XTRIM s FOO 1", "XTRIM s MAXLEN", "XTRIM s LIMIT 1 MAXLEN 1", "XTRIM s MAXLEN 1 LIMIT 1", "XTRIM s MAXLEN -1", "XTRIM s MINID x",
		"XTRIM s MAXLEN 1 MINID 1", "XTRIM s NOMKSTREAM MAXLEN 1", "XTRIM s * MAXLEN 1", "XTRIM s MAXLEN ~ 1 LIMIT -1", "XTRIM s MAXLEN = 1",
		"SET str x", "XTRIM str MAXLEN 1", "XTRIM str FOO",
	})},
	{"xdel", concat(streamConfig, streamFill("s", 1, 0, 20), []string{
		"XDEL s 1-0", "XDEL s 1-0", "XINFO STREAM s", "XDEL s 1-5 1-6 1-100 1-7", "XRANGE s - + COUNT 6", "XREVRANGE s + - COUNT 2",
		"XDEL s 1-19", "XINFO STREAM s", "XDEL s x", "XDEL s 1-1 x", "XLEN s", "XDEL s - +", "XDEL s 1", "XLEN s", "XDEL nokey 1-1",
		"XDEL s 1-1 1-2 1-3 1-4 1-8 1-9 1-10 1-11 1-12 1-13 1-14 1-15 1-16 1-17 1-18", "XLEN s", "EXISTS s", "XINFO STREAM s",
		"XRANGE s - +", "XADD s 5-* a 1", "XADD s 1-19 a 1", "XADD s 1-20 a 1", "XINFO STREAM s", "SET str x", "XDEL str 1",
	}, streamFill("n", 1, 0, 250), []string{"XDEL n 1-100 1-101 1-150", "XRANGE n 1-99 1-102", "XREVRANGE n 1-151 1-149", "XLEN n",
		"XINFO STREAM n FULL COUNT 3"})},
	{"xsetid", concat(streamConfig, []string{
		"XSETID nokey 1", "XADD s 5-5 a 1", "XSETID s 5-4", "XSETID s 5-5", "XSETID s 10", "XADD s 10-* a 1", "XRANGE s - +",
		"XSETID s 20 ENTRIESADDED 1", "XSETID s 20 ENTRIESADDED -1", "XSETID s 20 ENTRIESADDED x", "XSETID s 20 ENTRIESADDED 10",
		"XSETID s 20 MAXDELETEDID 30", "XSETID s 20 MAXDELETEDID 15", "XSETID s 20 MAXDELETEDID x", "XSETID s 20 FOO", "XSETID s 20 ENTRIESADDED",
		"XSETID s x", "XSETID s -", "XINFO STREAM s", "XDEL s 10-1", "XSETID s 10-0", "XSETID s 19-0", "XDEL s 5-5", "XINFO STREAM s",
		"XSETID s 14 MAXDELETEDID 12", "XINFO STREAM s", "XSETID s 15 MAXDELETEDID 15 ENTRIESADDED 0", "XINFO STREAM s",
		"XADD s 15-1 a 1", "SET str x", "XSETID str 1", "XSETID str x",
		// 7.0.15 does not compare the ID with the current max deleted ID (7.2's check)
		"XADD d 5-5 a 1", "XADD d 6-0 a 1", "XSETID d 20 MAXDELETEDID 15", "XDEL d 6-0", "XSETID d 12", "XINFO STREAM d",
		"XSETID d 3", "XDEL d 5-5", "XSETID d 3", "XSETID d 2 MAXDELETEDID 1", "XINFO STREAM d",
	})},
	{"reads", concat(streamConfig, streamFill("s", 1, 0, 10), streamFill("s", 2, 0, 5), []string{"XADD s 3-0 c 1"}, streamReads)},
	{"reads-resp3", concat(streamConfig, []string{"#proto 3"}, streamFill("s", 1, 0, 10), streamFill("s", 2, 0, 5),
		[]string{"XADD s 3-0 c 1", "XADD s NOMKSTREAM 4 a b", "XADD nope NOMKSTREAM 4 a b"}, streamReads)},
	{"small-nodes", concat([]string{"#config stream-node-max-entries 3", "#config stream-node-max-bytes 4096"}, streamFill("s", 1, 0, 10),
		streamFill("s", 2, 0, 5), []string{"XADD s 3-0 c 1"}, streamReads, []string{"XDEL s 1-3 1-4 1-5", "XRANGE s - +",
			"XREVRANGE s + -", "XTRIM s MAXLEN ~ 8", "XLEN s", "XTRIM s MAXLEN 7", "XRANGE s - +", "XTRIM s MINID 2-2", "XRANGE s - +"})},
	{"byte-nodes", concat([]string{"#config stream-node-max-entries 0", "#config stream-node-max-bytes 100"}, streamFill("s", 1, 0, 10),
		streamFill("s", 2, 0, 5), []string{"XADD s 3-0 c 1"}, streamReads)},
	{"config-nodes", concat([]string{"CONFIG SET stream-node-max-entries 2", "CONFIG SET stream-node-max-bytes 1kb",
		"S CONFIG GET stream-node-*"}, streamFill("s", 1, 0, 7), []string{"XINFO STREAM s", "XADD s 2-0 big " + strings.Repeat("q", 1100),
		"XADD s 2-1 a b", "XINFO STREAM s", "CONFIG SET stream-node-max-entries 0", "CONFIG SET stream-node-max-bytes 0",
		"XADD s 3-0 a b", "XADD s 3-1 a b", "XADD s 3-2 a b", "XINFO STREAM s", "CONFIG SET stream-node-max-entries -1",
		"CONFIG SET stream-node-max-entries 100", "CONFIG SET stream-node-max-bytes 4096"})},
	{"generic", concat(streamConfig, streamFill("s", 1, 0, 120), []string{"XDEL s 1-5", "XADD e 1-1 a b", "XDEL e 1-1",
		"DUMP e", "COPY s c", "XRANGE c 1-100 +", "XINFO STREAM c", "RENAME c r", "XLEN r", "MOVE r 3", "#db 3", "XLEN r",
		"XINFO STREAM r", "#db 0", "S SCAN 0 TYPE stream", "S KEYS *", "SORT s", "SORT nokey", "TYPE e", "#enc e", "EXPIRE s 100",
		"TTL s", "PERSIST s", "OBJECT ENCODING s", "COPY e e2", "XINFO STREAM e2", "DEL s e e2", "EXISTS s",
		"XADD one 1-1 a b", "DUMP one", "XADD two 1-1 f 1", "XADD two 1-2 f 2", "DUMP two",
	})},
	{"wrongtype", concat(streamConfig, []string{
		"SET str x", "XLEN str", "XRANGE str - +", "XREVRANGE str + -", "XREAD STREAMS str 0", "XINFO STREAM str", "XINFO GROUPS str",
		"XADD s 1 a b", "GET s", "LPUSH s x", "HSET s a b", "XREAD STREAMS s str 0 0", "XREAD STREAMS s str $ $",
		"XRANGE str - + COUNT 0", "XRANGE str x +",
	})},
}

func TestStreamCommandsMatchRedis(t *testing.T) { runDiff(t, streamDiffCases) }
