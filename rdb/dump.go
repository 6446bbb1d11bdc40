package rdb

import (
	"encoding/binary"
	"sync"
	"time"

	"github.com/loopkv/loopkv/store"
)

// dumpTrailer is a DUMP payload's trailer: RDB version (2 bytes) and CRC64 (8).
const dumpTrailer = 10

var encoders = sync.Pool{New: func() any { return &encoder{c: compressor{on: true}} }}

// DumpPayload appends v as DUMP serializes it to dst: the RDB type byte and
// value (LZF-compressed as with rdbcompression yes, Redis's default), the
// RDB version (2 bytes, little endian) and the CRC64 of all that (8 bytes,
// little endian).
func DumpPayload(dst []byte, v *store.Value) []byte {
	e := encoders.Get().(*encoder)
	e.buf = dst
	start := len(dst)
	t := rdbType(v)
	e.buf = append(e.buf, t)
	e.body(t, v)
	e.buf = binary.LittleEndian.AppendUint16(e.buf, Version)
	out := binary.LittleEndian.AppendUint64(e.buf, checksum(e.buf[start:]))
	e.buf = nil
	encoders.Put(e)
	return out
}

// Restore checks payload's RDB version and CRC64 (ErrPayload when either is
// wrong), decodes its value completely (an *Error for bad data, with the
// offset in the payload) and stores it at key with TTL expireAt (Unix ms, 0
// for none). When key exists it returns ErrKeyExists unless replace, which
// replaces it. A TTL already past stores nothing (and with replace deletes
// the old value), as RESTORE does.
func Restore(s *store.Store, db int, key, payload []byte, expireAt int64, replace bool) error {
	return RestoreAt(s, db, key, payload, expireAt, replace, time.Now().UnixMilli())
}

// RestoreAt is Restore with the caller's clock: now (Unix ms) decides
// whether expireAt has passed and whether an existing key has expired.
func RestoreAt(s *store.Store, db int, key, payload []byte, expireAt int64, replace bool, now int64) error {
	n := len(payload)
	if n < dumpTrailer+1 {
		return ErrPayload
	}
	ver := binary.LittleEndian.Uint16(payload[n-dumpTrailer:])
	if ver > maxReadVersion || checksum(payload[:n-8]) != binary.LittleEndian.Uint64(payload[n-8:]) {
		return ErrPayload
	}
	d := &decoder{r: newBytesReader(payload[:n-dumpTrailer])}
	t, err := d.r.byte("the value type")
	if err != nil {
		return err
	}
	if err := d.readValue(t); err != nil {
		return err
	}
	if d.obj.empty {
		return errAt(1, "empty "+d.obj.typ.String())
	}
	if expireAt != 0 && expireAt <= now {
		if s.Exists(db, key, now) {
			if !replace {
				return ErrKeyExists
			}
			s.Del(db, key, now)
		}
		return nil
	}
	var in inserter
	err = in.insert(s, db, key, d, expireAt, replace, now)
	if err == errEmpty {
		return errAt(1, "empty "+d.obj.typ.String())
	}
	return err
}
