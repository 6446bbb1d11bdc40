package aof

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/loopkv/loopkv/resp"
)

// command encodes args as a RESP multibulk command.
func command(args ...string) []byte {
	b := resp.AppendArrayLen(nil, len(args))
	for _, a := range args {
		b = resp.AppendBulkString(b, a)
	}
	return b
}

// replay loads the log in dir (on defaults) and returns its commands, each
// as its arguments joined by spaces. An RDB base is read to its end and
// reported as "<rdb N bytes>".
func replay(t *testing.T, o Options) ([]string, LoadStats, error) {
	t.Helper()
	l, err := Open(o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer l.Close()
	var got []string
	st, err := l.Load(func(r io.Reader, rdb bool) error {
		b, err := io.ReadAll(r)
		got = append(got, fmt.Sprintf("<rdb %d bytes>", len(b)))
		return err
	}, func(args [][]byte) error {
		got = append(got, string(bytes.Join(args, []byte(" "))))
		return nil
	})
	return got, st, err
}

// readManifestFile returns the manifest's text.
func readManifestFile(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestOpenCreatesIncrAndReloads(t *testing.T) {
	for _, p := range []Fsync{Always, EverySec, No} {
		t.Run(p.String(), func(t *testing.T) {
			dir := t.TempDir()
			l, err := Open(Options{Dir: dir, Fsync: p})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := readManifestFile(t, dir), "file appendonly.aof.1.incr.aof seq 1 type i\n"; got != want {
				t.Fatalf("manifest %q, want %q", got, want)
			}
			var want []string
			for i := range 100 {
				k := fmt.Sprintf("k%d", i)
				if seq := l.Append(command("SET", k, "v")); seq != uint64(i+1) {
					t.Fatalf("Append #%d returned %d", i, seq)
				}
				want = append(want, "SET "+k+" v")
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if l.Durable() != 100 {
				t.Errorf("Durable after Close = %d, want 100", l.Durable())
			}
			got, st, err := replay(t, Options{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("reloaded %d commands, want %d: %q", len(got), len(want), got)
			}
			if st.Commands != 100 || st.Files != 1 || st.Truncated {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func TestOpenWithInitialBase(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(Options{Dir: dir, InitialBase: func(w io.Writer) error {
		_, err := w.Write(command("SET", "base", "1"))
		return err
	}})
	if err != nil {
		t.Fatal(err)
	}
	l.Append(command("SET", "incr", "2"))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	want := "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"
	if got := readManifestFile(t, dir); got != want {
		t.Fatalf("manifest %q, want %q", got, want)
	}
	got, _, err := replay(t, Options{Dir: dir})
	if err != nil || strings.Join(got, ",") != "SET base 1,SET incr 2" {
		t.Fatalf("replay = %q, %v", got, err)
	}
}

// TestGroupCommitDurableSurvivesCrash appends from many goroutines with
// Always and copies the files while appends go on, as a crash would leave
// them: every append whose sequence Durable covered before the copy must be
// in the copy, once.
func TestGroupCommitDurableSurvivesCrash(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(Options{Dir: dir, Fsync: Always})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const goroutines, each = 8, 200
	seqs := make([][]uint64, goroutines)
	var wg sync.WaitGroup
	copied := make(chan struct{})
	var durable uint64
	crash := filepath.Join(t.TempDir(), "crash")
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				seqs[g] = append(seqs[g], l.Append(command("SET", fmt.Sprintf("g%d:%d", g, i), "x")))
				if g == 0 && i == each/2 {
					for l.Durable() < seqs[0][each/4] { // let the writer catch up a little
						runtime.Gosched()
					}
					durable = l.Durable()
					copyDir(t, filepath.Join(dir, "appendonlydir"), filepath.Join(crash, "appendonlydir"))
					close(copied)
				}
			}
		})
	}
	wg.Wait()
	<-copied
	got, _, err := replay(t, Options{Dir: crash, LoadTruncated: true})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, c := range got {
		seen[c]++
	}
	lost := 0
	for g := range goroutines {
		for i, s := range seqs[g] {
			c := fmt.Sprintf("SET g%d:%d x", g, i)
			if seen[c] > 1 {
				t.Fatalf("%q loaded %d times", c, seen[c])
			}
			if s <= durable && seen[c] == 0 {
				lost++
			}
		}
	}
	if lost > 0 || durable == 0 {
		t.Fatalf("%d durable appends (seq <= %d) missing after the crash", lost, durable)
	}
	t.Logf("durable %d of %d at the copy, %d commands in it", durable, goroutines*each, len(got))
}

// copyDir copies the regular files of src into a new dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Error(err)
		return
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Error(err)
		return
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err == nil {
			err = os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644)
		}
		if err != nil {
			t.Error(err)
		}
	}
}

func TestOpenRefusesBadNames(t *testing.T) {
	for _, o := range []Options{
		{FileName: "d/appendonly.aof"},
		{DirName: "a/b"},
		{FileName: strings.Repeat("n", 201)},
	} {
		o.Dir = t.TempDir()
		if l, err := Open(o); err == nil {
			l.Close()
			t.Errorf("Open(%+v) succeeded", o)
		}
	}
	// The longest name, quoted byte by byte, still makes lines Redis reads.
	dir := t.TempDir()
	l, err := Open(Options{Dir: dir, FileName: strings.Repeat("\x01", 200)})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	b, _ := os.ReadFile(filepath.Join(dir, "appendonlydir", strings.Repeat("\x01", 200)+".manifest"))
	if m, err := parseManifest("m", b); err != nil || len(m.incr) != 1 {
		t.Fatalf("manifest %q: %v", b, err)
	}
}

func TestOpenUpgradesAnOldSingleFileAOF(t *testing.T) {
	dir := t.TempDir()
	old := string(command("SET", "old", "1"))
	if err := os.WriteFile(filepath.Join(dir, "appendonly.aof"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	l.Append(command("SET", "new", "2"))
	l.Close()
	want := "file appendonly.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"
	if got := readManifestFile(t, dir); got != want {
		t.Fatalf("manifest %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "appendonly.aof")); !os.IsNotExist(err) {
		t.Errorf("the old file is still beside the directory: %v", err)
	}
	got, _, err := replay(t, Options{Dir: dir})
	if err != nil || strings.Join(got, ",") != "SET old 1,SET new 2" {
		t.Fatalf("replay = %q, %v", got, err)
	}

	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "appendonly.aof"), []byte("REDIS0009..."), 0o644); err != nil {
		t.Fatal(err)
	}
	if l, err := Open(Options{Dir: dir}); err == nil {
		l.Close()
		t.Fatal("Open took an old AOF with an RDB preamble")
	}
}

func TestOpenDeletesHistoryFiles(t *testing.T) {
	full, _ := fiveSets()
	m := "file appendonly.aof.2.base.aof seq 2 type b\nfile appendonly.aof.1.base.aof seq 1 type h\n" +
		"file appendonly.aof.1.incr.aof seq 1 type h\nfile appendonly.aof.2.incr.aof seq 2 type i\n"
	dir := writeDir(t, m, "appendonly.aof.2.base.aof", full, "appendonly.aof.1.base.aof", "junk",
		incr1, "junk", incr2, "")
	got, _, err := replay(t, Options{Dir: dir})
	if err != nil || len(got) != 5 {
		t.Fatalf("replay = %q, %v", got, err)
	}
	want := "file appendonly.aof.2.base.aof seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n"
	if man := readManifestFile(t, dir); man != want {
		t.Fatalf("manifest %q, want %q", man, want)
	}
	for _, f := range []string{"appendonly.aof.1.base.aof", incr1} {
		if _, err := os.Stat(filepath.Join(dir, "appendonlydir", f)); !os.IsNotExist(err) {
			t.Errorf("history file %s left: %v", f, err)
		}
	}
}
