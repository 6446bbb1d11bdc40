package server

import "errors"

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
	return 0, 0, errors.New("server: " + path + ": RDB decoding is not available in this build")
}
