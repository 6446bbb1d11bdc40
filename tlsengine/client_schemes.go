package tlsengine

import "slices"

// clientSchemes returns what a TLS 1.3 CertificateRequest advertises and
// what a client CertificateVerify may use. Config.ClientSignatureSchemes is
// advertised as listed (RFC 8446, Section 4.2.3 lets PKCS #1 v1.5 appear
// there for TLS 1.2's sake) and accepted where we verify it in TLS 1.3;
// without it both are supportedSignatureSchemes.
func (c *Config) clientSchemes() (advertise, accept []uint16) {
	if len(c.ClientSignatureSchemes) == 0 {
		return supportedSignatureSchemes, supportedSignatureSchemes
	}
	advertise = keepSchemes(c.ClientSignatureSchemes, nil)
	return advertise, keepSchemes(c.ClientSignatureSchemes, supportedSignatureSchemes)
}

// clientSchemes12 is the TLS 1.2 twin for suite s: only the schemes of the
// suite's hash are accepted (clientSchemes12 of the suite), limited and
// ordered by Config.ClientSignatureSchemes. When that leaves nothing to
// advertise, the suite's own list goes out so that the message stays valid
// (it may not be empty), and every signature is refused.
func (c *Config) clientSchemes12(s *cipherSuite12) (advertise, accept []uint16) {
	own := clientSchemes12(s)
	if len(c.ClientSignatureSchemes) == 0 {
		return own, own
	}
	accept = keepSchemes(c.ClientSignatureSchemes, own)
	if len(accept) == 0 {
		return own, accept
	}
	return accept, accept
}

// keepSchemes returns the schemes of want, once each, in want's order; only
// those allowed holds unless allowed is nil.
func keepSchemes(want []SignatureScheme, allowed []uint16) []uint16 {
	out := make([]uint16, 0, len(want))
	for _, s := range want {
		if (allowed == nil || slices.Contains(allowed, uint16(s))) && !slices.Contains(out, uint16(s)) {
			out = append(out, uint16(s))
		}
	}
	return out
}
