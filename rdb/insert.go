package rdb

import (
	"errors"
	"strconv"

	"github.com/loopkv/loopkv/store"
	"github.com/loopkv/loopkv/store/intset"
	"github.com/loopkv/loopkv/store/listpack"
)

// inserter puts decoded objects into a store; its scratch is reused.
type inserter struct {
	args [][]byte
	buf  []byte
}

// insert puts d.obj at key. With replace an existing key is replaced;
// otherwise it is ErrKeyExists. now is the Unix ms for the store's lazy
// expiry of an existing key.
func (in *inserter) insert(s *store.Store, db int, key []byte, d *decoder, expireAt int64, replace bool, now int64) error {
	if s.Exists(db, key, now) {
		if !replace {
			return ErrKeyExists
		}
		s.Del(db, key, now)
	}
	o := &d.obj
	if o.typ == store.TypeString {
		return statusErr(s.Set(db, key, d.bytes(o.blob), now, store.SetOptions{ExpireAt: expireAt}))
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

// collect lays d.obj out as the arguments of the store operation that
// builds it: elements, members, field value pairs, or score member pairs.
// Numbers are formatted into in.buf; a slice of it stays valid when later
// appends move in.buf, since the old array is not written again.
func (in *inserter) collect(d *decoder) {
	o := &d.obj
	in.args, in.buf = in.args[:0], in.buf[:0]
	switch {
	case o.enc == store.EncIntset:
		is := d.bytes(o.blob)
		for i := range intset.Len(is) {
			in.args = append(in.args, in.number(intset.Get(is, i)))
		}
	case o.enc == store.EncListpack:
		lp := d.bytes(o.blob)
		for off := listpack.First(lp); off >= 0; off = listpack.Next(lp, off) {
			s, v, isInt := listpack.Get(lp, off)
			if isInt {
				s = in.number(v)
			}
			in.args = append(in.args, s)
		}
		if o.typ == store.TypeZSet { // member, score pairs become score, member
			for i := 0; i+1 < len(in.args); i += 2 {
				in.args[i], in.args[i+1] = in.args[i+1], in.args[i]
			}
		}
	case o.typ == store.TypeZSet:
		for i, m := range o.items {
			start := len(in.buf)
			in.buf = store.AppendScore(in.buf, o.scores[i])
			in.args = append(in.args, in.buf[start:], d.bytes(m))
		}
	default:
		for _, it := range o.items {
			in.args = append(in.args, d.bytes(it))
		}
	}
}

// number formats v into in.buf and returns its text.
func (in *inserter) number(v int64) []byte {
	start := len(in.buf)
	in.buf = strconv.AppendInt(in.buf, v, 10)
	return in.buf[start:]
}

// statusErr maps a store status to an error.
func statusErr(st store.Status) error {
	if st == store.OK {
		return nil
	}
	return errors.New("store: " + st.String())
}
