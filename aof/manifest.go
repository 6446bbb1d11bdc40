package aof

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"

	"github.com/loopkv/loopkv/internal/fsx"
	"github.com/loopkv/loopkv/resp"
)

// File types of a manifest line (aof.c, AOF_FILE_TYPE_*).
const (
	typeBase = 'b' // the snapshot the incr files start from; at most one
	typeHist = 'h' // replaced by a rewrite, to be deleted
	typeIncr = 'i' // commands, in seq order
)

// Manifest limits. maxManifestLine is Redis's MANIFEST_MAX_LINE; Redis has
// no bound on the number of lines, we bound the file.
const (
	maxManifestLine = 1024
	maxManifestSize = 1 << 20
)

// Manifest reasons, worded as Redis 7.0 words them.
const (
	reasonEmpty       = "Found an empty AOF manifest"
	reasonLongLine    = "The AOF manifest file contains too long line"
	reasonFormat      = "Invalid AOF manifest file format"
	reasonPath        = "File can't be a path, just a filename"
	reasonDupBase     = "Found duplicate base file information"
	reasonNonMonotone = "Found a non-monotonic sequence number"
	reasonUnknownType = "Unknown AOF file type"
)

// fileInfo is one manifest line.
type fileInfo struct {
	name string
	seq  int64
	typ  byte
}

// manifest is the parsed manifest (aof.c, aofManifest). The base, if any,
// is written first, then the history files, then the incr files.
type manifest struct {
	base    *fileInfo
	hist    []fileInfo
	incr    []fileInfo
	baseSeq int64 // curr_base_file_seq: the seq of the last base named
	incrSeq int64 // curr_incr_file_seq: the seq of the last incr named
}

// clone returns a deep copy that can be changed without touching m.
func (m *manifest) clone() manifest {
	c := *m
	if m.base != nil {
		b := *m.base
		c.base = &b
	}
	c.hist = append([]fileInfo(nil), m.hist...)
	c.incr = append([]fileInfo(nil), m.incr...)
	return c
}

// parseManifest parses a manifest as Redis 7.0's aofLoadManifestFromFile
// does: the file is read in fgets chunks of at most 1024 bytes; a chunk
// starting with '#' is a comment; every other chunk must hold its LF (and no
// NUL before it); the trimmed line is split like sdssplitargs and must hold
// an even number (at least 6) of words, "file", "seq" and "type" pairs,
// keys matched without case. Unknown keys are ignored, as Redis ignores them
// for forward compatibility. seq is read as atoll reads it and must not be
// 0; the type is the value's first byte. Incr seqs must increase.
//
// Stricter than Redis: an empty file name is refused (Redis accepts it and
// then fails to open the directory as a file), and so is a manifest larger
// than 1 MiB.
func parseManifest(name string, data []byte) (manifest, error) {
	var m manifest
	fail := func(line int, reason string) (manifest, error) {
		return manifest{}, &ManifestError{File: name, Line: line, Reason: reason}
	}
	if len(data) > maxManifestSize {
		return fail(0, "manifest larger than 1 MiB")
	}
	var p resp.Parser
	var maxSeq int64
	lines := 0
	for len(data) > 0 {
		chunk := data[:min(len(data), maxManifestLine)]
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			chunk = chunk[:i+1]
		}
		data = data[len(chunk):]
		lines++
		if chunk[0] == '#' {
			continue
		}
		if i := bytes.IndexByte(chunk, 0); i >= 0 {
			chunk = chunk[:i] // C string functions stop at NUL
		}
		if bytes.IndexByte(chunk, '\n') < 0 {
			return fail(lines, reasonLongLine)
		}
		fi, reason := parseManifestLine(&p, chunk)
		if reason != "" {
			return fail(lines, reason)
		}
		switch fi.typ {
		case typeBase:
			if m.base != nil {
				return fail(lines, reasonDupBase)
			}
			m.base, m.baseSeq = &fi, fi.seq
		case typeHist:
			m.hist = append(m.hist, fi)
		case typeIncr:
			if fi.seq <= maxSeq {
				return fail(lines, reasonNonMonotone)
			}
			m.incr = append(m.incr, fi)
			m.incrSeq, maxSeq = fi.seq, fi.seq
		default:
			return fail(lines, reasonUnknownType)
		}
	}
	if lines == 0 {
		return fail(0, reasonEmpty)
	}
	return m, nil
}

// parseManifestLine parses one line that ends with LF; it returns Redis's
// reason for refusing it, or "".
func parseManifestLine(p *resp.Parser, chunk []byte) (fileInfo, string) {
	line := bytes.Trim(chunk, " \t\r\n")
	if len(line) == 0 {
		return fileInfo{}, reasonFormat
	}
	// The inline parser splits as sdssplitargs does; the leading blank keeps
	// a line that starts with '*' from being read as multibulk.
	in := make([]byte, 0, len(line)+2)
	in = append(append(append(in, ' '), line...), '\n')
	p.Reset()
	args, _, err := p.Next(in)
	if err != nil || len(args) < 6 || len(args)%2 != 0 {
		return fileInfo{}, reasonFormat
	}
	var fi fileInfo
	haveName := false
	for i := 0; i < len(args); i += 2 {
		k, v := args[i], args[i+1]
		switch {
		case bytes.EqualFold(k, []byte("file")):
			if bytes.ContainsAny(v, "/\\") {
				return fileInfo{}, reasonPath
			}
			fi.name, haveName = string(v), len(v) > 0
		case bytes.EqualFold(k, []byte("seq")):
			fi.seq = atoll(v)
		case bytes.EqualFold(k, []byte("type")):
			fi.typ = 0
			if len(v) > 0 {
				fi.typ = v[0]
			}
		}
	}
	if !haveName || fi.seq == 0 || fi.typ == 0 {
		return fileInfo{}, reasonFormat
	}
	return fi, ""
}

// atoll reads an integer as C's atoll does: leading white space, an
// optional sign, then digits up to the first other byte; 0 if none. It
// saturates instead of overflowing (glibc's strtoll does the same).
func atoll(b []byte) int64 {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] >= '\t' && b[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	var v uint64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if v > (1<<63)/10 {
			v = 1 << 63
			continue
		}
		v = v*10 + uint64(b[i]-'0')
	}
	switch {
	case neg && v >= 1<<63:
		return -1 << 63
	case neg:
		return -int64(v)
	case v >= 1<<63:
		return 1<<63 - 1
	}
	return int64(v)
}

// appendManifest appends m in Redis's format: "file NAME seq N type T\n"
// per file, the base first, then history, then incr (aof.c,
// getAofManifestAsString).
func appendManifest(dst []byte, m *manifest) []byte {
	if m.base != nil {
		dst = appendFileInfo(dst, m.base)
	}
	for i := range m.hist {
		dst = appendFileInfo(dst, &m.hist[i])
	}
	for i := range m.incr {
		dst = appendFileInfo(dst, &m.incr[i])
	}
	return dst
}

// appendFileInfo appends one manifest line (aof.c, aofInfoFormat).
func appendFileInfo(dst []byte, fi *fileInfo) []byte {
	dst = append(dst, "file "...)
	if needsRepr(fi.name) {
		dst = resp.AppendRepr(dst, fi.name)
	} else {
		dst = append(dst, fi.name...)
	}
	dst = append(dst, " seq "...)
	dst = strconv.AppendInt(dst, fi.seq, 10)
	dst = append(dst, " type "...)
	return append(dst, fi.typ, '\n')
}

// needsRepr reports whether a name must be written quoted, as Redis's
// sdsneedsrepr decides, and also for a single quote, which sdssplitargs
// would take as opening a quoted part (Redis writes such a name bare and
// then cannot read its own manifest).
func needsRepr(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' || c == '"' || c == '\'' || c <= ' ' || c >= 0x7f {
			return true
		}
	}
	return false
}

// writeManifest replaces the manifest file in dir: a temporary file,
// fsync, rename, fsync of the directory (aof.c, writeAofManifestFile).
func writeManifest(dir, fileName string, m *manifest) error {
	path := filepath.Join(dir, fileName+".manifest")
	tmp := filepath.Join(dir, "temp-"+fileName+".manifest")
	if err := writeFileSync(tmp, appendManifest(nil, m)); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return fsx.SyncDir(dir)
}

// writeFileSync writes data to a new file at path and fsyncs it.
func writeFileSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = fdatasync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
