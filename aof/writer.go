package aof

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// Writer timing. retryInterval is how soon a failed write is tried again
// (Redis retries from serverCron, within a second); postponeLimit is how
// long an EverySec write may wait for a running fsync (aof.c,
// flushAppendOnlyFile: two seconds).
var (
	retryInterval  = 100 * time.Millisecond
	postponeCheck  = 50 * time.Millisecond
	postponeLimit  = 2 * time.Second
	everySecPeriod = time.Second
)

// Group gathering (Always). Right after an fsync the clients whose replies
// it released send their next writes, over the time the loops and the
// clients take to turn around; an fsync started at the first of them
// covers few, and the rest wait for the one after (the groups split into
// cohorts that alternate). So the writer waits, after each fsync, up to
// gatherFrac of that fsync's duration (at most gatherMax) for as many
// changes as the group it just made durable plus those that were waiting
// for it, and fsyncs as soon as they are in. Fewer, larger groups cost
// less kernel time per change (an fdatasync costs ~85 µs of CPU here
// whatever it covers). The wait is the writer's; no loop waits.
var (
	gatherFrac = 0.5
	gatherMax  = 2 * time.Millisecond
)

// maxSpare is the largest buffer the writer keeps for reuse.
const maxSpare = 64 << 20

// group is the batch the writer has taken from Append's buffer and not yet
// written completely. 0 <= cut <= len(data) when a rewrite switches files
// inside it, else cut < 0.
type group struct {
	data   []byte
	seq    uint64 // the last sequence in data
	cut    int
	cutSeq uint64
	cutRes chan error
}

// run is the writer goroutine: it writes each group Append gathered, then
// fsyncs it (Always) and publishes Durable, until Close.
func (l *Log) run() {
	defer close(l.done)
	syncReq := make(chan *os.File, 1)
	go l.bgFsync(syncReq)
	defer close(syncReq)
	t := time.NewTicker(everySecPeriod)
	defer t.Stop()
	g := group{cut: -1}
	var again *time.Timer
	gather := time.NewTimer(time.Hour)
	gather.Stop()
	defer gather.Stop()
	var gatherC <-chan time.Time // set while a gather timer runs
	for {
		var againC <-chan time.Time
		if again != nil {
			againC = again.C
		}
		var flushed chan error
		select {
		case <-l.wake:
		case <-t.C:
			if l.policy() == EverySec {
				l.startBgFsync(syncReq)
			}
		case <-againC:
			again = nil
		case <-gatherC:
			gatherC = nil
			l.gathered = time.Time{} // the wait is over: fsync what is there
		case flushed = <-l.flushReq:
		}
		if l.closing() {
			l.finish(&g)
			if flushed != nil {
				flushed <- l.closeErr
			}
			return
		}
		if flushed != nil {
			flushed <- l.flushSync(&g)
			continue
		}
		var wait time.Duration
		if l.gatherWait(&g) == 0 {
			wait = l.flush(&g, false)
		}
		if d := l.gatherWait(&g); d > 0 { // after a group, flush stops to gather the next
			gather.Reset(d)
			gatherC = gather.C
		} else if gatherC != nil {
			gather.Stop()
			gatherC = nil
		}
		if wait > 0 && again == nil {
			again = time.NewTimer(wait)
		}
	}
}

// gatherWait reports how much longer the writer waits before it takes the
// next group (Always, right after an fsync), or 0 to take it now. While it
// waits, Append wakes the writer only once the group is complete (wakeAt).
func (l *Log) gatherWait(g *group) time.Duration {
	if !l.gathered.IsZero() && l.policy() == Always && len(g.data) == 0 && g.cut < 0 {
		l.wakeAt.Store(l.gatherFrom + l.gatherWant)
		l.mu.Lock()
		n, cut := l.seq-l.gatherFrom, l.cut
		l.mu.Unlock()
		if left := time.Until(l.gathered); cut < 0 && n < l.gatherWant && left > 0 {
			return left
		}
	}
	l.gathered = time.Time{}
	l.wakeAt.Store(0)
	return 0
}

// noteGroup records, after the fsync that made seq durable (the group
// from prev+1), what the next group waits for (gatherWait).
func (l *Log) noteGroup(prev, seq uint64, took time.Duration) {
	l.mu.Lock()
	waiting := l.seq - seq
	l.mu.Unlock()
	l.gatherFrom = seq
	l.gatherWant = seq - prev + waiting
	l.gathered = time.Now().Add(min(time.Duration(float64(took)*gatherFrac), gatherMax))
}

// flushSync serves Flush: it writes everything, whatever the policy, and
// fsyncs the file.
func (l *Log) flushSync(g *group) error {
	if l.flush(g, true) != 0 {
		return l.writeError()
	}
	if f := l.st.fatal.Load(); f != nil {
		return f.err
	}
	l.st.fsyncs.Add(1)
	if err := fdatasync(l.f); err != nil {
		l.recordWriteError(err, false)
		return err
	}
	l.unsynced = false
	return nil
}

// writeError is the last write error as an error.
func (l *Log) writeError() error {
	return errors.New("aof: write: " + syscall.Errno(l.st.writeErrno.Load()).Error())
}

// policy is the current appendfsync policy.
func (l *Log) policy() Fsync { return Fsync(l.fsync.Load()) }

// flush writes the pending group, if a failed one is left, then takes
// and writes what Append gathered, until nothing is left. It returns how
// soon to try again when it left bytes unwritten (a write error, or an
// EverySec write postponed behind a running fsync), else 0.
func (l *Log) flush(g *group, force bool) time.Duration {
	if l.held > 0 && !l.waiting.Load() {
		l.publish(l.held) // the first base is in: what was written is durable
	}
	for {
		if l.st.fatal.Load() != nil {
			l.drop(g)
			return 0
		}
		if len(g.data) == 0 && g.cut < 0 && (!force && l.gatherWait(g) > 0 || !l.take(g)) {
			return 0 // run waits for more (gatherWait) or for appends
		}
		if l.policy() == EverySec && !force && g.cut < 0 && l.st.bioPending.Load() != 0 {
			if l.postpone.IsZero() {
				l.postpone = time.Now()
				return postponeCheck
			}
			if time.Since(l.postpone) < postponeLimit {
				return postponeCheck
			}
			l.st.delayedFsync.Add(1)
		}
		l.postpone = time.Time{}
		if g.cut >= 0 {
			if !l.write(g, g.cut, g.cutSeq) {
				return retryInterval
			}
			l.switchFile(g)
		}
		if !l.write(g, len(g.data), g.seq) {
			return retryInterval
		}
		if cap(g.data) <= maxSpare {
			l.spare = g.data[:0]
		} // else a burst made it huge: let it go
		g.data = nil
		l.st.pending.Store(0)
	}
}

// take moves Append's buffer into g, giving Append the spare buffer. It
// reports false if there was nothing to take.
func (l *Log) take(g *group) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) == 0 && l.cut < 0 {
		return false
	}
	*g = group{data: l.buf, seq: l.seq, cut: l.cut, cutSeq: l.cutSeq, cutRes: l.cutRes}
	l.buf, l.cut, l.cutRes = l.spare, -1, nil
	l.spare = nil
	l.st.pending.Store(int64(len(g.data)))
	return true
}

// drop discards what was appended once an fsync failed: none of it can be
// made durable.
func (l *Log) drop(g *group) {
	if g.cutRes != nil {
		g.cutRes <- l.st.fatal.Load().err
	}
	*g = group{cut: -1}
	l.mu.Lock()
	l.buf = l.buf[:0]
	if l.cutRes != nil {
		l.cutRes <- l.st.fatal.Load().err
		l.cut, l.cutRes = -1, nil
	}
	l.mu.Unlock()
	l.st.pending.Store(0)
}

// write writes g.data[:end] (whose last sequence is seq) to the current
// file, fsyncs it with Always, and publishes seq as durable. On a write
// error it records the error as Redis does, removes a short write if it can
// (aof.c, flushAppendOnlyFile), keeps the unwritten rest in g and reports
// false.
func (l *Log) write(g *group, end int, seq uint64) bool {
	b := g.data[:end]
	for len(b) > 0 {
		n, err := l.f.Write(b)
		l.st.incrSize.Add(int64(n))
		if err == nil {
			b = b[n:]
			continue
		}
		if n > 0 {
			size := l.st.incrSize.Load() - int64(n)
			if l.f.Truncate(size) == nil {
				l.st.incrSize.Store(size)
			} else {
				b = b[n:] // it stays in the file; Redis keeps it too
			}
		}
		l.recordWriteError(err, n > 0)
		g.data = append(g.data[:0], g.data[end-len(b):]...)
		if g.cut >= 0 {
			g.cut -= end - len(b)
		}
		l.st.pending.Store(int64(len(g.data)))
		return false
	}
	l.st.writeFailed.Store(false)
	if l.policy() == Always {
		l.st.fsyncs.Add(1)
		if l.o.BeforeFsync != nil {
			l.o.BeforeFsync()
		}
		start := time.Now()
		err := fdatasync(l.f)
		if err == nil && seq > l.durable.Load() {
			l.noteGroup(max(l.durable.Load(), l.held), seq, time.Since(start))
		}
		if err != nil {
			// Redis exits here: after a failed fsync the page cache cannot
			// be trusted, so nothing later is ever reported durable.
			l.recordWriteError(err, false)
			l.st.fatal.Store(&fatalErr{err})
			return true
		}
	} else {
		l.unsynced = true
	}
	l.publish(seq)
	return true
}

// publish advances Durable to seq and tells the callback.
func (l *Log) publish(seq uint64) {
	if l.waiting.Load() {
		l.held = max(l.held, seq)
		return
	}
	if l.held > seq {
		seq = l.held
	}
	l.held = 0
	if seq <= l.durable.Load() {
		return
	}
	l.durable.Store(seq)
	if fn := l.onDurable.Load(); fn != nil {
		(*fn)(seq)
	}
}

// recordWriteError sets aof_last_write_status:err and its errno; a short
// write counts as ENOSPC, as Redis counts it.
func (l *Log) recordWriteError(err error, short bool) {
	var errno syscall.Errno
	if !errors.As(err, &errno) || short {
		errno = syscall.ENOSPC
	}
	if l.o.OnWriteError != nil {
		l.o.OnWriteError()
	}
	l.st.writeErrno.Store(int64(errno))
	l.st.writeFailed.Store(true)
}

// startBgFsync hands the current file to the fsync goroutine if there are
// unsynced bytes and no fsync is running (EverySec).
func (l *Log) startBgFsync(req chan *os.File) {
	if !l.unsynced || l.st.bioPending.Load() != 0 {
		return
	}
	l.unsynced = false
	l.st.bioPending.Store(1)
	req <- l.f
}

// bgFsync is the EverySec fsync goroutine (Redis's BIO_AOF_FSYNC job).
func (l *Log) bgFsync(req chan *os.File) {
	for f := range req {
		l.st.fsyncs.Add(1)
		if err := fdatasync(f); err != nil {
			var errno syscall.Errno
			if !errors.As(err, &errno) {
				errno = syscall.EIO
			}
			if l.o.OnWriteError != nil {
				l.o.OnWriteError()
			}
			l.st.bioErrno.Store(int64(errno))
			l.st.bioFailed.Store(true)
		} else {
			l.st.bioFailed.Store(false)
		}
		l.st.bioPending.Store(0)
	}
}

// switchFile ends the incr file before a rewrite's cut and opens the next
// one; g.data[:g.cut] is already written. The new file is listed in the
// manifest before anything is written to it (aof.c,
// openNewIncrAofForAppend). If that fails the old file stays current and
// the rewrite is told so.
func (l *Log) switchFile(g *group) {
	res := g.cutRes
	g.data = append(g.data[:0], g.data[g.cut:]...)
	g.cut, g.cutRes = -1, nil
	err := l.openNextIncr()
	if res != nil {
		res <- err
	}
}

// openNextIncr fsyncs and closes the current incr file and opens the next,
// persisting the manifest that lists it.
func (l *Log) openNextIncr() error {
	l.mmu.Lock()
	defer l.mmu.Unlock()
	if l.waiting.Load() {
		// A retried first base: the commands since the failed one's
		// snapshot are in the new snapshot, so the temporary file restarts.
		f, err := os.OpenFile(l.path(l.tempIncrName()), os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		l.f.Close()
		l.f, l.unsynced = f, false
		l.st.incrSize.Store(0)
		return nil
	}
	m := l.man.clone()
	fi := l.newIncrInfo(&m)
	m.incr = append(m.incr, fi)
	f, err := os.OpenFile(l.path(fi.name), os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if err := writeManifest(l.dir, l.o.FileName, &m); err != nil {
		f.Close()
		os.Remove(l.path(fi.name))
		return err
	}
	if l.policy() != Always {
		if err := fdatasync(l.f); err != nil {
			l.recordWriteError(err, false)
		}
		l.unsynced = false
	}
	l.f.Close()
	l.f, l.man = f, m
	l.st.otherIncr.Add(l.st.incrSize.Swap(0))
	return nil
}

// finish writes what is left at Close, fsyncs and closes the file.
func (l *Log) finish(g *group) {
	if l.flush(g, true) != 0 {
		l.closeErr = l.writeError()
	}
	if g.cutRes != nil {
		g.cutRes <- ErrClosed
	}
	l.mu.Lock()
	if l.cutRes != nil {
		l.cutRes <- ErrClosed
		l.cut, l.cutRes = -1, nil
	}
	l.mu.Unlock()
	if f := l.st.fatal.Load(); f != nil && l.closeErr == nil {
		l.closeErr = f.err
	}
	if err := fdatasync(l.f); err != nil && l.closeErr == nil {
		l.closeErr = err
	}
	if err := l.f.Close(); err != nil && l.closeErr == nil {
		l.closeErr = err
	}
}
