package tlsengine

import (
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"hash"
	"io"
	"sync"
	"time"
)

// ClientAuthMode says whether the server asks for a client certificate.
type ClientAuthMode uint8

// Client authentication modes (Redis tls-auth-clients no|optional|yes).
const (
	NoClientCert      ClientAuthMode = iota // never ask
	RequestClientCert                       // ask; verify a chain if one is sent
	RequireClientCert                       // ask; fail with certificate_required without one
)

// Config is the immutable configuration shared by every Engine of a server.
// Do not modify a Config once an Engine uses it; build a new one and swap it.
type Config struct {
	// Certificates, the first one being the default when SNI matches none.
	Certificates []*Certificate
	// CipherSuites in server preference order; nil means all three TLS 1.3 suites.
	CipherSuites []uint16
	// CurvePreferences in server preference order; nil means
	// X25519MLKEM768, X25519, P-256, P-384.
	CurvePreferences []CurveID
	// NextProtos are the ALPN protocols in server preference order. When
	// both sides list protocols and none overlap, the handshake fails with
	// no_application_protocol.
	NextProtos []string
	// ClientAuth selects client certificate authentication; ClientCAs
	// verifies the chains (with ExtKeyUsageClientAuth).
	ClientAuth ClientAuthMode
	ClientCAs  *x509.CertPool
	// TicketKeys enables stateless session tickets (psk_dhe_ke) when set.
	TicketKeys *TicketKeys
	// TicketLifetime defaults to 7 days (the RFC 8446 maximum).
	TicketLifetime time.Duration
	// Rand defaults to crypto/rand.Reader. It is shared by every loop, so it
	// must be safe for concurrent use. (Go 1.26 key generation ignores
	// custom readers; Rand feeds ServerHello.random and tickets.)
	Rand io.Reader
	// Now defaults to time.Now; it is called only during handshakes and
	// when a KeyUpdate arrives, never per record.
	Now func() time.Time
	// KeyLog receives NSS key log lines; for debugging only. It must be
	// safe for concurrent use when the Config is shared.
	KeyLog io.Writer
	// AsyncSign, when it returns true for a scheme, makes the handshake
	// stop with StatusWantSign instead of signing inline.
	AsyncSign func(scheme SignatureScheme) bool
	// AsyncVerify makes client chain verification stop with StatusWantVerify.
	AsyncVerify bool
	// ClientSignatureSchemes, when set, is what CertificateRequest
	// advertises, in this order, and limits the schemes a client's
	// CertificateVerify may use to those of them tlsengine verifies
	// (client_schemes.go); nil means ECDSA, Ed25519 and RSA-PSS.
	ClientSignatureSchemes []SignatureScheme
	// RecordSizeLimit is advertised to clients that send record_size_limit
	// (RFC 8449) and enforced on what they send; 0 means 2^14+1.
	RecordSizeLimit uint16
	// MinVersion and MaxVersion bound the protocol versions accepted
	// (VersionTLS12, VersionTLS13); 0 means VersionTLS13, so TLS 1.2 is
	// off unless MinVersion is VersionTLS12 (handshake_server_tls12.go).
	MinVersion, MaxVersion uint16
}

func (c *Config) rand() io.Reader {
	if c.Rand != nil {
		return c.Rand
	}
	return rand.Reader
}

func (c *Config) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// cipherSuites returns the TLS 1.3 suites of Config.CipherSuites in its
// order, or the defaults when it names none: one list may name suites of
// both versions, and a list of only TLS 1.2 suites leaves TLS 1.3 on its
// defaults (cipherSuites12 is the twin).
func (c *Config) cipherSuites() []uint16 {
	return suitesOf(c.CipherSuites, func(id uint16) bool { return cipherSuiteByID(id) != nil }, defaultCipherSuites)
}

// suitesOf returns the ids of list that known accepts, in order, or
// defaults when there are none.
func suitesOf(list []uint16, known func(uint16) bool, defaults []uint16) []uint16 {
	var ids []uint16
	for _, id := range list {
		if known(id) {
			ids = append(ids, id)
		}
	}
	if ids == nil {
		return defaults
	}
	return ids
}

func (c *Config) curves() []CurveID {
	if c.CurvePreferences != nil {
		return c.CurvePreferences
	}
	return defaultCurvePreferences
}

func (c *Config) ticketLifetime() time.Duration {
	if c.TicketLifetime <= 0 || c.TicketLifetime > 7*24*time.Hour {
		return 7 * 24 * time.Hour
	}
	return c.TicketLifetime
}

func (c *Config) recordSizeLimit() int {
	if c.RecordSizeLimit < minRecordSizeLimit || c.RecordSizeLimit > maxPlaintext+1 {
		return maxPlaintext + 1
	}
	return int(c.RecordSizeLimit)
}

// Status is a set of flags describing what the Engine needs next.
type Status uint16

// Status flags; see the table in doc.go for what the caller does next.
const (
	// StatusNeedInput: nothing to do until more bytes arrive from the peer.
	StatusNeedInput Status = 1 << iota
	// StatusHasOutput: AppendOutput has bytes to send.
	StatusHasOutput
	// StatusHasPlaintext: Read stopped because plain was full; complete
	// records remain in in[consumed:]; call Read again.
	StatusHasPlaintext
	// StatusHandshakeDone: the handshake completed; application data flows.
	StatusHandshakeDone
	// StatusPeerClosed: the peer sent close_notify; nothing more will be read.
	StatusPeerClosed
	// StatusFailed: a fatal error (Err); flush AppendOutput (the alert) and close.
	StatusFailed
	// StatusWantSign: call SignRequest, compute the signature, then SignDone.
	StatusWantSign
	// StatusWantVerify: call VerifyRequest, verify the chain, then VerifyDone.
	StatusWantVerify
)

// Limits.
const (
	maxHandshakeMsg        = 64 << 10  // any handshake message but a ClientHello or a client Certificate
	maxCertificateMsg      = 256 << 10 // client Certificate
	maxUselessRecords      = 16        // consecutive empty/CCS/warning/renegotiation records
	maxEarlyDataSkip       = 1 << 16   // bytes of refused early data skipped (RFC 8446, Section 4.2.10)
	maxKeyUpdatesInRow     = 64        // received KeyUpdates with no application data between them
	maxKeyUpdatesPerSecond = 64        // received KeyUpdates allowed per second of Config.Now
)

// keyUpdateAfterRecords is the record count at which a traffic key is
// replaced, well before the AES-GCM usage limit of RFC 8446, Section 5.5
// (2^24.5 full records): our write key by a KeyUpdate of our own, the
// client's by asking it for one (update_requested). A variable only so
// that tests can bring the point near.
var keyUpdateAfterRecords uint64 = 1 << 23

// ConnectionState describes a connection after (or during) the handshake.
type ConnectionState struct {
	Version     uint16
	CipherSuite uint16
	CurveID     CurveID
	// PeerSignatureScheme is the scheme of the client's CertificateVerify
	// (0 without one).
	PeerSignatureScheme SignatureScheme
	ServerName          string
	NegotiatedProtocol  string
	DidResume           bool
	HandshakeComplete   bool
	// CertificateIndex is the index in Config.Certificates of the
	// certificate a full handshake chose; -1 before that and on resumption.
	// (Small fields share padding: the Engine stays within its budget.)
	CertificateIndex int16
	// PeerCertificates is the client's chain, leaf first; VerifiedLeaf is
	// set when it verified against Config.ClientCAs.
	PeerCertificates []*x509.Certificate
	VerifiedLeaf     *x509.Certificate
}

// Engine is the server side of one TLS connection. It never performs I/O,
// blocks, or starts goroutines; the caller steps it. Owning loop only.
type Engine struct {
	// immutable after NewEngine
	cfg *Config

	// owned by the loop
	in, out   direction
	hs        *serverHandshake // nil once the handshake finished and its output drained
	err       error            // sticky fatal error
	alert     Alert            // alert to send when alertQueued
	alertQ    bool
	kuQ       bool // our KeyUpdate (update_not_requested) is queued
	kuReqQ    bool // queued KeyUpdate asks the peer to update too
	closeQ    bool // close_notify is queued
	renegQ    bool // a warning no_renegotiation is queued (TLS 1.2)
	closeSent bool
	peerClose bool
	done      bool // handshake complete
	more      bool // Read stopped with complete records left in its input
	useless   int  // consecutive records that carried nothing; <= maxUselessRecords
	kuBuf     [5]byte
	kuSecond  int64 // Config.Now second of the last received KeyUpdate
	kuCount   int   // KeyUpdates received in kuSecond; <= maxKeyUpdatesPerSecond
	kuRow     int   // KeyUpdates received since the last application data; <= maxKeyUpdatesInRow
	kuLen     int   // bytes of a post-handshake handshake message split across records
	sendLimit int   // max plaintext per record we send (record_size_limit - 1)
	recvLimit int   // max plaintext per record we accept
	state     ConnectionState
}

// NewEngine returns an Engine for one new connection using cfg.
func NewEngine(cfg *Config) *Engine {
	e := &Engine{cfg: cfg, sendLimit: maxPlaintext, recvLimit: maxPlaintext}
	e.state.CertificateIndex = -1
	e.hs = newHandshake()
	return e
}

// handshakePool recycles the handshake state of completed handshakes: the
// struct and the storage of its two buffers (reassembled client messages,
// the server flight) and of its transcript hash, about 3.5 KB of garbage
// per handshake otherwise. Only releaseHandshake puts one back, when
// nothing can refer to it any more: the handshake is complete, its output
// drained, and no SignRequest or VerifyRequest is pending. An Engine
// released during its handshake just drops its state.
var handshakePool sync.Pool

// maxPooledBuf bounds the buffers a recycled handshake keeps: a large
// client Certificate or CertificateRequest is not held on to.
const maxPooledBuf = 16 << 10

// newHandshake returns handshake state awaiting ClientHello, recycled when
// the pool has one.
func newHandshake() *serverHandshake {
	hs, _ := handshakePool.Get().(*serverHandshake)
	if hs == nil {
		hs = new(serverHandshake)
	}
	hs.state = expectClientHello{}
	return hs
}

// recycle clears hs, keeping only the storage of its buffers, of its
// transcript hash and of its HMACs' hash states (digests), and puts it in
// the pool; hs must not be used afterwards.
func (hs *serverHandshake) recycle() {
	buf, out, tr, trOf := hs.buf[:0], hs.out[:0], hs.transcript.h, hs.transcript.hash
	if cap(buf) > maxPooledBuf {
		buf = nil
	}
	if cap(out) > maxPooledBuf {
		out = nil
	}
	digests, newDigest := hs.digests, hs.newDigest
	digests.reclaim() // every HMAC built on them goes with hs's fields below
	*hs = serverHandshake{buf: buf, out: out, digests: digests, newDigest: newDigest}
	if tr != nil {
		tr.Reset()
		hs.transcript.spare, hs.transcript.spareOf = tr, trOf
	}
	handshakePool.Put(hs)
}

// digestPool lends the hash states of one handshake's HMACs (two per HMAC,
// eighteen in a TLS 1.3 handshake) and takes them all back when the
// handshake is recycled, so that a recycled handshake allocates none.
type digestPool struct {
	of   crypto.Hash
	free []hash.Hash // reset states of hash of
	lent []hash.Hash // states handed out since the last reclaim
}

// digestsFor returns the constructor the handshake's HMACs over h take
// their hash states from (expander.digests).
func (hs *serverHandshake) digestsFor(h crypto.Hash) func() hash.Hash {
	if hs.digests.of != h { // states of another hash: let them go
		clear(hs.digests.lent) // none is lent yet: one call per handshake
		hs.digests = digestPool{of: h, lent: hs.digests.lent[:0]}
	}
	if hs.digests.lent == nil {
		hs.digests.lent = make([]hash.Hash, 0, 20)
	}
	if hs.newDigest == nil {
		hs.newDigest = hs.digests.get // bound once: the pool lives in hs
	}
	return hs.newDigest
}

// get lends a reset hash state of p.of.
func (p *digestPool) get() hash.Hash {
	var d hash.Hash
	if n := len(p.free); n > 0 {
		d, p.free = p.free[n-1], p.free[:n-1]
	} else {
		d = p.of.New()
	}
	p.lent = append(p.lent, d)
	return d
}

// reclaim resets every lent state and makes it free again. Only when no
// HMAC built on them is used any more.
func (p *digestPool) reclaim() {
	if len(p.lent) > 64 { // the pool keeps what one handshake needs, no more
		p.lent = p.lent[:64]
	}
	for _, d := range p.lent {
		d.Reset()
		p.free = append(p.free, d)
	}
	clear(p.lent)
	p.lent = p.lent[:0]
}

// Release zeroes the traffic secrets and drops all state; the Engine must
// not be used afterwards. Call it when the connection closes.
func (e *Engine) Release() {
	e.in.zero()
	e.out.zero()
	*e = Engine{err: ErrClosed}
}

// ReleaseIdle drops both directions' AEADs (their expanded key schedules,
// about 1.5 KB for AES-GCM) of an established connection that has nothing
// in progress: no pending output, no partial post-handshake message, no
// error, no unread plaintext. Keys, IVs, sequence numbers and secrets stay;
// the next record sealed or opened rebuilds the AEAD of its direction (two
// small allocations). It reports whether it dropped anything. Call it when
// a connection has been idle for a while. Owning loop only.
func (e *Engine) ReleaseIdle() bool {
	if !e.done || e.err != nil || e.hs != nil || e.more || e.kuLen != 0 || e.hasOutput() {
		return false
	}
	in := e.in.shed()
	out := e.out.shed()
	return in || out
}

// Buffered returns how many bytes of an incomplete handshake message the
// Engine holds, copied out of consumed records: at most about 256 KiB (a
// ClientHello or a client Certificate). A server counts them with the
// unread input of a handshaking connection.
func (e *Engine) Buffered() int {
	if e.hs == nil {
		return 0
	}
	return len(e.hs.buf)
}

// Err returns the sticky fatal error, or nil.
func (e *Engine) Err() error { return e.err }

// ConnectionState returns the negotiated parameters. The slices are shared;
// do not modify them.
func (e *Engine) ConnectionState() ConnectionState {
	s := e.state
	s.HandshakeComplete = e.done
	return s
}

// MaxPlaintext returns how many plaintext bytes one sealed record may carry:
// 2^14, or less when the client sent record_size_limit (RFC 8449).
func (e *Engine) MaxPlaintext() int { return e.sendLimit }

// Status reports what the caller should do next.
func (e *Engine) Status() Status {
	var s Status
	if e.err != nil {
		s |= StatusFailed
	}
	if e.hasOutput() {
		s |= StatusHasOutput
	}
	if e.done {
		s |= StatusHandshakeDone
	}
	if e.peerClose {
		s |= StatusPeerClosed
	}
	if e.err == nil && e.hs != nil {
		s |= e.hs.blockedOn()
	}
	if e.more {
		s |= StatusHasPlaintext
	}
	if s&(StatusFailed|StatusPeerClosed|StatusWantSign|StatusWantVerify|StatusHasPlaintext) == 0 {
		s |= StatusNeedInput
	}
	return s
}

func (e *Engine) hasOutput() bool {
	if e.alertQ {
		return true
	}
	if e.err != nil {
		return e.hs != nil && len(e.hs.out) > 0
	}
	return e.kuQ || e.closeQ || e.renegQ || e.hs != nil && len(e.hs.out) > 0
}

// fail makes err sticky and queues its alert. Only the first error counts.
func (e *Engine) fail(err error) error {
	if e.err != nil {
		return e.err
	}
	e.err = err
	e.kuQ, e.closeQ, e.renegQ = false, false, false
	if ae, ok := err.(*AlertError); ok && !ae.Received {
		e.alert, e.alertQ = ae.Alert, true
	} else if !ok {
		e.err = alertErr(AlertInternalError, err)
		e.alert, e.alertQ = AlertInternalError, true
	}
	return e.err
}

// AppendOutput appends every pending record (handshake flight, tickets,
// KeyUpdate, alerts, close_notify) to dst and returns it. After a fatal
// error only the flight already built and the alert are emitted.
func (e *Engine) AppendOutput(dst []byte) []byte {
	if e.hs != nil && len(e.hs.out) > 0 {
		dst = append(dst, e.hs.out...)
		e.hs.out = e.hs.out[:0]
	}
	e.releaseHandshake()
	if e.err == nil {
		dst = e.appendKeyUpdate(dst)
		if e.renegQ {
			e.renegQ = false
			dst = e.appendAlertRecord(dst, alertLevelWarning, AlertNoRenegotiation)
		}
		if e.closeQ {
			e.closeQ = false
			dst = e.appendAlertRecord(dst, alertLevelWarning, AlertCloseNotify)
			e.closeSent = true
		}
	}
	if e.alertQ {
		e.alertQ = false
		dst = e.appendAlertRecord(dst, alertLevelFatal, e.alert)
	}
	return dst
}

// releaseHandshake drops the handshake state and its buffers once the
// handshake is complete and its last records were handed out.
func (e *Engine) releaseHandshake() {
	if e.hs != nil && e.done && len(e.hs.out) == 0 && e.hs.isDone() {
		e.hs.recycle()
		e.hs = nil
	}
}

// appendAlertRecord appends one alert record, protected when keys are set.
func (e *Engine) appendAlertRecord(dst []byte, level uint8, a Alert) []byte {
	if !e.out.keyed {
		return append(dst, recordTypeAlert, 3, 3, 0, 2, level, byte(a))
	}
	hdr := len(dst)
	dst = append(e.out.appendHeader(dst), level, byte(a)) // TLS 1.2 hook: header may carry an explicit nonce
	dst, _ = e.out.sealInPlace(dst, hdr, recordTypeAlert)
	return dst
}

// appendKeyUpdate emits a queued KeyUpdate and then switches the write key
// (RFC 8446, Section 4.6.3).
func (e *Engine) appendKeyUpdate(dst []byte) []byte {
	if !e.kuQ || !e.done {
		return dst
	}
	e.kuQ = false
	hdr := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0)
	dst = (&keyUpdateMsg{updateRequested: e.kuReqQ}).appendTo(dst)
	e.kuReqQ = false
	dst, err := e.out.sealInPlace(dst, hdr, recordTypeHandshake)
	if err != nil {
		e.fail(err)
		return dst[:hdr]
	}
	s := e.out.suite
	next := nextTrafficSecret(s.hash, e.out.secret[:e.out.secLen])
	if err := e.out.setTrafficSecret(s, next); err != nil {
		e.fail(err)
	}
	return dst
}

// KeyUpdate queues a KeyUpdate; requestPeer asks the client to update its
// keys too. The record goes out with the next AppendOutput or BeginRecord.
func (e *Engine) KeyUpdate(requestPeer bool) error {
	if e.err != nil {
		return e.err
	}
	if !e.done {
		return ErrNotEstablished
	}
	if e.state.Version != versionTLS13 { // TLS 1.2 hook: no KeyUpdate there
		return ErrNoKeyUpdate
	}
	e.kuQ = true
	e.kuReqQ = e.kuReqQ || requestPeer
	return nil
}

// CloseNotify queues a close_notify alert (RFC 8446, Section 6.1); fetch it
// with AppendOutput. No application data may be sealed afterwards.
func (e *Engine) CloseNotify() {
	if e.err == nil && !e.closeSent {
		e.closeQ = true
	}
}

// BeginRecord reserves a record header at the end of out and returns the
// extended buffer and the header's offset. Any queued control record (our
// KeyUpdate, a pending NewSessionTicket) is appended first so that it
// precedes the data. Append at most
// MaxPlaintext bytes of plaintext, then call SealRecord.
func (e *Engine) BeginRecord(out []byte) ([]byte, int) {
	if e.hs != nil && len(e.hs.out) > 0 {
		// Records sealed earlier (the NewSessionTicket) must precede this one.
		out = append(out, e.hs.out...)
		e.hs.out = e.hs.out[:0]
		e.releaseHandshake()
	}
	if e.kuQ && e.err == nil {
		out = e.appendKeyUpdate(out)
	}
	return e.out.appendHeader(out), len(out) // TLS 1.2 hook: 5 bytes, or 13 with an explicit nonce
}

// SealRecord encrypts in place the application data record that starts at
// out[hdr] (reserved by BeginRecord) and runs to the end of out. It appends
// the content type and tag (17 bytes; keep that much spare capacity to
// avoid a reallocation) and returns the extended buffer. Zero allocations.
func (e *Engine) SealRecord(out []byte, hdr int) ([]byte, error) {
	if e.err != nil {
		return out[:hdr], e.err
	}
	if !e.done || e.closeSent || e.closeQ {
		return out[:hdr], ErrNotEstablished
	}
	if len(out)-hdr-e.out.headerLen() > e.sendLimit {
		return out[:hdr], ErrRecordOverflow
	}
	out, err := e.out.sealInPlace(out, hdr, recordTypeApplicationData)
	if err != nil {
		return out[:hdr], e.fail(err)
	}
	if e.out.seq >= keyUpdateAfterRecords && !e.out.tls12 { // TLS 1.2 hook: no KeyUpdate; RFC 5246 seq limit in seal12
		e.kuQ = true
	}
	return out, nil
}

// AppendRecords copies p into as many sealed application data records as
// needed (each at most MaxPlaintext bytes) appended to out.
func (e *Engine) AppendRecords(out, p []byte) ([]byte, error) {
	for len(p) > 0 {
		n := min(len(p), e.sendLimit)
		var hdr int
		out, hdr = e.BeginRecord(out)
		out = append(out, p[:n]...)
		var err error
		if out, err = e.SealRecord(out, hdr); err != nil {
			return out, err
		}
		p = p[n:]
	}
	return out, nil
}

// Read processes the complete records at the start of in and returns how
// many bytes it consumed; a trailing partial record is left for the next
// call. Handshake, alert and KeyUpdate records drive the engine and may
// queue output (StatusHasOutput). Application data is decrypted in place in
// in and appended to plain (which must not overlap in); with plain == nil
// the plaintext of all records is compacted to the front of in and p
// aliases in[:len(p)] (p is valid until the caller reuses in; consume p
// before discarding consumed bytes).
// With plain != nil, Read stops before a record that may not fit in
// cap(plain) (StatusHasPlaintext) unless no plaintext was produced yet.
//
// in is modified (decrypted in place) in both modes. On a fatal error, err
// is the sticky *AlertError; flush AppendOutput and close.
func (e *Engine) Read(in, plain []byte) (consumed int, p []byte, err error) {
	if e.err != nil {
		return 0, plain, e.err
	}
	inPlace := plain == nil
	w := 0 // in-place write offset; 0 <= w <= consumed
	e.more = false
	if e.hs != nil {
		if err := e.resumeHandshake(); err != nil {
			return 0, plain, e.fail(err)
		}
	}
	for !e.blocked() {
		rec, err := nextRecord(in[consumed:])
		if err != nil {
			return consumed, e.result(in, plain, w, inPlace), e.fail(err)
		}
		if rec == nil {
			break
		}
		if rec[0] == recordTypeApplicationData && e.done && !inPlace && len(plain) > 0 &&
			cap(plain)-len(plain) < len(rec)-recordHeaderLen-recordOverhead13 {
			e.more = true
			break
		}
		pt, err := e.readRecord(rec)
		if err != nil {
			return consumed, e.result(in, plain, w, inPlace), e.fail(err)
		}
		consumed += len(rec)
		if len(pt) > 0 {
			if inPlace {
				w += copy(in[w:], pt)
			} else {
				plain = append(plain, pt...)
			}
		}
	}
	return consumed, e.result(in, plain, w, inPlace), nil
}

func (e *Engine) result(in, plain []byte, w int, inPlace bool) []byte {
	if inPlace {
		return in[:w]
	}
	return plain
}

// blocked reports whether Read must stop before the next record.
func (e *Engine) blocked() bool {
	if e.err != nil || e.peerClose {
		return true
	}
	return e.hs != nil && e.hs.blockedOn() != 0
}

// readRecord handles one complete record; it returns application data
// plaintext (aliasing rec) or nil.
func (e *Engine) readRecord(rec []byte) ([]byte, error) {
	if e.state.Version == VersionTLS12 { // TLS 1.2 hook (handshake_server_tls12.go)
		return e.readRecord12(rec)
	}
	typ := rec[0]
	body := rec[recordHeaderLen:]
	// RFC 8446, Section 5.1: nothing may interleave with a fragmented
	// handshake message; a protected record is judged by its inner type.
	if typ != recordTypeHandshake && (typ != recordTypeApplicationData || !e.in.keyed) && e.partialHandshake() {
		return nil, errBadRecordType
	}
	// RFC 8446, Section 5: CCS and (before keys) alerts and handshakes are plaintext.
	if typ == recordTypeChangeCipherSpec {
		return nil, e.readChangeCipherSpec(body)
	}
	if typ == recordTypeAlert && len(body) == 2 {
		// An unprotected alert (also from clients that fail before installing keys).
		return nil, e.readAlert(body)
	}
	if !e.in.keyed {
		if typ != recordTypeHandshake {
			if typ == recordTypeApplicationData && e.hs != nil && e.hs.skipEarly(len(body)) {
				return nil, nil // early data sent before a HelloRetryRequest
			}
			return nil, errBadRecordType
		}
		if len(body) > maxPlaintext {
			return nil, errRecordOverflow
		}
		if len(body) == 0 {
			return nil, errBadRecordType // RFC 8446, Section 5.1: no empty handshake fragments
		}
		return nil, e.readHandshakeBytes(body)
	}
	if typ != recordTypeApplicationData {
		return nil, errBadRecordType
	}
	ityp, pt, err := e.in.openInPlace(rec)
	if err != nil {
		if err == errBadRecordMAC && e.hs != nil && e.hs.skipEarly(len(body)) {
			return nil, nil // refused 0-RTT data: seq did not advance
		}
		return nil, err
	}
	if e.hs != nil {
		e.hs.earlySkip = 0 // the first record that opens ends early data
	}
	// RFC 8449, Section 4: in TLS 1.3 record_size_limit bounds the inner
	// plaintext, type and padding included.
	if len(body)-aeadTagLen > e.recvLimit+1 {
		return nil, errRecordOverflow
	}
	if ityp != recordTypeHandshake && e.partialHandshake() {
		return nil, errBadRecordType // RFC 8446, Section 5.1, as above
	}
	// The client's key nears its limit: ask it to update, again every
	// 2^16 records if it does not.
	if e.done && e.in.seq >= keyUpdateAfterRecords && (e.in.seq-keyUpdateAfterRecords)%(1<<16) == 0 && !e.closeSent {
		e.kuQ, e.kuReqQ = true, true
	}
	switch ityp {
	case recordTypeApplicationData:
		if !e.done {
			return nil, errBadRecordType
		}
		if len(pt) == 0 {
			return nil, e.uselessRecord()
		}
		e.useless, e.kuRow = 0, 0
		return pt, nil
	case recordTypeHandshake:
		if len(pt) == 0 {
			return nil, errBadRecordType
		}
		if e.done {
			return nil, e.readPostHandshake(pt)
		}
		return nil, e.readHandshakeBytes(pt)
	case recordTypeAlert:
		return nil, e.readAlert(pt)
	}
	return nil, errBadRecordType
}

// partialHandshake reports whether part of a handshake message (during the
// handshake, or a KeyUpdate after it) is buffered: until it completes, only
// handshake records may arrive (RFC 8446, Section 5.1).
func (e *Engine) partialHandshake() bool {
	return e.kuLen > 0 || e.hs != nil && len(e.hs.buf) > 0
}

// uselessRecord counts a record that carried nothing (RFC 8446 leaves the
// bound to implementations; we allow maxUselessRecords in a row).
func (e *Engine) uselessRecord() error {
	e.useless++
	if e.useless > maxUselessRecords {
		return alertErr(AlertUnexpectedMessage, ErrTooManyIgnored)
	}
	return nil
}

// readChangeCipherSpec drops the one-byte middlebox-compatibility CCS
// between ClientHello and the client Finished (RFC 8446, Section 5), once:
// a second one, or a record of two, is unexpected_message (the
// CVE-2020-25648 class).
func (e *Engine) readChangeCipherSpec(body []byte) error {
	hs := e.hs
	if len(body) != 1 || body[0] != 1 || e.done || hs == nil || !hs.sawCH || hs.ccsRead {
		return errUnexpectedMessage
	}
	hs.ccsRead = true
	return e.uselessRecord()
}

// readAlert handles an alert (RFC 8446, Section 6): close_notify closes the
// read side; user_canceled is ignored; everything else is fatal. A record
// carries exactly one alert (Section 5.1: alerts are never fragmented or
// coalesced); an empty or longer one is unexpected_message.
func (e *Engine) readAlert(body []byte) error {
	if len(body) != 2 {
		return errUnexpectedMessage
	}
	a := Alert(body[1])
	switch a {
	case AlertCloseNotify:
		e.peerClose = true
		return nil
	case AlertUserCanceled:
		return e.uselessRecord()
	}
	e.err = &AlertError{Alert: a, Received: true, Err: ErrPeerAlert}
	e.kuQ, e.closeQ = false, false
	return e.err
}

// readPostHandshake handles handshake messages after the handshake: only
// KeyUpdate is accepted (no post-handshake authentication, no tickets from
// a client). A message may be split across records; it is 5 bytes.
func (e *Engine) readPostHandshake(pt []byte) error {
	for len(pt) > 0 {
		n := copy(e.kuBuf[e.kuLen:], pt)
		e.kuLen += n
		pt = pt[n:]
		if e.kuBuf[0] != typeKeyUpdate {
			return alertErr(AlertUnexpectedMessage, ErrUnexpectedMessage)
		}
		if e.kuLen < len(e.kuBuf) {
			if e.kuLen >= 4 && (e.kuBuf[1] != 0 || e.kuBuf[2] != 0 || e.kuBuf[3] != 1) {
				return alertErr(AlertDecodeError, ErrDecode)
			}
			continue
		}
		e.kuLen = 0
		var m keyUpdateMsg
		if !m.unmarshal(e.kuBuf[:]) {
			if e.kuBuf[1] == 0 && e.kuBuf[2] == 0 && e.kuBuf[3] == 1 {
				return alertErr(AlertIllegalParameter, ErrIllegalParameter)
			}
			return alertErr(AlertDecodeError, ErrDecode)
		}
		if err := e.readKeyUpdate(&m); err != nil {
			return err
		}
		if len(pt) > 0 {
			// RFC 8446, Section 5.1: nothing may follow a key change in its record.
			return alertErr(AlertUnexpectedMessage, ErrUnexpectedMessage)
		}
	}
	return nil
}

// readKeyUpdate switches the read key and, when asked, queues our own
// KeyUpdate at once (RFC 8446, Section 4.6.3); several requests before our
// next write are answered by one KeyUpdate. A burst of maxKeyUpdatesInRow
// is processed before the anti-abuse limits apply.
func (e *Engine) readKeyUpdate(m *keyUpdateMsg) error {
	e.kuRow++
	if e.kuRow > maxKeyUpdatesInRow {
		return alertErr(AlertUnexpectedMessage, ErrTooManyKeyUpdates)
	}
	// At most maxKeyUpdatesPerSecond in any one second of Config.Now.
	if sec := e.cfg.now().Unix(); sec != e.kuSecond {
		e.kuSecond, e.kuCount = sec, 0
	}
	e.kuCount++
	if e.kuCount > maxKeyUpdatesPerSecond {
		return alertErr(AlertUnexpectedMessage, ErrTooManyKeyUpdates)
	}
	s := e.in.suite
	next := nextTrafficSecret(s.hash, e.in.secret[:e.in.secLen])
	if err := e.in.setTrafficSecret(s, next); err != nil {
		return err
	}
	if m.updateRequested && !e.closeSent {
		e.kuQ = true
	}
	return nil
}

// appendHandshakeRecords appends msgs (whole handshake messages) to the
// pending output as handshake records, protected when the write key is set.
func (e *Engine) appendHandshakeRecords(msgs []byte) error {
	hs := e.hs
	limit := e.sendLimit
	for len(msgs) > 0 {
		n := min(len(msgs), limit)
		if !e.out.keyed {
			hs.out = append(hs.out, recordTypeHandshake, 3, 3, byte(n>>8), byte(n))
			hs.out = append(hs.out, msgs[:n]...)
		} else {
			hdr := len(hs.out)
			hs.out = e.out.appendHeader(hs.out) // TLS 1.2 hook: may carry an explicit nonce
			hs.out = append(hs.out, msgs[:n]...)
			var err error
			if hs.out, err = e.out.sealInPlace(hs.out, hdr, recordTypeHandshake); err != nil {
				return err
			}
		}
		msgs = msgs[n:]
	}
	return nil
}

// keyLog writes one NSS key log line.
func (e *Engine) keyLog(label string, clientRandom, secret []byte) {
	w := e.cfg.KeyLog
	if w == nil {
		return
	}
	const hexd = "0123456789abcdef"
	b := make([]byte, 0, len(label)+2+2*len(clientRandom)+2*len(secret)+1)
	b = append(b, label...)
	b = append(b, ' ')
	for _, c := range clientRandom {
		b = append(b, hexd[c>>4], hexd[c&15])
	}
	b = append(b, ' ')
	for _, c := range secret {
		b = append(b, hexd[c>>4], hexd[c&15])
	}
	b = append(b, '\n')
	w.Write(b)
}

// SignRequest describes a pending CertificateVerify signature: call
// Key.Sign(rand, Digest, Opts) (Digest is the whole message for Ed25519)
// and hand the result to SignDone.
type SignRequest struct {
	Key    crypto.Signer
	Scheme SignatureScheme
	Digest []byte
	Opts   crypto.SignerOpts
}

// SignRequest returns the pending signature request (StatusWantSign), or
// nil. The request stays valid until SignDone.
func (e *Engine) SignRequest() *SignRequest {
	if e.hs == nil || e.hs.blockedOn() != StatusWantSign || e.err != nil {
		return nil
	}
	return &SignRequest{Key: e.hs.cert.Key, Scheme: e.hs.scheme, Digest: e.hs.signed, Opts: signerOpts(e.hs.scheme)}
}

// SignDone completes a StatusWantSign step with the signature (or the
// signing error, which fails the handshake with internal_error). The
// server's remaining flight is then pending output; call Read again to
// process any input that arrived meanwhile.
func (e *Engine) SignDone(sig []byte, err error) error {
	if e.err != nil {
		return e.err
	}
	if e.hs == nil || e.hs.blockedOn() != StatusWantSign {
		return ErrNoPendingOperation
	}
	if err != nil || len(sig) == 0 {
		return e.fail(alertErr(AlertInternalError, ErrInternal))
	}
	send := e.sendCertificateVerifyAndFinished
	if e.state.Version == VersionTLS12 { // TLS 1.2 hook: the signature is for ServerKeyExchange
		send = e.sendServerKeyExchange12
	}
	next, err := send(sig)
	if err != nil {
		return e.fail(err)
	}
	e.hs.state = next
	return nil
}

// VerifyRequest returns the client's chain and the options to verify it
// with (StatusWantVerify): run Chain[0].Verify(Opts) and pass the error to
// VerifyDone. It returns nil when nothing is pending.
func (e *Engine) VerifyRequest() (chain []*x509.Certificate, opts *x509.VerifyOptions) {
	if e.hs == nil || e.hs.blockedOn() != StatusWantVerify || e.err != nil {
		return nil, nil
	}
	return e.state.PeerCertificates, e.hs.verifyOpts()
}

// VerifyDone completes a StatusWantVerify step. A nil err accepts the chain;
// otherwise the handshake fails with the alert RFC 8446 Section 6.2 names
// for the error (unknown_ca, certificate_expired, bad_certificate).
func (e *Engine) VerifyDone(err error) error {
	if e.err != nil {
		return e.err
	}
	if e.hs == nil || e.hs.blockedOn() != StatusWantVerify {
		return ErrNoPendingOperation
	}
	if err != nil {
		return e.fail(verifyAlert(err))
	}
	e.state.VerifiedLeaf = e.state.PeerCertificates[0]
	e.hs.state = expectCertificateVerify{}
	if e.state.Version == VersionTLS12 { // TLS 1.2 hook: ClientKeyExchange precedes CertificateVerify
		e.hs.state = expectClientKeyExchange12{}
	}
	return nil
}
