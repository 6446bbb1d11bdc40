package rdb

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/loopkv/loopkv/store"
)

// writtenFile is a file Write makes from fillCommands' store.
func writtenFile(t testing.TB, o Options) []byte {
	t.Helper()
	s := store.New(store.Options{})
	fillStore(t, s)
	sn := s.Snapshot()
	defer sn.Close()
	var b bytes.Buffer
	if _, err := Write(&b, sn, o); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func loadErrOf(t *testing.T, p []byte) *Error {
	t.Helper()
	_, err := Load(bytes.NewReader(p), store.New(store.Options{Shards: 1}), LoadOptions{})
	if err == nil {
		return nil
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *rdb.Error", err)
	}
	return e
}

// TestLoadRefusesTruncated: every prefix of a file is refused, naming its
// end as the offset where data is missing.
func TestLoadRefusesTruncated(t *testing.T) {
	p := writtenFile(t, Options{Compress: true, Checksum: true})
	step := max(1, len(p)/150)
	for n := 0; n < len(p); n += step {
		e := loadErrOf(t, p[:n])
		if e == nil || e.Offset != int64(n) || !strings.Contains(e.Reason, "unexpected end") {
			t.Fatalf("truncated at %d of %d: %v", n, len(p), e)
		}
	}
	for n := len(p) - 12; n < len(p); n++ {
		if e := loadErrOf(t, p[:n]); e == nil || e.Offset != int64(n) {
			t.Fatalf("truncated at %d of %d: %v", n, len(p), e)
		}
	}
	if e := loadErrOf(t, p); e != nil {
		t.Fatalf("whole file: %v", e)
	}
}

// TestLoadRefusesBitFlips: a flipped bit anywhere is refused (by the
// checksum when nothing else notices), at or after the start of the item
// it damaged: a string, a member, or a whole listpack or intset (at most
// the 100 KB text's ~15 KB of LZF data in this file).
func TestLoadRefusesBitFlips(t *testing.T) {
	p := writtenFile(t, Options{Compress: true, Checksum: true})
	step := max(1, len(p)/150)
	for i := 0; i < len(p); i += step {
		q := bytes.Clone(p)
		q[i] ^= 1 << (i % 8)
		e := loadErrOf(t, q)
		if e == nil || e.Offset < int64(min(i, len(p)-8)-20000) {
			t.Fatalf("bit flip at %d of %d: %v", i, len(p), e)
		}
	}
	// The checksum itself damaged: refused at its offset.
	q := bytes.Clone(p)
	q[len(q)-1] ^= 0x80
	if e := loadErrOf(t, q); e == nil || e.Offset != int64(len(p)-8) || !strings.Contains(e.Reason, "checksum") {
		t.Fatalf("bad checksum: %v", e)
	}
	// A zero checksum (rdbchecksum no) is accepted, as Redis accepts it.
	clear(q[len(q)-8:])
	if e := loadErrOf(t, q); e != nil {
		t.Fatalf("zero checksum: %v", e)
	}
}

// TestLoadRefusesUnsupported: unknown types, module and stream values,
// functions and module aux data are refused at their offset, by name.
func TestLoadRefusesUnsupported(t *testing.T) {
	head := []byte("REDIS0010\xfe\x00")
	for _, c := range []struct {
		body []byte
		want string
	}{
		{[]byte{8, 1, 'k'}, "unknown value type 8"},
		{[]byte{typeStreamLP2, 1, 'k', 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, "stream consumer groups are not supported"},
		{[]byte{typeStreamLP2, 1, 'k', 1, 2, 'a', 'b'}, "stream node key is 2 bytes"},
		{[]byte{typeModule2, 1, 'k'}, "value type 7 (module) is not supported"},
		{[]byte{opModuleAux, 0}, "module auxiliary data"},
		{[]byte{opFunction2, 0}, "functions (opcode 245)"},
		{[]byte{0, 1, 'k', 0xC5}, "unknown string encoding 5"},
		{[]byte{opSelectDB, 16}, "database 16 is out of range"},
		{[]byte{typeSetIntset, 1, 'k', 8, 2, 0, 0, 0, 0, 0, 0, 0}, "empty"},
	} {
		p := append(bytes.Clone(head), c.body...)
		p = append(p, opEOF, 0, 0, 0, 0, 0, 0, 0, 0)
		e := loadErrOf(t, p)
		if c.want == "empty" { // an empty value is skipped, as Redis skips it
			if e != nil {
				t.Errorf("empty intset: %v", e)
			}
			continue
		}
		if e == nil || e.Offset < int64(len(head)) || !strings.Contains(e.Error(), c.want) {
			t.Errorf("%x: %v, want %q at offset >= %d", c.body, e, c.want, len(head))
		}
	}
	if e := loadErrOf(t, []byte("REDIS0012")); e == nil || e.Offset != 5 || !strings.Contains(e.Reason, "version") {
		t.Errorf("version 12: %v", e)
	}
	if e := loadErrOf(t, []byte("RADIS0010")); e == nil || e.Offset != 0 {
		t.Errorf("bad magic: %v", e)
	}
}

// TestLoadRefusesDuplicates: a key twice, or a repeated member or field, is
// refused; with Replace the second key wins.
func TestLoadRefusesDuplicates(t *testing.T) {
	head := []byte("REDIS0010\xfe\x00")
	tail := []byte{opEOF, 0, 0, 0, 0, 0, 0, 0, 0}
	twice := append(append(bytes.Clone(head), 0, 1, 'k', 1, 'a', 0, 1, 'k', 1, 'b'), tail...)
	if e := loadErrOf(t, twice); e == nil || e.Offset != 16 || !strings.Contains(e.Reason, "duplicate key") {
		t.Errorf("key twice: %v", e)
	}
	s := store.New(store.Options{})
	if _, err := Load(bytes.NewReader(twice), s, LoadOptions{Replace: true}); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Get(0, []byte("k"), 0, nil, func(d, v []byte) []byte { return append(d, v...) }); string(v) != "b" {
		t.Errorf("replaced value %q", v)
	}
	set := append(append(bytes.Clone(head), typeSet, 1, 's', 2, 1, 'm', 1, 'm'), tail...)
	if e := loadErrOf(t, set); e == nil || !strings.Contains(e.Reason, "duplicate members") {
		t.Errorf("set member twice: %v", e)
	}
}
