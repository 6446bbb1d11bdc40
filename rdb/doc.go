// Package rdb reads and writes Redis 7.0's RDB format (RDB version 10),
// the encoding shared by RDB files, DUMP / RESTORE payloads and an AOF's
// RDB-format base file.
//
// A file is the magic "REDIS0010", auxiliary fields (opcode AUX 250:
// redis-ver, redis-bits, ctime, used-mem, aof-base and any extra ones),
// then for each non-empty database SELECTDB (254) and RESIZEDB (251), its
// keys, EOF (255) and a CRC64 of everything before it (8 bytes, little
// endian; zero when checksums are off, which a loader accepts as Redis
// does). A key is an optional EXPIRETIME_MS (252, 8 bytes LE) and IDLE
// (248) or FREQ (249), then its value type byte, its key and its value.
//
// Lengths are Redis's variable encoding: 00xxxxxx (6 bits), 01xxxxxx
// xxxxxxxx (14 bits, big endian), 0x80 and 4 bytes or 0x81 and 8 bytes
// (big endian); 11xxxxxx marks a special string: an integer of 1, 2 or 4
// bytes (little endian) or LZF data (compressed length, original length,
// bytes).
//
// Written value types, as Redis 7.0 writes them: STRING (0), SET (2, also
// for listpack sets, which 7.0 does not have), HASH (4), ZSET_2 (5, binary
// scores), SET_INTSET (11), HASH_LISTPACK (16), ZSET_LISTPACK (17),
// LIST_QUICKLIST_2 (18) and STREAM_LISTPACKS_2 (19). Read also: LIST (1),
// ZSET (3, text scores), HASH_ZIPMAP (9), LIST_ZIPLIST (10), ZSET_ZIPLIST
// (12), HASH_ZIPLIST (13), LIST_QUICKLIST (14, ziplist nodes),
// STREAM_LISTPACKS (15, Redis 5 and 6), SET_LISTPACK (20, Redis 7.2) and
// STREAM_LISTPACKS_3 (21, Redis 7.2), and the old EXPIRETIME (253,
// seconds). Ziplists and zipmaps are converted on load; module and
// function data, and streams with consumer groups, are refused.
//
// Every read is bounded and every fault is an *Error naming the byte
// offset of the damage. A value is decoded completely and checked
// (listpack and intset integrity, duplicates, order, counts) before it
// reaches the store, so a load never leaves half a key.
package rdb
