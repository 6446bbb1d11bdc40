package tlsengine

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"slices"
	"strings"
)

// SignatureScheme is a TLS 1.3 signature algorithm (RFC 8446, Section 4.2.3).
type SignatureScheme uint16

// Signature schemes the engine signs and verifies with.
const (
	ECDSAWithP256AndSHA256 SignatureScheme = 0x0403
	ECDSAWithP384AndSHA384 SignatureScheme = 0x0503
	ECDSAWithP521AndSHA512 SignatureScheme = 0x0603
	PSSWithSHA256          SignatureScheme = 0x0804
	PSSWithSHA384          SignatureScheme = 0x0805
	PSSWithSHA512          SignatureScheme = 0x0806
	Ed25519                SignatureScheme = 0x0807
)

// Certificate is one server certificate chain and its private key.
type Certificate struct {
	// Chain is the DER chain, leaf first.
	Chain [][]byte
	// Key signs CertificateVerify; it must match the leaf's public key.
	Key crypto.Signer
	// Leaf is the parsed Chain[0].
	Leaf *x509.Certificate
	// schemes this key can sign with in TLS 1.3, in preference order.
	schemes []SignatureScheme
	// prefs, when not nil, replaces the order and limits the choice
	// (WithSignatureSchemes).
	prefs []SignatureScheme
}

// NewCertificate checks that key matches the leaf of chain and that the key
// type is usable in TLS 1.3 (ECDSA P-256/P-384/P-521, Ed25519, RSA ≥ 2048 bits).
func NewCertificate(chain [][]byte, key crypto.Signer) (*Certificate, error) {
	if len(chain) == 0 {
		return nil, errors.New("tlsengine: empty certificate chain")
	}
	leaf, err := x509.ParseCertificate(chain[0])
	if err != nil {
		return nil, errors.New("tlsengine: bad leaf certificate: " + err.Error())
	}
	type equaler interface{ Equal(crypto.PublicKey) bool }
	if pk, ok := key.Public().(equaler); !ok || !pk.Equal(leaf.PublicKey) {
		return nil, errors.New("tlsengine: private key does not match the leaf certificate")
	}
	c := &Certificate{Chain: chain, Key: key, Leaf: leaf}
	switch pub := key.Public().(type) {
	case *ecdsa.PublicKey:
		switch pub.Curve {
		case elliptic.P256():
			c.schemes = []SignatureScheme{ECDSAWithP256AndSHA256}
		case elliptic.P384():
			c.schemes = []SignatureScheme{ECDSAWithP384AndSHA384}
		case elliptic.P521():
			c.schemes = []SignatureScheme{ECDSAWithP521AndSHA512}
		}
	case ed25519.PublicKey:
		c.schemes = []SignatureScheme{Ed25519}
	case *rsa.PublicKey:
		if pub.N.BitLen() >= 2048 {
			c.schemes = []SignatureScheme{PSSWithSHA256, PSSWithSHA384, PSSWithSHA512}
		}
	}
	if c.schemes == nil {
		return nil, errors.New("tlsengine: unsupported private key type")
	}
	return c, nil
}

// ParseCertificatePEM builds a Certificate from a PEM chain (leaf first) and
// a PEM private key (PKCS #8, SEC 1 or PKCS #1).
func ParseCertificatePEM(certPEM, keyPEM []byte) (*Certificate, error) {
	var chain [][]byte
	for {
		var b *pem.Block
		b, certPEM = pem.Decode(certPEM)
		if b == nil {
			break
		}
		if b.Type == "CERTIFICATE" {
			chain = append(chain, b.Bytes)
		}
	}
	var key crypto.Signer
	for key == nil {
		var b *pem.Block
		b, keyPEM = pem.Decode(keyPEM)
		if b == nil {
			return nil, errors.New("tlsengine: no private key in PEM")
		}
		if k, err := x509.ParsePKCS8PrivateKey(b.Bytes); err == nil {
			key, _ = k.(crypto.Signer)
		} else if k, err := x509.ParseECPrivateKey(b.Bytes); err == nil {
			key = k
		} else if k, err := x509.ParsePKCS1PrivateKey(b.Bytes); err == nil {
			key = k
		}
	}
	return NewCertificate(chain, key)
}

// matchesName reports how well the leaf covers the SNI name: 2 exact, 1 wildcard, 0 no.
func (c *Certificate) matchesName(name string) int {
	if name == "" {
		return 0
	}
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	best := 0
	for _, dns := range c.Leaf.DNSNames {
		dns = strings.ToLower(dns)
		if dns == name {
			return 2
		}
		if strings.HasPrefix(dns, "*.") {
			if i := strings.IndexByte(name, '.'); i > 0 && name[i+1:] == dns[2:] {
				best = 1
			}
		}
	}
	return best
}

// chainSchemeOK reports whether the leaf's own signature uses an algorithm the
// client lists in signature_algorithms_cert (RFC 8446, Section 4.2.3).
func (c *Certificate) chainSchemeOK(algs []uint16) bool {
	if len(algs) == 0 {
		return true
	}
	var want []SignatureScheme
	switch c.Leaf.SignatureAlgorithm {
	case x509.ECDSAWithSHA256:
		want = []SignatureScheme{ECDSAWithP256AndSHA256}
	case x509.ECDSAWithSHA384:
		want = []SignatureScheme{ECDSAWithP384AndSHA384}
	case x509.ECDSAWithSHA512:
		want = []SignatureScheme{ECDSAWithP521AndSHA512}
	case x509.PureEd25519:
		want = []SignatureScheme{Ed25519}
	case x509.SHA256WithRSAPSS:
		want = []SignatureScheme{PSSWithSHA256, 0x0809}
	case x509.SHA384WithRSAPSS:
		want = []SignatureScheme{PSSWithSHA384, 0x080a}
	case x509.SHA512WithRSAPSS:
		want = []SignatureScheme{PSSWithSHA512, 0x080b}
	case x509.SHA256WithRSA:
		want = []SignatureScheme{0x0401}
	case x509.SHA384WithRSA:
		want = []SignatureScheme{0x0501}
	case x509.SHA512WithRSA:
		want = []SignatureScheme{0x0601}
	default:
		return true
	}
	for _, s := range want {
		if contains16(algs, uint16(s)) {
			return true
		}
	}
	return false
}

// selectCertificate picks the certificate and signature scheme for a
// ClientHello: SNI exact match, then wildcard, then the first certificate;
// among equals, one whose chain the client accepts is preferred.
func selectCertificate(certs []*Certificate, sni string, sigAlgs, sigAlgsCert []uint16) (*Certificate, SignatureScheme) {
	if len(sigAlgsCert) == 0 {
		sigAlgsCert = sigAlgs
	}
	var best *Certificate
	var bestScheme SignatureScheme
	bestScore := -1
	for i, c := range certs {
		scheme, ok := c.pickScheme(sigAlgs)
		if !ok {
			continue
		}
		score := c.matchesName(sni) * 4
		if c.chainSchemeOK(sigAlgsCert) {
			score += 2
		}
		if i == 0 {
			score++ // the default certificate wins ties
		}
		if score > bestScore {
			best, bestScheme, bestScore = c, scheme, score
		}
	}
	return best, bestScheme
}

// pickScheme returns the first of the key's schemes that the client offers,
// in the order of prefs when it is set.
func (c *Certificate) pickScheme(clientAlgs []uint16) (SignatureScheme, bool) {
	if c.prefs != nil {
		for _, s := range c.prefs {
			if slices.Contains(c.schemes, s) && contains16(clientAlgs, uint16(s)) {
				return s, true
			}
		}
		return 0, false
	}
	for _, s := range c.schemes {
		if contains16(clientAlgs, uint16(s)) {
			return s, true
		}
	}
	return 0, false
}

// signatureHash returns the hash of a TLS 1.3 signature scheme; 0 for Ed25519.
func signatureHash(s SignatureScheme) (crypto.Hash, bool) {
	switch s {
	case ECDSAWithP256AndSHA256, PSSWithSHA256, PKCS1WithSHA256: // PKCS #1: TLS 1.2 only
		return crypto.SHA256, true
	case ECDSAWithP384AndSHA384, PSSWithSHA384, PKCS1WithSHA384:
		return crypto.SHA384, true
	case ECDSAWithP521AndSHA512, PSSWithSHA512, PKCS1WithSHA512:
		return crypto.SHA512, true
	case Ed25519:
		return 0, true
	}
	return 0, false
}

// signerOpts returns the crypto.SignerOpts for scheme s.
func signerOpts(s SignatureScheme) crypto.SignerOpts {
	h, _ := signatureHash(s)
	switch s {
	case PSSWithSHA256, PSSWithSHA384, PSSWithSHA512:
		return &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash, Hash: h}
	}
	return h
}

// Contexts for CertificateVerify (RFC 8446, Section 4.4.3).
const (
	serverSignatureContext = "TLS 1.3, server CertificateVerify\x00"
	clientSignatureContext = "TLS 1.3, client CertificateVerify\x00"
)

// signedContent appends to dst what a CertificateVerify signs for scheme s:
// the 64-space prefix, context and transcript hash, hashed unless s is
// Ed25519. The content is built on the stack: with a dst of spare capacity
// nothing is allocated.
func signedContent(dst []byte, s SignatureScheme, context string, transcriptHash []byte) []byte {
	var buf [64 + 64 + 64]byte
	m := append(append(append(buf[:0], spaces64...), context...), transcriptHash...)
	h, _ := signatureHash(s)
	switch h {
	case crypto.SHA256:
		sum := sha256.Sum256(m)
		return append(dst, sum[:]...)
	case crypto.SHA384:
		sum := sha512.Sum384(m)
		return append(dst, sum[:]...)
	case crypto.SHA512:
		sum := sha512.Sum512(m)
		return append(dst, sum[:]...)
	}
	return append(dst, m...) // Ed25519 signs the content itself
}

// spaces64 opens the content a TLS 1.3 CertificateVerify signs (RFC 8446,
// Section 4.4.3).
var spaces64 = strings.Repeat(" ", 64)

// verifySignature checks a client CertificateVerify signature against pub.
func verifySignature(pub crypto.PublicKey, s SignatureScheme, signed, sig []byte) bool {
	h, _ := signatureHash(s)
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		var want elliptic.Curve
		switch s {
		case ECDSAWithP256AndSHA256:
			want = elliptic.P256()
		case ECDSAWithP384AndSHA384:
			want = elliptic.P384()
		case ECDSAWithP521AndSHA512:
			want = elliptic.P521()
		default:
			return false
		}
		return k.Curve == want && ecdsa.VerifyASN1(k, signed, sig)
	case ed25519.PublicKey:
		return s == Ed25519 && ed25519.Verify(k, signed, sig)
	case *rsa.PublicKey:
		if s != PSSWithSHA256 && s != PSSWithSHA384 && s != PSSWithSHA512 {
			return false
		}
		return rsa.VerifyPSS(k, h, signed, sig, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash}) == nil
	}
	return false
}

// supportedSignatureSchemes is what we accept from clients, in preference order.
var supportedSignatureSchemes = []uint16{
	uint16(ECDSAWithP256AndSHA256), uint16(Ed25519), uint16(ECDSAWithP384AndSHA384),
	uint16(ECDSAWithP521AndSHA512), uint16(PSSWithSHA256), uint16(PSSWithSHA384), uint16(PSSWithSHA512),
}
