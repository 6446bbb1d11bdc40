package rdb

import (
	"hash/crc64"
	"math/bits"
)

// Redis's CRC64 (crc64.c) is the "Jones" polynomial 0xad93d23594c935a9,
// reflected input and output, initial value 0, no final xor. hash/crc64
// works with the reflected polynomial and complements the state on entry
// and exit, so the state kept here is the complement of Redis's: start from
// crcInit and complement the result (crcSum).
var crcTable = crc64.MakeTable(bits.Reverse64(0xad93d23594c935a9))

const crcInit = ^uint64(0)

// crcUpdate adds p to the complemented state c.
func crcUpdate(c uint64, p []byte) uint64 { return crc64.Update(c, crcTable, p) }

// crcSum returns Redis's CRC64 of what the complemented state c has seen.
func crcSum(c uint64) uint64 { return ^c }

// checksum returns Redis's crc64(0, p, len(p)).
func checksum(p []byte) uint64 { return crcSum(crcUpdate(crcInit, p)) }
