package rdb

import (
	"errors"

	"github.com/loopkv/loopkv/store"
)

// inserter puts decoded objects into a store; its scratch is reused.
type inserter struct {
	args   [][]byte
	nodes  [][]byte
	buf    []byte
	locked bool // the store is a Lock view of every shard: no lock of its own (LoadOptions.Locked)
}

// errEmpty is insert's answer for a value the store found empty.
var errEmpty = errors.New("rdb: empty value")

// insert puts d.obj at key with TTL expireAt. With replace an existing key
// is replaced; otherwise it is ErrKeyExists. now, when not 0, is the Unix
// ms at which an existing key counts as expired (and is deleted first).
// Strings and compact values go in whole (store.LoadString, LoadCompact,
// LoadList); hash tables, skiplists and plain lists are built with one
// store operation on a key that does not exist yet.
func (in *inserter) insert(s *store.Store, db int, key []byte, d *decoder, expireAt int64, replace bool, now int64) error {
	if now != 0 {
		s.Exists(db, key, now) // deletes key if it has expired
	}
	o := &d.obj
	switch {
	case o.typ == store.TypeString:
		switch st := s.LoadString(db, key, d.bytes(o.blob), expireAt, replace); st {
		case store.OK:
			return nil
		case store.NotSet:
			return ErrKeyExists
		default:
			return statusErr(st)
		}
	case o.typ == store.TypeStream:
		in.nodes = in.nodes[:0]
		for _, n := range o.nodes {
			in.nodes = append(in.nodes, d.bytes(n))
		}
		return loadErr(s.LoadStream(db, key, o.stream, o.masters, in.nodes, expireAt, replace))
	case o.enc != 0:
		return loadErr(s.LoadCompact(db, key, o.typ, o.enc, d.bytes(o.blob), expireAt, replace))
	case len(o.nodes) > 0:
		in.nodes = in.nodes[:0]
		for _, n := range o.nodes {
			in.nodes = append(in.nodes, d.bytes(n))
		}
		return loadErr(s.LoadList(db, key, in.nodes, expireAt, replace))
	}
	// One lock over the check, the build and the TTL: no client sees the
	// key half built or without its TTL.
	if !in.locked {
		s = s.Lock([][]byte{key}, false)
		defer s.Unlock()
	}
	if s.Exists(db, key, now) {
		if !replace {
			return ErrKeyExists
		}
		s.Del(db, key, now)
	}
	in.collect(d)
	var st store.Status
	switch o.typ {
	case store.TypeList:
		_, st = s.LPush(db, key, store.ListTail, in.args, false, now)
	case store.TypeSet:
		_, st = s.SAdd(db, key, in.args, now)
	case store.TypeHash:
		_, st = s.HSet(db, key, in.args, now)
	case store.TypeZSet:
		_, st = s.ZAdd(db, key, 0, in.args, now)
	}
	if err := statusErr(st); err != nil {
		s.Del(db, key, now)
		return err
	}
	if expireAt != 0 {
		s.Expire(db, key, now, expireAt, 0)
	}
	return nil
}

// collect lays d.obj's items out as the arguments of the store operation
// that builds it: elements, members, field value pairs, or score member
// pairs. Scores are formatted into in.buf; a slice of it stays valid when
// later appends move in.buf, since the old array is not written again.
func (in *inserter) collect(d *decoder) {
	o := &d.obj
	in.args, in.buf = in.args[:0], in.buf[:0]
	if o.typ != store.TypeZSet {
		for _, it := range o.items {
			in.args = append(in.args, d.bytes(it))
		}
		return
	}
	for i, m := range o.items {
		start := len(in.buf)
		in.buf = store.AppendScore(in.buf, o.scores[i])
		in.args = append(in.args, in.buf[start:], d.bytes(m))
	}
}

// loadErr maps the store's load errors to this package's.
func loadErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrKeyExists):
		return ErrKeyExists
	case errors.Is(err, store.ErrEmptyValue):
		return errEmpty
	}
	return err
}

// statusErr maps a store status to an error.
func statusErr(st store.Status) error {
	if st == store.OK {
		return nil
	}
	return errors.New("store refused the value: " + st.String())
}
