package aof

import (
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// stats are the counters behind Info, updated by the writer, the fsync
// goroutine and rewrites.
type stats struct {
	incrSize    atomic.Int64 // bytes in the current incr file
	otherIncr   atomic.Int64 // bytes in the earlier incr files of the manifest
	baseSize    atomic.Int64 // bytes in the base file
	rewriteBase atomic.Int64 // aof_base_size: the log's size after the last rewrite, or the base's at open
	pending     atomic.Int64 // bytes the writer took and has not written

	bioPending   atomic.Int32 // an EverySec fsync is running
	delayedFsync atomic.Int64 // writes that stopped waiting for a running fsync
	fsyncs       atomic.Int64 // fdatasync calls on incr files, for tests and benchmarks
	baseSyncs    atomic.Int64 // incremental fsyncs while bases are written, for tests

	writeFailed atomic.Bool  // aof_last_write_status:err
	writeErrno  atomic.Int64 // aof_last_write_errno
	bioFailed   atomic.Bool  // the last background fsync failed
	bioErrno    atomic.Int64
	fatal       atomic.Pointer[fatalErr] // an Always fsync failed: nothing more becomes durable

	lastRewriteSec    atomic.Int64 // aof_last_rewrite_time_sec, -1 before any
	lastRewriteFailed atomic.Bool
	lastRewriteErr    atomic.Pointer[fatalErr]
	rewrites          atomic.Int64
	rewriteFailures   atomic.Int64 // consecutive
}

// fatalErr boxes an error for an atomic.Pointer.
type fatalErr struct{ err error }

// Info is the state INFO persistence reports about the AOF, named after
// Redis 7.0's fields.
type Info struct {
	CurrentSize     int64 // aof_current_size: base plus incr files
	BaseSize        int64 // aof_base_size: the size after the last rewrite (the base's size after Open)
	BufferLength    int64 // aof_buffer_length: appended bytes not yet written
	PendingBioFsync int   // aof_pending_bio_fsync: 1 while an EverySec fsync runs
	DelayedFsync    int64 // aof_delayed_fsync: EverySec writes that stopped waiting for a slow fsync

	LastWriteOK    bool          // aof_last_write_status: ok, or err after a failed write or fsync
	LastWriteErrno syscall.Errno // aof_last_write_errno: the errno of the last failure (0 if none)
	// FsyncFailed is an Always fsync failure: Redis exits on it; here no
	// later write becomes durable, and the server should refuse writes.
	FsyncFailed bool

	// WaitRewrite is Redis's AOF_WAIT_REWRITE: a log opened with
	// BaseInBackground whose first base is not in yet. It cannot be loaded
	// until then; Redis refuses SHUTDOWN without FORCE ("Writing initial
	// AOF, can't exit.").
	WaitRewrite bool

	RewriteInProgress           bool  // aof_rewrite_in_progress
	CurrentRewriteTimeSec       int64 // aof_current_rewrite_time_sec: -1 when none runs
	LastRewriteTimeSec          int64 // aof_last_rewrite_time_sec: -1 before any rewrite
	LastRewriteOK               bool  // aof_last_bgrewrite_status
	LastRewriteErr              error // why the last rewrite failed, for the log
	Rewrites                    int64 // aof_rewrites
	RewritesConsecutiveFailures int64 // aof_rewrites_consecutive_failures
}

// WriteError reports, without a lock, whether the log's last write or
// fsync failed (Info's LastWriteOK false) and its errno (LastWriteErrno),
// as they stand the moment the writer recorded them: what a server
// checks before each write command, as Redis's
// writeCommandsDeniedByDiskError reads its write status.
func (l *Log) WriteError() (errno syscall.Errno, failed bool) {
	st := &l.st
	wf, bf := st.writeFailed.Load(), st.bioFailed.Load()
	if !wf && !bf && st.fatal.Load() == nil {
		return 0, false
	}
	if bf && !wf {
		return syscall.Errno(st.bioErrno.Load()), true
	}
	return syscall.Errno(st.writeErrno.Load()), true
}

// Info returns the log's state now.
func (l *Log) Info() Info {
	st := &l.st
	// A rewrite updates its stats before it clears rewriting: read it first.
	// Only mu, the short append lock, is taken: never one held across I/O.
	l.mu.Lock()
	rewriting, rwStart, buffered := l.rewriting, l.rwStart, len(l.buf)
	l.mu.Unlock()
	in := Info{
		CurrentSize:     st.baseSize.Load() + st.otherIncr.Load() + st.incrSize.Load(),
		BaseSize:        st.rewriteBase.Load(),
		PendingBioFsync: int(st.bioPending.Load()),
		DelayedFsync:    st.delayedFsync.Load(),
		LastWriteOK:     !st.writeFailed.Load() && !st.bioFailed.Load() && st.fatal.Load() == nil,
		FsyncFailed:     st.fatal.Load() != nil,
		WaitRewrite:     l.waiting.Load(),

		CurrentRewriteTimeSec:       -1,
		LastRewriteTimeSec:          st.lastRewriteSec.Load(),
		LastRewriteOK:               !st.lastRewriteFailed.Load(),
		Rewrites:                    st.rewrites.Load(),
		RewritesConsecutiveFailures: st.rewriteFailures.Load(),
	}
	if rewriting {
		in.RewriteInProgress = true
		in.CurrentRewriteTimeSec = int64(time.Since(rwStart) / time.Second)
	}
	if e := st.lastRewriteErr.Load(); e != nil {
		in.LastRewriteErr = e.err
	}
	in.LastWriteErrno = syscall.Errno(st.writeErrno.Load())
	if st.bioFailed.Load() && !st.writeFailed.Load() {
		in.LastWriteErrno = syscall.Errno(st.bioErrno.Load())
	}
	in.BufferLength = int64(buffered) + st.pending.Load()
	return in
}

// refreshSizes sets the size counters from the files of the manifest.
func (l *Log) refreshSizes() {
	l.mmu.Lock()
	defer l.mmu.Unlock()
	var base, other, cur int64
	if l.man.base != nil {
		base = fileSize(l.path(l.man.base.name))
	}
	for i, fi := range l.man.incr {
		if i == len(l.man.incr)-1 {
			cur = fileSize(l.path(fi.name))
		} else {
			other += fileSize(l.path(fi.name))
		}
	}
	l.st.baseSize.Store(base)
	l.st.otherIncr.Store(other)
	l.st.incrSize.Store(cur)
	l.st.rewriteBase.Store(base)
}

// fileSize returns a file's size, 0 if it cannot be read.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
