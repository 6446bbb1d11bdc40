// Package listpack implements Redis 7's listpack, the compact encoding of
// small hashes, sorted sets and list nodes, byte for byte as Redis's
// listpack.c writes it, so that an RDB writer can store a listpack verbatim
// and Redis can load it (and the other way round).
//
// A listpack is one contiguous byte slice:
//
//	<total-bytes:4 LE> <count:2 LE> <entry> ... <entry> <0xFF>
//
// count is the number of entries, or 65535 when there are 65535 or more, in
// which case Len walks the entries. Each entry is <encoding+data><backlen>:
//
//	first byte   encoding                                   size of encoding+data
//	0xxxxxxx     7-bit unsigned integer 0..127              1
//	10llllll     string, 6-bit length 0..63                 1 + len
//	110xxxxx     13-bit signed integer -4096..4095 (+1 B)   2
//	1110llll     string, 12-bit length 64..4095 (+1 B)      2 + len
//	0xF0         string, 32-bit LE length                   5 + len
//	0xF1         16-bit LE signed integer                   3
//	0xF2         24-bit LE signed integer                   4
//	0xF3         32-bit LE signed integer                   5
//	0xF4         64-bit LE signed integer                   9
//	0xF5..0xFE   unused (invalid)
//	0xFF         terminator
//
// backlen is the size of <encoding+data> written so that it can be read from
// its last byte backwards, 7 bits per byte, most significant group first; every
// byte but the first has its top bit set. It takes 1 byte up to 127, 2 below
// 16383, 3 below 2097151, 4 below 268435455 and 5 otherwise (Redis's limits,
// so 16383 takes 3 bytes).
//
// Strings are stored as integers when they are the canonical decimal form of
// an int64 ("12", "-7", not "012", "+1", " 1" or "-0"), as Redis's
// lpStringToInt64 decides, and integers always take the smallest encoding.
// Lookups compare both forms, so Find(lp, First(lp), []byte("12"), 0) finds
// the integer 12.
//
// # Ownership and offsets
//
// Functions take the listpack as a []byte that the caller owns and address
// entries by byte offset (First, Next, Prev, Last, Seek). A mutator takes lp
// and returns the new slice: when the new size fits cap(lp) it edits lp in
// place, otherwise it grows it as append does (copying), so a caller that
// reserves capacity never allocates. Every mutation invalidates the offsets
// and views obtained before it, except as each mutator's doc says.
//
// Reads assume a well-formed listpack: one built by this package, or one that
// Validate accepted. Validate checks arbitrary bytes (an RDB payload) and
// never panics.
package listpack
