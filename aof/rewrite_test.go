package aof

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// model is a keyspace whose writes are appended to a log under one lock,
// the barrier a server holds when it snapshots and calls Rewrite.
type model struct {
	mu   sync.Mutex
	kv   map[string]string
	l    *Log
	errs []error
}

func (m *model) set(k, v string) {
	m.mu.Lock()
	m.kv[k] = v
	m.l.Append(command("SET", k, v))
	m.mu.Unlock()
}

// rewrite snapshots the keyspace and starts a rewrite writing it as SETs.
func (m *model) rewrite(fail error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	snap := maps.Clone(m.kv)
	return m.l.Rewrite(func(w io.Writer) error {
		for _, k := range slices.Sorted(maps.Keys(snap)) {
			if _, err := w.Write(command("SET", k, snap[k])); err != nil {
				return err
			}
		}
		return fail
	})
}

// waitRewrite waits until no rewrite runs.
func waitRewrite(l *Log) Info {
	for {
		if in := l.Info(); !in.RewriteInProgress {
			return in
		}
		runtime.Gosched()
	}
}

func TestRewriteWhileAppendingLosesAndDuplicatesNothing(t *testing.T) {
	for _, p := range []Fsync{Always, EverySec} {
		t.Run(p.String(), func(t *testing.T) {
			dir := t.TempDir()
			l, err := Open(Options{Dir: dir, Fsync: p})
			if err != nil {
				t.Fatal(err)
			}
			m := &model{kv: map[string]string{}, l: l}
			const goroutines, each = 4, 300
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					for i := range each {
						m.set(fmt.Sprintf("g%d:%d", g, i), "v")
					}
				})
			}
			for range 3 {
				if err := m.rewrite(nil); err != nil {
					t.Fatal(err)
				}
				if in := waitRewrite(l); !in.LastRewriteOK {
					t.Fatalf("rewrite failed: %v", in.LastRewriteErr)
				}
			}
			wg.Wait()
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			got, _, err := replay(t, Options{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for _, c := range got {
				seen[c]++
			}
			for k := range m.kv {
				if n := seen["SET "+k+" v"]; n != 1 {
					t.Errorf("%s loaded %d times", k, n)
				}
			}
			if len(got) != len(m.kv) {
				t.Errorf("loaded %d commands for %d keys", len(got), len(m.kv))
			}
			want := "file appendonly.aof.3.base.aof seq 3 type b\nfile appendonly.aof.4.incr.aof seq 4 type i\n"
			if man := readManifestFile(t, dir); man != want {
				t.Errorf("manifest %q, want %q", man, want)
			}
			ents, _ := os.ReadDir(filepath.Join(dir, "appendonlydir"))
			if len(ents) != 3 {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Errorf("directory holds %q, want the manifest, the base and the incr file", names)
			}
		})
	}
}

func TestRewriteFailureKeepsOldManifestAndNewIncr(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	m := &model{kv: map[string]string{}, l: l}
	m.set("a", "1")
	if err := m.rewrite(errors.New("disk on fire")); err != nil {
		t.Fatal(err)
	}
	m.set("b", "2")
	in := waitRewrite(l)
	if in.LastRewriteOK || in.RewritesConsecutiveFailures != 1 || in.LastRewriteErr == nil {
		t.Fatalf("info after a failed rewrite: %+v", in)
	}
	want := "file appendonly.aof.1.incr.aof seq 1 type i\nfile appendonly.aof.2.incr.aof seq 2 type i\n"
	if man := readManifestFile(t, dir); man != want {
		t.Fatalf("manifest %q, want %q", man, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "appendonlydir", tempBaseName())); !os.IsNotExist(err) {
		t.Errorf("temporary base left behind: %v", err)
	}
	if err := m.rewrite(nil); err != nil {
		t.Fatal(err)
	}
	m.set("c", "3")
	if in := waitRewrite(l); !in.LastRewriteOK || in.Rewrites != 1 || in.RewritesConsecutiveFailures != 0 {
		t.Fatalf("info after a good rewrite: %+v", in)
	}
	l.Close()
	want = "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.3.incr.aof seq 3 type i\n"
	if man := readManifestFile(t, dir); man != want {
		t.Fatalf("manifest %q, want %q", man, want)
	}
	got, _, err := replay(t, Options{Dir: dir})
	if err != nil || strings.Join(got, ",") != "SET a 1,SET b 2,SET c 3" {
		t.Fatalf("replay = %q, %v", got, err)
	}
}

func TestRewriteRefusesASecondOne(t *testing.T) {
	l, err := Open(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	if err := l.Rewrite(func(io.Writer) error { <-release; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := l.Rewrite(func(io.Writer) error { return nil }); err != ErrRewriteInProgress {
		t.Errorf("second Rewrite = %v, want ErrRewriteInProgress", err)
	}
	if in := l.Info(); !in.RewriteInProgress || in.CurrentRewriteTimeSec < 0 {
		t.Errorf("info during a rewrite: %+v", in)
	}
	close(release)
	waitRewrite(l)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Rewrite(func(io.Writer) error { return nil }); err != ErrClosed {
		t.Errorf("Rewrite after Close = %v, want ErrClosed", err)
	}
}

func TestBaseInBackgroundHoldsDurableUntilTheManifest(t *testing.T) {
	dir := t.TempDir()
	release := make(chan error)
	l, err := Open(Options{Dir: dir, Fsync: Always, BaseInBackground: true, InitialBase: func(w io.Writer) error {
		if _, err := w.Write(command("SET", "snap", "1")); err != nil {
			return err
		}
		return <-release
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Append(command("SET", "during", "1"))
	if in := l.Info(); !in.WaitRewrite || !in.RewriteInProgress || l.Durable() != 0 {
		t.Fatalf("while the first base is written: durable %d, info %+v", l.Durable(), in)
	}
	if _, err := os.Stat(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest")); !os.IsNotExist(err) {
		t.Fatalf("manifest written before the base: %v", err)
	}
	release <- errors.New("no space") // the first base fails; the log keeps waiting
	if in := waitRewrite(l); !in.WaitRewrite || in.LastRewriteOK || l.Durable() != 0 {
		t.Fatalf("after a failed first base: durable %d, %+v", l.Durable(), in)
	}
	m := &model{kv: map[string]string{"snap": "1", "during": "1"}, l: l}
	if err := m.rewrite(nil); err != nil { // the retry, from a new snapshot
		t.Fatal(err)
	}
	seq := l.Append(command("SET", "after", "1"))
	for l.Durable() < seq {
		runtime.Gosched()
	}
	if in := waitRewrite(l); in.WaitRewrite || !in.LastRewriteOK {
		t.Fatalf("after the base: %+v", in)
	}
	want := "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"
	if man := readManifestFile(t, dir); man != want {
		t.Fatalf("manifest %q, want %q", man, want)
	}
	l.Close()
	got, _, err := replay(t, Options{Dir: dir})
	if err != nil || strings.Join(got, ",") != "SET during 1,SET snap 1,SET after 1" {
		t.Fatalf("replay = %q, %v", got, err)
	}
}

// TestLogModelAcrossReopens runs random appends and rewrites (some
// failing) over many Open/Close cycles with every policy, and checks at
// each Open that the log replays to the model's values, and at the end
// that redis-check-aof takes the files.
func TestLogModelAcrossReopens(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	t.Logf("seed 15")
	dir := t.TempDir()
	var history []string // every SET ever appended, in order
	for round := range 12 {
		p := []Fsync{Always, EverySec, No}[round%3]
		l, err := Open(Options{Dir: dir, Fsync: p})
		if err != nil {
			t.Fatal(err)
		}
		kv := map[string]string{}
		if _, err := l.Load(nil, func(args [][]byte) error {
			kv[string(args[1])] = string(args[2])
			return nil
		}); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		want := map[string]string{}
		for _, h := range history {
			k, v, _ := strings.Cut(h, "=")
			want[k] = v
		}
		if !maps.Equal(kv, want) {
			t.Fatalf("round %d: replayed %d keys, want %d", round, len(kv), len(want))
		}
		m := &model{kv: kv, l: l}
		for range 200 {
			switch r := rng.IntN(100); {
			case r < 3:
				m.rewrite(errors.New("failed on purpose")) // may find one running
			case r < 6:
				m.rewrite(nil)
			default:
				k, v := "k"+strconv.Itoa(rng.IntN(50)), strconv.Itoa(rng.IntN(1000))
				m.set(k, v)
				history = append(history, k+"="+v)
			}
		}
		waitRewrite(l)
		if err := l.Close(); err != nil {
			t.Fatalf("round %d: Close: %v", round, err)
		}
	}
	out, err := exec.Command("redis-check-aof", filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest")).CombinedOutput()
	if err != nil && !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("redis-check-aof: %v\n%s", err, out)
	}
}

func TestRewriteFsyncsTheBaseEvery4MiB(t *testing.T) {
	for _, no := range []bool{false, true} {
		l, err := Open(Options{Dir: t.TempDir(), NoIncrementalSync: no})
		if err != nil {
			t.Fatal(err)
		}
		chunk := command("SET", "k", strings.Repeat("v", 1<<20))
		if err := l.Rewrite(func(w io.Writer) error {
			for range 9 {
				if _, err := w.Write(chunk); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if in := waitRewrite(l); !in.LastRewriteOK {
			t.Fatal(in.LastRewriteErr)
		}
		want := int64(2) // after 4 and 8 MiB; the end's fsync is not incremental
		if no {
			want = 0
		}
		if n := l.st.baseSyncs.Load(); n != want {
			t.Errorf("NoIncrementalSync %v: %d incremental fsyncs of a 9 MiB base, want %d", no, n, want)
		}
		l.Close()
	}
}

// TestBaseInBackgroundOverAnOldLog: appendonly turned on again at run time
// over the manifest an earlier run left. Until the new base is in, the
// directory still loads as the old log (stale but whole, as Redis's while
// AOF_WAIT_REWRITE lasts), never as new commands applied to the old state;
// once it is in, the log is the new base and incr, and the old files are
// deleted.
func TestBaseInBackgroundOverAnOldLog(t *testing.T) {
	dir := t.TempDir()
	old, err := Open(Options{Dir: dir, Fsync: Always})
	if err != nil {
		t.Fatal(err)
	}
	old.Append(command("SET", "old", "1"))
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	release := make(chan error)
	l, err := Open(Options{Dir: dir, Fsync: Always, BaseInBackground: true, InitialBase: func(w io.Writer) error {
		if _, err := w.Write(command("SET", "snap", "1")); err != nil {
			return err
		}
		return <-release
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	seq := l.Append(command("SET", "new", "1"))
	crash := t.TempDir()
	copyDir(t, filepath.Join(dir, "appendonlydir"), filepath.Join(crash, "appendonlydir"))
	if got, _, err := replay(t, Options{Dir: crash}); err != nil || strings.Join(got, ",") != "SET old 1" {
		t.Fatalf("a crash before the new base loads %q, %v; want the old log alone", got, err)
	}
	release <- nil
	for l.Durable() < seq {
		runtime.Gosched()
	}
	if in := waitRewrite(l); in.WaitRewrite || !in.LastRewriteOK {
		t.Fatalf("after the base: %+v", in)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if got, _, err := replay(t, Options{Dir: dir}); err != nil || strings.Join(got, ",") != "SET snap 1,SET new 1" {
		t.Fatalf("replay = %q, %v", got, err)
	}
	want := "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n"
	if man := readManifestFile(t, dir); man != want {
		t.Errorf("manifest %q, want %q", man, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof")); !os.IsNotExist(err) {
		t.Errorf("the old incr file is left: %v", err)
	}
}
