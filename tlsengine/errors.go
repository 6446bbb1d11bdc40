package tlsengine

import "errors"

// Sentinel errors. Fatal errors returned by the Engine wrap one of these in
// an *AlertError that names the alert sent to the peer (or received from it).
var (
	// ErrClosed is returned by every call on an Engine after Release.
	ErrClosed = errors.New("tlsengine: engine released")
	// ErrNotEstablished is returned by application-data calls before the handshake is done.
	ErrNotEstablished = errors.New("tlsengine: handshake not complete")
	// ErrNoPendingOperation is returned by SignDone and VerifyDone when nothing was asked for.
	ErrNoPendingOperation = errors.New("tlsengine: no pending operation")
	// ErrRecordOverflow means a record exceeded the RFC 8446 Section 5.1/5.2 size limits.
	ErrRecordOverflow = errors.New("tlsengine: record overflow")
	// ErrBadRecordMAC means a record failed AEAD authentication.
	ErrBadRecordMAC = errors.New("tlsengine: record authentication failed")
	// ErrUnexpectedMessage means a record or message arrived in the wrong state.
	ErrUnexpectedMessage = errors.New("tlsengine: unexpected message")
	// ErrDecode means a message could not be parsed.
	ErrDecode = errors.New("tlsengine: malformed message")
	// ErrIllegalParameter means a message was well-formed but carried a forbidden value.
	ErrIllegalParameter = errors.New("tlsengine: illegal parameter")
	// ErrHandshakeFailure means no acceptable set of parameters could be negotiated.
	ErrHandshakeFailure = errors.New("tlsengine: no acceptable parameters")
	// ErrProtocolVersion means the client does not offer TLS 1.3.
	ErrProtocolVersion = errors.New("tlsengine: unsupported protocol version")
	// ErrMissingExtension means a mandatory extension was absent.
	ErrMissingExtension = errors.New("tlsengine: missing mandatory extension")
	// ErrNoALPN means both sides configured ALPN protocols but none overlap.
	ErrNoALPN = errors.New("tlsengine: no application protocol in common")
	// ErrBadFinished means the client's Finished verify_data did not match.
	ErrBadFinished = errors.New("tlsengine: bad Finished verify data")
	// ErrBadBinder means a PSK binder did not verify.
	ErrBadBinder = errors.New("tlsengine: bad PSK binder")
	// ErrBadSignature means the client's CertificateVerify did not verify.
	ErrBadSignature = errors.New("tlsengine: bad CertificateVerify signature")
	// ErrCertificateRequired means client authentication is required and none was given.
	ErrCertificateRequired = errors.New("tlsengine: client certificate required")
	// ErrBadCertificate means the client's certificate could not be parsed or used.
	ErrBadCertificate = errors.New("tlsengine: bad client certificate")
	// ErrTooManyIgnored means too many empty, CCS, warning or skipped records in a row.
	ErrTooManyIgnored = errors.New("tlsengine: too many ignored records")
	// ErrTooManyKeyUpdates means the peer sent KeyUpdates faster than Config allows.
	ErrTooManyKeyUpdates = errors.New("tlsengine: too many KeyUpdate messages")
	// ErrMessageTooLarge means a handshake message exceeded its size limit.
	ErrMessageTooLarge = errors.New("tlsengine: handshake message too large")
	// ErrSequenceLimit means a direction's record sequence number is exhausted.
	ErrSequenceLimit = errors.New("tlsengine: record sequence number exhausted")
	// ErrInternal means a local failure (randomness, key generation, signing).
	ErrInternal = errors.New("tlsengine: internal error")
	// ErrNoExtendedMasterSecret means a TLS 1.2 client did not offer RFC 7627.
	ErrNoExtendedMasterSecret = errors.New("tlsengine: client lacks extended master secret")
	// ErrNoKeyUpdate is returned by KeyUpdate on a TLS 1.2 connection.
	ErrNoKeyUpdate = errors.New("tlsengine: KeyUpdate needs TLS 1.3")
	// ErrPeerAlert means the peer sent a fatal alert; AlertError.Alert names it.
	ErrPeerAlert = errors.New("tlsengine: received fatal alert")
)
