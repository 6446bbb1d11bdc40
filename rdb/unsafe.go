package rdb

import "unsafe"

// unsafeString views b as a string for a comparison or a parse that does
// not keep it.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
