package tlsengine

import (
	"bytes"
	"slices"

	"golang.org/x/crypto/cryptobyte"
)

// This file holds every handshake message the server reads or writes, each
// with its codec (RFC 8446, Section 4; RFC 5246, Section 7.4).
//
// Conventions shared by every message type:
//
//   - unmarshal(data) parses one complete handshake message, 4-byte header
//     (msg_type, uint24 length) included. It returns false on any
//     malformation: truncation, trailing bytes, a length outside the range
//     the RFC gives, a duplicate extension, pre_shared_key not last, and the
//     other inconsistencies listed at each type. One caller maps false to a
//     decode_error alert. Slices in the result alias data and are valid for
//     as long as data is; empty opaque fields are nil.
//   - appendTo(b) appends the complete message, header included, and does not
//     allocate when b has room. Field lengths must fit their wire length
//     prefixes; the engine builds these messages from validated values, so an
//     overflow is a programming error and panics.

// Handshake message types (RFC 8446, Section 4; RFC 5246, Section 7.4).
const (
	typeClientHello         uint8 = 1
	typeServerHello         uint8 = 2
	typeNewSessionTicket    uint8 = 4
	typeEndOfEarlyData      uint8 = 5
	typeEncryptedExtensions uint8 = 8
	typeCertificate         uint8 = 11
	typeServerKeyExchange   uint8 = 12
	typeCertificateRequest  uint8 = 13
	typeServerHelloDone     uint8 = 14
	typeCertificateVerify   uint8 = 15
	typeClientKeyExchange   uint8 = 16
	typeFinished            uint8 = 20
	typeKeyUpdate           uint8 = 24
	typeMessageHash         uint8 = 254
)

// Extension types (RFC 8446, Section 4.2, and the RFCs named beside them).
const (
	extensionServerName              uint16 = 0  // RFC 6066
	extensionStatusRequest           uint16 = 5  // RFC 6066
	extensionSupportedGroups         uint16 = 10 // RFC 8422, 7919
	extensionSupportedPoints         uint16 = 11 // RFC 8422
	extensionSignatureAlgorithms     uint16 = 13 // RFC 8446
	extensionALPN                    uint16 = 16 // RFC 7301
	extensionSCT                     uint16 = 18 // RFC 6962
	extensionPadding                 uint16 = 21 // RFC 7685
	extensionExtendedMasterSecret    uint16 = 23 // RFC 7627
	extensionRecordSizeLimit         uint16 = 28 // RFC 8449
	extensionSessionTicket           uint16 = 35 // RFC 5077
	extensionPreSharedKey            uint16 = 41
	extensionEarlyData               uint16 = 42
	extensionSupportedVersions       uint16 = 43
	extensionCookie                  uint16 = 44
	extensionPSKModes                uint16 = 45
	extensionCertificateAuthorities  uint16 = 47
	extensionSignatureAlgorithmsCert uint16 = 50
	extensionKeyShare                uint16 = 51
	extensionRenegotiationInfo       uint16 = 0xff01 // RFC 5746
)

// Codec limits. Each is a bound the RFC leaves open (or a tighter one that no
// real peer reaches), checked by unmarshal.
const (
	// maxClientHelloBody bounds a ClientHello body. The record layer allows
	// a handshake message to span records; real ClientHellos (with a
	// post-quantum key share and a ticket) stay under 2 KiB, but every
	// ClientHello the encoding allows is read: up to 128 KiB and a little
	// more (32,000 signature algorithms and as many cipher suites, a
	// 65,000-byte padding extension). Until complete, its bytes count in
	// Engine.Buffered, which a server charges to the connection's
	// handshake budget. The bound is the largest body the length prefixes
	// allow: version, random, session_id<0..32>, cipher_suites<2..2^16-2>,
	// compression_methods<1..2^8-1>, extensions<0..2^16-1>.
	maxClientHelloBody = 2 + 32 + 1 + 32 + 2 + 0xfffe + 1 + 0xff + 2 + 0xffff
	// maxHandshakeBody bounds any other handshake message read by the
	// codec; a certificate chain is the largest.
	maxHandshakeBody = 256 << 10
	// minRecordSizeLimit is the smallest record_size_limit a peer may send
	// (RFC 8449, Section 4).
	minRecordSizeLimit = 64
	// maxTicketLifetime is the longest ticket_lifetime (RFC 8446, Section 4.6.1).
	maxTicketLifetime = 604800
	// maxVerifyDataLen bounds Finished.verify_data: 12 bytes in TLS 1.2,
	// the hash length (at most 48 here) in TLS 1.3.
	maxVerifyDataLen = 64
)

// pskModeDHE is psk_dhe_ke (RFC 8446, Section 4.2.9); pskModePlain is psk_ke.
const (
	pskModePlain uint8 = 0
	pskModeDHE   uint8 = 1
)

// helloRetryRequestRandom is the ServerHello.random that marks a
// HelloRetryRequest: SHA-256("HelloRetryRequest") (RFC 8446, Section 4.1.3).
var helloRetryRequestRandom = []byte{
	0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11,
	0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
	0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e,
	0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c,
}

// keyShare is one KeyShareEntry (RFC 8446, Section 4.2.8).
type keyShare struct {
	group uint16
	data  []byte
}

// pskIdentity is one PskIdentity (RFC 8446, Section 4.2.11).
type pskIdentity struct {
	label               []byte
	obfuscatedTicketAge uint32
}

// ---- wire helpers -------------------------------------------------------

func appendU16(b []byte, v uint16) []byte { return append(b, byte(v>>8), byte(v)) }
func appendU24(b []byte, v int) []byte    { return append(b, byte(v>>16), byte(v>>8), byte(v)) }
func appendU32(b []byte, v uint32) []byte {
	return append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

// beginLen reserves an n-byte length prefix and returns the offset at which
// endLen patches it.
func beginLen(b []byte, n int) ([]byte, int) {
	off := len(b)
	for range n {
		b = append(b, 0)
	}
	return b, off
}

// endLen patches the n-byte length prefix at off with the number of bytes
// appended since. An overflow is a programming error (see the file comment).
func endLen(b []byte, off, n int) []byte {
	l := len(b) - off - n
	if l >= 1<<(8*n) {
		panic("tlsengine: internal error: handshake field too long for its length prefix")
	}
	for i := range n {
		b[off+i] = byte(l >> (8 * (n - 1 - i)))
	}
	return b
}

// beginMsg appends a handshake header whose length endMsg patches.
func beginMsg(b []byte, typ uint8) ([]byte, int) {
	b = append(b, typ)
	return beginLen(b, 3)
}

func endMsg(b []byte, off int) []byte { return endLen(b, off, 3) }

// beginExt appends an extension header whose length endExt patches.
func beginExt(b []byte, typ uint16) ([]byte, int) {
	b = appendU16(b, typ)
	return beginLen(b, 2)
}

func endExt(b []byte, off int) []byte { return endLen(b, off, 2) }

func appendU8Prefixed(b, v []byte) []byte {
	if len(v) > 0xff {
		panic("tlsengine: internal error: handshake field too long for its length prefix")
	}
	b = append(b, byte(len(v)))
	return append(b, v...)
}

func appendU16Prefixed(b, v []byte) []byte {
	if len(v) > 0xffff {
		panic("tlsengine: internal error: handshake field too long for its length prefix")
	}
	b = appendU16(b, uint16(len(v)))
	return append(b, v...)
}

func appendU16List(b []byte, prefix int, list []uint16) []byte {
	b, off := beginLen(b, prefix)
	for _, v := range list {
		b = appendU16(b, v)
	}
	return endLen(b, off, prefix)
}

// readHandshake checks the 4-byte header of data against typ and max and
// returns the body.
func readHandshake(data []byte, typ uint8, max int) (cryptobyte.String, bool) {
	s := cryptobyte.String(data)
	var t uint8
	var body cryptobyte.String
	if !s.ReadUint8(&t) || t != typ || !s.ReadUint24LengthPrefixed(&body) || !s.Empty() {
		return nil, false
	}
	return body, len(body) <= max
}

// readU16List reads a list of uint16 behind an n-byte length prefix; the list
// must be non-empty when nonEmpty is set.
func readU16List(s *cryptobyte.String, prefix int, nonEmpty bool, out *[]uint16) bool {
	var l cryptobyte.String
	switch prefix {
	case 1:
		if !s.ReadUint8LengthPrefixed(&l) {
			return false
		}
	default:
		if !s.ReadUint16LengthPrefixed(&l) {
			return false
		}
	}
	if len(l)%2 != 0 || (nonEmpty && len(l) == 0) {
		return false
	}
	list := make([]uint16, 0, len(l)/2)
	for !l.Empty() {
		var v uint16
		l.ReadUint16(&v)
		list = append(list, v)
	}
	*out = list
	return true
}

// readU8List reads a non-empty list of uint8 behind a 1-byte length prefix.
func readU8List(s *cryptobyte.String, out *[]uint8) bool {
	var l cryptobyte.String
	if !s.ReadUint8LengthPrefixed(&l) || l.Empty() {
		return false
	}
	*out = l
	return true
}

func nilIfEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

// readExtensions splits an extensions block into (type, data) pairs, calling
// f for each. It rejects duplicates (RFC 8446, Section 4.2) and, when
// pskLast is set, any extension after pre_shared_key (Section 4.2.11). The
// types seen are appended to *seen when seen is non-nil.
func readExtensions(exts cryptobyte.String, pskLast bool, seen *[]uint16, f func(typ uint16, data cryptobyte.String) bool) bool {
	var types []uint16
	var small [32]uint16
	types = small[:0]
	for !exts.Empty() {
		var typ uint16
		var data cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&data) {
			return false
		}
		if pskLast && typ == extensionPreSharedKey && !exts.Empty() {
			return false
		}
		types = append(types, typ)
		if !f(typ, data) {
			return false
		}
	}
	if hasDuplicate(types) {
		return false
	}
	if seen != nil {
		*seen = append((*seen)[:0], types...)
	}
	return true
}

// hasDuplicate reports whether types holds a value twice: a quadratic scan
// for the usual short lists, a sort of a copy for long ones.
func hasDuplicate(types []uint16) bool {
	if len(types) <= 32 {
		for i := range types {
			for j := i + 1; j < len(types); j++ {
				if types[i] == types[j] {
					return true
				}
			}
		}
		return false
	}
	sorted := slices.Clone(types)
	slices.Sort(sorted)
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return true
		}
	}
	return false
}

// validHostName reports whether name is a HostName as RFC 6066, Section 3
// allows: non-empty, ASCII (IDNs travel as A-labels), no trailing dot, no
// spaces or control bytes.
func validHostName(name []byte) bool {
	if len(name) == 0 || name[len(name)-1] == '.' {
		return false
	}
	for _, c := range name {
		if c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

// appendServerALPN appends the server's application_layer_protocol_negotiation
// extension: a ProtocolNameList of exactly one name (RFC 7301, Section 3.1),
// in the TLS 1.3 EncryptedExtensions and the TLS 1.2 ServerHello alike.
func appendServerALPN(b []byte, proto string) []byte {
	b, off := beginExt(b, extensionALPN)
	b, list := beginLen(b, 2)
	b = appendU8Prefixed(b, []byte(proto))
	b = endLen(b, list, 2)
	return endExt(b, off)
}

// readServerALPN reads the body of a server's ALPN extension into proto:
// exactly one non-empty name (RFC 7301, Section 3.1).
func readServerALPN(ext *cryptobyte.String, proto *string) bool {
	var list, name cryptobyte.String
	if !ext.ReadUint16LengthPrefixed(&list) || !list.ReadUint8LengthPrefixed(&name) ||
		name.Empty() || !list.Empty() {
		return false
	}
	*proto = string(name)
	return true
}

// ---- ClientHello ---------------------------------------------------------

// clientHelloMsg is a ClientHello (RFC 8446, Section 4.1.2; RFC 5246,
// Section 7.4.1.2). Slices alias raw after unmarshal.
type clientHelloMsg struct {
	raw                          []byte // the whole message, header included
	vers                         uint16 // legacy_version
	random                       []byte
	sessionID                    []byte
	cipherSuites                 []uint16
	compressionMethods           []uint8
	serverName                   string // host_name from server_name; "" if absent
	supportedGroups              []uint16
	supportedPoints              []uint8
	signatureAlgorithms          []uint16
	signatureAlgorithmsCert      []uint16
	alpnProtocols                []string
	supportedVersions            []uint16
	keyShares                    []keyShare // non-nil (maybe empty) iff key_share was sent
	pskModes                     []uint8
	pskIdentities                []pskIdentity
	pskBinders                   [][]byte
	bindersOffset                int // len(raw) up to the binders list: the truncated ClientHello (RFC 8446, Section 4.2.11.2)
	earlyData                    bool
	cookie                       []byte
	recordSizeLimit              uint16
	hasRecordSizeLimit           bool
	extendedMasterSecret         bool
	secureRenegotiationSupported bool
	secureRenegotiation          []byte
	ticketSupported              bool
	sessionTicket                []byte
	extensions                   []uint16 // extension types in the order received
}

// unmarshal parses a ClientHello. Besides the generic checks it rejects:
// a ClientHello body over maxClientHelloBody; empty cipher_suites or
// compression_methods; server_name lists that are empty, name a host twice,
// or carry an invalid HostName (RFC 6066, Section 3: non-empty, no trailing
// dot); empty ALPN lists or names (RFC 7301, Section 3.1); empty
// supported_groups, signature_algorithms(_cert), supported_versions or
// psk_key_exchange_modes; key shares for a group offered twice (RFC 8446,
// Section 4.2.8; a key_exchange of the wrong length for its group, empty
// included, is the engine's illegal_parameter); pre_shared_key with no
// identities, a binder count that differs from the identity count, or a
// binder under 32 bytes; a record_size_limit under 64 (RFC 8449, Section 4);
// a non-empty early_data or extended_master_secret body.
//
// Unknown server_name types (none is defined besides host_name) are parsed as
// an opaque<1..2^16-1> and ignored: RFC 6066 fixes no other layout, and this
// is the form every proposal has used.
func (m *clientHelloMsg) unmarshal(data []byte) bool {
	*m = clientHelloMsg{raw: data}
	body, ok := readHandshake(data, typeClientHello, maxClientHelloBody)
	if !ok {
		return false
	}
	var sessionID cryptobyte.String
	if !body.ReadUint16(&m.vers) || !body.ReadBytes(&m.random, 32) ||
		!body.ReadUint8LengthPrefixed(&sessionID) || len(sessionID) > 32 {
		return false
	}
	m.sessionID = nilIfEmpty(sessionID)
	if !readU16List(&body, 2, true, &m.cipherSuites) || !readU8List(&body, &m.compressionMethods) {
		return false
	}
	if body.Empty() {
		return true // no extensions: a TLS 1.2-and-older ClientHello
	}
	var exts cryptobyte.String
	if !body.ReadUint16LengthPrefixed(&exts) || !body.Empty() {
		return false
	}
	return readExtensions(exts, true, &m.extensions, func(typ uint16, ext cryptobyte.String) bool {
		return m.readExtension(typ, &ext) && ext.Empty()
	})
}

// readExtension parses one ClientHello extension, advancing ext.
func (m *clientHelloMsg) readExtension(typ uint16, ext *cryptobyte.String) bool {
	switch typ {
	case extensionServerName:
		return m.readServerName(ext)
	case extensionSupportedGroups:
		return readU16List(ext, 2, true, &m.supportedGroups)
	case extensionSupportedPoints:
		return readU8List(ext, &m.supportedPoints)
	case extensionSignatureAlgorithms:
		return readU16List(ext, 2, true, &m.signatureAlgorithms)
	case extensionSignatureAlgorithmsCert:
		return readU16List(ext, 2, true, &m.signatureAlgorithmsCert)
	case extensionALPN:
		return m.readALPN(ext)
	case extensionSupportedVersions:
		return readU16List(ext, 1, true, &m.supportedVersions)
	case extensionKeyShare:
		return m.readKeyShares(ext)
	case extensionPSKModes:
		return readU8List(ext, &m.pskModes)
	case extensionPreSharedKey:
		return m.readPreSharedKey(ext)
	case extensionEarlyData:
		m.earlyData = true
	case extensionCookie:
		var c cryptobyte.String
		if !ext.ReadUint16LengthPrefixed(&c) || c.Empty() {
			return false
		}
		m.cookie = c
	case extensionRecordSizeLimit:
		m.hasRecordSizeLimit = true
		return ext.ReadUint16(&m.recordSizeLimit) && m.recordSizeLimit >= minRecordSizeLimit
	case extensionExtendedMasterSecret:
		m.extendedMasterSecret = true
	case extensionRenegotiationInfo:
		var r cryptobyte.String
		if !ext.ReadUint8LengthPrefixed(&r) {
			return false
		}
		m.secureRenegotiationSupported = true
		m.secureRenegotiation = nilIfEmpty(r)
	case extensionSessionTicket:
		m.ticketSupported = true
		m.sessionTicket = nilIfEmpty(*ext)
		ext.Skip(len(*ext))
	default:
		ext.Skip(len(*ext)) // unknown, status_request, SCT, padding: ignored
	}
	return true
}

func (m *clientHelloMsg) readServerName(ext *cryptobyte.String) bool {
	var list cryptobyte.String
	if !ext.ReadUint16LengthPrefixed(&list) || list.Empty() {
		return false
	}
	for !list.Empty() {
		var nameType uint8
		var name cryptobyte.String
		if !list.ReadUint8(&nameType) || !list.ReadUint16LengthPrefixed(&name) || name.Empty() {
			return false
		}
		if nameType != 0 {
			continue // not host_name: ignored, see unmarshal
		}
		if m.serverName != "" || !validHostName(name) {
			return false // RFC 6066, Section 3: one name per type
		}
		m.serverName = string(name)
	}
	return true
}

func (m *clientHelloMsg) readALPN(ext *cryptobyte.String) bool {
	var list cryptobyte.String
	if !ext.ReadUint16LengthPrefixed(&list) || list.Empty() {
		return false
	}
	for !list.Empty() {
		var proto cryptobyte.String
		if !list.ReadUint8LengthPrefixed(&proto) || proto.Empty() {
			return false
		}
		m.alpnProtocols = append(m.alpnProtocols, string(proto))
	}
	return true
}

func (m *clientHelloMsg) readKeyShares(ext *cryptobyte.String) bool {
	var list cryptobyte.String
	if !ext.ReadUint16LengthPrefixed(&list) {
		return false
	}
	m.keyShares = make([]keyShare, 0, 2)
	for !list.Empty() {
		var ks keyShare
		var kx cryptobyte.String
		if !list.ReadUint16(&ks.group) || !list.ReadUint16LengthPrefixed(&kx) {
			return false
		}
		for _, prev := range m.keyShares {
			if prev.group == ks.group {
				return false // RFC 8446, Section 4.2.8: one share per group
			}
		}
		ks.data = kx
		m.keyShares = append(m.keyShares, ks)
	}
	return true
}

// readPreSharedKey parses OfferedPsks (RFC 8446, Section 4.2.11). The
// extension is the last of the message, so the binders list ends at the end
// of raw and bindersOffset follows from its length.
func (m *clientHelloMsg) readPreSharedKey(ext *cryptobyte.String) bool {
	var ids cryptobyte.String
	if !ext.ReadUint16LengthPrefixed(&ids) || ids.Empty() {
		return false
	}
	for !ids.Empty() {
		var id pskIdentity
		var label cryptobyte.String
		if !ids.ReadUint16LengthPrefixed(&label) || label.Empty() || !ids.ReadUint32(&id.obfuscatedTicketAge) {
			return false
		}
		id.label = label
		m.pskIdentities = append(m.pskIdentities, id)
	}
	m.bindersOffset = len(m.raw) - len(*ext)
	var binders cryptobyte.String
	if !ext.ReadUint16LengthPrefixed(&binders) || binders.Empty() {
		return false
	}
	for !binders.Empty() {
		var binder cryptobyte.String
		if !binders.ReadUint8LengthPrefixed(&binder) || len(binder) < 32 {
			return false
		}
		m.pskBinders = append(m.pskBinders, binder)
	}
	return len(m.pskBinders) == len(m.pskIdentities)
}

// rawExtension is one extension of a raw message, in wire order.
type rawExtension struct {
	typ  uint16
	data []byte
}

// splitClientHello splits a whole ClientHello (header included) into its
// fixed part (legacy_version through compression_methods, as bytes) and its
// extensions in wire order, which alias msg. ok is false if it is malformed.
func splitClientHello(msg []byte) (fixed []byte, exts []rawExtension, ok bool) {
	if len(msg) < 4 {
		return nil, nil, false
	}
	body := cryptobyte.String(msg[4:])
	s := body
	var skip, list cryptobyte.String
	if !s.Skip(2+32) || !s.ReadUint8LengthPrefixed(&skip) || !s.ReadUint16LengthPrefixed(&skip) ||
		!s.ReadUint8LengthPrefixed(&skip) {
		return nil, nil, false
	}
	fixed = body[:len(body)-len(s)]
	if s.Empty() {
		return fixed, nil, true
	}
	if !s.ReadUint16LengthPrefixed(&list) || !s.Empty() {
		return nil, nil, false
	}
	for !list.Empty() {
		var x rawExtension
		var data cryptobyte.String
		if !list.ReadUint16(&x.typ) || !list.ReadUint16LengthPrefixed(&data) {
			return nil, nil, false
		}
		x.data = data
		exts = append(exts, x)
	}
	return fixed, exts, true
}

// retriedHelloMatches reports whether the ClientHello second, sent after a
// HelloRetryRequest, equals first but for what RFC 8446, Section 4.1.2 lets
// a client change: the key_share contents (the extension keeps its place),
// early_data removed (or, ignored, added), a cookie added, pre_shared_key
// updated (identities removed), padding. Everything else, the order of extensions included, must be
// byte-identical.
func retriedHelloMatches(first, second []byte) bool {
	f1, e1, ok1 := splitClientHello(first)
	f2, e2, ok2 := splitClientHello(second)
	if !ok1 || !ok2 || !bytes.Equal(f1, f2) {
		return false
	}
	isPSK := func(x rawExtension) bool { return x.typ == extensionPreSharedKey }
	if slices.ContainsFunc(e2, isPSK) && !slices.ContainsFunc(e1, isPSK) {
		return false
	}
	mayChange := func(x rawExtension) bool {
		switch x.typ {
		case extensionPadding, extensionEarlyData, extensionCookie, extensionPreSharedKey:
			return true
		}
		return false
	}
	e1, e2 = slices.DeleteFunc(e1, mayChange), slices.DeleteFunc(e2, mayChange)
	return slices.EqualFunc(e1, e2, func(a, b rawExtension) bool {
		return a.typ == b.typ && (a.typ == extensionKeyShare || bytes.Equal(a.data, b.data))
	})
}

// appendTo appends the ClientHello. Extensions go out in a fixed order
// (the order of the RFC 8448 traces, then the others, pre_shared_key last);
// an extension is sent when its field is set. Unknown extensions from a
// parsed message are not kept. Binders are written as given: to sign them,
// append with placeholder binders of the right length, compute over
// enc[:bindersOffset] (see unmarshal) and overwrite them in place.
func (m *clientHelloMsg) appendTo(b []byte) []byte {
	b, msg := beginMsg(b, typeClientHello)
	b = appendU16(b, m.vers)
	b = append(b, m.random...)
	b = appendU8Prefixed(b, m.sessionID)
	b = appendU16List(b, 2, m.cipherSuites)
	b = appendU8Prefixed(b, m.compressionMethods)
	b, exts := beginLen(b, 2)
	b = m.appendExtensions(b)
	if len(b) == exts+2 {
		b = b[:exts] // no extension set: no extensions block at all
	} else {
		b = endLen(b, exts, 2)
	}
	return endMsg(b, msg)
}

func (m *clientHelloMsg) appendExtensions(b []byte) []byte {
	var off int
	if m.serverName != "" {
		b, off = beginExt(b, extensionServerName)
		var list int
		b, list = beginLen(b, 2)
		b = append(b, 0) // host_name
		b = appendU16Prefixed(b, []byte(m.serverName))
		b = endLen(b, list, 2)
		b = endExt(b, off)
	}
	if m.secureRenegotiationSupported {
		b, off = beginExt(b, extensionRenegotiationInfo)
		b = appendU8Prefixed(b, m.secureRenegotiation)
		b = endExt(b, off)
	}
	if m.supportedGroups != nil {
		b, off = beginExt(b, extensionSupportedGroups)
		b = endExt(appendU16List(b, 2, m.supportedGroups), off)
	}
	if m.ticketSupported {
		b, off = beginExt(b, extensionSessionTicket)
		b = endExt(append(b, m.sessionTicket...), off)
	}
	if m.keyShares != nil {
		b, off = beginExt(b, extensionKeyShare)
		var list int
		b, list = beginLen(b, 2)
		for _, ks := range m.keyShares {
			b = appendU16(b, ks.group)
			b = appendU16Prefixed(b, ks.data)
		}
		b = endLen(b, list, 2)
		b = endExt(b, off)
	}
	if m.earlyData {
		b, off = beginExt(b, extensionEarlyData)
		b = endExt(b, off)
	}
	if m.supportedVersions != nil {
		b, off = beginExt(b, extensionSupportedVersions)
		b = endExt(appendU16List(b, 1, m.supportedVersions), off)
	}
	if m.signatureAlgorithms != nil {
		b, off = beginExt(b, extensionSignatureAlgorithms)
		b = endExt(appendU16List(b, 2, m.signatureAlgorithms), off)
	}
	if m.pskModes != nil {
		b, off = beginExt(b, extensionPSKModes)
		b = endExt(appendU8Prefixed(b, m.pskModes), off)
	}
	if m.hasRecordSizeLimit {
		b, off = beginExt(b, extensionRecordSizeLimit)
		b = endExt(appendU16(b, m.recordSizeLimit), off)
	}
	return m.appendMoreExtensions(b)
}

func (m *clientHelloMsg) appendMoreExtensions(b []byte) []byte {
	var off int
	if m.supportedPoints != nil {
		b, off = beginExt(b, extensionSupportedPoints)
		b = endExt(appendU8Prefixed(b, m.supportedPoints), off)
	}
	if m.signatureAlgorithmsCert != nil {
		b, off = beginExt(b, extensionSignatureAlgorithmsCert)
		b = endExt(appendU16List(b, 2, m.signatureAlgorithmsCert), off)
	}
	if m.alpnProtocols != nil {
		b, off = beginExt(b, extensionALPN)
		var list int
		b, list = beginLen(b, 2)
		for _, p := range m.alpnProtocols {
			b = appendU8Prefixed(b, []byte(p))
		}
		b = endLen(b, list, 2)
		b = endExt(b, off)
	}
	if m.cookie != nil {
		b, off = beginExt(b, extensionCookie)
		b = endExt(appendU16Prefixed(b, m.cookie), off)
	}
	if m.extendedMasterSecret {
		b, off = beginExt(b, extensionExtendedMasterSecret)
		b = endExt(b, off)
	}
	if m.pskIdentities != nil {
		b, off = beginExt(b, extensionPreSharedKey)
		var list int
		b, list = beginLen(b, 2)
		for _, id := range m.pskIdentities {
			b = appendU16Prefixed(b, id.label)
			b = appendU32(b, id.obfuscatedTicketAge)
		}
		b = endLen(b, list, 2)
		b, list = beginLen(b, 2)
		for _, binder := range m.pskBinders {
			b = appendU8Prefixed(b, binder)
		}
		b = endLen(b, list, 2)
		b = endExt(b, off)
	}
	return b
}

// ---- ServerHello / HelloRetryRequest -------------------------------------

// serverHelloMsg is a ServerHello or, when random is
// helloRetryRequestRandom, a HelloRetryRequest (RFC 8446, Section 4.1.3 and
// 4.1.4). TLS 1.2 fields follow RFC 5246, Section 7.4.1.3.
type serverHelloMsg struct {
	vers              uint16 // legacy_version: 0x0303
	random            []byte
	sessionID         []byte
	cipherSuite       uint16
	compressionMethod uint8
	supportedVersion  uint16   // 0: absent
	serverShare       keyShare // ServerHello key_share; group 0: absent
	// selectedIdentity is the pre_shared_key selection, sent when
	// selectedIdentityPresent.
	selectedIdentityPresent bool
	selectedIdentity        uint16
	selectedGroup           uint16 // HelloRetryRequest key_share; 0: absent
	cookie                  []byte // HelloRetryRequest cookie
	// TLS 1.2
	extendedMasterSecret         bool
	secureRenegotiationSupported bool
	secureRenegotiation          []byte
	ticketSupported              bool
	alpnProtocol                 string
	supportedPoints              []uint8
	serverNameAck                bool // empty server_name (RFC 6066, Section 3)
}

// isHelloRetryRequest reports whether m is a HelloRetryRequest.
func (m *serverHelloMsg) isHelloRetryRequest() bool {
	return bytes.Equal(m.random, helloRetryRequestRandom)
}

// appendTo appends the ServerHello. Extension order follows RFC 8448:
// pre_shared_key, key_share, cookie, supported_versions, then TLS 1.2 ones.
func (m *serverHelloMsg) appendTo(b []byte) []byte {
	b, msg := beginMsg(b, typeServerHello)
	b = appendU16(b, m.vers)
	b = append(b, m.random...)
	b = appendU8Prefixed(b, m.sessionID)
	b = appendU16(b, m.cipherSuite)
	b = append(b, m.compressionMethod)
	b, exts := beginLen(b, 2)
	var off int
	if m.selectedIdentityPresent {
		b, off = beginExt(b, extensionPreSharedKey)
		b = endExt(appendU16(b, m.selectedIdentity), off)
	}
	if m.selectedGroup != 0 {
		b, off = beginExt(b, extensionKeyShare)
		b = endExt(appendU16(b, m.selectedGroup), off)
	} else if m.serverShare.group != 0 {
		b, off = beginExt(b, extensionKeyShare)
		b = appendU16(b, m.serverShare.group)
		b = endExt(appendU16Prefixed(b, m.serverShare.data), off)
	}
	if m.cookie != nil {
		b, off = beginExt(b, extensionCookie)
		b = endExt(appendU16Prefixed(b, m.cookie), off)
	}
	if m.supportedVersion != 0 {
		b, off = beginExt(b, extensionSupportedVersions)
		b = endExt(appendU16(b, m.supportedVersion), off)
	}
	b = m.appendTLS12Extensions(b)
	if len(b) == exts+2 {
		b = b[:exts] // TLS 1.2 without extensions: no block
	} else {
		b = endLen(b, exts, 2)
	}
	return endMsg(b, msg)
}

func (m *serverHelloMsg) appendTLS12Extensions(b []byte) []byte {
	var off int
	if m.secureRenegotiationSupported {
		b, off = beginExt(b, extensionRenegotiationInfo)
		b = endExt(appendU8Prefixed(b, m.secureRenegotiation), off)
	}
	if m.extendedMasterSecret {
		b, off = beginExt(b, extensionExtendedMasterSecret)
		b = endExt(b, off)
	}
	if m.ticketSupported {
		b, off = beginExt(b, extensionSessionTicket)
		b = endExt(b, off)
	}
	if m.alpnProtocol != "" {
		b = appendServerALPN(b, m.alpnProtocol)
	}
	if m.supportedPoints != nil {
		b, off = beginExt(b, extensionSupportedPoints)
		b = endExt(appendU8Prefixed(b, m.supportedPoints), off)
	}
	if m.serverNameAck {
		b, off = beginExt(b, extensionServerName)
		b = endExt(b, off)
	}
	return b
}

// unmarshal parses a ServerHello or HelloRetryRequest; the key_share layout
// depends on which (RFC 8446, Section 4.2.8).
func (m *serverHelloMsg) unmarshal(data []byte) bool {
	*m = serverHelloMsg{}
	body, ok := readHandshake(data, typeServerHello, maxHandshakeBody)
	if !ok {
		return false
	}
	var sessionID cryptobyte.String
	if !body.ReadUint16(&m.vers) || !body.ReadBytes(&m.random, 32) ||
		!body.ReadUint8LengthPrefixed(&sessionID) || len(sessionID) > 32 ||
		!body.ReadUint16(&m.cipherSuite) || !body.ReadUint8(&m.compressionMethod) {
		return false
	}
	m.sessionID = nilIfEmpty(sessionID)
	if body.Empty() {
		return true
	}
	var exts cryptobyte.String
	if !body.ReadUint16LengthPrefixed(&exts) || !body.Empty() {
		return false
	}
	hrr := m.isHelloRetryRequest()
	return readExtensions(exts, false, nil, func(typ uint16, ext cryptobyte.String) bool {
		return m.readExtension(typ, &ext, hrr) && ext.Empty()
	})
}

func (m *serverHelloMsg) readExtension(typ uint16, ext *cryptobyte.String, hrr bool) bool {
	switch typ {
	case extensionSupportedVersions:
		return ext.ReadUint16(&m.supportedVersion) && m.supportedVersion != 0
	case extensionKeyShare:
		if hrr {
			return ext.ReadUint16(&m.selectedGroup) && m.selectedGroup != 0
		}
		var kx cryptobyte.String
		if !ext.ReadUint16(&m.serverShare.group) || m.serverShare.group == 0 ||
			!ext.ReadUint16LengthPrefixed(&kx) || kx.Empty() {
			return false
		}
		m.serverShare.data = kx
	case extensionPreSharedKey:
		m.selectedIdentityPresent = true
		return ext.ReadUint16(&m.selectedIdentity)
	case extensionCookie:
		var c cryptobyte.String
		if !ext.ReadUint16LengthPrefixed(&c) || c.Empty() {
			return false
		}
		m.cookie = c
	case extensionRenegotiationInfo:
		var r cryptobyte.String
		if !ext.ReadUint8LengthPrefixed(&r) {
			return false
		}
		m.secureRenegotiationSupported = true
		m.secureRenegotiation = nilIfEmpty(r)
	case extensionExtendedMasterSecret:
		m.extendedMasterSecret = true
	case extensionSessionTicket:
		m.ticketSupported = true
	case extensionALPN:
		return readServerALPN(ext, &m.alpnProtocol)
	case extensionSupportedPoints:
		return readU8List(ext, &m.supportedPoints)
	case extensionServerName:
		m.serverNameAck = true // empty: unmarshal checks ext is consumed
	default:
		return false // a server sends nothing else
	}
	return true
}

// ---- EncryptedExtensions --------------------------------------------------

// encryptedExtensionsMsg is EncryptedExtensions (RFC 8446, Section 4.3.1).
type encryptedExtensionsMsg struct {
	supportedGroups []uint16 // the server's groups, a hint for the next connection; nil: absent
	alpnProtocol    string
	recordSizeLimit uint16 // 0: absent
	serverNameAck   bool   // empty server_name (RFC 6066, Section 3)
	earlyData       bool
}

// appendTo appends EncryptedExtensions in the order of RFC 8448:
// supported_groups, ALPN, record_size_limit, server_name, early_data.
func (m *encryptedExtensionsMsg) appendTo(b []byte) []byte {
	b, msg := beginMsg(b, typeEncryptedExtensions)
	b, exts := beginLen(b, 2)
	var off int
	if m.supportedGroups != nil {
		b, off = beginExt(b, extensionSupportedGroups)
		b = endExt(appendU16List(b, 2, m.supportedGroups), off)
	}
	if m.alpnProtocol != "" {
		b = appendServerALPN(b, m.alpnProtocol)
	}
	if m.recordSizeLimit != 0 {
		b, off = beginExt(b, extensionRecordSizeLimit)
		b = endExt(appendU16(b, m.recordSizeLimit), off)
	}
	if m.serverNameAck {
		b, off = beginExt(b, extensionServerName)
		b = endExt(b, off)
	}
	if m.earlyData {
		b, off = beginExt(b, extensionEarlyData)
		b = endExt(b, off)
	}
	b = endLen(b, exts, 2)
	return endMsg(b, msg)
}

// unmarshal parses EncryptedExtensions; unknown extensions are ignored.
func (m *encryptedExtensionsMsg) unmarshal(data []byte) bool {
	*m = encryptedExtensionsMsg{}
	body, ok := readHandshake(data, typeEncryptedExtensions, maxHandshakeBody)
	var exts cryptobyte.String
	if !ok || !body.ReadUint16LengthPrefixed(&exts) || !body.Empty() {
		return false
	}
	return readExtensions(exts, false, nil, func(typ uint16, ext cryptobyte.String) bool {
		switch typ {
		case extensionSupportedGroups:
			if !readU16List(&ext, 2, true, &m.supportedGroups) {
				return false
			}
		case extensionALPN:
			if !readServerALPN(&ext, &m.alpnProtocol) {
				return false
			}
		case extensionRecordSizeLimit:
			if !ext.ReadUint16(&m.recordSizeLimit) || m.recordSizeLimit < minRecordSizeLimit {
				return false
			}
		case extensionServerName:
			m.serverNameAck = true
		case extensionEarlyData:
			m.earlyData = true
		default:
			ext.Skip(len(ext))
		}
		return ext.Empty()
	})
}

// ---- CertificateRequest (TLS 1.3) ----------------------------------------

// certificateRequestMsgTLS13 is a CertificateRequest for handshake
// authentication (RFC 8446, Section 4.3.2): its certificate_request_context
// is empty.
type certificateRequestMsgTLS13 struct {
	signatureAlgorithms     []uint16
	signatureAlgorithmsCert []uint16
	certificateAuthorities  [][]byte // DER DistinguishedNames
}

// appendTo appends the CertificateRequest.
func (m *certificateRequestMsgTLS13) appendTo(b []byte) []byte {
	b, msg := beginMsg(b, typeCertificateRequest)
	b = append(b, 0) // certificate_request_context
	b, exts := beginLen(b, 2)
	b, off := beginExt(b, extensionSignatureAlgorithms)
	b = endExt(appendU16List(b, 2, m.signatureAlgorithms), off)
	if m.signatureAlgorithmsCert != nil {
		b, off = beginExt(b, extensionSignatureAlgorithmsCert)
		b = endExt(appendU16List(b, 2, m.signatureAlgorithmsCert), off)
	}
	if len(m.certificateAuthorities) > 0 { // RFC 8446, Section 4.2.4: authorities<3..2^16-1>, never empty
		b, off = beginExt(b, extensionCertificateAuthorities)
		var list int
		b, list = beginLen(b, 2)
		for _, ca := range m.certificateAuthorities {
			b = appendU16Prefixed(b, ca)
		}
		b = endLen(b, list, 2)
		b = endExt(b, off)
	}
	b = endLen(b, exts, 2)
	return endMsg(b, msg)
}

// unmarshal parses a CertificateRequest with an empty context; the
// signature_algorithms extension is required.
func (m *certificateRequestMsgTLS13) unmarshal(data []byte) bool {
	*m = certificateRequestMsgTLS13{}
	body, ok := readHandshake(data, typeCertificateRequest, maxHandshakeBody)
	var ctx, exts cryptobyte.String
	if !ok || !body.ReadUint8LengthPrefixed(&ctx) || !ctx.Empty() ||
		!body.ReadUint16LengthPrefixed(&exts) || !body.Empty() {
		return false
	}
	ok = readExtensions(exts, false, nil, func(typ uint16, ext cryptobyte.String) bool {
		switch typ {
		case extensionSignatureAlgorithms:
			if !readU16List(&ext, 2, true, &m.signatureAlgorithms) {
				return false
			}
		case extensionSignatureAlgorithmsCert:
			if !readU16List(&ext, 2, true, &m.signatureAlgorithmsCert) {
				return false
			}
		case extensionCertificateAuthorities:
			var list cryptobyte.String
			if !ext.ReadUint16LengthPrefixed(&list) || list.Empty() {
				return false
			}
			for !list.Empty() {
				var dn cryptobyte.String
				if !list.ReadUint16LengthPrefixed(&dn) || dn.Empty() {
					return false
				}
				m.certificateAuthorities = append(m.certificateAuthorities, dn)
			}
		default:
			ext.Skip(len(ext))
		}
		return ext.Empty()
	})
	return ok && m.signatureAlgorithms != nil
}

// ---- Certificate (TLS 1.3) -----------------------------------------------

// certificateMsgTLS13 is a Certificate (RFC 8446, Section 4.4.2) with an
// empty certificate_request_context. Per-entry extensions are skipped on
// parse and none are sent.
type certificateMsgTLS13 struct {
	certificates [][]byte // DER, leaf first
}

// appendTo appends the Certificate.
func (m *certificateMsgTLS13) appendTo(b []byte) []byte {
	b, msg := beginMsg(b, typeCertificate)
	b = append(b, 0) // certificate_request_context
	b, list := beginLen(b, 3)
	for _, cert := range m.certificates {
		var off int
		b, off = beginLen(b, 3)
		b = endLen(append(b, cert...), off, 3)
		b = append(b, 0, 0) // extensions
	}
	b = endLen(b, list, 3)
	return endMsg(b, msg)
}

// unmarshal parses a Certificate; an empty list (a client without a
// certificate) is allowed, a non-empty context or an empty cert_data is not.
func (m *certificateMsgTLS13) unmarshal(data []byte) bool {
	*m = certificateMsgTLS13{}
	body, ok := readHandshake(data, typeCertificate, maxHandshakeBody)
	var ctx, list cryptobyte.String
	if !ok || !body.ReadUint8LengthPrefixed(&ctx) || !ctx.Empty() ||
		!body.ReadUint24LengthPrefixed(&list) || !body.Empty() {
		return false
	}
	for !list.Empty() {
		var cert, exts cryptobyte.String
		if !list.ReadUint24LengthPrefixed(&cert) || cert.Empty() || !list.ReadUint16LengthPrefixed(&exts) {
			return false
		}
		if !readExtensions(exts, false, nil, func(uint16, cryptobyte.String) bool { return true }) {
			return false
		}
		m.certificates = append(m.certificates, cert)
	}
	return true
}

// ---- CertificateVerify ---------------------------------------------------

// certificateVerifyMsg is a CertificateVerify (RFC 8446, Section 4.4.3); the
// TLS 1.2 form (RFC 5246, Section 7.4.8, with the algorithm of Section
// 7.4.1.4.1) has the same layout.
type certificateVerifyMsg struct {
	signatureAlgorithm uint16
	signature          []byte
}

// appendTo appends the CertificateVerify.
func (m *certificateVerifyMsg) appendTo(b []byte) []byte {
	b, msg := beginMsg(b, typeCertificateVerify)
	b = appendU16(b, m.signatureAlgorithm)
	b = appendU16Prefixed(b, m.signature)
	return endMsg(b, msg)
}

// unmarshal parses a CertificateVerify; the signature must be non-empty.
func (m *certificateVerifyMsg) unmarshal(data []byte) bool {
	*m = certificateVerifyMsg{}
	body, ok := readHandshake(data, typeCertificateVerify, maxHandshakeBody)
	var sig cryptobyte.String
	if !ok || !body.ReadUint16(&m.signatureAlgorithm) || !body.ReadUint16LengthPrefixed(&sig) ||
		sig.Empty() || !body.Empty() {
		return false
	}
	m.signature = sig
	return true
}

// ---- Finished ------------------------------------------------------------

// finishedMsg is a Finished (RFC 8446, Section 4.4.4; RFC 5246, Section
// 7.4.9). The caller checks verifyData's length against the suite.
type finishedMsg struct {
	verifyData []byte
}

// appendTo appends the Finished.
func (m *finishedMsg) appendTo(b []byte) []byte {
	b, msg := beginMsg(b, typeFinished)
	return endMsg(append(b, m.verifyData...), msg)
}

// unmarshal parses a Finished with 1..maxVerifyDataLen bytes of verify_data.
func (m *finishedMsg) unmarshal(data []byte) bool {
	body, ok := readHandshake(data, typeFinished, maxVerifyDataLen)
	if !ok || body.Empty() {
		*m = finishedMsg{}
		return false
	}
	m.verifyData = body
	return true
}

// ---- NewSessionTicket (TLS 1.3) ------------------------------------------

// newSessionTicketMsgTLS13 is a NewSessionTicket (RFC 8446, Section 4.6.1).
type newSessionTicketMsgTLS13 struct {
	lifetime     uint32 // seconds, at most maxTicketLifetime
	ageAdd       uint32
	nonce        []byte
	label        []byte // the ticket
	maxEarlyData uint32 // 0: no early_data extension
}

// appendTo appends the NewSessionTicket.
func (m *newSessionTicketMsgTLS13) appendTo(b []byte) []byte {
	b, msg := beginMsg(b, typeNewSessionTicket)
	b = appendU32(b, m.lifetime)
	b = appendU32(b, m.ageAdd)
	b = appendU8Prefixed(b, m.nonce)
	b = appendU16Prefixed(b, m.label)
	b, exts := beginLen(b, 2)
	if m.maxEarlyData != 0 {
		var off int
		b, off = beginExt(b, extensionEarlyData)
		b = endExt(appendU32(b, m.maxEarlyData), off)
	}
	b = endLen(b, exts, 2)
	return endMsg(b, msg)
}

// unmarshal parses a NewSessionTicket; the ticket must be non-empty and the
// lifetime within maxTicketLifetime. Unknown extensions are ignored.
func (m *newSessionTicketMsgTLS13) unmarshal(data []byte) bool {
	*m = newSessionTicketMsgTLS13{}
	body, ok := readHandshake(data, typeNewSessionTicket, maxHandshakeBody)
	var nonce, label, exts cryptobyte.String
	if !ok || !body.ReadUint32(&m.lifetime) || m.lifetime > maxTicketLifetime ||
		!body.ReadUint32(&m.ageAdd) || !body.ReadUint8LengthPrefixed(&nonce) ||
		!body.ReadUint16LengthPrefixed(&label) || label.Empty() ||
		!body.ReadUint16LengthPrefixed(&exts) || !body.Empty() {
		return false
	}
	m.nonce, m.label = nilIfEmpty(nonce), label
	return readExtensions(exts, false, nil, func(typ uint16, ext cryptobyte.String) bool {
		if typ == extensionEarlyData {
			return ext.ReadUint32(&m.maxEarlyData) && ext.Empty()
		}
		return true
	})
}

// ---- EndOfEarlyData and KeyUpdate ----------------------------------------

// endOfEarlyDataMsg is EndOfEarlyData (RFC 8446, Section 4.5): empty.
type endOfEarlyDataMsg struct{}

// appendTo appends the EndOfEarlyData.
func (m *endOfEarlyDataMsg) appendTo(b []byte) []byte {
	return append(b, typeEndOfEarlyData, 0, 0, 0)
}

// unmarshal accepts exactly an empty EndOfEarlyData.
func (m *endOfEarlyDataMsg) unmarshal(data []byte) bool {
	body, ok := readHandshake(data, typeEndOfEarlyData, 0)
	return ok && body.Empty()
}

// keyUpdateMsg is a KeyUpdate (RFC 8446, Section 4.6.3).
type keyUpdateMsg struct {
	updateRequested bool
}

// appendTo appends the KeyUpdate.
func (m *keyUpdateMsg) appendTo(b []byte) []byte {
	req := byte(0)
	if m.updateRequested {
		req = 1
	}
	return append(b, typeKeyUpdate, 0, 0, 1, req)
}

// unmarshal parses a KeyUpdate; a request_update other than 0 or 1 is
// rejected (the RFC asks for illegal_parameter; the caller's decode_error is
// the codec's single answer).
func (m *keyUpdateMsg) unmarshal(data []byte) bool {
	body, ok := readHandshake(data, typeKeyUpdate, 1)
	var req uint8
	if !ok || !body.ReadUint8(&req) || req > 1 {
		return false
	}
	m.updateRequested = req == 1
	return true
}

// ---- TLS 1.2 messages (RFC 5246, Section 7.4) ------------------------------
//
// Certificate, CertificateRequest and NewSessionTicket share their handshake
// type with the TLS 1.3 messages of the same name but not their layout; the
// caller picks the type by the negotiated version. CertificateVerify and
// Finished have one layout for both versions (certificateVerifyMsg,
// finishedMsg above).

// certificateMsg is a TLS 1.2 Certificate (RFC 5246, Section 7.4.2).
type certificateMsg struct {
	certificates [][]byte // DER, leaf first
}

// appendTo appends the Certificate.
func (m *certificateMsg) appendTo(b []byte) []byte {
	b, msg := beginMsg(b, typeCertificate)
	b, list := beginLen(b, 3)
	for _, cert := range m.certificates {
		var off int
		b, off = beginLen(b, 3)
		b = endLen(append(b, cert...), off, 3)
	}
	b = endLen(b, list, 3)
	return endMsg(b, msg)
}

// unmarshal parses a Certificate; an empty list (a client without a
// certificate) is allowed, an empty certificate is not.
func (m *certificateMsg) unmarshal(data []byte) bool {
	*m = certificateMsg{}
	body, ok := readHandshake(data, typeCertificate, maxHandshakeBody)
	var list cryptobyte.String
	if !ok || !body.ReadUint24LengthPrefixed(&list) || !body.Empty() {
		return false
	}
	for !list.Empty() {
		var cert cryptobyte.String
		if !list.ReadUint24LengthPrefixed(&cert) || cert.Empty() {
			return false
		}
		m.certificates = append(m.certificates, cert)
	}
	return true
}

// curveTypeNamedCurve is ECCurveType named_curve (RFC 8422, Section 5.4).
const curveTypeNamedCurve uint8 = 3

// serverKeyExchangeMsg is an ECDHE ServerKeyExchange (RFC 8422, Section
// 5.4, with the TLS 1.2 signature of RFC 5246, Section 7.4.1.4.1): the
// server's ephemeral public value on a named group, signed together with
// both randoms.
type serverKeyExchangeMsg struct {
	group              uint16
	publicKey          []byte // ECPoint<1..2^8-1>
	signatureAlgorithm uint16
	signature          []byte
}

// appendParams appends ServerECDHParams, the part the signature covers
// after client_random and server_random.
func (m *serverKeyExchangeMsg) appendParams(b []byte) []byte {
	b = append(b, curveTypeNamedCurve)
	b = appendU16(b, m.group)
	return appendU8Prefixed(b, m.publicKey)
}

// appendTo appends the ServerKeyExchange.
func (m *serverKeyExchangeMsg) appendTo(b []byte) []byte {
	b, msg := beginMsg(b, typeServerKeyExchange)
	b = m.appendParams(b)
	b = appendU16(b, m.signatureAlgorithm)
	b = appendU16Prefixed(b, m.signature)
	return endMsg(b, msg)
}

// unmarshal parses an ECDHE ServerKeyExchange on a named curve; other curve
// types (explicit curves, RFC 8422 deprecates them) are rejected.
func (m *serverKeyExchangeMsg) unmarshal(data []byte) bool {
	*m = serverKeyExchangeMsg{}
	body, ok := readHandshake(data, typeServerKeyExchange, maxHandshakeBody)
	var curveType uint8
	var pub, sig cryptobyte.String
	if !ok || !body.ReadUint8(&curveType) || curveType != curveTypeNamedCurve ||
		!body.ReadUint16(&m.group) || !body.ReadUint8LengthPrefixed(&pub) || pub.Empty() ||
		!body.ReadUint16(&m.signatureAlgorithm) || !body.ReadUint16LengthPrefixed(&sig) ||
		sig.Empty() || !body.Empty() {
		return false
	}
	m.publicKey, m.signature = pub, sig
	return true
}

// serverHelloDoneMsg is ServerHelloDone (RFC 5246, Section 7.4.5): empty.
type serverHelloDoneMsg struct{}

// appendTo appends the ServerHelloDone.
func (m *serverHelloDoneMsg) appendTo(b []byte) []byte {
	return append(b, typeServerHelloDone, 0, 0, 0)
}

// unmarshal accepts exactly an empty ServerHelloDone.
func (m *serverHelloDoneMsg) unmarshal(data []byte) bool {
	body, ok := readHandshake(data, typeServerHelloDone, 0)
	return ok && body.Empty()
}

// TLS 1.2 ClientCertificateType values (RFC 5246, Section 7.4.4; RFC 8422,
// Section 5.5).
const (
	certTypeRSASign   uint8 = 1
	certTypeECDSASign uint8 = 64
)

// certificateRequestMsg is a TLS 1.2 CertificateRequest (RFC 5246, Section
// 7.4.4).
type certificateRequestMsg struct {
	certificateTypes       []uint8
	signatureAlgorithms    []uint16
	certificateAuthorities [][]byte // DER DistinguishedNames
}

// appendTo appends the CertificateRequest.
func (m *certificateRequestMsg) appendTo(b []byte) []byte {
	b, msg := beginMsg(b, typeCertificateRequest)
	b = appendU8Prefixed(b, m.certificateTypes)
	b = appendU16List(b, 2, m.signatureAlgorithms)
	b, list := beginLen(b, 2)
	for _, ca := range m.certificateAuthorities {
		b = appendU16Prefixed(b, ca)
	}
	b = endLen(b, list, 2)
	return endMsg(b, msg)
}

// unmarshal parses a CertificateRequest: certificate_types and
// supported_signature_algorithms must be non-empty.
func (m *certificateRequestMsg) unmarshal(data []byte) bool {
	*m = certificateRequestMsg{}
	body, ok := readHandshake(data, typeCertificateRequest, maxHandshakeBody)
	var cas cryptobyte.String
	if !ok || !readU8List(&body, &m.certificateTypes) ||
		!readU16List(&body, 2, true, &m.signatureAlgorithms) ||
		!body.ReadUint16LengthPrefixed(&cas) || !body.Empty() {
		return false
	}
	for !cas.Empty() {
		var dn cryptobyte.String
		if !cas.ReadUint16LengthPrefixed(&dn) || dn.Empty() {
			return false
		}
		m.certificateAuthorities = append(m.certificateAuthorities, dn)
	}
	return true
}

// clientKeyExchangeMsg is an ECDHE ClientKeyExchange (RFC 8422, Section
// 5.7): the client's ephemeral public value. RSA key transport is not
// supported.
type clientKeyExchangeMsg struct {
	publicKey []byte // ECPoint<1..2^8-1>
}

// appendTo appends the ClientKeyExchange.
func (m *clientKeyExchangeMsg) appendTo(b []byte) []byte {
	b, msg := beginMsg(b, typeClientKeyExchange)
	return endMsg(appendU8Prefixed(b, m.publicKey), msg)
}

// unmarshal parses a ClientKeyExchange with a non-empty ECPoint.
func (m *clientKeyExchangeMsg) unmarshal(data []byte) bool {
	*m = clientKeyExchangeMsg{}
	body, ok := readHandshake(data, typeClientKeyExchange, maxHandshakeBody)
	var pub cryptobyte.String
	if !ok || !body.ReadUint8LengthPrefixed(&pub) || pub.Empty() || !body.Empty() {
		return false
	}
	m.publicKey = pub
	return true
}

// newSessionTicketMsg is a TLS 1.2 NewSessionTicket (RFC 5077, Section 3.3).
type newSessionTicketMsg struct {
	lifetimeHint uint32 // seconds; 0: unspecified
	ticket       []byte // empty: the server will not renew
}

// appendTo appends the NewSessionTicket.
func (m *newSessionTicketMsg) appendTo(b []byte) []byte {
	b, msg := beginMsg(b, typeNewSessionTicket)
	b = appendU32(b, m.lifetimeHint)
	return endMsg(appendU16Prefixed(b, m.ticket), msg)
}

// unmarshal parses a NewSessionTicket.
func (m *newSessionTicketMsg) unmarshal(data []byte) bool {
	*m = newSessionTicketMsg{}
	body, ok := readHandshake(data, typeNewSessionTicket, maxHandshakeBody)
	var ticket cryptobyte.String
	if !ok || !body.ReadUint32(&m.lifetimeHint) || !body.ReadUint16LengthPrefixed(&ticket) || !body.Empty() {
		return false
	}
	m.ticket = nilIfEmpty(ticket)
	return true
}
