package listpack

import (
	"encoding/binary"
	"strconv"
)

// Validate checks that lp is a well-formed listpack, as Redis's
// lpValidateIntegrity does on RDB load with deep checking: the header's total
// equals len(lp); every entry has a known encoding, lies within the listpack
// and ends with the backlen of its size; the terminator is the last byte and
// only there; and the header's count equals the number of entries (or is
// 65535, "unknown"). It returns nil or a *CorruptError naming the first bad
// byte. It never panics and never reads outside lp, whatever lp holds.
//
// Validate accepts what Redis accepts: integers in wider encodings than
// needed and strings that look like integers, which Get and Find read
// correctly.
func Validate(lp []byte) error {
	if len(lp) < EmptySize {
		return corrupt(0, "shorter than the 7-byte empty listpack")
	}
	if total := binary.LittleEndian.Uint32(lp); uint64(total) != uint64(len(lp)) {
		return corrupt(0, "header total "+strconv.FormatUint(uint64(total), 10)+
			" differs from the size "+strconv.Itoa(len(lp)))
	}
	end := len(lp) - 1
	if lp[end] != terminator {
		return corrupt(end, "last byte is not the 0xFF terminator")
	}
	count := 0
	off := HeaderSize
	for off < end {
		next, err := validateEntry(lp, off, end)
		if err != nil {
			return err
		}
		off = next
		count++
	}
	if c := int(binary.LittleEndian.Uint16(lp[4:])); c != unknownCount && c != count {
		return corrupt(4, "header count "+strconv.Itoa(c)+" but "+strconv.Itoa(count)+" entries")
	}
	return nil
}

// validateEntry checks the entry at off, which starts before end (the
// terminator's offset), and returns the offset that follows it.
func validateEntry(lp []byte, off, end int) (int, error) {
	b := lp[off]
	// hdr is the size of the encoding bytes; the data that follows is
	// known once they are read.
	var hdr int
	switch {
	case b&0x80 == 0, b&0xC0 == enc6BitStr:
		hdr = 1
	case b&0xE0 == enc13BitInt, b&0xF0 == enc12BitStr:
		hdr = 2
	case b == enc32BitStr:
		hdr = 5
	case b >= enc16BitInt && b <= enc64BitInt:
		hdr = 1
	case b == terminator:
		return 0, corrupt(off, "terminator before the end")
	default:
		return 0, corrupt(off, "invalid encoding byte 0x"+strconv.FormatUint(uint64(b), 16))
	}
	room := end - off // bytes from off up to the terminator
	if hdr > room {
		return 0, corrupt(off, "entry encoding runs past the end")
	}
	var l uint64
	if b == enc32BitStr {
		l = 5 + uint64(binary.LittleEndian.Uint32(lp[off+1:]))
	} else {
		l = uint64(encodedLen(lp, off))
	}
	if l > uint64(room) {
		return 0, corrupt(off, "entry data runs past the end")
	}
	n := int(l)
	bl := backlenSize(n)
	if n+bl > room {
		return 0, corrupt(off+n, "entry backlen runs past the end")
	}
	// lpValidateNext: the backlen, read backwards from the last of its
	// bl bytes as Prev reads it, must give the entry's size. (Redis writes
	// it in exactly bl bytes, but accepts a spelling whose top groups come
	// from the bytes before as zeros, such as 0x00 0x81 for an entry 0x00
	// of size 1; so does Validate, and Prev reads it the same way.)
	if got, ok := decodeBacklen(lp, off+n+bl-1); !ok || got != n {
		return 0, corrupt(off+n, "backlen does not encode the entry size "+strconv.Itoa(n))
	}
	return off + n + bl, nil
}

// ValidatePairs is Validate for a listpack of field/value pairs, a hash or a
// sorted set (RDB types 16 and 17), as Redis's lpValidateIntegrityAndDups
// checks one on RDB load: the entries must also be even in number, and no
// field may repeat, fields being compared in their Value form (so the
// integer 12 and the string "12" are the same field). Unlike Validate it
// allocates, a set of the fields.
func ValidatePairs(lp []byte) error {
	if err := Validate(lp); err != nil {
		return err
	}
	n := Len(lp)
	if n%2 != 0 {
		return corrupt(Last(lp), "odd number of entries: the last field has no value")
	}
	seen := make(map[string]struct{}, n/2)
	var scratch [20]byte
	for off := First(lp); off >= 0; off = Next(lp, Next(lp, off)) {
		f := Value(lp, off, scratch[:0])
		if _, dup := seen[string(f)]; dup {
			return corrupt(off, "field "+strconv.Quote(string(f))+" repeats")
		}
		seen[string(f)] = struct{}{}
	}
	return nil
}
