package store

// Slots is the number of Redis Cluster hash slots.
const Slots = 16384

// crc16tab holds the tables of CRC16-CCITT (XMODEM: polynomial 0x1021,
// initial value 0), the checksum Redis Cluster hashes keys with, for
// slicing by 16: crc16tab[0] is the byte-at-a-time table and crc16tab[k]
// advances a byte's contribution by k more zero bytes, so that n
// independent lookups consume n bytes (n = 16, 8, 4 or 2).
var crc16tab = func() (t [16][256]uint16) {
	for i := range t[0] {
		c := uint16(i) << 8
		for j := 0; j < 8; j++ {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[0][i] = c
	}
	for k := 1; k < len(t); k++ {
		for i := range t[k] {
			p := t[k-1][i]
			t[k][i] = p<<8 ^ t[0][p>>8]
		}
	}
	return t
}()

// crc16 is the CRC16 of b: 16 bytes a step, then one step each of 8, 4,
// 2 and 1 bytes for the rest, so that a key of any length takes at most
// five dependent steps past its 16-byte blocks. In each step the running
// CRC, 16 bits, meets only the step's first two bytes.
func crc16(b []byte) uint16 {
	t := &crc16tab
	var c uint16
	for len(b) >= 16 {
		c = t[15][b[0]^byte(c>>8)] ^ t[14][b[1]^byte(c)] ^ t[13][b[2]] ^ t[12][b[3]] ^
			t[11][b[4]] ^ t[10][b[5]] ^ t[9][b[6]] ^ t[8][b[7]] ^
			t[7][b[8]] ^ t[6][b[9]] ^ t[5][b[10]] ^ t[4][b[11]] ^
			t[3][b[12]] ^ t[2][b[13]] ^ t[1][b[14]] ^ t[0][b[15]]
		b = b[16:]
	}
	if len(b) >= 8 {
		c = t[7][b[0]^byte(c>>8)] ^ t[6][b[1]^byte(c)] ^ t[5][b[2]] ^ t[4][b[3]] ^
			t[3][b[4]] ^ t[2][b[5]] ^ t[1][b[6]] ^ t[0][b[7]]
		b = b[8:]
	}
	if len(b) >= 4 {
		c = t[3][b[0]^byte(c>>8)] ^ t[2][b[1]^byte(c)] ^ t[1][b[2]] ^ t[0][b[3]]
		b = b[4:]
	}
	if len(b) >= 2 {
		c = t[1][b[0]^byte(c>>8)] ^ t[0][b[1]^byte(c)]
		b = b[2:]
	}
	if len(b) == 1 {
		c = c<<8 ^ t[0][byte(c>>8)^b[0]]
	}
	return c
}

// KeySlot returns key's hash slot as Redis Cluster computes it: CRC16 of
// the key, or of its hash tag (the bytes between the first '{' and the
// next '}', when not empty), modulo 16384.
func KeySlot(key []byte) uint16 {
	if hasBrace(key) {
		return tagSlot(key)
	}
	return crc16(key) & (Slots - 1)
}

// hasBrace reports whether key holds a '{', eight bytes at a time.
func hasBrace(key []byte) bool {
	if len(key) < 8 {
		for _, c := range key {
			if c == '{' {
				return true
			}
		}
		return false
	}
	// a word has a '{' when its XOR with eight of them has a zero byte;
	// the last word overlaps the one before it
	const ones, highs, braces = 0x0101010101010101, 0x8080808080808080, '{' * 0x0101010101010101
	for i := 0; ; i += 8 {
		if i > len(key)-8 {
			i = len(key) - 8
		}
		x := le.Uint64(key[i:]) ^ braces
		if (x-ones)&^x&highs != 0 {
			return true
		}
		if i == len(key)-8 {
			return false
		}
	}
}

// tagSlot is KeySlot of a key holding a '{'.
func tagSlot(key []byte) uint16 {
	for i, c := range key {
		if c == '{' {
			for j := i + 1; j < len(key); j++ {
				if key[j] == '}' {
					if j > i+1 {
						key = key[i+1 : j]
					}
					return crc16(key) & (Slots - 1)
				}
			}
			break
		}
	}
	return crc16(key) & (Slots - 1)
}
