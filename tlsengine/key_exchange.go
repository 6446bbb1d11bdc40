package tlsengine

import (
	"crypto/ecdh"
	"crypto/mlkem"
	"io"
)

// CurveID is a TLS named group (RFC 8446, Section 4.2.7).
type CurveID uint16

// Supported key exchange groups.
const (
	X25519         CurveID = 0x001d
	CurveP256      CurveID = 0x0017
	CurveP384      CurveID = 0x0018
	CurveP521      CurveID = 0x0019
	X25519MLKEM768 CurveID = 0x11ec // draft-ietf-tls-ecdhe-mlkem
)

// defaultCurvePreferences is the server preference order. x448 and the
// FFDHE groups (RFC 7919) are not supported, as in crypto/tls.
var defaultCurvePreferences = []CurveID{X25519MLKEM768, X25519, CurveP256, CurveP384, CurveP521}

const (
	x25519ShareLen    = 32
	mlkemEncapKeyLen  = mlkem.EncapsulationKeySize768 // 1184
	mlkemCiphertextLn = mlkem.CiphertextSize768       // 1088
)

func isSupportedCurve(c CurveID) bool {
	switch c {
	case X25519, CurveP256, CurveP384, CurveP521, X25519MLKEM768:
		return true
	}
	return false
}

func ecdhCurve(c CurveID) ecdh.Curve {
	switch c {
	case X25519:
		return ecdh.X25519()
	case CurveP256:
		return ecdh.P256()
	case CurveP384:
		return ecdh.P384()
	case CurveP521:
		return ecdh.P521()
	}
	return nil
}

// validShareShape reports whether data has the length a key share of the
// supported group g must have, and for the NIST curves the uncompressed
// point form (RFC 8446, Section 4.2.8.2): X25519 32 bytes, P-256 65,
// P-384 97, P-521 133, X25519MLKEM768 1216. Whether the point is on the
// curve is left to crypto/ecdh when the share is used.
func validShareShape(g CurveID, data []byte) bool {
	var n int
	switch g {
	case X25519:
		return len(data) == x25519ShareLen
	case X25519MLKEM768:
		return len(data) == mlkemEncapKeyLen+x25519ShareLen
	case CurveP256:
		n = 32
	case CurveP384:
		n = 48
	case CurveP521:
		n = 66
	default:
		return true // not ours: never used
	}
	return len(data) == 1+2*n && data[0] == 4
}

// serverKeyShare runs the server side of group g against the client's key
// share: it returns the server's key_share bytes and the shared secret. A
// malformed client share is illegal_parameter (RFC 8446, Section 4.2.8).
func serverKeyShare(g CurveID, clientShare []byte, rand io.Reader) (share, secret []byte, err error) {
	bad := errIllegalParameter
	if g == X25519MLKEM768 {
		// client: ML-KEM-768 encapsulation key || X25519; server: ciphertext || X25519;
		// secret: ML-KEM shared secret || X25519 shared secret.
		if len(clientShare) != mlkemEncapKeyLen+x25519ShareLen {
			return nil, nil, bad
		}
		ek, err := mlkem.NewEncapsulationKey768(clientShare[:mlkemEncapKeyLen])
		if err != nil {
			return nil, nil, bad
		}
		xs, xsec, err := ecdhShare(ecdh.X25519(), clientShare[mlkemEncapKeyLen:], rand)
		if err != nil {
			return nil, nil, err
		}
		ss, ct := ek.Encapsulate()
		share = append(append(make([]byte, 0, len(ct)+len(xs)), ct...), xs...)
		secret = append(append(make([]byte, 0, len(ss)+len(xsec)), ss...), xsec...)
		return share, secret, nil
	}
	c := ecdhCurve(g)
	if c == nil {
		return nil, nil, alertErr(AlertHandshakeFailure, ErrHandshakeFailure)
	}
	return ecdhShare(c, clientShare, rand)
}

// ecdhShare generates an ephemeral key on c and computes the shared secret
// with the peer's public value.
func ecdhShare(c ecdh.Curve, peer []byte, rand io.Reader) (share, secret []byte, err error) {
	pub, err := c.NewPublicKey(peer)
	if err != nil {
		return nil, nil, alertErr(AlertIllegalParameter, ErrIllegalParameter)
	}
	priv, err := newEphemeralKey(c, rand)
	if err != nil {
		return nil, nil, alertErr(AlertInternalError, ErrInternal)
	}
	secret, err = priv.ECDH(pub)
	if err != nil {
		return nil, nil, alertErr(AlertIllegalParameter, ErrIllegalParameter)
	}
	return priv.PublicKey().Bytes(), secret, nil
}

// newEphemeralKey draws an X25519 private key straight from rand (any 32
// bytes are a valid key), so a fixed Config.Rand gives reproducible
// handshakes for the transcript tests; the NIST curves use GenerateKey,
// which since Go 1.26 always draws from the system source.
func newEphemeralKey(c ecdh.Curve, rand io.Reader) (*ecdh.PrivateKey, error) {
	if c != ecdh.X25519() {
		return c.GenerateKey(rand)
	}
	var k [32]byte
	if _, err := io.ReadFull(rand, k[:]); err != nil {
		return nil, err
	}
	return x25519Key(k[:]) // the public key by a fixed-base multiplication
}
