// Package aof manages Redis 7's multi-part append-only file: the manifest,
// the base and incr files, the writer with group commit, loading, and the
// file switch of a rewrite. It knows nothing of the store or the server:
// commands come in RESP-encoded, go out as argument lists, and a base is
// written and read through callbacks.
//
// # Layout (Redis 7.0, aof.c)
//
// Under Dir/DirName (appenddirname, default appendonlydir), for FileName
// (appendfilename, default appendonly.aof):
//
//	appendonly.aof.manifest      file appendonly.aof.1.base.rdb seq 1 type b
//	                             file appendonly.aof.1.incr.aof seq 1 type i
//	appendonly.aof.1.base.rdb    the snapshot (RDB, or AOF commands in .base.aof)
//	appendonly.aof.1.incr.aof    the commands since, RESP multibulk
//
// The manifest is replaced through temp-appendonly.aof.manifest: write,
// fsync, rename, fsync of the directory. After a rewrite the replaced
// files are listed as type h, deleted, and dropped from the manifest.
//
// # Writer and group commit
//
// Append copies the caller's bytes into a buffer under a mutex held for
// the copy only, and returns a sequence number. One writer goroutine swaps
// that buffer for a spare one, writes it with one write call and, with
// Always, one fdatasync; then it publishes the group's last sequence as
// Durable and calls the OnDurable callback. So one fsync covers every
// goroutine's appends since the previous one. With EverySec the writer
// writes at once and a second goroutine fsyncs about once a second; while
// that fsync runs, the writer keeps buffering for up to two seconds
// (counted in aof_delayed_fsync when it stops waiting), as Redis postpones
// its write. With No nothing is fsynced before Flush or Close.
//
//	caller            writer goroutine                   fsync goroutine (EverySec)
//	Append -> seq     take buffer, write(2)
//	                  Always: fdatasync                  every second: fdatasync
//	Durable() >= seq  publish seq, OnDurable(seq)
//
// A failed write is recorded as Redis records it (aof_last_write_status,
// errno; a short write is cut off the file or counted as ENOSPC) and
// retried every 100 ms, keeping everything appended meanwhile. A failed
// Always fsync is final: Redis exits on it; here nothing later becomes
// durable, Info reports FsyncFailed, and the server should refuse writes.
//
// # Rewrite
//
// Rewrite marks the instant in the append stream; the writer finishes the
// current incr file there, fsyncs it, creates the next incr file and
// persists a manifest listing it before writing any later append to it.
// The base is written by the caller's function on another goroutine, from
// a snapshot taken at that instant, to temp-rewriteaof-bg-<pid>.aof, then
// renamed, and the manifest naming it is published.
//
// # Use by a server
//
//	l, err := aof.Open(aof.Options{Dir: dir, Fsync: aof.Always, LoadTruncated: true,
//		InitialBase: writeEmptyRDB})           // start-up: a new log gets a base (Redis 7.0 does)
//	st, err := l.Load(loadRDB, applyCommand)   // before the first Append
//	l.SetOnDurable(releaseReplies)             // Always: replies wait for Durable() >= their seq
//	seq := l.Append(batch)                     // per loop batch, from any goroutine
//	// BGREWRITEAOF, under the barrier that orders Appends:
//	snap := store.Snapshot(); err = l.Rewrite(func(w io.Writer) error { defer snap.Close(); return writeRDB(w, snap) })
//	// (if Rewrite returns an error, writeBase is never called: close snap)
//	l.SetFsync(aof.EverySec)                   // CONFIG SET appendfsync
//	err = l.Flush()                            // SHUTDOWN, before it may be refused: write and fsync all
//	l.Close()                                  // the server stops, or appendonly no
//
// Turning appendonly on at run time is Open with InitialBase writing a
// snapshot taken at that instant and BaseInBackground (Redis's
// AOF_WAIT_REWRITE); turning it off is Close.
//
// # Differences from Redis 7.0
//
//   - A MULTI torn off the last file is cut back to before the MULTI, also
//     when the tear is inside the transaction.
//   - A failed write with appendfsync always is retried (no acknowledged
//     write is lost, as replies wait for Durable) where Redis exits.
//   - Names holding a single quote are written quoted, so that the manifest
//     reads back.
//   - An AOF of the old single-file layout (an appendonly.aof beside the
//     directory) is moved in as the base, as Redis 7.0 does, unless it
//     starts with an RDB preamble: that one is refused.
//
// The package reads the clock only to pace the EverySec fsync, retries and
// the rewrite's duration.
package aof
