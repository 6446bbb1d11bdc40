package tlsengine

import (
	"bytes"
	"crypto"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rsa"
	"io"
	"slices"
	"time"
)

// This file is the TLS 1.2 server (RFC 5246) behind the same stepping API
// as TLS 1.3: ECDHE only (RFC 8422), the six AEAD suites of record_tls12.go,
// extended master secret required (RFC 7627), session tickets (RFC 5077)
// sealed with the TicketKeys of TLS 1.3, ALPN, SNI, client certificates.
//
//	state                      on                        next
//	expectClientHello          ClientHello, full         awaitSign | expectCertificate12 | expectClientKeyExchange12
//	expectClientHello          ClientHello, ticket       expectChangeCipherSpec12 (NewSessionTicket, CCS, Finished sent)
//	awaitSign                  SignDone                  expectCertificate12 | expectClientKeyExchange12
//	expectCertificate12        Certificate               awaitVerify | expectClientKeyExchange12
//	awaitVerify                VerifyDone                expectClientKeyExchange12
//	expectClientKeyExchange12  ClientKeyExchange         expectCertificateVerify12 | expectChangeCipherSpec12
//	expectCertificateVerify12  CertificateVerify         expectChangeCipherSpec12
//	expectChangeCipherSpec12   change_cipher_spec        expectFinished12 (read key installed)
//	expectFinished12           Finished (verified)       established ([NewSessionTicket], CCS, Finished sent)
//	established                data, alerts              established
//
// Renegotiation is never performed (RFC 5746): renegotiation_info is
// answered empty, and a ClientHello after the handshake is read, dropped
// and answered with a warning no_renegotiation (RFC 5246, Section 7.2.2);
// the connection carries on. Any other handshake message after the
// handshake is unexpected_message.
//
// Records (record_tls12.go) have no KeyUpdate: a direction fails with
// ErrSequenceLimit before its sequence number would wrap (RFC 5246,
// Section 6.1), and Engine.KeyUpdate returns ErrNoKeyUpdate.

// Protocol versions for Config.MinVersion and Config.MaxVersion.
const (
	VersionTLS12 uint16 = 0x0303
	VersionTLS13 uint16 = versionTLS13
)

// The TLS 1.2 states; awaitSign, awaitVerify and established are shared
// with TLS 1.3 (SignDone and VerifyDone pick the 1.2 continuation).
type (
	expectCertificate12       struct{} // client Certificate
	expectClientKeyExchange12 struct{}
	expectCertificateVerify12 struct{}
	expectChangeCipherSpec12  struct{} // a record, not a message: readChangeCipherSpec12
	expectFinished12          struct{}
)

func (expectCertificate12) handle(e *Engine, msg []byte) (state, error) {
	if msg[0] != typeCertificate {
		return nil, errUnexpectedMessage
	}
	return e.readClientCertificate12(msg)
}

func (expectClientKeyExchange12) handle(e *Engine, msg []byte) (state, error) {
	if msg[0] != typeClientKeyExchange {
		return nil, errUnexpectedMessage
	}
	return e.readClientKeyExchange12(msg)
}

func (expectCertificateVerify12) handle(e *Engine, msg []byte) (state, error) {
	if msg[0] != typeCertificateVerify {
		return nil, errUnexpectedMessage
	}
	return e.readClientCertificateVerify12(msg)
}

func (expectChangeCipherSpec12) handle(*Engine, []byte) (state, error) {
	return nil, errUnexpectedMessage // RFC 5246, Section 7.4.9: Finished needs change_cipher_spec first
}

func (expectFinished12) handle(e *Engine, msg []byte) (state, error) {
	if msg[0] != typeFinished {
		return nil, errUnexpectedMessage
	}
	proof, err := e.verifyClientFinished12(msg)
	if err != nil {
		return nil, err
	}
	return established{}, e.establish12(proof)
}

// PKCS #1 v1.5 RSA signature schemes, allowed in TLS 1.2 only (RFC 8446,
// Section 4.2.3).
const (
	PKCS1WithSHA256 SignatureScheme = 0x0401
	PKCS1WithSHA384 SignatureScheme = 0x0501
	PKCS1WithSHA512 SignatureScheme = 0x0601
)

// handshake12 is the TLS 1.2 part of serverHandshake.
type handshake12 struct {
	suite        *cipherSuite12
	priv         *ecdh.PrivateKey // our ephemeral ECDHE key
	serverRandom [32]byte
	master       []byte // 48 bytes; extended master secret (RFC 7627)
	issueTicket  bool   // session_ticket answered: a NewSessionTicket follows
}

// minVersion returns the lowest version enabled: TLS 1.3 unless
// Config.MinVersion is VersionTLS12.
func (c *Config) minVersion() uint16 {
	if c.MinVersion == VersionTLS12 {
		return VersionTLS12
	}
	return VersionTLS13
}

// maxVersion returns the highest version enabled: TLS 1.3 unless
// Config.MaxVersion is VersionTLS12.
func (c *Config) maxVersion() uint16 {
	if c.MaxVersion == VersionTLS12 {
		return VersionTLS12
	}
	return VersionTLS13
}

// cipherSuites12 returns the TLS 1.2 suites of Config.CipherSuites in
// order, or all six when it lists none.
func (c *Config) cipherSuites12() []uint16 {
	return suitesOf(c.CipherSuites, func(id uint16) bool { return cipherSuite12ByID(id) != nil }, defaultCipherSuites12)
}

// selectVersion picks the highest version both sides enable (RFC 8446,
// Section 4.2.1): from supported_versions when the client sends it, else
// from legacy_version (TLS 1.2 clients).
func selectVersion(cfg *Config, ch *clientHelloMsg) (uint16, error) {
	lo, hi := cfg.minVersion(), cfg.maxVersion()
	if lo > hi {
		return 0, alertErr(AlertProtocolVersion, ErrProtocolVersion)
	}
	if ch.supportedVersions != nil {
		for v := hi; v >= lo; v-- {
			if slices.Contains(ch.supportedVersions, v) {
				return v, nil
			}
		}
		return 0, alertErr(AlertProtocolVersion, ErrProtocolVersion)
	}
	if ch.vers >= VersionTLS12 && lo == VersionTLS12 {
		return VersionTLS12, nil
	}
	return 0, alertErr(AlertProtocolVersion, ErrProtocolVersion)
}

// readClientHello12 continues a ClientHello that negotiated TLS 1.2
// (RFC 5246, Section 7.4.1.2): it resumes from a ticket or starts a full
// handshake.
func (e *Engine) readClientHello12(ch *clientHelloMsg, msg []byte, retried bool) (state, error) {
	hs := e.hs
	if retried {
		return nil, errIllegalParameter // a HelloRetryRequest was sent: TLS 1.3 only
	}
	hs.v12 = new(handshake12)
	e.state.Version = VersionTLS12
	if !slices.Contains(ch.compressionMethods, 0) {
		return nil, errIllegalParameter // RFC 5246, Section 7.4.1.2: null must be offered
	}
	// RFC 7507: a fallback retry while we support a higher version.
	if slices.Contains(ch.cipherSuites, scsvFallback) && e.cfg.maxVersion() > VersionTLS12 {
		return nil, alertErr(AlertInappropriateFallback, ErrProtocolVersion)
	}
	// RFC 5746, Section 3.6: an initial ClientHello carries an empty renegotiation_info.
	if len(ch.secureRenegotiation) != 0 {
		return nil, errHandshakeFailure
	}
	// RFC 7627, Section 5.3: we accept only sessions with the extended master secret.
	if !ch.extendedMasterSecret {
		return nil, alertErr(AlertHandshakeFailure, ErrNoExtendedMasterSecret)
	}
	// RFC 8422, Section 5.1.2: uncompressed points must be allowed.
	if ch.supportedPoints != nil && !slices.Contains(ch.supportedPoints, 0) {
		return nil, errIllegalParameter
	}
	copy(hs.clientRandom[:], ch.random)
	e.state.ServerName = ch.serverName
	if err := e.negotiateALPN(ch); err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(e.cfg.rand(), hs.v12.serverRandom[:]); err != nil {
		return nil, alertErr(AlertInternalError, ErrInternal)
	}
	if e.cfg.maxVersion() >= VersionTLS13 {
		// RFC 8446, Section 4.1.3: downgrade sentinel.
		copy(hs.v12.serverRandom[24:], downgradeCanaryTLS12)
	}
	hs.v12.issueTicket = ch.ticketSupported && e.cfg.TicketKeys != nil
	if st := e.openTicket12(ch); st != nil {
		return e.resume12(ch, msg, st)
	}
	return e.sendServerHello12(ch, msg)
}

// sendServerHello12 selects the certificate, suite, group and signature
// scheme, then sends ServerHello, Certificate and, signed, ServerKeyExchange
// (RFC 5246, Section 7.3; RFC 8422, Section 5.4).
func (e *Engine) sendServerHello12(ch *clientHelloMsg, msg []byte) (state, error) {
	hs, v := e.hs, e.hs.v12
	if ch.signatureAlgorithms == nil {
		return nil, errHandshakeFailure // RFC 5246, Section 7.4.1.4.1: its default is SHA-1
	}
	cert, scheme, suite := selectCertificate12(e.cfg, ch)
	if cert == nil {
		return nil, errHandshakeFailure
	}
	group := e.selectGroup12(ch)
	if group == 0 {
		return nil, errHandshakeFailure
	}
	hs.cert, hs.scheme, hs.group, v.suite = cert, scheme, group, suite
	e.state.CipherSuite, e.state.CurveID = suite.id, group
	e.state.CertificateIndex = int16(slices.Index(e.cfg.Certificates, cert))
	hs.transcript.begin(suite.aead.hash)
	hs.transcript.write(msg)
	b := e.serverHello12(ch, nil).appendTo(make([]byte, 0, 2048))
	b = (&certificateMsg{certificates: cert.Chain}).appendTo(b)
	hs.transcript.write(b)
	if err := e.appendHandshakeRecords(b); err != nil {
		return nil, err
	}
	priv, err := newEphemeralKey(ecdhCurve(group), e.cfg.rand())
	if err != nil {
		return nil, alertErr(AlertInternalError, ErrInternal)
	}
	v.priv = priv
	// RFC 5246, Section 7.4.3: the signature covers both randoms and the params.
	skx := serverKeyExchangeMsg{group: uint16(group), publicKey: priv.PublicKey().Bytes()}
	signed := append(append(make([]byte, 0, 128), hs.clientRandom[:]...), v.serverRandom[:]...)
	signed = skx.appendParams(signed)
	if scheme != Ed25519 { // Ed25519 signs the message itself (RFC 8422, Section 5.10)
		hh := signatureHash12(scheme).New()
		hh.Write(signed)
		signed = hh.Sum(nil)
	}
	hs.signed = signed
	if e.cfg.AsyncSign != nil && e.cfg.AsyncSign(scheme) {
		return awaitSign{}, nil
	}
	sig, err := cert.Key.Sign(e.cfg.rand(), hs.signed, signerOpts(scheme))
	if err != nil {
		return nil, alertErr(AlertInternalError, ErrInternal)
	}
	return e.sendServerKeyExchange12(sig)
}

// serverHello12 builds the ServerHello; sessionID is echoed on resumption
// (RFC 5077, Section 3.4) and empty otherwise (no session cache).
func (e *Engine) serverHello12(ch *clientHelloMsg, sessionID []byte) *serverHelloMsg {
	v := e.hs.v12
	sh := &serverHelloMsg{
		vers: VersionTLS12, random: v.serverRandom[:], sessionID: sessionID, cipherSuite: v.suite.id,
		extendedMasterSecret:         true,
		secureRenegotiationSupported: ch.secureRenegotiationSupported || slices.Contains(ch.cipherSuites, scsvRenegotiation),
		ticketSupported:              v.issueTicket,
		alpnProtocol:                 e.state.NegotiatedProtocol,
		// RFC 6066, Section 3: the name chose the certificate; never on resumption.
		serverNameAck: ch.serverName != "" && !e.hs.resumed,
	}
	if ch.supportedPoints != nil {
		sh.supportedPoints = []uint8{0} // uncompressed (RFC 8422, Section 5.2)
	}
	return sh
}

// sendServerKeyExchange12 completes the server's first flight with the
// signature: ServerKeyExchange, CertificateRequest, ServerHelloDone.
func (e *Engine) sendServerKeyExchange12(sig []byte) (state, error) {
	hs, v := e.hs, e.hs.v12
	skx := serverKeyExchangeMsg{
		group: uint16(hs.group), publicKey: v.priv.PublicKey().Bytes(),
		signatureAlgorithm: uint16(hs.scheme), signature: sig,
	}
	b := skx.appendTo(make([]byte, 0, 1024))
	if e.cfg.ClientAuth != NoClientCert {
		hs.certRequested = true
		advertise, _ := e.cfg.clientSchemes12(v.suite)
		cr := certificateRequestMsg{
			certificateTypes:    []uint8{certTypeECDSASign, certTypeRSASign},
			signatureAlgorithms: advertise,
		}
		if e.cfg.ClientCAs != nil {
			cr.certificateAuthorities = e.cfg.ClientCAs.Subjects() //nolint:staticcheck // our pool, not the system's
		}
		b = cr.appendTo(b)
	}
	b = (&serverHelloDoneMsg{}).appendTo(b)
	hs.transcript.write(b)
	hs.signed = nil
	if err := e.appendHandshakeRecords(b); err != nil {
		return nil, err
	}
	if hs.certRequested {
		return expectCertificate12{}, nil
	}
	return expectClientKeyExchange12{}, nil
}

// clientSchemes12 lists what a client CertificateVerify may use: only
// schemes whose hash is the suite's PRF hash, so that the running
// transcript hash is the digest to verify and no message is buffered.
func clientSchemes12(s *cipherSuite12) []uint16 {
	if s.aead.hash == crypto.SHA384 {
		return []uint16{uint16(ECDSAWithP384AndSHA384), uint16(PSSWithSHA384), uint16(PKCS1WithSHA384)}
	}
	return []uint16{uint16(ECDSAWithP256AndSHA256), uint16(PSSWithSHA256), uint16(PKCS1WithSHA256)}
}

// readClientCertificate12 handles the client's Certificate (RFC 5246,
// Section 7.4.6); none under RequireClientCert is handshake_failure.
func (e *Engine) readClientCertificate12(msg []byte) (state, error) {
	hs := e.hs
	var m certificateMsg
	if !m.unmarshal(msg) {
		return nil, errDecode
	}
	hs.transcript.write(msg)
	if len(m.certificates) == 0 {
		if e.cfg.ClientAuth == RequireClientCert {
			return nil, alertErr(AlertHandshakeFailure, ErrCertificateRequired)
		}
		return expectClientKeyExchange12{}, nil
	}
	certs, err := parseClientChain(m.certificates)
	if err != nil {
		return nil, err
	}
	switch certs[0].PublicKey.(type) {
	case *ecdsa.PublicKey, *rsa.PublicKey:
	default:
		return nil, alertErr(AlertUnsupportedCertificate, ErrBadCertificate)
	}
	return e.acceptClientChain(certs, expectClientKeyExchange12{})
}

// readClientKeyExchange12 completes ECDHE, derives the extended master
// secret over the session hash (RFC 7627, Section 4) and the key block.
func (e *Engine) readClientKeyExchange12(msg []byte) (state, error) {
	hs, v := e.hs, e.hs.v12
	var m clientKeyExchangeMsg
	if !m.unmarshal(msg) {
		return nil, errDecode
	}
	peer, err := ecdhCurve(hs.group).NewPublicKey(m.publicKey)
	if err != nil {
		return nil, errIllegalParameter
	}
	preMaster, err := v.priv.ECDH(peer)
	if err != nil {
		return nil, errIllegalParameter
	}
	v.priv = nil
	hs.transcript.write(msg)
	h := v.suite.aead.hash
	v.master = extendedMasterFromPreMasterSecret(h, preMaster, hs.transcript.sum(nil))
	clear(preMaster)
	e.keyLog("CLIENT_RANDOM", hs.clientRandom[:], v.master)
	if len(e.state.PeerCertificates) > 0 {
		return expectCertificateVerify12{}, nil
	}
	return expectChangeCipherSpec12{}, nil
}

// readClientCertificateVerify12 checks the client's signature over the
// handshake messages so far (RFC 5246, Section 7.4.8).
func (e *Engine) readClientCertificateVerify12(msg []byte) (state, error) {
	hs := e.hs
	var m certificateVerifyMsg
	if !m.unmarshal(msg) {
		return nil, errDecode
	}
	s := SignatureScheme(m.signatureAlgorithm)
	if _, accept := e.cfg.clientSchemes12(hs.v12.suite); !slices.Contains(accept, uint16(s)) {
		return nil, errIllegalParameter
	}
	if !verifySignature12(e.state.PeerCertificates[0].PublicKey, s, hs.transcript.sum(nil), m.signature) {
		return nil, alertErr(AlertDecryptError, ErrBadSignature)
	}
	e.state.PeerSignatureScheme = s
	hs.transcript.write(msg)
	return expectChangeCipherSpec12{}, nil
}

// readChangeCipherSpec12 installs the client's write key (RFC 5246,
// Section 7.1). It must arrive exactly where the client's Finished is due
// and not inside a fragmented handshake message.
func (e *Engine) readChangeCipherSpec12(body []byte) error {
	hs := e.hs
	if hs == nil {
		return errUnexpectedMessage
	}
	if _, ok := hs.state.(expectChangeCipherSpec12); !ok || len(hs.buf) > 0 {
		return alertErr(AlertUnexpectedMessage, ErrUnexpectedMessage)
	}
	if len(body) != 1 || body[0] != 1 {
		return errUnexpectedMessage // RFC 5246, Section 7.1: one byte, 1
	}
	key, iv := e.keys12(true)
	err := e.in.setKeys12(hs.v12.suite, key, iv)
	clear(key)
	if err != nil {
		return err
	}
	hs.state = expectFinished12{}
	return nil
}

// keys12 expands the key block (RFC 5246, Section 6.3) and returns the
// client's or the server's write key and IV.
func (e *Engine) keys12(client bool) (key, iv []byte) {
	hs, v := e.hs, e.hs.v12
	s := v.suite
	ck, sk, civ, siv := keysFromMasterSecret(s.aead.hash, v.master, hs.clientRandom[:], v.serverRandom[:], s.aead.keyLen, s.ivLen)
	if client {
		clear(sk)
		return ck, civ
	}
	clear(ck)
	return sk, siv
}

// finishedVerified12 proves that the client Finished checked out; only
// verifyClientFinished12 creates one, and only establish12 consumes it.
type finishedVerified12 struct{}

// verifyClientFinished12 checks the client Finished (RFC 5246, Section 7.4.9).
func (e *Engine) verifyClientFinished12(msg []byte) (finishedVerified12, error) {
	hs, v := e.hs, e.hs.v12
	var m finishedMsg
	if !m.unmarshal(msg) {
		return finishedVerified12{}, errDecode
	}
	want := finishedVerifyData12(v.suite.aead.hash, v.master, labelClientFinished, hs.transcript.sum(nil))
	if len(m.verifyData) != len(want) {
		return finishedVerified12{}, errDecode
	}
	if !hmac.Equal(want, m.verifyData) {
		return finishedVerified12{}, alertErr(AlertDecryptError, ErrBadFinished)
	}
	hs.transcript.write(msg)
	return finishedVerified12{}, nil
}

// establish12 ends the handshake. In a full handshake the server's
// NewSessionTicket, change_cipher_spec and Finished go out now; on
// resumption they went out after ServerHello.
func (e *Engine) establish12(finishedVerified12) error {
	hs := e.hs
	if !hs.resumed {
		if err := e.sendFinished12(); err != nil {
			return err
		}
	}
	e.done = true
	clear(hs.v12.master)
	hs.v12 = nil
	return nil
}

// sendFinished12 sends [NewSessionTicket], change_cipher_spec and Finished
// and installs our write key (RFC 5246, Section 7.3; RFC 5077, Section 3.3).
func (e *Engine) sendFinished12() error {
	hs, v := e.hs, e.hs.v12
	if v.issueTicket {
		b := e.newSessionTicket12()
		hs.transcript.write(b)
		if err := e.appendHandshakeRecords(b); err != nil {
			return err
		}
	}
	hs.out = append(hs.out, recordTypeChangeCipherSpec, 3, 3, 0, 1, 1)
	key, iv := e.keys12(false)
	err := e.out.setKeys12(v.suite, key, iv)
	clear(key)
	if err != nil {
		return err
	}
	fin := finishedMsg{verifyData: finishedVerifyData12(v.suite.aead.hash, v.master, labelServerFinished, hs.transcript.sum(nil))}
	b := fin.appendTo(nil)
	hs.transcript.write(b)
	return e.appendHandshakeRecords(b)
}

// newSessionTicket12 returns a NewSessionTicket carrying the sealed master
// secret; the ticket is empty when sealing fails (RFC 5077, Section 3.3
// allows that once the extension was answered).
func (e *Engine) newSessionTicket12() []byte {
	v := e.hs.v12
	lifetime := e.cfg.ticketLifetime()
	st := sessionState{
		version: VersionTLS12, suite: v.suite.id, secret: v.master, createdAt: uint64(e.cfg.now().Unix()),
		lifetime: uint32(lifetime / time.Second), serverName: e.state.ServerName,
		alpn: e.state.NegotiatedProtocol, extendedMasterSecret: true,
	}
	st.storeVerifiedChain(&e.state)
	label := e.cfg.TicketKeys.sealTicket(nil, st.marshal(), e.cfg.rand())
	return (&newSessionTicketMsg{lifetimeHint: st.lifetime, ticket: label}).appendTo(nil)
}

// openTicket12 returns the session a ClientHello's ticket resumes, or nil
// for a full handshake: unknown key, TLS 1.3 ticket, expired, no extended
// master secret, suite not offered or not enabled, another SNI or ALPN, or
// no client certificate where one is now required.
func (e *Engine) openTicket12(ch *clientHelloMsg) *sessionState {
	if e.cfg.TicketKeys == nil || len(ch.sessionTicket) == 0 {
		return nil
	}
	pt, ok := e.cfg.TicketKeys.openTicket(ch.sessionTicket)
	if !ok {
		return nil
	}
	st := new(sessionState)
	if !st.unmarshal(pt) || st.version != VersionTLS12 || !st.extendedMasterSecret || len(st.secret) != masterSecretLen {
		return nil
	}
	if !slices.Contains(ch.cipherSuites, st.suite) || !slices.Contains(e.cfg.cipherSuites12(), st.suite) {
		return nil
	}
	age := e.cfg.now().Sub(time.Unix(int64(st.createdAt), 0))
	if age < -maxTicketAgeSkew || age > time.Duration(st.lifetime)*time.Second {
		return nil
	}
	if st.serverName != ch.serverName || st.alpn != e.state.NegotiatedProtocol {
		return nil
	}
	certs, ok := st.peerChain(e.cfg.ClientAuth == RequireClientCert)
	if !ok {
		return nil
	}
	e.state.PeerCertificates = certs
	if len(certs) > 0 {
		e.state.VerifiedLeaf = certs[0] // verified when the ticket was issued
	}
	return st
}

// resume12 runs the abbreviated handshake (RFC 5077, Section 3.1):
// ServerHello echoing the session ID, a fresh NewSessionTicket,
// change_cipher_spec and Finished.
func (e *Engine) resume12(ch *clientHelloMsg, msg []byte, st *sessionState) (state, error) {
	hs, v := e.hs, e.hs.v12
	v.suite = cipherSuite12ByID(st.suite)
	v.master = bytes.Clone(st.secret)
	hs.resumed = true
	e.state.DidResume = true
	e.state.CipherSuite = v.suite.id
	hs.transcript.begin(v.suite.aead.hash)
	hs.transcript.write(msg)
	b := e.serverHello12(ch, ch.sessionID).appendTo(nil)
	hs.transcript.write(b)
	if err := e.appendHandshakeRecords(b); err != nil {
		return nil, err
	}
	e.keyLog("CLIENT_RANDOM", hs.clientRandom[:], v.master)
	if err := e.sendFinished12(); err != nil {
		return nil, err
	}
	return expectChangeCipherSpec12{}, nil
}

// readRecord12 handles one complete record of a TLS 1.2 connection
// (RFC 5246, Section 6.2): plaintext until the client's change_cipher_spec,
// AEAD-protected after it, the content type in the header.
func (e *Engine) readRecord12(rec []byte) ([]byte, error) {
	typ := rec[0]
	// RFC 5246, Section 6.2.1: nothing may interleave with a fragmented handshake message.
	if typ != recordTypeHandshake && e.partialHandshake() {
		return nil, errBadRecordType
	}
	pt := rec[recordHeaderLen:]
	if e.in.keyed {
		var err error
		if pt, err = e.in.open12(rec); err != nil {
			return nil, err
		}
	} else if len(pt) > maxPlaintext {
		return nil, errRecordOverflow
	}
	switch typ {
	case recordTypeChangeCipherSpec:
		if e.in.keyed {
			return nil, alertErr(AlertUnexpectedMessage, ErrUnexpectedMessage)
		}
		return nil, e.readChangeCipherSpec12(pt)
	case recordTypeAlert:
		return nil, e.readAlert(pt) // close_notify closes, user_canceled is skipped, the rest is fatal
	case recordTypeHandshake:
		if len(pt) == 0 {
			return nil, errBadRecordType // RFC 5246, Section 6.2.1: no empty handshake fragments
		}
		if e.done {
			return nil, e.readRenegotiation12(pt)
		}
		return nil, e.readHandshakeBytes(pt)
	case recordTypeApplicationData:
		if !e.done {
			return nil, errBadRecordType
		}
		if len(pt) == 0 {
			return nil, e.uselessRecord()
		}
		e.useless = 0
		return pt, nil
	}
	return nil, errBadRecordType
}

// readRenegotiation12 reads handshake bytes after a TLS 1.2 handshake: a
// ClientHello, possibly split across records, is a renegotiation attempt.
// It is dropped unparsed and answered with a warning no_renegotiation once
// complete (RFC 5246, Section 7.2.2; RFC 5746, Section 4.4); attempts with
// no application data between them count as ignored records. e.kuBuf holds
// the message header and e.kuLen counts the message's bytes so far.
func (e *Engine) readRenegotiation12(pt []byte) error {
	for len(pt) > 0 {
		if e.kuLen < 4 {
			n := copy(e.kuBuf[e.kuLen:4], pt)
			e.kuLen += n
			pt = pt[n:]
			if e.kuBuf[0] != typeClientHello {
				return errUnexpectedMessage
			}
			if e.kuLen < 4 {
				continue
			}
		}
		total := 4 + (int(e.kuBuf[1])<<16 | int(e.kuBuf[2])<<8 | int(e.kuBuf[3]))
		if total > 4+maxClientHelloBody {
			return alertErr(AlertDecodeError, ErrMessageTooLarge)
		}
		n := min(len(pt), total-e.kuLen)
		e.kuLen += n
		pt = pt[n:]
		if e.kuLen == total {
			e.kuLen = 0
			if err := e.uselessRecord(); err != nil {
				return err
			}
			e.renegQ = true
		}
	}
	return nil
}

// selectCertificate12 picks the certificate (ECDSA, Ed25519 or RSA), its signature
// scheme and the suite: SNI exact match, then wildcard, then the first
// certificate; among equals one whose chain the client accepts, as in
// selectCertificate.
func selectCertificate12(cfg *Config, ch *clientHelloMsg) (*Certificate, SignatureScheme, *cipherSuite12) {
	var best *Certificate
	var bestScheme SignatureScheme
	var bestSuite *cipherSuite12
	bestScore := -1
	for i, c := range cfg.Certificates {
		_, isRSA := c.Key.Public().(*rsa.PublicKey)
		scheme, ok := pickScheme12(c, ch.signatureAlgorithms)
		if !ok {
			continue
		}
		suite := selectCipherSuite12(cfg.cipherSuites12(), ch.cipherSuites, !isRSA)
		if suite == nil {
			continue
		}
		score := c.matchesName(ch.serverName) * 4
		chainAlgs := ch.signatureAlgorithmsCert
		if chainAlgs == nil {
			chainAlgs = ch.signatureAlgorithms
		}
		if c.chainSchemeOK(chainAlgs) {
			score += 2
		}
		if i == 0 {
			score++
		}
		if score > bestScore {
			best, bestScheme, bestSuite, bestScore = c, scheme, suite, score
		}
	}
	return best, bestScheme, bestSuite
}

// pickScheme12 returns the scheme for signing ServerKeyExchange with c: for
// ECDSA the key's own scheme when offered, else any ECDSA hash the client
// offers (TLS 1.2 does not bind the curve); for RSA the first PSS or
// PKCS #1 v1.5 scheme in the client's order; Ed25519 when offered (RFC
// 8422, Section 5.1.3: it goes with the ECDHE_ECDSA suites).
func pickScheme12(c *Certificate, clientAlgs []uint16) (SignatureScheme, bool) {
	if c.prefs != nil { // WithSignatureSchemes: its order, among what the key signs in TLS 1.2
		for _, s := range c.prefs {
			if contains16(clientAlgs, uint16(s)) && signs12(c, s) {
				return s, true
			}
		}
		return 0, false
	}
	switch c.Key.Public().(type) {
	case ed25519.PublicKey:
		return c.pickScheme(clientAlgs)
	case *ecdsa.PublicKey:
		if s, ok := c.pickScheme(clientAlgs); ok {
			return s, true
		}
		for _, a := range clientAlgs {
			switch s := SignatureScheme(a); s {
			case ECDSAWithP256AndSHA256, ECDSAWithP384AndSHA384, ECDSAWithP521AndSHA512:
				return s, true
			}
		}
	case *rsa.PublicKey:
		for _, a := range clientAlgs {
			switch s := SignatureScheme(a); s {
			case PSSWithSHA256, PSSWithSHA384, PSSWithSHA512, PKCS1WithSHA256, PKCS1WithSHA384, PKCS1WithSHA512:
				return s, true
			}
		}
	}
	return 0, false
}

// signs12 reports whether c's key makes scheme s in TLS 1.2 (see pickScheme12).
func signs12(c *Certificate, s SignatureScheme) bool {
	switch c.Key.Public().(type) {
	case ed25519.PublicKey:
		return s == Ed25519
	case *ecdsa.PublicKey:
		return s == ECDSAWithP256AndSHA256 || s == ECDSAWithP384AndSHA384 || s == ECDSAWithP521AndSHA512
	case *rsa.PublicKey:
		switch s {
		case PSSWithSHA256, PSSWithSHA384, PSSWithSHA512, PKCS1WithSHA256, PKCS1WithSHA384, PKCS1WithSHA512:
			return true
		}
	}
	return false
}

// signatureHash12 is the digest of a TLS 1.2 signature scheme.
func signatureHash12(s SignatureScheme) crypto.Hash {
	switch s {
	case ECDSAWithP384AndSHA384, PSSWithSHA384, PKCS1WithSHA384:
		return crypto.SHA384
	case ECDSAWithP521AndSHA512, PSSWithSHA512, PKCS1WithSHA512:
		return crypto.SHA512
	}
	return crypto.SHA256
}

// verifySignature12 checks a TLS 1.2 client signature over digest.
func verifySignature12(pub crypto.PublicKey, s SignatureScheme, digest, sig []byte) bool {
	h := signatureHash12(s)
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		switch s {
		case ECDSAWithP256AndSHA256, ECDSAWithP384AndSHA384, ECDSAWithP521AndSHA512:
			return ecdsa.VerifyASN1(k, digest, sig)
		}
	case *rsa.PublicKey:
		switch s {
		case PSSWithSHA256, PSSWithSHA384, PSSWithSHA512:
			return rsa.VerifyPSS(k, h, digest, sig, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash}) == nil
		case PKCS1WithSHA256, PKCS1WithSHA384, PKCS1WithSHA512:
			return rsa.VerifyPKCS1v15(k, h, digest, sig) == nil
		}
	}
	return false
}

// selectGroup12 picks our most preferred ECDHE group the client supports
// (RFC 8422, Section 5.1.1); the hybrid ML-KEM group is TLS 1.3 only.
func (e *Engine) selectGroup12(ch *clientHelloMsg) CurveID {
	for _, g := range e.cfg.curves() {
		if ecdhCurve(g) != nil && slices.Contains(ch.supportedGroups, uint16(g)) {
			return g
		}
	}
	return 0
}
