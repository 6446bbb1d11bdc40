package server

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// The bitmap commands, LCS and SUBSTR against redis-server: every command
// in both protocols, offsets at the edges, every error path, and the
// encodings SETBIT and BITOP leave.
var bitmapDiffCases = []diffCase{
	{"setbit-getbit", []string{
		"SETBIT k 7 1", "GET k", "GETBIT k 7", "GETBIT k 6", "GETBIT k 8", "GETBIT k 100000", "STRLEN k",
		"SETBIT k 7 0", "GET k", "SETBIT k 0 1", "SETBIT k 0 1", "GET k", "SETBIT k 100 1", "STRLEN k", "GET k",
		"GETBIT missing 0", "GETBIT missing 4294967295", "SETBIT z 0 0", "GET z", "EXISTS z",
		"SETBIT k 4294967296 1", "GETBIT k 4294967296", "SETBIT k -1 1", "GETBIT k -1", "SETBIT k 1.5 1",
		"SETBIT k abc 1", "SETBIT k \"\" 1", "SETBIT k +1 1", "SETBIT k 01 1", "SETBIT k 9223372036854775807 1",
		"SETBIT k 18446744073709551616 1", "SETBIT k 0 2", "SETBIT k 0 -1", "SETBIT k 0 x", "SETBIT k 0 01", "SETBIT k 0 \"\"",
		"SETBIT k -1 2", "SETBIT k 1 +1", "GETBIT k abc", "SETBIT t 3 1", "EXPIRE t 1000", "SETBIT t 4 1", "TTL t",
		"SET s abc", "SETBIT s 1 0", "GET s", "SETBIT s 31 1", "GET s",
		"LPUSH l a", "SETBIT l 0 1", "GETBIT l 0", "SETBIT l -1 1", "SETBIT l 0 5", "GETBIT l x",
		"SETBIT", "SETBIT k 1", "SETBIT k 1 1 1", "GETBIT k", "GETBIT k 1 2",
	}},
	{"setbit-encodings", []string{
		"SET n 123", "#enc n", "SETBIT n 0 0", "#enc n", "GET n", "SET n 123", "GETBIT n 2", "#enc n",
		"SET e abc", "#enc e", "SETBIT e 0 0", "#enc e", "SET e abc", "SETBIT e 100 1", "#enc e",
		"SETBIT f 3 1", "#enc f", "SET g 12", "BITFIELD g GET u8 0", "#enc g", "BITFIELD g SET u8 0 49", "#enc g", "GET g",
		"SET h 7", "BITOP NOT h2 h", "#enc h2", "GET h2", "SET i 5", "BITFIELD i OVERFLOW FAIL SET u2 0 9", "#enc i",
	}},
	{"bitcount", []string{
		"SET k foobar", "BITCOUNT k", "BITCOUNT k 0 0", "BITCOUNT k 1 1", "BITCOUNT k 0 -1", "BITCOUNT k -2 -1",
		"BITCOUNT k 1 1 BYTE", "BITCOUNT k 5 30 BIT", "BITCOUNT k 0 -1 bit", "BITCOUNT k -9 -1 BIT", "BITCOUNT k 100 200",
		"BITCOUNT k -100 -50", "BITCOUNT k -50 -100", "BITCOUNT k 3 1", "BITCOUNT k -1 -3", "BITCOUNT k -100 100",
		"BITCOUNT k 0 1000 BIT", "BITCOUNT k 47 47 BIT", "BITCOUNT k 47 48 BIT", "BITCOUNT k 48 100 BIT", "BITCOUNT k 7 7 BIT",
		"BITCOUNT k 1 6 BIT", "BITCOUNT k -1 -1 BIT", "BITCOUNT k -48 -1 BIT", "BITCOUNT k -49 -47 BIT",
		"BITCOUNT k 9223372036854775807 -9223372036854775808", "BITCOUNT k -9223372036854775808 9223372036854775807",
		"BITCOUNT k -9223372036854775808 9223372036854775807 BIT",
		"BITCOUNT k 0", "BITCOUNT k 0 1 2", "BITCOUNT k 0 1 BIT x", "BITCOUNT k a 1", "BITCOUNT k 0 b", "BITCOUNT k 0 1 nibble",
		"BITCOUNT missing", "BITCOUNT missing 0", "BITCOUNT missing 0 x", "BITCOUNT missing a b c d",
		"SET e \"\"", "BITCOUNT e", "BITCOUNT e 0 -1", "BITCOUNT e 0 0 BIT", "SET n 255", "BITCOUNT n",
		"SET big " + bigBits(300), "BITCOUNT big", "BITCOUNT big 3 250", "BITCOUNT big 17 2001 BIT", "BITCOUNT big -290 -7",
		"LPUSH l a", "BITCOUNT l", "BITCOUNT l 0 x", "BITCOUNT l 0", "BITCOUNT",
	}},
	{"bitpos", []string{
		"SET k \"\\xff\\xf0\\x00\"", "BITPOS k 0", "BITPOS k 1", "BITPOS k 0 1", "BITPOS k 1 2", "BITPOS k 1 2 -1",
		"BITPOS k 0 0 0", "BITPOS k 0 0 1", "BITPOS k 0 0 100", "BITPOS k 1 3", "BITPOS k 1 -1", "BITPOS k 0 -1",
		"BITPOS k 0 -100", "BITPOS k 1 100", "BITPOS k 0 100", "BITPOS k 1 2 1", "BITPOS k 0 -1 -3",
		"BITPOS k 0 0 11 BIT", "BITPOS k 0 0 12 BIT", "BITPOS k 0 12 BIT", "BITPOS k 1 5 7 BIT", "BITPOS k 1 5 7 BYTE",
		"BITPOS k 1 8 11 BIT", "BITPOS k 0 8 11 bit", "BITPOS k 1 12 23 BIT", "BITPOS k 0 -12 -1 BIT", "BITPOS k 1 -12 -1 BIT",
		"BITPOS k 1 -100 -1 BIT", "BITPOS k 0 -100 -20 BIT", "BITPOS k 0 20 10 BIT",
		"SET f \"\\xff\\xff\"", "BITPOS f 0", "BITPOS f 0 0", "BITPOS f 0 1", "BITPOS f 0 0 -1", "BITPOS f 0 0 1",
		"BITPOS f 0 0 15 BIT", "BITPOS f 0 3 BIT", "BITPOS f 0 0 100 BIT", "BITPOS f 1 16 100 BIT",
		"SET z \"\\x00\\x00\"", "BITPOS z 1", "BITPOS z 0", "BITPOS z 1 0 -1", "BITPOS z 0 1 1", "BITPOS z 0 1 1 BIT",
		"SET big " + bigBits(200), "BITPOS big 1 50", "BITPOS big 0 50 199 BIT", "SETBIT w 1000 1", "BITPOS w 1",
		"BITPOS w 1 3", "BITPOS w 1 8 1200 BIT", "BITPOS w 0 0 -1", "SETBIT w2 1000 0", "BITPOS w2 1", "BITPOS w2 0",
		"BITPOS missing 0", "BITPOS missing 1", "BITPOS missing 0 x", "BITPOS missing 1 0 0 BIT", "BITPOS missing 2",
		"BITPOS missing x", "BITPOS k 2", "BITPOS k -1", "BITPOS k x", "BITPOS k 1 x", "BITPOS k 1 0 x", "BITPOS k 1 0 1 foo",
		"BITPOS k 1 0 1 BIT x", "BITPOS k 0 0 BIT", "SET e \"\"", "BITPOS e 0", "BITPOS e 1", "BITPOS e 0 0 -1", "BITPOS e 0 0",
		"LPUSH l a", "BITPOS l 1", "BITPOS l 3", "BITPOS l 1 x", "BITPOS", "BITPOS k",
		// long runs of ones, searched for a zero word by word
		"SETBIT z 2047 0", "BITOP NOT o z", "BITPOS o 0", "BITPOS o 0 3 200", "BITPOS o 0 3", "SETBIT o 1500 0",
		"BITPOS o 0", "BITPOS o 0 10 -1 BIT", "BITPOS o 0 1501 2047 BIT", "BITPOS o 0 1501 BIT", "BITCOUNT o",
		"BITCOUNT o 9 -9 BIT", "BITPOS z 1 0 -1 BIT", "SETBIT z 1999 1", "BITPOS z 1 13 BIT", "BITPOS z 1 13 -7",
	}},
	{"bitop", []string{
		"SET a \"\\x0f\\xf0\\xaa\"", "SET b \"\\xff\\x00\"", "BITOP AND d a b", "GET d", "BITOP OR d a b", "GET d",
		"BITOP XOR d a b", "GET d", "BITOP NOT d a", "GET d", "BITOP not d b", "GET d", "BITOP and d a", "GET d",
		"BITOP AND d a missing", "GET d", "BITOP OR d missing a", "GET d", "BITOP XOR d a a b", "GET d",
		"BITOP AND d missing1 missing2", "EXISTS d", "BITOP AND d missing1 missing2", "SET d x EX 100",
		"BITOP OR d a", "TTL d", "BITOP OR a a b", "GET a", "LPUSH d2 x", "BITOP OR d2 a", "TYPE d2", "GET d2",
		"LPUSH l1 x", "BITOP OR d a l1", "BITOP AND d l1", "BITOP NOT d l1", "BITOP NOT d a b", "BITOP NOT d",
		"BITOP FOO d a", "BITOP ANDX d a", "BITOP OR d", "BITOP OR", "SET e \"\"", "BITOP OR d e", "EXISTS d",
		"SET d y", "BITOP NOT d e", "EXISTS d", "BITOP NOT d2 missing", "BITOP XOR d3 e e",
		"SET big " + bigBits(100), "BITOP XOR d big a b", "GET d", "BITOP AND d big b", "GET d",
	}},
	{"bitfield", []string{
		"BITFIELD k SET i8 0 100 GET i8 0 INCRBY i8 0 27 INCRBY i8 0 1", "GET k",
		"BITFIELD k GET u4 0 GET u4 4 GET i4 4 GET u1 0 GET i1 0 GET i64 0 GET u63 0 GET u63 1",
		"BITFIELD k SET u8 #1 255 GET u8 #1 GET i8 #1 GET u16 #0 GET u8 8", "GET k", "STRLEN k",
		"BITFIELD k SET i5 3 -7 GET i5 3 GET u5 3 SET u3 13 5 GET u16 0", "BITFIELD k INCRBY u2 100 1 OVERFLOW SAT INCRBY u2 102 1",
		"BITFIELD k OVERFLOW WRAP INCRBY u8 0 300 OVERFLOW SAT INCRBY u8 0 300 OVERFLOW FAIL INCRBY u8 0 300 GET u8 0",
		"BITFIELD k OVERFLOW WRAP SET i8 0 200 GET i8 0 OVERFLOW SAT SET i8 0 200 GET i8 0 SET i8 0 -200 GET i8 0",
		"BITFIELD k OVERFLOW FAIL SET i8 0 200 SET i8 0 -129 SET i8 0 -128 SET i8 0 127 INCRBY i8 0 1 INCRBY i8 0 -255",
		"BITFIELD k SET u8 0 -1 OVERFLOW SAT SET u8 0 -1 SET u8 0 -1000 SET u8 0 1000 OVERFLOW FAIL SET u8 0 -1 SET u8 0 256",
		"BITFIELD k OVERFLOW SAT INCRBY u8 0 -1000 INCRBY u8 0 -1 INCRBY u8 0 9223372036854775807 INCRBY u8 0 -9223372036854775808",
		"BITFIELD k OVERFLOW WRAP INCRBY u8 0 -1 INCRBY u8 0 -9223372036854775808 INCRBY u8 0 9223372036854775807",
		"BITFIELD k SET i64 8 9223372036854775807 INCRBY i64 8 1 INCRBY i64 8 -1 OVERFLOW SAT INCRBY i64 8 -2 INCRBY i64 8 -9223372036854775808",
		"BITFIELD k OVERFLOW SAT INCRBY i64 8 9223372036854775807 INCRBY i64 8 9223372036854775807 OVERFLOW FAIL INCRBY i64 8 1",
		"BITFIELD k SET u63 3 9223372036854775807 INCRBY u63 3 1 OVERFLOW SAT INCRBY u63 3 -1 INCRBY u63 3 9223372036854775807 INCRBY u63 3 -9223372036854775808",
		"BITFIELD k OVERFLOW WRAP INCRBY u63 3 9223372036854775807 INCRBY u63 3 9223372036854775807 SET u63 0 -1 GET u63 0",
		"BITFIELD k SET i1 0 1 GET i1 0 SET i1 0 -1 GET i1 0 OVERFLOW SAT SET i1 0 5 GET i1 0 INCRBY i1 0 -3 SET u1 0 -3",
		"BITFIELD k SET i32 #3 -559038737 GET u32 #3 GET i32 #3 GET i16 #6 GET u16 #7 INCRBY i32 #3 2147483647", "GET k",
		"BITFIELD k GET u8 1000 GET i16 99999 GET u8 #1000", "STRLEN k",
		"BITFIELD k", "BITFIELD k OVERFLOW FAIL", "BITFIELD k overflow sat get i8 0 set i8 0 1 incrby i8 0 1000",
		"BITFIELD k get u8 0 Get U8 0", "BITFIELD n GET u8 0 GET i64 100", "EXISTS n", "BITFIELD n", "EXISTS n",
		"BITFIELD n OVERFLOW FAIL SET u8 0 1000", "EXISTS n", "GET n", "BITFIELD n2 OVERFLOW FAIL SET u8 0 1000 SET u8 8 1", "GET n2",
		"BITFIELD k " + strings.Repeat("INCRBY u3 #5 3 GET i7 9 OVERFLOW SAT ", 6), // more operations than the stack array holds
		"SET s abc", "BITFIELD s GET u8 0 SET u8 0 65 GET u24 0", "GET s", "SET t x EX 100", "BITFIELD t SET u8 0 1", "TTL t",
	}},
	{"bitfield-errors", []string{
		"BITFIELD k SET u64 0 1", "BITFIELD k GET u64 0", "BITFIELD k GET i65 0", "BITFIELD k GET i0 0", "BITFIELD k GET u0 0",
		"BITFIELD k GET x8 0", "BITFIELD k GET I8 0", "BITFIELD k GET U8 0", "BITFIELD k GET i08 0", "BITFIELD k GET i+8 0",
		"BITFIELD k GET i 0", "BITFIELD k GET \"\" 0", "BITFIELD k GET i-1 0", "BITFIELD k GET i8x 0", "BITFIELD k GET u99999999999999999999 0",
		"BITFIELD k GET i8 -1", "BITFIELD k GET i8 x", "BITFIELD k GET i8 #", "BITFIELD k GET i8 #-1", "BITFIELD k GET i8 +5",
		"BITFIELD k GET i8 1.5", "BITFIELD k GET i8 ##1", "BITFIELD k GET i8 4294967295", "BITFIELD k GET i8 4294967296",
		"BITFIELD k GET i8 #536870911", "BITFIELD k GET i8 #536870912", "BITFIELD k GET i64 #67108864",
		"BITFIELD k GET i64 #999999999999999999", "BITFIELD k GET i64 #9223372036854775807", "BITFIELD k GET i64 #9999999999999999999",
		"BITFIELD k SET i8 0 x", "BITFIELD k SET i8 0 1.5", "BITFIELD k SET i8 0 9223372036854775808", "BITFIELD k INCRBY i8 0 x",
		"BITFIELD k OVERFLOW foo", "BITFIELD k OVERFLOW", "BITFIELD k OVERFLOW sat foo", "BITFIELD k foo", "BITFIELD k GET",
		"BITFIELD k GET i8", "BITFIELD k SET i8 0", "BITFIELD k INCRBY i8 0", "BITFIELD k GET i8 0 SET", "BITFIELD k GET x8 0 SET",
		"BITFIELD k SET i8 0 1 GET x8 0", "BITFIELD k SET i8 0 1 OVERFLOW bad", "EXISTS k",
		"BITFIELD_RO k GET i8 0", "BITFIELD_RO k SET i8 0 1", "BITFIELD_RO k INCRBY i8 0 1", "BITFIELD_RO k SET x8 0 1",
		"BITFIELD_RO k SET i8 0", "BITFIELD_RO k SET i8 0 x", "BITFIELD_RO k GET i8 0 SET", "BITFIELD_RO k OVERFLOW WRAP GET i8 0",
		"BITFIELD_RO k OVERFLOW bad GET i8 0", "BITFIELD_RO k", "BITFIELD_RO k GET u64 0", "BITFIELD_RO k SET i8 0 1 GET x8 0",
		"BITFIELD_RO k GET i8 4294967296", "EXISTS k",
		"LPUSH l a", "BITFIELD l GET u8 0", "BITFIELD l SET u8 0 1", "BITFIELD l SET u8 0 x", "BITFIELD l", "BITFIELD_RO l",
		"BITFIELD_RO l GET u8 0", "BITFIELD_RO missing", "BITFIELD_RO missing GET i64 0 GET u63 #1",
		"BITFIELD", "BITFIELD_RO",
	}},
	{"lcs", []string{
		"MSET a ohmytext b mynewtext", "LCS a b", "LCS b a", "LCS a b LEN", "LCS a b IDX", "LCS a b IDX WITHMATCHLEN",
		"LCS a b IDX MINMATCHLEN 4", "LCS a b IDX MINMATCHLEN 2 WITHMATCHLEN", "LCS a b idx minmatchlen -5",
		"LCS a b LEN MINMATCHLEN 3", "LCS a b WITHMATCHLEN", "LCS a b MINMATCHLEN 2", "LCS a a", "LCS a a IDX",
		"LCS a b LEN IDX", "LCS a b IDX LEN", "LCS a b FOO", "LCS a b MINMATCHLEN", "LCS a b MINMATCHLEN x",
		"LCS a b MINMATCHLEN 9223372036854775808", "LCS a b LEN LEN", "LCS a missing", "LCS missing a IDX",
		"LCS missing missing2", "LCS missing missing2 LEN", "LCS missing missing2 IDX", "LCS missing missing2 IDX WITHMATCHLEN",
		"MSET x \"abcabcabc\" y \"cbacbacba\"", "LCS x y", "LCS y x", "LCS x y IDX WITHMATCHLEN", "LCS y x IDX",
		"MSET p \"aaaa\" q \"aa\"", "LCS p q IDX", "LCS q p IDX WITHMATCHLEN", "SET n 12345", "SET m 2x4", "LCS n m", "LCS n m IDX",
		"SET e \"\"", "LCS e a", "LCS a e IDX", "MSET bin \"a\\x00b\\xffc\" bin2 \"\\x00\\xff\"", "LCS bin bin2", "LCS bin bin2 IDX",
		"LPUSH l x", "LCS a l", "LCS l a", "LCS l missing", "LCS l a FOO", "LCS a l LEN IDX", "LCS", "LCS a",
	}},
	{"lcs-random", lcsRandomCases()},
	{"substr", []string{
		"SET k \"This is a string\"", "SUBSTR k 0 3", "SUBSTR k -3 -1", "SUBSTR k 0 -1", "SUBSTR k 10 100", "SUBSTR k 5 3",
		"SUBSTR k -100 5", "SUBSTR missing 0 -1", "SUBSTR k a 1", "SUBSTR k 0 b", "LPUSH l a", "SUBSTR l 0 1", "SUBSTR k 0",
		"SUBSTR k 0 1 2", "SET n 12345", "SUBSTR n 1 2",
	}},
	{"bitmap-resp3", []string{
		"#proto 3", "SETBIT k 3 1", "GETBIT k 3", "BITCOUNT k", "BITPOS k 1", "BITPOS missing 0", "BITOP NOT d k", "GET d",
		"BITFIELD k GET u8 0 OVERFLOW FAIL INCRBY u8 0 300 SET u4 0 3", "BITFIELD_RO k GET i8 0", "BITFIELD k", "BITFIELD missing",
		"MSET a ohmytext b mynewtext", "LCS a b", "LCS a b LEN", "LCS a b IDX", "LCS a b IDX WITHMATCHLEN MINMATCHLEN 2",
		"LCS missing missing2 IDX", "LCS a l", "SUBSTR a 1 3", "SUBSTR missing 0 1", "BITFIELD k SET u64 0 1",
	}},
	{"bitmap-multi", []string{
		"MULTI", "SETBIT k 1 1", "BITFIELD k GET u8 0 INCRBY u8 0 1", "BITOP NOT d k", "GETBIT d 0", "LCS k d IDX",
		"SUBSTR d 0 -1", "BITFIELD_RO k SET u8 0 1", "EXEC", "MULTI", "SETBIT k x 1", "BITPOS k 1", "EXEC", "GET k",
		"#proto 3", "MULTI", "BITCOUNT k", "LCS k d IDX WITHMATCHLEN", "BITFIELD k OVERFLOW FAIL INCRBY u2 0 9", "EXEC",
	}},
	{"bitmap-getkeys", []string{
		"COMMAND GETKEYSANDFLAGS BITFIELD k GET u8 0", "COMMAND GETKEYSANDFLAGS BITFIELD k GET u8 0 SET u8 0 1",
		"COMMAND GETKEYSANDFLAGS BITFIELD k INCRBY u8 0 1", "COMMAND GETKEYSANDFLAGS BITFIELD k", "COMMAND GETKEYSANDFLAGS BITFIELD k get i8 0 overflow sat",
		"COMMAND GETKEYSANDFLAGS BITFIELD_RO k GET u8 0", "COMMAND GETKEYSANDFLAGS BITOP AND d a b c", "COMMAND GETKEYSANDFLAGS LCS a b IDX",
		"COMMAND GETKEYSANDFLAGS SETBIT k 1 1", "COMMAND GETKEYS SUBSTR k 0 1", "COMMAND GETKEYS BITPOS k 1", "COMMAND GETKEYS BITOP NOT d a",
	}},
	{"bitmap-arity", []string{
		"SETBIT", "SETBIT k", "GETBIT", "BITCOUNT", "BITPOS k", "BITOP", "BITOP AND", "BITOP AND d", "BITFIELD", "BITFIELD_RO",
		"LCS", "LCS k", "SUBSTR", "SUBSTR k 0",
	}},
}

// bitmapLimitCases run with proto-max-bulk-len at its 1 MB minimum, so that
// the offset and LCS memory limits are met without half-gigabyte strings.
var bitmapLimitCases = []diffCase{
	{"offset-limit", []string{
		"#config proto-max-bulk-len 1048576", "SETBIT j 8388607 1", "STRLEN j", "SETBIT j 8388608 1", "GETBIT j 8388608",
		"GETBIT j 8388607", "BITFIELD j SET u8 8388607 1", "STRLEN j", "BITFIELD j SET u8 8388608 1", "BITFIELD j SET i8 #1048575 1",
		"BITFIELD j SET i16 #524288 1", "BITFIELD j GET i16 #524288", "BITFIELD x GET u8 8388608", "BITFIELD_RO x GET u8 8388608",
		"BITFIELD j SET i64 8388607 -1", "STRLEN j", "BITCOUNT j", "BITPOS j 1 1048570", "BITPOS j 0 -1", "BITCOUNT j -9 -1 BIT",
		"SETBIT k 8388607 0", "STRLEN k",
	}},
	{"lcs-memory-limit", []string{
		"#config proto-max-bulk-len 1048576",
		"SET a " + strings.Repeat("ab", 255) + "a", "SET b " + strings.Repeat("ba", 255) + "b",
		"LCS a b LEN", "SET b " + strings.Repeat("ba", 256), "LCS a b LEN", "LCS a b IDX", "LCS a b FOO", "LCS b b LEN",
		"#config proto-max-bulk-len 536870912",
	}},
}

// bigBits is a quoted string of n pseudo-random bytes (fixed seed).
func bigBits(n int) string {
	r := rand.New(rand.NewSource(int64(n)))
	b := make([]byte, n)
	r.Read(b)
	return fmt.Sprintf("%q", b)
}

// lcsRandomCases compares LCS of random strings over small alphabets,
// where ties between equally long subsequences are many, so that the
// walk's tie-breaking must be Redis's.
func lcsRandomCases() []string {
	r := rand.New(rand.NewSource(7))
	word := func(n int, alpha string) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alpha[r.Intn(len(alpha))]
		}
		return string(b)
	}
	var cmds []string
	for i := 0; i < 40; i++ {
		alpha := []string{"ab", "abc", "abcd", "xyz01"}[i%4]
		cmds = append(cmds, fmt.Sprintf("MSET a %q b %q", word(r.Intn(30), alpha), word(r.Intn(30), alpha)),
			"LCS a b", "LCS a b LEN", "LCS a b IDX WITHMATCHLEN", fmt.Sprintf("LCS a b IDX MINMATCHLEN %d", r.Intn(4)))
	}
	return cmds
}

func TestBitmapCommandsMatchRedis(t *testing.T) { runDiff(t, bitmapDiffCases) }

func TestBitmapLimitsMatchRedis(t *testing.T) { runDiff(t, bitmapLimitCases) }

// BITFIELD's key flags vary with its operations (GETs only read), and ACL
// read and write key patterns follow them as in redis-server.
func TestBitFieldACLKeyPermissionsMatchRedis(t *testing.T) {
	ref := dialRaw(t, startRefRedis(t))
	s, _ := newACLTestServer()
	a := serverACL(s)
	for _, u := range [][]string{{"r", "%R~k*"}, {"w", "%W~k*"}, {"rw", "~k*"}} {
		rules := []string{"on", "nopass", "+@all", u[1]}
		ref.do(append([]string{"ACL", "SETUSER", u[0]}, rules...)...)
		a.setUser(u[0], rules)
	}
	calls := []string{
		"bitfield k GET u8 0", "bitfield k SET u8 0 1", "bitfield k GET u8 0 INCRBY u8 0 1", "bitfield k",
		"bitfield k OVERFLOW SAT", "bitfield_ro k GET u8 0", "setbit k 0 1", "getbit k 0", "bitop and k k2 k3",
		"bitop or o k", "lcs k k2", "substr k 0 1", "bitcount k", "bitpos k 1",
	}
	for _, call := range calls {
		args := strings.Fields(call)
		b := make([][]byte, len(args))
		for i := range args {
			b[i] = []byte(args[i])
		}
		for _, u := range []string{"r", "w", "rw"} {
			want := ref.do(append([]string{"ACL", "DRYRUN", u}, args...)...) == "+OK\r\n"
			reason, _ := a.user(u).perm.Load().permits(commandByName(args[0]), b)
			if got := reason == ""; got != want {
				t.Errorf("%s as %s: allowed = %v, redis says %v", call, u, got, want)
			}
		}
	}
}
