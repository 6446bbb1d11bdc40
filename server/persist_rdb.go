package server

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/loopkv/loopkv/rdb"
	"github.com/loopkv/loopkv/store"
)

// The seam between the save machinery (persist.go) and the RDB encoder.

// saveJob is a snapshot on its way to a file.
type saveJob struct {
	sn      *store.Snapshot
	usedMem int64
}

// snapshotForSave takes the snapshot a save writes: O(shards) for the
// store; writes after it do not change what it holds. Called under
// persist.mu, at the save's instant.
func (s *Server) snapshotForSave() saveJob {
	return saveJob{sn: s.store.Snapshot(), usedMem: s.store.UsedMemory()}
}

// write encodes the snapshot into path and frees it: into a temporary
// file in the same directory, fsynced, renamed over path, and the
// directory fsynced, so that a failed save leaves the last good file
// whole. save goroutine.
func (j saveJob) write(path string, compress, checksum bool) (err error) {
	defer j.sn.Close()
	f, err := os.CreateTemp(filepath.Dir(path), "temp-*.rdb")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	_, err = rdb.Write(yieldingWriter{f}, j.sn, rdb.Options{Compress: compress, Checksum: checksum, UsedMem: j.usedMem})
	for _, step := range []func() error{f.Sync, f.Close} {
		if e := step(); err == nil {
			err = e
		}
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err == nil {
		err = syncDir(filepath.Dir(path))
	}
	return err
}

// yieldingWriter hands the processor back to the scheduler after each
// chunk the encoder writes (64 KiB, about 0.1 ms of encoding). A loop
// whose epoll wait returned while the save held its P runs at once,
// instead of after Go's 10 ms preemption slice: with as many loops as
// processors, the save takes only the CPU the loops leave.
type yieldingWriter struct{ w io.Writer }

func (y yieldingWriter) Write(p []byte) (int, error) {
	n, err := y.w.Write(p)
	runtime.Gosched()
	return n, err
}

// syncDir fsyncs dir so that a rename in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
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
