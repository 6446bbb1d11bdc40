package server

import (
	"errors"
	"fmt"
	"time"

	"github.com/loopkv/loopkv/rdb"
)

// The seam between the save machinery (persist.go) and the RDB encoder.

// saveJob is a snapshot on its way to a file.
type saveJob struct{}

// snapshotForSave takes the snapshot a save writes. Called under
// persist.mu, at the save's instant.
func (s *Server) snapshotForSave() saveJob { return saveJob{} }

// write encodes the snapshot into path (a temporary file, fsynced, then
// renamed) and frees it. save goroutine.
func (j saveJob) write(path string, compress, checksum bool) error {
	return errors.New("server: RDB encoding is not available in this build")
}

// loadRDBFile loads the RDB file at path into the store: the keys loaded
// and the keys skipped as expired, or an error naming path and the offset.
func (s *Server) loadRDBFile(path string) (keys, expired int64, err error) {
	st, err := rdb.LoadFile(path, s.store, rdb.LoadOptions{Now: time.Now().UnixMilli()})
	if err != nil {
		var re *rdb.Error
		if errors.As(err, &re) {
			return 0, 0, fmt.Errorf("server: bad RDB file %s at byte offset %d: %s", path, re.Offset, re.Reason)
		}
		return 0, 0, fmt.Errorf("server: loading RDB file %s: %w", path, err)
	}
	return st.Keys, st.Expired, nil
}
