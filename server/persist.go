package server

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/loopkv/loopkv/config"
	"github.com/loopkv/loopkv/store"
)

// RDB persistence (Redis rdb.c, server.c serverCron): SAVE, BGSAVE, the
// save rules, SHUTDOWN's final save and the state INFO persistence reports.
//
// Go cannot fork, so a save is a store snapshot written by one save
// goroutine: the command (or the ticker, for the save rules) takes the
// snapshot at its own instant, which costs the store O(shards), and the
// goroutine encodes and writes it while every loop goes on serving. At
// most one save runs at a time. SAVE and SHUTDOWN park their client, as a
// blocking pop does, until the goroutine finishes; no loop waits for a disk.
//
//	command / ticker          save goroutine                 loop of a parked client
//	beginSave: snapshot  ──►  rdb.WriteFile(dir/dbfilename)
//	(SAVE parks client)       endSave: status, dirty, LASTSAVE ──► Wake: +OK / -ERR

// savePoint is one "save <seconds> <changes>" rule.
type savePoint struct {
	secs    int64
	changes int64
}

// persistConfig holds the persistence settings loops and the ticker read.
type persistConfig struct {
	points      atomic.Pointer[[]savePoint] // the save rules; empty: none
	dir         atomic.Pointer[string]      // absolute
	dbfilename  atomic.Pointer[string]
	compression atomic.Bool  // rdbcompression
	checksum    atomic.Bool  // rdbchecksum (immutable, as in Redis)
	stopWrites  atomic.Bool  // stop-writes-on-bgsave-error
	delSync     atomic.Bool  // rdb-del-sync-files: accepted; there are no replicas
	keyDelay    atomic.Int64 // key-load-delay: µs the loader waits after each key (<0: 1 µs once in -N keys)
	protected   atomic.Pointer[string]
}

// persistState is the save machinery's state.
type persistState struct {
	mu        sync.Mutex
	saving    saveKind  // the save running, or saveNone
	scheduled bool      // BGSAVE SCHEDULE: start one when the running work ends
	started   time.Time // when the running save began
	parked    []parked  // clients waiting for the running save (SAVE, SHUTDOWN)
	lastTry   int64     // Unix seconds of the last save attempt, for the retry delay
	dirtyAt   int64     // changes counted when the running save took its snapshot

	lastSave  atomic.Int64 // Unix seconds of the last successful save (LASTSAVE)
	bgErr     atomic.Bool  // the last background save failed (rdb_last_bgsave_status:err)
	lastBgSec atomic.Int64 // rdb_last_bgsave_time_sec; -1 before the first
	saves     atomic.Int64 // rdb_saves
	inBg      atomic.Bool  // a background save runs (rdb_bgsave_in_progress)
	startedAt atomic.Int64 // Unix ms the running background save began

	loadedKeys  atomic.Int64 // rdb_last_load_keys_loaded
	expiredKeys atomic.Int64 // rdb_last_load_keys_expired
	loading     atomic.Bool  // the start-up load runs
	progress    loadProgress // its INFO loading_* fields (persist_load.go)
	shutdown    atomic.Bool  // SHUTDOWN is saving: the save rules wait

	cur     atomic.Pointer[store.Snapshot] // the running save's snapshot (current_cow_size)
	lastCow atomic.Int64                   // bytes the last save's snapshot copied (rdb_last_cow_size)
}

// parked is a client waiting for a save: a loop's client (w) or a
// goroutine (done).
type parked struct {
	w    *waiter
	done chan error
}

// saveKind says who asked for a save.
type saveKind int

const (
	saveNone saveKind = iota
	saveFg            // SAVE, SHUTDOWN, the final save of a signal
	saveBg            // BGSAVE, the save rules
)

// bgsaveRetryDelay is how long after a failed background save the save
// rules wait before they try again (Redis's CONFIG_BGSAVE_RETRY_DELAY).
const bgsaveRetryDelay = 5

// Redis's defaults of the persistence settings.
const (
	defaultSavePoints = "3600 1 300 100 60 10000"
	defaultDBFilename = "dump.rdb"
)

// errText of the persistence commands, worded as Redis 7.0.
const (
	errSaveInProgress = "ERR Background save already in progress"
	errChildActive    = "ERR Another child process is active (AOF?): can't BGSAVE right now. " +
		"Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible."
	errMisconf = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. " +
		"Commands that may modify the data set are disabled, because this instance is configured to report errors " +
		"during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). " +
		"Please check the Redis logs for details about the RDB error."
	errShutdown = "ERR Errors trying to SHUTDOWN. Check logs."
)

var errSaveRunning = errors.New("server: a save is already in progress")

// saveStartHook, when set (tests only, before the server starts), runs in
// the save goroutine before it writes: a test holds a save open with it.
var saveStartHook func()

// rdbPath is the file saves write and the start-up load reads.
func (s *Server) rdbPath() string {
	return filepath.Join(*s.cfg.persist.dir.Load(), *s.cfg.persist.dbfilename.Load())
}

// changes is rdb_changes_since_last_save: changes counted (notify.go)
// since the snapshot of the last successful save.
func (s *Server) changes() int64 { return s.dirty.Load() }

// beginSave takes the snapshot of a save of kind and starts the save
// goroutine; errSaveRunning when a save runs already. park, when not nil,
// is parked until the save ends. any goroutine.
func (s *Server) beginSave(kind saveKind, park parked) error {
	p := &s.persist
	p.mu.Lock()
	if p.saving != saveNone {
		p.mu.Unlock()
		return errSaveRunning
	}
	p.saving, p.scheduled = kind, false
	p.started = time.Now()
	p.lastTry = p.started.Unix()
	if park.w != nil || park.done != nil {
		p.parked = append(p.parked, park)
	}
	p.dirtyAt = s.changes()
	job := s.snapshotForSave() // persist_rdb.go
	p.cur.Store(job.sn)        // cleared by job.write
	p.mu.Unlock()
	p.saves.Add(1)
	if kind == saveBg {
		p.startedAt.Store(p.started.UnixMilli())
		p.inBg.Store(true)
		s.log.Info("Background saving started", zap.String("file", s.rdbPath()))
	} else {
		s.log.Info("DB saving started", zap.String("file", s.rdbPath()))
	}
	path := s.rdbPath()
	go func() {
		if hook := saveStartHook; hook != nil {
			hook()
		}
		s.endSave(kind, job.write(p, path, s.cfg.persist.compression.Load(), s.cfg.persist.checksum.Load()))
	}()
	return nil
}

// endSave records a save's outcome and releases its parked clients.
// save goroutine.
func (s *Server) endSave(kind saveKind, err error) {
	p := &s.persist
	took := time.Since(p.started)
	if err == nil {
		s.dirty.Add(-p.dirtyAt)
		p.lastSave.Store(time.Now().Unix())
		s.log.Info("DB saved on disk", zap.String("file", s.rdbPath()), zap.Duration("took", took))
	} else {
		s.log.Warn("Error saving DB on disk", zap.String("file", s.rdbPath()), zap.Error(err))
	}
	if kind == saveBg {
		p.bgErr.Store(err != nil)
		p.lastBgSec.Store(int64(took / time.Second))
		p.inBg.Store(false)
	}
	p.mu.Lock()
	waiting := p.parked
	p.parked, p.saving = nil, saveNone
	again := p.scheduled
	p.mu.Unlock()
	reply := okReply
	if err != nil {
		reply = errBareReply
	}
	for _, pk := range waiting {
		if pk.done != nil {
			pk.done <- err
		} else {
			s.release(pk.w, reply)
		}
	}
	if again {
		_ = s.beginSave(saveBg, parked{})
	}
}

var (
	okReply      = []byte("+OK\r\n")
	errBareReply = []byte("-ERR\r\n") // Redis's shared.err: a failed SAVE says no more
)

// saveAndWait runs a foreground save to its end from a goroutine that may
// wait (not a loop) and returns its error.
func (s *Server) saveAndWait() error {
	done := make(chan error, 1)
	if err := s.beginSave(saveFg, parked{done: done}); err != nil {
		return err
	}
	return <-done
}

// persistTick checks the save rules, as Redis's serverCron: a background
// save starts when a rule's seconds have passed since the last save and at
// least its changes were made, and, after a failed save, not before
// bgsaveRetryDelay. It also starts a BGSAVE SCHEDULE'd while other work
// ran. ticker goroutine.
func (s *Server) persistTick(now time.Time) {
	p := &s.persist
	p.mu.Lock()
	busy, scheduled, lastTry := p.saving != saveNone, p.scheduled, p.lastTry
	p.mu.Unlock()
	if busy || s.persistLoading() || p.shutdown.Load() || s.aofRewriteRunning() {
		return
	}
	if scheduled {
		_ = s.beginSave(saveBg, parked{})
		return
	}
	dirty, sec := s.changes(), now.Unix()
	for _, sp := range *s.cfg.persist.points.Load() {
		if dirty >= sp.changes && sec-p.lastSave.Load() > sp.secs &&
			(sec-lastTry > bgsaveRetryDelay || !p.bgErr.Load()) {
			s.log.Info("Saving: changes reached the save rule", zap.Int64("changes", sp.changes), zap.Int64("seconds", sp.secs))
			_ = s.beginSave(saveBg, parked{})
			return
		}
	}
}

// persistLoading reports whether the start-up load runs (-LOADING).
func (s *Server) persistLoading() bool { return s.persist.loading.Load() }

// parkable reports whether c's client can be parked until its save ends
// (release). A client with no loop (in process, a bare test client) or
// inside EXEC is not: the handler waits for the save itself. owning loop
// only.
func parkable(c *cmdCtx) bool {
	return c.cl.conn != nil && c.cl.conn.ls != nil && c.cl.conn.ls.loop != nil && !c.cl.execing
}

// newParked returns the waiter of a client parked by a save: it holds no
// key, and counts as a blocked client (blocked_clients) until released.
func (s *Server) newParked(c *cmdCtx) *waiter {
	w := &waiter{conn: c.cl.conn, db: c.db(), proto: c.cl.proto}
	s.blocked.mu.Lock()
	s.blocked.n.Add(1)
	s.blocked.mu.Unlock()
	return w
}

// holdClient stops c's client from running further commands until w is
// released. owning loop only.
func holdClient(c *cmdCtx, w *waiter) { c.cl.blocked = w }

// release ends a parked client's wait with reply, unless its connection
// closed meanwhile. any goroutine.
func (s *Server) release(w *waiter, reply []byte) {
	bt := &s.blocked
	bt.mu.Lock()
	if w.state.Load() != waitBlocked {
		bt.mu.Unlock()
		return
	}
	w.reply = append(w.reply[:0], reply...)
	bt.dequeue(w)
	w.state.Store(waitServed)
	bt.mu.Unlock()
	w.conn.tc.Wake()
}

// checkDiskError is Redis's writeCommandsDeniedByDiskError: with
// stop-writes-on-bgsave-error, save rules and a failed last background
// save, write commands, PING and an EXEC of writes are refused.
func (s *Server) checkDiskError(c *cmdCtx, cmd *command) string {
	if !s.persist.bgErr.Load() || !s.cfg.persist.stopWrites.Load() || len(*s.cfg.persist.points.Load()) == 0 {
		return ""
	}
	if writeDenied(c, cmd) {
		return errMisconf
	}
	return ""
}

// writeDenied reports whether a disk error refuses cmd: writes, PING, and
// an EXEC that would run a write (Redis's processCommand, deny_write_type).
func writeDenied(c *cmdCtx, cmd *command) bool {
	return cmd.Flags&flagWrite != 0 || cmd.Name == "ping" && cmd.parent == nil || cmd.Name == "exec" && cmd.parent == nil && c.cl.multi.hasWrite()
}

// hasWrite reports whether the transaction queued a write command.
func (m *multiState) hasWrite() bool {
	if m == nil {
		return false
	}
	for _, q := range m.cmds {
		if q.cmd.Flags&flagWrite != 0 {
			return true
		}
	}
	return false
}

// The persistence settings' CONFIG rows.

// parseSavePoints parses "seconds changes ..." as Redis's CONFIG SET save:
// single spaces, seconds >= 1 and changes >= 0; "" means none.
func parseSavePoints(v string) ([]savePoint, bool) {
	if v == "" {
		return []savePoint{}, true
	}
	f := strings.Split(v, " ")
	if len(f)%2 != 0 {
		return nil, false
	}
	pts := make([]savePoint, 0, len(f)/2)
	for i := 0; i < len(f); i += 2 {
		secs, ok1 := strtoll(f[i])
		ch, ok2 := strtoll(f[i+1])
		if !ok1 || !ok2 || secs < 1 || ch < 0 {
			return nil, false
		}
		pts = append(pts, savePoint{secs, ch})
	}
	return pts, true
}

// strtoll is C's strtoll with the whole of v consumed: "" is 0.
func strtoll(v string) (int64, bool) {
	if v == "" {
		return 0, true
	}
	n, err := strconv.ParseInt(strings.TrimLeft(v, " \t"), 10, 64)
	return n, err == nil
}

func formatSavePoints(pts []savePoint) string {
	var b []byte
	for i, p := range pts {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, p.secs, 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, p.changes, 10)
	}
	return string(b)
}

// protectedParam wraps a setting Redis 7 protects: CONFIG SET refuses it
// while enable-protected-configs is no. (Redis's "local" allows loopback
// clients only; loopkv's setters do not see the client, so local allows
// every client.)
func protectedParam(p configParam) configParam {
	set := p.set
	p.set = func(s *Server, v string) string {
		if m := *s.cfg.persist.protected.Load(); m == "no" {
			return "can't set protected config"
		}
		return set(s, v)
	}
	return p
}

func init() { registerSettings(persistSettings...) }

// persistSettings are the RDB persistence settings.
var persistSettings = []configParam{
	{Setting: config.Setting{Name: "save", Default: defaultSavePoints, Type: config.String{}, Flags: config.Append,
		Help: "snapshot rules: SECONDS CHANGES pairs (save after SECONDS if CHANGES writes); empty for none"},
		get: func(s *Server) string { return formatSavePoints(*s.cfg.persist.points.Load()) },
		set: func(s *Server, v string) string {
			pts, ok := parseSavePoints(v)
			if !ok {
				return "Invalid save parameters"
			}
			s.cfg.persist.points.Store(&pts)
			return ""
		},
		opt:     func(o *Options, v config.Value) string { o.Persist.Save = v.S; return "" },
		rewrite: rewriteSave},
	protectedParam(configParam{Setting: config.Setting{Name: "dir", Default: ".", Type: config.String{},
		Help: "directory of the RDB file (an existing directory)"},
		get: func(s *Server) string { return *s.cfg.persist.dir.Load() },
		set: setDir,
		opt: func(o *Options, v config.Value) string { o.Persist.Dir = v.S; return "" }}),
	protectedParam(configParam{Setting: config.Setting{Name: "dbfilename", Default: defaultDBFilename, Type: config.String{},
		Help: "RDB file name, inside dir"},
		get: func(s *Server) string { return *s.cfg.persist.dbfilename.Load() },
		set: func(s *Server, v string) string {
			if strings.ContainsRune(v, '/') {
				return "dbfilename can't be a path, just a filename"
			}
			s.cfg.persist.dbfilename.Store(&v)
			return ""
		},
		opt: func(o *Options, v config.Value) string { o.Persist.DBFilename = v.S; return "" }}),
	atomicBool(config.Setting{Name: "rdbcompression", Default: "yes", Type: config.Bool{},
		Help: "compress strings in the RDB file with LZF"},
		func(s *Server) *atomic.Bool { return &s.cfg.persist.compression },
		func(o *Options) *string { return &o.Persist.RDBCompression }),
	{Setting: config.Setting{Name: "rdbchecksum", Default: "yes", Type: config.Bool{}, Flags: config.Immutable,
		Help: "end the RDB file with a CRC64 checksum"},
		get: func(s *Server) string { return yesNo(s.cfg.persist.checksum.Load()) },
		opt: func(o *Options, v config.Value) string { o.Persist.RDBChecksum = v.S; return "" }},
	atomicBool(config.Setting{Name: "stop-writes-on-bgsave-error", Default: "yes", Type: config.Bool{},
		Help: "refuse writes (MISCONF) after a failed background save"},
		func(s *Server) *atomic.Bool { return &s.cfg.persist.stopWrites },
		func(o *Options) *string { return &o.Persist.StopWritesOnBgsaveError }),
	atomicBool(config.Setting{Name: "rdb-del-sync-files", Default: "no", Type: config.Bool{},
		Help: "delete RDB files made for replication (accepted; no replication)"},
		func(s *Server) *atomic.Bool { return &s.cfg.persist.delSync },
		func(o *Options) *string { return &o.Persist.RDBDelSyncFiles }),
	atomicInt(config.Setting{Name: "key-load-delay", Default: "0", Type: config.Int{Min: math.MinInt32, Max: math.MaxInt32},
		Flags: config.Hidden, Help: "debug: microseconds the RDB loader waits after each key; below 0, 1 µs once in -N keys"},
		func(s *Server) *atomic.Int64 { return &s.cfg.persist.keyDelay }),
	{Setting: config.Setting{Name: "enable-protected-configs", Default: "no", Type: config.Enum{"no", "yes", "local"},
		Flags: config.Immutable, Help: "allow CONFIG SET of dir and dbfilename: no, yes or local"},
		get: func(s *Server) string { return *s.cfg.persist.protected.Load() },
		opt: func(o *Options, v config.Value) string { o.Persist.EnableProtectedConfigs = v.S; return "" }},
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// setDir is CONFIG SET dir: an existing directory, kept absolute. Unlike
// Redis it does not chdir: several servers may share a process.
func setDir(s *Server, v string) string {
	abs, err := filepath.Abs(v)
	if err != nil {
		return err.Error()
	}
	fi, err := os.Stat(abs)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return errnoText(pe.Err)
		}
		return err.Error()
	}
	if !fi.IsDir() {
		return "Not a directory"
	}
	s.cfg.persist.dir.Store(&abs)
	return ""
}

// errnoText is strerror's text for err, capitalised as C's.
func errnoText(err error) string {
	t := err.Error()
	if t == "" {
		return t
	}
	return strings.ToUpper(t[:1]) + t[1:]
}

// load applies o's persistence settings through CONFIG SET's parsers; the
// error names the first setting refused.
func (c *persistConfig) load(s *Server, o PersistOptions) error {
	prot := strings.ToLower(o.EnableProtectedConfigs)
	switch prot {
	case "":
		prot = "no"
	case "yes", "no", "local":
	default:
		return errors.New("server: enable-protected-configs: argument must be 'yes', 'no' or 'local': " + strconv.Quote(o.EnableProtectedConfigs))
	}
	yes := "yes"
	c.protected.Store(&yes) // start-up may set protected settings
	dir := o.Dir
	if dir == "" {
		dir = "."
	}
	if err := s.applyStartValues([]startValue{
		{"save", o.Save, ""},
		{"dir", dir, "."},
		{"dbfilename", o.DBFilename, defaultDBFilename},
		{"rdbcompression", o.RDBCompression, "yes"},
		{"stop-writes-on-bgsave-error", o.StopWritesOnBgsaveError, "yes"},
		{"rdb-del-sync-files", o.RDBDelSyncFiles, "no"},
	}); err != nil {
		return err
	}
	switch strings.ToLower(o.RDBChecksum) {
	case "", "yes":
		c.checksum.Store(true)
	case "no":
	default:
		return errors.New("server: rdbchecksum: argument must be 'yes' or 'no': " + strconv.Quote(o.RDBChecksum))
	}
	c.protected.Store(&prot)
	return nil
}

// PersistOptions are the RDB persistence settings as redis.conf writes
// them; "" means Redis's default, except Save: "" means no save rules (the
// library persists nothing by itself; cmd/loopkv passes Redis's default).
type PersistOptions struct {
	Save                    string // "seconds changes ..."
	Dir                     string // the directory of the RDB file; "" the working directory
	DBFilename              string // default dump.rdb
	RDBCompression          string // yes (default) or no
	RDBChecksum             string // yes (default) or no
	StopWritesOnBgsaveError string // yes (default) or no
	RDBDelSyncFiles         string // accepted; no (default)
	EnableProtectedConfigs  string // no (default), yes or local: whether CONFIG SET may change dir and dbfilename
	// LoadOnStart loads Dir/DBFilename, when it exists, before Serve
	// listens (persist_load.go).
	LoadOnStart bool
}

// infoRDB appends INFO persistence's loading and rdb_* fields, in Redis
// 7.0's order. There is no fork: the copy-on-write fields report what the
// store's snapshot copied for the writes that came before it (store/doc.go).
func (s *Server) infoRDB(b []byte) []byte {
	p := &s.persist
	b = infoInt(b, "loading", b2i(p.loading.Load()))
	b = infoInt(b, "async_loading", 0)
	b = infoInt(b, "current_cow_peak", 0)
	var held int64
	if sn := p.cur.Load(); sn != nil {
		held = sn.HeldBytes()
	}
	b = infoInt(b, "current_cow_size", held)
	b = infoInt(b, "current_cow_size_age", 0)
	b = infoLine(b, "current_fork_perc", "0.00")
	b = infoInt(b, "current_save_keys_processed", 0)
	b = infoInt(b, "current_save_keys_total", 0)
	b = infoInt(b, "rdb_changes_since_last_save", s.changes())
	inBg := p.inBg.Load()
	b = infoInt(b, "rdb_bgsave_in_progress", b2i(inBg))
	b = infoInt(b, "rdb_last_save_time", p.lastSave.Load())
	status := "ok"
	if p.bgErr.Load() {
		status = "err"
	}
	b = infoLine(b, "rdb_last_bgsave_status", status)
	b = infoInt(b, "rdb_last_bgsave_time_sec", p.lastBgSec.Load())
	cur := int64(-1)
	if inBg {
		cur = (time.Now().UnixMilli() - p.startedAt.Load()) / 1000
	}
	b = infoInt(b, "rdb_current_bgsave_time_sec", cur)
	b = infoInt(b, "rdb_saves", p.saves.Load())
	b = infoInt(b, "rdb_last_cow_size", p.lastCow.Load())
	b = infoInt(b, "rdb_last_load_keys_expired", p.expiredKeys.Load())
	return infoInt(b, "rdb_last_load_keys_loaded", p.loadedKeys.Load())
}
