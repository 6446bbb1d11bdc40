package tlsengine

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"testing"
)

// clientHello12 captures a crypto/tls ClientHello pinned to TLS 1.2.
func clientHello12(t testing.TB) *clientHelloMsg {
	t.Helper()
	rec := clientHelloRecord(t, func(c *tls.Config) { c.MinVersion, c.MaxVersion = tls.VersionTLS12, tls.VersionTLS12 })
	return parseClientHello(t, rec)
}

// chEdits12 are TLS 1.2 ClientHello mutations and the alert each must draw
// (RFC 5246, Section 7.2; RFC 5746; RFC 7627; RFC 7507; RFC 8422).
var chEdits12 = []struct {
	name  string
	edit  func(m *clientHelloMsg)
	alert Alert
	err   error
}{
	{"cbc-suites-only", func(m *clientHelloMsg) {
		m.cipherSuites = []uint16{0xc009, 0xc00a, 0xc013, 0xc014, 0xc023, 0xc027} // ECDHE with AES-CBC
	}, AlertHandshakeFailure, ErrHandshakeFailure},
	{"rsa-key-exchange-only", func(m *clientHelloMsg) {
		m.cipherSuites = []uint16{0x009c, 0x009d, 0x002f, 0x0035, 0x000a} // RSA key transport
	}, AlertHandshakeFailure, ErrHandshakeFailure},
	{"static-dh-and-dhe-only", func(m *clientHelloMsg) {
		m.cipherSuites = []uint16{0x009e, 0x009f, 0x00a0, 0xc02d, 0xc031} // DHE, DH, ECDH
	}, AlertHandshakeFailure, ErrHandshakeFailure},
	{"no-extended-master-secret", func(m *clientHelloMsg) { m.extendedMasterSecret = false },
		AlertHandshakeFailure, ErrNoExtendedMasterSecret},
	{"renegotiation-info-not-empty", func(m *clientHelloMsg) {
		m.secureRenegotiationSupported, m.secureRenegotiation = true, bytes.Repeat([]byte{1}, 12)
	}, AlertHandshakeFailure, ErrHandshakeFailure},
	{"fallback-scsv", func(m *clientHelloMsg) { m.cipherSuites = append(m.cipherSuites, scsvFallback) },
		AlertInappropriateFallback, ErrProtocolVersion},
	{"no-null-compression", func(m *clientHelloMsg) { m.compressionMethods = []uint8{1} },
		AlertIllegalParameter, ErrIllegalParameter},
	{"no-null-compression-of-three", func(m *clientHelloMsg) { m.compressionMethods = []uint8{1, 64, 2} },
		AlertIllegalParameter, ErrIllegalParameter},
	{"no-signature-algorithms", func(m *clientHelloMsg) { m.signatureAlgorithms = nil },
		AlertHandshakeFailure, ErrHandshakeFailure},
	{"only-sha1-signatures", func(m *clientHelloMsg) { m.signatureAlgorithms = []uint16{0x0201, 0x0203} },
		AlertHandshakeFailure, ErrHandshakeFailure},
	{"no-common-group", func(m *clientHelloMsg) { m.supportedGroups = []uint16{0x001e, 0x0100} }, // x448, ffdhe2048
		AlertHandshakeFailure, ErrHandshakeFailure},
	{"compressed-points-only", func(m *clientHelloMsg) { m.supportedPoints = []uint8{1, 2} },
		AlertIllegalParameter, ErrIllegalParameter},
	{"legacy-version-tls11", func(m *clientHelloMsg) { m.vers, m.supportedVersions = 0x0302, nil },
		AlertProtocolVersion, ErrProtocolVersion},
	{"supported-versions-tls11-only", func(m *clientHelloMsg) { m.supportedVersions = []uint16{0x0302} },
		AlertProtocolVersion, ErrProtocolVersion},
}

func TestTLS12ClientHelloFailuresSendPrescribedAlert(t *testing.T) {
	base := clientHello12(t)
	if !base.extendedMasterSecret {
		t.Fatal("captured ClientHello lacks extended_master_secret")
	}
	for _, tt := range chEdits12 {
		m := *base
		tt.edit(&m)
		e := NewEngine(config12(loadPKI(t).p256, loadPKI(t).rsa))
		err, out := feedAll(e, handshakeRecord(m.appendTo(nil)))
		wantAlertErr(t, tt.name, err, tt.alert)
		if !errors.Is(err, tt.err) {
			t.Errorf("%s: err %v, want %v", tt.name, err, tt.err)
		}
		if !bytes.Equal(out, plainAlert(tt.alert)) {
			t.Errorf("%s: output %x, want only the alert", tt.name, out)
		}
	}
	// The unedited hello succeeds, with or without supported_versions (a
	// pre-RFC 8446 client): each failure above is its edit's doing.
	legacy := *base
	legacy.supportedVersions = nil
	for i, m := range []*clientHelloMsg{base, &legacy} {
		e := NewEngine(config12(loadPKI(t).p256))
		if err, out := feedAll(e, handshakeRecord(m.appendTo(nil))); err != nil || len(out) == 0 || e.ConnectionState().Version != VersionTLS12 {
			t.Errorf("unedited #%d: %v", i, err)
		}
	}
}

// TestTLS12RSAOnlySuitesNeedAnRSACertificate: a client offering only
// ECDHE_RSA suites to a server with only an ECDSA certificate fails.
func TestTLS12RSAOnlySuitesNeedAnRSACertificate(t *testing.T) {
	m := *clientHello12(t)
	m.cipherSuites = []uint16{TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}
	err, _ := feedAll(NewEngine(config12(loadPKI(t).p256)), handshakeRecord(m.appendTo(nil)))
	wantAlertErr(t, "rsa-suites-ecdsa-cert", err, AlertHandshakeFailure)
	err, _ = feedAll(NewEngine(config12(loadPKI(t).rsa)), handshakeRecord(m.appendTo(nil)))
	if err != nil {
		t.Errorf("rsa-suites-rsa-cert: %v", err)
	}
}

// established12 returns an Engine past a TLS 1.2 handshake with keys for
// suite in both directions, a peer that seals what the engine opens and a
// peer that opens what the engine seals.
func established12(t testing.TB, suite uint16) (e *Engine, toEngine, fromEngine *direction) {
	s := cipherSuite12ByID(suite)
	key := bytes.Repeat([]byte{0x42}, s.aead.keyLen)
	iv := bytes.Repeat([]byte{0x07}, s.ivLen)
	e = NewEngine(&Config{MinVersion: VersionTLS12})
	e.hs, e.done, e.state.Version, e.state.CipherSuite = nil, true, VersionTLS12, suite
	if err := e.in.setKeys12(s, key, iv); err != nil {
		t.Fatal(err)
	}
	if err := e.out.setKeys12(s, key, iv); err != nil {
		t.Fatal(err)
	}
	toEngine, fromEngine = new(direction), new(direction)
	*toEngine, *fromEngine = e.in, e.out
	return e, toEngine, fromEngine
}

// peerRecord12 seals one TLS 1.2 record of type typ from the peer.
func peerRecord12(t testing.TB, peer *direction, typ uint8, pt []byte) []byte {
	b, err := peer.seal12(append(peer.appendHeader(nil), pt...), 0, typ)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTLS12RecordsCarryExplicitNonces checks the wire format of sealed
// records: the header names the real content type, AES-GCM records carry
// the sequence number as their 8-byte explicit nonce (RFC 5288, Section 3)
// and ChaCha20-Poly1305 ones carry none (RFC 7905); the peer opens each.
func TestTLS12RecordsCarryExplicitNonces(t *testing.T) {
	for _, s := range cipherSuites12 {
		e, _, peer := established12(t, s.id)
		for seq := uint64(0); seq < 3; seq++ {
			out, err := e.AppendRecords(nil, []byte("PONG"))
			if err != nil {
				t.Fatal(err)
			}
			want := 5 + 4 + 16
			if s.explicitNonce() {
				want += 8
				if got := binary.BigEndian.Uint64(out[5:13]); got != seq {
					t.Errorf("%x: explicit nonce %d, want %d", s.id, got, seq)
				}
			}
			if len(out) != want || out[0] != recordTypeApplicationData || int(binary.BigEndian.Uint16(out[3:5])) != want-5 {
				t.Errorf("%x: record %x", s.id, out)
			}
			pt, err := peer.open12(out)
			if err != nil || string(pt) != "PONG" {
				t.Errorf("%x: peer opened %q, %v", s.id, pt, err)
			}
		}
		e.CloseNotify()
		out := e.AppendOutput(nil)
		if pt, err := peer.open12(out); err != nil || out[0] != recordTypeAlert || !bytes.Equal(pt, []byte{alertLevelWarning, 0}) {
			t.Errorf("%x: close_notify %x (%v)", s.id, out, err)
		}
	}
}

// recordFailures12 are protected records an established TLS 1.2 engine
// must refuse with the RFC 5246, Section 7.2 alert.
var recordFailures12 = []struct {
	name  string
	recs  func(t testing.TB, p *direction) []byte
	alert Alert
}{
	{"tampered", func(t testing.TB, p *direction) []byte {
		r := peerRecord12(t, p, recordTypeApplicationData, []byte("GET k"))
		r[len(r)-1] ^= 1
		return r
	}, AlertBadRecordMAC},
	{"replayed", func(t testing.TB, p *direction) []byte {
		r := peerRecord12(t, p, recordTypeApplicationData, []byte("GET k"))
		return append(r, r...)
	}, AlertBadRecordMAC},
	{"wrong-type-in-header", func(t testing.TB, p *direction) []byte {
		r := peerRecord12(t, p, recordTypeApplicationData, []byte("GET k"))
		r[0] = recordTypeAlert
		return r
	}, AlertBadRecordMAC},
	{"too-short", func(t testing.TB, p *direction) []byte { return []byte{23, 3, 3, 0, 3, 1, 2, 3} }, AlertBadRecordMAC},
	{"plaintext-over-2^14", func(t testing.TB, p *direction) []byte {
		return peerRecord12(t, p, recordTypeApplicationData, make([]byte, maxPlaintext+1))
	}, AlertRecordOverflow},
	{"change-cipher-spec-after-handshake", func(t testing.TB, p *direction) []byte {
		return peerRecord12(t, p, recordTypeChangeCipherSpec, []byte{1})
	}, AlertUnexpectedMessage},
	{"empty-handshake-fragment", func(t testing.TB, p *direction) []byte {
		return peerRecord12(t, p, recordTypeHandshake, nil)
	}, AlertUnexpectedMessage},
	{"too-many-empty-records", func(t testing.TB, p *direction) []byte {
		var in []byte
		for i := 0; i <= maxUselessRecords; i++ {
			in = append(in, peerRecord12(t, p, recordTypeApplicationData, nil)...)
		}
		return in
	}, AlertUnexpectedMessage},
}

func TestTLS12RecordFailures(t *testing.T) {
	for _, s := range []uint16{TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256} {
		for _, tt := range recordFailures12 {
			e, to, from := established12(t, s)
			_, _, err := e.Read(tt.recs(t, to), nil)
			wantAlertErr(t, tt.name, err, tt.alert)
			out := e.AppendOutput(nil)
			if pt, err := from.open12(out); err != nil || out[0] != recordTypeAlert || !bytes.Equal(pt, []byte{alertLevelFatal, byte(tt.alert)}) {
				t.Errorf("%s: alert record %x (%v)", tt.name, out, err)
			}
		}
	}
}

// TestTLS12RenegotiationIsRefused: a ClientHello after the handshake, whole
// or split across records, is answered with a warning no_renegotiation
// sealed under the connection keys, and the connection carries on (RFC
// 5246, Section 7.2.2; RFC 5746, Section 4.4). Another handshake message
// is unexpected_message; attempts in a row are bounded.
func TestTLS12RenegotiationIsRefused(t *testing.T) {
	ch := clientHello12(t).appendTo(nil)
	for _, cut := range []int{len(ch), 2, 4, 100} {
		e, to, from := established12(t, TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384)
		in := peerRecord12(t, to, recordTypeApplicationData, []byte("PING"))
		in = append(in, peerRecord12(t, to, recordTypeHandshake, ch[:cut])...)
		if cut < len(ch) {
			in = append(in, peerRecord12(t, to, recordTypeHandshake, ch[cut:])...)
		}
		in = append(in, peerRecord12(t, to, recordTypeApplicationData, []byte("PONG"))...)
		_, p, err := e.Read(in, nil)
		if err != nil || string(p) != "PINGPONG" {
			t.Fatalf("cut %d: %v, data %q", cut, err, p)
		}
		out := e.AppendOutput(nil)
		if pt, err := from.open12(out); err != nil || out[0] != recordTypeAlert || !bytes.Equal(pt, []byte{alertLevelWarning, byte(AlertNoRenegotiation)}) {
			t.Errorf("cut %d: alert record %x (%v)", cut, out, err)
		}
		if _, err := e.AppendRecords(nil, []byte("+OK")); err != nil || e.Status()&StatusFailed != 0 {
			t.Errorf("cut %d: connection did not carry on: %v", cut, err)
		}
	}
	e, to, _ := established12(t, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)
	_, _, err := e.Read(peerRecord12(t, to, recordTypeHandshake, (&finishedMsg{verifyData: make([]byte, 12)}).appendTo(nil)), nil)
	wantFatal(t, "finished after the handshake", e, err, e.AppendOutput(nil), AlertUnexpectedMessage)
	e, to, _ = established12(t, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)
	var in []byte
	for i := 0; i <= maxUselessRecords; i++ {
		in = append(in, peerRecord12(t, to, recordTypeHandshake, ch)...)
	}
	_, _, err = e.Read(in, nil)
	wantFatal(t, "renegotiation flood", e, err, e.AppendOutput(nil), AlertUnexpectedMessage)
}

func TestTLS12SequenceLimitAndNoKeyUpdate(t *testing.T) {
	e, _, _ := established12(t, TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256)
	if err := e.KeyUpdate(true); err != ErrNoKeyUpdate {
		t.Errorf("KeyUpdate: %v, want ErrNoKeyUpdate", err)
	}
	e.out.seq = keyUpdateAfterRecords
	if _, err := e.AppendRecords(nil, []byte("x")); err != nil || e.kuQ {
		t.Errorf("past the TLS 1.3 KeyUpdate point: %v, KeyUpdate queued %v", err, e.kuQ)
	}
	e.out.seq = maxSeq
	if _, err := e.AppendRecords(nil, []byte("x")); !errors.Is(err, ErrSequenceLimit) {
		t.Errorf("at the sequence limit: %v", err)
	}
	e2, to, _ := established12(t, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)
	e2.in.seq = maxSeq
	to.seq = maxSeq - 1
	if _, _, err := e2.Read(peerRecord12(t, to, recordTypeApplicationData, []byte("x")), nil); !errors.Is(err, ErrSequenceLimit) {
		t.Errorf("read at the sequence limit: %v", err)
	}
}

// outOfOrderTests12 put the engine in a mid-handshake state and send what
// does not belong there.
var outOfOrderTests12 = []struct {
	name  string
	st    state
	in    []byte
	alert Alert
}{
	{"finished-before-change-cipher-spec", expectChangeCipherSpec12{}, handshakeRecord((&finishedMsg{verifyData: make([]byte, 12)}).appendTo(nil)), AlertUnexpectedMessage},
	{"change-cipher-spec-before-key-exchange", expectClientKeyExchange12{}, []byte{20, 3, 3, 0, 1, 1}, AlertUnexpectedMessage},
	{"bad-change-cipher-spec", expectChangeCipherSpec12{}, []byte{20, 3, 3, 0, 1, 2}, AlertUnexpectedMessage},
	{"two-change-cipher-specs-in-one-record", expectChangeCipherSpec12{}, []byte{20, 3, 3, 0, 2, 1, 1}, AlertUnexpectedMessage},
	{"empty-change-cipher-spec", expectChangeCipherSpec12{}, []byte{20, 3, 3, 0, 0}, AlertUnexpectedMessage},
	{"application-data-before-finished", expectFinished12{}, []byte{23, 3, 3, 0, 1, 1}, AlertUnexpectedMessage},
	{"certificate-verify-without-certificate", expectClientKeyExchange12{}, handshakeRecord([]byte{15, 0, 0, 4, 4, 3, 0, 0}), AlertUnexpectedMessage},
}

func TestTLS12OutOfOrderHandshakeRecords(t *testing.T) {
	for _, tt := range outOfOrderTests12 {
		e := NewEngine(config12(loadPKI(t).p256))
		e.state.Version = VersionTLS12
		e.hs.state = tt.st
		e.hs.v12 = &handshake12{suite: cipherSuites12[0], master: make([]byte, 48)}
		err, out := feedAll(e, tt.in)
		wantAlertErr(t, tt.name, err, tt.alert)
		if !bytes.Equal(out, plainAlert(tt.alert)) {
			t.Errorf("%s: output %x", tt.name, out)
		}
	}
}

// TestTLS12RecordsAllocateNothing: sealing and opening application data
// allocate nothing in steady state, for every suite.
func TestTLS12RecordsAllocateNothing(t *testing.T) {
	for _, s := range cipherSuites12 {
		e, to, _ := established12(t, s.id)
		pt := bytes.Repeat([]byte{'a'}, 1024)
		if n := sealAllocs(t, e, pt); n != 0 {
			t.Errorf("%x: SealRecord %v allocs", s.id, n)
		}
		rec := peerRecord12(t, to, recordTypeApplicationData, pt)
		in := make([]byte, len(rec))
		if n := testing.AllocsPerRun(100, func() {
			copy(in, rec)
			e.in.seq = 0
			if _, p, err := e.Read(in, nil); err != nil || len(p) != len(pt) {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%x: Read %v allocs", s.id, n)
		}
	}
}

// TestTLS12AfterHelloRetryRequestIsIllegal: a second ClientHello that
// drops to TLS 1.2 after a HelloRetryRequest is illegal_parameter (RFC
// 8446, Section 4.1.2: it must equal the first but for the share).
func TestTLS12AfterHelloRetryRequestIsIllegal(t *testing.T) {
	m := parseClientHello(t, clientHelloRecord(t, func(c *tls.Config) {
		c.MinVersion, c.CurvePreferences = tls.VersionTLS12, []tls.CurveID{tls.CurveP521, tls.CurveP256}
	}))
	m.keyShares = slices.DeleteFunc(m.keyShares, func(ks keyShare) bool { return ks.group != 0x0019 }) // P-521 only
	cfg := config12(loadPKI(t).p256)
	cfg.CurvePreferences = []CurveID{X25519, CurveP256}
	e := NewEngine(cfg)
	if err, out := feedAll(e, handshakeRecord(m.appendTo(nil))); err != nil || len(out) == 0 || e.hs.state != (expectClientHello{retried: true}) {
		t.Fatalf("first ClientHello: %v, state %T", err, e.hs.state)
	}
	ch2 := clientHello12(t)
	err, _ := feedAll(e, handshakeRecord(ch2.appendTo(nil)))
	wantAlertErr(t, "tls12-after-hrr", err, AlertIllegalParameter)
}

// cipherPrefTests: the server's order wins, except that ChaCha20 moves
// first when the client ranks it first (or the CPU lacks AES hardware);
// Config.CipherSuites restricts TLS 1.2 only when it lists 1.2 suites.
var cipherPrefTests = []struct {
	server, client []uint16
	want           uint16 // with AES hardware
}{
	{nil, []uint16{0xc02b, 0xcca9, 0xc02c}, 0xc02b},
	{nil, []uint16{0xcca9, 0xc02b}, 0xcca9},
	{nil, []uint16{0xc02c, 0xc02b}, 0xc02b},
	{[]uint16{TLS_AES_128_GCM_SHA256}, []uint16{0xc02c}, 0xc02c},
	{[]uint16{0xc02c, 0xc02b}, []uint16{0xc02b, 0xc02c}, 0xc02c},
	{[]uint16{0xc02f}, []uint16{0xc02b, 0xc02f}, 0}, // RSA suite, ECDSA certificate only
}

func TestTLS12CipherSuitePreference(t *testing.T) {
	base := clientHello12(t)
	for i, tt := range cipherPrefTests {
		m := *base
		m.cipherSuites = tt.client
		cfg := config12(loadPKI(t).p256)
		cfg.CipherSuites = tt.server
		e := NewEngine(cfg)
		err, _ := feedAll(e, handshakeRecord(m.appendTo(nil)))
		want := tt.want
		if !hasAESHardware && want != 0 && slices.Contains(tt.client, TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256) &&
			slices.Contains(cfg.cipherSuites12(), TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256) {
			want = TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256
		}
		if want == 0 {
			wantAlertErr(t, fmt.Sprint("#", i), err, AlertHandshakeFailure)
			continue
		}
		if err != nil || e.ConnectionState().CipherSuite != want {
			t.Errorf("#%d: suite %x err %v, want %x", i, e.ConnectionState().CipherSuite, err, want)
		}
	}
}

// TestCipherSuitesListMixesVersions checks that one CipherSuites list may
// name suites of both versions: each version uses its own, and a list of
// only TLS 1.2 suites leaves TLS 1.3 on its defaults.
func TestCipherSuitesListMixesVersions(t *testing.T) {
	only12 := &Config{CipherSuites: []uint16{TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}}
	if got := only12.cipherSuites(); len(got) != len(defaultCipherSuites) {
		t.Errorf("1.3 suites from a 1.2-only list = %x, want the defaults", got)
	}
	mixed := &Config{CipherSuites: []uint16{TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, TLS_CHACHA20_POLY1305_SHA256}}
	if got := mixed.cipherSuites(); len(got) != 1 || got[0] != TLS_CHACHA20_POLY1305_SHA256 {
		t.Errorf("1.3 suites from a mixed list = %x", got)
	}
	if got := mixed.cipherSuites12(); len(got) != 1 || got[0] != TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 {
		t.Errorf("1.2 suites from a mixed list = %x", got)
	}
}
