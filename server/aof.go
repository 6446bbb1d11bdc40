package server

import (
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/loopkv/loopkv/aof"
	"github.com/loopkv/loopkv/config"
	"github.com/loopkv/loopkv/rdb"
	"github.com/loopkv/loopkv/store"
)

// The append-only file: the glue between the change stream (propagate.go)
// and package aof.
//
// While appendonly is yes the stream's sink is the open aof.Log: each
// change (one command, a transaction, a served pop, expired keys' DELs) is
// appended under the order lock, so the log holds the changes in the order
// they were made, across loops, and one group write (and with
// appendfsync always one fdatasync) of the writer goroutine covers every
// loop's changes since the previous one.
//
// Rewrite (BGREWRITEAOF, auto-aof-rewrite-*, CONFIG SET appendonly yes):
// under the order lock, which no command holds half-way through its
// change, the store snapshot is taken and Log.Rewrite marks the cut in the
// append stream; the base is written from the snapshot as RDB (the
// aof-use-rdb-preamble form) on the log's goroutine, and the next change
// starts the new incr file with a SELECT. With aof-use-rdb-preamble no the
// base is the commands that rebuild the snapshot (aof_base.go).
//
// appendfsync always: a connection's replies that depend on changes not
// yet durable wait (aof_hold.go); every other connection goes on.
//
//	loop (command)            order lock held            aof writer goroutine
//	handler runs ─────────►   rewrite, Append -> seq ──► write(2) [+ fdatasync]
//	flush: Durable() < seq?                               Durable = seq, OnDurable
//	  park replies (hold) ◄──────────── Wake ───────────── releaseHeld(seq)

// AOFOptions are the append-only file settings as redis.conf writes them;
// "" means Redis's default.
type AOFOptions struct {
	AppendOnly                string // yes or no (default)
	AppendFsync               string // always, everysec (default) or no
	AppendDirName             string // default appendonlydir
	AppendFilename            string // default appendonly.aof
	AutoAOFRewritePercentage  string // default 100; 0 disables auto-rewrite
	AutoAOFRewriteMinSize     string // default 64mb
	AOFLoadTruncated          string // default yes
	AOFUseRDBPreamble         string // default yes; no writes the base as commands
	AOFTimestampEnabled       string // default no; accepted, no timestamps are written
	AOFRewriteIncrementalSync string // default yes; accepted
}

// aofConfig holds the AOF settings.
type aofConfig struct {
	want          atomic.Bool  // appendonly yes
	fsync         atomic.Int32 // an aof.Fsync
	autoPct       atomic.Int64
	autoMin       atomic.Int64
	loadTruncated atomic.Bool
	preamble      atomic.Bool // aof-use-rdb-preamble: the base is RDB, else commands
	timestamps    atomic.Bool // accepted; no annotations are written
	incrSync      atomic.Bool // accepted
	dirName       string      // immutable after setup, as in Redis
	fileName      string
}

// aofState is the open log and the work around it.
type aofState struct {
	mu  sync.Mutex // serialises opening, closing and starting rewrites
	log atomic.Pointer[aof.Log]
	// base is added to the log's sequence numbers, so that they keep
	// growing across a reopen (CONFIG SET appendfsync, SHUTDOWN's flush),
	// whose new log counts from 1 again: a batch's cmdCtx.propSeq and the
	// hold table compare base+seq. Stored before log, loaded after it.
	base      atomic.Uint64
	lastSeq   uint64                     // guarded by the order lock: the last base+seq appended
	always    atomic.Bool                // log is open with appendfsync always: replies wait (aof_hold.go)
	writeErr  atomic.Pointer[string]     // MISCONF's text after a failed write, as the last tick logged it; nil when fine
	misconf   atomic.Pointer[aofMisconf] // checkAOFError's last text
	scheduled atomic.Bool                // a rewrite waits for a running save (BGREWRITEAOF)
	sn        *store.Snapshot            // guarded by mu: the running rewrite's, closed once it ends
	tempLog   bool                       // guarded by mu: log was opened by BGREWRITEAOF with appendonly no
	starting  bool                       // guarded by mu: appendonly yes waits for the loops to open the log
	gen       uint64                     // guarded by mu: counts appendonly no, so that a start it overtook gives up
	hold      holdTable                  // aof_hold.go
}

// errAOFWrite is MISCONF's text for an AOF write error (Redis's
// writeCommandsDeniedByDiskError, DISK_ERROR_TYPE_AOF).
const errAOFWritePrefix = "MISCONF Errors writing to the AOF file: "

// load applies o's settings; the error names the first setting refused.
func (c *aofConfig) load(s *Server, o AOFOptions) error {
	c.dirName, c.fileName = o.AppendDirName, o.AppendFilename
	if c.dirName == "" {
		c.dirName = "appendonlydir"
	}
	if c.fileName == "" {
		c.fileName = "appendonly.aof"
	}
	if strings.ContainsRune(c.dirName, '/') || strings.ContainsRune(c.fileName, '/') {
		return errors.New("server: appenddirname and appendfilename must be names, not paths")
	}
	switch strings.ToLower(o.AppendOnly) {
	case "", "no":
	case "yes":
		c.want.Store(true)
	default:
		return errors.New("server: appendonly: argument must be 'yes' or 'no': " + strconv.Quote(o.AppendOnly))
	}
	if err := s.applyStartValues([]startValue{
		{"appendfsync", o.AppendFsync, "everysec"},
		{"auto-aof-rewrite-percentage", o.AutoAOFRewritePercentage, "100"},
		{"auto-aof-rewrite-min-size", o.AutoAOFRewriteMinSize, "64mb"},
		{"aof-load-truncated", o.AOFLoadTruncated, "yes"},
		{"aof-use-rdb-preamble", o.AOFUseRDBPreamble, "yes"},
		{"aof-timestamp-enabled", o.AOFTimestampEnabled, "no"},
		{"aof-rewrite-incremental-fsync", o.AOFRewriteIncrementalSync, "yes"},
	}); err != nil {
		return err
	}
	return nil
}

func init() { registerSettings(aofSettings...) }

// aofSettings are the AOF settings' rows.
var aofSettings = []configParam{
	{Setting: config.Setting{Name: "appendonly", Default: "no", Type: config.Bool{},
		Help: "log every change to the append-only file, loaded at start instead of the RDB file"},
		get: func(s *Server) string { return yesNo(s.cfg.aof.want.Load()) }, set: setAppendOnly,
		opt: toOption(func(o *Options) *string { return &o.AOF.AppendOnly })},
	{Setting: config.Setting{Name: "appendfsync", Default: "everysec", Type: config.Enum{"everysec", "always", "no"},
		Help: "fsync the AOF: always (before replying), everysec or no (the kernel decides)"},
		get: func(s *Server) string { return aof.Fsync(s.cfg.aof.fsync.Load()).String() }, set: setAppendFsync,
		opt: toOption(func(o *Options) *string { return &o.AOF.AppendFsync })},
	{Setting: config.Setting{Name: "appenddirname", Default: "appendonlydir", Type: config.String{}, Flags: config.Immutable,
		Help: "the AOF's directory, inside dir"},
		get: func(s *Server) string { return s.cfg.aof.dirName },
		opt: toOption(func(o *Options) *string { return &o.AOF.AppendDirName })},
	{Setting: config.Setting{Name: "appendfilename", Default: "appendonly.aof", Type: config.String{}, Flags: config.Immutable,
		Help: "the AOF files' base name"},
		get: func(s *Server) string { return s.cfg.aof.fileName },
		opt: toOption(func(o *Options) *string { return &o.AOF.AppendFilename })},
	atomicInt(config.Setting{Name: "auto-aof-rewrite-percentage", Default: "100", Type: config.Int{Max: math.MaxInt32},
		Help: "rewrite the AOF when it has grown by this percentage since the last rewrite; 0 never"},
		func(s *Server) *atomic.Int64 { return &s.cfg.aof.autoPct },
		func(o *Options, n int64) { o.AOF.AutoAOFRewritePercentage = strconv.FormatInt(n, 10) }),
	atomicInt(config.Setting{Name: "auto-aof-rewrite-min-size", Default: "64mb", Type: config.Memory{Max: math.MaxInt64},
		Help: "the AOF size under which it is not rewritten automatically"},
		func(s *Server) *atomic.Int64 { return &s.cfg.aof.autoMin },
		func(o *Options, n int64) { o.AOF.AutoAOFRewriteMinSize = strconv.FormatInt(n, 10) }),
	atomicBool(config.Setting{Name: "aof-load-truncated", Default: "yes", Type: config.Bool{},
		Help: "load an AOF whose last command is torn, cutting it off, instead of refusing to start"},
		func(s *Server) *atomic.Bool { return &s.cfg.aof.loadTruncated }, func(o *Options) *string { return &o.AOF.AOFLoadTruncated }),
	atomicBool(config.Setting{Name: "aof-use-rdb-preamble", Default: "yes", Type: config.Bool{},
		Help: "write the AOF's base in RDB format; no writes it as commands"},
		func(s *Server) *atomic.Bool { return &s.cfg.aof.preamble }, func(o *Options) *string { return &o.AOF.AOFUseRDBPreamble }),
	atomicBool(config.Setting{Name: "aof-timestamp-enabled", Default: "no", Type: config.Bool{},
		Help: "timestamp annotations in the AOF (accepted; none are written)"},
		func(s *Server) *atomic.Bool { return &s.cfg.aof.timestamps }, func(o *Options) *string { return &o.AOF.AOFTimestampEnabled }),
	atomicBool(config.Setting{Name: "aof-rewrite-incremental-fsync", Default: "yes", Type: config.Bool{},
		Help: "fsync the rewritten base as it is written (accepted)"},
		func(s *Server) *atomic.Bool { return &s.cfg.aof.incrSync }, func(o *Options) *string { return &o.AOF.AOFRewriteIncrementalSync }),
}

// parseFsync parses appendfsync.
func parseFsync(v string) (aof.Fsync, bool) {
	switch strings.ToLower(v) {
	case "always":
		return aof.Always, true
	case "everysec":
		return aof.EverySec, true
	case "no":
		return aof.No, true
	}
	return 0, false
}

// setAppendFsync is CONFIG SET appendfsync: an open log is reopened with
// the new policy, under the order lock, so that no change is lost.
func setAppendFsync(s *Server, v string) string {
	f, _ := parseFsync(v) // the row's Enum checked it
	if aof.Fsync(s.cfg.aof.fsync.Swap(int32(f))) == f || s.aof.log.Load() == nil {
		return ""
	}
	s.underOrderLock(func() {
		if err := s.reopenAOF(); err != nil {
			s.log.Warn("Reopening the append only file with the new appendfsync failed", zap.Error(err))
		}
	})
	return ""
}

// underOrderLock runs fn, which takes the order lock, on a goroutine of
// its own and waits for it a moment: CONFIG SET may run inside an EXEC,
// which holds the order lock until it ends, and fn then runs right after.
func (s *Server) underOrderLock(fn func()) {
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	t := time.NewTimer(100 * time.Millisecond)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// setAppendOnly is CONFIG SET appendonly: yes opens the log and starts a
// rewrite from the dataset, as Redis's startAppendOnly; no closes it.
func setAppendOnly(s *Server, v string) string {
	on := strings.EqualFold(v, "yes") // the row's Bool checked it
	if s.cfg.aof.want.Swap(on) == on || s.ready == nil {
		return "" // unchanged, or at setup: Serve opens the log (loadAOF)
	}
	if !on {
		s.underOrderLock(s.stopAOF)
		return ""
	}
	if err := s.startAOF(); err != nil {
		s.cfg.aof.want.Store(false)
		return "Couldn't start the append only file: " + err.Error()
	}
	return ""
}

// aofOptions are the aof.Options of the current settings.
func (s *Server) aofOptions() aof.Options {
	return aof.Options{Dir: *s.cfg.persist.dir.Load(), DirName: s.cfg.aof.dirName, FileName: s.cfg.aof.fileName,
		Fsync: aof.Fsync(s.cfg.aof.fsync.Load()), LoadTruncated: s.cfg.aof.loadTruncated.Load(), BeforeFsync: aofFsyncHook,
		OnWriteError: s.aofWriteFailed}
}

// aofFsyncHook, when set (by tests) before the log opens, runs before each
// appendfsync always fsync, on the log's writer goroutine.
var aofFsyncHook func()

// useLog makes l the stream's sink (nil: none). Caller holds s.prop.mu, or
// no command runs yet.
func (s *Server) useLog(l *aof.Log, fsync aof.Fsync) {
	s.aof.always.Store(l != nil && fsync == aof.Always)
	if l == nil {
		s.aof.log.Store(nil)
		s.prop.attach(nil)
		return
	}
	base := s.aof.lastSeq // every earlier change is durable: the old log was closed
	s.aof.base.Store(base)
	s.aof.log.Store(l)
	l.SetOnDurable(func(seq uint64) { s.releaseHeld(base + seq) }) // aof_hold.go
	s.prop.attach(func(b []byte) uint64 {
		seq := base + l.Append(b)
		s.aof.lastSeq = seq
		return seq
	})
}

// durable is the log's Durable in the stream's numbering (base+seq).
func (s *Server) durable(l *aof.Log) uint64 { return s.aof.base.Load() + l.Durable() }

// loadAOF opens the log with appendonly yes and replays it into the store
// before the server listens, as Redis's loadDataFromDisk: the AOF, when
// on, wins over the RDB file. A log Open creates gets a base written from
// the (empty) dataset, as Redis 7.0 does. It reports whether it loaded,
// so that the RDB load is skipped.
func (s *Server) loadAOF() (bool, error) {
	if !s.cfg.aof.want.Load() {
		return false, nil
	}
	o := s.aofOptions()
	o.InitialBase = func(w io.Writer) error { return s.writeAOFBase(w, s.store.Snapshot()) }
	o.LoadProgress = s.aofLoadProgress
	l, err := aof.Open(o)
	if err != nil {
		s.log.Error("Can't open the append-only file", zap.Error(err))
		return true, err
	}
	start := time.Now()
	st, err := l.Load(s.loadAOFBase, s.aofApplier())
	if errors.Is(err, errLoadStopped) {
		_ = l.Close()
		return true, err
	}
	if err != nil {
		_ = l.Close()
		s.store.FlushAll()
		s.log.Error("Fatal error loading the append only file, exiting", zap.Error(err))
		return true, err
	}
	if st.Truncated {
		s.log.Warn("!!! Warning: short read while loading the AOF file !!!", zap.String("file", st.TruncatedFile),
			zap.Int64("truncated_at", st.TruncatedAt), zap.Int64("bytes_lost", st.TruncatedBytes),
			zap.Bool("reverted_multi", st.RevertedMulti))
	}
	s.log.Info("DB loaded from append only file", zap.Int("files", st.Files), zap.Int64("commands", st.Commands),
		zap.Duration("took", time.Since(start)))
	s.useLog(l, o.Fsync)
	return true, nil
}

// loadAOFBase loads an RDB base into the store, every key with its TTL as
// written (Redis loads an AOF preamble without dropping expired keys).
func (s *Server) loadAOFBase(r io.Reader, _ bool) error {
	st, err := rdb.Load(r, s.store, rdb.LoadOptions{Aux: s.loadAux, Key: s.loadKey})
	s.persist.loadedKeys.Store(st.Keys)
	s.persist.expiredKeys.Store(st.Expired)
	return err
}

// aofLoadProgress reports the AOF load to INFO's loading_* fields: done 0
// begins it with the files' total size.
func (s *Server) aofLoadProgress(done, total int64) {
	if done == 0 {
		s.persist.progress.begin(total)
		return
	}
	s.persist.progress.loaded.Store(done)
}

// aofApplier returns the function that runs a loaded command: on a client
// of its own, as Redis's AOF fake client, expiring keys at the clock's
// time as it goes. An unknown command or a wrong arity fails the load;
// other errors are replies the original run got too. After each command
// the replay is paced and stopped as loadStep says: a Stop ends it
// (errLoadStopped), between a transaction's commands too: the server
// then exits and keeps nothing it loaded.
func (s *Server) aofApplier() func(args [][]byte) error {
	cl := &client{authed: true, proto: 2, ctx: &cmdCtx{replay: true}}
	scratch := make([]byte, 64)
	return func(args [][]byte) error {
		if cmd, msg := resolveCommand(args); cmd == nil {
			return errors.New("server: reading the append only file: " + msg)
		}
		ctx := cl.ctx
		ctx.srv, ctx.cl, ctx.out, ctx.now, ctx.mono = s, cl, ctx.out[:0], 0, 0
		ctx.store, ctx.jl = s.loopStore(cl)
		ctx.args = args
		s.call(ctx, scratch)
		ctx.endCommand()
		ctx.args = nil
		return s.loadStep()
	}
}

// writeAOFBase writes sn as an RDB base with the aof-base aux field, or
// as commands with aof-use-rdb-preamble no, and closes it.
func (s *Server) writeAOFBase(w io.Writer, sn *store.Snapshot) error {
	defer sn.Close()
	if !s.cfg.aof.preamble.Load() {
		return writeAOFCommands(w, sn) // aof_base.go
	}
	idle, freq := s.rdbAccess() // persist_rdb.go
	_, err := rdb.Write(w, sn, rdb.Options{Compress: s.cfg.persist.compression.Load(), Checksum: true,
		Aux: map[string]string{"aof-base": "1"}, Idle: idle, Freq: freq, UsedMem: s.store.UsedMemory()})
	return err
}

// startAOF opens the log at run time and rewrites it from the dataset.
// Commands that began before the sink was attached run without the order
// lock, so the rewrite's snapshot waits until every loop has passed a
// batch boundary (quiesce). It runs on its own goroutine: CONFIG SET runs
// on a loop, which quiesce waits for.
func (s *Server) startAOF() error {
	s.aof.mu.Lock()
	defer s.aof.mu.Unlock()
	if l := s.aof.log.Load(); l != nil {
		if s.aof.tempLog { // BGREWRITEAOF's: it becomes the server's, rewritten once its rewrite ends
			s.aof.tempLog = false
			s.prop.mu.Lock()
			s.useLog(l, aof.Fsync(s.cfg.aof.fsync.Load()))
			s.prop.mu.Unlock()
			s.aof.scheduled.Store(true)
		}
		return nil
	}
	if s.aof.starting {
		return nil
	}
	// As Redis's startAppendOnly with AOF_WAIT_REWRITE: the new log's first
	// base is a snapshot taken at the instant the log starts taking the
	// stream, written in the background; until it is in, a restart loads
	// what was on disk before, never a new incr file without its base.
	// Commands that began before the stream was ordered are not under the
	// order lock, so first every write is made to take it (a sink that
	// keeps nothing: what they change is in the snapshot taken after), and
	// once every loop has ended the batch it was running (quiesce), the
	// snapshot and the log's start happen together under the lock.
	// startAOF runs on a loop (CONFIG SET): the second step is a goroutine.
	s.aof.starting = true
	gen := s.aof.gen
	s.prop.mu.Lock()
	s.prop.attach(s.discardSink) // propagate.go
	s.prop.mu.Unlock()
	go func() {
		s.quiesce()
		s.aof.mu.Lock()
		defer s.aof.mu.Unlock()
		if s.aof.gen != gen { // appendonly no came first
			return
		}
		s.aof.starting = false
		if err := s.openAOFWaiting(); err != nil {
			s.prop.mu.Lock()
			s.prop.attach(nil)
			s.prop.mu.Unlock()
			s.log.Warn("Background append only file rewriting could not start", zap.Error(err))
		}
	}()
	return nil
}

// openAOFWaiting opens the log with its first base written in the
// background from a snapshot taken under the order lock at the instant the
// log takes over the stream. Caller holds s.aof.mu.
func (s *Server) openAOFWaiting() error {
	o := s.aofOptions()
	o.BaseInBackground = true
	s.prop.mu.Lock()
	defer s.prop.mu.Unlock()
	sn := s.store.Snapshot()
	var once sync.Once
	closeSn := func() { once.Do(sn.Close) }
	o.InitialBase = func(w io.Writer) error {
		defer closeSn()
		if initialBaseHook != nil {
			initialBaseHook(s)
		}
		return s.writeAOFBase(w, sn)
	}
	l, err := aof.Open(o)
	if err != nil {
		closeSn()
		return err
	}
	s.useLog(l, o.Fsync)
	s.prop.restart() // the new incr file starts with SELECT
	s.aof.sn = sn
	s.log.Info("Append only file enabled", zap.String("fsync", o.Fsync.String()))
	return nil
}

// initialBaseHook, when set (by tests), runs on the goroutine writing the
// first base of a log appendonly yes opened, before it writes.
var initialBaseHook func(s *Server)

// quiesce returns once every loop has run a function after the call: each
// batch that was running then has ended. Not from a loop.
func (s *Server) quiesce() {
	var wg sync.WaitGroup
	for _, ls := range s.loopSnapshot() {
		if ls.loop == nil {
			continue
		}
		wg.Add(1)
		if ls.loop.Execute(wg.Done) != nil {
			wg.Done()
		}
	}
	wg.Wait()
}

// stopAOF is appendonly no: the stream is detached, the log written,
// fsynced and closed, and the replies waiting for it released.
func (s *Server) stopAOF() {
	s.aof.mu.Lock()
	defer s.aof.mu.Unlock()
	s.aof.gen++
	s.aof.starting = false
	s.prop.mu.Lock()
	l := s.aof.log.Load()
	s.useLog(nil, 0)
	s.prop.mu.Unlock()
	if l != nil {
		if err := l.Close(); err != nil {
			s.log.Warn("Error closing the append only file", zap.Error(err))
		}
	}
	s.aof.tempLog = false
	s.releaseHeld(math.MaxUint64)
	s.log.Info("Append only file disabled")
}

// reopenAOF closes the log and opens it again with the current settings,
// under the order lock: every change before is written and fsynced, every
// change after goes to the reopened file. SHUTDOWN's flush and CONFIG SET
// appendfsync use it.
func (s *Server) reopenAOF() error {
	s.aof.mu.Lock()
	defer s.aof.mu.Unlock()
	s.prop.mu.Lock()
	defer s.prop.mu.Unlock()
	l := s.aof.log.Load()
	if l == nil {
		return nil
	}
	err := l.Close()
	o := s.aofOptions()
	nl, oerr := aof.Open(o)
	if oerr != nil {
		s.useLog(nil, 0)
		s.releaseHeld(math.MaxUint64)
		return errors.Join(err, oerr)
	}
	s.useLog(nl, o.Fsync)
	s.prop.restart()
	s.releaseHeld(s.aof.lastSeq) // all written and fsynced by Close
	return err
}

// flushAOF writes and fsyncs what the AOF holds before a shutdown (Redis's
// flushAppendOnlyFile(1) and fsync), keeping it open: the shutdown may be
// refused after it.
func (s *Server) flushAOF() error { return s.reopenAOF() }

// closeAOF closes the log when the server stops.
func (s *Server) closeAOF() {
	if s.aof.log.Load() != nil {
		s.stopAOF()
	}
}

// errRewriteRunning and the other BGREWRITEAOF refusals.
var errRewriteRunning = errors.New("Background append only file rewriting already in progress")

// rewriteAOF takes the snapshot and starts the log's rewrite at one
// instant of the stream (under the order lock). With appendonly no the
// log is opened for the rewrite only, as Redis 7.0's BGREWRITEAOF writes
// the files then, and closed when it ends (aofTick).
func (s *Server) rewriteAOF() error {
	s.aof.mu.Lock()
	defer s.aof.mu.Unlock()
	l := s.aof.log.Load()
	if l == nil {
		nl, err := aof.Open(s.aofOptions())
		if err != nil {
			return err
		}
		l = nl
		s.aof.tempLog = true
		s.aof.log.Store(l)
	} else if l.Info().RewriteInProgress {
		return errRewriteRunning
	}
	s.prop.mu.Lock()
	sn := s.store.Snapshot()
	var once sync.Once
	closeSn := func() { once.Do(sn.Close) }
	err := l.Rewrite(func(w io.Writer) error {
		defer closeSn()
		return s.writeAOFBase(w, sn)
	})
	if err == nil {
		s.prop.restart() // the new incr file starts with SELECT
	}
	s.prop.mu.Unlock()
	if err != nil {
		closeSn()
		return err
	}
	s.aof.sn = sn
	s.aof.scheduled.Store(false) // as Redis: a rewrite that starts serves any scheduled one
	s.log.Info("Background append only file rewriting started")
	return nil
}

// aofRewriteRunning reports whether an AOF rewrite runs: Redis's other
// child process, which BGSAVE waits for.
func (s *Server) aofRewriteRunning() bool {
	l := s.aof.log.Load()
	return l != nil && l.Info().RewriteInProgress
}

// aofTick runs the AOF's periodic work on the ticker goroutine, as Redis's
// serverCron: the write status behind MISCONF, a scheduled rewrite, the
// auto-rewrite rule, and the end of a rewrite (its snapshot freed, a
// BGREWRITEAOF's temporary log closed).
func (s *Server) aofTick() {
	l := s.aof.log.Load()
	if l == nil {
		if s.aof.writeErr.Load() != nil { // appendonly no: no MISCONF for the AOF (checkAOFError)
			s.aof.writeErr.Store(nil)
		}
		return
	}
	in := l.Info()
	s.noteWriteStatus(l, in)
	if in.RewriteInProgress {
		return
	}
	s.aof.mu.Lock()
	if sn := s.aof.sn; sn != nil {
		sn.Close()
		s.aof.sn = nil
	}
	temp := s.aof.tempLog
	s.aof.mu.Unlock()
	if temp {
		s.aof.mu.Lock()
		if s.aof.tempLog && s.aof.log.Load() == l {
			s.aof.log.Store(nil)
			s.aof.tempLog = false
			_ = l.Close()
		}
		s.aof.mu.Unlock()
		return
	}
	if s.saveRunning() {
		return
	}
	if s.aof.scheduled.Swap(false) {
		_ = s.rewriteAOF()
		return
	}
	pct, min := s.cfg.aof.autoPct.Load(), s.cfg.aof.autoMin.Load()
	if pct > 0 && in.CurrentSize > min {
		base := max(in.BaseSize, 1)
		if growth := in.CurrentSize*100/base - 100; growth >= pct {
			s.log.Info("Starting automatic rewriting of AOF", zap.Int64("growth_pct", growth))
			_ = s.rewriteAOF()
		}
	}
}

// aofWriteFailed runs on the log's goroutine whose write or fsync failed,
// just before the log reports it: it sets writeErr, which callAs tests
// before each command, so that checkAOFError, which reads the log,
// refuses writes from the command after the failure on, as Redis does,
// rather than from the next tick, which logs the failure and puts its
// text in.
func (s *Server) aofWriteFailed() { s.aof.writeErr.CompareAndSwap(nil, &aofFailedUnlogged) }

// aofFailedUnlogged is writeErr between a failure and the tick that logs it.
var aofFailedUnlogged = ""

// noteWriteStatus keeps MISCONF's text in step with l's last write, whose
// Info is in.
func (s *Server) noteWriteStatus(l *aof.Log, in aof.Info) {
	if in.LastWriteOK {
		if old := s.aof.writeErr.Load(); old != nil {
			if old != &aofFailedUnlogged {
				s.log.Info("AOF write error looks solved, Redis can write again.")
			}
			s.aof.writeErr.CompareAndSwap(old, nil)
			if _, failed := l.WriteError(); failed { // a failure since in was read
				s.aofWriteFailed()
			}
		}
		return
	}
	msg := errAOFWritePrefix + errnoText(in.LastWriteErrno)
	if old := s.aof.writeErr.Load(); old == nil || *old != msg {
		s.log.Warn("Error writing to the AOF file", zap.Error(in.LastWriteErrno))
		s.aof.writeErr.Store(&msg)
	}
}

// saveRunning reports whether an RDB save runs (Redis's child process).
func (s *Server) saveRunning() bool {
	s.persist.mu.Lock()
	defer s.persist.mu.Unlock()
	return s.persist.saving != saveNone
}

// checkAOFError is MISCONF for the AOF: writes are refused while its last
// write failed (Redis's writeCommandsDeniedByDiskError), from the command
// after the failure on, as the log reports it rather than as the ticker
// last saw it, and only while the AOF is on.
func (s *Server) checkAOFError(c *cmdCtx, cmd *command) string {
	l := s.aof.log.Load()
	if l == nil {
		return ""
	}
	errno, failed := l.WriteError()
	if !failed || !writeDenied(c, cmd) {
		return ""
	}
	if m := s.aof.misconf.Load(); m != nil && m.errno == errno {
		return m.msg
	}
	m := &aofMisconf{errno, errAOFWritePrefix + errnoText(errno)}
	s.aof.misconf.Store(m)
	return m.msg
}

// aofMisconf is MISCONF's text for an errno, made once per failure.
type aofMisconf struct {
	errno syscall.Errno
	msg   string
}

// cmdBgrewriteaof is BGREWRITEAOF, worded as Redis 7.0's.
func cmdBgrewriteaof(c *cmdCtx) {
	s := c.srv
	switch {
	case s.aofRewriteRunning():
		c.errReply("ERR " + errRewriteRunning.Error())
	case c.cl.execing || s.saveRunning():
		s.aof.scheduled.Store(true)
		c.simple("Background append only file rewriting scheduled")
	default:
		if err := s.rewriteAOF(); err != nil {
			if errors.Is(err, errRewriteRunning) {
				c.errReply("ERR " + errRewriteRunning.Error())
				return
			}
			s.log.Warn("Can't rewrite the append only file", zap.Error(err))
			c.errReply("ERR Can't execute an AOF background rewriting. Please check the server logs for more information.")
			return
		}
		c.simple("Background append only file rewriting started")
	}
}

// infoAOF appends INFO persistence's aof_* fields in Redis 7.0's order.
func (s *Server) infoAOF(b []byte) []byte {
	l := s.aof.log.Load()
	var in aof.Info
	if l != nil {
		in = l.Info()
	} else {
		in = aof.Info{LastWriteOK: true, LastRewriteOK: true, LastRewriteTimeSec: -1, CurrentRewriteTimeSec: -1}
	}
	temp, starting := s.aofOpening()
	on := l != nil && !temp
	if starting { // appendonly yes waits for the loops: Redis's AOF_WAIT_REWRITE, its child already running
		on, in.RewriteInProgress, in.CurrentRewriteTimeSec = true, true, 0
	}
	b = infoInt(b, "aof_enabled", b2i(on))
	b = infoInt(b, "aof_rewrite_in_progress", b2i(in.RewriteInProgress))
	b = infoInt(b, "aof_rewrite_scheduled", b2i(s.aof.scheduled.Load()))
	b = infoInt(b, "aof_last_rewrite_time_sec", in.LastRewriteTimeSec)
	b = infoInt(b, "aof_current_rewrite_time_sec", in.CurrentRewriteTimeSec)
	b = infoLine(b, "aof_last_bgrewrite_status", okErr(in.LastRewriteOK))
	b = infoInt(b, "aof_rewrites", in.Rewrites)
	b = infoInt(b, "aof_rewrites_consecutive_failures", in.RewritesConsecutiveFailures)
	b = infoLine(b, "aof_last_write_status", okErr(in.LastWriteOK))
	b = infoInt(b, "aof_last_cow_size", 0)
	b = infoInt(b, "module_fork_in_progress", 0)
	b = infoInt(b, "module_fork_last_cow_size", 0)
	if !on && !(s.persist.loading.Load() && s.cfg.aof.want.Load()) { // Redis shows them, zero, while appendonly yes loads
		return b
	}
	b = infoInt(b, "aof_current_size", in.CurrentSize)
	b = infoInt(b, "aof_base_size", in.BaseSize)
	b = infoInt(b, "aof_pending_rewrite", b2i(s.aof.scheduled.Load()))
	b = infoInt(b, "aof_buffer_length", in.BufferLength)
	b = infoInt(b, "aof_pending_bio_fsync", int64(in.PendingBioFsync))
	return infoInt(b, "aof_delayed_fsync", in.DelayedFsync)
}

// aofOpening reports whether the open log is BGREWRITEAOF's temporary one
// (appendonly no), and whether appendonly yes is still opening its log.
func (s *Server) aofOpening() (temp, starting bool) {
	s.aof.mu.Lock()
	defer s.aof.mu.Unlock()
	return s.aof.tempLog, s.aof.starting
}

func okErr(ok bool) string {
	if ok {
		return "ok"
	}
	return "err"
}

var aofCommands = []command{
	{Name: "bgrewriteaof", Arity: 1, Flags: flagAdmin | flagNoAsyncLoading | flagNoScript,
		Doc: cmdDoc{Summary: "Asynchronously rewrite the append-only file", Since: "1.0.0", Group: "server",
			Complexity: "O(1)"},
		Fn: cmdBgrewriteaof},
}

func init() { register(aofCommands...) }
