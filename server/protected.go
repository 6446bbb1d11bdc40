package server

import (
	"github.com/loopkv/loopkv/config"
	"net"
	"strings"
	"sync/atomic"
)

// Protected mode, as Redis has it (protected-mode yes, the default). While
// it is on and the default user has no password (no requirepass, or ACL
// "nopass"), a client that is not on the loopback interface and did not
// authenticate with a verified client certificate is told why in Redis's
// own words (rejectProtected) and closed before any command runs, and
// rejected_connections counts it. Redis checks after maxclients, in
// clientAcceptHandler; onOpen does the same.
//
// Loopback means 127.0.0.0/8, ::1 (also as ::ffff:127.x.y.z) and unix
// sockets. Redis 7.0.15 accepts only the exact strings "127.0.0.1" and
// "::1" (it denies a client bound to 127.0.0.2); Redis 7.2 and Valkey
// accept all of 127.0.0.0/8, as loopkv does: every such address is the
// loopback interface.
//
// TLS: as in Redis, the check runs once the handshake is done
// (tlsEstablished, tls.go), with certVerified true when the client showed a
// certificate that verified against tls-ca-cert-file (tls-auth-clients
// optional or yes; a resumed session keeps the verified leaf). A refused
// client reads the same DENIED text, sealed in one record, then a
// close_notify alert, and is closed; rejected_connections counts it.
// protectedOpen admits every client of the TLS port for that reason.

// rejectProtected is Redis 7.0's DENIED reply (networking.c,
// clientAcceptHandler), byte for byte as redis-server 7.0.15 sends it.
var rejectProtected = []byte("-DENIED Redis is running in protected mode because protected mode is enabled " +
	"and no password is set for the default user. In this mode connections are only accepted from the " +
	"loopback interface. If you want to connect from external computers to Redis you may adopt one of " +
	"the following solutions: 1) Just disable protected mode sending the command 'CONFIG SET " +
	"protected-mode no' from the loopback interface by connecting to Redis from the same host the server " +
	"is running, however MAKE SURE Redis is not publicly accessible from internet if you do so. Use " +
	"CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable the protected " +
	"mode by editing the Redis configuration file, and setting the protected mode option to 'no', and then " +
	"restarting the server. 3) If you started the server manually just for testing, restart it with the " +
	"'--protected-mode no' option. 4) Setup a an authentication password for the default user. NOTE: You " +
	"only need to do one of the above things in order for the server to start accepting connections from " +
	"the outside.\r\n")

// protectedConfig holds protected-mode, which CONFIG SET may change while
// loops read it.
type protectedConfig struct {
	on atomic.Bool
	// loopbackIsRemote makes loopback peers count as remote; tests only,
	// to reach the DENIED path where no other local address exists.
	loopbackIsRemote atomic.Bool
}

func (p *protectedConfig) load(o Options) {
	p.on.Store(!strings.EqualFold(o.ProtectedMode, "no"))
}

// protectedOpen returns the bytes that refuse a new plaintext connection
// under protected mode, or nil to admit it; a TLS connection is checked
// after its handshake (denyTLS, tls.go). owning loop only.
func (s *Server) protectedOpen(tc transportConn) []byte {
	if s.tls.isTLSAddr(tc.LocalAddr()) || !s.protectedRejects(tc.RemoteAddr(), false) {
		return nil
	}
	return rejectProtected
}

// protectedRejects reports whether protected mode refuses a client at
// remote; certVerified is true for a TLS client that authenticated with a
// verified certificate. any goroutine.
func (s *Server) protectedRejects(remote net.Addr, certVerified bool) bool {
	if !s.cfg.prot.on.Load() || certVerified || !s.acl.def.perm.Load().nopass {
		return false
	}
	return !isLoopback(remote) || s.cfg.prot.loopbackIsRemote.Load()
}

// isLoopback reports whether a is a loopback peer: 127.0.0.0/8, ::1 or a
// unix socket. A nil or unknown address is not (Redis denies a peer whose
// address it cannot read).
func isLoopback(a net.Addr) bool {
	switch a := a.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	return false
}

// protectedSettings is protected-mode, yes or no.
var protectedSettings = []configParam{
	atomicBool(config.Setting{Name: "protected-mode", Default: "yes", Type: config.Bool{},
		Help: "while the default user has no password, serve loopback clients only"},
		func(s *Server) *atomic.Bool { return &s.cfg.prot.on }, func(o *Options) *string { return &o.ProtectedMode }),
}

func init() { registerSettings(protectedSettings...) }
