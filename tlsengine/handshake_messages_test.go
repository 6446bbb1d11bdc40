package tlsengine

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// handshakeMessage is what every codec in handshake_messages.go offers.
type handshakeMessage interface {
	appendTo(b []byte) []byte
	unmarshal(data []byte) bool
}

func bytesOf(n int, v byte) []byte { return bytes.Repeat([]byte{v}, n) }

// messageRoundTripTests are messages that must survive appendTo → unmarshal.
var messageRoundTripTests = []struct {
	name string
	m    handshakeMessage
}{
	{"ClientHello/minimal-TLS1.2", &clientHelloMsg{
		vers: 0x0303, random: bytesOf(32, 1), cipherSuites: []uint16{0xc02f}, compressionMethods: []uint8{0},
	}},
	{"ClientHello/everything", &clientHelloMsg{
		vers: 0x0303, random: bytesOf(32, 2), sessionID: bytesOf(32, 3),
		cipherSuites: []uint16{0x1301, 0x1302, 0x1303, 0xc02b}, compressionMethods: []uint8{0},
		serverName: "cache.example.com", supportedGroups: []uint16{0x11ec, 0x1d, 0x17},
		supportedPoints: []uint8{0}, signatureAlgorithms: []uint16{0x0804, 0x0403},
		signatureAlgorithmsCert: []uint16{0x0401}, alpnProtocols: []string{"redis", "resp3"},
		supportedVersions: []uint16{0x0304, 0x0303},
		keyShares:         []keyShare{{0x1d, bytesOf(32, 4)}, {0x17, bytesOf(65, 5)}},
		pskModes:          []uint8{pskModeDHE}, earlyData: true, cookie: bytesOf(40, 6),
		recordSizeLimit: 0x4001, hasRecordSizeLimit: true, extendedMasterSecret: true,
		secureRenegotiationSupported: true, ticketSupported: true, sessionTicket: bytesOf(100, 7),
		pskIdentities: []pskIdentity{{bytesOf(80, 8), 12345}, {bytesOf(3, 9), 0}},
		pskBinders:    [][]byte{bytesOf(32, 10), bytesOf(48, 11)},
	}},
	{"ClientHello/empty-key-share-list", &clientHelloMsg{
		vers: 0x0303, random: bytesOf(32, 1), cipherSuites: []uint16{0x1301}, compressionMethods: []uint8{0},
		supportedVersions: []uint16{0x0304}, keyShares: []keyShare{},
	}},
	{"ClientHello/renegotiation-info-with-data", &clientHelloMsg{
		vers: 0x0303, random: bytesOf(32, 1), cipherSuites: []uint16{0xc02f}, compressionMethods: []uint8{0},
		secureRenegotiationSupported: true, secureRenegotiation: bytesOf(12, 1), ticketSupported: true,
	}},
	{"ServerHello/TLS1.3", &serverHelloMsg{
		vers: 0x0303, random: bytesOf(32, 1), sessionID: bytesOf(32, 2), cipherSuite: 0x1301,
		supportedVersion: 0x0304, serverShare: keyShare{0x1d, bytesOf(32, 3)},
	}},
	{"ServerHello/TLS1.3-PSK", &serverHelloMsg{
		vers: 0x0303, random: bytesOf(32, 1), cipherSuite: 0x1302, supportedVersion: 0x0304,
		serverShare: keyShare{0x11ec, bytesOf(1120, 3)}, selectedIdentityPresent: true, selectedIdentity: 1,
	}},
	{"ServerHello/HelloRetryRequest", &serverHelloMsg{
		vers: 0x0303, random: helloRetryRequestRandom, sessionID: bytesOf(32, 2), cipherSuite: 0x1301,
		supportedVersion: 0x0304, selectedGroup: 0x17, cookie: bytesOf(20, 4),
	}},
	{"ServerHello/TLS1.2-no-extensions", &serverHelloMsg{
		vers: 0x0303, random: bytesOf(32, 1), cipherSuite: 0xc02f,
	}},
	{"ServerHello/TLS1.2", &serverHelloMsg{
		vers: 0x0303, random: bytesOf(32, 1), sessionID: bytesOf(16, 9), cipherSuite: 0xc02f,
		extendedMasterSecret: true, secureRenegotiationSupported: true, secureRenegotiation: bytesOf(24, 1),
		ticketSupported: true, alpnProtocol: "redis", supportedPoints: []uint8{0},
	}},
	{"EncryptedExtensions/empty", &encryptedExtensionsMsg{}},
	{"EncryptedExtensions/all", &encryptedExtensionsMsg{
		supportedGroups: []uint16{0x1d}, alpnProtocol: "redis", recordSizeLimit: 64, serverNameAck: true, earlyData: true,
	}},
	{"CertificateRequest/minimal", &certificateRequestMsgTLS13{signatureAlgorithms: []uint16{0x0804}}},
	{"CertificateRequest/all", &certificateRequestMsgTLS13{
		signatureAlgorithms: []uint16{0x0804, 0x0403}, signatureAlgorithmsCert: []uint16{0x0401},
		certificateAuthorities: [][]byte{bytesOf(30, 1), bytesOf(5, 2)},
	}},
	{"Certificate/empty", &certificateMsgTLS13{}},
	{"Certificate/chain", &certificateMsgTLS13{certificates: [][]byte{bytesOf(500, 1), bytesOf(70000, 2)}}},
	{"CertificateVerify", &certificateVerifyMsg{signatureAlgorithm: 0x0403, signature: bytesOf(72, 1)}},
	{"Finished/SHA-256", &finishedMsg{verifyData: bytesOf(32, 1)}},
	{"Finished/TLS1.2", &finishedMsg{verifyData: bytesOf(12, 1)}},
	{"NewSessionTicket/plain", &newSessionTicketMsgTLS13{lifetime: 7200, ageAdd: 0xdeadbeef, nonce: []byte{0, 1}, label: bytesOf(120, 1)}},
	{"NewSessionTicket/early-data", &newSessionTicketMsgTLS13{lifetime: maxTicketLifetime, label: bytesOf(1, 1), maxEarlyData: 16384}},
	{"EndOfEarlyData", &endOfEarlyDataMsg{}},
	{"KeyUpdate/not-requested", &keyUpdateMsg{}},
	{"KeyUpdate/requested", &keyUpdateMsg{updateRequested: true}},
	{"TLS1.2/Certificate/empty", &certificateMsg{}},
	{"TLS1.2/Certificate/chain", &certificateMsg{certificates: [][]byte{bytesOf(600, 1), bytesOf(1, 2)}}},
	{"TLS1.2/ServerKeyExchange", &serverKeyExchangeMsg{group: 0x1d, publicKey: bytesOf(32, 1), signatureAlgorithm: 0x0403, signature: bytesOf(71, 2)}},
	{"TLS1.2/ServerHelloDone", &serverHelloDoneMsg{}},
	{"TLS1.2/CertificateRequest/no-CAs", &certificateRequestMsg{certificateTypes: []uint8{certTypeRSASign, certTypeECDSASign}, signatureAlgorithms: []uint16{0x0804}}},
	{"TLS1.2/CertificateRequest/CAs", &certificateRequestMsg{certificateTypes: []uint8{certTypeECDSASign}, signatureAlgorithms: []uint16{0x0403, 0x0401},
		certificateAuthorities: [][]byte{bytesOf(40, 1)}}},
	{"TLS1.2/ClientKeyExchange", &clientKeyExchangeMsg{publicKey: bytesOf(65, 4)}},
	{"TLS1.2/NewSessionTicket", &newSessionTicketMsg{lifetimeHint: 7200, ticket: bytesOf(150, 5)}},
	{"TLS1.2/NewSessionTicket/empty", &newSessionTicketMsg{}},
}

// normalise clears the fields unmarshal fills from the encoding itself.
func normalise(m handshakeMessage) handshakeMessage {
	if ch, ok := m.(*clientHelloMsg); ok {
		c := *ch
		c.raw, c.extensions, c.bindersOffset = nil, nil, 0
		return &c
	}
	return m
}

func newLike(m handshakeMessage) handshakeMessage {
	return reflect.New(reflect.TypeOf(m).Elem()).Interface().(handshakeMessage)
}

func TestMessagesRoundTrip(t *testing.T) {
	for i, tt := range messageRoundTripTests {
		enc := tt.m.appendTo(nil)
		got := newLike(tt.m)
		if !got.unmarshal(enc) {
			t.Errorf("#%d %s: unmarshal(appendTo) failed: %x", i, tt.name, enc)
			continue
		}
		if !reflect.DeepEqual(normalise(got), normalise(tt.m)) {
			t.Errorf("#%d %s: round trip\n got %+v\nwant %+v", i, tt.name, got, tt.m)
		}
		if again := got.appendTo(nil); !bytes.Equal(again, enc) {
			t.Errorf("#%d %s: re-encoding differs\n got %x\nwant %x", i, tt.name, again, enc)
		}
	}
}

func TestMessagesRejectEveryStrictPrefix(t *testing.T) {
	for i, tt := range messageRoundTripTests {
		enc := tt.m.appendTo(nil)
		for n := range len(enc) {
			if newLike(tt.m).unmarshal(enc[:n]) {
				t.Errorf("#%d %s: prefix of %d/%d bytes parsed", i, tt.name, n, len(enc))
			}
		}
	}
}

// withBodyLen returns msg with its handshake header length set to match.
func withBodyLen(msg []byte) []byte {
	msg = slices.Clone(msg)
	n := len(msg) - 4
	msg[1], msg[2], msg[3] = byte(n>>16), byte(n>>8), byte(n)
	return msg
}

// Truncating the body while keeping the header consistent must be caught
// by the inner length prefixes, or else give a message that encodes back to
// exactly those bytes (e.g. a ClientHello cut right before its extensions).
func TestMessagesRejectTruncatedBodies(t *testing.T) {
	for i, tt := range messageRoundTripTests {
		enc := tt.m.appendTo(nil)
		for n := 4; n < len(enc); n++ {
			cut := withBodyLen(enc[:n])
			m := newLike(tt.m)
			if m.unmarshal(cut) && !bytes.Equal(m.appendTo(nil), cut) {
				t.Errorf("#%d %s: body cut to %d bytes parsed as something else: %+v", i, tt.name, n-4, m)
			}
		}
	}
}

func TestMessagesRejectTrailingBytes(t *testing.T) {
	for i, tt := range messageRoundTripTests {
		enc := tt.m.appendTo(nil)
		if newLike(tt.m).unmarshal(append(slices.Clone(enc), 0)) {
			t.Errorf("#%d %s: trailing byte after the message accepted", i, tt.name)
		}
		if _, ok := tt.m.(*finishedMsg); ok {
			continue // verify_data has no inner length: any body length parses
		}
		if newLike(tt.m).unmarshal(withBodyLen(append(slices.Clone(enc), 0))) {
			t.Errorf("#%d %s: trailing byte inside the body accepted", i, tt.name)
		}
	}
}

func TestAppendToDoesNotAllocateWithRoom(t *testing.T) {
	buf := make([]byte, 0, 1<<17)
	for i, tt := range messageRoundTripTests {
		if n := testing.AllocsPerRun(10, func() { tt.m.appendTo(buf) }); n != 0 {
			t.Errorf("#%d %s: appendTo allocates %.0f times", i, tt.name, n)
		}
	}
}

func TestAppendToAppendsAfterExistingBytes(t *testing.T) {
	for i, tt := range messageRoundTripTests {
		prefix := []byte("prefix")
		enc := tt.m.appendTo(slices.Clone(prefix))
		if !bytes.HasPrefix(enc, prefix) || !bytes.Equal(enc[len(prefix):], tt.m.appendTo(nil)) {
			t.Errorf("#%d %s: appendTo does not append", i, tt.name)
		}
	}
}

// ---- ClientHello rejections ----------------------------------------------

// ext builds one raw extension.
func ext(typ uint16, body ...byte) []byte {
	b := appendU16(nil, typ)
	return append(appendU16(b, uint16(len(body))), body...)
}

// u16p and u8p prefix data with its length.
func u16p(data ...byte) []byte { return append(appendU16(nil, uint16(len(data))), data...) }
func u8p(data ...byte) []byte  { return append([]byte{byte(len(data))}, data...) }
func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// rawClientHello builds a ClientHello around the given raw extensions.
func rawClientHello(sessionIDLen int, suites, comp []byte, exts ...[]byte) []byte {
	body := cat([]byte{3, 3}, bytesOf(32, 0xaa), u8p(bytesOf(sessionIDLen, 1)...), u16p(suites...), u8p(comp...))
	if exts != nil {
		body = append(body, u16p(cat(exts...)...)...)
	}
	return cat([]byte{typeClientHello, byte(len(body) >> 16), byte(len(body) >> 8), byte(len(body))}, body)
}

func chWith(exts ...[]byte) []byte {
	return rawClientHello(32, []byte{0x13, 0x01}, []byte{0}, exts...)
}

var (
	sniFoo       = ext(extensionServerName, u16p(cat([]byte{0}, u16p([]byte("foo")...))...)...)
	groupsX25519 = ext(extensionSupportedGroups, u16p(0, 0x1d)...)
	pskOK        = ext(extensionPreSharedKey, cat(u16p(cat(u16p(1, 2, 3), []byte{0, 0, 0, 1})...), u16p(u8p(bytesOf(32, 7)...)...))...)
)

// clientHelloDecodeTests are ClientHellos that unmarshal must accept (ok) or
// reject.
var clientHelloDecodeTests = []struct {
	name string
	raw  []byte
	ok   bool
}{
	{"no extensions block", rawClientHello(0, []byte{0xc0, 0x2f}, []byte{0}), true},
	{"empty extensions block", chWith([]byte{}), true},
	{"unknown extension ignored", chWith(ext(0x1234, 1, 2, 3), groupsX25519), true},
	{"duplicate extension", chWith(groupsX25519, sniFoo, groupsX25519), false},
	{"duplicate unknown extension", chWith(ext(0x1234), ext(0x1234)), false},
	{"pre_shared_key last", chWith(sniFoo, pskOK), true},
	{"pre_shared_key not last", chWith(pskOK, sniFoo), false},
	{"session id of 33 bytes", rawClientHello(33, []byte{0x13, 0x01}, []byte{0}), false},
	{"no cipher suites", rawClientHello(0, nil, []byte{0}), false},
	{"odd cipher suites length", rawClientHello(0, []byte{0x13, 0x01, 0x13}, []byte{0}), false},
	{"no compression methods", rawClientHello(0, []byte{0x13, 0x01}, nil), false},
	{"SNI host_name", chWith(sniFoo), true},
	{"SNI empty list", chWith(ext(extensionServerName, u16p()...)), false},
	{"SNI empty host_name", chWith(ext(extensionServerName, u16p(cat([]byte{0}, u16p())...)...)), false},
	{"SNI trailing dot", chWith(ext(extensionServerName, u16p(cat([]byte{0}, u16p([]byte("foo.")...))...)...)), false},
	{"SNI with a space", chWith(ext(extensionServerName, u16p(cat([]byte{0}, u16p([]byte("fo o")...))...)...)), false},
	{"SNI two host_names", chWith(ext(extensionServerName, u16p(cat([]byte{0}, u16p('a'), []byte{0}, u16p('b'))...)...)), false},
	{"SNI unknown name type ignored", chWith(ext(extensionServerName, u16p(cat([]byte{7}, u16p(1, 2), []byte{0}, u16p('a'))...)...)), true},
	{"SNI extension with trailing byte", chWith(ext(extensionServerName, cat(u16p(cat([]byte{0}, u16p('a'))...), []byte{0})...)), false},
	{"ALPN", chWith(ext(extensionALPN, u16p(cat(u8p('h', '2'), u8p('x'))...)...)), true},
	{"ALPN empty list", chWith(ext(extensionALPN, u16p()...)), false},
	{"ALPN empty name", chWith(ext(extensionALPN, u16p(cat(u8p('h', '2'), u8p())...)...)), false},
	{"empty supported_groups", chWith(ext(extensionSupportedGroups, u16p()...)), false},
	{"odd supported_groups", chWith(ext(extensionSupportedGroups, u16p(0, 0x1d, 0)...)), false},
	{"empty signature_algorithms", chWith(ext(extensionSignatureAlgorithms, u16p()...)), false},
	{"empty supported_versions", chWith(ext(extensionSupportedVersions, u8p()...)), false},
	{"odd supported_versions", chWith(ext(extensionSupportedVersions, u8p(3, 4, 3)...)), false},
	{"empty psk modes", chWith(ext(extensionPSKModes, u8p()...)), false},
	{"empty key_share list", chWith(ext(extensionKeyShare, u16p()...)), true},
	{"key_share empty key_exchange (the engine refuses it)", chWith(ext(extensionKeyShare, u16p(cat([]byte{0, 0x1d}, u16p())...)...)), true},
	{"key_share group twice", chWith(ext(extensionKeyShare, u16p(cat([]byte{0, 0x1d}, u16p(1), []byte{0, 0x1d}, u16p(2))...)...)), false},
	{"record_size_limit 64", chWith(ext(extensionRecordSizeLimit, 0, 64)), true},
	{"record_size_limit 63", chWith(ext(extensionRecordSizeLimit, 0, 63)), false},
	{"early_data with a body", chWith(ext(extensionEarlyData, 0)), false},
	{"extended_master_secret with a body", chWith(ext(extensionExtendedMasterSecret, 0)), false},
	{"empty cookie", chWith(ext(extensionCookie, u16p()...)), false},
	{"psk without identities", chWith(ext(extensionPreSharedKey, cat(u16p(), u16p(u8p(bytesOf(32, 7)...)...))...)), false},
	{"psk empty identity", chWith(ext(extensionPreSharedKey, cat(u16p(cat(u16p(), []byte{0, 0, 0, 1})...), u16p(u8p(bytesOf(32, 7)...)...))...)), false},
	{"psk binder of 31 bytes", chWith(ext(extensionPreSharedKey, cat(u16p(cat(u16p(1), []byte{0, 0, 0, 1})...), u16p(u8p(bytesOf(31, 7)...)...))...)), false},
	{"psk two binders for one identity", chWith(ext(extensionPreSharedKey, cat(u16p(cat(u16p(1), []byte{0, 0, 0, 1})...), u16p(cat(u8p(bytesOf(32, 7)...), u8p(bytesOf(32, 7)...))...))...)), false},
	// The largest body: 32,767 suites, 255 compression methods, 65,535
	// bytes of extensions.
	{"largest body", rawClientHello(32, bytesOf(0xfffe, 0x13), bytesOf(0xff, 0), ext(extensionPadding, bytesOf(0xffff-4, 0)...)), true},
	{"wrong handshake type", append([]byte{typeServerHello}, chWith()[1:]...), false},
}

func TestClientHelloDecodeRules(t *testing.T) {
	for i, tt := range clientHelloDecodeTests {
		var m clientHelloMsg
		if got := m.unmarshal(tt.raw); got != tt.ok {
			t.Errorf("#%d %s: unmarshal = %v, want %v", i, tt.name, got, tt.ok)
		}
	}
}

func TestClientHelloExtensionsListedInOrder(t *testing.T) {
	var m clientHelloMsg
	if !m.unmarshal(chWith(ext(0x1234), sniFoo, groupsX25519, pskOK)) {
		t.Fatal("unmarshal failed")
	}
	if want := []uint16{0x1234, 0, 10, 41}; !slices.Equal(m.extensions, want) {
		t.Errorf("extensions = %v, want %v", m.extensions, want)
	}
	if m.serverName != "foo" || m.bindersOffset != len(m.raw)-2-33 {
		t.Errorf("serverName %q, bindersOffset %d of %d", m.serverName, m.bindersOffset, len(m.raw))
	}
}

func TestHasDuplicateOnLongLists(t *testing.T) {
	long := make([]uint16, 100)
	for i := range long {
		long[i] = uint16(i * 7)
	}
	if hasDuplicate(long) {
		t.Error("distinct list reported as duplicate")
	}
	long[99] = long[3]
	if !hasDuplicate(long) {
		t.Error("duplicate in a long list missed")
	}
}

func TestServerHelloRejectsUnknownExtension(t *testing.T) {
	sh := (&serverHelloMsg{vers: 0x0303, random: bytesOf(32, 1), cipherSuite: 0x1301, supportedVersion: 0x0304}).appendTo(nil)
	bad := withBodyLen(append(sh[:len(sh):len(sh)], ext(0x1234)...))
	bad[4+2+32+1+2+1+1] += 4 // extensions length
	if new(serverHelloMsg).unmarshal(bad) {
		t.Error("ServerHello with an unknown extension accepted")
	}
}

func TestKeyUpdateRejectsBadRequestValue(t *testing.T) {
	if new(keyUpdateMsg).unmarshal([]byte{typeKeyUpdate, 0, 0, 1, 2}) {
		t.Error("KeyUpdate with request_update 2 accepted")
	}
}

func TestNewSessionTicketRejectsLongLifetime(t *testing.T) {
	enc := (&newSessionTicketMsgTLS13{lifetime: maxTicketLifetime + 1, label: []byte{1}}).appendTo(nil)
	if new(newSessionTicketMsgTLS13).unmarshal(enc) {
		t.Error("ticket lifetime over 7 days accepted")
	}
}

// ---- ClientHellos from real clients --------------------------------------

// testCertificate returns a fresh self-signed ECDSA certificate.
func testCertificate(t testing.TB) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "loopkv test"},
		DNSNames: []string{"example.com"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// readClientHelloRecord reads one handshake record from r and returns its
// payload, the ClientHello.
func readClientHelloRecord(t testing.TB, r io.Reader) []byte {
	t.Helper()
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		t.Fatal(err)
	}
	if hdr[0] != 22 {
		t.Fatalf("first record has type %d", hdr[0])
	}
	payload := make([]byte, int(hdr[3])<<8|int(hdr[4]))
	if _, err := io.ReadFull(r, payload); err != nil {
		t.Fatal(err)
	}
	return payload
}

// captureGoClientHello runs a crypto/tls client with cfg against a net.Pipe
// and returns its ClientHello, record header stripped.
func captureGoClientHello(t testing.TB, cfg *tls.Config) []byte {
	t.Helper()
	c, s := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		tls.Client(c, cfg).Handshake() // fails when s closes
	}()
	s.SetDeadline(time.Now().Add(10 * time.Second))
	ch := readClientHelloRecord(t, s)
	s.Close()
	<-done
	c.Close()
	return ch
}

// goResumingClientHello completes a TLS 1.3 handshake against a crypto/tls
// server to obtain a ticket, then captures the resuming ClientHello.
func goResumingClientHello(t testing.TB) []byte {
	t.Helper()
	cache := tls.NewLRUClientSessionCache(4)
	clientCfg := &tls.Config{ServerName: "example.com", InsecureSkipVerify: true, ClientSessionCache: cache}
	serverCfg := &tls.Config{Certificates: []tls.Certificate{testCertificate(t)}}
	// A TCP loopback pair: both sides write at once during the handshake
	// (tickets and client Finished), which a synchronous net.Pipe deadlocks.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		s, err := ln.Accept()
		if err != nil {
			return
		}
		s.SetDeadline(time.Now().Add(10 * time.Second))
		srv := tls.Server(s, serverCfg)
		srv.Write([]byte("x")) // runs the handshake, sends the ticket first
		srv.Close()
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	cli := tls.Client(c, clientCfg)
	if _, err := io.ReadFull(cli, make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	cli.Close()
	return captureGoClientHello(t, clientCfg)
}

// goClientHelloTests are crypto/tls client configurations and what their
// ClientHello must parse to.
var goClientHelloTests = []struct {
	name  string
	cfg   *tls.Config
	check func(t *testing.T, m *clientHelloMsg)
}{
	{"defaults+SNI+ALPN+session cache", &tls.Config{ServerName: "example.com", NextProtos: []string{"redis", "http/1.1"},
		ClientSessionCache: tls.NewLRUClientSessionCache(1)}, func(t *testing.T, m *clientHelloMsg) {
		if m.serverName != "example.com" || !slices.Equal(m.alpnProtocols, []string{"redis", "http/1.1"}) {
			t.Errorf("serverName %q, ALPN %q", m.serverName, m.alpnProtocols)
		}
		if !slices.Equal(m.supportedVersions, []uint16{0x0304, 0x0303}) || len(m.sessionID) != 32 {
			t.Errorf("supported_versions %x, session id %d bytes", m.supportedVersions, len(m.sessionID))
		}
		if len(m.keyShares) != 2 || m.keyShares[0].group != 0x11ec || len(m.keyShares[0].data) != 1184+32 ||
			m.keyShares[1].group != 0x1d || len(m.keyShares[1].data) != 32 {
			t.Errorf("key shares %v", groupsOf(m.keyShares))
		}
		if !m.extendedMasterSecret || !m.secureRenegotiationSupported || !m.ticketSupported || m.sessionTicket != nil {
			t.Errorf("ems %v, reneg %v, ticket %v %x", m.extendedMasterSecret, m.secureRenegotiationSupported, m.ticketSupported, m.sessionTicket)
		}
		if !slices.Equal(m.pskModes, []uint8{pskModeDHE}) || !slices.Contains(m.signatureAlgorithms, 0x0804) ||
			!slices.Contains(m.cipherSuites, 0x1301) || !slices.Equal(m.compressionMethods, []uint8{0}) {
			t.Errorf("psk modes %v, sigalgs %x, suites %x", m.pskModes, m.signatureAlgorithms, m.cipherSuites)
		}
	}},
	{"CurvePreferences=P256", &tls.Config{ServerName: "example.com", CurvePreferences: []tls.CurveID{tls.CurveP256}}, func(t *testing.T, m *clientHelloMsg) {
		if len(m.keyShares) != 1 || m.keyShares[0].group != 0x17 || len(m.keyShares[0].data) != 65 ||
			!slices.Equal(m.supportedGroups, []uint16{0x17}) {
			t.Errorf("key shares %v, groups %x", groupsOf(m.keyShares), m.supportedGroups)
		}
	}},
	{"CurvePreferences=X25519MLKEM768", &tls.Config{ServerName: "example.com", CurvePreferences: []tls.CurveID{tls.X25519MLKEM768}}, func(t *testing.T, m *clientHelloMsg) {
		if len(m.keyShares) != 1 || m.keyShares[0].group != 0x11ec || !slices.Equal(m.supportedGroups, []uint16{0x11ec}) {
			t.Errorf("key shares %v, groups %x", groupsOf(m.keyShares), m.supportedGroups)
		}
	}},
	{"MaxVersion=TLS1.2", &tls.Config{ServerName: "example.com", MaxVersion: tls.VersionTLS12}, func(t *testing.T, m *clientHelloMsg) {
		if m.keyShares != nil || !slices.Equal(m.supportedVersions, []uint16{0x0303}) || m.pskModes != nil {
			t.Errorf("TLS 1.2 hello has TLS 1.3 extensions: %v", m.extensions)
		}
		if !slices.Contains(m.cipherSuites, 0xc02f) || !slices.Equal(m.supportedPoints, []uint8{0}) {
			t.Errorf("suites %x, points %v", m.cipherSuites, m.supportedPoints)
		}
	}},
	{"no session cache, no SNI for an IP", &tls.Config{ServerName: "127.0.0.1"}, func(t *testing.T, m *clientHelloMsg) {
		if m.ticketSupported || m.pskModes != nil || m.serverName != "" || slices.Contains(m.extensions, extensionServerName) {
			t.Errorf("ticket %v, psk modes %v, serverName %q", m.ticketSupported, m.pskModes, m.serverName)
		}
	}},
}

func groupsOf(ks []keyShare) []uint16 {
	var g []uint16
	for _, k := range ks {
		g = append(g, k.group)
	}
	return g
}

func TestParsesGoClientHellos(t *testing.T) {
	for i, tt := range goClientHelloTests {
		raw := captureGoClientHello(t, tt.cfg)
		var m clientHelloMsg
		if !m.unmarshal(raw) {
			t.Errorf("#%d %s: crypto/tls ClientHello rejected: %x", i, tt.name, raw)
			continue
		}
		if m.vers != 0x0303 || len(m.random) != 32 {
			t.Errorf("#%d %s: legacy_version %x", i, tt.name, m.vers)
		}
		t.Run(tt.name, func(t *testing.T) { tt.check(t, &m) })
	}
}

func TestParsesGoResumingClientHello(t *testing.T) {
	raw := goResumingClientHello(t)
	var m clientHelloMsg
	if !m.unmarshal(raw) {
		t.Fatalf("resuming ClientHello rejected: %x", raw)
	}
	if len(m.pskIdentities) != 1 || len(m.pskBinders) != 1 || len(m.pskBinders[0]) != 32 {
		t.Fatalf("identities %d, binders %d", len(m.pskIdentities), len(m.pskBinders))
	}
	if m.extensions[len(m.extensions)-1] != extensionPreSharedKey || m.bindersOffset != len(raw)-2-33 {
		t.Errorf("pre_shared_key not last or bindersOffset %d of %d", m.bindersOffset, len(raw))
	}
	if !slices.Equal(m.pskModes, []uint8{pskModeDHE}) || m.earlyData {
		t.Errorf("psk modes %v, early data %v", m.pskModes, m.earlyData)
	}
}

// TestParsesOpenSSLClientHello captures the first flight of openssl
// s_client with a raw TCP listener.
func TestParsesOpenSSLClientHello(t *testing.T) {
	path, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("openssl not installed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "s_client", "-connect", ln.Addr().String(),
		"-servername", "cache.example.com", "-alpn", "redis,resp3", "-tls1_3")
	cmd.Stdin = strings.NewReader("")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(15 * time.Second))
	conn, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(15 * time.Second))
	raw := readClientHelloRecord(t, conn)
	conn.Close()

	var m clientHelloMsg
	if !m.unmarshal(raw) {
		t.Fatalf("openssl ClientHello rejected: %x", raw)
	}
	if m.serverName != "cache.example.com" || !slices.Equal(m.alpnProtocols, []string{"redis", "resp3"}) {
		t.Errorf("serverName %q, ALPN %q", m.serverName, m.alpnProtocols)
	}
	if !slices.Equal(m.supportedVersions, []uint16{0x0304}) || len(m.keyShares) == 0 || m.keyShares[0].group != 0x1d {
		t.Errorf("supported_versions %x, key shares %v", m.supportedVersions, groupsOf(m.keyShares))
	}
	if !slices.Contains(m.cipherSuites, 0x1302) || !slices.Contains(m.extensions, 22) { // encrypt_then_mac
		t.Errorf("suites %x, extensions %v", m.cipherSuites, m.extensions)
	}
}

func BenchmarkClientHelloUnmarshal(b *testing.B) {
	raw := captureGoClientHello(b, goClientHelloTests[0].cfg) // X25519MLKEM768 + X25519 shares
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		var m clientHelloMsg
		if !m.unmarshal(raw) {
			b.Fatal("unmarshal failed")
		}
	}
}

func BenchmarkServerHelloAppendTo(b *testing.B) {
	m := &serverHelloMsg{
		vers: 0x0303, random: bytesOf(32, 1), sessionID: bytesOf(32, 2), cipherSuite: 0x1301,
		supportedVersion: 0x0304, serverShare: keyShare{0x11ec, bytesOf(1120, 3)},
	}
	buf := make([]byte, 0, 2048)
	b.ReportAllocs()
	b.SetBytes(int64(len(m.appendTo(nil))))
	for b.Loop() {
		buf = m.appendTo(buf[:0])
	}
}
