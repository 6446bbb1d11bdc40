package store

// Slots is the number of Redis Cluster hash slots.
const Slots = 16384

// crc16tab holds the tables of CRC16-CCITT (XMODEM: polynomial 0x1021,
// initial value 0), the checksum Redis Cluster hashes keys with, for
// slicing by 8: crc16tab[0] is the byte-at-a-time table and crc16tab[k]
// advances a byte's contribution by k more zero bytes, so that eight
// independent lookups consume eight bytes.
var crc16tab = func() (t [8][256]uint16) {
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
	for k := 1; k < 8; k++ {
		for i := range t[k] {
			p := t[k-1][i]
			t[k][i] = p<<8 ^ t[0][p>>8]
		}
	}
	return t
}()

func crc16(b []byte) uint16 {
	var c uint16
	for len(b) >= 8 {
		c = crc16tab[7][b[0]^byte(c>>8)] ^ crc16tab[6][b[1]^byte(c)] ^
			crc16tab[5][b[2]] ^ crc16tab[4][b[3]] ^ crc16tab[3][b[4]] ^
			crc16tab[2][b[5]] ^ crc16tab[1][b[6]] ^ crc16tab[0][b[7]]
		b = b[8:]
	}
	for _, x := range b {
		c = c<<8 ^ crc16tab[0][byte(c>>8)^x]
	}
	return c
}

// KeySlot returns key's hash slot as Redis Cluster computes it: CRC16 of
// the key, or of its hash tag (the bytes between the first '{' and the
// next '}', when not empty), modulo 16384.
func KeySlot(key []byte) uint16 {
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
