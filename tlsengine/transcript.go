package tlsengine

import (
	"crypto"
	"hash"
)

// transcript is the running handshake hash, Transcript-Hash in RFC 8446,
// Section 4.4.1: the hash of the concatenated handshake messages, headers
// included, record framing excluded.
//
// The server picks the cipher suite, hence the hash, from ClientHello1 before
// it hashes anything, so no buffering of messages ahead of the hash choice is
// needed: the caller creates the transcript after choosing the suite and
// writes ClientHello1 first. (A TLS 1.2 transcript would need the client's
// messages buffered only if the PRF hash were chosen later, which it is not
// for a server either.)
type transcript struct {
	hash crypto.Hash
	h    hash.Hash
	cur  [64]byte // scratch of current

	// spare is a reset hash over spareOf left by a recycled handshake, for
	// begin to reuse; nil once begun.
	spare   hash.Hash
	spareOf crypto.Hash
}

// newTranscript returns an empty transcript over h.
func newTranscript(h crypto.Hash) transcript {
	return transcript{hash: h, h: h.New()}
}

// begin empties t and makes it a transcript over h, reusing the spare hash
// of a recycled handshake when it is one of h.
func (t *transcript) begin(h crypto.Hash) {
	spare, of := t.spare, t.spareOf
	*t = transcript{hash: h, h: spare}
	if spare == nil || of != h {
		t.h = h.New()
	}
}

// write adds one handshake message, its 4-byte header included.
func (t *transcript) write(msg []byte) {
	t.h.Write(msg)
}

// sum appends the hash of the messages written so far to dst. The running
// state is not disturbed: hash.Hash.Sum leaves it unchanged, so more
// messages can follow.
func (t *transcript) sum(dst []byte) []byte {
	return t.h.Sum(dst)
}

// current returns the hash of the messages written so far in a scratch
// array of t: valid until the next call of current.
func (t *transcript) current() []byte {
	return t.h.Sum(t.cur[:0])
}

// reset empties the transcript.
func (t *transcript) reset() {
	t.h.Reset()
}

// hrrRewrite replaces the transcript's content, which must be exactly
// ClientHello1, by the synthetic message_hash message (RFC 8446, Section
// 4.4.1): handshake type 254, uint24 length Hash.length, Hash(ClientHello1).
// The server then writes the HelloRetryRequest and ClientHello2.
func (t *transcript) hrrRewrite() {
	var buf [4 + 64]byte
	n := t.hash.Size()
	msg := append(buf[:0], typeMessageHash, 0, 0, byte(n))
	msg = t.h.Sum(msg)
	t.h.Reset()
	t.h.Write(msg)
}

// clone returns an independent copy of t, for a transcript that forks (the
// binder check hashes a truncated ClientHello while the full one continues).
func (t *transcript) clone() (transcript, bool) {
	c, ok := t.h.(hash.Cloner)
	if !ok {
		return transcript{}, false
	}
	h, err := c.Clone()
	if err != nil {
		return transcript{}, false
	}
	return transcript{hash: t.hash, h: h}, true
}
