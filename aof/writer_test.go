package aof

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestWriteErrorIsRecordedAndNothingBecomesDurable writes to an incr file
// that is a link to /dev/full, where every write fails with ENOSPC.
func TestWriteErrorIsRecordedAndNothingBecomesDurable(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	for _, p := range []Fsync{Always, EverySec} {
		t.Run(p.String(), func(t *testing.T) {
			dir := writeDir(t, manifestIncr1)
			if err := os.Symlink("/dev/full", filepath.Join(dir, "appendonlydir", incr1)); err != nil {
				t.Fatal(err)
			}
			l, err := Open(Options{Dir: dir, Fsync: p})
			if err != nil {
				t.Fatal(err)
			}
			l.Append(command("SET", "a", "1"))
			for l.Info().LastWriteOK {
				runtime.Gosched()
			}
			seq := l.Append(command("SET", "b", "2")) // never waits
			in := l.Info()
			if in.LastWriteErrno != syscall.ENOSPC || l.Durable() != 0 || seq != 2 || in.BufferLength == 0 {
				t.Errorf("after ENOSPC: errno %v, durable %d, seq %d, info %+v", in.LastWriteErrno, l.Durable(), seq, in)
			}
			if err := l.Flush(); err == nil {
				t.Error("Flush succeeded with unwritten appends")
			}
			if err := l.Close(); err == nil {
				t.Error("Close succeeded with unwritten appends")
			}
			if l.Durable() != 0 {
				t.Errorf("Durable %d after a failed Close", l.Durable())
			}
		})
	}
}

func TestInfoSizes(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(Options{Dir: dir, Fsync: Always})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cmd := command("SET", "k", "v")
	seq := l.Append(cmd)
	for l.Durable() < seq {
		runtime.Gosched()
	}
	if in := l.Info(); in.CurrentSize != int64(len(cmd)) || in.BaseSize != 0 || !in.LastWriteOK || in.LastRewriteTimeSec != -1 {
		t.Fatalf("info %+v", in)
	}
	m := &model{kv: map[string]string{"k": "v"}, l: l}
	if err := m.rewrite(nil); err != nil {
		t.Fatal(err)
	}
	in := waitRewrite(l)
	if in.CurrentSize != int64(len(cmd)) || in.BaseSize != int64(len(cmd)) || in.LastRewriteTimeSec != 0 {
		t.Fatalf("info after the rewrite %+v", in)
	}
}

// TestEverySecPostponesWritesBehindARunningFsync holds the background
// fsync "running": the writer keeps the append buffered until the
// postponement limit, then writes anyway and counts aof_delayed_fsync.
func TestEverySecPostponesWritesBehindARunningFsync(t *testing.T) {
	old := postponeLimit
	postponeLimit = 20 * time.Millisecond
	defer func() { postponeLimit = old }()
	l, err := Open(Options{Dir: t.TempDir(), Fsync: EverySec})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.st.bioPending.Store(1)
	seq := l.Append(command("SET", "k", "v"))
	for l.Durable() < seq {
		runtime.Gosched()
	}
	if in := l.Info(); in.DelayedFsync != 1 || in.PendingBioFsync != 1 {
		t.Fatalf("info %+v, want one delayed fsync", in)
	}
	l.st.bioPending.Store(0)
	seq = l.Append(command("SET", "k", "w"))
	for l.Durable() < seq {
		runtime.Gosched()
	}
	if in := l.Info(); in.DelayedFsync != 1 {
		t.Fatalf("info %+v: a write with no fsync running was delayed", in)
	}
}

// TestAppendDoesNotAllocate appends in steady state, once both buffers have
// grown, and counts allocations.
func TestAppendDoesNotAllocate(t *testing.T) {
	l, err := Open(Options{Dir: t.TempDir(), Fsync: No})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	blob := make([]byte, 1<<20)
	for range 3 { // each of the two buffers grows to 1 MiB
		seq := l.Append(blob)
		for l.Durable() < seq {
			runtime.Gosched()
		}
	}
	if n := testing.AllocsPerRun(1000, func() { l.Append(set60) }); n != 0 {
		t.Errorf("Append allocates %v times per call", n)
	}
}

func TestFlushWritesAndFsyncsWhateverThePolicy(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(Options{Dir: dir, Fsync: No})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cmd := command("SET", "k", "v")
	seq := l.Append(cmd)
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "appendonlydir", incr1))
	if string(b) != string(cmd) || l.Durable() != seq || l.st.fsyncs.Load() != 1 {
		t.Fatalf("after Flush: file %q, durable %d, %d fsyncs", b, l.Durable(), l.st.fsyncs.Load())
	}
	l.Close()
	if err := l.Flush(); err != ErrClosed {
		t.Errorf("Flush after Close = %v", err)
	}
}

func TestSetFsyncAlwaysFsyncsEachGroup(t *testing.T) {
	l, err := Open(Options{Dir: t.TempDir(), Fsync: No})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	seq := l.Append(command("SET", "a", "1"))
	for l.Durable() < seq {
		runtime.Gosched()
	}
	if n := l.st.fsyncs.Load(); n != 0 {
		t.Fatalf("%d fsyncs with appendfsync no", n)
	}
	l.SetFsync(Always)
	seq = l.Append(command("SET", "b", "2"))
	for l.Durable() < seq {
		runtime.Gosched()
	}
	if n := l.st.fsyncs.Load(); n != 1 {
		t.Fatalf("%d fsyncs after SetFsync(Always) and one append, want 1", n)
	}
}

// TestGatherWaitsForTheNextGroup drives the writer's gathering on a log
// with no writer goroutine: after a group of 20 with 10 waiting, the next
// waits for 30 changes (Append wakes the writer only at the 30th), and not
// past its deadline, a rewrite's cut or a policy other than Always.
func TestGatherWaitsForTheNextGroup(t *testing.T) {
	oldFrac, oldMax := gatherFrac, gatherMax
	gatherFrac, gatherMax = 1, time.Hour
	defer func() { gatherFrac, gatherMax = oldFrac, oldMax }()
	l := &Log{cut: -1, wake: make(chan struct{}, 1)}
	l.fsync.Store(int32(Always))
	woken := func() bool {
		select {
		case <-l.wake:
			return true
		default:
			return false
		}
	}
	gather := func(prev, seq, waiting uint64, took time.Duration) {
		l.seq = seq + waiting
		l.noteGroup(prev, seq, took)
	}
	var g group
	g.cut = -1

	gather(0, 20, 10, time.Hour)
	if d := l.gatherWait(&g); d <= 0 || l.wakeAt.Load() != 50 {
		t.Fatalf("10 of 30 in: wait %v, wakeAt %d; want a wait until seq 50", d, l.wakeAt.Load())
	}
	for range 19 {
		l.Append(set60)
	}
	if woken() || l.gatherWait(&g) <= 0 {
		t.Fatal("29 of 30 in: the writer was woken or stopped waiting")
	}
	l.Append(set60)
	if !woken() || l.gatherWait(&g) != 0 || l.wakeAt.Load() != 0 {
		t.Fatalf("30 of 30 in: the writer was not woken, or still waits (wakeAt %d)", l.wakeAt.Load())
	}
	l.Append(set60)
	if !woken() {
		t.Fatal("an append after the gather did not wake the writer")
	}

	gather(50, 60, 0, 0) // the wait is 0: past its deadline at once
	if d := l.gatherWait(&g); d != 0 {
		t.Fatalf("past the deadline: wait %v", d)
	}
	gather(50, 60, 0, time.Hour)
	l.cut = 0
	if d := l.gatherWait(&g); d != 0 || l.wakeAt.Load() != 0 {
		t.Fatalf("with a rewrite's cut pending: wait %v", d)
	}
	l.cut = -1
	gather(50, 60, 0, time.Hour)
	l.fsync.Store(int32(EverySec))
	if d := l.gatherWait(&g); d != 0 || l.wakeAt.Load() != 0 {
		t.Fatalf("with everysec: wait %v", d)
	}
}

// TestAlwaysGroupsEndWhenFewerChangesCome runs clients that each wait for
// their change to be durable before the next (pipeline 1) and then stop at
// different times, so groups wait for changes that never come: the gather
// deadline must end each wait (the once-a-second ticker is off here).
func TestAlwaysGroupsEndWhenFewerChangesCome(t *testing.T) {
	oldFrac, oldMax, oldTick := gatherFrac, gatherMax, everySecPeriod
	gatherFrac, gatherMax, everySecPeriod = 1e9, 20*time.Millisecond, time.Hour
	defer func() { gatherFrac, gatherMax, everySecPeriod = oldFrac, oldMax, oldTick }()
	l, err := Open(Options{Dir: t.TempDir(), Fsync: Always})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const clients = 8
	done := make(chan uint64, clients)
	for c := range clients {
		go func() {
			var seq uint64
			for range 5 + 3*c {
				seq = l.Append(set60)
				deadline := time.Now().Add(10 * time.Second)
				for l.Durable() < seq && time.Now().Before(deadline) {
					time.Sleep(100 * time.Microsecond)
				}
				if l.Durable() < seq {
					done <- seq
					return
				}
			}
			done <- 0
		}()
	}
	for range clients {
		if seq := <-done; seq != 0 {
			t.Fatalf("change %d not durable after 10 s (durable %d)", seq, l.Durable())
		}
	}
}
