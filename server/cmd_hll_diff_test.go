package server

import (
	"fmt"
	"strings"
	"testing"
)

// hllElems returns "PFADD key" with the elements prefix0 .. prefix(n-1).
func hllAdd(key, prefix string, from, to int) string {
	var b strings.Builder
	b.WriteString("PFADD " + key)
	for i := from; i < to; i++ {
		fmt.Fprintf(&b, " %s%d", prefix, i)
	}
	return b.String()
}

var hllDiffCases = []diffCase{
	{"pfadd-small-sparse", []string{
		"PFADD h", "GET h", "PFADD h", "GET h", "PFADD h a b c", "GET h", "PFADD h a", "GET h",
		"PFCOUNT h", "GET h", "PFADD h a", "GET h", "PFADD h d", "GET h", "PFCOUNT h", "GET h",
		"PFADD h \"\"", "GET h", "PFCOUNT h", "OBJECT ENCODING h", "STRLEN h",
		"PFADD missing-elements-none", "EXISTS missing-elements-none", "PFCOUNT nothing", "EXISTS nothing",
		"PFDEBUG ENCODING h", "PFDEBUG DECODE h",
	}},
	{"pfadd-murmur-tails", []string{
		// elements of every length 0..17 cover each tail case of the hash
		"PFADD h \"\" a ab abc abcd abcde abcdef abcdefg abcdefgh abcdefghi abcdefghij abcdefghijk abcdefghijkl abcdefghijklm abcdefghijklmn abcdefghijklmno abcdefghijklmnop abcdefghijklmnopq",
		"GET h", "PFCOUNT h", "GET h", "PFDEBUG DECODE h",
		"PFADD b \"\\x00\\xff\\x80\\x7f\" \"\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\"", "GET b",
	}},
	{"pfadd-sparse-to-dense", []string{
		hllAdd("h", "e", 0, 100), "GET h", "PFCOUNT h", "GET h",
		hllAdd("h", "e", 100, 1000), "GET h", "PFDEBUG ENCODING h", "PFCOUNT h",
		hllAdd("h", "e", 1000, 3000), "GET h", "PFDEBUG ENCODING h", "PFCOUNT h", "GET h",
		hllAdd("h", "e", 3000, 6000), "GET h", "PFCOUNT h", "GET h", "PFADD h e1", "PFADD h new-one", "GET h",
	}},
	{"pfadd-sparse-max-bytes", []string{
		"#config hll-sparse-max-bytes 100",
		hllAdd("h", "x", 0, 10), "GET h", "PFDEBUG ENCODING h",
		hllAdd("h", "x", 10, 40), "GET h", "PFDEBUG ENCODING h", "PFCOUNT h", "GET h",
		"#config hll-sparse-max-bytes 0", "PFADD z a", "PFDEBUG ENCODING z", "GET z",
		"#config hll-sparse-max-bytes 3000", "CONFIG GET hll-sparse-max-bytes",
	}},
	{"pfadd-large-dense", []string{
		hllAdd("h", "big", 0, 20000), "PFCOUNT h", "GET h", "PFDEBUG TODENSE h", "PFDEBUG GETREG h",
	}},
	{"pfmerge-mixed", []string{
		hllAdd("s1", "a", 0, 50), hllAdd("s2", "a", 25, 90), hllAdd("d1", "b", 0, 5000),
		"PFMERGE m s1 s2", "GET m", "PFCOUNT m", "GET m", "PFDEBUG ENCODING m",
		"PFMERGE m2 s1 d1", "GET m2", "PFDEBUG ENCODING m2", "PFCOUNT m2",
		"PFMERGE s1 s2", "GET s1", "PFCOUNT s1 s2 d1", "GET s1", "GET s2", "GET d1",
		"PFMERGE fresh", "GET fresh", "PFMERGE fresh2 nokey1 nokey2", "GET fresh2",
		"PFCOUNT s1 nokey", "PFCOUNT nokey1 nokey2",
		"PFCOUNT s1", "PFMERGE s1 s1", "GET s1", "PFMERGE d1 s1", "GET d1", "PFCOUNT d1", "GET d1",
	}},
	{"pfcount-multi-caches-nothing", []string{
		hllAdd("a", "p", 0, 30), hllAdd("b", "q", 0, 30), "PFCOUNT a b", "GET a", "GET b",
		"PFCOUNT a", "GET a", "PFCOUNT a b", "PFCOUNT b a b",
	}},
	{"hll-wrong-types", []string{
		"SET s hello", "PFADD s a", "PFCOUNT s", "PFMERGE s", "PFMERGE d s", "EXISTS d", "PFDEBUG ENCODING s",
		"SET i 12345", "PFADD i a", "PFCOUNT i", "PFCOUNT i i",
		"LPUSH l x", "PFADD l a", "PFCOUNT l", "PFCOUNT l l", "PFMERGE l", "PFMERGE d l", "PFDEBUG ENCODING l",
		"PFADD h a", "PFCOUNT h s", "PFCOUNT h l", "PFMERGE h s", "PFMERGE h l", "PFMERGE l h",
		"SET x HYLL", "PFADD x a", "SET x \"HYLL\\x02\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\"", "PFADD x a",
		"SET x \"HYLL\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\"", "PFCOUNT x",
		"SET x \"HYLL\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\"", "PFCOUNT x", "PFADD x a",
		"PFDEBUG ENCODING x", "PFDEBUG DECODE x",
		"PFADD", "PFCOUNT", "PFMERGE", "PFDEBUG", "PFDEBUG GETREG", "PFDEBUG GETREG a b", "PFSELFTEST x",
	}},
	{"hll-corrupt", []string{
		"PFADD h a b c", "SETRANGE h 16 \"\\xff\\xff\\xff\"", "PFCOUNT h", "PFADD h zz", "PFADD h a", "GET h",
		"PFADD h2 a", "SETRANGE h2 17 \"\\x00\"", "PFDEBUG DECODE h2", "PFCOUNT h2", "PFMERGE m h2", "EXISTS m",
		"PFDEBUG TODENSE h2", "PFDEBUG GETREG h2", "PFDEBUG ENCODING h2",
		"SET t \"HYLL\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x80\\x7f\"", "PFDEBUG DECODE t", "PFCOUNT t",
		"SET v \"HYLL\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x80\\x7f\\xff\\xff\"", "PFCOUNT v", "PFADD v a", "PFMERGE v",
		"PFCOUNT v h", "PFDEBUG GETREG v",
		"PFADD d a", "PFDEBUG TODENSE d", "SETRANGE d 100 \"\\xff\\xff\\xff\\xff\"", "PFCOUNT d", "GET d", "PFADD d q", "PFCOUNT d",
		"SET c \"HYLL\\x01\\x00\\x00\\x00\\x05\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x7f\\xff\"", "PFCOUNT c", "GET c",

		// a value whose last XZERO lacks its second byte, which Redis reads
		// as the string's NUL: 16384 registers, so valid; an add inside that
		// run splits it as if both bytes were there, then keeps the old
		// length plus the difference, cutting the new sequence's last byte
		// (FuzzHLLValue found it). Redis then reads the cut byte, left in
		// memory past its string's end, as the next add's second byte;
		// loopkv reads 0 there, so what reads that run again (PFCOUNT, a
		// second add) differs and is not compared.
		"SET tz \"HYLL\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x80@\\xfa\\xfa\\x00\\x7f\"", "PFCOUNT tz",
		"COPY tz tz2", "PFADD tz x", "GET tz", "PFCOUNT tz", "PFADD tz2 \"@\\xfa\\xfa\\x00\\x7f\"", "GET tz2",
	}},
	{"pfcount-cache-touches-watch", []string{
		"PFADD w a b", "WATCH w", "PFCOUNT w", "MULTI", "PING", "EXEC",
		"WATCH w", "PFCOUNT w", "MULTI", "PING", "EXEC", "WATCH w", "PFADD w a", "MULTI", "PING", "EXEC",
		"WATCH w", "PFADD w c", "MULTI", "PING", "EXEC",
	}},
	{"pfdebug", []string{
		"PFDEBUG ENCODING nokey", "PFDEBUG foo nokey", "PFADD h a b c", "PFDEBUG foo h", "PFDEBUG ENCODING h",
		"PFDEBUG decode h", "PFCOUNT h", "PFDEBUG TODENSE h", "GET h", "PFDEBUG TODENSE h", "PFDEBUG ENCODING h",
		"PFDEBUG DECODE h", "PFADD g x", "PFDEBUG GETREG g", "PFDEBUG ENCODING g", "GET g", "PFSELFTEST",
	}},
	{"hll-resp3", []string{
		"#proto 3", "PFADD h a b", "PFCOUNT h", "PFDEBUG ENCODING h", "PFDEBUG DECODE h", "PFMERGE m h", "GET m",
		"PFDEBUG GETREG h", "PFDEBUG foo h", "PFADD s", "SET s x", "PFCOUNT s",
	}},
}

func TestHLLCommandsMatchRedis(t *testing.T) { runDiff(t, hllDiffCases) }
