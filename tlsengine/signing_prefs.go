package tlsengine

// WithSignatureSchemes returns a copy of c that signs only with the schemes
// in prefs, preferring them in that order (a deployment's policy, or BoGo's
// -signing-prefs). In TLS 1.3 a scheme must also suit the key exactly (the
// ECDSA curve; RSA-PSS); TLS 1.2 also allows PKCS #1 v1.5 for RSA and any
// ECDSA hash (RFC 8446, Section 4.2.3; RFC 5246, Section 7.4.1.4.1). Schemes
// the key cannot make are skipped; a copy left with none is never selected.
func (c *Certificate) WithSignatureSchemes(prefs []SignatureScheme) *Certificate {
	cc := *c
	cc.prefs = append(make([]SignatureScheme, 0, len(prefs)), prefs...)
	return &cc
}
