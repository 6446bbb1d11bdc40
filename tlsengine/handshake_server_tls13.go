package tlsengine

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/hmac"
	"crypto/rsa"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"hash"
	"io"
	"slices"
	"time"

	"golang.org/x/crypto/cryptobyte"
)

// state is one position of the server handshake (RFC 8446, Appendix A.2).
// A state handles only the message it expects and returns the next state;
// the engine never reuses a state value after it returned.
type state interface {
	handle(e *Engine, msg []byte) (state, error)
}

// The states, in RFC order.
type (
	expectClientHello       struct{ retried bool } // retried: a HelloRetryRequest was sent
	awaitSign               struct{}               // blocked on SignDone
	expectCertificate       struct{}               // client Certificate
	awaitVerify             struct{}               // blocked on VerifyDone
	expectCertificateVerify struct{}               // client CertificateVerify
	expectFinished          struct{}               // client Finished
	established             struct{}               // handshake done
)

var errUnexpectedMessage = alertErr(AlertUnexpectedMessage, ErrUnexpectedMessage)

func (s expectClientHello) handle(e *Engine, msg []byte) (state, error) {
	if msg[0] != typeClientHello {
		return nil, errUnexpectedMessage
	}
	return e.readClientHello(msg, s.retried)
}

func (expectCertificate) handle(e *Engine, msg []byte) (state, error) {
	if msg[0] != typeCertificate {
		return nil, errUnexpectedMessage
	}
	return e.readClientCertificate(msg)
}

func (expectCertificateVerify) handle(e *Engine, msg []byte) (state, error) {
	if msg[0] != typeCertificateVerify {
		return nil, errUnexpectedMessage
	}
	return e.readClientCertificateVerify(msg)
}

func (expectFinished) handle(e *Engine, msg []byte) (state, error) {
	if msg[0] != typeFinished {
		return nil, errUnexpectedMessage
	}
	proof, err := e.verifyClientFinished(msg)
	if err != nil {
		return nil, err
	}
	return established{}, e.establish(proof)
}

// Blocked and final states accept no message (Read does not feed them).
func (awaitSign) handle(*Engine, []byte) (state, error)   { return nil, errUnexpectedMessage }
func (awaitVerify) handle(*Engine, []byte) (state, error) { return nil, errUnexpectedMessage }
func (established) handle(*Engine, []byte) (state, error) { return nil, errUnexpectedMessage }

// blockedOn returns StatusWantSign or StatusWantVerify for the blocked states.
func (hs *serverHandshake) blockedOn() Status {
	switch hs.state.(type) {
	case awaitSign:
		return StatusWantSign
	case awaitVerify:
		return StatusWantVerify
	}
	return 0
}

func (hs *serverHandshake) isDone() bool {
	_, ok := hs.state.(established)
	return ok
}

const versionTLS13 = 0x0304

// maxTicketAgeSkew bounds the difference between the client's and our view
// of a ticket's age (RFC 8446, Section 8.3).
const maxTicketAgeSkew = 10 * time.Second

// serverHandshake holds everything the handshake needs and the connection
// does not; the Engine drops it once the handshake output is drained.
type serverHandshake struct {
	state     state
	sawCH     bool
	ccsRead   bool   // the one compatibility change_cipher_spec was dropped
	buf       []byte // reassembled handshake bytes not yet processed
	out       []byte // pending records
	earlySkip int    // bytes of refused early data we may still skip
	random    [32]byte
	finished  [4 + 64]byte // scratch: the predicted client Finished
	verify    [2][48]byte  // storage: verify_data of the server Finished, of the predicted client Finished

	suite         *cipherSuite
	group         CurveID
	transcript    transcript
	clientRandom  [32]byte
	ch1           *clientHelloMsg // first ClientHello (a copy) after a HelloRetryRequest
	ccsSent       bool
	cert          *Certificate
	scheme        SignatureScheme
	signed        []byte // what CertificateVerify signs; in signBuf for TLS 1.3
	signBuf       [64 + 64 + 64]byte
	resumed       bool
	psk           []byte
	hsSecret      handshakeSecret
	clientHS      []byte   // client handshake traffic secret
	clientHSx     expander // keyed with clientHS: its key, IV and Finished
	serverHSx     expander // keyed with the server handshake traffic secret
	master        masterSecret
	clientApp     []byte
	appX          expander // scratch: keyed with an application traffic secret
	certRequested bool
	// clientFinished is the verify_data the client Finished must carry,
	// nil until predictClientFinished.
	clientFinished []byte
	ticketSent     bool // NewSessionTicket went out with the server Finished
	noTicket       bool // the client's psk_key_exchange_modes lack psk_dhe_ke, or it sent none
	vopts          *x509.VerifyOptions
	v12            *handshake12 // TLS 1.2 state (handshake_server_tls12.go)

	// kept by recycle: the HMACs' hash states (engine.go)
	digests   digestPool
	newDigest func() hash.Hash // digests.get, bound once
}

// skipEarly reports whether an n-byte record may be dropped as refused early
// data (RFC 8446, Section 4.2.10) and charges it against the bound; an
// empty record costs one byte, so that nothing is skipped without early
// data and empty ones stay bounded.
func (hs *serverHandshake) skipEarly(n int) bool {
	n = max(n, 1)
	if hs.earlySkip < n || hs.isDone() {
		return false
	}
	hs.earlySkip -= n
	return true
}

func (hs *serverHandshake) verifyOpts() *x509.VerifyOptions { return hs.vopts }

// readHandshakeBytes appends a handshake record's payload and processes the
// complete messages.
func (e *Engine) readHandshakeBytes(b []byte) error {
	hs := e.hs
	if hs == nil || e.done {
		return alertErr(AlertUnexpectedMessage, ErrUnexpectedMessage)
	}
	e.useless = 0
	hs.buf = append(hs.buf, b...)
	return e.processMessages()
}

// resumeHandshake continues with buffered messages after SignDone/VerifyDone.
func (e *Engine) resumeHandshake() error {
	if len(e.hs.buf) == 0 || e.blocked() {
		return nil
	}
	return e.processMessages()
}

// processMessages handles every complete message in hs.buf until the
// handshake blocks. Each message aliases hs.buf only while it is handled.
func (e *Engine) processMessages() error {
	hs := e.hs
	for len(hs.buf) >= 4 && !e.blocked() && !e.done {
		n := int(hs.buf[1])<<16 | int(hs.buf[2])<<8 | int(hs.buf[3])
		limit := maxHandshakeMsg
		switch hs.buf[0] {
		case typeCertificate:
			limit = maxCertificateMsg
		case typeClientHello:
			limit = maxClientHelloBody
		}
		if n > limit {
			return alertErr(AlertDecodeError, ErrMessageTooLarge)
		}
		if len(hs.buf) < 4+n {
			break
		}
		// RFC 8446, Section 5.1: the read key changes after these two.
		keyChange := hs.buf[0] == typeClientHello || hs.buf[0] == typeFinished
		next, err := hs.state.handle(e, hs.buf[:4+n])
		if err != nil {
			return err
		}
		hs.state = next
		rest := copy(hs.buf, hs.buf[4+n:])
		hs.buf = hs.buf[:rest]
		// RFC 8446, Section 5.1: handshake messages must not span a key change.
		if keyChange && rest > 0 {
			return alertErr(AlertUnexpectedMessage, ErrUnexpectedMessage)
		}
	}
	if e.done && len(hs.buf) > 0 {
		return alertErr(AlertUnexpectedMessage, ErrUnexpectedMessage)
	}
	if e.done {
		hs.buf = nil
	}
	return nil
}

var (
	errDecode           = alertErr(AlertDecodeError, ErrDecode)
	errIllegalParameter = alertErr(AlertIllegalParameter, ErrIllegalParameter)
	errMissingExtension = alertErr(AlertMissingExtension, ErrMissingExtension)
	errHandshakeFailure = alertErr(AlertHandshakeFailure, ErrHandshakeFailure)
)

// readClientHello handles ClientHello and, after a HelloRetryRequest, the
// second ClientHello (RFC 8446, Sections 4.1.2 and 4.1.4).
func (e *Engine) readClientHello(msg []byte, retried bool) (state, error) {
	hs := e.hs
	hs.sawCH = true
	ch := new(clientHelloMsg)
	if !ch.unmarshal(msg) {
		return nil, clientHelloDecodeAlert(msg)
	}
	// RFC 8446, Section 4.1.2 and Appendix D: a client offering TLS 1.3
	// sets legacy_version to 0x0303, whichever version we would pick. (One
	// whose supported_versions stops at TLS 1.2 may say less: Section 4.2.1
	// bars using legacy_version then.)
	if ch.vers < VersionTLS12 && slices.Contains(ch.supportedVersions, versionTLS13) {
		return nil, alertErr(AlertProtocolVersion, ErrProtocolVersion)
	}
	vers, err := negotiateVersion(e.cfg, ch)
	if err != nil {
		return nil, err
	}
	if vers == VersionTLS12 {
		return e.readClientHello12(ch, msg, retried) // handshake_server_tls12.go
	}
	if len(ch.compressionMethods) != 1 || ch.compressionMethods[0] != 0 {
		return nil, errIllegalParameter
	}
	if len(ch.secureRenegotiation) != 0 {
		return nil, errHandshakeFailure
	}
	if retried {
		// RFC 8446, Section 4.2.10: early data is skipped only up to the
		// second ClientHello; after it, every record must open.
		hs.earlySkip = 0
		if err := hs.checkSecondClientHello(ch); err != nil {
			return nil, err
		}
	}
	suite := selectCipherSuite(e.cfg.cipherSuites(), ch.cipherSuites)
	if suite == nil || hs.suite != nil && suite != hs.suite {
		return nil, errHandshakeFailure
	}
	hs.suite = suite
	copy(hs.clientRandom[:], ch.random)
	if ch.supportedGroups == nil || ch.keyShares == nil {
		return nil, errMissingExtension // RFC 8446, Section 9.2: (EC)DHE is mandatory here
	}
	group, share, err := e.selectGroup(ch)
	if err != nil {
		return nil, err
	}
	if !retried {
		hs.transcript.begin(suite.hash)
	}
	if share == nil {
		if retried {
			return nil, errIllegalParameter // the retried share must be for our group
		}
		return expectClientHello{retried: true}, e.sendHelloRetryRequest(ch, msg, group)
	}
	hs.group = group
	e.state.Version, e.state.CipherSuite, e.state.CurveID = versionTLS13, suite.id, group
	e.state.ServerName = ch.serverName
	if err := e.negotiateALPN(ch); err != nil {
		return nil, err
	}
	if ch.hasRecordSizeLimit {
		e.sendLimit = min(maxPlaintext, int(ch.recordSizeLimit)-1)
	}
	selectedPSK, err := e.checkPSK(ch, msg, retried)
	if err != nil {
		return nil, err
	}
	if !hs.resumed {
		if ch.signatureAlgorithms == nil {
			return nil, errMissingExtension
		}
		hs.cert, hs.scheme = selectCertificate(e.cfg.Certificates, ch.serverName, ch.signatureAlgorithms, ch.signatureAlgorithmsCert)
		e.state.CertificateIndex = int16(slices.Index(e.cfg.Certificates, hs.cert))
		if hs.cert == nil {
			return nil, errHandshakeFailure
		}
	}
	if ch.earlyData && !retried {
		hs.earlySkip = maxEarlyDataSkip // refused: we never accept 0-RTT
	}
	hs.transcript.write(msg)
	return e.sendServerFlight(ch, share, selectedPSK)
}

// clientHelloDecodeAlert picks the alert for a ClientHello the codec
// rejected: illegal_parameter when pre_shared_key is not the last extension
// (RFC 8446, Section 4.2.11), decode_error otherwise.
func clientHelloDecodeAlert(msg []byte) error {
	s := cryptobyte.String(msg)
	var skip, exts cryptobyte.String
	if !s.Skip(4+2+32) || !s.ReadUint8LengthPrefixed(&skip) || !s.ReadUint16LengthPrefixed(&skip) ||
		!s.ReadUint8LengthPrefixed(&skip) || !s.ReadUint16LengthPrefixed(&exts) {
		return errDecode
	}
	for !exts.Empty() {
		var typ uint16
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&skip) {
			return errDecode
		}
		if typ == extensionPreSharedKey && !exts.Empty() {
			return errIllegalParameter
		}
	}
	return errDecode
}

// negotiateVersion is the version dispatch (RFC 8446, Section 4.2.1): the
// highest version within Config.MinVersion..MaxVersion the client offers.
// TLS 1.2 continues in handshake_server_tls12.go, which puts
// downgradeCanaryTLS12 in ServerHello.random (RFC 8446, Section 4.1.3).
// Other clients get protocol_version.
func negotiateVersion(cfg *Config, ch *clientHelloMsg) (uint16, error) {
	return selectVersion(cfg, ch)
}

// downgradeCanaryTLS12 ends ServerHello.random when a TLS 1.3 server
// negotiates TLS 1.2 (RFC 8446, Section 4.1.3).
const downgradeCanaryTLS12 = "DOWNGRD\x01"

// checkSecondClientHello enforces RFC 8446, Section 4.1.2: the retried
// ClientHello carries one share, for the group we asked for, no cookie (we
// send none), and pre_shared_key if the first did; otherwise it equals the
// first byte for byte, extension order included, except for what
// retriedHelloMatches lets change. An early_data extension in it (Section
// 4.2.10: the client MUST NOT send one) is ignored, as BoringSSL does:
// early data is never skipped after a HelloRetryRequest, so what it
// announces fails with bad_record_mac (readClientHello).
func (hs *serverHandshake) checkSecondClientHello(ch *clientHelloMsg) error {
	if hs.ch1.pskIdentities != nil && ch.pskIdentities == nil {
		return errMissingExtension // some PSKs may go, not all (as BoringSSL)
	}
	if len(ch.keyShares) != 1 || ch.keyShares[0].group != uint16(hs.group) || ch.cookie != nil ||
		!retriedHelloMatches(hs.ch1.raw, ch.raw) {
		return errIllegalParameter
	}
	return nil
}

// selectGroup picks our most preferred group the client sent a share for;
// failing that, our most preferred group it supports (share == nil: ask
// with a HelloRetryRequest). RFC 8446, Section 4.2.8.
func (e *Engine) selectGroup(ch *clientHelloMsg) (CurveID, []byte, error) {
	for _, ks := range ch.keyShares {
		if !slices.Contains(ch.supportedGroups, ks.group) || !validShareShape(CurveID(ks.group), ks.data) {
			return 0, nil, errIllegalParameter
		}
	}
	prefs := e.cfg.curves()
	for _, g := range prefs {
		for _, ks := range ch.keyShares {
			if ks.group == uint16(g) && isSupportedCurve(g) {
				return g, ks.data, nil
			}
		}
	}
	for _, g := range prefs {
		if isSupportedCurve(g) && slices.Contains(ch.supportedGroups, uint16(g)) {
			return g, nil, nil
		}
	}
	return 0, nil, errHandshakeFailure
}

// negotiateALPN picks our first protocol the client offers (RFC 7301).
func (e *Engine) negotiateALPN(ch *clientHelloMsg) error {
	if len(e.cfg.NextProtos) == 0 || len(ch.alpnProtocols) == 0 {
		return nil
	}
	for _, p := range e.cfg.NextProtos {
		if slices.Contains(ch.alpnProtocols, p) {
			e.state.NegotiatedProtocol = p
			return nil
		}
	}
	return alertErr(AlertNoApplicationProtocol, ErrNoALPN)
}

// sendHelloRetryRequest asks for a key share for group (RFC 8446,
// Section 4.1.4). No cookie is sent: the engine keeps the state itself.
func (e *Engine) sendHelloRetryRequest(ch *clientHelloMsg, msg []byte, group CurveID) error {
	hs := e.hs
	hs.group = group
	hs.transcript.write(msg)
	hs.transcript.hrrRewrite()
	hrr := serverHelloMsg{
		vers: 0x0303, random: helloRetryRequestRandom, sessionID: ch.sessionID,
		cipherSuite: hs.suite.id, supportedVersion: versionTLS13, selectedGroup: uint16(group),
	}
	b := hrr.appendTo(nil)
	hs.transcript.write(b)
	if err := e.appendHandshakeRecords(b); err != nil {
		return err
	}
	e.sendCompatCCS(ch)
	// Keep a copy of the first ClientHello for the consistency check.
	raw := bytes.Clone(msg)
	hs.ch1 = new(clientHelloMsg)
	hs.ch1.unmarshal(raw)
	if ch.earlyData {
		hs.earlySkip = maxEarlyDataSkip // 0-RTT records before ClientHello2 are skipped
	}
	return nil
}

// sendCompatCCS sends the middlebox-compatibility change_cipher_spec once,
// when the client sent a legacy_session_id (RFC 8446, Appendix D.4).
func (e *Engine) sendCompatCCS(ch *clientHelloMsg) {
	if len(ch.sessionID) == 0 || e.hs.ccsSent {
		return
	}
	e.hs.ccsSent = true
	e.hs.out = append(e.hs.out, recordTypeChangeCipherSpec, 3, 3, 0, 1, 1)
}

// checkPSK looks for a usable resumption ticket (RFC 8446, Section 4.2.11).
// It returns the selected identity index, or -1 for a full handshake.
func (e *Engine) checkPSK(ch *clientHelloMsg, msg []byte, retried bool) (int, error) {
	hs := e.hs
	if e.cfg.TicketKeys == nil || len(ch.pskIdentities) == 0 {
		return -1, nil
	}
	if ch.pskModes == nil {
		return -1, errMissingExtension
	}
	if !slices.Contains(ch.pskModes, pskModeDHE) {
		return -1, nil
	}
	now := e.cfg.now()
	for i, id := range ch.pskIdentities {
		if i >= 4 {
			break
		}
		psk, certs, ok := e.openTicket(id, ch, now)
		if !ok {
			continue
		}
		// RFC 8446, Section 4.2.11.2: verify the binder over the truncated ClientHello.
		tr := newTranscript(hs.suite.hash)
		if retried {
			if c, ok := hs.transcript.clone(); ok {
				tr = c
			}
		}
		tr.write(msg[:ch.bindersOffset])
		es := newEarlySecret(hs.suite.hash, psk)
		want := finishedVerifyData(hs.suite.hash, es.resumptionBinderKey(), tr.sum(nil))
		if !hmac.Equal(want, ch.pskBinders[i]) {
			return -1, alertErr(AlertDecryptError, ErrBadBinder)
		}
		hs.resumed, hs.psk = true, psk
		e.state.DidResume = true
		e.state.PeerCertificates = certs
		if len(certs) > 0 {
			e.state.VerifiedLeaf = certs[0] // it was verified when the ticket was issued
		}
		return i, nil
	}
	return -1, nil
}

// openTicket decrypts a ticket and checks it may resume this connection:
// version, suite hash, lifetime, age skew, SNI, ALPN and client-auth policy.
func (e *Engine) openTicket(id pskIdentity, ch *clientHelloMsg, now time.Time) ([]byte, []*x509.Certificate, bool) {
	pt, ok := e.cfg.TicketKeys.openTicket(id.label)
	if !ok {
		return nil, nil, false
	}
	var st sessionState
	if !st.unmarshal(pt) || st.version != versionTLS13 {
		return nil, nil, false
	}
	s := cipherSuiteByID(st.suite)
	if s == nil || s.hash != e.hs.suite.hash {
		return nil, nil, false
	}
	created := time.Unix(int64(st.createdAt), 0)
	age := now.Sub(created)
	if age < -maxTicketAgeSkew || age > time.Duration(st.lifetime)*time.Second {
		return nil, nil, false
	}
	clientAge := time.Duration(id.obfuscatedTicketAge-st.ageAdd) * time.Millisecond
	if d := clientAge - age; d > maxTicketAgeSkew+time.Second || d < -maxTicketAgeSkew-time.Second {
		return nil, nil, false
	}
	if st.serverName != ch.serverName || st.alpn != e.state.NegotiatedProtocol {
		return nil, nil, false
	}
	certs, ok := st.peerChain(e.cfg.ClientAuth == RequireClientCert)
	if !ok {
		return nil, nil, false
	}
	return bytes.Clone(st.secret), certs, true
}

// sendServerFlight sends ServerHello, the compat CCS, EncryptedExtensions,
// CertificateRequest, Certificate, CertificateVerify and Finished
// (RFC 8446, Section 2, Figure 1). It stops before CertificateVerify when
// the signature is asynchronous.
func (e *Engine) sendServerFlight(ch *clientHelloMsg, clientShare []byte, pskIndex int) (state, error) {
	hs := e.hs
	// RFC 8446, Section 4.2.9: no ticket for a client whose modes lack
	// psk_dhe_ke, our only one, or that sends no psk_key_exchange_modes at
	// all (it may never offer a PSK: crypto/tls without a session cache, as
	// go-redis dials by default): it could not use it. As crypto/tls and
	// BoringSSL, this saves the ticket's sealing and record.
	hs.noTicket = !slices.Contains(ch.pskModes, pskModeDHE)
	hs.reserveFlight(len(clientShare), e.wantTicket())
	random := hs.random[:] // drawn first: a fixed Rand yields the random, then the key
	if _, err := io.ReadFull(e.cfg.rand(), random); err != nil {
		return nil, alertErr(AlertInternalError, ErrInternal)
	}
	share, secret, err := serverKeyShare(hs.group, clientShare, e.cfg.rand())
	if err != nil {
		return nil, err
	}
	sh := serverHelloMsg{
		vers: 0x0303, random: random, sessionID: ch.sessionID, cipherSuite: hs.suite.id,
		supportedVersion: versionTLS13, serverShare: keyShare{group: uint16(hs.group), data: share},
	}
	if pskIndex >= 0 {
		sh.selectedIdentityPresent, sh.selectedIdentity = true, uint16(pskIndex)
	}
	start := e.beginMessages()
	hs.out = sh.appendTo(hs.out)
	hs.transcript.write(hs.out[start:])
	if err := e.endMessages(start); err != nil {
		return nil, err
	}
	e.sendCompatCCS(ch)

	h := hs.suite.hash
	es := newEarlySecret(h, hs.psk)
	es.digests = hs.digestsFor(h)
	hs.hsSecret = es.handshakeSecret(secret)
	th := hs.transcript.current()
	hs.clientHS = hs.hsSecret.clientHandshakeTrafficSecret(th)
	serverHS := hs.hsSecret.serverHandshakeTrafficSecret(th)
	e.keyLog("CLIENT_HANDSHAKE_TRAFFIC_SECRET", hs.clientRandom[:], hs.clientHS)
	e.keyLog("SERVER_HANDSHAKE_TRAFFIC_SECRET", hs.clientRandom[:], serverHS)
	hs.serverHSx.digests, hs.clientHSx.digests, hs.appX.digests = es.digests, es.digests, es.digests
	hs.serverHSx.init(h, serverHS)
	if err := e.out.setTrafficKeys(hs.suite, &hs.serverHSx, serverHS); err != nil {
		return nil, err
	}
	hs.clientHSx.init(h, hs.clientHS)
	if err := e.in.setTrafficKeys(hs.suite, &hs.clientHSx, hs.clientHS); err != nil {
		return nil, err
	}

	ee := encryptedExtensionsMsg{alpnProtocol: e.state.NegotiatedProtocol}
	ee.serverNameAck = ch.serverName != "" && !hs.resumed
	if ch.hasRecordSizeLimit {
		ee.recordSizeLimit = uint16(e.cfg.recordSizeLimit())
		e.recvLimit = int(ee.recordSizeLimit) - 1
	}
	start = e.beginMessages()
	msgs := ee.appendTo(hs.out)
	if !hs.resumed {
		if e.cfg.ClientAuth != NoClientCert {
			hs.certRequested = true
			advertise, _ := e.cfg.clientSchemes()
			cr := certificateRequestMsgTLS13{signatureAlgorithms: advertise}
			if e.cfg.ClientCAs != nil {
				cr.certificateAuthorities = e.cfg.ClientCAs.Subjects() //nolint:staticcheck // our pool, not the system's
			}
			msgs = cr.appendTo(msgs)
		}
		msgs = (&certificateMsgTLS13{certificates: hs.cert.Chain}).appendTo(msgs)
	}
	hs.out = msgs
	hs.transcript.write(hs.out[start:])
	if err := e.endMessages(start); err != nil {
		return nil, err
	}
	if hs.resumed {
		return e.sendServerFinished()
	}
	hs.signed = signedContent(hs.signBuf[:0], hs.scheme, serverSignatureContext, hs.transcript.current())
	if e.cfg.AsyncSign != nil && e.cfg.AsyncSign(hs.scheme) {
		return awaitSign{}, nil
	}
	sig, err := hs.cert.Key.Sign(e.cfg.rand(), hs.signed, signerOpts(hs.scheme))
	if err != nil {
		return nil, alertErr(AlertInternalError, ErrInternal)
	}
	return e.sendCertificateVerifyAndFinished(sig)
}

// reserveFlight sizes hs.out once for the whole server flight (ServerHello
// with a share about the size of the client's, Certificate,
// CertificateVerify, Finished, a ticket, record overhead), so that it does
// not grow message by message. A CertificateRequest with a long CA list may
// still grow it.
func (hs *serverHandshake) reserveFlight(shareLen int, ticket bool) {
	n := 128 + shareLen + 128 + (4 + 64) + 6*(recordHeaderLen+recordOverhead13)
	if hs.cert != nil && !hs.resumed {
		for _, c := range hs.cert.Chain {
			n += 3 + 2 + len(c)
		}
		n += 4 + 4 + maxSignatureLen(hs.cert)
	}
	if ticket {
		n += 256
	}
	hs.out = slices.Grow(hs.out, n)
}

// maxSignatureLen bounds the size of a signature by c's key.
func maxSignatureLen(c *Certificate) int {
	switch k := c.Key.Public().(type) {
	case *ecdsa.PublicKey:
		return 9 + 2*(k.Curve.Params().BitSize+7)/8
	case *rsa.PublicKey:
		return k.Size()
	}
	return 64 // Ed25519
}

// beginMessages starts a handshake record built in place at the end of
// hs.out: it reserves the record header and returns where the messages
// start. endMessages frames them.
func (e *Engine) beginMessages() int {
	if e.out.aead == nil {
		e.hs.out = append(e.hs.out, 0, 0, 0, 0, 0)
	} else {
		e.hs.out = e.out.appendHeader(e.hs.out)
	}
	return len(e.hs.out)
}

// endMessages turns the whole handshake messages appended to hs.out since
// beginMessages returned start into one handshake record, protected when
// the write key is set; messages over the record limit go out as several
// records through appendHandshakeRecords.
func (e *Engine) endMessages(start int) error {
	hs := e.hs
	hdr := start - e.out.headerLen()
	if e.out.aead == nil {
		hdr = start - recordHeaderLen
	}
	n := len(hs.out) - start
	if n > e.sendLimit {
		msgs := bytes.Clone(hs.out[start:])
		hs.out = hs.out[:hdr]
		return e.appendHandshakeRecords(msgs)
	}
	if e.out.aead == nil {
		h := hs.out[hdr:start]
		h[0], h[1], h[2], h[3], h[4] = recordTypeHandshake, 3, 3, byte(n>>8), byte(n)
		return nil
	}
	var err error
	hs.out, err = e.out.sealInPlace(hs.out, hdr, recordTypeHandshake)
	return err
}

// sendCertificateVerifyAndFinished completes the server flight with the
// signature (RFC 8446, Section 4.4.3).
func (e *Engine) sendCertificateVerifyAndFinished(sig []byte) (state, error) {
	hs := e.hs
	start := e.beginMessages()
	hs.out = (&certificateVerifyMsg{signatureAlgorithm: uint16(hs.scheme), signature: sig}).appendTo(hs.out)
	hs.transcript.write(hs.out[start:])
	if err := e.endMessages(start); err != nil {
		return nil, err
	}
	hs.signed = nil
	return e.sendServerFinished()
}

// sendServerFinished sends Finished and installs the server application
// traffic key (RFC 8446, Sections 4.4.4 and 7.1).
func (e *Engine) sendServerFinished() (state, error) {
	hs := e.hs
	fin := finishedMsg{verifyData: hs.serverHSx.verifyData(hs.verify[0][:0], hs.transcript.current())}
	start := e.beginMessages()
	hs.out = fin.appendTo(hs.out)
	hs.transcript.write(hs.out[start:])
	if err := e.endMessages(start); err != nil {
		return nil, err
	}
	hs.master = hs.hsSecret.masterSecret()
	th := hs.transcript.current()
	hs.clientApp = hs.master.clientApplicationTrafficSecret(th)
	serverApp := hs.master.serverApplicationTrafficSecret(th)
	e.keyLog("CLIENT_TRAFFIC_SECRET_0", hs.clientRandom[:], hs.clientApp)
	e.keyLog("SERVER_TRAFFIC_SECRET_0", hs.clientRandom[:], serverApp)
	if e.cfg.KeyLog != nil { // nothing else uses the exporter secret
		e.keyLog("EXPORTER_SECRET", hs.clientRandom[:], hs.master.exporterMasterSecret(th))
	}
	hs.appX.init(hs.suite.hash, serverApp)
	if err := e.out.setTrafficKeys(hs.suite, &hs.appX, serverApp); err != nil {
		return nil, err
	}
	if hs.certRequested {
		return expectCertificate{}, nil
	}
	if e.wantTicket() {
		if err := e.sendEarlyTicket(); err != nil {
			return nil, err
		}
	}
	return expectFinished{}, nil
}

// sendEarlyTicket sends the NewSessionTicket right after the server
// Finished, in the same flight (RFC 8446, Section 4.6.1, the note on the
// resumption master secret): a server that did not request client
// authentication knows the only message left, the client Finished, so it
// computes the rest of the transcript itself. The Finished that arrives is
// still checked against that prediction before the handshake completes.
// This saves the server one write and one wake-up per handshake.
func (e *Engine) sendEarlyTicket() error {
	e.hs.predictClientFinished()
	if err := e.sendSessionTicket(); err != nil {
		return err
	}
	e.hs.ticketSent = true
	return nil
}

// predictClientFinished computes the client Finished the transcript so far
// calls for (RFC 8446, Section 4.4.4), keeps its verify_data for the check,
// and adds the message to the transcript: a client Finished that passes the
// check is byte for byte this message.
func (hs *serverHandshake) predictClientFinished() {
	want := hs.clientHSx.verifyData(hs.verify[1][:0], hs.transcript.current())
	hs.clientFinished = want
	hs.transcript.write((&finishedMsg{verifyData: want}).appendTo(hs.finished[:0]))
}

// readClientCertificate handles the client's Certificate (RFC 8446,
// Section 4.4.2); an empty one is certificate_required under
// RequireClientCert (Section 4.4.2.4).
func (e *Engine) readClientCertificate(msg []byte) (state, error) {
	hs := e.hs
	var m certificateMsgTLS13
	if !m.unmarshal(msg) {
		return nil, errDecode
	}
	hs.transcript.write(msg)
	if len(m.certificates) == 0 {
		if e.cfg.ClientAuth == RequireClientCert {
			return nil, alertErr(AlertCertificateRequired, ErrCertificateRequired)
		}
		return expectFinished{}, nil
	}
	certs, err := parseClientChain(m.certificates)
	if err != nil {
		return nil, err
	}
	return e.acceptClientChain(certs, expectCertificateVerify{})
}

// parseClientChain parses the client's DER chain, leaf first; a
// certificate x509 rejects is bad_certificate, and a leaf whose key usage
// forbids signing (so it cannot sign CertificateVerify, RFC 8446 Section
// 4.4.2.3; RFC 5280 Section 4.2.1.3) is unsupported_certificate.
func parseClientChain(ders [][]byte) ([]*x509.Certificate, error) {
	certs := make([]*x509.Certificate, 0, len(ders))
	for _, der := range ders {
		// x509 keeps slices of its input: give it bytes hs.buf will not reuse.
		c, err := x509.ParseCertificate(bytes.Clone(der))
		if err != nil {
			return nil, alertErr(AlertBadCertificate, ErrBadCertificate)
		}
		certs = append(certs, c)
	}
	if ku := certs[0].KeyUsage; ku != 0 && ku&x509.KeyUsageDigitalSignature == 0 {
		return nil, alertErr(AlertUnsupportedCertificate, ErrBadCertificate)
	}
	return certs, nil
}

// acceptClientChain records the client's non-empty chain and verifies it
// against ClientCAs for client authentication (TLS 1.3 and 1.2 alike).
// next is the state after a verified chain, or after any chain when
// ClientCAs is nil; under AsyncVerify it returns awaitVerify{} instead.
func (e *Engine) acceptClientChain(certs []*x509.Certificate, next state) (state, error) {
	hs := e.hs
	e.state.PeerCertificates = certs
	if e.cfg.ClientCAs == nil {
		return next, nil // accepted unverified; VerifiedLeaf stays nil
	}
	hs.vopts = &x509.VerifyOptions{
		Roots: e.cfg.ClientCAs, CurrentTime: e.cfg.now(), Intermediates: x509.NewCertPool(),
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	for _, c := range certs[1:] {
		hs.vopts.Intermediates.AddCert(c)
	}
	if e.cfg.AsyncVerify {
		return awaitVerify{}, nil
	}
	if _, err := certs[0].Verify(*hs.vopts); err != nil {
		return nil, verifyAlert(err)
	}
	e.state.VerifiedLeaf = certs[0]
	return next, nil
}

// verifyAlert maps a chain verification error to its alert (RFC 8446,
// Section 6.2).
func verifyAlert(err error) error {
	var ua x509.UnknownAuthorityError
	if errors.As(err, &ua) {
		return alertErr(AlertUnknownCA, ErrBadCertificate)
	}
	var ci x509.CertificateInvalidError
	if errors.As(err, &ci) {
		switch ci.Reason {
		case x509.Expired:
			return alertErr(AlertCertificateExpired, ErrBadCertificate)
		case x509.IncompatibleUsage:
			return alertErr(AlertUnsupportedCertificate, ErrBadCertificate)
		}
	}
	return alertErr(AlertBadCertificate, ErrBadCertificate)
}

// readClientCertificateVerify checks the client's proof of key possession
// (RFC 8446, Section 4.4.3).
func (e *Engine) readClientCertificateVerify(msg []byte) (state, error) {
	hs := e.hs
	var m certificateVerifyMsg
	if !m.unmarshal(msg) {
		return nil, errDecode
	}
	s := SignatureScheme(m.signatureAlgorithm)
	if _, accept := e.cfg.clientSchemes(); !slices.Contains(accept, uint16(s)) {
		return nil, errIllegalParameter
	}
	signed := signedContent(nil, s, clientSignatureContext, hs.transcript.current())
	if !verifySignature(e.state.PeerCertificates[0].PublicKey, s, signed, m.signature) {
		return nil, alertErr(AlertDecryptError, ErrBadSignature)
	}
	e.state.PeerSignatureScheme = s
	hs.transcript.write(msg)
	return expectFinished{}, nil
}

// finishedVerified proves that the client Finished checked out; only
// verifyClientFinished creates one, and only establish consumes it.
type finishedVerified struct{}

// verifyClientFinished checks the client Finished (RFC 8446, Section 4.4.4)
// against the one predicted from the transcript: at the server Finished when
// an early ticket was sent (sendEarlyTicket), otherwise now.
func (e *Engine) verifyClientFinished(msg []byte) (finishedVerified, error) {
	hs := e.hs
	var m finishedMsg
	if !m.unmarshal(msg) {
		return finishedVerified{}, errDecode
	}
	if hs.clientFinished == nil {
		hs.predictClientFinished()
	}
	want := hs.clientFinished
	if len(m.verifyData) != len(want) {
		return finishedVerified{}, errDecode
	}
	if !hmac.Equal(want, m.verifyData) {
		return finishedVerified{}, alertErr(AlertDecryptError, ErrBadFinished)
	}
	return finishedVerified{}, nil
}

// establish installs the client application key, marks the handshake done
// and issues a session ticket unless one went out with the server Finished
// (RFC 8446, Sections 7.1 and 4.6.1).
func (e *Engine) establish(finishedVerified) error {
	hs := e.hs
	hs.appX.init(hs.suite.hash, hs.clientApp)
	if err := e.in.setTrafficKeys(hs.suite, &hs.appX, hs.clientApp); err != nil {
		return err
	}
	e.done = true
	hs.earlySkip = 0
	if e.wantTicket() && !hs.ticketSent {
		if err := e.sendSessionTicket(); err != nil {
			return err
		}
	}
	hs.clientHS, hs.clientApp, hs.psk = nil, nil, nil
	return nil
}

// wantTicket reports whether this TLS 1.3 handshake issues a ticket.
func (e *Engine) wantTicket() bool { return e.cfg.TicketKeys != nil && !e.hs.noTicket }

// sendSessionTicket issues one stateless ticket carrying the resumption PSK
// (RFC 8446, Section 4.6.1). The transcript must end with the client
// Finished, received or predicted.
func (e *Engine) sendSessionTicket() error {
	hs := e.hs
	h := hs.suite.hash
	rms := hs.master.resumptionMasterSecret(hs.transcript.current())
	var rnd [4]byte
	if _, err := io.ReadFull(e.cfg.rand(), rnd[:]); err != nil {
		return alertErr(AlertInternalError, ErrInternal)
	}
	nonce := []byte{0}
	lifetime := e.cfg.ticketLifetime()
	st := sessionState{
		version: versionTLS13, suite: hs.suite.id, secret: resumptionPSK(h, rms, nonce),
		createdAt: uint64(e.cfg.now().Unix()), ageAdd: binary.BigEndian.Uint32(rnd[:]),
		lifetime: uint32(lifetime / time.Second), serverName: e.state.ServerName,
		alpn: e.state.NegotiatedProtocol,
	}
	st.storeVerifiedChain(&e.state)
	label := e.cfg.TicketKeys.sealTicket(nil, st.marshal(), e.cfg.rand())
	if label == nil {
		return nil // no ticket this time
	}
	m := newSessionTicketMsgTLS13{lifetime: st.lifetime, ageAdd: st.ageAdd, nonce: nonce, label: label}
	start := e.beginMessages()
	hs.out = m.appendTo(hs.out)
	return e.endMessages(start)
}
