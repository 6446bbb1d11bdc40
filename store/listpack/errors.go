package listpack

import "fmt"

// CorruptError is Validate's answer for a malformed listpack: the byte
// offset of the first damage found and what is wrong there.
type CorruptError struct {
	Offset int    // byte offset into the listpack
	Reason string // what is wrong at Offset
}

// Error returns "listpack: corrupt at byte N: reason".
func (e *CorruptError) Error() string {
	return fmt.Sprintf("listpack: corrupt at byte %d: %s", e.Offset, e.Reason)
}

func corrupt(off int, reason string) error {
	return &CorruptError{Offset: off, Reason: reason}
}
