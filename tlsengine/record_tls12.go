package tlsengine

import "encoding/binary"

// This file is the TLS 1.2 record protection for the six ECDHE AEAD suites
// (RFC 5246, Section 6.2.3.3) and their identifiers. No CBC, RSA key
// transport or static DH suite exists here.
//
//	AES-GCM (RFC 5288, Section 3):  nonce = salt[4] || explicit[8]; the
//	    explicit part is our sequence number and precedes the ciphertext.
//	ChaCha20-Poly1305 (RFC 7905, Section 2): nonce = iv[12] XOR seq, no
//	    explicit part (the TLS 1.3 construction).
//	additional_data = seq_num[8] || type || version[2] || plaintext length[2]

// TLS 1.2 cipher suite identifiers (RFC 5289, RFC 7905).
const (
	TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256       uint16 = 0xc02b
	TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384       uint16 = 0xc02c
	TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256         uint16 = 0xc02f
	TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384         uint16 = 0xc030
	TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256   uint16 = 0xcca8
	TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256 uint16 = 0xcca9
)

// Signalling cipher suite values.
const (
	scsvRenegotiation uint16 = 0x00ff // TLS_EMPTY_RENEGOTIATION_INFO_SCSV, RFC 5746
	scsvFallback      uint16 = 0x5600 // TLS_FALLBACK_SCSV, RFC 7507
)

// explicitNonceLen is the per-record explicit nonce of AES-GCM (RFC 5288).
const explicitNonceLen = 8

// cipherSuite12 is one TLS 1.2 ECDHE AEAD suite. The AEAD and the PRF hash
// are those of the TLS 1.3 suite with the same AEAD.
type cipherSuite12 struct {
	id    uint16
	ecdsa bool         // ECDHE_ECDSA: needs an ECDSA or Ed25519 certificate; else ECDHE_RSA
	aead  *cipherSuite // AEAD constructor, key length, PRF hash
	ivLen int          // fixed IV from the key block: 4 (GCM salt) or 12 (ChaCha20)
}

var cipherSuites12 = []*cipherSuite12{
	{TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, true, cipherSuites[0], 4},
	{TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, true, cipherSuites[1], 4},
	{TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, true, cipherSuites[2], 12},
	{TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, false, cipherSuites[0], 4},
	{TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, false, cipherSuites[1], 4},
	{TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256, false, cipherSuites[2], 12},
}

// defaultCipherSuites12 is the TLS 1.2 server preference order.
var defaultCipherSuites12 = []uint16{
	TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}

func cipherSuite12ByID(id uint16) *cipherSuite12 {
	for _, s := range cipherSuites12 {
		if s.id == id {
			return s
		}
	}
	return nil
}

// explicitNonce reports whether records carry the 8-byte explicit nonce.
func (s *cipherSuite12) explicitNonce() bool { return s.ivLen == 4 }

// setKeys12 installs a TLS 1.2 key and fixed IV and resets the sequence
// number (RFC 5246, Section 6.1). For AES-GCM iv is the 4-byte salt and the
// rest of d.iv stays zero, so makeNonce yields salt || seq.
func (d *direction) setKeys12(s *cipherSuite12, key, iv []byte) error {
	if err := d.setKey(s.aead, key); err != nil {
		return err
	}
	d.seq = 0
	d.tls12, d.explicit = true, s.explicitNonce()
	d.iv = [12]byte{}
	copy(d.iv[:], iv)
	return nil
}

// appendHeader reserves the header of a protected record at the end of b:
// five bytes, plus the explicit nonce for TLS 1.2 AES-GCM.
func (d *direction) appendHeader(b []byte) []byte {
	if d.explicit {
		return append(b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	}
	return append(b, 0, 0, 0, 0, 0)
}

// headerLen is the length appendHeader reserves.
func (d *direction) headerLen() int {
	if d.explicit {
		return recordHeaderLen + explicitNonceLen
	}
	return recordHeaderLen
}

// makeAAD12 fills d.aad for a record of type typ with n plaintext bytes.
func (d *direction) makeAAD12(typ uint8, n int) {
	binary.BigEndian.PutUint64(d.aad[:8], d.seq)
	d.aad[8], d.aad[9], d.aad[10] = typ, 3, 3
	binary.BigEndian.PutUint16(d.aad[11:], uint16(n))
}

// seal12 protects the record at b[hdr:] (header reserved by appendHeader,
// then the plaintext) with its real content type in the header and appends
// the tag. It allocates only if b lacks 16 bytes of spare capacity.
func (d *direction) seal12(b []byte, hdr int, typ uint8) ([]byte, error) {
	if d.seq == maxSeq {
		return b, alertErr(AlertInternalError, ErrSequenceLimit) // RFC 5246, Section 6.1: no wrap
	}
	if err := d.ready(); err != nil {
		return b, err
	}
	hl := d.headerLen()
	n := len(b) - hdr - hl
	if cap(b)-len(b) < aeadTagLen {
		b = append(b, make([]byte, aeadTagLen)...)[:len(b)]
	}
	h := b[hdr : hdr+hl]
	h[0], h[1], h[2] = typ, 3, 3
	binary.BigEndian.PutUint16(h[3:5], uint16(hl-recordHeaderLen+n+aeadTagLen))
	if d.explicit {
		binary.BigEndian.PutUint64(h[recordHeaderLen:], d.seq)
	}
	d.makeNonce()
	d.makeAAD12(typ, n)
	pt := b[hdr+hl:]
	d.aead.Seal(pt[:0], d.nonce[:], pt, d.aad[:])
	d.seq++
	return b[:len(b)+aeadTagLen], nil
}

// open12 authenticates and decrypts a TLS 1.2 record (header included) in
// place and returns the plaintext, which aliases rec. The GCM nonce takes
// the explicit part from the record, as RFC 5288 says; the sequence number
// still enters the additional data, so a replayed or reordered record fails.
func (d *direction) open12(rec []byte) ([]byte, error) {
	if d.seq == maxSeq {
		return nil, alertErr(AlertInternalError, ErrSequenceLimit)
	}
	if err := d.ready(); err != nil {
		return nil, err
	}
	body := rec[recordHeaderLen:]
	if d.explicit {
		if len(body) < explicitNonceLen+aeadTagLen {
			return nil, errBadRecordMAC
		}
		d.nonce = d.iv
		copy(d.nonce[4:], body[:explicitNonceLen])
		body = body[explicitNonceLen:]
	} else {
		if len(body) < aeadTagLen {
			return nil, errBadRecordMAC
		}
		d.makeNonce()
	}
	n := len(body) - aeadTagLen
	if n > maxPlaintext {
		return nil, errRecordOverflow // RFC 5246, Section 6.2.3
	}
	d.makeAAD12(rec[0], n)
	pt, err := d.aead.Open(body[:0], d.nonce[:], body, d.aad[:])
	if err != nil {
		return nil, errBadRecordMAC
	}
	d.seq++
	return pt, nil
}

// selectCipherSuite12 picks the server's most preferred suite that the
// client offers and cert can authenticate, moving ChaCha20-Poly1305 first
// under the same rule as TLS 1.3 (selectCipherSuite).
func selectCipherSuite12(server, client []uint16, ecdsaCert bool) *cipherSuite12 {
	chachaFirst := !hasAESHardware
	for _, id := range client {
		if s := cipherSuite12ByID(id); s != nil {
			chachaFirst = chachaFirst || !s.aead.isAES
			break
		}
	}
	usable := func(id uint16) *cipherSuite12 {
		s := cipherSuite12ByID(id)
		if s == nil || s.ecdsa != ecdsaCert || !contains16(client, id) {
			return nil
		}
		return s
	}
	if chachaFirst {
		for _, id := range server {
			if s := usable(id); s != nil && !s.aead.isAES {
				return s
			}
		}
	}
	for _, id := range server {
		if s := usable(id); s != nil {
			return s
		}
	}
	return nil
}
