package intset

import "fmt"

// CorruptError is Validate's answer for a malformed intset: the byte offset
// of the first damage found and what is wrong there.
type CorruptError struct {
	Offset int    // byte offset into the intset
	Reason string // what is wrong at Offset
}

// Error returns "intset: corrupt at byte N: reason".
func (e *CorruptError) Error() string {
	return fmt.Sprintf("intset: corrupt at byte %d: %s", e.Offset, e.Reason)
}
