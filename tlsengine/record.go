package tlsengine

import (
	"crypto/cipher"
	"encoding/binary"
)

// Record layer constants (RFC 8446, Section 5).
const (
	recordHeaderLen  = 5
	maxPlaintext     = 1 << 14        // 2^14
	maxCiphertext13  = 1<<14 + 256    // RFC 8446, Section 5.2
	aeadTagLen       = 16             // all supported AEADs
	recordOverhead13 = 1 + aeadTagLen // inner content type + tag

	recordTypeChangeCipherSpec = 20
	recordTypeAlert            = 21
	recordTypeHandshake        = 22
	recordTypeApplicationData  = 23
)

// maxSeq is the last sequence number a direction may use; the engine fails
// before a nonce would repeat (RFC 8446, Section 5.3).
const maxSeq = 1<<64 - 1

// direction is the AEAD state of one side of the connection: e.in opens what
// the client sent, e.out seals what the server sends. All fields are fixed
// size so the Engine holds no buffers for them, except aead: the
// cipher.AEAD built from key, which ReleaseIdle drops (shed) and the next
// record rebuilds.
type direction struct {
	aead   cipher.AEAD // built from key; nil while plaintext or shed (keyed)
	suite  *cipherSuite
	seq    uint64
	key    [32]byte // AEAD key, kept so a shed AEAD can be rebuilt
	secret [48]byte // current traffic secret, for KeyUpdate
	iv     [12]byte
	nonce  [12]byte // scratch: iv XOR seq, rebuilt for every record
	keyLen uint8    // 0 <= keyLen <= len(key)
	secLen uint8    // 0 <= secLen <= len(secret)
	keyed  bool     // records are protected; false while they are plaintext

	// TLS 1.2 protection (record_tls12.go): set by setKeys12.
	tls12    bool
	explicit bool     // AES-GCM: 8-byte explicit nonce after the header
	aad      [13]byte // scratch: seq || type || version || length
}

// setTrafficSecret derives key and IV from secret (RFC 8446, Section 7.3) and
// resets the sequence number.
func (d *direction) setTrafficSecret(s *cipherSuite, secret []byte) error {
	var x expander
	x.init(s.hash, secret)
	return d.setTrafficKeys(s, &x, secret)
}

// setTrafficKeys is setTrafficSecret with x, an expander keyed with secret,
// which the handshake keeps for its Finished: key and IV are expanded
// straight into d.
func (d *direction) setTrafficKeys(s *cipherSuite, x *expander, secret []byte) error {
	if s.keyLen > len(d.key) || len(secret) > len(d.secret) {
		return alertErr(AlertInternalError, ErrInternal)
	}
	clear(d.key[:])
	d.keyLen = uint8(len(x.expand(d.key[:s.keyLen], labelKey, nil)))
	if err := d.buildAEAD(s); err != nil {
		return err
	}
	d.seq = 0
	x.expand(d.iv[:], labelIV, nil)
	d.secLen = uint8(copy(d.secret[:], secret))
	return nil
}

// setKey builds the AEAD of suite s for key and keeps key to rebuild it
// after a shed; records are protected from now on.
func (d *direction) setKey(s *cipherSuite, key []byte) error {
	if len(key) > len(d.key) {
		return alertErr(AlertInternalError, ErrInternal)
	}
	clear(d.key[:])
	d.keyLen = uint8(copy(d.key[:], key))
	return d.buildAEAD(s)
}

// buildAEAD builds the AEAD of suite s for the key in d.
func (d *direction) buildAEAD(s *cipherSuite) error {
	a, err := s.newAEAD(d.key[:d.keyLen])
	if err != nil {
		return alertErr(AlertInternalError, ErrInternal)
	}
	d.aead, d.suite, d.keyed = a, s, true
	return nil
}

// shed drops the AEAD (its expanded key schedule) and keeps the key; it
// reports whether there was one to drop.
func (d *direction) shed() bool {
	if d.aead == nil {
		return false
	}
	d.aead = nil
	return true
}

// ready rebuilds the AEAD after a shed: two small allocations, once per
// idle period, never in the steady state.
func (d *direction) ready() error {
	if d.aead != nil {
		return nil
	}
	if !d.keyed || d.suite == nil {
		return errNoKeys
	}
	a, err := d.suite.newAEAD(d.key[:d.keyLen])
	if err != nil {
		return errNoKeys
	}
	d.aead = a
	return nil
}

// zero clears the key material: key, IV and traffic secret.
func (d *direction) zero() {
	clear(d.key[:])
	clear(d.iv[:])
	clear(d.secret[:])
}

// makeNonce builds the per-record nonce (RFC 8446, Section 5.3).
func (d *direction) makeNonce() {
	d.nonce = d.iv
	var s [8]byte
	binary.BigEndian.PutUint64(s[:], d.seq)
	for i := 0; i < 8; i++ {
		d.nonce[4+i] ^= s[i]
	}
}

// sealInPlace protects the record that starts at b[hdr]: b[hdr:hdr+5] is the
// reserved header and b[hdr+5:] the plaintext. It appends the inner content
// type and the tag and returns the extended b. It allocates only if b lacks
// 17 bytes of spare capacity.
func (d *direction) sealInPlace(b []byte, hdr int, typ uint8) ([]byte, error) {
	if d.tls12 { // TLS 1.2 hook (record_tls12.go)
		return d.seal12(b, hdr, typ)
	}
	if d.seq == maxSeq {
		return b, alertErr(AlertInternalError, ErrSequenceLimit)
	}
	if err := d.ready(); err != nil {
		return b, err
	}
	n := len(b) - hdr - recordHeaderLen // plaintext length
	b = append(b, typ)
	if cap(b)-len(b) < aeadTagLen {
		b = append(b, make([]byte, aeadTagLen)...)[:len(b)]
	}
	h := b[hdr : hdr+recordHeaderLen]
	h[0] = recordTypeApplicationData
	h[1], h[2] = 3, 3
	binary.BigEndian.PutUint16(h[3:], uint16(n+recordOverhead13))
	d.makeNonce()
	pt := b[hdr+recordHeaderLen:]
	d.aead.Seal(pt[:0], d.nonce[:], pt, h)
	d.seq++
	return b[:len(b)+aeadTagLen], nil
}

// openInPlace authenticates and decrypts rec (header included) in place. It
// returns the inner content type and the plaintext, which aliases rec.
func (d *direction) openInPlace(rec []byte) (uint8, []byte, error) {
	if d.seq == maxSeq {
		return 0, nil, alertErr(AlertInternalError, ErrSequenceLimit)
	}
	if err := d.ready(); err != nil {
		return 0, nil, err
	}
	d.makeNonce()
	body := rec[recordHeaderLen:]
	pt, err := d.aead.Open(body[:0], d.nonce[:], body, rec[:recordHeaderLen])
	if err != nil {
		return 0, nil, errBadRecordMAC
	}
	d.seq++
	// RFC 8446, Section 5.2: the inner plaintext (content, type and
	// padding) is at most 2^14+1 bytes, checked before the padding goes.
	if len(pt) > maxPlaintext+1 {
		return 0, nil, errRecordOverflow
	}
	// RFC 8446, Section 5.4: strip zero padding; the last non-zero byte is the type.
	i := len(pt) - 1
	for i >= 0 && pt[i] == 0 {
		i--
	}
	if i < 0 {
		return 0, nil, errNoContentType
	}
	return pt[i], pt[:i], nil
}

// Preallocated errors for the record path so it never allocates.
var (
	errBadRecordMAC   = alertErr(AlertBadRecordMAC, ErrBadRecordMAC)
	errRecordOverflow = alertErr(AlertRecordOverflow, ErrRecordOverflow)
	errNoContentType  = alertErr(AlertUnexpectedMessage, ErrUnexpectedMessage)
	errNoKeys         = alertErr(AlertInternalError, ErrInternal) // an AEAD could not be rebuilt
)
