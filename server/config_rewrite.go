package server

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"go.uber.org/zap"

	"github.com/loopkv/loopkv/config"
)

// cmdConfigRewrite is CONFIG REWRITE: the config file the server started
// from, rewritten from the settings table as Redis 7.0 rewrites it
// (config.Rewrite), written to a temporary file that replaces it.
func cmdConfigRewrite(c *cmdCtx) {
	s := c.srv
	file := s.opts.ConfigFile
	if file == "" {
		c.errReply("ERR The server is running without a config file")
		return
	}
	if err := s.rewriteConfig(file); err != nil {
		s.log.Warn("CONFIG REWRITE failed", zap.Error(err))
		c.errReply("ERR Rewriting config file: " + errnoText(errnoOf(err)))
		return
	}
	s.log.Warn("CONFIG REWRITE executed with success.")
	c.ok()
}

// rewriteConfig rewrites file from the current settings.
func (s *Server) rewriteConfig(file string) error {
	old, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	rows := settingsTable()
	entries := make([]config.Entry, 0, len(rows))
	for i := range rows {
		p := &rows[i]
		if p.Flags&config.NoRewrite != 0 {
			continue
		}
		e := config.Entry{Name: p.Name}
		if p.rewrite != nil {
			e.Lines = p.rewrite(s)
		} else {
			cur := p.get(s)
			e.Lines = config.Lines(!p.isDefault(cur), p.Texts(cur)...)
		}
		entries = append(entries, e)
	}
	out := config.Rewrite(old, entries, func(name string) (string, bool) {
		if p := findConfigParam([]byte(name)); p != nil {
			return p.Name, true
		}
		return "", false
	})
	return writeFileAtomic(file, out)
}

// isDefault reports whether cur, as get shows it, is the row's default.
func (p *configParam) isDefault(cur string) bool {
	if cur == p.Default {
		return true
	}
	def, msg := p.Parse(p.Default)
	return msg == "" && def.S == cur
}

// writeFileAtomic writes b to a temporary file beside path, syncs it and
// renames it over path, keeping path's mode.
func writeFileAtomic(path string, b []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".rewrite-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, mode)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// errnoOf is the errno inside err, or err itself.
func errnoOf(err error) error {
	for e := err; e != nil; {
		if n, ok := e.(syscall.Errno); ok {
			return n
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			break
		}
		e = u.Unwrap()
	}
	return err
}

// rewriteSave writes one "save SECONDS CHANGES" line per rule, or
// save "" for none; always, as Redis 7.0 does.
func rewriteSave(s *Server) []config.Line {
	f := strings.Fields(findConfigParam([]byte("save")).get(s))
	if len(f) == 0 {
		return config.Lines(true, `save ""`)
	}
	var lines []string
	for i := 0; i+1 < len(f); i += 2 {
		lines = append(lines, "save "+f[i]+" "+f[i+1])
	}
	return config.Lines(true, lines...)
}
