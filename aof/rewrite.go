package aof

import (
	"errors"
	"io"
	"os"
	"time"
)

// Rewrite starts a rewrite, as BGREWRITEAOF does, and returns at once: it
// only marks the instant in the append stream, under the append lock, and
// never waits for the disk, so a server may call it under its barrier.
// Appends made before the call stay in the current incr file; those made
// after it go to a new incr file with the next seq, which the writer
// goroutine creates and lists in the manifest before it writes to it
// (aof.c, openNewIncrAofForAppend). Meanwhile writeBase runs on its own
// goroutine, writing the new base to a temporary file: RDB if what it
// writes starts with "REDIS" (named .base.rdb), else AOF commands
// (.base.aof). The caller must give writeBase a snapshot of the dataset
// taken at the instant it calls Rewrite, with no append in between (under
// its own barrier), so that base plus new incr is the dataset.
//
// When both succeed, a new manifest lists the new base and the new incr
// file; the old base and incr files become history, are deleted, and the
// manifest is written once more without them (aof.c,
// backgroundRewriteDoneHandler, aofDelHistoryFiles). When either fails,
// the old manifest stays valid, with the new incr file listed if it was
// created, as Redis leaves it. Info reports the outcome and its time.
// Rewrite returns ErrRewriteInProgress if one is running, ErrClosed after
// Close; writeBase is then never called.
func (l *Log) Rewrite(writeBase func(w io.Writer) error) error {
	res, done := make(chan error, 1), make(chan struct{})
	l.mu.Lock()
	switch {
	case l.closed:
		l.mu.Unlock()
		return ErrClosed
	case l.rewriting:
		l.mu.Unlock()
		return ErrRewriteInProgress
	}
	l.cut, l.cutSeq, l.cutRes = len(l.buf), l.seq, res
	l.rewriting, l.rwStart, l.rwDone = true, time.Now(), done
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	go l.rewrite(writeBase, res, done)
	return nil
}

// rewrite writes the base and, once the incr switch has succeeded too,
// publishes the new manifest.
func (l *Log) rewrite(writeBase func(w io.Writer) error, switched chan error, done chan struct{}) {
	defer close(done)
	tmp := l.path(tempBaseName())
	rdb, err := l.writeTemp(tmp, writeBase)
	if serr := <-switched; err == nil {
		err = serr
	}
	if err == nil && l.closing() {
		err = ErrClosed
	}
	if err == nil {
		err = l.install(tmp, rdb)
	}
	if err != nil {
		os.Remove(tmp)
	}
	l.mu.Lock()
	start := l.rwStart
	l.mu.Unlock()
	l.st.lastRewriteSec.Store(int64(time.Since(start) / time.Second))
	if err != nil {
		l.st.lastRewriteFailed.Store(true)
		l.st.lastRewriteErr.Store(&fatalErr{err})
		l.st.rewriteFailures.Add(1)
	} else {
		l.st.lastRewriteFailed.Store(false)
		l.st.lastRewriteErr.Store(nil)
		l.st.rewriteFailures.Store(0)
		l.st.rewrites.Add(1)
	}
	l.mu.Lock() // after the stats: Info reads rewriting first
	l.rewriting = false
	l.mu.Unlock()
}

// tempBaseName is the temporary base's name (Redis: temp-rewriteaof-bg-<pid>.aof).
func tempBaseName() string { return "temp-rewriteaof-bg-" + itoa(os.Getpid()) + ".aof" }

// install renames the written base into place and publishes the manifest
// that lists it with the current incr file, then deletes the history.
func (l *Log) install(tmp string, rdb bool) error {
	l.mmu.Lock()
	if l.waiting.Load() {
		defer l.mmu.Unlock()
		return l.installFirst(tmp, rdb)
	}
	m := l.man.clone()
	if m.base != nil {
		old := *m.base
		old.typ = typeHist
		m.hist = append([]fileInfo{old}, m.hist...)
	}
	name := l.baseName(&m, rdb)
	m.base = &fileInfo{name: name, seq: m.baseSeq, typ: typeBase}
	// Every incr file but the current one is covered by the new base
	// (aof.c, markRewrittenIncrAofAsHistory).
	cur := m.incr[len(m.incr)-1]
	for i := len(m.incr) - 2; i >= 0; i-- {
		h := m.incr[i]
		h.typ = typeHist
		m.hist = append([]fileInfo{h}, m.hist...)
	}
	m.incr = []fileInfo{cur}
	if err := os.Rename(tmp, l.path(name)); err != nil {
		l.mmu.Unlock()
		return err
	}
	if err := writeManifest(l.dir, l.o.FileName, &m); err != nil {
		os.Remove(l.path(name))
		l.mmu.Unlock()
		return err
	}
	l.man = m
	size := fileSize(l.path(name))
	l.st.baseSize.Store(size)
	l.st.otherIncr.Store(0)
	l.st.rewriteBase.Store(size + l.st.incrSize.Load())
	l.mmu.Unlock()
	l.deleteHistory()
	return nil
}

// baseName names the next base of m, advancing its seq (aof.c,
// getNewBaseFileNameAndMarkPreAsHistory).
func (l *Log) baseName(m *manifest, rdb bool) string {
	m.baseSeq++
	suffix := ".base.aof"
	if rdb {
		suffix = ".base.rdb"
	}
	return l.o.FileName + "." + itoa(m.baseSeq) + suffix
}

// deleteHistory removes the history files and writes the manifest without
// them. A failure leaves them listed; the next rewrite retries.
func (l *Log) deleteHistory() {
	l.mmu.Lock()
	defer l.mmu.Unlock()
	if len(l.man.hist) == 0 {
		return
	}
	for _, h := range l.man.hist {
		if err := os.Remove(l.path(h.name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return
		}
	}
	m := l.man.clone()
	m.hist = nil
	if writeManifest(l.dir, l.o.FileName, &m) == nil {
		l.man = m
	}
}

// installFirst publishes the first base of a log opened with
// BaseInBackground: the base and the temporary incr file get their seq-1
// names, then the manifest naming them is written, and what was written
// meanwhile becomes durable. mmu is held.
func (l *Log) installFirst(tmp string, rdb bool) error {
	m := l.man.clone()
	// A manifest from before (appendonly was on once, then turned off) is
	// replaced whole: its base and incr files become history, deleted once
	// the new manifest is written. Until then a restart loads the old log,
	// stale but whole, as Redis does while its AOF_WAIT_REWRITE lasts.
	var retired []fileInfo
	if m.base != nil {
		retired = append(retired, *m.base)
	}
	retired = append(retired, m.incr...)
	for i := range retired {
		retired[i].typ = typeHist
	}
	m.hist = append(retired, m.hist...)
	name := l.baseName(&m, rdb)
	incr := l.newIncrInfo(&m)
	m.base = &fileInfo{name: name, seq: m.baseSeq, typ: typeBase}
	m.incr = []fileInfo{incr}
	if err := os.Rename(tmp, l.path(name)); err != nil {
		return err
	}
	// The writer keeps its descriptor: it appends to the renamed file.
	if err := os.Rename(l.path(l.tempIncrName()), l.path(incr.name)); err != nil {
		os.Remove(l.path(name))
		return err
	}
	if err := writeManifest(l.dir, l.o.FileName, &m); err != nil {
		os.Rename(l.path(incr.name), l.path(l.tempIncrName()))
		os.Remove(l.path(name))
		return err
	}
	l.man = m
	size := fileSize(l.path(name))
	l.st.baseSize.Store(size)
	l.st.rewriteBase.Store(size + l.st.incrSize.Load())
	l.waiting.Store(false)
	select {
	case l.wake <- struct{}{}: // the writer publishes what it held
	default:
	}
	if len(retired) > 0 {
		go l.deleteHistory() // takes mmu, which the caller holds
	}
	return nil
}
