package tlsengine

import (
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"runtime"

	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/sys/cpu"
)

// TLS 1.3 cipher suite identifiers (RFC 8446, Appendix B.4).
const (
	TLS_AES_128_GCM_SHA256       uint16 = 0x1301
	TLS_AES_256_GCM_SHA384       uint16 = 0x1302
	TLS_CHACHA20_POLY1305_SHA256 uint16 = 0x1303
)

// cipherSuite describes one TLS 1.3 AEAD + hash pair.
type cipherSuite struct {
	id      uint16
	hash    crypto.Hash
	keyLen  int
	newAEAD func(key []byte) (cipher.AEAD, error)
	isAES   bool
}

func newGCM(key []byte) (cipher.AEAD, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

var cipherSuites = []*cipherSuite{
	{id: TLS_AES_128_GCM_SHA256, hash: crypto.SHA256, keyLen: 16, newAEAD: newGCM, isAES: true},
	{id: TLS_AES_256_GCM_SHA384, hash: crypto.SHA384, keyLen: 32, newAEAD: newGCM, isAES: true},
	{id: TLS_CHACHA20_POLY1305_SHA256, hash: crypto.SHA256, keyLen: 32, newAEAD: chacha20poly1305.New},
}

// defaultCipherSuites is the server preference order with AES hardware.
var defaultCipherSuites = []uint16{TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256}

func cipherSuiteByID(id uint16) *cipherSuite {
	for _, s := range cipherSuites {
		if s.id == id {
			return s
		}
	}
	return nil
}

// hasAESHardware reports whether AES-GCM runs in constant time with hardware
// support on this CPU.
var hasAESHardware = cpu.X86.HasAES && cpu.X86.HasPCLMULQDQ ||
	cpu.ARM64.HasAES && cpu.ARM64.HasPMULL ||
	runtime.GOARCH == "s390x" && cpu.S390X.HasAES && cpu.S390X.HasGHASH

// selectCipherSuite picks a suite. Server preference rules, except that
// ChaCha20-Poly1305 moves first when this CPU lacks AES hardware, or when the
// client ranks ChaCha20 above every AES suite it knows (it likely lacks AES
// hardware itself).
func selectCipherSuite(server, client []uint16) *cipherSuite {
	chachaFirst := !hasAESHardware
	for _, id := range client {
		s := cipherSuiteByID(id)
		if s == nil {
			continue
		}
		if !s.isAES {
			chachaFirst = true
		}
		break
	}
	if chachaFirst {
		for _, id := range server {
			if id == TLS_CHACHA20_POLY1305_SHA256 && contains16(client, id) {
				return cipherSuiteByID(id)
			}
		}
	}
	for _, id := range server {
		if contains16(client, id) {
			if s := cipherSuiteByID(id); s != nil {
				return s
			}
		}
	}
	return nil
}

func contains16(list []uint16, v uint16) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
