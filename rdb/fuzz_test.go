package rdb

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"testing"

	"github.com/loopkv/loopkv/store"
)

// FuzzLoad: Load never panics on any file, fails only with an *Error, and
// what it loads writes out and loads back to the same keys.
func FuzzLoad(f *testing.F) {
	f.Add(writtenFile(f, Options{Compress: true, Checksum: true}))
	f.Add(writtenFile(f, Options{}))
	f.Add(oldFile(f))
	f.Add([]byte("REDIS0010\xfe\x00\x00\x01k\x01v\xff\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, p []byte) {
		s := store.New(store.Options{Shards: 1, Databases: 16})
		_, err := Load(bytes.NewReader(p), s, LoadOptions{})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Offset < 0 || e.Offset > int64(len(p)) {
				t.Fatalf("error %v (%T)", err, err)
			}
			return
		}
		sn := s.Snapshot()
		var b bytes.Buffer
		_, err = Write(&b, sn, Options{Compress: true, Checksum: true})
		sn.Close()
		if err != nil {
			t.Fatal(err)
		}
		s2 := store.New(store.Options{Shards: 1, Databases: 16})
		if _, err := Load(&b, s2, LoadOptions{}); err != nil {
			t.Fatalf("reload: %v", err)
		}
		for db := range 16 {
			if a, b := canon(t, s, db), canon(t, s2, db); a != b {
				t.Fatalf("db %d: loaded %s\nreloaded %s", db, a, b)
			}
		}
	})
}

// FuzzRestore: Restore never panics on any value (its trailer made right),
// fails only with an *Error, and what it stores dumps and restores to the
// same value.
func FuzzRestore(f *testing.F) {
	s := store.New(store.Options{})
	fillStore(f, s)
	for k := range storeDump(f, s, 0) {
		s.View(0, []byte(k), 0, func(v *store.Value) {
			p := DumpPayload(nil, v)
			f.Add(p[:len(p)-dumpTrailer])
		})
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p := append(bytes.Clone(body), Version, 0, 0, 0, 0, 0, 0, 0, 0, 0)
		p = resum(p)
		s := store.New(store.Options{Shards: 1, Databases: 1})
		err := Restore(s, 0, []byte("k"), p, 0, false)
		if err == ErrPayload && len(body) == 0 { // no type byte: too short to be a payload
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
		d := storeDump(t, s, 0)
		if a, b := d["k"], d["k2"]; a.Type != b.Type || !slices.Equal(a.Items, b.Items) {
			t.Fatalf("restored %v, dumped and restored %v", a, b)
		}
	})
}

// FuzzZiplist: the ziplist and zipmap readers never panic nor read outside
// their input, and what they accept re-encodes to the same entries.
func FuzzZiplist(f *testing.F) {
	f.Add(buildZiplist("a", "1", "-70000", "hello", "9223372036854775807", string(make([]byte, 300)), "x"))
	f.Add(buildZiplist())
	f.Add(buildZipmap("f", "v", "long", string(make([]byte, 300)), "n", "1"))
	f.Fuzz(func(t *testing.T, p []byte) {
		var got []string
		if _, err := ziplistEach(p, func(s []byte, v int64, isInt bool) error {
			if isInt {
				got = append(got, strconv.FormatInt(v, 10))
			} else {
				got = append(got, string(s))
			}
			return nil
		}); err == nil {
			var again []string
			ziplistEach(buildZiplist(got...), func(s []byte, v int64, isInt bool) error {
				if isInt {
					again = append(again, strconv.FormatInt(v, 10))
				} else {
					again = append(again, string(s))
				}
				return nil
			})
			if !slices.Equal(got, again) {
				t.Fatalf("ziplist %q re-encodes as %q", got, again)
			}
		}
		var pairs []string
		if _, err := zipmapEach(p, func(k, v []byte) error {
			pairs = append(pairs, string(k), string(v))
			return nil
		}); err == nil {
			var again []string
			zipmapEach(buildZipmap(pairs...), func(k, v []byte) error {
				again = append(again, string(k), string(v))
				return nil
			})
			if !slices.Equal(pairs, again) {
				t.Fatalf("zipmap %q re-encodes as %q", pairs, again)
			}
		}
	})
}

// canon is a store's db as one comparable string.
func canon(t testing.TB, s *store.Store, db int) string {
	d := storeDump(t, s, db)
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b bytes.Buffer
	for _, k := range keys {
		v := d[k]
		b.WriteString(strconv.Quote(k) + " " + v.Type + " " + v.Enc + " " + strconv.Quote(strconv.Itoa(len(v.Items))))
		for _, it := range v.Items {
			b.WriteString(" " + strconv.Quote(it))
		}
		b.WriteString("\n")
	}
	return b.String()
}
