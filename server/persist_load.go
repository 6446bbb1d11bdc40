package server

import (
	"errors"
	"io/fs"
	"os"
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
