package tlsengine

import "strconv"

// Alert is a TLS alert description (RFC 8446, Section 6).
type Alert uint8

// Alert descriptions used by the engine (RFC 8446, Section 6; RFC 8449).
const (
	AlertCloseNotify                  Alert = 0
	AlertUnexpectedMessage            Alert = 10
	AlertBadRecordMAC                 Alert = 20
	AlertRecordOverflow               Alert = 22
	AlertHandshakeFailure             Alert = 40
	AlertBadCertificate               Alert = 42
	AlertUnsupportedCertificate       Alert = 43
	AlertCertificateRevoked           Alert = 44
	AlertCertificateExpired           Alert = 45
	AlertCertificateUnknown           Alert = 46
	AlertIllegalParameter             Alert = 47
	AlertUnknownCA                    Alert = 48
	AlertAccessDenied                 Alert = 49
	AlertDecodeError                  Alert = 50
	AlertDecryptError                 Alert = 51
	AlertProtocolVersion              Alert = 70
	AlertInsufficientSecurity         Alert = 71
	AlertInternalError                Alert = 80
	AlertInappropriateFallback        Alert = 86
	AlertUserCanceled                 Alert = 90
	AlertNoRenegotiation              Alert = 100 // RFC 5246, Section 7.2.2: a warning
	AlertMissingExtension             Alert = 109
	AlertUnsupportedExtension         Alert = 110
	AlertUnrecognizedName             Alert = 112
	AlertBadCertificateStatusResponse Alert = 113
	AlertUnknownPSKIdentity           Alert = 115
	AlertCertificateRequired          Alert = 116
	AlertNoApplicationProtocol        Alert = 120
)

const (
	alertLevelWarning = 1
	alertLevelFatal   = 2
)

var alertNames = map[Alert]string{
	AlertCloseNotify:            "close_notify",
	AlertUnexpectedMessage:      "unexpected_message",
	AlertBadRecordMAC:           "bad_record_mac",
	AlertRecordOverflow:         "record_overflow",
	AlertHandshakeFailure:       "handshake_failure",
	AlertBadCertificate:         "bad_certificate",
	AlertUnsupportedCertificate: "unsupported_certificate",
	AlertCertificateRevoked:     "certificate_revoked",
	AlertCertificateExpired:     "certificate_expired",
	AlertCertificateUnknown:     "certificate_unknown",
	AlertIllegalParameter:       "illegal_parameter",
	AlertUnknownCA:              "unknown_ca",
	AlertAccessDenied:           "access_denied",
	AlertDecodeError:            "decode_error",
	AlertDecryptError:           "decrypt_error",
	AlertProtocolVersion:        "protocol_version",
	AlertInsufficientSecurity:   "insufficient_security",
	AlertInternalError:          "internal_error",
	AlertInappropriateFallback:  "inappropriate_fallback",
	AlertUserCanceled:           "user_canceled",
	AlertNoRenegotiation:        "no_renegotiation",
	AlertMissingExtension:       "missing_extension",
	AlertUnsupportedExtension:   "unsupported_extension",
	AlertUnrecognizedName:       "unrecognized_name",
	AlertUnknownPSKIdentity:     "unknown_psk_identity",
	AlertCertificateRequired:    "certificate_required",
	AlertNoApplicationProtocol:  "no_application_protocol",
}

// String returns the RFC name of the alert.
func (a Alert) String() string {
	if s, ok := alertNames[a]; ok {
		return s
	}
	return "alert(" + strconv.Itoa(int(a)) + ")"
}

// AlertError is the sticky fatal error of an Engine. Alert is the alert sent
// to the peer (Received false) or the one the peer sent (Received true).
type AlertError struct {
	Alert    Alert
	Received bool
	Err      error
}

// Error returns the package-prefixed message with the alert name.
func (e *AlertError) Error() string {
	if e.Received {
		return e.Err.Error() + " (received " + e.Alert.String() + ")"
	}
	return e.Err.Error() + " (sent " + e.Alert.String() + ")"
}

// Unwrap returns the sentinel the error wraps.
func (e *AlertError) Unwrap() error { return e.Err }

// alertErr builds a fatal error that sends alert a; err is usually a sentinel
// from errors.go.
func alertErr(a Alert, err error) error {
	return &AlertError{Alert: a, Err: err}
}
