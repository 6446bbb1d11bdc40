package main

import (
	"errors"
	"strconv"
	"strings"

	"github.com/loopkv/loopkv/tlsengine"
)

// The runner passes BoringSSL's bssl_shim flags. Each one we understand is
// in flagKinds; any other makes the shim exit with exitUnimplemented, which
// the runner counts as "unimplemented" (a skip) under -allow-unimplemented.
// A flag may carry a prefix that limits it to one connection of the test:
// -on-initial- (the first), -on-resume- (every later one), -on-shim- (the
// shim, as opposed to a split-handshake handshaker) and -on-handshaker-
// (the handshaker, which we do not have: such flags are dropped).

type flagKind uint8

const (
	boolFlag   flagKind = iota
	valueFlag           // one argument
	listFlag            // one argument; repeatable, values accumulate
	ignoreBool          // understood, and nothing to do for tlsengine
	ignoreValue
)

// flagKinds lists the flags the shim implements (see settings.apply).
var flagKinds = map[string]flagKind{
	"-server":                          boolFlag,
	"-port":                            valueFlag,
	"-shim-id":                         valueFlag,
	"-ipv6":                            boolFlag,
	"-cert-file":                       valueFlag,
	"-key-file":                        valueFlag,
	"-new-x509-credential":             boolFlag,
	"-signing-prefs":                   listFlag,
	"-verify-prefs":                    listFlag,
	"-fips-202205":                     boolFlag,
	"-wpa-202304":                      boolFlag,
	"-cnsa1-202603":                    boolFlag,
	"-resume-count":                    valueFlag,
	"-min-version":                     valueFlag,
	"-max-version":                     valueFlag,
	"-no-tls1":                         ignoreBool, // never offered
	"-no-tls11":                        ignoreBool, // never offered
	"-no-tls12":                        boolFlag,
	"-no-tls13":                        boolFlag,
	"-expect-version":                  valueFlag,
	"-curves":                          listFlag,
	"-expect-curve-id":                 valueFlag,
	"-require-any-client-certificate":  boolFlag,
	"-verify-peer":                     boolFlag,
	"-verify-fail":                     boolFlag,
	"-shim-writes-first":               boolFlag,
	"-shim-shuts-down":                 boolFlag,
	"-check-close-notify":              boolFlag,
	"-expect-session-miss":             boolFlag,
	"-no-ticket":                       boolFlag,
	"-async":                           boolFlag,
	"-select-alpn":                     valueFlag,
	"-decline-alpn":                    boolFlag,
	"-reject-alpn":                     boolFlag,
	"-expect-alpn":                     valueFlag,
	"-expect-no-alpn":                  boolFlag,
	"-expect-server-name":              valueFlag,
	"-expect-no-server-name":           boolFlag,
	"-expect-cipher-aes":               valueFlag,
	"-expect-cipher-no-aes":            valueFlag,
	"-expect-extended-master-secret":   boolFlag,
	"-expect-peer-cert-file":           valueFlag,
	"-key-update":                      boolFlag,
	"-expect-verify-result":            boolFlag,
	"-expect-peer-signature-algorithm": valueFlag,
	"-expect-selected-credential":      valueFlag,
	"-expect-hrr":                      boolFlag,
	"-expect-no-hrr":                   boolFlag,
	// A custom verify callback decides as the default one does here: the
	// shim accepts the chain unless -verify-fail.
	"-use-custom-verify-callback": ignoreBool,
	// The runner's client certificate root: the shim's default verify
	// callback accepts any chain unless -verify-fail, so it is not needed.
	"-trust-cert": ignoreValue,
	// Our Read has no separate explicit handshake call, and returns whole
	// records whatever the buffer: these change nothing for tlsengine.
	"-implicit-handshake": ignoreBool,
	"-read-size":          ignoreValue,
	// Hint-mismatch tests compare the shim with a handshaker we do not run.
	"-allow-hint-mismatch": ignoreBool,
}

// exitUnimplemented is the exit status the runner reads as "this shim does
// not implement a flag the test needs".
const exitUnimplemented = 89

// errUnimplemented carries the flag that made the shim give up.
type errUnimplemented struct{ flag string }

func (e errUnimplemented) Error() string { return "bogoshim: unimplemented flag " + e.flag }

// credential is one certificate and its key, and the signature schemes it
// may sign with (-signing-prefs; none: all its key makes).
type credential struct {
	certFile, keyFile string
	prefs             []tlsengine.SignatureScheme
}

// settings are the flags as they apply to one connection.
type settings struct {
	server, ipv6       bool
	port               string
	policy             *policy                     // a compliance policy flag
	verifyPrefs        []tlsengine.SignatureScheme // -verify-prefs: what client signatures may use
	shimID             uint64
	creds              []credential // [0] is the default credential
	resumeCount        int
	minVersion         uint16
	maxVersion         uint16
	expectVersion      uint16
	curves             []uint16
	expectCurve        uint16
	requireClientCert  bool
	verifyPeer         bool
	verifyFail         bool
	writesFirst        bool
	shutsDown          bool
	checkCloseNotify   bool
	expectSessionMiss  bool
	noTicket           bool
	async              bool
	selectALPN         string
	declineALPN        bool
	rejectALPN         bool
	expectALPN         string
	expectNoALPN       bool
	expectServerName   string
	expectNoServerName bool
	expectAES          uint16 // the suite expected with AES hardware
	expectNoAES        uint16 // and without
	expectEMS          bool
	expectPeerCertFile string
	keyUpdate          bool
	expectVerifyResult bool
	expectPeerScheme   tlsengine.SignatureScheme
	expectCred         int // -1: the default credential, i: the i-th -new-x509-credential
	checkCred          bool
	certs              []*tlsengine.Certificate // built from creds (config), nil where a credential has no files
	expectHRR          bool
	expectNoHRR        bool
}

// args is the command line split by the connection it applies to.
type args struct {
	common, initial, resume [][2]string // name, value ("" for booleans)
}

// splitArgs sorts the command line by prefix and checks every flag name,
// so that an unknown flag is reported before anything starts.
func splitArgs(argv []string) (args, error) {
	var a args
	for i := 0; i < len(argv); i++ {
		name := argv[i]
		dst := &a.common
		switch {
		case strings.HasPrefix(name, "-on-initial-"):
			name, dst = "-"+strings.TrimPrefix(name, "-on-initial-"), &a.initial
		case strings.HasPrefix(name, "-on-resume-"):
			name, dst = "-"+strings.TrimPrefix(name, "-on-resume-"), &a.resume
		case strings.HasPrefix(name, "-on-shim-"):
			name = "-" + strings.TrimPrefix(name, "-on-shim-")
		case strings.HasPrefix(name, "-on-handshaker-"):
			name, dst = "-"+strings.TrimPrefix(name, "-on-handshaker-"), nil
		}
		kind, ok := flagKinds[name]
		if !ok {
			return a, errUnimplemented{argv[i]}
		}
		var value string
		if kind != boolFlag && kind != ignoreBool {
			if i+1 >= len(argv) {
				return a, errors.New("bogoshim: flag " + argv[i] + " needs a value")
			}
			i++
			value = argv[i]
		}
		if dst != nil && kind != ignoreBool && kind != ignoreValue {
			*dst = append(*dst, [2]string{name, value})
		}
	}
	return a, nil
}

// settingsFor returns the settings of connection i (0 is the initial one).
func (a args) settingsFor(i int) (*settings, error) {
	s := &settings{creds: []credential{{}}}
	extra := a.initial
	if i > 0 {
		extra = a.resume
	}
	for _, list := range [][][2]string{a.common, extra} {
		for _, f := range list {
			if err := s.apply(f[0], f[1]); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// apply sets one flag.
func (s *settings) apply(name, v string) error {
	cred := &s.creds[len(s.creds)-1]
	var err error
	switch name {
	case "-server":
		s.server = true
	case "-ipv6":
		s.ipv6 = true
	case "-port":
		s.port = v
	case "-shim-id":
		s.shimID, err = strconv.ParseUint(v, 10, 64)
	case "-cert-file":
		cred.certFile = v
	case "-key-file":
		cred.keyFile = v
	case "-new-x509-credential":
		s.creds = append(s.creds, credential{})
	case "-signing-prefs":
		var p uint16
		p, err = parseUint16(v)
		cred.prefs = append(cred.prefs, tlsengine.SignatureScheme(p))
	case "-verify-prefs":
		var p uint16
		p, err = parseUint16(v)
		s.verifyPrefs = append(s.verifyPrefs, tlsengine.SignatureScheme(p))
	case "-fips-202205", "-wpa-202304", "-cnsa1-202603":
		s.policy = policies[name]
	case "-resume-count":
		s.resumeCount, err = strconv.Atoi(v)
	case "-min-version":
		s.minVersion, err = parseUint16(v)
	case "-max-version":
		s.maxVersion, err = parseUint16(v)
	case "-no-tls12":
		s.minVersion = max(s.minVersion, 0x0304)
	case "-no-tls13":
		s.maxVersion = 0x0303
	case "-expect-version":
		s.expectVersion, err = parseUint16(v)
	case "-curves":
		var c uint16
		c, err = parseUint16(v)
		s.curves = append(s.curves, c)
	case "-expect-curve-id":
		s.expectCurve, err = parseUint16(v)
	case "-require-any-client-certificate":
		s.requireClientCert = true
	case "-verify-peer":
		s.verifyPeer = true
	case "-verify-fail":
		s.verifyFail = true
	case "-shim-writes-first":
		s.writesFirst = true
	case "-shim-shuts-down":
		s.shutsDown = true
	case "-check-close-notify":
		s.checkCloseNotify = true
	case "-expect-session-miss":
		s.expectSessionMiss = true
	case "-no-ticket":
		s.noTicket = true
	case "-async":
		s.async = true
	case "-select-alpn":
		s.selectALPN = v
	case "-decline-alpn":
		s.declineALPN = true
	case "-reject-alpn":
		s.rejectALPN = true
	case "-expect-alpn":
		s.expectALPN = v
	case "-expect-no-alpn":
		s.expectNoALPN = true
	case "-expect-server-name":
		s.expectServerName = v
	case "-expect-no-server-name":
		s.expectNoServerName = true
	case "-expect-cipher-aes":
		s.expectAES, err = parseUint16(v)
	case "-expect-cipher-no-aes":
		s.expectNoAES, err = parseUint16(v)
	case "-expect-extended-master-secret":
		s.expectEMS = true
	case "-expect-peer-cert-file":
		s.expectPeerCertFile = v
	case "-key-update":
		s.keyUpdate = true
	case "-expect-verify-result":
		s.expectVerifyResult = true
	case "-expect-peer-signature-algorithm":
		var p uint16
		p, err = parseUint16(v)
		s.expectPeerScheme = tlsengine.SignatureScheme(p)
	case "-expect-selected-credential":
		s.expectCred, err = strconv.Atoi(v)
		s.checkCred = true
	case "-expect-hrr":
		s.expectHRR = true
	case "-expect-no-hrr":
		s.expectNoHRR = true
	default:
		return errUnimplemented{name}
	}
	if err != nil {
		return errors.New("bogoshim: bad value for " + name + ": " + err.Error())
	}
	return nil
}

func parseUint16(v string) (uint16, error) {
	n, err := strconv.ParseUint(v, 10, 16)
	return uint16(n), err
}

// policy is one of BoringSSL's compliance policies as tlsengine can express
// it: the cipher suites, groups and signature schemes it allows. (The CNSA 2
// policy needs ML-KEM-1024, which tlsengine lacks: its flag stays
// unimplemented.)
type policy struct {
	suites  []uint16
	curves  []tlsengine.CurveID
	schemes []tlsengine.SignatureScheme
}

var policies = map[string]*policy{
	"-fips-202205": {
		suites: []uint16{tlsengine.TLS_AES_128_GCM_SHA256, tlsengine.TLS_AES_256_GCM_SHA384,
			tlsengine.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tlsengine.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
			tlsengine.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, tlsengine.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384},
		curves: []tlsengine.CurveID{tlsengine.CurveP256, tlsengine.CurveP384},
		schemes: []tlsengine.SignatureScheme{tlsengine.PKCS1WithSHA256, tlsengine.PKCS1WithSHA384, tlsengine.PKCS1WithSHA512,
			tlsengine.ECDSAWithP256AndSHA256, tlsengine.ECDSAWithP384AndSHA384,
			tlsengine.PSSWithSHA256, tlsengine.PSSWithSHA384, tlsengine.PSSWithSHA512},
	},
	"-wpa-202304": {
		suites: []uint16{tlsengine.TLS_AES_256_GCM_SHA384,
			tlsengine.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, tlsengine.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384},
		curves: []tlsengine.CurveID{tlsengine.CurveP384},
		schemes: []tlsengine.SignatureScheme{tlsengine.PKCS1WithSHA384, tlsengine.PKCS1WithSHA512,
			tlsengine.ECDSAWithP384AndSHA384, tlsengine.PSSWithSHA384, tlsengine.PSSWithSHA512},
	},
	"-cnsa1-202603": {
		suites: []uint16{tlsengine.TLS_AES_256_GCM_SHA384,
			tlsengine.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, tlsengine.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384},
		curves:  []tlsengine.CurveID{tlsengine.CurveP384},
		schemes: []tlsengine.SignatureScheme{tlsengine.PKCS1WithSHA384, tlsengine.ECDSAWithP384AndSHA384, tlsengine.PSSWithSHA384},
	},
}
