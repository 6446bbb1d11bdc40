package aof

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeDir writes an AOF directory under a new server dir: the manifest
// and files, each name followed by its content.
func writeDir(t testing.TB, manifest string, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	ad := filepath.Join(dir, "appendonlydir")
	if err := os.MkdirAll(ad, 0o755); err != nil {
		t.Fatal(err)
	}
	files = append(files, "appendonly.aof.manifest", manifest)
	for i := 0; i < len(files); i += 2 {
		if err := os.WriteFile(filepath.Join(ad, files[i]), []byte(files[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const (
	incr1 = "appendonly.aof.1.incr.aof"
	incr2 = "appendonly.aof.2.incr.aof"
	base1 = "appendonly.aof.1.base.aof"
)

var manifestIncr1 = "file " + incr1 + " seq 1 type i\n"

// fiveSets is an incr file of five SETs, and the offsets where each starts.
func fiveSets() (string, []int) {
	var b []byte
	var starts []int
	for i := range 5 {
		starts = append(starts, len(b))
		b = append(b, command("SET", fmt.Sprintf("k%d", i), "v")...)
	}
	return string(b), starts
}

func wantLoadError(t *testing.T, err error, file string, off int64, reason string) {
	t.Helper()
	var le *LoadError
	if !errors.As(err, &le) || le.File != file || le.Offset != off || !strings.Contains(le.Error(), reason) {
		t.Fatalf("error %v, want a LoadError at %s offset %d containing %q", err, file, off, reason)
	}
}

func TestLoadTornTailAtEveryByte(t *testing.T) {
	full, starts := fiveSets()
	last := starts[4]
	for cut := last + 1; cut < len(full); cut++ {
		dir := writeDir(t, manifestIncr1, incr1, full[:cut])
		_, _, err := replay(t, Options{Dir: dir})
		wantLoadError(t, err, incr1, int64(last), "unexpected end of file")

		got, st, err := replay(t, Options{Dir: dir, LoadTruncated: true})
		if err != nil || len(got) != 4 {
			t.Fatalf("cut %d: LoadTruncated loaded %d commands, %v", cut, len(got), err)
		}
		if !st.Truncated || st.TruncatedFile != incr1 || st.TruncatedAt != int64(last) || st.TruncatedBytes != int64(cut-last) {
			t.Fatalf("cut %d: stats %+v", cut, st)
		}
		if size := fileSize(filepath.Join(dir, "appendonlydir", incr1)); size != int64(last) {
			t.Fatalf("cut %d: file is %d bytes after the cut, want %d", cut, size, last)
		}
	}
}

func TestLoadTruncatedThenAppendContinuesTheFile(t *testing.T) {
	full, starts := fiveSets()
	dir := writeDir(t, manifestIncr1, incr1, full[:starts[4]+7])
	l, err := Open(Options{Dir: dir, LoadTruncated: true})
	if err != nil {
		t.Fatal(err)
	}
	st, err := l.Load(nil, func([][]byte) error { return nil })
	if err != nil || st.Commands != 4 {
		t.Fatalf("Load = %+v, %v", st, err)
	}
	l.Append(command("SET", "after", "cut"))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got, _, err := replay(t, Options{Dir: dir})
	if err != nil || len(got) != 5 || got[4] != "SET after cut" {
		t.Fatalf("replay = %q, %v", got, err)
	}
}

func TestLoadRefusesDamageInTheMiddle(t *testing.T) {
	full, starts := fiveSets()
	for _, truncate := range []bool{false, true} {
		bad := []byte(full)
		bad[starts[2]+4] = 'x' // "$3" of the SET becomes "x3"
		dir := writeDir(t, manifestIncr1, incr1, string(bad))
		_, _, err := replay(t, Options{Dir: dir, LoadTruncated: truncate})
		wantLoadError(t, err, incr1, int64(starts[2]), "bad file format")

		bad = []byte(full)
		bad[starts[3]] = 'S' // not a multibulk
		dir = writeDir(t, manifestIncr1, incr1, string(bad))
		_, _, err = replay(t, Options{Dir: dir, LoadTruncated: truncate})
		wantLoadError(t, err, incr1, int64(starts[3]), "expected '*'")
	}
}

func TestLoadRefusesTornTailOfAnEarlierFile(t *testing.T) {
	full, starts := fiveSets()
	m := "file " + base1 + " seq 1 type b\n" + manifestIncr1
	dir := writeDir(t, m, base1, full[:starts[4]+3], incr1, full)
	_, _, err := replay(t, Options{Dir: dir, LoadTruncated: true})
	wantLoadError(t, err, base1, int64(starts[4]), "not the last file")
}

func TestLoadMissingListedFile(t *testing.T) {
	dir := writeDir(t, "file "+base1+" seq 1 type b\n"+manifestIncr1, incr1, "")
	_, _, err := replay(t, Options{Dir: dir})
	wantLoadError(t, err, base1, 0, "doesn't exist")
}

func TestOpenRefusesAMissingIncrFile(t *testing.T) {
	dir := writeDir(t, manifestIncr1)
	_, err := Open(Options{Dir: dir})
	wantLoadError(t, err, incr1, 0, "no such file")
}

func TestLoadMultiWithoutExecAtTheTail(t *testing.T) {
	full, _ := fiveSets()
	tx := string(command("MULTI")) + string(command("SET", "t", "1"))
	exec := string(command("EXEC"))
	for _, tail := range []string{tx, tx + exec[:3]} {
		dir := writeDir(t, manifestIncr1, incr1, full+tail)
		_, _, err := replay(t, Options{Dir: dir})
		wantLoadError(t, err, incr1, int64(len(full)), "")
		got, st, err := replay(t, Options{Dir: dir, LoadTruncated: true})
		if err != nil || len(got) != 5 || !st.RevertedMulti || st.TruncatedAt != int64(len(full)) {
			t.Fatalf("tail %q: got %q, %+v, %v", tail, got, st, err)
		}
		if size := fileSize(filepath.Join(dir, "appendonlydir", incr1)); size != int64(len(full)) {
			t.Fatalf("file is %d bytes after the revert, want %d", size, len(full))
		}
	}
	dir := writeDir(t, manifestIncr1, incr1, tx+exec+full)
	got, _, err := replay(t, Options{Dir: dir})
	if err != nil || strings.Join(got[:3], ",") != "MULTI,SET t 1,EXEC" || len(got) != 8 {
		t.Fatalf("complete transaction: %q, %v", got, err)
	}
}

func TestLoadSkipsAnnotationsAndRefusesEmptyCommands(t *testing.T) {
	full, _ := fiveSets()
	dir := writeDir(t, manifestIncr1, incr1, "#TS:1700000000\r\n"+full+"#TS:1700000001")
	got, _, err := replay(t, Options{Dir: dir})
	if err != nil || len(got) != 5 {
		t.Fatalf("annotations: %q, %v", got, err)
	}
	for _, bad := range []string{"*0\r\n", "*-1\r\n", "*x\r\n"} {
		dir := writeDir(t, manifestIncr1, incr1, full+bad+full)
		_, _, err := replay(t, Options{Dir: dir, LoadTruncated: true})
		wantLoadError(t, err, incr1, int64(len(full)), "bad file format")
	}
}

func TestLoadReportsApplyErrorsWithOffset(t *testing.T) {
	full, starts := fiveSets()
	dir := writeDir(t, manifestIncr1, incr1, full)
	l, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	boom := errors.New("Unknown command")
	_, err = l.Load(nil, func(args [][]byte) error {
		if string(args[1]) == "k3" {
			return boom
		}
		return nil
	})
	wantLoadError(t, err, incr1, int64(starts[3]), "Unknown command")
	if !errors.Is(err, boom) {
		t.Errorf("error %v does not wrap apply's", err)
	}
}

var manifestTests = []struct {
	in, reason string
	line       int
}{
	{"", reasonEmpty, 0},
	{"file a seq 1 type b\n\n", reasonFormat, 2},
	{"   \t\n", reasonFormat, 1},
	{"file a seq 1 type b", reasonLongLine, 1}, // no LF
	{"file " + strings.Repeat("a", 1100) + " seq 1 type i\n", reasonLongLine, 1},
	{"file a seq 1 type\n", reasonFormat, 1},
	{"file a seq 1\n", reasonFormat, 1},
	{"file a seq 0 type i\n", reasonFormat, 1},
	{"file a seq x type i\n", reasonFormat, 1},
	{"file a seq 1 type \"\"\n", reasonFormat, 1},
	{"file \"a seq 1 type i\n", reasonFormat, 1},
	{"file d/a seq 1 type i\n", reasonPath, 1},
	{"file d\\\\a seq 1 type i\n", reasonPath, 1},
	{"file a seq 1 type b\nfile b seq 2 type b\n", reasonDupBase, 2},
	{"file a seq 2 type i\nfile b seq 2 type i\n", reasonNonMonotone, 2},
	{"file a seq 1 type x\n", reasonUnknownType, 1},
	{"file a\x00 seq 1 type i\n", reasonLongLine, 1},
}

func TestParseManifestRefusesAsRedis(t *testing.T) {
	for i, tt := range manifestTests {
		_, err := parseManifest("m", []byte(tt.in))
		var me *ManifestError
		if !errors.As(err, &me) || me.Reason != tt.reason || me.Line != tt.line {
			t.Errorf("#%d: %q: error %v, want %q at line %d", i, tt.in, err, tt.reason, tt.line)
		}
	}
}

func TestParseManifestAcceptsAsRedis(t *testing.T) {
	in := "# comment\n" +
		"FILE \"a b.rdb\" SEQ 3 TYPE base extra key\n" + // keys without case, unknown keys, type's first byte
		"file 'h 1' seq 1 type h\r\n" +
		"file i.1 seq 5x type i\n" + // atoll stops at x
		"  file i.2 seq 7 type i  \n"
	m, err := parseManifest("m", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	got := string(appendManifest(nil, &m))
	want := "file \"a b.rdb\" seq 3 type b\nfile \"h 1\" seq 1 type h\nfile i.1 seq 5 type i\nfile i.2 seq 7 type i\n"
	if got != want || m.baseSeq != 3 || m.incrSeq != 7 {
		t.Fatalf("parsed %q (base seq %d, incr seq %d), want %q", got, m.baseSeq, m.incrSeq, want)
	}
}

func TestLoadReportsReadErrors(t *testing.T) {
	dir := writeDir(t, "file "+base1+" seq 1 type b\n"+manifestIncr1, incr1, "")
	if err := os.Mkdir(filepath.Join(dir, "appendonlydir", base1), 0o755); err != nil {
		t.Fatal(err)
	}
	_, _, err := replay(t, Options{Dir: dir})
	wantLoadError(t, err, base1, 0, "unrecoverable error reading")
}

// TestLoadTruncatesABaseThatIsTheLastFile: a manifest listing only a base
// gets an incr file from Open, but the base is still the last file loaded,
// as in Redis, which loads before it opens an incr file.
func TestLoadTruncatesABaseThatIsTheLastFile(t *testing.T) {
	full, starts := fiveSets()
	dir := writeDir(t, "file "+base1+" seq 1 type b\n", base1, full[:starts[4]+3])
	got, st, err := replay(t, Options{Dir: dir, LoadTruncated: true})
	if err != nil || len(got) != 4 || st.TruncatedFile != base1 {
		t.Fatalf("replay = %d commands, %+v, %v", len(got), st, err)
	}
}
