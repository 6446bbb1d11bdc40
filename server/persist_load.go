package server

import (
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// errLoading is Redis's shared.loadingerr.
const errLoading = "LOADING Redis is loading the dataset in memory"

// deniedWhileLoading reports whether cmd must wait for the start-up load
// (-LOADING): a command without the loading flag, or an EXEC with one
// queued, as Redis's processCommand decides.
func deniedWhileLoading(cl *client, cmd *command) bool {
	if cmd.Flags&flagLoading == 0 {
		return true
	}
	if cl.multi == nil || cmd.Name != "exec" || cmd.parent != nil {
		return false
	}
	for _, q := range cl.multi.cmds {
		if q.cmd.Flags&flagLoading == 0 {
			return true
		}
	}
	return false
}

// loadData runs the start-up load on its own goroutine once the server
// listens, as Redis's loadDataFromDisk runs while its event loop answers
// -LOADING: the AOF when appendonly is on (it wins over the RDB file),
// else dir/dbfilename. Meanwhile the loops serve only the commands with
// the loading flag (INFO, CONFIG, CLIENT, ...). It closes s.ready when the
// data is in; on a bad file it records the error, which Serve returns,
// and stops the server, as Redis exits.
func (s *Server) loadData() {
	defer close(s.loaded)
	if loadHook != nil {
		loadHook(s)
	}
	loaded, err := s.loadAOF() // aof.go
	if err == nil && !loaded {
		err = s.loadOnStart()
	}
	s.persist.loading.Store(false)
	if errors.Is(err, errLoadStopped) {
		s.log.Info("Loading stopped by the shutdown")
		return
	}
	if err != nil {
		s.loadErr = err
		s.requestShutdown()
		return
	}
	close(s.ready)
}

// loadHook, when set (by tests), runs before the start-up load.
var loadHook func(s *Server)

// loadOnStart loads dir/dbfilename when Persist.LoadOnStart is set and
// the file exists, as Redis's loadDataFromDisk.
// A bad file (wrong checksum, unknown type, truncated) is an error naming
// the file and the byte offset, and leaves the keyspace empty: nothing is
// served from half a file.
func (s *Server) loadOnStart() error {
	if !s.opts.Persist.LoadOnStart {
		return nil
	}
	path := s.rdbPath()
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	p := &s.persist
	start := time.Now()
	keys, expired, err := s.loadRDBFile(path) // persist_rdb.go
	if errors.Is(err, errLoadStopped) {
		return err
	}
	if err != nil {
		s.store.FlushAll()
		s.log.Error("Fatal error loading the DB, exiting", zap.String("file", path), zap.Error(err))
		return err
	}
	p.loadedKeys.Store(keys)
	p.expiredKeys.Store(expired)
	s.log.Info("DB loaded from disk", zap.String("file", path), zap.Int64("keys", keys),
		zap.Int64("expired", expired), zap.Duration("took", time.Since(start)))
	return nil
}

// loadProgress is what INFO persistence shows of a load while it runs,
// Redis's loading_* fields: written by the loader's goroutine, read by
// INFO on a loop, through atomics only (the loader takes no lock).
type loadProgress struct {
	start   atomic.Int64 // loading_start_time: Unix seconds
	total   atomic.Int64 // loading_total_bytes: the file's size, or the AOF base's and incr files' sum
	usedMem atomic.Int64 // loading_rdb_used_mem: the RDB's used-mem aux field; 0 without one
	loaded  atomic.Int64 // loading_loaded_bytes: 0 <= loaded <= total
	stop    atomic.Bool  // Stop came: the loader gives up at its next key

	owed time.Duration // key-load-delay not slept yet; the loader's only
}

// begin starts the report of a load of total bytes, as Redis's
// startLoading.
func (lp *loadProgress) begin(total int64) {
	lp.start.Store(time.Now().Unix())
	lp.total.Store(total)
	lp.usedMem.Store(0)
	lp.loaded.Store(0)
	lp.owed = 0
}

// delay paces the load at d µs a key (key-load-delay; below 0, 1 µs once
// in -d keys, as Redis's debugDelay). It sleeps once the delays add up to
// a millisecond, and counts what a sleep overran against the next ones:
// a sleep of a few µs lasts far longer. Loader only.
func (lp *loadProgress) delay(d int64) {
	if d < 0 {
		if rand.Int64N(-d) != 0 {
			return
		}
		d = 1
	}
	lp.owed += time.Duration(d) * time.Microsecond
	if lp.owed < time.Millisecond {
		return
	}
	t := time.Now()
	time.Sleep(lp.owed)
	lp.owed -= time.Since(t)
}

// markLoading sets loading (INFO loading:1, -LOADING) for the start-up
// load before the loops listen, its report begun with a size not known yet.
func (s *Server) markLoading(on bool) {
	if on {
		s.persist.progress.begin(0)
	}
	s.persist.loading.Store(on)
}

// infoLoading appends the loading_* fields while a load runs, with Redis
// 7.0's names, order and formats (server.c, genRedisInfoString): the
// percentage over total+1 bytes, and the ETA from the elapsed seconds and
// the rate so far, 1 within the first second.
func (s *Server) infoLoading(b []byte) []byte {
	if !s.persist.loading.Load() {
		return b
	}
	lp := &s.persist.progress
	start, total, loaded := lp.start.Load(), lp.total.Load(), lp.loaded.Load()
	perc := float64(loaded) / float64(total+1) * 100
	eta := int64(1)
	if elapsed := time.Now().Unix() - start; elapsed != 0 {
		eta = elapsed * (total - loaded) / (loaded + 1)
	}
	b = infoInt(b, "loading_start_time", start)
	b = infoInt(b, "loading_total_bytes", total)
	b = infoInt(b, "loading_rdb_used_mem", lp.usedMem.Load())
	b = infoInt(b, "loading_loaded_bytes", loaded)
	b = infoLine(b, "loading_loaded_perc", strconv.FormatFloat(perc, 'f', 2, 64))
	return infoInt(b, "loading_eta_seconds", eta)
}

// loadReader counts the bytes a load reads into loading_loaded_bytes.
type loadReader struct {
	r io.Reader
	n *atomic.Int64
}

func (lr loadReader) Read(p []byte) (int, error) {
	n, err := lr.r.Read(p)
	lr.n.Add(int64(n))
	return n, err
}

// loadAux takes an RDB aux field as the loader reads it: used-mem is
// loading_rdb_used_mem, as Redis's rdbLoadRio reads it.
func (s *Server) loadAux(k, v []byte) {
	if string(k) == "used-mem" {
		n, _ := strconv.ParseInt(string(v), 10, 64)
		s.persist.progress.usedMem.Store(n)
	}
}

// loadKey follows an RDB load key by key: rdb_last_load_keys_loaded and
// _expired grow as Redis's do, and the load is paced and stopped as
// loadStep says.
func (s *Server) loadKey(loaded, expired int64) error {
	p := &s.persist
	p.loadedKeys.Store(loaded)
	p.expiredKeys.Store(expired)
	return s.loadStep()
}

// loadStep runs after each key of an RDB load and each command of an AOF
// replay: a Stop ends the load (errLoadStopped), and key-load-delay slows
// it (Redis's debugDelay, which rdbLoadRio runs per key and
// loadSingleAppendOnlyFile per command) so that tests see it run. The
// loader is never on a loop.
func (s *Server) loadStep() error {
	p := &s.persist
	if p.progress.stop.Load() {
		return errLoadStopped
	}
	if d := s.cfg.persist.keyDelay.Load(); d != 0 {
		p.progress.delay(d)
	}
	return nil
}
