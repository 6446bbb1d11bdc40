package rdb

import (
	"errors"
	"strconv"
)

// Error is a fault in RDB data: the byte offset of the damage (from the
// start of the file or payload) and what is wrong there.
type Error struct {
	Offset int64  // byte offset of the damage
	Reason string // what is wrong at Offset
}

// Error returns "rdb: offset N: reason".
func (e *Error) Error() string {
	return "rdb: offset " + strconv.FormatInt(e.Offset, 10) + ": " + e.Reason
}

var (
	// ErrPayload is Restore's answer for a DUMP payload whose RDB version
	// or checksum is wrong (Redis's "DUMP payload version or checksum are
	// wrong").
	ErrPayload = errors.New("rdb: DUMP payload version or checksum are wrong")
	// ErrKeyExists is Restore's answer when the key exists and replace is
	// false (Redis's BUSYKEY).
	ErrKeyExists = errors.New("rdb: target key name already exists")
)

func errAt(off int64, reason string) *Error { return &Error{Offset: off, Reason: reason} }
