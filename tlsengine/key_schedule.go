package tlsengine

import (
	"bytes"
	"crypto"
	"crypto/hkdf"
	"crypto/hmac"
	_ "crypto/sha256" // registers crypto.SHA256 for the TLS 1.3 suites
	_ "crypto/sha512" // registers crypto.SHA384
)

// This file is the TLS 1.3 key schedule (RFC 8446, Section 7.1). Secrets are
// typed by stage, earlySecret → handshakeSecret → masterSecret, and each
// type offers only the derivations the RFC makes from it. Every function
// returns fresh slices; nothing here is on the per-record path.

// TLS 1.3 key schedule labels (RFC 8446, Sections 7.1, 7.3, 4.4.4, 4.6.1).
const (
	labelDerived                = "derived"
	labelResumptionBinder       = "res binder"
	labelClientEarlyTraffic     = "c e traffic"
	labelClientHandshakeTraffic = "c hs traffic"
	labelServerHandshakeTraffic = "s hs traffic"
	labelClientAppTraffic       = "c ap traffic"
	labelServerAppTraffic       = "s ap traffic"
	labelExporterMaster         = "exp master"
	labelResumptionMaster       = "res master"
	labelResumption             = "resumption"
	labelFinished               = "finished"
	labelTrafficUpdate          = "traffic upd"
	labelKey                    = "key"
	labelIV                     = "iv"
)

// hkdfExpandLabel is HKDF-Expand-Label (RFC 8446, Section 7.1):
// HKDF-Expand(secret, HkdfLabel{length, "tls13 " + label, context}, length).
// label and context come from this package and fit their one-byte prefixes.
func hkdfExpandLabel(h crypto.Hash, secret []byte, label string, context []byte, length int) []byte {
	info, ok := fixedInfo(h, label, context, length)
	if !ok {
		var buf [2 + 1 + 255 + 1 + 64]byte
		info = string(appendHkdfLabel(buf[:0], label, context, length))
	}
	out, err := hkdf.Expand(h.New, secret, info, length)
	if err != nil {
		// Only a length over 255 hash blocks fails; callers ask for keys,
		// IVs and hash-length secrets.
		panic("tlsengine: internal error: " + err.Error())
	}
	return out
}

// appendHkdfLabel appends the HkdfLabel structure (RFC 8446, Section 7.1).
func appendHkdfLabel(b []byte, label string, context []byte, length int) []byte {
	const prefix = "tls13 "
	b = appendU16(b, uint16(length))
	b = append(b, byte(len(prefix)+len(label)))
	b = append(b, prefix...)
	b = append(b, label...)
	b = append(b, byte(len(context)))
	return append(b, context...)
}

// labelInfo is an HkdfLabel whose context does not depend on the handshake.
type labelInfo struct {
	hash    crypto.Hash
	label   string
	length  int
	context []byte
	info    string
}

// fixedInfos are the HkdfLabels built once instead of per derivation: the
// traffic key and IV (every AEAD key length), finished, traffic upd and, with
// Transcript-Hash("") as context, derived and res binder.
var fixedInfos = func() (l []labelInfo) {
	for _, h := range []crypto.Hash{crypto.SHA256, crypto.SHA384} {
		empty := h.New().Sum(nil)
		for _, f := range []labelInfo{
			{label: labelKey, length: 16}, {label: labelKey, length: 32}, {label: labelIV, length: 12},
			{label: labelFinished, length: h.Size()}, {label: labelTrafficUpdate, length: h.Size()},
			{label: labelDerived, length: h.Size(), context: empty},
			{label: labelResumptionBinder, length: h.Size(), context: empty},
		} {
			f.hash = h
			f.info = string(appendHkdfLabel(nil, f.label, f.context, f.length))
			l = append(l, f)
		}
	}
	return l
}()

// fixedInfo returns the prebuilt HkdfLabel for these arguments, if any.
func fixedInfo(h crypto.Hash, label string, context []byte, length int) (string, bool) {
	for i := range fixedInfos {
		f := &fixedInfos[i]
		if f.hash == h && f.length == length && f.label == label && bytes.Equal(f.context, context) {
			return f.info, true
		}
	}
	return "", false
}

// deriveSecret is Derive-Secret(secret, label, transcriptHash) (RFC 8446,
// Section 7.1), taking the transcript hash already computed.
func deriveSecret(h crypto.Hash, secret []byte, label string, transcriptHash []byte) []byte {
	return hkdfExpandLabel(h, secret, label, transcriptHash, h.Size())
}

// emptyHash returns Transcript-Hash("") for h, the context of the "derived"
// and binder-key derivations. The result may be shared: read only.
func emptyHash(h crypto.Hash) []byte {
	if c := constantsOf(h); c != nil {
		return c.empty
	}
	return h.New().Sum(nil)
}

// scheduleConstants are the values of the schedule that depend on the hash
// alone, computed once instead of per handshake: Transcript-Hash("") and,
// for a handshake without PSK, the Early Secret and the salt "derived"
// from it. They are shared and read only.
type scheduleConstants struct {
	empty        []byte
	noPSKEarly   []byte // HKDF-Extract(0, 0)
	noPSKDerived []byte // Derive-Secret(noPSKEarly, "derived", "")
}

// schedules holds the constants of the TLS 1.3 suites' hashes.
var schedules = func() (m [crypto.SHA384 + 1]*scheduleConstants) {
	for _, h := range []crypto.Hash{crypto.SHA256, crypto.SHA384} {
		c := &scheduleConstants{empty: h.New().Sum(nil), noPSKEarly: extract(h, nil, nil)}
		c.noPSKDerived = hkdfExpandLabel(h, c.noPSKEarly, labelDerived, c.empty, h.Size())
		m[h] = c
	}
	return m
}()

// constantsOf returns the precomputed constants of h, nil if none.
func constantsOf(h crypto.Hash) *scheduleConstants {
	if int(h) < len(schedules) {
		return schedules[h]
	}
	return nil
}

// extract is HKDF-Extract(salt, ikm); a nil ikm means a string of hash-length
// zeros, as the RFC uses when no PSK or no (EC)DHE secret is present.
func extract(h crypto.Hash, ikm, salt []byte) []byte {
	if ikm == nil {
		ikm = zeros[:h.Size()]
	}
	prk, err := hkdf.Extract(h.New, ikm, salt)
	if err != nil {
		panic("tlsengine: internal error: " + err.Error())
	}
	return prk
}

// zeros is the string of hash-length zeros of extract; read only.
var zeros [64]byte

// earlySecret is the Early Secret, the first stage of the schedule.
type earlySecret struct {
	hash   crypto.Hash
	secret []byte
	noPSK  bool // secret is the shared constant HKDF-Extract(0, 0)
}

// newEarlySecret returns HKDF-Extract(0, PSK); psk nil means no PSK (hash
// length zeros).
func newEarlySecret(h crypto.Hash, psk []byte) earlySecret {
	if c := constantsOf(h); psk == nil && c != nil {
		return earlySecret{hash: h, secret: c.noPSKEarly, noPSK: true}
	}
	return earlySecret{hash: h, secret: extract(h, psk, nil)}
}

// resumptionBinderKey returns binder_key for resumption PSKs (RFC 8446,
// Section 7.1; its Finished-style use is Section 4.2.11.2).
func (s earlySecret) resumptionBinderKey() []byte {
	return deriveSecret(s.hash, s.secret, labelResumptionBinder, emptyHash(s.hash))
}

// clientEarlyTrafficSecret returns client_early_traffic_secret over the
// transcript hash of ClientHello.
func (s earlySecret) clientEarlyTrafficSecret(th []byte) []byte {
	return deriveSecret(s.hash, s.secret, labelClientEarlyTraffic, th)
}

// handshakeSecret returns the Handshake Secret from the (EC)DHE shared
// secret (nil: psk_ke mode, hash-length zeros).
func (s earlySecret) handshakeSecret(shared []byte) handshakeSecret {
	var salt []byte
	if s.noPSK {
		salt = constantsOf(s.hash).noPSKDerived // no PSK: the salt is a constant
	} else {
		salt = deriveSecret(s.hash, s.secret, labelDerived, emptyHash(s.hash))
	}
	return handshakeSecret{hash: s.hash, secret: extract(s.hash, shared, salt)}
}

// handshakeSecret is the Handshake Secret, the second stage.
type handshakeSecret struct {
	hash   crypto.Hash
	secret []byte
}

// clientHandshakeTrafficSecret returns client_handshake_traffic_secret over
// the transcript hash of ClientHello..ServerHello.
func (s handshakeSecret) clientHandshakeTrafficSecret(th []byte) []byte {
	return deriveSecret(s.hash, s.secret, labelClientHandshakeTraffic, th)
}

// serverHandshakeTrafficSecret returns server_handshake_traffic_secret over
// the transcript hash of ClientHello..ServerHello.
func (s handshakeSecret) serverHandshakeTrafficSecret(th []byte) []byte {
	return deriveSecret(s.hash, s.secret, labelServerHandshakeTraffic, th)
}

// masterSecret returns the Master Secret.
func (s handshakeSecret) masterSecret() masterSecret {
	salt := deriveSecret(s.hash, s.secret, labelDerived, emptyHash(s.hash))
	return masterSecret{hash: s.hash, secret: extract(s.hash, nil, salt)}
}

// masterSecret is the Master Secret, the last stage.
type masterSecret struct {
	hash   crypto.Hash
	secret []byte
}

// clientApplicationTrafficSecret returns client_application_traffic_secret_0
// over the transcript hash of ClientHello..server Finished.
func (s masterSecret) clientApplicationTrafficSecret(th []byte) []byte {
	return deriveSecret(s.hash, s.secret, labelClientAppTraffic, th)
}

// serverApplicationTrafficSecret returns server_application_traffic_secret_0
// over the transcript hash of ClientHello..server Finished.
func (s masterSecret) serverApplicationTrafficSecret(th []byte) []byte {
	return deriveSecret(s.hash, s.secret, labelServerAppTraffic, th)
}

// exporterMasterSecret returns exporter_master_secret over the transcript
// hash of ClientHello..server Finished.
func (s masterSecret) exporterMasterSecret(th []byte) []byte {
	return deriveSecret(s.hash, s.secret, labelExporterMaster, th)
}

// resumptionMasterSecret returns resumption_master_secret over the
// transcript hash of ClientHello..client Finished.
func (s masterSecret) resumptionMasterSecret(th []byte) []byte {
	return deriveSecret(s.hash, s.secret, labelResumptionMaster, th)
}

// trafficKeys derives the write key and IV from a traffic secret (RFC 8446,
// Section 7.3). Every TLS 1.3 AEAD uses a 12-byte IV.
func trafficKeys(h crypto.Hash, secret []byte, keyLen int) (key, iv []byte) {
	key = hkdfExpandLabel(h, secret, labelKey, nil, keyLen)
	iv = hkdfExpandLabel(h, secret, labelIV, nil, 12)
	return key, iv
}

// finishedVerifyData returns HMAC(finished_key, transcriptHash) with
// finished_key derived from baseKey, a handshake traffic secret or a binder
// key (RFC 8446, Sections 4.4.4 and 4.2.11.2).
func finishedVerifyData(h crypto.Hash, baseKey, transcriptHash []byte) []byte {
	finishedKey := hkdfExpandLabel(h, baseKey, labelFinished, nil, h.Size())
	mac := hmac.New(h.New, finishedKey)
	mac.Write(transcriptHash)
	sum := mac.Sum(nil)
	clear(finishedKey)
	return sum
}

// nextTrafficSecret returns application_traffic_secret_N+1 (RFC 8446,
// Section 7.2).
func nextTrafficSecret(h crypto.Hash, secret []byte) []byte {
	return hkdfExpandLabel(h, secret, labelTrafficUpdate, nil, h.Size())
}

// resumptionPSK returns the PSK a ticket carries, from the resumption master
// secret and the ticket_nonce (RFC 8446, Section 4.6.1).
func resumptionPSK(h crypto.Hash, resumptionMasterSecret, nonce []byte) []byte {
	return hkdfExpandLabel(h, resumptionMasterSecret, labelResumption, nonce, h.Size())
}
