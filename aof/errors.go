package aof

import (
	"errors"
	"strconv"
)

// Errors of the Log's life cycle.
var (
	// ErrClosed is returned by calls on a closed Log.
	ErrClosed = errors.New("aof: log closed")
	// ErrRewriteInProgress is returned by Rewrite while a rewrite runs; the text is Redis's reply to BGREWRITEAOF.
	ErrRewriteInProgress = errors.New("Background append only file rewriting already in progress")
)

// ManifestError is a manifest that cannot be read. Reason is Redis 7.0's
// text for the fault (aof.c, aofLoadManifestFromFile), such as "Invalid AOF
// manifest file format"; Line is the 1-based line (fgets chunk of at most
// 1024 bytes, as Redis counts them), 0 when the fault is not on one line.
type ManifestError struct {
	File   string
	Line   int
	Reason string
}

// Error returns "aof: manifest F: line N: reason".
func (e *ManifestError) Error() string {
	s := "aof: manifest " + e.File + ": "
	if e.Line > 0 {
		s += "line " + strconv.Itoa(e.Line) + ": "
	}
	return s + e.Reason
}

// LoadError is a fault found while loading one file of the log. Offset is
// the byte offset in File of the command (or RDB) that could not be
// loaded; Err, if not nil, is the cause (an error of apply or base, an I/O
// error, or a resp.ProtocolError).
type LoadError struct {
	File   string
	Offset int64
	Reason string
	Err    error
}

// Error returns "aof: file F: offset N: reason".
func (e *LoadError) Error() string {
	s := "aof: file " + e.File + ": offset " + strconv.FormatInt(e.Offset, 10) + ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *LoadError) Unwrap() error { return e.Err }
