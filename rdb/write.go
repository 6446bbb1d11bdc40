package rdb

import (
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/loopkv/loopkv/internal/fsx"
	"github.com/loopkv/loopkv/store"
)

// Options control Write.
type Options struct {
	Compress bool              // rdbcompression: LZF for strings over 20 bytes
	Checksum bool              // rdbchecksum: the CRC64 trailer (else eight zero bytes)
	Aux      map[string]string // extra aux fields (e.g. "aof-base": "1"); they may override the standard ones
	Idle     bool              // write each key's IDLE (Redis does under an LRU maxmemory-policy)
	Freq     bool              // write each key's FREQ, its LFU counter (Redis does under an LFU maxmemory-policy)
	Now      int64             // Unix ms for the ctime aux field; 0 for the clock's
	UsedMem  int64             // the used-mem aux field
	// Yield makes WriteFile hand the processor back to the scheduler after
	// each chunk it writes (64 KiB, about 0.1 ms of encoding): an event
	// loop whose wait returned while the save held its P runs at once,
	// instead of after Go's 10 ms preemption slice, so a background save
	// takes only the CPU the loops leave.
	Yield bool
}

// redisVersion is the redis-ver aux field written: the Redis whose format this is.
const redisVersion = "7.0.15"

// flushAt is the buffered size at which the writer writes out.
const flushAt = 64 << 10

// encoder appends RDB data to buf and, when it has a destination, writes
// it out as it grows, keeping the CRC64 of everything written.
type encoder struct {
	w   io.Writer // nil: everything stays in buf (DUMP)
	buf []byte
	crc uint64
	n   int64 // bytes written out
	err error // sticky write error
	c   compressor
}

// spill writes buf out when it is large (and there is somewhere to write).
func (e *encoder) spill() {
	if e.w != nil && len(e.buf) >= flushAt {
		e.flush()
	}
}

func (e *encoder) flush() {
	if e.err != nil || e.w == nil {
		e.buf = e.buf[:0]
		return
	}
	e.crc = crcUpdate(e.crc, e.buf)
	k, err := e.w.Write(e.buf)
	e.n += int64(k)
	e.err = err
	e.buf = e.buf[:0]
}

// str appends a string with Redis's string encodings.
func (e *encoder) str(s []byte) { e.buf = e.c.appendString(e.buf, s); e.spill() }

// rdbType is the RDB type Redis 7.0 writes v's type and encoding as.
func rdbType(v *store.Value) byte {
	switch {
	case v.Type == store.TypeString:
		return typeString
	case v.Type == store.TypeList:
		return typeListQuicklist2
	case v.Type == store.TypeStream:
		return typeStreamLP2
	case v.Enc == store.EncIntset:
		return typeSetIntset
	case v.Type == store.TypeSet: // a hash table, or a listpack (7.0 has no listpack set type)
		return typeSet
	case v.Type == store.TypeHash && v.Enc == store.EncListpack:
		return typeHashListpack
	case v.Type == store.TypeHash:
		return typeHash
	case v.Enc == store.EncListpack:
		return typeZSetListpack
	}
	return typeZSet2
}

// body appends v's value as rdbSaveObject writes it for type t.
func (e *encoder) body(t byte, v *store.Value) {
	switch t {
	case typeString, typeSetIntset, typeHashListpack, typeZSetListpack:
		e.str(v.Raw)
	case typeListQuicklist2:
		e.list(v)
	case typeStreamLP2:
		e.stream(v)
	case typeSet:
		e.buf = appendLen(e.buf, uint64(v.Len()))
		v.Each(func(m, _ []byte, _ float64) bool { e.str(m); return true })
	case typeHash:
		e.buf = appendLen(e.buf, uint64(v.Len()))
		v.Each(func(f, val []byte, _ float64) bool { e.str(f); e.str(val); return true })
	case typeZSet2:
		e.buf = appendLen(e.buf, uint64(v.Len()))
		v.Each(func(m, _ []byte, score float64) bool {
			e.str(m)
			e.buf = appendBinaryDouble(e.buf, score)
			return true
		})
	}
}

// list appends a quicklist as LIST_QUICKLIST_2 does: its node count, then
// each node's listpack as a packed node.
func (e *encoder) list(v *store.Value) {
	n := 0
	v.Nodes(func([]byte) bool { n++; return true })
	e.buf = appendLen(e.buf, uint64(n))
	v.Nodes(func(lp []byte) bool {
		e.buf = appendLen(e.buf, containerPacked)
		e.str(lp)
		return true
	})
}

// Write writes the snapshot sn as a whole RDB file to w: the magic
// REDIS0010, aux fields, each database's SELECTDB and RESIZEDB and keys
// (with EXPIRETIME_MS, and IDLE when o.Idle and known), EOF and the CRC64. It does not
// close sn.
func Write(w io.Writer, sn *store.Snapshot, o Options) (Stats, error) {
	e := &encoder{w: w, buf: make([]byte, 0, 2*flushAt), crc: crcInit}
	e.c.on = o.Compress
	e.buf = append(e.buf, "REDIS00"+strconv.Itoa(Version)...)
	e.aux(o)
	var st Stats
	db := -1
	err := sn.Each(func(d int, v *store.Value) error {
		if d != db {
			db = d
			keys, expires := sn.DBSize(d)
			e.buf = appendLen(append(e.buf, opSelectDB), uint64(d))
			e.buf = appendLen(append(e.buf, opResizeDB), uint64(keys))
			e.buf = appendLen(e.buf, uint64(expires))
		}
		if v.ExpireAt != 0 {
			e.buf = binary.LittleEndian.AppendUint64(append(e.buf, opExpireTimeMs), uint64(v.ExpireAt))
			st.Expires++
		}
		if o.Idle && v.Idle > 0 {
			e.buf = appendLen(append(e.buf, opIdle), uint64(v.Idle))
		}
		if o.Freq {
			e.buf = append(e.buf, opFreq, v.Freq)
		}
		e.key(v)
		st.Keys++
		return e.err
	})
	if err != nil {
		return st, err
	}
	e.buf = append(e.buf, opEOF)
	e.flush()
	sum := crcSum(e.crc)
	if !o.Checksum {
		sum = 0
	}
	e.buf = binary.LittleEndian.AppendUint64(e.buf, sum)
	e.flush()
	st.Bytes = e.n
	return st, e.err
}

// key appends a key and its value: type byte, key, value.
func (e *encoder) key(v *store.Value) {
	t := rdbType(v)
	e.buf = append(e.buf, t)
	e.str(v.Key)
	e.body(t, v)
}

// aux appends the aux fields Redis 7.0 writes (redis-ver, redis-bits,
// ctime, used-mem, then aof-base), with o.Aux's extra fields before
// aof-base and its values overriding the standard ones.
func (e *encoder) aux(o Options) {
	now := o.Now
	if now == 0 {
		now = time.Now().UnixMilli()
	}
	std := [][2]string{{"redis-ver", redisVersion}, {"redis-bits", "64"},
		{"ctime", strconv.FormatInt(now/1000, 10)}, {"used-mem", strconv.FormatInt(o.UsedMem, 10)}}
	for _, kv := range std {
		e.auxField(kv[0], kv[1], o.Aux)
	}
	var extra []string
	for k := range o.Aux {
		if !slices.ContainsFunc(std, func(kv [2]string) bool { return kv[0] == k }) && k != "aof-base" {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	for _, k := range extra {
		e.auxField(k, o.Aux[k], nil)
	}
	e.auxField("aof-base", "0", o.Aux)
}

func (e *encoder) auxField(k, v string, override map[string]string) {
	if ov, ok := override[k]; ok {
		v = ov
	}
	e.buf = append(e.buf, opAux)
	e.str([]byte(k))
	e.str([]byte(v))
}

// WriteFile writes sn to path as Write does, safely: to a temporary file in
// the same directory, fsynced, then renamed over path, and the directory
// fsynced; a failure leaves the previous file untouched.
func WriteFile(path string, sn *store.Snapshot, o Options) (Stats, error) {
	dir := filepath.Dir(path)
	f, err := createTemp(dir)
	if err != nil {
		return Stats{}, err
	}
	tmp := f.Name()
	var w io.Writer = f
	if o.Yield {
		w = yieldingWriter{f}
	}
	st, err := Write(w, sn, o)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return st, err
	}
	return st, fsx.SyncDir(dir)
}

// tempSeq numbers this process's temporary RDB files.
var tempSeq atomic.Uint64

// createTemp creates a new temporary file in dir with mode 0666 less the
// umask, as Redis's fopen of temp-PID.rdb does (os.CreateTemp's 0600 would
// leave a dump.rdb only its owner can read, unlike redis-server's).
func createTemp(dir string) (*os.File, error) {
	for {
		name := filepath.Join(dir, "temp-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatUint(tempSeq.Add(1), 10)+".rdb")
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
}

// yieldingWriter calls runtime.Gosched after each write (Options.Yield).
type yieldingWriter struct{ w io.Writer }

func (y yieldingWriter) Write(p []byte) (int, error) {
	n, err := y.w.Write(p)
	runtime.Gosched()
	return n, err
}
