package store

// Slots is the number of Redis Cluster hash slots.
const Slots = 16384

// crc16tab is CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0), the
// checksum Redis Cluster hashes keys with.
var crc16tab = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i) << 8
		for j := 0; j < 8; j++ {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

func crc16(b []byte) uint16 {
	var c uint16
	for _, x := range b {
		c = c<<8 ^ crc16tab[byte(c>>8)^x]
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
