package intset

import "strconv"

// Validate checks that is is a well-formed intset, as Redis's
// intsetValidateIntegrity does on RDB load with deep checking: a known
// encoding (2, 4 or 8), a size of exactly the header plus length values,
// and values in strictly increasing order. It returns nil or a
// *CorruptError naming the first bad byte, and never panics, whatever is
// holds.
//
// An empty intset is well formed here; Redis refuses one on RDB load, where
// an empty set cannot occur, and so should a loader (check Len).
func Validate(is []byte) error {
	if len(is) < HeaderSize {
		return &CorruptError{0, "shorter than the 8-byte header"}
	}
	w := le.Uint32(is)
	if w != 2 && w != 4 && w != 8 {
		return &CorruptError{0, "encoding " + strconv.FormatUint(uint64(w), 10) + " is not 2, 4 or 8"}
	}
	n := uint64(le.Uint32(is[4:]))
	if want := HeaderSize + n*uint64(w); want != uint64(len(is)) {
		return &CorruptError{4, "length " + strconv.FormatUint(n, 10) + " needs " +
			strconv.FormatUint(want, 10) + " bytes, have " + strconv.Itoa(len(is))}
	}
	for i := 1; i < int(n); i++ {
		if get(is, int(w), i) <= get(is, int(w), i-1) {
			return &CorruptError{HeaderSize + i*int(w), "value " + strconv.Itoa(i) + " is not above the one before"}
		}
	}
	return nil
}
