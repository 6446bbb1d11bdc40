package tlsengine

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"testing"
)

// clientHelloRecord captures a crypto/tls ClientHello record for ccfg.
func clientHelloRecord(t testing.TB, edit func(*tls.Config)) []byte {
	t.Helper()
	cc := clientConfig(loadPKI(t))
	cc.CurvePreferences = []tls.CurveID{tls.X25519}
	if edit != nil {
		edit(cc)
	}
	return captureClientHello(t, cc)
}

// parseClientHello decodes a ClientHello record into a message that owns its bytes.
func parseClientHello(t testing.TB, rec []byte) *clientHelloMsg {
	t.Helper()
	m := new(clientHelloMsg)
	if !m.unmarshal(bytes.Clone(rec[5:])) {
		t.Fatal("cannot parse captured ClientHello")
	}
	return m
}

// handshakeRecord wraps one handshake message in a plaintext record.
func handshakeRecord(msg []byte) []byte {
	return append([]byte{recordTypeHandshake, 3, 1, byte(len(msg) >> 8), byte(len(msg))}, msg...)
}

func plainAlert(a Alert) []byte { return []byte{recordTypeAlert, 3, 3, 0, 2, alertLevelFatal, byte(a)} }

func testConfig(t testing.TB) *Config {
	return &Config{Certificates: []*Certificate{loadPKI(t).p256}}
}

// feedAll runs Read over in and returns the error and the output bytes.
func feedAll(e *Engine, in []byte) (error, []byte) {
	_, _, err := e.Read(in, nil)
	return err, e.AppendOutput(nil)
}

func wantAlertErr(t *testing.T, name string, err error, a Alert) {
	t.Helper()
	var ae *AlertError
	if !errors.As(err, &ae) || ae.Alert != a || ae.Received {
		t.Errorf("%s: err %v, want sent alert %v", name, err, a)
	}
}

// chEdits are ClientHello mutations and the alert each must draw (RFC 8446, Section 6).
var chEdits = []struct {
	name  string
	edit  func(m *clientHelloMsg)
	alert Alert
}{
	{"no-supported-versions", func(m *clientHelloMsg) { m.supportedVersions = nil }, AlertProtocolVersion},
	{"tls12-only", func(m *clientHelloMsg) { m.supportedVersions = []uint16{0x0303} }, AlertProtocolVersion},
	{"compression", func(m *clientHelloMsg) { m.compressionMethods = []uint8{1, 0} }, AlertIllegalParameter},
	{"no-common-suite", func(m *clientHelloMsg) { m.cipherSuites = []uint16{0x009c} }, AlertHandshakeFailure},
	{"no-key-share", func(m *clientHelloMsg) { m.keyShares = nil }, AlertMissingExtension},
	{"no-supported-groups", func(m *clientHelloMsg) { m.supportedGroups = nil }, AlertMissingExtension},
	{"no-signature-algorithms", func(m *clientHelloMsg) { m.signatureAlgorithms = nil }, AlertMissingExtension},
	{"share-not-in-groups", func(m *clientHelloMsg) { m.supportedGroups = []uint16{uint16(CurveP256)} }, AlertIllegalParameter},
	{"no-common-group", func(m *clientHelloMsg) {
		m.supportedGroups, m.keyShares = []uint16{0x001e}, []keyShare{{0x001e, make([]byte, 56)}} // x448
	}, AlertHandshakeFailure},
	{"bad-x25519-share", func(m *clientHelloMsg) { m.keyShares[0].data = m.keyShares[0].data[:31] }, AlertIllegalParameter},
	{"no-common-signature", func(m *clientHelloMsg) { m.signatureAlgorithms = []uint16{0x0201} }, AlertHandshakeFailure},
	{"renegotiation-info", func(m *clientHelloMsg) {
		m.secureRenegotiationSupported, m.secureRenegotiation = true, []byte{1}
	}, AlertHandshakeFailure},
}

func TestClientHelloFailuresSendPrescribedAlert(t *testing.T) {
	rec := clientHelloRecord(t, nil)
	for _, tt := range chEdits {
		m := parseClientHello(t, rec)
		tt.edit(m)
		e := NewEngine(testConfig(t))
		err, out := feedAll(e, handshakeRecord(m.appendTo(nil)))
		wantAlertErr(t, tt.name, err, tt.alert)
		if !bytes.Equal(out, plainAlert(tt.alert)) {
			t.Errorf("%s: output %x, want the %v alert record", tt.name, out, tt.alert)
		}
		if e.Status()&StatusFailed == 0 {
			t.Errorf("%s: status %b lacks StatusFailed", tt.name, e.Status())
		}
	}
}

func TestTLS12OnlyClientGetsProtocolVersion(t *testing.T) {
	rec := clientHelloRecord(t, func(c *tls.Config) { c.MinVersion, c.MaxVersion = tls.VersionTLS12, tls.VersionTLS12 })
	e := NewEngine(testConfig(t))
	err, out := feedAll(e, rec)
	wantAlertErr(t, "tls12", err, AlertProtocolVersion)
	if !bytes.Equal(out, plainAlert(AlertProtocolVersion)) {
		t.Errorf("output %x", out)
	}
}

// recordFailures are raw inputs before any handshake and their alerts.
var recordFailures = []struct {
	name  string
	in    []byte
	alert Alert
}{
	{"unknown-type", []byte{0x99, 3, 3, 0, 1, 0}, AlertUnexpectedMessage},
	{"sslv2-hello", []byte{0x80, 0x2e, 1, 3, 1, 0, 0x15}, AlertUnexpectedMessage},
	{"bad-major-version", []byte{22, 2, 0, 0, 1, 1}, AlertProtocolVersion},
	{"ciphertext-overflow", []byte{23, 3, 3, 0x41, 0x01}, AlertRecordOverflow},
	{"plaintext-overflow", append([]byte{22, 3, 3, 0x40, 0x01}, make([]byte, 1<<14+1)...), AlertRecordOverflow},
	{"appdata-before-handshake", []byte{23, 3, 3, 0, 1, 0}, AlertUnexpectedMessage},
	{"empty-appdata-before-handshake", []byte{23, 3, 3, 0, 0}, AlertUnexpectedMessage},
	{"ccs-before-hello", []byte{20, 3, 3, 0, 1, 1}, AlertUnexpectedMessage},
	{"wrong-first-message", handshakeRecord([]byte{typeFinished, 0, 0, 1, 0}), AlertUnexpectedMessage},
	{"truncated-hello", handshakeRecord([]byte{typeClientHello, 0, 0, 3, 3, 3, 0}), AlertDecodeError},
	{"empty-handshake-record", []byte{22, 3, 1, 0, 0}, AlertUnexpectedMessage},
	{"ccs-inside-fragmented-hello", []byte{22, 3, 1, 0, 2, 1, 0, 20, 3, 3, 0, 1, 1}, AlertUnexpectedMessage},
	{"huge-hello", handshakeRecord([]byte{typeClientHello, 4, 0, 1}), AlertDecodeError},
}

func TestMalformedRecordsSendPrescribedAlert(t *testing.T) {
	for _, tt := range recordFailures {
		e := NewEngine(testConfig(t))
		err, out := feedAll(e, tt.in)
		wantAlertErr(t, tt.name, err, tt.alert)
		if !bytes.Equal(out, plainAlert(tt.alert)) {
			t.Errorf("%s: output %x", tt.name, out)
		}
	}
}

func TestTruncatedClientHelloRecordsNeedInput(t *testing.T) {
	rec := clientHelloRecord(t, nil)
	for i := 0; i < len(rec); i++ {
		e := NewEngine(testConfig(t))
		c, _, err := e.Read(bytes.Clone(rec[:i]), nil)
		if c != 0 || err != nil || e.Status()&StatusNeedInput == 0 || e.hasOutput() {
			t.Fatalf("prefix %d: consumed %d err %v status %b", i, c, err, e.Status())
		}
	}
}

func TestFatalErrorIsSticky(t *testing.T) {
	e := NewEngine(testConfig(t))
	err1, out1 := feedAll(e, []byte{0x99, 3, 3, 0, 0})
	_, _, err2 := e.Read(clientHelloRecord(t, nil), nil)
	out2 := e.AppendOutput(nil)
	if err1 == nil || err2 != err1 || len(out1) != 7 || len(out2) != 0 {
		t.Errorf("err1 %v err2 %v out1 %x out2 %x", err1, err2, out1, out2)
	}
	if e.KeyUpdate(false) != err1 {
		t.Error("KeyUpdate after failure does not return the sticky error")
	}
}

func TestReceivedFatalAlertIsReported(t *testing.T) {
	e := NewEngine(testConfig(t))
	_, _, err := e.Read(plainAlert(AlertHandshakeFailure), nil)
	var ae *AlertError
	if !errors.As(err, &ae) || !ae.Received || ae.Alert != AlertHandshakeFailure || e.hasOutput() {
		t.Errorf("err %v, output pending %v", err, e.hasOutput())
	}
}

// establishedPair returns an engine with app keys and a peer direction that
// seals what the engine opens.
func establishedWithPeer(t testing.TB) (*Engine, *direction) {
	e := newEstablishedPair(t, TLS_AES_128_GCM_SHA256)
	peer := new(direction)
	*peer = e.in
	return e, peer
}

// peerRecord seals one record of inner type typ from the peer.
func peerRecord(t testing.TB, peer *direction, typ uint8, pt []byte) []byte {
	b := append([]byte{0, 0, 0, 0, 0}, pt...)
	b, err := peer.sealInPlace(b, 0, typ)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// postHandshakeFailures are peer records after the handshake and their alerts.
var postHandshakeFailures = []struct {
	name  string
	recs  func(t testing.TB, peer *direction) []byte
	alert Alert
}{
	{"too-many-empty-records", func(t testing.TB, p *direction) []byte {
		var in []byte
		for i := 0; i <= maxUselessRecords; i++ {
			in = append(in, peerRecord(t, p, recordTypeApplicationData, nil)...)
		}
		return in
	}, AlertUnexpectedMessage},
	{"too-many-warning-alerts", func(t testing.TB, p *direction) []byte {
		var in []byte
		for i := 0; i <= maxUselessRecords; i++ {
			in = append(in, peerRecord(t, p, recordTypeAlert, []byte{alertLevelWarning, byte(AlertUserCanceled)})...)
		}
		return in
	}, AlertUnexpectedMessage},
	{"two-alerts-in-one-record", func(t testing.TB, p *direction) []byte {
		return peerRecord(t, p, recordTypeAlert, []byte{1, 90, 1, 90})
	}, AlertUnexpectedMessage},
	{"data-after-keyupdate-in-record", func(t testing.TB, p *direction) []byte {
		return peerRecord(t, p, recordTypeHandshake, []byte{typeKeyUpdate, 0, 0, 1, 0, typeKeyUpdate, 0, 0, 1, 0})
	}, AlertUnexpectedMessage},
	{"bad-record-mac", func(t testing.TB, p *direction) []byte {
		r := peerRecord(t, p, recordTypeApplicationData, []byte("hi"))
		r[len(r)-1] ^= 1
		return r
	}, AlertBadRecordMAC},
	{"plaintext-overflow", func(t testing.TB, p *direction) []byte {
		return peerRecord(t, p, recordTypeApplicationData, make([]byte, maxPlaintext+1))
	}, AlertRecordOverflow},
	{"client-hello-after-handshake", func(t testing.TB, p *direction) []byte {
		return peerRecord(t, p, recordTypeHandshake, []byte{typeClientHello, 0, 0, 0})
	}, AlertUnexpectedMessage},
	{"keyupdate-bad-value", func(t testing.TB, p *direction) []byte {
		return peerRecord(t, p, recordTypeHandshake, []byte{typeKeyUpdate, 0, 0, 1, 2})
	}, AlertIllegalParameter},
	{"keyupdate-bad-length", func(t testing.TB, p *direction) []byte {
		return peerRecord(t, p, recordTypeHandshake, []byte{typeKeyUpdate, 0, 0, 2, 0, 0})
	}, AlertDecodeError},
	{"ccs-after-handshake", func(t testing.TB, p *direction) []byte { return []byte{20, 3, 3, 0, 1, 1} }, AlertUnexpectedMessage},
	{"plaintext-handshake", func(t testing.TB, p *direction) []byte { return handshakeRecord([]byte{typeKeyUpdate, 0, 0, 1, 0}) }, AlertUnexpectedMessage},
	{"no-content-type", func(t testing.TB, p *direction) []byte {
		b := append([]byte{23, 3, 3, 0, 0}, make([]byte, 4)...)
		b = b[:5]
		b = append(b, 0, 0, 0)
		b[3], b[4] = 0, byte(3+aeadTagLen)
		p.makeNonce()
		b = p.aead.Seal(b[:5], p.nonce[:], b[5:8], b[:5])
		p.seq++
		return b
	}, AlertUnexpectedMessage},
}

func TestPostHandshakeFailures(t *testing.T) {
	for _, tt := range postHandshakeFailures {
		e, peer := establishedWithPeer(t)
		_, _, err := e.Read(tt.recs(t, peer), nil)
		wantAlertErr(t, tt.name, err, tt.alert)
		out := e.AppendOutput(nil)
		if len(out) != 5+2+1+aeadTagLen || out[0] != recordTypeApplicationData {
			t.Errorf("%s: output %x, want one protected alert record", tt.name, out)
		}
	}
}

func TestKeyUpdateRequestedIsAnsweredAtOnce(t *testing.T) {
	e, peer := establishedWithPeer(t)
	secret := bytes.Clone(e.in.secret[:e.in.secLen])
	in := peerRecord(t, peer, recordTypeHandshake, []byte{typeKeyUpdate, 0, 0, 1, 1})
	// The peer switches its keys after sending KeyUpdate.
	next := nextTrafficSecret(peer.suite.hash, secret)
	peer.setTrafficSecret(peer.suite, next)
	in = append(in, peerRecord(t, peer, recordTypeApplicationData, []byte("after"))...)
	_, p, err := e.Read(in, nil)
	if err != nil || string(p) != "after" {
		t.Fatalf("Read: %q, %v", p, err)
	}
	if e.Status()&StatusHasOutput == 0 {
		t.Fatal("no KeyUpdate queued in answer to update_requested")
	}
	out := e.AppendOutput(nil)
	// Open our answer with the old server secret: a KeyUpdate, not requested.
	check := new(direction)
	check.setTrafficSecret(peer.suite, secret)
	typ, pt, err := check.openInPlace(out)
	if err != nil || typ != recordTypeHandshake || !bytes.Equal(pt, []byte{typeKeyUpdate, 0, 0, 1, 0}) {
		t.Errorf("answer: type %d %x %v", typ, pt, err)
	}
	if !bytes.Equal(e.out.secret[:e.out.secLen], next) {
		t.Error("write key not updated after sending KeyUpdate")
	}
}

func TestKeyUpdateSplitAcrossRecords(t *testing.T) {
	e, peer := establishedWithPeer(t)
	in := peerRecord(t, peer, recordTypeHandshake, []byte{typeKeyUpdate, 0})
	in = append(in, peerRecord(t, peer, recordTypeHandshake, []byte{0, 1, 0})...)
	if _, _, err := e.Read(in, nil); err != nil || e.in.seq != 0 {
		t.Errorf("err %v seq %d", err, e.in.seq)
	}
}

func TestCloseNotifyBothWays(t *testing.T) {
	e, peer := establishedWithPeer(t)
	in := peerRecord(t, peer, recordTypeApplicationData, []byte("last"))
	in = append(in, peerRecord(t, peer, recordTypeAlert, []byte{alertLevelWarning, 0})...)
	in = append(in, peerRecord(t, peer, recordTypeApplicationData, []byte("ignored"))...)
	c, p, err := e.Read(in, nil)
	if err != nil || string(p) != "last" || e.Status()&StatusPeerClosed == 0 {
		t.Fatalf("p %q err %v status %b", p, err, e.Status())
	}
	if c == len(in) {
		t.Error("records after close_notify were consumed")
	}
	e.CloseNotify()
	out := e.AppendOutput(nil)
	check := new(direction)
	*check = e.out
	check.seq--
	typ, pt, err := check.openInPlace(out)
	if err != nil || typ != recordTypeAlert || !bytes.Equal(pt, []byte{alertLevelWarning, 0}) {
		t.Errorf("close_notify: %d %x %v", typ, pt, err)
	}
	if _, err := e.AppendRecords(nil, []byte("x")); err == nil {
		t.Error("sealing after close_notify succeeded")
	}
}

func TestPlainBufferFullStopsRead(t *testing.T) {
	e, peer := establishedWithPeer(t)
	var in []byte
	for i := 0; i < 3; i++ {
		in = append(in, peerRecord(t, peer, recordTypeApplicationData, bytes.Repeat([]byte{'a' + byte(i)}, 100))...)
	}
	plain := make([]byte, 0, 150)
	c, p, err := e.Read(in, plain)
	if err != nil || len(p) != 100 || e.Status()&StatusHasPlaintext == 0 {
		t.Fatalf("c %d len %d err %v status %b", c, len(p), err, e.Status())
	}
	c2, p2, err := e.Read(in[c:], plain[:0])
	if err != nil || len(p2) != 100 || p2[0] != 'b' {
		t.Fatalf("second read: c %d len %d err %v", c2, len(p2), err)
	}
}

func TestEarlyDataIsSkippedUpToBound(t *testing.T) {
	rec := clientHelloRecord(t, nil)
	m := parseClientHello(t, rec)
	m.earlyData = true
	ch := handshakeRecord(m.appendTo(nil))
	garbage := append([]byte{23, 3, 3, 0x40, 0}, make([]byte, 1<<14)...)
	e := NewEngine(testConfig(t))
	in := append(bytes.Clone(ch), garbage...)
	in = append(in, garbage...)
	c, _, err := e.Read(in, nil)
	if err != nil || c != len(in) || e.Status()&StatusNeedInput == 0 {
		t.Fatalf("consumed %d of %d, err %v", c, len(in), err)
	}
	var more []byte
	for i := 0; i < 3; i++ {
		more = append(more, garbage...)
	}
	_, _, err = e.Read(more, nil)
	wantAlertErr(t, "beyond bound", err, AlertBadRecordMAC)

	// Without early_data, an undecryptable record is fatal at once.
	e = NewEngine(testConfig(t))
	_, _, err = e.Read(append(bytes.Clone(rec), garbage...), nil)
	wantAlertErr(t, "no early data", err, AlertBadRecordMAC)
}

func TestRecordSizeLimitIsHonoured(t *testing.T) {
	rec := clientHelloRecord(t, nil)
	m := parseClientHello(t, rec)
	m.hasRecordSizeLimit, m.recordSizeLimit = true, 512
	cfg := testConfig(t)
	cfg.RecordSizeLimit = 4097
	e := NewEngine(cfg)
	err, out := feedAll(e, handshakeRecord(m.appendTo(nil)))
	if err != nil {
		t.Fatal(err)
	}
	if e.MaxPlaintext() != 511 || e.recvLimit != 4096 {
		t.Errorf("MaxPlaintext %d recvLimit %d", e.MaxPlaintext(), e.recvLimit)
	}
	for off := 0; off+5 <= len(out); {
		n := int(out[off+3])<<8 | int(out[off+4])
		if out[off] == recordTypeApplicationData && n > 512+aeadTagLen {
			t.Errorf("protected record of %d bytes exceeds the client's limit", n)
		}
		off += 5 + n
	}
}

func TestSecondClientHelloMustMatch(t *testing.T) {
	cfg := &Config{Certificates: []*Certificate{loadPKI(t).p256}, CurvePreferences: []CurveID{CurveP256}}
	rec := clientHelloRecord(t, func(c *tls.Config) { c.CurvePreferences = []tls.CurveID{tls.X25519, tls.CurveP256} })
	e := NewEngine(cfg)
	if err, out := feedAll(e, bytes.Clone(rec)); err != nil || len(out) == 0 || e.hs.state != (expectClientHello{retried: true}) {
		t.Fatalf("HRR: err %v out %d", err, len(out))
	}
	// The same ClientHello again still offers no P-256 share.
	err, _ := feedAll(e, bytes.Clone(rec))
	wantAlertErr(t, "repeated", err, AlertIllegalParameter)

	e = NewEngine(cfg)
	feedAll(e, bytes.Clone(rec))
	m := parseClientHello(t, rec)
	m.keyShares = []keyShare{{uint16(CurveP256), make([]byte, 65)}}
	m.cipherSuites = m.cipherSuites[1:]
	err, _ = feedAll(e, handshakeRecord(m.appendTo(nil)))
	wantAlertErr(t, "changed suites", err, AlertIllegalParameter)
}

func TestBadBinderIsDecryptError(t *testing.T) {
	cfg, rec := resumingClientHello(t)
	if e := NewEngine(cfg); true {
		if err, _ := feedAll(e, bytes.Clone(rec)); err != nil || !e.ConnectionState().DidResume {
			t.Fatalf("good binder: %v resumed %v", err, e.ConnectionState().DidResume)
		}
	}
	rec[len(rec)-1] ^= 1 // the last binder byte ends the ClientHello
	e := NewEngine(cfg)
	err, out := feedAll(e, rec)
	wantAlertErr(t, "bad binder", err, AlertDecryptError)
	if !bytes.Equal(out, plainAlert(AlertDecryptError)) {
		t.Errorf("output %x", out)
	}
}

func TestBadClientFinishedIsDecryptError(t *testing.T) {
	err := runTamperedClient(t, func(e *Engine, rec []byte) {
		if rec[0] != recordTypeApplicationData || e.hs == nil || e.hs.state != (expectFinished{}) {
			return
		}
		dir := new(direction)
		dir.setTrafficSecret(e.hs.suite, e.hs.clientHS)
		dir.seq = e.in.seq
		typ, pt, err := dir.openInPlace(rec)
		if err != nil || typ != recordTypeHandshake {
			t.Errorf("cannot open the client Finished: %v", err)
			return
		}
		pt[len(pt)-1] ^= 1
		dir.seq--
		dir.sealInPlace(rec[:5+len(pt)], 0, typ)
	})
	wantAlertErr(t, "bad Finished", err, AlertDecryptError)
}

func TestTamperedClientRecordIsBadRecordMAC(t *testing.T) {
	err := runTamperedClient(t, func(_ *Engine, rec []byte) {
		if rec[0] == recordTypeApplicationData {
			rec[len(rec)-3] ^= 0x80
		}
	})
	wantAlertErr(t, "tampered", err, AlertBadRecordMAC)
}

// runTamperedClient runs a crypto/tls echo client against a testConfig
// Engine fed record by record; tamper sees (and may change) each client
// record before the engine does. It returns the server's error, and the
// client must see the failure.
func runTamperedClient(t *testing.T, tamper func(e *Engine, rec []byte)) error {
	t.Helper()
	p := loadPKI(t)
	cc, sc := tcpPair(t)
	defer sc.Close()
	res := make(chan clientResult, 1)
	go echoClient(cc, clientConfig(p), echoMsgs[:1], res)
	e := NewEngine(testConfig(t))
	d := &driver{t: t, e: e, conn: sc, mode: feedRecord}
	d.hook = func(rec []byte) { tamper(e, rec) }
	err := d.run()
	if r := <-res; r.err == nil {
		t.Error("client did not see the failure")
	}
	return err
}

// resumingClientHello returns a ticket-issuing Config and the ClientHello
// record of a crypto/tls client offering the ticket it was issued.
func resumingClientHello(t *testing.T) (*Config, []byte) {
	t.Helper()
	p := loadPKI(t)
	keys, _ := NewTicketKeys(rand.Reader)
	cfg := &Config{Certificates: []*Certificate{p.p256}, TicketKeys: keys}
	return cfg, ticketClientHello(t, cfg, clientConfig(p))
}

func TestKeyUpdateFloodIsRejected(t *testing.T) {
	e, peer := establishedWithPeer(t)
	secret := bytes.Clone(e.in.secret[:e.in.secLen])
	var in []byte
	for i := 0; i <= maxKeyUpdatesPerSecond; i++ {
		in = append(in, peerRecord(t, peer, recordTypeHandshake, []byte{typeKeyUpdate, 0, 0, 1, 0})...)
		secret = nextTrafficSecret(peer.suite.hash, secret)
		peer.setTrafficSecret(peer.suite, secret)
		if i%2 == 0 {
			in = append(in, peerRecord(t, peer, recordTypeApplicationData, []byte("d"))...)
		}
	}
	_, _, err := e.Read(in, nil)
	if !errors.Is(err, ErrTooManyKeyUpdates) {
		t.Errorf("err %v, want ErrTooManyKeyUpdates", err)
	}
}

func TestTicketAgeSkewFallsBackToFullHandshake(t *testing.T) {
	cfg, rec := resumingClientHello(t)
	m := parseClientHello(t, rec)
	m.pskIdentities[0].obfuscatedTicketAge += 60_000 // the client claims a minute more
	e := NewEngine(cfg)
	if err, out := feedAll(e, handshakeRecord(m.appendTo(nil))); err != nil || len(out) == 0 || e.ConnectionState().DidResume {
		t.Errorf("err %v resumed %v", err, e.ConnectionState().DidResume)
	}
}

func TestTicketFromOtherKeysIsIgnored(t *testing.T) {
	p := loadPKI(t)
	keys, _ := NewTicketKeys(rand.Reader)
	other, _ := NewTicketKeys(rand.Reader)
	cc := clientConfig(p)
	cc.ClientSessionCache = tls.NewLRUClientSessionCache(2)
	if r, serr, _ := runInterop(t, &Config{Certificates: []*Certificate{p.p256}, TicketKeys: keys}, cc, feedWhole, echoMsgs[:1]); r.err != nil || serr != nil {
		t.Fatal(r.err, serr)
	}
	r, serr, e := runInterop(t, &Config{Certificates: []*Certificate{p.p256}, TicketKeys: other}, cc, feedWhole, echoMsgs[:1])
	if r.err != nil || serr != nil || e.ConnectionState().DidResume {
		t.Errorf("client %v server %v resumed %v", r.err, serr, e.ConnectionState().DidResume)
	}
}

func TestPreSharedKeyNotLastIsIllegalParameter(t *testing.T) {
	cfg, rec := resumingClientHello(t)
	msg := rec[5:]
	// Append an empty padding extension after pre_shared_key.
	msg = append(bytes.Clone(msg), 0, 21, 0, 0)
	n := len(msg) - 4
	msg[1], msg[2], msg[3] = byte(n>>16), byte(n>>8), byte(n)
	extLenAt := 4 + 2 + 32 + 1 + int(msg[4+2+32])
	extLenAt += 2 + (int(msg[extLenAt])<<8 | int(msg[extLenAt+1]))
	extLenAt += 1 + int(msg[extLenAt])
	el := (int(msg[extLenAt])<<8 | int(msg[extLenAt+1])) + 4
	msg[extLenAt], msg[extLenAt+1] = byte(el>>8), byte(el)
	err, out := feedAll(NewEngine(cfg), handshakeRecord(msg))
	wantAlertErr(t, "psk not last", err, AlertIllegalParameter)
	if !bytes.Equal(out, plainAlert(AlertIllegalParameter)) {
		t.Errorf("output %x", out)
	}
}

func TestFragmentedClientHelloIsReassembled(t *testing.T) {
	msg := clientHelloRecord(t, nil)[5:]
	var in []byte
	for off := 0; off < len(msg); off += 7 {
		in = append(in, handshakeRecord(msg[off:min(off+7, len(msg))])...)
	}
	e := NewEngine(testConfig(t))
	c, _, err := e.Read(in, nil)
	if err != nil || c != len(in) || !e.hasOutput() || e.hs.state != (expectFinished{}) {
		t.Errorf("consumed %d/%d, err %v, state %T", c, len(in), err, e.hs.state)
	}
}

func TestClientHelloSharingRecordWithNextMessageFails(t *testing.T) {
	msg := clientHelloRecord(t, nil)[5:]
	// RFC 8446, Section 5.1: the key changes after ClientHello, so nothing may follow it in its record.
	in := handshakeRecord(append(bytes.Clone(msg), typeFinished, 0, 0, 0))
	err, _ := feedAll(NewEngine(testConfig(t)), in)
	wantAlertErr(t, "trailing message", err, AlertUnexpectedMessage)
}
