// Package hll implements Redis's HyperLogLog string values: the byte
// format Redis 7 stores, DUMPs and writes to RDB files, the element hash
// (MurmurHash64A), the sparse and dense register encodings, and Redis 7's
// cardinality estimator (Ertl's improved raw estimator). It knows nothing
// of keys, RESP or sockets: every function works on a value's bytes.
//
// # The value
//
//	+------+---+-----+----------+----------------------------+
//	| HYLL | E | N/U | Cardin.  | registers or sparse opcodes |
//	+------+---+-----+----------+----------------------------+
//	  4      1   3     8
//
// E is the encoding, Dense (0) or Sparse (1); the three bytes after it are
// unused (kept as found). Cardin. is the cached cardinality, little endian;
// the top bit of its last byte set means the cache is stale. A dense value
// is exactly DenseSize bytes: 16384 registers of 6 bits each, packed from
// the least significant bit of each byte up. A sparse value is a run-length
// code of the registers, in order, with three opcodes:
//
//	ZERO   00xxxxxx            1..64 zero registers (xxxxxx+1)
//	XZERO  01xxxxxx yyyyyyyy   1..16384 zero registers (14 bits + 1)
//	VAL    1vvvvvxx            1..4 registers (xx+1) of value 1..32 (vvvvv+1)
//
// A new key is sparse, one XZERO of 16384. A sparse value turns dense when
// a register would exceed 32 or when an edit would make it longer than
// hll-sparse-max-bytes (the caller's maxBytes), as Redis converts it.
//
// # Hostile values
//
// A value may come from SETRANGE or RESTORE, so nothing here trusts it:
// Check accepts exactly what Redis's isHLLObjectOrReply accepts (header,
// encoding, a dense value's length), and every walk of sparse opcodes
// bounds its reads and fails on runs that do not cover exactly 16384
// registers, where Redis answers "INVALIDOBJ Corrupted HLL object
// detected". A truncated XZERO reads its missing second byte as 0, as
// Redis reads the string's terminating NUL there.
package hll
