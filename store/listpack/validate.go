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
// Validate is stricter than Redis on one point: a backlen must be encoded in
// exactly the bytes Redis writes (Redis accepts a few equivalent spellings
// that it never produces). It accepts integers in wider encodings than needed
// and strings that look like integers, as Redis does, since Get and Find read
// them correctly.
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
	var want [5]byte
	putBacklen(want[:], n)
	for i := range bl {
		if lp[off+n+i] != want[i] {
			return 0, corrupt(off+n+i, "backlen does not encode the entry size "+strconv.Itoa(n))
		}
	}
	return off + n + bl, nil
}
