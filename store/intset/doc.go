// Package intset implements Redis's intset, the compact encoding of small
// sets of integers, byte for byte as Redis's intset.c writes it, so that an
// RDB writer can store an intset verbatim (RDB type 11) and Redis can load it.
//
// An intset is one contiguous byte slice:
//
//	<encoding:4 LE> <length:4 LE> <value> ... <value>
//
// encoding is the width of every value in bytes: 2, 4 or 8. The length
// values follow in increasing order, without repeats, each a little-endian
// two's-complement integer of that width. Adding a value that does not fit
// the width rewrites every value at the smallest width that holds it
// ("upgrade"); removing values never narrows it, as in Redis.
//
// Functions take the intset as a []byte that the caller owns. A mutator
// takes is and returns the new slice: when the new size fits cap(is) it
// edits is in place, otherwise it grows it as append does, so a caller that
// reserves capacity never allocates. Reads assume a well-formed intset, one
// built here or accepted by Validate, which checks arbitrary bytes (an RDB
// payload) and never panics.
package intset
