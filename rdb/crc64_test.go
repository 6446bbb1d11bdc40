package rdb

import "testing"

func TestChecksumVector(t *testing.T) {
	// crc64.c's own test: crc64(0, "123456789", 9) == 0xe9c6d914c4b8d9ca.
	if got := checksum([]byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64 = %#x, want 0xe9c6d914c4b8d9ca", got)
	}
	c := crcUpdate(crcInit, []byte("1234"))
	c = crcUpdate(c, []byte("56789"))
	if crcSum(c) != 0xe9c6d914c4b8d9ca {
		t.Fatalf("incremental crc64 = %#x", crcSum(c))
	}
}
