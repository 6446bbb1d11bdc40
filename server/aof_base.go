package server

import (
	"bufio"
	"io"
	"math"
	"strconv"

	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// The AOF-format base (aof-use-rdb-preamble no): the snapshot written as
// the commands that rebuild it, as Redis's rewriteAppendOnlyFileRio does:
// SELECT before each database, one SET, RPUSH, SADD, ZADD or HMSET per key
// (at most aofItemsPerCmd items per command), then PEXPIREAT for a key with
// a TTL.

// aofItemsPerCmd is Redis's AOF_REWRITE_ITEMS_PER_CMD.
const aofItemsPerCmd = 64

// writeAOFCommands writes sn as commands to w.
func writeAOFCommands(w io.Writer, sn *store.Snapshot) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	db := -1
	err := sn.Each(func(d int, v *store.Value) error {
		if d != db {
			buf = resp.AppendArrayLen(buf, 2)
			buf = resp.AppendBulkString(buf, "SELECT")
			buf = resp.AppendBulkInt(buf, int64(d))
			db = d
		}
		buf = appendKeyCommands(buf, v)
		if v.ExpireAt != 0 {
			buf = resp.AppendArrayLen(buf, 3)
			buf = resp.AppendBulkString(buf, "PEXPIREAT")
			buf = resp.AppendBulk(buf, v.Key)
			buf = resp.AppendBulkInt(buf, v.ExpireAt)
		}
		if len(buf) >= 32<<10 {
			if _, err := bw.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		return nil
	})
	if err != nil {
		return err
	}
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	return bw.Flush()
}

// appendKeyCommands appends the commands that create v.
func appendKeyCommands(buf []byte, v *store.Value) []byte {
	if v.Type == store.TypeString {
		buf = resp.AppendArrayLen(buf, 3)
		buf = resp.AppendBulkString(buf, "SET")
		buf = resp.AppendBulk(buf, v.Key)
		return resp.AppendBulk(buf, v.Raw)
	}
	name, per := "", 1
	switch v.Type {
	case store.TypeList:
		name = "RPUSH"
	case store.TypeSet:
		name = "SADD"
	case store.TypeZSet:
		name, per = "ZADD", 2
	case store.TypeHash:
		name, per = "HMSET", 2
	case store.TypeStream:
		return appendStreamCommands(buf, v) // cmd_stream_prop.go
	default:
		return buf
	}
	left := v.Len()
	in := 0 // items in the open command
	v.Each(func(a, b []byte, score float64) bool {
		if in == 0 {
			n := min(left, aofItemsPerCmd)
			buf = resp.AppendArrayLen(buf, 2+n*per)
			buf = resp.AppendBulkString(buf, name)
			buf = resp.AppendBulk(buf, v.Key)
			in = n
		}
		switch v.Type {
		case store.TypeZSet:
			buf = resp.AppendBulkString(buf, formatScore(score))
			buf = resp.AppendBulk(buf, a)
		case store.TypeHash:
			buf = resp.AppendBulk(buf, a)
			buf = resp.AppendBulk(buf, b)
		default:
			buf = resp.AppendBulk(buf, a)
		}
		in--
		left--
		return true
	})
	return buf
}

// formatScore writes a score as Redis's rewrite does (%.17g; inf, -inf).
func formatScore(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', 17, 64)
}
