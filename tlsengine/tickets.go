package tlsengine

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"crypto/x509"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"golang.org/x/crypto/cryptobyte"
)

// This file holds session tickets: the keys that seal them (shared by every
// loop of a server) and the session state they carry.
//
// A ticket is   key_name(16) || nonce(12) || AES-256-GCM(state, aad=key_name)
// The key name picks the key on open, so tickets sealed under a previous key
// stay valid until that key is rotated out.

const (
	ticketKeyNameLen = 16
	ticketKeyLen     = 32 // AES-256
	ticketNonceLen   = 12
	// ticketOverhead is the number of bytes a sealed ticket adds to its
	// plaintext.
	ticketOverhead = ticketKeyNameLen + ticketNonceLen + 16
	// ticketKeysKept is how many keys TicketKeys holds: the current one and
	// the previous ones still accepted on open.
	ticketKeysKept = 3
)

// errTicketKeysNilRand is returned by NewTicketKeys and Rotate for a nil
// randomness source.
var errTicketKeysNilRand = errors.New("tlsengine: ticket keys need a randomness source")

// ticketKey is one ticket-sealing key. Immutable after creation; its AEAD is
// safe for concurrent use.
type ticketKey struct {
	name [ticketKeyNameLen]byte
	aead cipher.AEAD
}

// ticketKeySet is an immutable snapshot: keys[0] seals, all keys open.
type ticketKeySet struct {
	keys []*ticketKey
}

// TicketKeys holds the keys that seal and open session tickets: the current
// key and up to two previous ones. It is safe for concurrent use: every loop
// reads the current snapshot through an atomic pointer, and Rotate swaps in
// a new one. Share one TicketKeys among the Configs of a server so that a
// ticket issued by one loop resumes on any other. Create it with
// NewTicketKeys; a zero TicketKeys seals and opens nothing.
type TicketKeys struct {
	set atomic.Pointer[ticketKeySet]
	mu  sync.Mutex // serialises Rotate
}

// NewTicketKeys returns TicketKeys with one fresh key drawn from rand.
func NewTicketKeys(rand io.Reader) (*TicketKeys, error) {
	k := new(TicketKeys)
	if err := k.Rotate(rand); err != nil {
		return nil, err
	}
	return k, nil
}

// Rotate draws a new key from rand and makes it current. Tickets sealed under
// the previous ticketKeysKept-1 keys still open; older ones no longer do.
// Rotate at an interval no longer than the ticket lifetime divided by the
// number of keys kept, so that a ticket outlives its key only when it has
// also expired.
func (k *TicketKeys) Rotate(rand io.Reader) error {
	if rand == nil {
		return errTicketKeysNilRand
	}
	var raw [ticketKeyNameLen + ticketKeyLen]byte
	if _, err := io.ReadFull(rand, raw[:]); err != nil {
		return err
	}
	block, err := aes.NewCipher(raw[ticketKeyNameLen:])
	if err != nil {
		return err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return err
	}
	nk := &ticketKey{aead: aead}
	copy(nk.name[:], raw[:ticketKeyNameLen])

	k.mu.Lock()
	defer k.mu.Unlock()
	keys := []*ticketKey{nk}
	if old := k.set.Load(); old != nil {
		keys = append(keys, old.keys...)
	}
	if len(keys) > ticketKeysKept {
		keys = keys[:ticketKeysKept]
	}
	k.set.Store(&ticketKeySet{keys: keys})
	return nil
}

// sealTicket appends the ticket sealing plaintext under the current key to
// dst, drawing the nonce from rand. It returns nil if rand fails or k holds
// no key (a zero TicketKeys); the caller then sends no ticket.
func (k *TicketKeys) sealTicket(dst, plaintext []byte, rand io.Reader) []byte {
	set := k.set.Load()
	if set == nil {
		return nil
	}
	key := set.keys[0]
	start := len(dst)
	dst = append(dst, key.name[:]...)
	dst = append(dst, make([]byte, ticketNonceLen)...)
	nonce := dst[start+ticketKeyNameLen:]
	if _, err := io.ReadFull(rand, nonce); err != nil {
		return nil
	}
	return key.aead.Seal(dst, nonce, plaintext, dst[start:start+ticketKeyNameLen])
}

// openTicket authenticates and decrypts a ticket sealed by sealTicket under
// any key still held. plaintext is freshly allocated. ok is false for a
// ticket too short, under an unknown key, or tampered with.
func (k *TicketKeys) openTicket(ticket []byte) (plaintext []byte, ok bool) {
	if len(ticket) < ticketOverhead {
		return nil, false
	}
	set := k.set.Load()
	if set == nil {
		return nil, false
	}
	name := ticket[:ticketKeyNameLen]
	nonce := ticket[ticketKeyNameLen : ticketKeyNameLen+ticketNonceLen]
	for _, key := range set.keys {
		if subtle.ConstantTimeCompare(key.name[:], name) != 1 {
			continue
		}
		pt, err := key.aead.Open(nil, nonce, ticket[ticketKeyNameLen+ticketNonceLen:], name)
		return pt, err == nil
	}
	return nil, false
}

// sessionStateVersion is the first byte of a marshalled sessionState.
const sessionStateVersion = 1

// sessionState is what a ticket carries: enough to resume the session
// (RFC 8446, Section 4.6.1; RFC 5077, Section 4).
type sessionState struct {
	version              uint16 // TLS version
	suite                uint16
	secret               []byte // TLS 1.3: the resumption PSK input; TLS 1.2: the master secret
	createdAt            uint64 // unix seconds
	ageAdd               uint32
	lifetime             uint32 // seconds
	serverName           string
	alpn                 string
	peerCertificates     [][]byte // the client's chain, DER, leaf first
	extendedMasterSecret bool
}

// storeVerifiedChain records the client's chain in s when it was verified,
// so that a resumed session restores it.
func (s *sessionState) storeVerifiedChain(cs *ConnectionState) {
	if cs.VerifiedLeaf == nil {
		return
	}
	for _, c := range cs.PeerCertificates {
		s.peerCertificates = append(s.peerCertificates, c.Raw)
	}
}

// peerChain parses the client chain stored in s. ok is false when a
// certificate does not parse, or when requireCert is set and s holds none:
// the ticket is then not resumed.
func (s *sessionState) peerChain(requireCert bool) (certs []*x509.Certificate, ok bool) {
	for _, der := range s.peerCertificates {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return nil, false
		}
		certs = append(certs, c)
	}
	if requireCert && len(certs) == 0 {
		return nil, false
	}
	return certs, true
}

// marshal encodes the state:
//
//	uint8 format(=1); uint16 version; uint16 suite; uint64 createdAt;
//	uint32 ageAdd; uint32 lifetime; uint8 ems;
//	opaque secret<1..255>; opaque serverName<0..255>; opaque alpn<0..255>;
//	opaque certificate<1..2^24-1> list<0..2^24-1>
func (s *sessionState) marshal() []byte {
	b := make([]byte, 0, 64+len(s.secret)+len(s.serverName)+len(s.alpn))
	b = append(b, sessionStateVersion)
	b = appendU16(b, s.version)
	b = appendU16(b, s.suite)
	b = appendU32(b, uint32(s.createdAt>>32))
	b = appendU32(b, uint32(s.createdAt))
	b = appendU32(b, s.ageAdd)
	b = appendU32(b, s.lifetime)
	ems := byte(0)
	if s.extendedMasterSecret {
		ems = 1
	}
	b = append(b, ems)
	b = appendU8Prefixed(b, s.secret)
	b = appendU8Prefixed(b, []byte(s.serverName))
	b = appendU8Prefixed(b, []byte(s.alpn))
	b, list := beginLen(b, 3)
	for _, cert := range s.peerCertificates {
		var off int
		b, off = beginLen(b, 3)
		b = endLen(append(b, cert...), off, 3)
	}
	return endLen(b, list, 3)
}

// unmarshal decodes a marshalled state; slices alias data. It rejects an
// unknown format byte, an empty secret, an ems byte other than 0 or 1, empty
// certificates and trailing bytes.
func (s *sessionState) unmarshal(data []byte) bool {
	*s = sessionState{}
	in := cryptobyte.String(data)
	var format, ems uint8
	var secret, name, alpn, certs cryptobyte.String
	if !in.ReadUint8(&format) || format != sessionStateVersion ||
		!in.ReadUint16(&s.version) || !in.ReadUint16(&s.suite) ||
		!in.ReadUint64(&s.createdAt) || !in.ReadUint32(&s.ageAdd) || !in.ReadUint32(&s.lifetime) ||
		!in.ReadUint8(&ems) || ems > 1 ||
		!in.ReadUint8LengthPrefixed(&secret) || secret.Empty() ||
		!in.ReadUint8LengthPrefixed(&name) || !in.ReadUint8LengthPrefixed(&alpn) ||
		!in.ReadUint24LengthPrefixed(&certs) || !in.Empty() {
		return false
	}
	s.extendedMasterSecret = ems == 1
	s.secret, s.serverName, s.alpn = secret, string(name), string(alpn)
	for !certs.Empty() {
		var cert cryptobyte.String
		if !certs.ReadUint24LengthPrefixed(&cert) || cert.Empty() {
			return false
		}
		s.peerCertificates = append(s.peerCertificates, cert)
	}
	return true
}
