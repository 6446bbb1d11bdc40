package rdb

import (
	"bytes"
	"errors"
	"strconv"
	"testing"

	"github.com/loopkv/loopkv/store"
	"github.com/loopkv/loopkv/store/listpack"
)

// streamItems lists a stream's entries and metadata for storeDump.
func streamItems(s *store.Store, db int, key []byte, now int64) []string {
	var items []string
	r := store.StreamReply{
		Entry: func(dst []byte, id store.StreamID, n int) []byte {
			items = append(items, id.String()+"/"+strconv.Itoa(n))
			return dst
		},
		Elem: func(dst, b []byte) []byte { items = append(items, string(b)); return dst },
	}
	s.XRange(db, key, store.StreamID{}, store.MaxStreamID, -1, false, now, nil, r)
	s.XInfo(db, key, now, func(v *store.StreamInfo) {
		items = append(items, "len="+strconv.FormatInt(v.Length, 10), "last="+v.LastID.String(), "first="+v.FirstID.String(),
			"maxdel="+v.MaxDeletedID.String(), "added="+strconv.FormatUint(v.EntriesAdded, 10))
	})
	return items
}

// streamSeeds builds streams of several shapes in s (keys s0 ...).
func streamSeeds(t testing.TB, s *store.Store) []string {
	t.Helper()
	add := func(key string, id store.StreamID, fv ...string) {
		var args [][]byte
		for _, f := range fv {
			args = append(args, []byte(f))
		}
		if _, _, st := s.XAdd(0, []byte(key), args, &store.XAddOptions{IDGiven: true, SeqGiven: true, ID: id}, 0); st != store.OK {
			t.Fatalf("XAdd %s %v: %v", key, id, st)
		}
	}
	add("s0", store.StreamID{Ms: 1, Seq: 1}, "a", "1")
	for i := range 250 {
		fv := []string{"f", strconv.Itoa(i), "g", "v"}
		if i%5 == 0 {
			fv = append(fv, "extra", "-12345")
		}
		add("s1", store.StreamID{Ms: uint64(1000 + i/3), Seq: uint64(i % 3)}, fv...)
	}
	s.XDel(0, []byte("s1"), []store.StreamID{{Ms: 1000, Seq: 0}, {Ms: 1010, Seq: 1}}, 0)
	s.XTrim(0, []byte("s1"), &store.XTrimOptions{Strategy: store.TrimMaxLen, MaxLen: 200}, 0)
	add("s2", store.StreamID{Ms: 5, Seq: 5}, "x", "y")
	s.XDel(0, []byte("s2"), []store.StreamID{{Ms: 5, Seq: 5}}, 0)
	s.XSetID(0, []byte("s2"), store.StreamID{Ms: 9, Seq: 0}, 10, store.StreamID{Ms: 6}, 0)
	return []string{"s0", "s1", "s2"}
}

// FuzzStreamRestore: any stream payload RESTOREs or is refused with an
// *Error naming an offset within it, never a panic; one accepted DUMPs
// and RESTOREs again to the same stream.
func FuzzStreamRestore(f *testing.F) {
	s := store.New(store.Options{})
	for _, k := range streamSeeds(f, s) {
		s.View(0, []byte(k), 0, func(v *store.Value) {
			p := DumpPayload(nil, v)
			f.Add(p[:len(p)-dumpTrailer]) // a valid stream
		})
	}
	f.Add([]byte{typeStreamLP, 0, 0, 0, 0, 0})                                             // an empty Redis 5 stream
	f.Add([]byte{typeStreamLP3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})                          // an empty Redis 7.2 stream
	f.Add([]byte{typeStreamLP2, 1, 16, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 7}) // a node cut short
	f.Fuzz(func(t *testing.T, body []byte) {
		p := resum(append(bytes.Clone(body), Version, 0, 0, 0, 0, 0, 0, 0, 0, 0))
		s := store.New(store.Options{Shards: 1, Databases: 1})
		err := Restore(s, 0, []byte("k"), p, 0, false)
		if err == ErrPayload && len(body) == 0 {
			return
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Offset < 0 || e.Offset > int64(len(body)) {
				t.Fatalf("error %v (%T)", err, err)
			}
			return
		}
		var q []byte
		if !s.View(0, []byte("k"), 0, func(v *store.Value) { q = DumpPayload(nil, v) }) {
			t.Fatal("restored key missing")
		}
		if err := Restore(s, 0, []byte("k2"), q, 0, false); err != nil {
			t.Fatalf("restore of the dump: %v", err)
		}
		a, b := storeDump(t, s, 0)["k"], storeDump(t, s, 0)["k2"]
		if a.Type != b.Type || strconv.Quote(join(a.Items)) != strconv.Quote(join(b.Items)) {
			t.Fatalf("dump of the restore differs:\n%v\n%v", a, b)
		}
	})
}

func join(items []string) string {
	var b bytes.Buffer
	for _, it := range items {
		b.WriteString(strconv.Quote(it))
	}
	return b.String()
}

// TestStreamNodeCorruptionIsRefusedWithOffset: each damage of a valid
// stream node (a count off, an lp-count off, IDs out of order, a field
// count past the end, flags unknown) is refused with an error naming a
// byte offset of the node.
func TestStreamNodeCorruptionIsRefusedWithOffset(t *testing.T) {
	s := store.New(store.Options{})
	streamSeeds(t, s)
	var lp []byte
	var master store.StreamID
	s.View(0, []byte("s1"), 0, func(v *store.Value) {
		v.StreamNodes(func(m store.StreamID, b []byte) bool { lp, master = bytes.Clone(b), m; return false })
	})
	if _, _, err := store.ValidateStreamNode(lp, master, store.StreamID{}, true); err != nil {
		t.Fatalf("the valid node: %v", err)
	}
	var offs []int
	for off := listpack.First(lp); off >= 0; off = listpack.Next(lp, off) {
		offs = append(offs, off)
	}
	bad := 0
	for i := range offs {
		for _, v := range []int64{-1, 3, 1000} {
			b := listpack.ReplaceInt(bytes.Clone(lp), offs[i], v)
			_, _, err := store.ValidateStreamNode(b, master, store.StreamID{}, true)
			if err == nil {
				continue // some integers may take another valid value (a field named 3)
			}
			bad++
			var ce *listpack.CorruptError
			if !errors.As(err, &ce) || ce.Offset < 0 || ce.Offset > len(b) {
				t.Fatalf("entry %d = %d: %v, want a CorruptError with an offset", i, v, err)
			}
		}
	}
	if bad < len(offs) {
		t.Errorf("only %d of %d edits refused", bad, 3*len(offs))
	}
	for i := 1; i < len(lp); i++ {
		if _, _, err := store.ValidateStreamNode(lp[:i], master, store.StreamID{}, true); err == nil {
			t.Fatalf("prefix of %d bytes accepted", i)
		}
	}
}
