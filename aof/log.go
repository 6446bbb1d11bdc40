package aof

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopkv/loopkv/internal/fsx"
	"github.com/loopkv/loopkv/resp"
)

// Fsync is the appendfsync policy.
type Fsync int

// Fsync policies.
const (
	EverySec Fsync = iota // write at once, fsync in the background about once a second
	Always                // write and fsync each group before it is durable
	No                    // write at once, leave flushing to the kernel
)

// String returns the policy's appendfsync name.
func (f Fsync) String() string {
	switch f {
	case Always:
		return "always"
	case No:
		return "no"
	}
	return "everysec"
}

// Options configure a Log. Zero fields take Redis's defaults.
type Options struct {
	Dir      string // the server's dir; default "."
	DirName  string // appenddirname; default "appendonlydir"
	FileName string // appendfilename; default "appendonly.aof"
	Fsync    Fsync  // appendfsync

	// LoadTruncated is aof-load-truncated: Load cuts a torn tail off the
	// last file instead of refusing it.
	LoadTruncated bool

	// BeforeFsync, if not nil, runs on the writer goroutine before each
	// fsync of appended writes with Always (a test holds an fsync with it).
	BeforeFsync func()

	// OnWriteError, if not nil, runs on the goroutine of a write or fsync
	// that failed, just before Info and WriteError report the failure, so
	// that a server that sees the failure refuses writes from its next
	// command on. It must not block or call the Log.
	OnWriteError func()

	// InitialBase, if not nil, writes the base of a log that Open creates
	// (no manifest, or one listing neither base nor incr), as Redis 7.0
	// writes a base from its dataset when it starts with AOF on and no AOF
	// files. It receives the open base file; it may write RDB (starting
	// with "REDIS") or AOF commands, and the file is named .base.rdb or
	// .base.aof by what it wrote. Nil: the new log has only an incr file,
	// which Redis loads as well; a server can call Rewrite after Open.
	InitialBase func(w io.Writer) error

	// BaseInBackground makes Open write InitialBase on a goroutine, as
	// Redis does when appendonly is turned on at run time (AOF_WAIT_REWRITE):
	// Open returns at once, appends go to temp-<FileName>.incr, and only
	// when the base is written are both renamed to their next names and
	// the manifest written. A manifest already there (appendonly was on
	// before) stays, and is what a restart loads, until then; its files
	// then become history and are deleted. Until then the new log is not
	// loadable, so nothing
	// becomes durable (Durable stays put) and Info reports WaitRewrite; a
	// failed base leaves it so, and Rewrite (with a new snapshot) retries.
	// InitialBase must write a snapshot taken at the instant Open is called.
	BaseInBackground bool

	// NoIncrementalSync is aof-rewrite-incremental-sync no: a base is
	// fsynced once, at its end, instead of every 4 MiB as it is written.
	NoIncrementalSync bool

	// Limits bounds the commands Load accepts; zero fields are resp's defaults.
	Limits resp.Limits

	// LoadProgress, when set, is called by Load with the total size of the
	// base and incr files (done 0), then after each read from them with the
	// bytes read so far, as Redis's startLoading and loadingIncrProgress
	// report them to INFO. It runs on Load's goroutine.
	LoadProgress func(done, total int64)
}

// maxFileName bounds appendfilename.
const maxFileName = 200

// A Log is an open multi-part append-only file. Append, Durable, Info and
// SetOnDurable may be called from any goroutine.
type Log struct {
	// immutable after Open
	o   Options
	dir string // the AOF directory

	// guarded by mu, held only to copy bytes in or swap buffers
	mu     sync.Mutex
	buf    []byte // appended, not yet taken by the writer
	seq    uint64 // the last sequence number handed out; 0 <= durable <= seq
	cut    int    // -1, or the offset in buf where a rewrite switches files
	cutSeq uint64 // the last sequence before cut
	cutRes chan error
	closed bool

	rewriting bool          // a Rewrite's base is being written or installed
	rwStart   time.Time     // when it started
	rwDone    chan struct{} // closed when it ends

	// safe from any goroutine
	wake     chan struct{}   // cap 1: appends or a close are waiting for the writer
	flushReq chan chan error // Flush's requests
	fsync    atomic.Int32    // the Fsync policy, changed by SetFsync
	done     chan struct{}   // closed when the writer goroutine has ended

	durable   atomic.Uint64
	wakeAt    atomic.Uint64 // the sequence from which Append wakes the writer (gatherWait)
	waiting   atomic.Bool   // the first base is being written: hold Durable (AOF_WAIT_REWRITE)
	onDurable atomic.Pointer[func(uint64)]

	// owned by the writer goroutine
	f        *os.File // the last incr file, O_APPEND
	spare    []byte   // the buffer the writer gives back to Append
	unsynced bool     // bytes written and not fsynced (EverySec, No)
	held     uint64   // the sequence written while waiting, published once the log is loadable
	postpone time.Time
	closeErr error

	// group gathering (writer.go, gatherWait)
	gathered   time.Time // zero, or until when the next group may wait
	gatherFrom uint64    // the last sequence of the group before
	gatherWant uint64    // how many sequences after gatherFrom the next group waits for

	st stats

	// openedIncr is the incr file Open added to a manifest that had none;
	// Load does not count it as the last file, as Redis loads before it
	// opens one. Immutable after Open.
	openedIncr string

	// guarded by mmu
	mmu sync.Mutex
	man manifest
}

// Open opens the log under o.Dir/o.DirName, reading its manifest, or
// creating the directory, the files and the manifest as Redis 7.0 does when
// it starts with appendonly yes (aof.c, aofOpenIfNeededOnServerStart): a
// base if o.InitialBase is set, then incr file 1. Call Load, if there is
// anything to load, before the first Append.
func Open(o Options) (*Log, error) {
	if o.Dir == "" {
		o.Dir = "."
	}
	if o.DirName == "" {
		o.DirName = "appendonlydir"
	}
	if o.FileName == "" {
		o.FileName = "appendonly.aof"
	}
	if filepath.Base(o.FileName) != o.FileName || filepath.Base(o.DirName) != o.DirName {
		return nil, errors.New("aof: appendfilename and appenddirname must be names, not paths")
	}
	if len(o.FileName) > maxFileName {
		// Its files' names must fit NAME_MAX, and their quoted manifest
		// lines the 1024 bytes Redis reads.
		return nil, errors.New("aof: appendfilename longer than 200 bytes")
	}
	l := &Log{o: o, dir: filepath.Join(o.Dir, o.DirName), cut: -1,
		wake: make(chan struct{}, 1), done: make(chan struct{}), flushReq: make(chan chan error)}
	l.fsync.Store(int32(o.Fsync))
	l.st.lastRewriteSec.Store(-1)
	if err := os.MkdirAll(l.dir, 0o755); err != nil {
		return nil, err
	}
	if err := l.readManifest(); err != nil {
		return nil, err
	}
	if err := l.upgradeOld(); err != nil {
		return nil, err
	}
	if l.o.BaseInBackground && l.o.InitialBase != nil {
		return l.openWaiting()
	}
	if err := l.openLastIncr(); err != nil {
		return nil, err
	}
	l.deleteHistory() // a crash after a rewrite's manifest may have left some (Redis: aofDelHistoryFiles at start)
	l.refreshSizes()
	go l.run()
	return l, nil
}

// openWaiting opens a new log whose base is written in the background:
// appends go to the temporary incr file until Rewrite's install names it.
func (l *Log) openWaiting() (*Log, error) {
	f, err := os.OpenFile(l.path(l.tempIncrName()), os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	l.f = f
	l.waiting.Store(true)
	go l.run()
	if err := l.Rewrite(l.o.InitialBase); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// tempIncrName is the incr file of a log waiting for its first base
// (aof.c, getTempIncrAofName).
func (l *Log) tempIncrName() string { return "temp-" + l.o.FileName + ".incr" }

// manifestName is the manifest's file name.
func (l *Log) manifestName() string { return l.o.FileName + ".manifest" }

// readManifest loads the manifest, if there is one, into l.man.
func (l *Log) readManifest() error {
	path := filepath.Join(l.dir, l.manifestName())
	data, err := readLimited(path, maxManifestSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	l.man, err = parseManifest(l.manifestName(), data)
	return err
}

// upgradeOld moves an AOF of the single-file layout (Dir/FileName, Redis
// before 7.0) into the directory as the base of a new manifest, when the
// manifest lists nothing else, as Redis 7.0 does (aof.c,
// loadAppendOnlyFiles and aofUpgradePrepare). An old file that starts with
// an RDB preamble is refused: its AOF tail comes after an RDB whose end
// only the caller's decoder knows.
func (l *Log) upgradeOld() error {
	old := filepath.Join(l.o.Dir, l.o.FileName)
	f, err := os.Open(old)
	if err != nil {
		return nil // no old file (or none that can be read: Redis checks existence only)
	}
	head := make([]byte, 5)
	n, _ := io.ReadFull(f, head)
	f.Close()
	m := &l.man
	_, inDir := os.Stat(l.path(l.o.FileName))
	if !(m.base == nil && len(m.incr) == 0 ||
		m.base != nil && len(m.incr) == 0 && m.base.name == l.o.FileName && inDir != nil) {
		return nil
	}
	if string(head[:n]) == "REDIS" {
		return errors.New("aof: " + old + " is an AOF of the old single-file layout with an RDB preamble, " +
			"which loopkv cannot upgrade: let redis-server 7 upgrade it, or move it away")
	}
	nm := manifest{base: &fileInfo{name: l.o.FileName, seq: 1, typ: typeBase}, baseSeq: 1}
	if err := writeManifest(l.dir, l.o.FileName, &nm); err != nil {
		return err
	}
	if err := os.Rename(old, l.path(l.o.FileName)); err != nil {
		return err
	}
	for _, d := range []string{l.dir, l.o.Dir} {
		if err := fsx.SyncDir(d); err != nil {
			return err
		}
	}
	l.man = nm
	return nil
}

// readLimited reads a whole file of at most max bytes (one more is read to
// tell that it is too long).
func readLimited(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max+1))
}

// openLastIncr writes the initial base if the log is new, opens the last
// incr file for appending (naming a new one if there is none) and persists
// the manifest.
func (l *Log) openLastIncr() error {
	m := l.man.clone()
	dirty, created := false, false
	if m.base == nil && len(m.incr) == 0 && l.o.InitialBase != nil {
		name, err := l.writeBaseFile(&m, l.o.InitialBase)
		if err != nil {
			return err
		}
		m.base = &fileInfo{name: name, seq: m.baseSeq, typ: typeBase}
		dirty = true
	}
	if len(m.incr) == 0 {
		m.incr = append(m.incr, l.newIncrInfo(&m))
		dirty, created = true, true
	}
	// A listed incr file that is missing is an error, as in Redis's load;
	// creating it here would hide the loss.
	flags := os.O_WRONLY | os.O_APPEND
	if created {
		flags |= os.O_CREATE | os.O_TRUNC
	}
	last := m.incr[len(m.incr)-1].name
	f, err := os.OpenFile(l.path(last), flags, 0o644)
	if err != nil {
		return &LoadError{File: last, Reason: "can't open the append log file", Err: err}
	}
	if dirty {
		if err := writeManifest(l.dir, l.o.FileName, &m); err != nil {
			f.Close()
			return err
		}
	}
	l.f, l.man = f, m
	if created {
		l.openedIncr = last
	}
	return nil
}

// newIncrInfo names the next incr file of m (aof.c, getNewIncrAofName).
func (l *Log) newIncrInfo(m *manifest) fileInfo {
	m.incrSeq++
	return fileInfo{name: l.o.FileName + "." + itoa(m.incrSeq) + ".incr.aof", seq: m.incrSeq, typ: typeIncr}
}

// writeBaseFile writes a new base with fn through a temporary file and
// renames it to the next base name of m, which it advances. The caller
// lists it in the manifest.
func (l *Log) writeBaseFile(m *manifest, fn func(w io.Writer) error) (string, error) {
	tmp := l.path(tempBaseName())
	rdb, err := l.writeTemp(tmp, fn)
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	name := l.baseName(m, rdb)
	if err := os.Rename(tmp, l.path(name)); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return name, nil
}

// incrementalSync is how much of a base is written between fsyncs
// (Redis's REDIS_AUTOSYNC_BYTES), so that the kernel never holds a burst
// of dirty pages that stalls the incr file's fsync.
const incrementalSync = 4 << 20

// writeTemp creates path, runs fn on a buffered writer to it, and flushes
// and fsyncs it. It reports whether the content starts with "REDIS" (an
// RDB). Writes fail with ErrClosed once Close has been called.
func (l *Log) writeTemp(path string, fn func(w io.Writer) error) (rdb bool, err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return false, err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	sw := &sniffWriter{f: f, stop: l.closing, syncs: &l.st.baseSyncs}
	if !l.o.NoIncrementalSync {
		sw.syncEvery = incrementalSync
	}
	bw := bufio.NewWriterSize(sw, 256<<10)
	if err := fn(bw); err != nil {
		return false, err
	}
	if err := bw.Flush(); err != nil {
		return false, err
	}
	if err := fdatasync(f); err != nil {
		return false, err
	}
	return string(sw.head) == "REDIS", nil
}

// sniffWriter writes a base: it keeps the first five bytes written, fsyncs
// every syncEvery bytes (0: never), and fails writes once stop reports
// true.
type sniffWriter struct {
	f         *os.File
	head      []byte
	stop      func() bool
	syncEvery int64
	unsynced  int64
	syncs     *atomic.Int64 // counts the incremental fsyncs
}

func (s *sniffWriter) Write(p []byte) (int, error) {
	if s.stop() {
		return 0, ErrClosed
	}
	if n := min(5-len(s.head), len(p)); n > 0 {
		s.head = append(s.head, p[:n]...)
	}
	n, err := s.f.Write(p)
	s.unsynced += int64(n)
	if err == nil && s.syncEvery > 0 && s.unsynced >= s.syncEvery {
		s.unsynced = 0
		s.syncs.Add(1)
		err = fdatasync(s.f)
	}
	return n, err
}

// closing reports whether Close has been called.
func (l *Log) closing() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

// Append queues RESP-encoded commands, copying them, and returns their
// sequence number: the n-th call returns n. It never waits for the disk:
// the writer goroutine writes (and, with Always, fsyncs) everything
// appended so far in one go, then Durable covers it. Appends from several
// goroutines are written in the order they took the lock. After Close,
// Append drops cmds and the sequence it returns never becomes durable.
func (l *Log) Append(cmds []byte) uint64 {
	l.mu.Lock()
	l.seq++
	seq := l.seq
	if !l.closed {
		l.buf = append(l.buf, cmds...)
	}
	l.mu.Unlock()
	if seq >= l.wakeAt.Load() { // else the writer is gathering and wants more first
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
	return seq
}

// Durable returns the highest sequence number whose commands are on disk:
// fsynced with Always, written to the file (the kernel's page cache) with
// EverySec and No.
func (l *Log) Durable() uint64 { return l.durable.Load() }

// SetOnDurable sets the function the writer goroutine calls after each
// group write (and fsync, with Always), with the new Durable value. fn must
// not block: it runs on the writer's goroutine, and the next group waits
// for it. nil removes it.
func (l *Log) SetOnDurable(fn func(seq uint64)) {
	if fn == nil {
		l.onDurable.Store(nil)
		return
	}
	l.onDurable.Store(&fn)
}

// Flush writes everything appended before the call and fsyncs the file,
// whatever the policy, and returns once that is done (Redis's
// flushAppendOnlyFile(1) and fsync before a shutdown or a save). It
// returns the write or fsync error if that failed; the writer goes on
// retrying a failed write.
func (l *Log) Flush() error {
	res := make(chan error, 1)
	select {
	case l.flushReq <- res:
		return <-res
	case <-l.done:
		return ErrClosed
	}
}

// SetFsync changes the policy (CONFIG SET appendfsync) from the next
// group on. Turning Always on does not fsync what earlier groups wrote:
// call Flush for that.
func (l *Log) SetFsync(p Fsync) {
	l.fsync.Store(int32(p))
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Close writes what was appended, fsyncs and closes the file, whatever the
// policy. A rewrite in progress is abandoned (its base writer's writes fail
// with ErrClosed) and Close waits for it to end. Close returns the last
// write or fsync error if the final flush failed; it is safe to call twice.
func (l *Log) Close() error {
	l.mu.Lock()
	already := l.closed
	l.closed = true
	l.mu.Unlock()
	if !already {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
	<-l.done
	l.mu.Lock()
	rw := l.rwDone
	l.mu.Unlock()
	if rw != nil {
		<-rw
	}
	return l.closeErr
}

// itoa formats a seq or a pid.
func itoa[T int | int64](n T) string { return strconv.FormatInt(int64(n), 10) }

// path returns the path of a file in the AOF directory.
func (l *Log) path(name string) string { return filepath.Join(l.dir, name) }
