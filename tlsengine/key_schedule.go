package tlsengine

import (
	"crypto"
	"crypto/hkdf"
	"crypto/hmac"
	_ "crypto/sha256" // registers crypto.SHA256 for the TLS 1.3 suites
	_ "crypto/sha512" // registers crypto.SHA384
	"hash"
)

// This file is the TLS 1.3 key schedule (RFC 8446, Section 7.1). Secrets are
// typed by stage, earlySecret → handshakeSecret → masterSecret, and each
// type offers only the derivations the RFC makes from it, by an expander
// keyed with its secret. Secrets come back in fresh slices, keys and IVs go
// into the caller's arrays; nothing here is on the per-record path.

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
// HKDF-Expand(secret, HkdfLabel{length, "tls13 " + label, context}, length),
// by crypto/hkdf, for any length. The handshake uses an expander instead;
// this is the reference it is tested against, and what builds the
// schedule's constants.
func hkdfExpandLabel(h crypto.Hash, secret []byte, label string, context []byte, length int) []byte {
	var buf [2 + 1 + 255 + 1 + 255]byte
	info := appendHkdfLabel(buf[:0], label, context, length)
	out, err := hkdf.Expand(h.New, secret, string(info), length)
	if err != nil {
		// Only a length over 255 hash blocks fails; callers ask for keys,
		// IVs and hash-length secrets.
		panic("tlsengine: internal error: " + err.Error())
	}
	return out
}

// appendHkdfLabel appends the HkdfLabel structure (RFC 8446, Section 7.1).
func appendHkdfLabel(b []byte, label string, context []byte, length int) []byte {
	return append(appendHkdfLabelHead(b, label, len(context), length), context...)
}

// appendHkdfLabelHead appends HkdfLabel up to its context: length, the
// prefixed label and the context's length byte.
func appendHkdfLabelHead(b []byte, label string, contextLen, length int) []byte {
	const prefix = "tls13 "
	b = appendU16(b, uint16(length))
	b = append(b, byte(len(prefix)+len(label)))
	b = append(b, prefix...)
	b = append(b, label...)
	return append(b, byte(contextLen))
}

// expander is HKDF-Expand-Label from one secret, the HKDF PRK (RFC 5869,
// Section 2.3, over crypto/hmac): the HMAC keyed with the secret is built
// once and Reset for each label, where crypto/hkdf builds one per call.
// Every label the schedule expands asks for at most one hash length, which
// is the first HKDF block alone: T(1) = HMAC(PRK, HkdfLabel || 0x01).
type expander struct {
	mac  hash.Hash
	hash crypto.Hash
	used bool     // mac needs a Reset before the next label
	head [32]byte // scratch: HkdfLabel up to its context
	sum  [64]byte // scratch: T(1)
	// digests, when set, supplies the hash states of the HMACs x builds
	// (its own and those of verifyData and initExtract): a handshake's
	// digestPool. nil means hash.New.
	digests func() hash.Hash
}

// hkdfCounter1 is HKDF-Expand's one-byte counter of its first block.
var hkdfCounter1 = []byte{1}

// init keys x with secret.
func (x *expander) init(h crypto.Hash, secret []byte) {
	x.mac, x.hash, x.used = hmac.New(x.newDigest(h), secret), h, false
}

// newDigest returns the constructor of x's HMAC hash states for h.
func (x *expander) newDigest(h crypto.Hash) func() hash.Hash {
	if x.digests != nil {
		return x.digests
	}
	return h.New
}

// initExtract keys x with HKDF-Extract(salt, ikm) (RFC 5869, Section 2.2)
// and copies that secret to prk, which must hold a hash length; a nil ikm
// means hash-length zeros, as the RFC uses when no PSK or no (EC)DHE secret
// is present. saltMAC, when not nil, is an unused HMAC keyed with salt,
// cloned instead of keying a new one.
func (x *expander) initExtract(h crypto.Hash, prk, ikm, salt []byte, saltMAC hash.Hash) {
	if ikm == nil {
		ikm = zeros[:h.Size()]
	}
	if salt == nil {
		salt = zeros[:h.Size()]
	}
	m := cloneMAC(saltMAC)
	if m == nil {
		m = hmac.New(x.newDigest(h), salt)
	}
	m.Write(ikm)
	n := copy(prk, m.Sum(x.sum[:0]))
	clear(x.sum[:])
	x.init(h, prk[:n])
}

// cloneMAC returns a copy of the HMAC m in its current state, nil when m is
// nil or cannot be cloned.
func cloneMAC(m hash.Hash) hash.Hash {
	c, ok := m.(hash.Cloner)
	if !ok {
		return nil
	}
	d, err := c.Clone()
	if err != nil {
		return nil
	}
	return d
}

// expand writes HKDF-Expand-Label(secret, label, context, len(dst)) to dst
// and returns dst; len(dst) is at most the hash length.
func (x *expander) expand(dst []byte, label string, context []byte) []byte {
	copy(dst, x.block(label, context, len(dst)))
	clear(x.sum[:])
	return dst
}

// block computes HKDF-Expand-Label(secret, label, context, length) into
// x.sum and returns it there; length is at most the hash length. The caller
// clears x.sum after use.
func (x *expander) block(label string, context []byte, length int) []byte {
	if length > x.hash.Size() || len(context) > 255 {
		panic("tlsengine: internal error: HKDF-Expand-Label over one block")
	}
	if x.used {
		x.mac.Reset()
	}
	x.used = true
	x.mac.Write(appendHkdfLabelHead(x.head[:0], label, len(context), length))
	x.mac.Write(context)
	x.mac.Write(hkdfCounter1)
	return x.mac.Sum(x.sum[:0])[:length]
}

// derive returns Derive-Secret(secret, label, transcriptHash) (RFC 8446,
// Section 7.1) in a new slice, taking the transcript hash already computed.
func (x *expander) derive(label string, transcriptHash []byte) []byte {
	return x.expand(make([]byte, x.hash.Size()), label, transcriptHash)
}

// verifyData appends HMAC(finished_key, transcriptHash) to dst, finished_key
// derived from x's secret, a handshake traffic secret or a binder key (RFC
// 8446, Sections 4.4.4 and 4.2.11.2).
func (x *expander) verifyData(dst, transcriptHash []byte) []byte {
	mac := hmac.New(x.newDigest(x.hash), x.block(labelFinished, nil, x.hash.Size()))
	clear(x.sum[:])
	mac.Write(transcriptHash)
	return mac.Sum(dst)
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
	noPSKEarly   []byte    // HKDF-Extract(0, 0)
	noPSKDerived []byte    // Derive-Secret(noPSKEarly, "derived", "")
	derivedMAC   hash.Hash // HMAC keyed with noPSKDerived, never written: cloned per handshake
}

// schedules holds the constants of the TLS 1.3 suites' hashes, by crypto/hkdf.
var schedules = func() (m [crypto.SHA384 + 1]*scheduleConstants) {
	for _, h := range []crypto.Hash{crypto.SHA256, crypto.SHA384} {
		early, err := hkdf.Extract(h.New, zeros[:h.Size()], nil)
		if err != nil {
			panic("tlsengine: internal error: " + err.Error())
		}
		c := &scheduleConstants{empty: h.New().Sum(nil), noPSKEarly: early}
		c.noPSKDerived = hkdfExpandLabel(h, c.noPSKEarly, labelDerived, c.empty, h.Size())
		c.derivedMAC = hmac.New(h.New, c.noPSKDerived)
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

// zeros is the string of hash-length zeros of HKDF-Extract; read only.
var zeros [64]byte

// stage is the storage of one stage of the schedule in one allocation: the
// expander of its secret, the secret, and room for the first two secrets
// derived from it (both traffic secrets of the handshake or of the
// application; the exporter and resumption secrets get slices of their
// own). TLS 1.3 hashes are at most 48 bytes (SHA-384).
type stage struct {
	x       expander // keyed with prk
	prk     [48]byte
	derived [2][48]byte
	n       int // 0 <= n <= len(derived): derived secrets handed out
}

// newStage returns the stage of HKDF-Extract(salt, ikm); saltMAC is as in
// initExtract, digests as in expander.
func newStage(h crypto.Hash, ikm, salt []byte, saltMAC hash.Hash, digests func() hash.Hash) *stage {
	s := new(stage)
	s.x.digests = digests
	s.x.initExtract(h, s.prk[:h.Size()], ikm, salt, saltMAC)
	return s
}

// secret returns the stage's secret, in s.
func (s *stage) secret() []byte { return s.prk[:s.x.hash.Size()] }

// derive is expander.derive into the stage's next free slot.
func (s *stage) derive(label string, transcriptHash []byte) []byte {
	if s.n == len(s.derived) {
		return s.x.derive(label, transcriptHash)
	}
	d := s.derived[s.n][:s.x.hash.Size()]
	s.n++
	return s.x.expand(d, label, transcriptHash)
}

// earlySecret is the Early Secret, the first stage of the schedule.
type earlySecret struct {
	hash   crypto.Hash
	secret []byte
	x      *expander // keyed with secret
	noPSK  bool      // secret is the shared constant HKDF-Extract(0, 0); x is nil
	// digests supplies the hash states of the later stages' HMACs, as in
	// expander; nil means hash.New.
	digests func() hash.Hash
}

// newEarlySecret returns HKDF-Extract(0, PSK); psk nil means no PSK (hash
// length zeros).
func newEarlySecret(h crypto.Hash, psk []byte) earlySecret {
	if c := constantsOf(h); psk == nil && c != nil {
		return earlySecret{hash: h, secret: c.noPSKEarly, noPSK: true}
	}
	st := newStage(h, psk, nil, nil, nil)
	return earlySecret{hash: h, secret: st.secret(), x: &st.x}
}

// expander returns the expander of s, keying one for the shared constant.
func (s earlySecret) expander() *expander {
	if s.x != nil {
		return s.x
	}
	x := new(expander)
	x.init(s.hash, s.secret)
	return x
}

// resumptionBinderKey returns binder_key for resumption PSKs (RFC 8446,
// Section 7.1; its Finished-style use is Section 4.2.11.2).
func (s earlySecret) resumptionBinderKey() []byte {
	return s.expander().derive(labelResumptionBinder, emptyHash(s.hash))
}

// clientEarlyTrafficSecret returns client_early_traffic_secret over the
// transcript hash of ClientHello.
func (s earlySecret) clientEarlyTrafficSecret(th []byte) []byte {
	return s.expander().derive(labelClientEarlyTraffic, th)
}

// handshakeSecret returns the Handshake Secret from the (EC)DHE shared
// secret (nil: psk_ke mode, hash-length zeros).
func (s earlySecret) handshakeSecret(shared []byte) handshakeSecret {
	if s.noPSK { // no PSK: the salt is a constant
		c := constantsOf(s.hash)
		st := newStage(s.hash, shared, c.noPSKDerived, c.derivedMAC, s.digests)
		return handshakeSecret{secret: st.secret(), st: st}
	}
	st := newStage(s.hash, shared, s.x.block(labelDerived, emptyHash(s.hash), s.hash.Size()), nil, s.digests)
	clear(s.x.sum[:])
	return handshakeSecret{secret: st.secret(), st: st}
}

// handshakeSecret is the Handshake Secret, the second stage.
type handshakeSecret struct {
	secret []byte
	st     *stage
}

// clientHandshakeTrafficSecret returns client_handshake_traffic_secret over
// the transcript hash of ClientHello..ServerHello.
func (s handshakeSecret) clientHandshakeTrafficSecret(th []byte) []byte {
	return s.st.derive(labelClientHandshakeTraffic, th)
}

// serverHandshakeTrafficSecret returns server_handshake_traffic_secret over
// the transcript hash of ClientHello..ServerHello.
func (s handshakeSecret) serverHandshakeTrafficSecret(th []byte) []byte {
	return s.st.derive(labelServerHandshakeTraffic, th)
}

// masterSecret returns the Master Secret.
func (s handshakeSecret) masterSecret() masterSecret {
	x := &s.st.x
	h := x.hash
	st := newStage(h, nil, x.block(labelDerived, emptyHash(h), h.Size()), nil, x.digests)
	clear(x.sum[:])
	return masterSecret{secret: st.secret(), st: st}
}

// masterSecret is the Master Secret, the last stage.
type masterSecret struct {
	secret []byte
	st     *stage
}

// clientApplicationTrafficSecret returns client_application_traffic_secret_0
// over the transcript hash of ClientHello..server Finished.
func (s masterSecret) clientApplicationTrafficSecret(th []byte) []byte {
	return s.st.derive(labelClientAppTraffic, th)
}

// serverApplicationTrafficSecret returns server_application_traffic_secret_0
// over the transcript hash of ClientHello..server Finished.
func (s masterSecret) serverApplicationTrafficSecret(th []byte) []byte {
	return s.st.derive(labelServerAppTraffic, th)
}

// exporterMasterSecret returns exporter_master_secret over the transcript
// hash of ClientHello..server Finished.
func (s masterSecret) exporterMasterSecret(th []byte) []byte {
	return s.st.derive(labelExporterMaster, th)
}

// resumptionMasterSecret returns resumption_master_secret over the
// transcript hash of ClientHello..client Finished.
func (s masterSecret) resumptionMasterSecret(th []byte) []byte {
	return s.st.derive(labelResumptionMaster, th)
}

// trafficKeys derives the write key and IV from a traffic secret (RFC 8446,
// Section 7.3). Every TLS 1.3 AEAD uses a 12-byte IV.
func trafficKeys(h crypto.Hash, secret []byte, keyLen int) (key, iv []byte) {
	var x expander
	x.init(h, secret)
	return x.expand(make([]byte, keyLen), labelKey, nil), x.expand(make([]byte, 12), labelIV, nil)
}

// finishedVerifyData returns HMAC(finished_key, transcriptHash) with
// finished_key derived from baseKey, a handshake traffic secret or a binder
// key (RFC 8446, Sections 4.4.4 and 4.2.11.2).
func finishedVerifyData(h crypto.Hash, baseKey, transcriptHash []byte) []byte {
	var x expander
	x.init(h, baseKey)
	return x.verifyData(nil, transcriptHash)
}

// nextTrafficSecret returns application_traffic_secret_N+1 (RFC 8446,
// Section 7.2).
func nextTrafficSecret(h crypto.Hash, secret []byte) []byte {
	var x expander
	x.init(h, secret)
	return x.derive(labelTrafficUpdate, nil)
}

// resumptionPSK returns the PSK a ticket carries, from the resumption master
// secret and the ticket_nonce (RFC 8446, Section 4.6.1).
func resumptionPSK(h crypto.Hash, resumptionMasterSecret, nonce []byte) []byte {
	var x expander
	x.init(h, resumptionMasterSecret)
	return x.derive(labelResumption, nonce)
}
