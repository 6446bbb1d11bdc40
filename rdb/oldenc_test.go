package rdb

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopkv/loopkv/store"
	"github.com/loopkv/loopkv/store/listpack"
)

// buildZiplist encodes entries as Redis ≤ 6.2's ziplist: a canonical
// integer in the narrowest integer encoding, anything else as a string.
func buildZiplist(entries ...string) []byte {
	zl := make([]byte, zlHeaderSize)
	prev, last := 0, zlHeaderSize
	for _, e := range entries {
		start := len(zl)
		if prev < 254 {
			zl = append(zl, byte(prev))
		} else {
			zl = binary.LittleEndian.AppendUint32(append(zl, 0xFE), uint32(prev))
		}
		if v, ok := canonicalInt([]byte(e)); ok {
			switch {
			case v >= 0 && v <= 12:
				zl = append(zl, 0xF1+byte(v))
			case v >= math.MinInt8 && v <= math.MaxInt8:
				zl = append(zl, 0xFE, byte(v))
			case v >= math.MinInt16 && v <= math.MaxInt16:
				zl = binary.LittleEndian.AppendUint16(append(zl, 0xC0), uint16(v))
			case v >= -1<<23 && v < 1<<23:
				zl = append(zl, 0xF0, byte(v), byte(v>>8), byte(v>>16))
			case v >= math.MinInt32 && v <= math.MaxInt32:
				zl = binary.LittleEndian.AppendUint32(append(zl, 0xD0), uint32(v))
			default:
				zl = binary.LittleEndian.AppendUint64(append(zl, 0xE0), uint64(v))
			}
		} else {
			switch n := len(e); {
			case n < 64:
				zl = append(zl, byte(n))
			case n < 1<<14:
				zl = append(zl, 0x40|byte(n>>8), byte(n))
			default:
				zl = binary.BigEndian.AppendUint32(append(zl, 0x80), uint32(n))
			}
			zl = append(zl, e...)
		}
		last, prev = start, len(zl)-start
	}
	zl = append(zl, zlEnd)
	binary.LittleEndian.PutUint32(zl, uint32(len(zl)))
	binary.LittleEndian.PutUint32(zl[4:], uint32(last))
	binary.LittleEndian.PutUint16(zl[8:], uint16(min(len(entries), 0xFFFF)))
	return zl
}

// buildZipmap encodes field, value pairs as Redis ≤ 2.6's zipmap, with
// free bytes after the values to exercise them.
func buildZipmap(pairs ...string) []byte {
	zm := []byte{byte(min(len(pairs)/2, 254))}
	putLen := func(n int) {
		if n < 254 {
			zm = append(zm, byte(n))
		} else {
			zm = binary.LittleEndian.AppendUint32(append(zm, 254), uint32(n))
		}
	}
	for i := 0; i < len(pairs); i += 2 {
		putLen(len(pairs[i]))
		zm = append(zm, pairs[i]...)
		putLen(len(pairs[i+1]))
		zm = append(zm, 2)
		zm = append(zm, pairs[i+1]...)
		zm = append(zm, 0, 0) // the free bytes
	}
	return append(zm, zlEnd)
}

// oldFile is an RDB version 9 file with every encoding older than Redis 7:
// zipmap and ziplist hashes, ziplist lists, sorted sets, quicklist 1,
// plain LIST, ZSET with text scores, and the old EXPIRETIME in seconds.
func oldFile(t testing.TB) []byte {
	var c compressor
	b := []byte("REDIS0009")
	b = append(b, opAux)
	b = c.appendString(b, []byte("redis-ver"))
	b = c.appendString(b, []byte("6.2.0"))
	b = appendLen(append(b, opSelectDB), 0)
	kv := func(typ byte, key string, val []byte) {
		b = append(b, typ)
		b = c.appendString(b, []byte(key))
		b = append(b, val...)
	}
	blob := func(p []byte) []byte { return appendRaw(nil, p) }
	long := string(bytes.Repeat([]byte("x"), 300))
	kv(typeHashZipmap, "zipmap", blob(buildZipmap("f1", "v1", "long", long, "num", "123")))
	kv(typeHashZiplist, "hziplist", blob(buildZiplist("a", "1", "b", "-70000", "c", "12")))
	kv(typeListZiplist, "lziplist", blob(buildZiplist("x", "0", "12", "13", "-1", "127", "-129", "40000",
		"8388608", "-2147483649", "9223372036854775807", long, "after-long")))
	kv(typeZSetZiplist, "zziplist", blob(buildZiplist("m1", "1", "m2", "2.5", "m3", "1000000")))
	var ql []byte
	ql = appendLen(ql, 2)
	ql = append(ql, blob(buildZiplist("n1a", "n1b", "7"))...)
	ql = append(ql, blob(buildZiplist("n2a", long))...)
	kv(typeListQuicklist, "quicklist1", ql)
	var plain []byte
	plain = appendLen(plain, 3)
	for _, e := range []string{"p1", "22", long} {
		plain = c.appendString(plain, []byte(e))
	}
	kv(typeList, "plainlist", plain)
	var zs []byte
	zs = appendLen(zs, 3)
	for _, m := range []struct{ m, s string }{{"a", "1.5"}, {"b", "inf"}, {"c", "-inf"}} {
		zs = c.appendString(zs, []byte(m.m))
		switch m.s {
		case "inf":
			zs = append(zs, 254)
		case "-inf":
			zs = append(zs, 255)
		default:
			zs = append(append(zs, byte(len(m.s))), m.s...)
		}
	}
	kv(typeZSet, "textzset", zs)
	exp := time.Now().Add(time.Hour).Unix()
	b = binary.LittleEndian.AppendUint32(append(b, opExpireTime), uint32(exp))
	kv(typeString, "oldttl", c.appendString(nil, []byte("v")))
	b = append(b, opEOF)
	return binary.LittleEndian.AppendUint64(b, checksum(b))
}

// TestLoadOldEncodings: hand-built ziplist, zipmap and quicklist 1 values
// (and the other pre-7 forms) load into a store as redis-server 7.0 loads
// the same file.
func TestLoadOldEncodings(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "old.rdb")
	if err := os.WriteFile(path, oldFile(t), 0o644); err != nil {
		t.Fatal(err)
	}
	s := store.New(store.Options{})
	st, err := LoadFile(path, s, LoadOptions{Now: time.Now().UnixMilli()})
	if err != nil {
		t.Fatal(err)
	}
	if st.Keys != 8 || st.Expires != 1 || st.Version != 9 {
		t.Errorf("stats %+v", st)
	}
	r := reloadRedis(t, path)
	ours, theirs := storeDump(t, s, 0), redisDump(t, r.c, 0)
	if len(theirs) != 8 {
		t.Fatalf("redis loaded %d keys", len(theirs))
	}
	compareDumps(t, ours, theirs)
	if got := ours["lziplist"].Items; len(got) != 13 || got[10] != strconv.FormatInt(math.MaxInt64, 10) {
		t.Errorf("lziplist %q", got)
	}
}

// TestLoadSetListpack: Redis 7.2's SET_LISTPACK (type 20, RDB version 11)
// loads as a listpack set; a repeated member is refused at the value.
func TestLoadSetListpack(t *testing.T) {
	lp := listpack.AppendString(listpack.AppendInt(listpack.AppendString(listpack.New(nil), []byte("a")), 7), []byte("bb"))
	file := func(lp []byte) []byte {
		b := []byte("REDIS0011")
		b = appendLen(append(b, opSelectDB), 0)
		b = append(b, typeSetListpack)
		b = appendRaw(b, []byte("s"))
		b = appendRaw(b, lp)
		b = append(b, opEOF)
		return binary.LittleEndian.AppendUint64(b, checksum(b))
	}
	s := store.New(store.Options{})
	if _, err := Load(bytes.NewReader(file(lp)), s, LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	d := storeDump(t, s, 0)["s"]
	if d.Enc != "listpack" || strings.Join(d.Items, ",") != "7,a,bb" {
		t.Errorf("loaded %+v", d)
	}
	dup := listpack.AppendString(lp, []byte("a"))
	if e := loadErrOf(t, file(dup)); e == nil || e.Offset != 14 || !strings.Contains(e.Reason, "duplicate") {
		t.Errorf("repeated member: %v", e)
	}
}
