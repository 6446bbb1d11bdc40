package tlsengine

import (
	"crypto"
	"crypto/hmac"
	"hash"
)

// This file is the TLS 1.2 key derivation: the PRF (RFC 5246, Section 5),
// the master secret (Section 8.1) and its extended form (RFC 7627), the key
// block (Section 6.3), Finished (Section 7.4.9) and exporters (RFC 5705).
// Only the TLS 1.2 PRF, P_SHA256 or P_SHA384 by suite, is provided: TLS 1.0
// and 1.1 are not supported.

// TLS 1.2 PRF labels.
const (
	labelMasterSecret         = "master secret"
	labelExtendedMasterSecret = "extended master secret"
	labelKeyExpansion         = "key expansion"
	labelClientFinished       = "client finished"
	labelServerFinished       = "server finished"
)

const (
	masterSecretLen     = 48 // RFC 5246, Section 8.1
	finishedVerifyLen12 = 12 // RFC 5246, Section 7.4.9
)

// prf12 fills out with PRF(secret, label, seed) = P_hash(secret, label ||
// seed), seed being the concatenation of seeds (RFC 5246, Section 5):
//
//	A(0) = label || seed;  A(i) = HMAC(secret, A(i-1))
//	P_hash = HMAC(secret, A(1) || label || seed) || HMAC(secret, A(2) || ...) ...
func prf12(h func() hash.Hash, out, secret []byte, label string, seeds ...[]byte) {
	mac := hmac.New(h, secret)
	writeSeed := func() {
		mac.Write([]byte(label))
		for _, s := range seeds {
			mac.Write(s)
		}
	}
	writeSeed()
	a := mac.Sum(nil) // A(1)
	var block []byte
	for len(out) > 0 {
		mac.Reset()
		mac.Write(a)
		writeSeed()
		block = mac.Sum(block[:0])
		n := copy(out, block)
		out = out[n:]
		mac.Reset()
		mac.Write(a)
		a = mac.Sum(a[:0]) // A(i+1)
	}
}

// masterFromPreMasterSecret derives the master secret without RFC 7627
// (RFC 5246, Section 8.1).
func masterFromPreMasterSecret(h crypto.Hash, preMaster, clientRandom, serverRandom []byte) []byte {
	ms := make([]byte, masterSecretLen)
	prf12(h.New, ms, preMaster, labelMasterSecret, clientRandom, serverRandom)
	return ms
}

// extendedMasterFromPreMasterSecret derives the master secret bound to the
// session hash, the transcript hash through ClientKeyExchange (RFC 7627,
// Section 4).
func extendedMasterFromPreMasterSecret(h crypto.Hash, preMaster, sessionHash []byte) []byte {
	ms := make([]byte, masterSecretLen)
	prf12(h.New, ms, preMaster, labelExtendedMasterSecret, sessionHash)
	return ms
}

// keysFromMasterSecret expands the key block of an AEAD suite (RFC 5246,
// Section 6.3; no MAC keys) into write keys and implicit IVs: ivLen is 4 for
// AES-GCM (RFC 5288, Section 3) and 12 for ChaCha20-Poly1305 (RFC 7905).
func keysFromMasterSecret(h crypto.Hash, masterSecret, clientRandom, serverRandom []byte, keyLen, ivLen int) (clientKey, serverKey, clientIV, serverIV []byte) {
	block := make([]byte, 2*keyLen+2*ivLen)
	prf12(h.New, block, masterSecret, labelKeyExpansion, serverRandom, clientRandom)
	clientKey, block = block[:keyLen:keyLen], block[keyLen:]
	serverKey, block = block[:keyLen:keyLen], block[keyLen:]
	clientIV, block = block[:ivLen:ivLen], block[ivLen:]
	serverIV = block[:ivLen:ivLen]
	return clientKey, serverKey, clientIV, serverIV
}

// finishedVerifyData12 returns the 12-byte verify_data for label
// (labelClientFinished or labelServerFinished) over the handshake hash
// (RFC 5246, Section 7.4.9).
func finishedVerifyData12(h crypto.Hash, masterSecret []byte, label string, transcriptHash []byte) []byte {
	out := make([]byte, finishedVerifyLen12)
	prf12(h.New, out, masterSecret, label, transcriptHash)
	return out
}

// exportKeyingMaterial12 is the TLS 1.2 exporter (RFC 5705, Section 4); a
// nil context is "no context", distinct from an empty one. Callers must
// only export from sessions with the extended master secret (RFC 7627,
// Section 5.4).
func exportKeyingMaterial12(h crypto.Hash, masterSecret, clientRandom, serverRandom []byte, label string, context []byte, length int) []byte {
	out := make([]byte, length)
	if context == nil {
		prf12(h.New, out, masterSecret, label, clientRandom, serverRandom)
		return out
	}
	ctxLen := []byte{byte(len(context) >> 8), byte(len(context))}
	prf12(h.New, out, masterSecret, label, clientRandom, serverRandom, ctxLen, context)
	return out
}
