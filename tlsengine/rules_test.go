package tlsengine

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"slices"
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
		cfg := config12(loadPKI(t).p256)
		m.supportedVersions = []uint16{versionTLS13, VersionTLS12}
		feedFatal(t, "legacy_version with TLS 1.2 on", cfg, handshakeRecord(m.appendTo(nil)), AlertProtocolVersion)
		cfg.MaxVersion = VersionTLS12
		feedFatal(t, "legacy_version with TLS 1.2 only", cfg, handshakeRecord(m.appendTo(nil)), AlertProtocolVersion)
	}
	// When supported_versions picks TLS 1.2, legacy_version is not used
	// (Section 4.2.1; BoGo's ConflictingVersionNegotiation-2).
	m := clientHello12(t)
	m.vers, m.supportedVersions = 0x0302, []uint16{VersionTLS12}
	e := NewEngine(config12(loadPKI(t).p256))
	if err, _ := feedAll(e, handshakeRecord(m.appendTo(nil))); err != nil || e.ConnectionState().Version != VersionTLS12 {
		t.Errorf("TLS 1.2 from supported_versions: %v", err)
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
	// Under a record_size_limit of 4097 (RFC 8449, Section 4) the padding
	// counts too.
	for _, pad := range []int{0, 4096 - 100, 4096 - 100 + 1} {
		e, peer := establishedWithPeer(t)
		e.recvLimit = 4096
		_, _, err := e.Read(paddedRecord(t, peer, recordTypeApplicationData, make([]byte, 100), pad), nil)
		if over := pad > 4096-100; over {
			wantFatal(t, "over record_size_limit", e, err, e.AppendOutput(nil), AlertRecordOverflow)
		} else if err != nil {
			t.Errorf("padding %d under record_size_limit: %v", pad, err)
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
	cfg, ch1, ch2 := helloRetryPair(t, false)
	e = NewEngine(cfg)
	if err, _ := feedAll(e, append(bytes.Clone(ch1), ccsRecord...)); err != nil {
		t.Fatalf("first ClientHello and CCS: %v", err)
	}
	err, out := feedAll(e, append(bytes.Clone(ch2), ccsRecord...))
	wantFatal(t, "CCS after HRR", e, err, out, AlertUnexpectedMessage)
}

// helloRetryPair returns a Config preferring P-256 and two ClientHello
// records: the first with only an X25519 share (drawing a
// HelloRetryRequest) and, when early, early_data; the second equal to it
// but for a P-256 share, and without early_data.
func helloRetryPair(t *testing.T, early bool) (cfg *Config, ch1, ch2 []byte) {
	t.Helper()
	cfg = &Config{Certificates: []*Certificate{loadPKI(t).p256}, CurvePreferences: []CurveID{CurveP256}}
	ch1 = clientHelloRecord(t, func(c *tls.Config) { c.CurvePreferences = []tls.CurveID{tls.X25519, tls.CurveP256} })
	if early {
		m := parseClientHello(t, ch1)
		m.earlyData = true
		ch1 = handshakeRecord(m.appendTo(nil))
	}
	return cfg, ch1, handshakeRecord(retryHello(t, ch1[recordHeaderLen:], nil))
}

// retryHello derives from the ClientHello message ch1 the second one a
// client sends after a HelloRetryRequest for P-256: the share replaced,
// early_data dropped, then edit applied to the extensions in wire order.
func retryHello(t *testing.T, ch1 []byte, edit func([]rawExtension) []rawExtension) []byte {
	p256 := u16p(cat(appendU16(nil, uint16(CurveP256)), u16p(p256Share(t)...))...)
	return rebuildHello(t, ch1, nil, func(exts []rawExtension) []rawExtension {
		exts = slices.DeleteFunc(exts, func(x rawExtension) bool { return x.typ == extensionEarlyData })
		for i := range exts {
			if exts[i].typ == extensionKeyShare {
				exts[i].data = p256
			}
		}
		if edit != nil {
			exts = edit(exts)
		}
		return exts
	})
}

// rebuildHello re-encodes the ClientHello message msg with its fixed part
// replaced by fixed (when non-nil) and its extensions, in wire order,
// passed through edit; unlike clientHelloMsg.appendTo it keeps the order
// and the unknown extensions.
func rebuildHello(t testing.TB, msg, fixed []byte, edit func([]rawExtension) []rawExtension) []byte {
	t.Helper()
	f, exts, ok := splitClientHello(msg)
	if !ok {
		t.Fatalf("cannot split ClientHello %x", msg)
	}
	if fixed == nil {
		fixed = f
	}
	var list []byte
	for _, x := range edit(slices.Clone(exts)) {
		list = append(list, appendU16(nil, x.typ)...)
		list = append(list, appendU16(nil, uint16(len(x.data)))...)
		list = append(list, x.data...)
	}
	body := append(bytes.Clone(fixed), appendU16(nil, uint16(len(list)))...)
	body = append(body, list...)
	return append([]byte{typeClientHello, byte(len(body) >> 16), byte(len(body) >> 8), byte(len(body))}, body...)
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
	cfg, ch1, ch2 := helloRetryPair(t, true)
	frags = fragments(ch2[recordHeaderLen:], 16)
	e := NewEngine(cfg)
	if err, _ := feedAll(e, append(bytes.Clone(ch1), fakeEarly...)); err != nil {
		t.Fatalf("first ClientHello with early data: %v", err)
	}
	in := append(append(bytes.Clone(fakeEarly), frags[0]...), fakeEarly...)
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

// fakeEarly is a record as 0-RTT data looks to a server without the key.
var fakeEarly = []byte{23, 3, 3, 0, 21, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21}

// TestEarlyDataAfterHelloRetryRequest: RFC 8446, Section 4.2.10: refused
// early data is skipped in the first flight, up to the second ClientHello;
// after it, an undecryptable record is bad_record_mac, also when the second
// ClientHello kept early_data.
func TestEarlyDataAfterHelloRetryRequest(t *testing.T) {
	cfg, ch1, ch2 := helloRetryPair(t, true)
	for _, second := range [][]byte{ch2, withEarlyData(t, ch1, ch2)} {
		e := NewEngine(cfg)
		in := append(bytes.Clone(ch1), fakeEarly...)
		in = append(in, fakeEarly...)
		if err, out := feedAll(e, in); err != nil || len(out) == 0 {
			t.Fatalf("first flight with early data: %v", err)
		}
		if err, out := feedAll(e, bytes.Clone(second)); err != nil || len(out) == 0 {
			t.Fatalf("second ClientHello: %v", err)
		}
		err, out := feedAll(e, bytes.Clone(fakeEarly))
		wantFatal(t, "early data after the second ClientHello", e, err, out, AlertBadRecordMAC)
	}
	// Without early_data in the first ClientHello nothing is skipped, and
	// early_data added to the second (BoGo's
	// SkipEarlyData-SecondClientHelloEarlyData) is ignored: its data fails.
	cfg, ch1, _ = helloRetryPair(t, false)
	feedFatal(t, "no early_data", cfg, append(bytes.Clone(ch1), fakeEarly...), AlertUnexpectedMessage)
	added := retryHello(t, ch1[recordHeaderLen:], func(x []rawExtension) []rawExtension {
		return append(x, rawExtension{typ: extensionEarlyData})
	})
	e := NewEngine(cfg)
	feedAll(e, bytes.Clone(ch1))
	if err, out := feedAll(e, handshakeRecord(added)); err != nil || len(out) == 0 {
		t.Fatalf("second ClientHello with early_data added: %v", err)
	}
	err, out := feedAll(e, bytes.Clone(fakeEarly))
	wantFatal(t, "early data announced by the second ClientHello", e, err, out, AlertBadRecordMAC)
}

// withEarlyData returns ch2 with ch1's early_data extension put back at its
// place in ch1.
func withEarlyData(t *testing.T, ch1, ch2 []byte) []byte {
	_, e1, _ := splitClientHello(ch1[recordHeaderLen:])
	at := slices.IndexFunc(e1, func(x rawExtension) bool { return x.typ == extensionEarlyData })
	return handshakeRecord(rebuildHello(t, ch2[recordHeaderLen:], nil, func(exts []rawExtension) []rawExtension {
		return slices.Insert(exts, at, rawExtension{typ: extensionEarlyData})
	}))
}

// TestSecondClientHelloChangesAreIllegal: RFC 8446, Section 4.1.2: after a
// HelloRetryRequest only the share, early_data, cookie, pre_shared_key and
// padding may change; anything else, extension order included, is
// illegal_parameter.
func TestSecondClientHelloChangesAreIllegal(t *testing.T) {
	cfg, ch1, ch2 := helloRetryPair(t, false)
	msg1 := ch1[recordHeaderLen:]
	fixed, exts, _ := splitClientHello(msg1)
	ks := slices.IndexFunc(exts, func(x rawExtension) bool { return x.typ == extensionKeyShare })
	other := (ks + 1) % len(exts) // an extension beside key_share
	changes := []struct {
		name string
		msg  []byte
	}{
		{"extensions swapped", retryHello(t, msg1, func(x []rawExtension) []rawExtension {
			i := (other + 1) % len(x)
			if i == ks {
				i = (i + 1) % len(x)
			}
			x[other], x[i] = x[i], x[other]
			return x
		})},
		{"key_share moved", retryHello(t, msg1, func(x []rawExtension) []rawExtension {
			k := x[ks]
			x = slices.Delete(x, ks, ks+1)
			if ks == 0 {
				return append(x, k)
			}
			return slices.Insert(x, 0, k)
		})},
		{"extension dropped", retryHello(t, msg1, func(x []rawExtension) []rawExtension {
			return slices.Delete(x, other, other+1)
		})},
		{"extension added", retryHello(t, msg1, func(x []rawExtension) []rawExtension {
			return append(x, rawExtension{typ: 0x1234})
		})},
		{"supported_groups reordered", retryHello(t, msg1, func(x []rawExtension) []rawExtension {
			i := slices.IndexFunc(x, func(x rawExtension) bool { return x.typ == extensionSupportedGroups })
			x[i].data = u16p(0, 0x17, 0, 0x1d)
			return x
		})},
		{"random changed", rebuildHello(t, ch2[recordHeaderLen:], append(append([]byte{3, 3}, make([]byte, 32)...), fixed[34:]...),
			func(x []rawExtension) []rawExtension { return x })},
	}
	for _, tt := range changes {
		e := NewEngine(cfg)
		if err, _ := feedAll(e, bytes.Clone(ch1)); err != nil {
			t.Fatal(err)
		}
		err, out := feedAll(e, handshakeRecord(tt.msg))
		wantFatal(t, tt.name, e, err, out, AlertIllegalParameter)
	}
	// Padding may come, go or change size.
	padded := retryHello(t, msg1, func(x []rawExtension) []rawExtension {
		return append(x, rawExtension{typ: extensionPadding, data: make([]byte, 100)})
	})
	for _, second := range [][]byte{ch2, handshakeRecord(padded)} {
		e := NewEngine(cfg)
		feedAll(e, bytes.Clone(ch1))
		if err, _ := feedAll(e, bytes.Clone(second)); err != nil || e.hs.state != (expectFinished{}) {
			t.Errorf("allowed second ClientHello: %v", err)
		}
	}
}

// keyUpdates returns n KeyUpdate records from peer, each switching the
// peer's key after it; request asks for an answer.
func keyUpdates(t *testing.T, peer *direction, n int, request bool) []byte {
	var in []byte
	v := byte(0)
	if request {
		v = 1
	}
	for i := 0; i < n; i++ {
		in = append(in, peerRecord(t, peer, recordTypeHandshake, []byte{typeKeyUpdate, 0, 0, 1, v})...)
		peer.setTrafficSecret(peer.suite, nextTrafficSecret(peer.suite.hash, peer.secret[:peer.secLen]))
	}
	return in
}

// TestKeyUpdateBurstIsProcessed: RFC 8446, Section 4.6.3: 32 (and up to
// maxKeyUpdatesInRow) KeyUpdates in a row each switch the read key, and the
// requests among them draw one KeyUpdate; one more is refused.
func TestKeyUpdateBurstIsProcessed(t *testing.T) {
	for _, n := range []int{32, maxKeyUpdatesInRow} {
		e, peer := establishedWithPeer(t)
		outSecret := bytes.Clone(e.out.secret[:e.out.secLen])
		in := keyUpdates(t, peer, n/2, false)
		in = append(in, keyUpdates(t, peer, n-n/2, true)...)
		in = append(in, peerRecord(t, peer, recordTypeApplicationData, []byte("after"))...)
		_, p, err := e.Read(in, nil)
		if err != nil || string(p) != "after" {
			t.Fatalf("%d KeyUpdates: %q, %v", n, p, err)
		}
		out := e.AppendOutput(nil)
		check := new(direction)
		check.setTrafficSecret(e.out.suite, outSecret)
		if typ, pt, err := check.openInPlace(out); err != nil || typ != recordTypeHandshake ||
			!bytes.Equal(pt, []byte{typeKeyUpdate, 0, 0, 1, 0}) || len(out) != 5+5+recordOverhead13 {
			t.Errorf("%d KeyUpdates: answer %x (%v)", n, out, err)
		}
		// The next burst starts over after application data (within the
		// per-second limit, which is as large).
		if _, _, err := e.Read(keyUpdates(t, peer, maxKeyUpdatesPerSecond-n, false), nil); err != nil {
			t.Errorf("second burst after %d: %v", n, err)
		}
	}
	e, peer := establishedWithPeer(t)
	_, _, err := e.Read(keyUpdates(t, peer, maxKeyUpdatesInRow+1, false), nil)
	wantFatal(t, "KeyUpdate flood", e, err, e.AppendOutput(nil), AlertUnexpectedMessage)
	if !errors.Is(err, ErrTooManyKeyUpdates) {
		t.Errorf("flood: %v", err)
	}
}

// TestEngineUpdatesKeysBeforeTheAEADLimit: RFC 8446, Section 5.5: with the
// update point brought near (the test hook keyUpdateAfterRecords), a
// crypto/tls client sees our own KeyUpdates, and answers the ones that ask
// it to update its key, so that neither key protects more records.
func TestEngineUpdatesKeysBeforeTheAEADLimit(t *testing.T) {
	saved := keyUpdateAfterRecords
	keyUpdateAfterRecords = 3
	defer func() { keyUpdateAfterRecords = saved }()
	p := loadPKI(t)
	var msgs [][]byte
	for i := 0; i < 12; i++ {
		msgs = append(msgs, []byte{'a' + byte(i)})
	}
	r, serr, e := runInterop(t, &Config{Certificates: []*Certificate{p.p256}}, clientConfig(p), feedWhole, msgs)
	if !wantOK(t, "key updates", r, serr) {
		return
	}
	if e.in.seq > keyUpdateAfterRecords+1 || e.out.seq > keyUpdateAfterRecords+1 {
		t.Errorf("read seq %d, write seq %d: a key outlived the update point", e.in.seq, e.out.seq)
	}
}

// TestLargeClientHellosAreRead: ClientHellos up to the largest the encoding
// allows (RFC 8446, Section 4.1.2), spread over many records, are read;
// until complete they count in Buffered.
func TestLargeClientHellosAreRead(t *testing.T) {
	many := func(n int, real []uint16) []uint16 {
		l := make([]uint16, 0, n)
		for len(l) < n-len(real) {
			l = append(l, 0xfe00+uint16(len(l)%200)) // unknown values
		}
		return append(l, real...)
	}
	// padded adds a padding extension of n bytes, or (n < 0) one that
	// fills the extensions block to its 65,535 bytes.
	padded := func(m *clientHelloMsg, n int) []byte {
		return rebuildHello(t, m.appendTo(nil), nil, func(x []rawExtension) []rawExtension {
			if n < 0 {
				n = 0xffff - 4
				for _, e := range x {
					n -= 4 + len(e.data)
				}
			}
			return append(x, rawExtension{typ: extensionPadding, data: make([]byte, n)})
		})
	}
	hellos := map[string]func(m *clientHelloMsg) []byte{
		"32000 signature algorithms": func(m *clientHelloMsg) []byte {
			m.signatureAlgorithms = many(32000, m.signatureAlgorithms)
			return m.appendTo(nil)
		},
		"32000 cipher suites": func(m *clientHelloMsg) []byte {
			m.cipherSuites = many(32000, m.cipherSuites)
			return m.appendTo(nil)
		},
		"65000-byte padding": func(m *clientHelloMsg) []byte { return padded(m, 65000) },
		"both lists": func(m *clientHelloMsg) []byte {
			m.signatureAlgorithms = many(32000, m.signatureAlgorithms)
			m.cipherSuites = many(32000, m.cipherSuites)
			return m.appendTo(nil)
		},
		"suites and padding": func(m *clientHelloMsg) []byte {
			m.cipherSuites = many(32000, m.cipherSuites)
			return padded(m, 65000)
		},
		"largest": func(m *clientHelloMsg) []byte {
			m.cipherSuites = many(0xfffe/2, m.cipherSuites)
			return padded(m, -1)
		},
	}
	for name, build := range hellos {
		msg := build(x25519Hello(t))
		if name == "largest" && len(msg) < 128<<10 {
			t.Fatalf("%s: only %d bytes", name, len(msg))
		}
		recs := fragments(msg, maxPlaintext)
		e := NewEngine(testConfig(t))
		held := 0
		for _, rec := range recs[:len(recs)-1] {
			if _, _, err := e.Read(bytes.Clone(rec), nil); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			held += len(rec) - recordHeaderLen
			if e.Buffered() != held {
				t.Errorf("%s: Buffered %d, want %d", name, e.Buffered(), held)
			}
		}
		err, out := feedAll(e, bytes.Clone(recs[len(recs)-1]))
		if err != nil || len(out) == 0 || e.hs.state != (expectFinished{}) || e.Buffered() != 0 {
			t.Errorf("%s (%d bytes): %v, state %T, Buffered %d", name, len(msg), err, e.hs.state, e.Buffered())
		}
	}
}

// TestSecondClientHelloKeepsPreSharedKey: after a HelloRetryRequest the
// client may drop some PSKs but not the extension (missing_extension, as
// BoringSSL answers), nor add one (illegal_parameter).
func TestSecondClientHelloKeepsPreSharedKey(t *testing.T) {
	cfg, rec := resumingClientHello(t)
	cfg.CurvePreferences = []CurveID{CurveP256}
	msg := rec[recordHeaderLen:]
	if _, exts, _ := splitClientHello(msg); exts[len(exts)-1].typ != extensionPreSharedKey {
		t.Fatal("the resuming ClientHello lacks pre_shared_key")
	}
	e := NewEngine(cfg)
	if err, _ := feedAll(e, bytes.Clone(rec)); err != nil || e.hs.state != (expectClientHello{retried: true}) {
		t.Fatalf("first ClientHello: %v", err)
	}
	noPSK := retryHello(t, msg, func(x []rawExtension) []rawExtension { return x[:len(x)-1] })
	err, out := feedAll(e, handshakeRecord(noPSK))
	wantFatal(t, "pre_shared_key dropped", e, err, out, AlertMissingExtension)

	cfg2, ch1, _ := helloRetryPair(t, false)
	_, withPSK, _ := splitClientHello(msg)
	added := retryHello(t, ch1[recordHeaderLen:], func(x []rawExtension) []rawExtension { return append(x, withPSK[len(withPSK)-1]) })
	e = NewEngine(cfg2)
	feedAll(e, bytes.Clone(ch1))
	err, out = feedAll(e, handshakeRecord(added))
	wantFatal(t, "pre_shared_key added", e, err, out, AlertIllegalParameter)
}

// TestClientKeyNearItsLimitIsUpdated: at keyUpdateAfterRecords records
// under the client's key (any record, an empty one too) the engine sends a
// KeyUpdate asking the client to update (RFC 8446, Sections 4.6.3, 5.5).
func TestClientKeyNearItsLimitIsUpdated(t *testing.T) {
	e, peer := establishedWithPeer(t)
	e.in.seq, peer.seq = keyUpdateAfterRecords-1, keyUpdateAfterRecords-1
	outSecret := bytes.Clone(e.out.secret[:e.out.secLen])
	if _, _, err := e.Read(peerRecord(t, peer, recordTypeApplicationData, nil), nil); err != nil {
		t.Fatal(err)
	}
	out := e.AppendOutput(nil)
	check := new(direction)
	check.setTrafficSecret(e.out.suite, outSecret)
	if typ, pt, err := check.openInPlace(out); err != nil || typ != recordTypeHandshake || !bytes.Equal(pt, []byte{typeKeyUpdate, 0, 0, 1, 1}) {
		t.Errorf("at the limit: %x (%v), want KeyUpdate(update_requested)", out, err)
	}
}
