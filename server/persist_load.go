package server

import (
	"errors"
	"io/fs"
	"os"
	"time"

	"go.uber.org/zap"
)

// loadOnStart loads dir/dbfilename before the server listens, when
// Persist.LoadOnStart is set and the file exists, as Redis's loadDataFromDisk.
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
	p.loading.Store(true)
	defer p.loading.Store(false)
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
