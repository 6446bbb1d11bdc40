package tlsengine

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"testing"
)

// This file holds the tests of the protocol-edge rules of issue 17: each
// feeds a recorded (hand-built or crypto/tls-captured) client flight and
// asserts the exact alert and that the engine is closed afterwards.

// lastAlert returns the level and description of the last record in out,
// which must be an alert: plaintext, or sealed by e (opened with a copy of
// e.out one record back).
func lastAlert(t *testing.T, e *Engine, out []byte) (level uint8, a Alert) {
	t.Helper()
	var rec []byte
	for off := 0; off+recordHeaderLen <= len(out); {
		n := recordHeaderLen + int(binary.BigEndian.Uint16(out[off+3:]))
		if off+n > len(out) {
			t.Fatalf("output %x ends in a partial record", out)
		}
		rec = out[off : off+n]
		off += n
	}
	if rec == nil {
		t.Fatalf("output %x holds no record", out)
	}
	rec = bytes.Clone(rec)
	body := rec[recordHeaderLen:]
	if e.out.keyed {
		d := e.out
		d.seq--
		var err error
		var typ uint8
		if d.tls12 {
			typ = rec[0]
			body, err = d.open12(rec)
		} else {
			typ, body, err = d.openInPlace(rec)
		}
		if err != nil || typ != recordTypeAlert {
			t.Fatalf("last record %x: type %d, %v", rec, typ, err)
		}
	} else if rec[0] != recordTypeAlert {
		t.Fatalf("last record %x is not an alert", rec)
	}
	if len(body) != 2 {
		t.Fatalf("alert body %x", body)
	}
	return body[0], Alert(body[1])
}

// wantFatal checks that err is the sticky error that sent alert a, that
// the alert is the last record of out, and that the engine is closed: it
// asks for nothing more, and a further Read consumes nothing and returns
// the same error.
func wantFatal(t *testing.T, name string, e *Engine, err error, out []byte, a Alert) {
	t.Helper()
	wantAlertErr(t, name, err, a)
	if lvl, got := lastAlert(t, e, out); lvl != alertLevelFatal || got != a {
		t.Errorf("%s: last record is alert %d/%v, want fatal %v", name, lvl, got, a)
	}
	if st := e.Status(); st&StatusFailed == 0 || st&StatusNeedInput != 0 {
		t.Errorf("%s: status %b, want failed and no input wanted", name, st)
	}
	if n, _, err2 := e.Read([]byte{23, 3, 3, 0, 1, 0}, nil); n != 0 || err2 != err {
		t.Errorf("%s: Read after the failure consumed %d, err %v", name, n, err2)
	}
	if rest := e.AppendOutput(nil); len(rest) != 0 {
		t.Errorf("%s: output after the alert: %x", name, rest)
	}
}

// feedFatal feeds in to a fresh engine for cfg and checks for alert a.
func feedFatal(t *testing.T, name string, cfg *Config, in []byte, a Alert) {
	t.Helper()
	e := NewEngine(cfg)
	err, out := feedAll(e, in)
	wantFatal(t, name, e, err, out, a)
}

// x25519Hello is a crypto/tls TLS 1.3 ClientHello with one X25519 share.
func x25519Hello(t *testing.T) *clientHelloMsg {
	return parseClientHello(t, clientHelloRecord(t, nil))
}

// TestLegacyVersionBelowTLS12IsProtocolVersion: RFC 8446, Section 4.1.2
// and Appendix D: legacy_version below 0x0303 is refused even when
// supported_versions offers TLS 1.3.
func TestLegacyVersionBelowTLS12IsProtocolVersion(t *testing.T) {
	for _, v := range []uint16{0x0300, 0x0301, 0x0302} {
		m := x25519Hello(t)
		m.vers = v
		if m.supportedVersions[0] != versionTLS13 {
			t.Fatalf("captured supported_versions %x", m.supportedVersions)
		}
		feedFatal(t, "legacy_version", testConfig(t), handshakeRecord(m.appendTo(nil)), AlertProtocolVersion)
		cfg := testConfig(t)
		cfg.MinVersion = VersionTLS12
		feedFatal(t, "legacy_version with TLS 1.2 on", cfg, handshakeRecord(m.appendTo(nil)), AlertProtocolVersion)
	}
}

// p256Share is a valid uncompressed P-256 point.
func p256Share(t *testing.T) []byte {
	m := parseClientHello(t, clientHelloRecord(t, func(c *tls.Config) { c.CurvePreferences = []tls.CurveID{tls.CurveP256} }))
	return bytes.Clone(m.keyShares[0].data)
}

// TestKeyShareOfWrongShapeIsIllegalParameter: RFC 8446, Section 4.2.8: a
// key_exchange of the wrong length or form for its group, selected or not.
func TestKeyShareOfWrongShapeIsIllegalParameter(t *testing.T) {
	good := p256Share(t)
	compressed := append([]byte{2 + good[64]&1}, good[1:33]...)
	hybrid := append([]byte{6 + good[64]&1}, good[1:]...) // X9.62 hybrid form
	p256 := uint16(CurveP256)
	edits := []struct {
		name string
		edit func(m *clientHelloMsg)
	}{
		{"empty-x25519", func(m *clientHelloMsg) { m.keyShares[0].data = []byte{} }},
		{"long-x25519", func(m *clientHelloMsg) { m.keyShares[0].data = append(m.keyShares[0].data, 0) }},
		{"compressed-p256-alone", func(m *clientHelloMsg) {
			m.keyShares = []keyShare{{p256, compressed}}
		}},
		{"hybrid-p256-alone", func(m *clientHelloMsg) { m.keyShares = []keyShare{{p256, hybrid}} }},
		{"compressed-p256-beside-x25519", func(m *clientHelloMsg) {
			m.keyShares = append(m.keyShares, keyShare{p256, compressed})
		}},
		{"empty-p256-beside-x25519", func(m *clientHelloMsg) {
			m.keyShares = append(m.keyShares, keyShare{p256, []byte{}})
		}},
		{"short-p521", func(m *clientHelloMsg) {
			m.supportedGroups = append(m.supportedGroups, uint16(CurveP521))
			m.keyShares = append(m.keyShares, keyShare{uint16(CurveP521), good})
		}},
	}
	for _, tt := range edits {
		m := x25519Hello(t)
		m.supportedGroups = append(m.supportedGroups, p256)
		tt.edit(m)
		feedFatal(t, tt.name, testConfig(t), handshakeRecord(m.appendTo(nil)), AlertIllegalParameter)
	}
	// The good P-256 share beside X25519 is fine.
	m := x25519Hello(t)
	m.supportedGroups = append(m.supportedGroups, p256)
	m.keyShares = append(m.keyShares, keyShare{p256, good})
	if err, _ := feedAll(NewEngine(testConfig(t)), handshakeRecord(m.appendTo(nil))); err != nil {
		t.Errorf("good shares: %v", err)
	}
}

// TestP521IsNegotiated: secp521r1 in TLS 1.3 and 1.2 with a crypto/tls
// client, and off when CurvePreferences leaves it out.
func TestP521IsNegotiated(t *testing.T) {
	p := loadPKI(t)
	for _, v := range []uint16{tls.VersionTLS13, tls.VersionTLS12} {
		cc := clientConfig(p)
		cc.MinVersion, cc.MaxVersion = v, v
		cc.CurvePreferences = []tls.CurveID{tls.CurveP521}
		r, serr, e := runInterop(t, config12(p.p256), cc, feedWhole, echoMsgs[:1])
		if !wantOK(t, "p521", r, serr) {
			continue
		}
		if st := e.ConnectionState(); st.CurveID != CurveP521 || st.Version != v {
			t.Errorf("version %x: curve %x version %x", v, st.CurveID, st.Version)
		}
		cfg := config12(p.p256)
		cfg.CurvePreferences = []CurveID{X25519, CurveP256}
		r, serr, _ = runInterop(t, cfg, cc, feedWhole, echoMsgs[:1])
		wantAlert(t, "p521 disabled", r, serr, AlertHandshakeFailure)
	}
}

// paddedRecord seals content of inner type typ followed by pad zero bytes.
func paddedRecord(t testing.TB, peer *direction, typ uint8, content []byte, pad int) []byte {
	if pad == 0 {
		return peerRecord(t, peer, typ, content)
	}
	b := append([]byte{0, 0, 0, 0, 0}, content...)
	b = append(b, typ)
	b = append(b, make([]byte, pad-1)...)
	b, err := peer.sealInPlace(b, 0, 0) // the last padding byte
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestInnerPlaintextOverflowIsCheckedBeforePadding: RFC 8446, Sections 5.2
// and 5.4: content, type and padding together are at most 2^14+1 bytes.
func TestInnerPlaintextOverflowIsCheckedBeforePadding(t *testing.T) {
	for _, content := range []int{0, 1, 100, maxPlaintext} {
		for _, typ := range []uint8{recordTypeApplicationData, recordTypeAlert} {
			if typ == recordTypeAlert && content != 0 {
				continue
			}
			e, peer := establishedWithPeer(t)
			body := bytes.Repeat([]byte{'a'}, content)
			if typ == recordTypeAlert {
				body = []byte{alertLevelWarning, byte(AlertUserCanceled)}
			}
			pad := maxPlaintext + 2 - len(body) - 1 // one byte over
			_, _, err := e.Read(paddedRecord(t, peer, typ, body, pad), nil)
			wantFatal(t, "overflow", e, err, e.AppendOutput(nil), AlertRecordOverflow)
		}
	}
	// Exactly 2^14+1 bytes is fine, padded or not.
	for _, content := range []int{1, 100, maxPlaintext} {
		e, peer := establishedWithPeer(t)
		pad := maxPlaintext + 1 - content - 1
		_, p, err := e.Read(paddedRecord(t, peer, recordTypeApplicationData, bytes.Repeat([]byte{'a'}, content), pad), nil)
		if err != nil || len(p) != content {
			t.Errorf("content %d at the limit: %d bytes, %v", content, len(p), err)
		}
	}
}

// TestAlertRecordCarriesOneAlert: RFC 8446, Sections 5.1 and 6: an alert
// record holds exactly one two-byte alert.
func TestAlertRecordCarriesOneAlert(t *testing.T) {
	for _, body := range [][]byte{{}, {1}, {1, 90, 1}, {1, 90, 1, 90}} {
		// Plaintext, before the handshake.
		in := append([]byte{recordTypeAlert, 3, 3, 0, byte(len(body))}, body...)
		feedFatal(t, "plaintext alert", testConfig(t), in, AlertUnexpectedMessage)
		// Protected, after it.
		e, peer := establishedWithPeer(t)
		_, _, err := e.Read(peerRecord(t, peer, recordTypeAlert, body), nil)
		wantFatal(t, "protected alert", e, err, e.AppendOutput(nil), AlertUnexpectedMessage)
		// TLS 1.2.
		e12, to, _ := established12(t, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)
		_, _, err = e12.Read(peerRecord12(t, to, recordTypeAlert, body), nil)
		wantFatal(t, "tls12 alert", e12, err, e12.AppendOutput(nil), AlertUnexpectedMessage)
	}
}

var ccsRecord = []byte{recordTypeChangeCipherSpec, 3, 3, 0, 1, 1}

// TestOnlyOneChangeCipherSpecIsDropped: RFC 8446, Section 5 drops one
// compatibility change_cipher_spec; a second one, or two in one record, is
// unexpected_message (the CVE-2020-25648 class).
func TestOnlyOneChangeCipherSpecIsDropped(t *testing.T) {
	ch := clientHelloRecord(t, nil)
	in := append(bytes.Clone(ch), ccsRecord...)
	e := NewEngine(testConfig(t))
	if err, _ := feedAll(e, bytes.Clone(in)); err != nil {
		t.Fatalf("one CCS: %v", err)
	}
	feedFatal(t, "two CCS records", testConfig(t), append(bytes.Clone(in), ccsRecord...), AlertUnexpectedMessage)
	feedFatal(t, "two CCS in one record", testConfig(t), append(bytes.Clone(ch), 20, 3, 3, 0, 2, 1, 1), AlertUnexpectedMessage)
	feedFatal(t, "CCS of 2", testConfig(t), append(bytes.Clone(ch), 20, 3, 3, 0, 1, 2), AlertUnexpectedMessage)
	feedFatal(t, "empty CCS", testConfig(t), append(bytes.Clone(ch), 20, 3, 3, 0, 0), AlertUnexpectedMessage)

	// Across a HelloRetryRequest: CCS, ClientHello2, CCS.
	cfg, ch1, ch2 := helloRetryPair(t)
	e = NewEngine(cfg)
	if err, _ := feedAll(e, append(bytes.Clone(ch1), ccsRecord...)); err != nil {
		t.Fatalf("first ClientHello and CCS: %v", err)
	}
	err, out := feedAll(e, append(bytes.Clone(ch2), ccsRecord...))
	wantFatal(t, "CCS after HRR", e, err, out, AlertUnexpectedMessage)
}

// helloRetryPair returns a Config preferring P-256 and two ClientHello
// records: the first with only an X25519 share (drawing a
// HelloRetryRequest), the second equal to it but for a P-256 share.
func helloRetryPair(t *testing.T) (cfg *Config, ch1, ch2 []byte) {
	t.Helper()
	cfg = &Config{Certificates: []*Certificate{loadPKI(t).p256}, CurvePreferences: []CurveID{CurveP256}}
	ch1 = clientHelloRecord(t, func(c *tls.Config) { c.CurvePreferences = []tls.CurveID{tls.X25519, tls.CurveP256} })
	m := parseClientHello(t, ch1)
	m.keyShares = []keyShare{{uint16(CurveP256), p256Share(t)}}
	return cfg, ch1, handshakeRecord(m.appendTo(nil))
}

// fragments cuts a handshake message into plaintext records of n bytes.
func fragments(msg []byte, n int) [][]byte {
	var recs [][]byte
	for off := 0; off < len(msg); off += n {
		recs = append(recs, handshakeRecord(msg[off:min(off+n, len(msg))]))
	}
	return recs
}

// TestNoRecordInterleavesAHandshakeMessage: RFC 8446, Section 5.1:
// application data, even empty, between two fragments of a ClientHello or
// a KeyUpdate is unexpected_message.
func TestNoRecordInterleavesAHandshakeMessage(t *testing.T) {
	m := x25519Hello(t)
	m.earlyData = true
	frags := fragments(m.appendTo(nil), 100)
	for _, ad := range [][]byte{{23, 3, 3, 0, 0}, {23, 3, 3, 0, 1, 0}, plainAlert(AlertUserCanceled)} {
		in := append(bytes.Clone(frags[0]), ad...)
		for _, f := range frags[1:] {
			in = append(in, f...)
		}
		feedFatal(t, "ClientHello fragments", testConfig(t), in, AlertUnexpectedMessage)
	}

	// The second ClientHello: early data before it is skipped, inside it not.
	cfg, ch1, ch2 := helloRetryPair(t)
	m1 := parseClientHello(t, ch1)
	m1.earlyData = true
	fake := append([]byte{23, 3, 3, 0, 4}, 1, 2, 3, 4)
	frags = fragments(ch2[recordHeaderLen:], 16)
	e := NewEngine(cfg)
	if err, _ := feedAll(e, append(handshakeRecord(m1.appendTo(nil)), fake...)); err != nil {
		t.Fatalf("first ClientHello with early data: %v", err)
	}
	in := append(append(bytes.Clone(fake), frags[0]...), fake...)
	err, out := feedAll(e, in)
	wantFatal(t, "second ClientHello fragments", e, err, out, AlertUnexpectedMessage)

	// KeyUpdate fragments.
	for _, typ := range []uint8{recordTypeApplicationData, recordTypeAlert} {
		for _, body := range [][]byte{nil, []byte("x"), {alertLevelWarning, byte(AlertUserCanceled)}} {
			if (typ == recordTypeAlert) != (len(body) == 2) {
				continue
			}
			e, peer := establishedWithPeer(t)
			in := peerRecord(t, peer, recordTypeHandshake, []byte{typeKeyUpdate, 0})
			in = append(in, peerRecord(t, peer, typ, body)...)
			in = append(in, peerRecord(t, peer, recordTypeHandshake, []byte{0, 1, 0})...)
			_, _, err := e.Read(in, nil)
			wantFatal(t, "KeyUpdate fragments", e, err, e.AppendOutput(nil), AlertUnexpectedMessage)
		}
	}
}
