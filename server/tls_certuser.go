package server

import (
	"crypto/x509"
	"strings"
)

// tls-auth-clients-user modes (Valkey 9.1): which name of a verified
// client certificate logs the client in as the ACL user of that name.
const (
	userFromOff uint32 = iota
	userFromCN         // the subject's common name
	userFromURI        // the first URI subject alternative name naming a user
)

// userFromNames are the modes as CONFIG GET reports them.
var userFromNames = [...]string{userFromOff: "off", userFromCN: "CN", userFromURI: "URI"}

// parseUserFrom parses tls-auth-clients-user, case-insensitively; "" is off.
func parseUserFrom(v string) (uint32, bool) {
	if v == "" {
		return userFromOff, true
	}
	for mode, name := range userFromNames {
		if strings.EqualFold(v, name) {
			return uint32(mode), true
		}
	}
	return 0, false
}

// userForCert returns the ACL user a verified client leaf logs in as under
// tls-auth-clients-user, or nil. owning loop only.
func (s *Server) userForCert(leaf *x509.Certificate) *aclUser {
	switch s.tls.userFrom.Load() {
	case userFromCN:
		return s.acl.userForCertName(leaf.Subject.CommonName)
	case userFromURI:
		for _, u := range leaf.URIs {
			if user := s.acl.userForCertName(u.String()); user != nil {
				return user
			}
		}
	}
	return nil
}
