package rdb

import (
	"encoding/binary"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/loopkv/loopkv/store"
)

// LoadOptions control Load.
type LoadOptions struct {
	// Now is the Unix ms time against which TTLs are judged: keys that
	// expired before it are skipped, as a Redis master skips them on load.
	// 0 loads every key (an AOF base, a replica).
	Now int64
	// Replace lets a key already in the store, or twice in the file, be
	// replaced; otherwise it is an error, as Redis refuses a file with a
	// duplicated key.
	Replace bool
	// NoChecksum skips the check of the CRC64 trailer, as Redis skips it
	// under rdbchecksum no.
	NoChecksum bool
	// Locked says that the store is a Lock view holding every shard
	// (store.Lock(nil, true)), into which Load builds each key without a
	// lock of its own.
	Locked bool
	// Aux, when set, is given each auxiliary field as it is read (Redis
	// reads used-mem into loading_rdb_used_mem so); the bytes alias the
	// loader's buffer until Aux returns.
	Aux func(key, value []byte)
	// Key, when set, is called after each key of the file, loaded or
	// skipped, with the counts so far: the load's pace and progress (Redis's
	// key-load-delay and rdb_last_load_keys_loaded as it grows). An error
	// stops the load; Load returns it as it is.
	Key func(loaded, expired int64) error
}

// Stats describe a Write or a Load.
type Stats struct {
	Keys    int64             // keys written or loaded
	Expires int64             // of Keys, those with a TTL
	Expired int64             // load: keys skipped because they had expired
	Empty   int64             // load: empty collections skipped, as Redis skips them
	Bytes   int64             // bytes written or read, checksum included
	Version int               // load: the file's RDB version
	Aux     map[string]string // load: the file's auxiliary fields
}

// LoadFile loads the RDB file at path into s; see Load.
func LoadFile(path string, s *store.Store, o LoadOptions) (Stats, error) {
	f, err := os.Open(path)
	if err != nil {
		return Stats{}, err
	}
	defer f.Close()
	return Load(f, s, o)
}

// Load reads a whole RDB stream (magic, aux fields, databases, EOF and
// checksum) into s. Each value is decoded and checked completely before it
// is inserted, so a fault never leaves half a key; the keys before it stay
// loaded, and the caller (which refuses to start) decides what to do. Faults
// in the data are *Error values naming the offset of the damage. A stored
// checksum of zero (rdbchecksum no) is accepted, as Redis accepts it.
func Load(r io.Reader, s *store.Store, o LoadOptions) (Stats, error) {
	l := loader{d: decoder{r: newStreamReader(r)}, s: s, o: o, ins: inserter{locked: o.Locked}}
	err := l.run()
	l.st.Bytes = l.d.r.offset()
	return l.st, err
}

// loader is the state of one Load.
type loader struct {
	d   decoder
	s   *store.Store
	o   LoadOptions
	st  Stats
	ins inserter
}

func (l *loader) run() error {
	if err := l.header(); err != nil {
		return err
	}
	r := l.d.r
	db := 0
	var expireAt int64
	idle, freq := int64(-1), int64(-1) // the key's IDLE and FREQ, when the file gives them
	for {
		at := r.offset()
		t, err := r.byte("an opcode")
		if err != nil {
			return err
		}
		switch t {
		case opEOF:
			return l.trailer()
		case opExpireTimeMs:
			p, err := r.next(8, "an expire time")
			if err != nil {
				return err
			}
			expireAt = int64(binary.LittleEndian.Uint64(p))
		case opExpireTime:
			p, err := r.next(4, "an expire time")
			if err != nil {
				return err
			}
			expireAt = int64(int32(binary.LittleEndian.Uint32(p))) * 1000
		case opFreq:
			b, err := r.byte("an LFU frequency")
			if err != nil {
				return err
			}
			freq = int64(b)
		case opIdle:
			n, err := r.readCount("an LRU idle time")
			if err != nil {
				return err
			}
			idle = int64(min(n, 1<<40))
		case opSelectDB:
			n, err := r.readCount("a database number")
			if err != nil {
				return err
			}
			if n >= uint64(l.s.Databases()) {
				return errAt(at, "database "+strconv.FormatUint(n, 10)+" is out of range (databases "+
					strconv.Itoa(l.s.Databases())+")")
			}
			db = int(n)
		case opResizeDB:
			if _, err := r.readCount("a RESIZEDB size"); err != nil {
				return err
			}
			if _, err := r.readCount("a RESIZEDB size"); err != nil {
				return err
			}
		case opAux:
			if err := l.aux(); err != nil {
				return err
			}
		case opModuleAux:
			return errAt(at, "module auxiliary data (opcode 247) is not supported")
		case opFunction2, opFunctionPre:
			return errAt(at, "functions (opcode "+strconv.Itoa(int(t))+") are not supported")
		default:
			if err := l.key(db, t, at, expireAt, idle, freq); err != nil {
				return err
			}
			expireAt, idle, freq = 0, -1, -1
			if l.o.Key != nil {
				if err := l.o.Key(l.st.Keys, l.st.Expired); err != nil {
					return err
				}
			}
		}
	}
}

// header checks the magic "REDIS" and a four-digit version.
func (l *loader) header() error {
	p, err := l.d.r.next(9, "the header")
	if err != nil {
		return err
	}
	if string(p[:5]) != "REDIS" {
		return errAt(0, "not an RDB file (no REDIS magic)")
	}
	v, err := strconv.Atoi(string(p[5:]))
	if err != nil || v < 1 || v > maxReadVersion {
		return errAt(5, "unsupported RDB version "+strconv.Quote(string(p[5:])))
	}
	l.st.Version = v
	return nil
}

// trailer checks the CRC64 after EOF (RDB version 5 and later).
func (l *loader) trailer() error {
	if l.st.Version < 5 {
		return nil
	}
	want := l.d.r.sum()
	at := l.d.r.offset()
	p, err := l.d.r.next(8, "the checksum")
	if err != nil {
		return err
	}
	if got := binary.LittleEndian.Uint64(p); got != 0 && got != want && !l.o.NoChecksum {
		return errAt(at, "checksum "+strconv.FormatUint(got, 16)+" does not match the data's "+strconv.FormatUint(want, 16))
	}
	return nil
}

// aux reads an AUX field into the stats.
func (l *loader) aux() error {
	l.d.reset()
	k, err := l.d.str("an aux field name")
	if err != nil {
		return err
	}
	v, err := l.d.str("an aux field value")
	if err != nil {
		return err
	}
	if l.st.Aux == nil {
		l.st.Aux = map[string]string{}
	}
	kb, vb := l.d.bytes(k), l.d.bytes(v)
	l.st.Aux[string(kb)] = string(vb)
	if l.o.Aux != nil {
		l.o.Aux(kb, vb)
	}
	return nil
}

// key reads a key and its value of type t (whose type byte was at at) and
// inserts it with TTL expireAt and, when given (>= 0), its LRU idle time
// in seconds or its LFU counter, whichever the store keeps.
func (l *loader) key(db int, t byte, at, expireAt, idle, freq int64) error {
	d := &l.d
	d.reset()
	k, err := d.str("a key")
	if err != nil {
		return err
	}
	if err := d.readValue(t); err != nil {
		return err
	}
	switch {
	case d.obj.empty:
		l.st.Empty++
		return nil
	case expireAt != 0 && l.o.Now != 0 && expireAt < l.o.Now:
		l.st.Expired++
		return nil
	}
	key := d.bytes(k)
	if err := l.ins.insert(l.s, db, key, d, expireAt, l.o.Replace, l.o.Now); err != nil {
		if err == errEmpty {
			l.st.Empty++
			return nil
		}
		if err == ErrKeyExists {
			return errAt(at, "duplicate key "+strconv.Quote(string(key))+" in database "+strconv.Itoa(db))
		}
		return errAt(at, "key "+strconv.Quote(string(key))+": "+err.Error())
	}
	// as Redis's objectSetLRUOrLFU: FREQ when the store counts accesses
	// (an LFU policy), IDLE otherwise; the other one is ignored
	if lfu := l.s.LFU(); (lfu && freq >= 0) || (!lfu && idle >= 0) {
		now := l.o.Now
		if now == 0 {
			now = time.Now().UnixMilli()
		}
		if lfu {
			l.s.SetFreq(db, key, now, freq)
		} else {
			l.s.SetIdle(db, key, now, idle)
		}
	}
	l.st.Keys++
	if expireAt != 0 {
		l.st.Expires++
	}
	return nil
}
