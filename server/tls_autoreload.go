package server

import (
	"os"
	"path/filepath"
	"slices"
	"time"
)

// tls-auto-reload-interval (Valkey 9.1's name): every that many seconds
// the certificate, key and CA files are checked for a change (size,
// modification time or inode, as a rename into place gives), and the
// configuration is rebuilt when one changed. A build that fails (a
// certificate written before its key, a half-written file) keeps the
// current material, is logged and counted (tls_reload_failures,
// tls_last_reload_error), and is tried again once the files change again.
// 0, the default, checks nothing.

// tlsFileStamp is what a check compares of one file.
type tlsFileStamp struct {
	path  string
	size  int64
	mtime int64  // UnixNano
	ino   uint64 // 0 where the platform has none
	err   bool   // the file could not be read
}

// tlsFileStamps stamps every file o reads: the pairs, the CA file and the
// files of the CA directory, in a fixed order.
func tlsFileStamps(o TLSOptions) []tlsFileStamp {
	paths := append(append([]string(nil), o.CertFiles...), o.KeyFiles...)
	if o.CACertFile != "" {
		paths = append(paths, o.CACertFile)
	}
	if o.CACertDir != "" {
		ents, _ := os.ReadDir(o.CACertDir)
		for _, e := range ents {
			paths = append(paths, filepath.Join(o.CACertDir, e.Name()))
		}
	}
	stamps := make([]tlsFileStamp, len(paths))
	for i, p := range paths {
		stamps[i].path = p
		fi, err := os.Stat(p)
		if err != nil {
			stamps[i].err = true
			continue
		}
		stamps[i].size, stamps[i].mtime, stamps[i].ino = fi.Size(), fi.ModTime().UnixNano(), fileIno(fi)
	}
	return stamps
}

// autoReload checks the files once a second against the interval CONFIG
// SET may change, until close. It runs on its own goroutine.
func (t *tlsState) autoReload() {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	// seen is what the last build was tried from: the current
	// configuration's files, or the ones of a failed build.
	seen := tlsFileStamps(t.options())
	var last time.Time
	for {
		select {
		case <-t.quit:
			return
		case now := <-tick.C:
			o := t.options()
			every := time.Duration(o.AutoReloadInterval) * time.Second
			if o.Config != nil || every <= 0 || now.Sub(last) < every {
				continue
			}
			last = now
			if stamps := tlsFileStamps(o); !slices.Equal(stamps, seen) {
				seen = stamps
				_ = t.reload("file change") // logs and counts a failure; the old material stays
			}
		}
	}
}
