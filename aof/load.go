package aof

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/loopkv/loopkv/resp"
)

// LoadStats describes what Load read.
type LoadStats struct {
	Files    int   // base and incr files read
	Bytes    int64 // their total size before any truncation
	Commands int64 // commands given to apply
	BaseRDB  bool  // the base was an RDB file, given to base

	// Truncated reports a torn tail cut off the last file (LoadTruncated):
	// the file is now TruncatedAt bytes long, having lost TruncatedBytes.
	// RevertedMulti reports that the cut removed a MULTI without its EXEC.
	Truncated      bool
	TruncatedFile  string
	TruncatedAt    int64
	TruncatedBytes int64
	RevertedMulti  bool
}

// maxAnnotation bounds a '#' annotation line (Redis reads them with fgets
// into AOF_ANNOTATION_LINE_MAX_LEN, 1024, bytes).
const maxAnnotation = 1024

// Load replays the log: the base, then every incr file in manifest order
// (aof.c, loadAppendOnlyFiles). An RDB base (one that starts with "REDIS")
// is handed to base with rdbFormat true, to be decoded by the caller; an
// AOF-format base is parsed like the incr files, so base is never called
// with false. Each command goes to apply as its arguments, which alias an
// internal buffer until apply returns.
//
// A transaction is given to apply only once its EXEC has been read: MULTI,
// the queued commands, then EXEC, as Redis queues them on its AOF client.
// A MULTI still open at the end of the last file, and a command torn off
// at its end, are a torn tail: with LoadTruncated the file is cut back to
// the end of the last complete command outside a transaction (Redis would
// cut a tear inside a transaction after the last complete command, leaving
// a MULTI that swallows what is appended next), otherwise Load fails. A
// torn tail on any other file, a format error or a failed apply fails with
// a *LoadError naming the file and offset. A file the manifest lists that
// does not exist fails too.
func (l *Log) Load(base func(r io.Reader, rdbFormat bool) error, apply func(args [][]byte) error) (LoadStats, error) {
	l.mmu.Lock()
	m := l.man.clone()
	l.mmu.Unlock()
	var files []fileInfo
	if m.base != nil {
		files = append(files, *m.base)
	}
	files = append(files, m.incr...)
	var st LoadStats
	for _, fi := range files {
		size, err := statListed(l.path(fi.name))
		if err != nil {
			return st, &LoadError{File: fi.name, Reason: "can't open the append log file", Err: err}
		}
		st.Bytes += size
	}
	lastIdx := len(files) - 1
	if lastIdx > 0 && files[lastIdx].name == l.openedIncr {
		lastIdx-- // the empty file Open added: Redis loads before it adds one
	}
	ld := loader{lim: l.o.Limits, apply: apply, st: &st, pr: progressReader{total: st.Bytes, fn: l.o.LoadProgress}}
	if ld.pr.fn != nil {
		ld.pr.fn(0, st.Bytes)
	}
	for i, fi := range files {
		last := i == lastIdx
		st.Files++
		if err := ld.file(l.path(fi.name), fi.name, fi.typ == typeBase, last, l.o.LoadTruncated, base); err != nil {
			return st, err
		}
	}
	l.refreshSizes()
	return st, nil
}

// statListed returns the size of a file the manifest lists.
func statListed(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, errors.New("doesn't exist")
		}
		return 0, err
	}
	return fi.Size(), nil
}

// loader replays files; its buffers are reused from file to file.
type loader struct {
	lim   resp.Limits
	apply func(args [][]byte) error
	st    *LoadStats
	cr    cmdReader
	tx    txQueue
	pr    progressReader
}

// progressReader counts the bytes read from the files for
// Options.LoadProgress; with no fn it only passes the reads on.
type progressReader struct {
	r           io.Reader
	done, total int64
	fileStart   int64 // done when the current file was opened
	fn          func(done, total int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if p.fn != nil && n > 0 {
		p.done += int64(n)
		p.fn(p.done, p.total)
	}
	return n, err
}

// open starts counting file r.
func (p *progressReader) open(r io.Reader) io.Reader {
	p.r, p.fileStart = r, p.done
	if p.fn == nil {
		return r
	}
	return p
}

// file replays one file (aof.c, loadSingleAppendOnlyFile).
func (ld *loader) file(path, name string, isBase, last, truncate bool, base func(io.Reader, bool) error) error {
	f, err := os.Open(path)
	if err != nil {
		return &LoadError{File: name, Reason: "can't open the append log file", Err: err}
	}
	defer f.Close()
	r := ld.pr.open(f)
	if isBase {
		br := bufio.NewReaderSize(r, 64<<10)
		if sig, _ := br.Peek(5); string(sig) == "REDIS" {
			ld.st.BaseRDB = true
			if base == nil {
				return &LoadError{File: name, Reason: "RDB base file and no RDB loader"}
			}
			if err := base(br, true); err != nil {
				return &LoadError{File: name, Reason: "error reading the RDB base file", Err: err}
			}
			return nil
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return &LoadError{File: name, Reason: "seek", Err: err}
		}
		ld.pr.done = ld.pr.fileStart
	}
	ld.cr.reset(r, ld.lim)
	ld.tx.reset()
	valid := int64(0) // the end of the last complete command outside MULTI
	for {
		args, start, err := ld.cr.next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return ld.tornTail(path, name, start, valid, last, truncate)
		}
		if err != nil {
			return loadError(name, start, err)
		}
		if err := ld.command(args, start); err != nil {
			return &LoadError{File: name, Offset: start, Reason: "applying a command", Err: err}
		}
		if !ld.tx.open {
			valid = ld.cr.offset()
		}
	}
	if ld.tx.open {
		return ld.tornTail(path, name, ld.tx.start, valid, last, truncate)
	}
	return nil
}

// loadError describes an error of cmdReader.next.
func loadError(name string, start int64, err error) error {
	var rerr readError
	if errors.As(err, &rerr) {
		return &LoadError{File: name, Offset: start, Reason: "unrecoverable error reading the append only file", Err: rerr.err}
	}
	return &LoadError{File: name, Offset: start, Reason: "bad file format reading the append only file", Err: err}
}

// command applies one command, or queues it inside MULTI.
func (ld *loader) command(args [][]byte, start int64) error {
	if !ld.tx.open {
		if bytes.EqualFold(args[0], []byte("multi")) {
			ld.tx.begin(args, start)
			return nil
		}
		ld.st.Commands++
		return ld.apply(args)
	}
	if !bytes.EqualFold(args[0], []byte("exec")) {
		ld.tx.add(args)
		return nil
	}
	ld.tx.add(args)
	err := ld.tx.each(func(a [][]byte) error {
		ld.st.Commands++
		return ld.apply(a)
	})
	ld.tx.reset()
	return err
}

// tornTail handles an incomplete command or transaction at start: it cuts
// the file at valid if allowed, else fails.
func (ld *loader) tornTail(path, name string, start, valid int64, last, truncate bool) error {
	reason := "unexpected end of file reading the append only file"
	if ld.tx.open {
		reason, start = "incomplete MULTI/EXEC transaction", ld.tx.start
	}
	if !truncate || !last {
		if truncate {
			reason += " (the truncated file is not the last file)"
		}
		return &LoadError{File: name, Offset: start, Reason: reason}
	}
	size := ld.cr.offset() + int64(ld.cr.buffered())
	if err := os.Truncate(path, valid); err != nil {
		return &LoadError{File: name, Offset: valid, Reason: "error truncating the AOF file", Err: err}
	}
	ld.st.Truncated, ld.st.TruncatedFile = true, name
	ld.st.TruncatedAt, ld.st.TruncatedBytes = valid, size-valid
	ld.st.RevertedMulti = ld.tx.open
	return nil
}

// cmdReader reads commands from a file through a growing buffer, in the
// AOF grammar: multibulk commands and '#' annotation lines.
type cmdReader struct {
	r      io.Reader
	p      resp.Parser
	buf    []byte
	lo, hi int   // unread bytes are buf[lo:hi]
	base   int64 // file offset of buf[0]
	eof    bool
}

func (c *cmdReader) reset(r io.Reader, lim resp.Limits) {
	c.r, c.lo, c.hi, c.base, c.eof = r, 0, 0, 0, false
	c.p.Reset()
	c.p.Limits = lim
	if c.buf == nil {
		c.buf = make([]byte, 64<<10)
	}
}

// offset is the file offset of the next unread byte.
func (c *cmdReader) offset() int64 { return c.base + int64(c.lo) }

// buffered is the number of bytes read from the file and not consumed.
func (c *cmdReader) buffered() int { return c.hi - c.lo }

// next returns the next command and its offset. io.EOF: the file ended
// cleanly; io.ErrUnexpectedEOF: it ended inside a command; any other error
// is a format error.
func (c *cmdReader) next() (args [][]byte, start int64, err error) {
	for {
		start = c.offset()
		if c.lo == c.hi {
			if c.eof {
				return nil, start, io.EOF
			}
			if err := c.fill(0); err != nil {
				return nil, start, err
			}
			continue
		}
		switch c.buf[c.lo] {
		case '#':
			i := bytes.IndexByte(c.buf[c.lo:c.hi], '\n')
			switch {
			case i >= 0 && i < maxAnnotation:
				c.lo += i + 1
				continue
			case i >= 0 || c.hi-c.lo >= maxAnnotation:
				return nil, start, errors.New("annotation line too long")
			case c.eof: // Redis's fgets takes an unterminated last line as a line
				c.lo = c.hi
				continue
			}
			if err := c.fill(0); err != nil {
				return nil, start, err
			}
			continue
		case '*':
		default:
			return nil, start, errors.New("expected '*' at the start of a command")
		}
		args, n, err := c.p.Next(c.buf[c.lo:c.hi])
		if err != nil {
			return nil, start, err
		}
		if n > 0 {
			c.lo += n
			if len(args) == 0 {
				return nil, start, errors.New("invalid multibulk length")
			}
			return args, start, nil
		}
		if c.eof {
			return nil, start, io.ErrUnexpectedEOF
		}
		if err := c.fill(c.p.Pending()); err != nil {
			return nil, start, err
		}
	}
}

// fill reads more of the file after buf[lo:hi], moving the unread bytes to
// the front and growing buf so that at least need unread bytes fit.
func (c *cmdReader) fill(need int) error {
	if c.lo > 0 {
		n := copy(c.buf, c.buf[c.lo:c.hi])
		c.base += int64(c.lo)
		c.lo, c.hi = 0, n
	}
	if c.hi == len(c.buf) || need > len(c.buf) {
		nb := make([]byte, max(2*len(c.buf), need+1))
		copy(nb, c.buf[:c.hi])
		c.buf = nb
	}
	n, err := c.r.Read(c.buf[c.hi:])
	c.hi += n
	switch {
	case err == io.EOF:
		c.eof = true
	case err != nil:
		return readError{err}
	}
	return nil
}

// readError is an I/O error reading a file, as opposed to bad content.
type readError struct{ err error }

func (e readError) Error() string { return e.err.Error() }

// txQueue holds the commands of an open MULTI, copied, until its EXEC.
type txQueue struct {
	open  bool
	start int64    // offset of the MULTI
	arena []byte   // the arguments' bytes
	ends  []int    // end of each argument in arena
	argc  []int    // arguments per command
	args  [][]byte // scratch for each
}

func (q *txQueue) reset() {
	q.open, q.arena, q.ends, q.argc = false, q.arena[:0], q.ends[:0], q.argc[:0]
}

func (q *txQueue) begin(args [][]byte, start int64) {
	q.reset()
	q.open, q.start = true, start
	q.add(args)
}

func (q *txQueue) add(args [][]byte) {
	for _, a := range args {
		q.arena = append(q.arena, a...)
		q.ends = append(q.ends, len(q.arena))
	}
	q.argc = append(q.argc, len(args))
}

// each calls fn with each queued command in order.
func (q *txQueue) each(fn func(args [][]byte) error) error {
	k, from := 0, 0
	for _, n := range q.argc {
		q.args = q.args[:0]
		for range n {
			q.args = append(q.args, q.arena[from:q.ends[k]:q.ends[k]])
			from = q.ends[k]
			k++
		}
		if err := fn(q.args); err != nil {
			return err
		}
	}
	return nil
}
