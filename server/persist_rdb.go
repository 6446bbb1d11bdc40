package server

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/loopkv/loopkv/rdb"
	"github.com/loopkv/loopkv/store"
)

// The seam between the save machinery (persist.go) and the RDB encoder.

// saveJob is a snapshot on its way to a file.
type saveJob struct {
	sn         *store.Snapshot
	usedMem    int64
	idle, freq bool // write each key's IDLE or FREQ (rdbAccess)
}

// snapshotForSave takes the snapshot a save writes: O(shards) for the
// store; writes after it do not change what it holds. Called under
// persist.mu, at the save's instant.
func (s *Server) snapshotForSave() saveJob {
	j := saveJob{sn: s.store.Snapshot(), usedMem: s.store.UsedMemory()}
	j.idle, j.freq = s.rdbAccess()
	return j
}

// rdbAccess says which access field a saved key carries, as Redis's
// rdbSaveKeyValuePair decides by maxmemory-policy alone: its idle time
// under the LRU policies, its LFU counter under the LFU ones.
func (s *Server) rdbAccess() (idle, freq bool) {
	p := store.Policy(s.cfg.mem.policy.Load())
	return p == store.AllKeysLRU || p == store.VolatileLRU, p.LFU()
}

// write encodes the snapshot into path with rdb.WriteFile (a temporary
// file in the same directory, fsynced, renamed over path, the directory
// fsynced: a failed save leaves the last good file whole), yielding the
// processor between chunks so the loops keep theirs, and frees it. It
// records the bytes the snapshot copied (rdb_last_cow_size). save
// goroutine.
func (j saveJob) write(p *persistState, path string, compress, checksum bool) error {
	defer func() {
		p.cur.Store(nil)
		p.lastCow.Store(j.sn.ClonedBytes())
		j.sn.Close()
	}()
	_, err := rdb.WriteFile(path, j.sn, rdb.Options{Compress: compress, Checksum: checksum, UsedMem: j.usedMem, Yield: true,
		Idle: j.idle, Freq: j.freq})
	return err
}

// loadRDBFile loads the RDB file at path into the store: the keys loaded
// and the keys skipped as expired, or an error naming path and the offset.
func (s *Server) loadRDBFile(path string) (keys, expired int64, err error) {
	return s.loadRDBInto(s.store, false, path, false)
}

// loadRDBInto is loadRDBFile into st (the store, or, locked, DEBUG
// RELOAD's Lock view of every shard) where, when replace, a key of the file replaces the store's
// instead of being an error. Its progress goes to INFO's loading_* fields
// as it reads.
func (s *Server) loadRDBInto(st *store.Store, locked bool, path string, replace bool) (keys, expired int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, fmt.Errorf("server: loading RDB file %s: %w", path, err)
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	lp := &s.persist.progress
	lp.begin(size)
	ls, err := rdb.Load(loadReader{f, &lp.loaded}, st, rdb.LoadOptions{Now: time.Now().UnixMilli(), Replace: replace,
		NoChecksum: !s.cfg.persist.checksum.Load(), Locked: locked, Aux: s.loadAux, Key: s.loadKey})
	if err != nil {
		var re *rdb.Error
		if errors.As(err, &re) {
			return 0, 0, fmt.Errorf("server: bad RDB file %s at byte offset %d: %s", path, re.Offset, re.Reason)
		}
		return 0, 0, fmt.Errorf("server: loading RDB file %s: %w", path, err)
	}
	return ls.Keys, ls.Expired, nil
}
