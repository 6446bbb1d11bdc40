package tlsengine

import (
	"bytes"
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Tests against the traces of RFC 8448 (final draft, testdata/rfc8448/). Each
// test names the section it replays.

const (
	traceSection3 = "section3-simple-1rtt.txt"
	traceSection4 = "section4-resumed-0rtt.txt"
	traceSection5 = "section5-hello-retry-request.txt"
)

var (
	traceCache   = map[string][]string{}
	traceCacheMu sync.Mutex
	// traceLabel matches `label (N octets):  hex...` and, in Section 2,
	// `label (public):  hex...` and `label:  hex...`.
	traceLabel = regexp.MustCompile(`^(.+?)(?: \((\d+) octets\)| \((?:public|private)\))?:\s*(.*)$`)
)

func traceLines(t testing.TB, file string) []string {
	t.Helper()
	traceCacheMu.Lock()
	defer traceCacheMu.Unlock()
	if lines, ok := traceCache[file]; ok {
		return lines
	}
	data, err := os.ReadFile(filepath.Join("testdata", "rfc8448", file))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	traceCache[file] = lines
	return lines
}

// isPageBreak reports whether a trace line is part of an RFC page break.
func isPageBreak(line string) bool {
	s := strings.TrimSpace(line)
	return s == "" || strings.HasPrefix(s, "Thomson ") || strings.HasPrefix(s, "Internet-Draft ") || s == "\f"
}

// hexOctets decodes a line made only of two-digit hex octets.
func hexOctets(line string) ([]byte, bool) {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return nil, false
	}
	out := make([]byte, 0, len(fields))
	for _, f := range fields {
		if len(f) != 2 {
			return nil, false
		}
		v, err := strconv.ParseUint(f, 16, 8)
		if err != nil {
			return nil, false
		}
		out = append(out, byte(v))
	}
	return out, true
}

// traceHex returns the octets labelled label under the first step line that
// starts with step (e.g. `{server}  construct a ServerHello handshake
// message`), skipping labels, whitespace and page breaks, and checks the
// octet count the label announces.
func traceHex(t testing.TB, file, step, label string) []byte {
	t.Helper()
	return traceHexN(t, file, 0, step, label)
}

// traceHexN is traceHex under the n-th (0-based) matching step line.
func traceHexN(t testing.TB, file string, n int, step, label string) []byte {
	t.Helper()
	lines := traceLines(t, file)
	i := 0
	for ; i < len(lines); i++ {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), step) {
			if n == 0 {
				break
			}
			n--
		}
	}
	if i == len(lines) {
		t.Fatalf("%s: step %q not found", file, step)
	}
	for i++; i < len(lines); i++ {
		s := strings.TrimSpace(lines[i])
		if strings.HasPrefix(s, "{") {
			break // the next step
		}
		m := traceLabel.FindStringSubmatch(s)
		if m == nil || m[1] != label {
			continue
		}
		want := -1 // Section 2 labels give no count
		if m[2] != "" {
			want, _ = strconv.Atoi(m[2])
		}
		if want == 0 {
			return []byte{}
		}
		out, ok := hexOctets(m[3])
		if !ok {
			t.Fatalf("%s: %s/%s: bad first line %q", file, step, label, m[3])
		}
		for i++; i < len(lines) && (want < 0 || len(out) < want); i++ {
			if isPageBreak(lines[i]) {
				continue
			}
			more, ok := hexOctets(lines[i])
			if !ok {
				break
			}
			out = append(out, more...)
		}
		if want >= 0 && len(out) != want {
			t.Fatalf("%s: %s/%s: got %d octets, label says %d", file, step, label, len(out), want)
		}
		return out
	}
	t.Fatalf("%s: label %q not found under step %q", file, label, step)
	return nil
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

var _ = mustHex

func sha256Of(parts ...[]byte) []byte {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

// Step lines of RFC 8448 used below.
const (
	stepClientHello     = "{client}  construct a ClientHello handshake message"
	stepServerHello     = "{server}  construct a ServerHello handshake message"
	stepEE              = "{server}  construct a EncryptedExtensions handshake message"
	stepCertificate     = "{server}  construct a Certificate handshake message"
	stepCertVerify      = "{server}  construct a CertificateVerify handshake message"
	stepServerFinished  = "{server}  construct a Finished handshake message"
	stepClientFinished  = "{client}  construct a Finished handshake message"
	stepNewTicket       = "{server}  construct a NewSessionTicket handshake message"
	stepClientKeyPair   = "{client}  create an ephemeral"
	stepServerKeyPair   = "{server}  create an ephemeral"
	stepClientSend      = "{client}  send handshake record:"
	stepServerSend      = "{server}  send handshake record:" // the first is the ServerHello
	stepEarly           = `{server}  extract secret "early":`
	stepHandshake       = `{server}  extract secret "handshake":`
	stepMaster          = `{server}  extract secret "master":`
	stepCHSTraffic      = `{server}  derive secret "tls13 c hs traffic":`
	stepSHSTraffic      = `{server}  derive secret "tls13 s hs traffic":`
	stepCAPTraffic      = `{server}  derive secret "tls13 c ap traffic":`
	stepSAPTraffic      = `{server}  derive secret "tls13 s ap traffic":`
	stepExporter        = `{server}  derive secret "tls13 exp master":`
	stepServerHSKeys    = "{server}  derive write traffic keys for handshake data:"
	stepServerAPKeys    = "{server}  derive write traffic keys for application data:"
	stepClientHSKeys    = "{server}  derive read traffic keys for handshake data:"
	stepClientAPKeys    = "{client}  derive write traffic keys for application data:"
	stepServerFinCalc   = `{server}  calculate finished "tls13 finished":`
	stepClientFinCalc   = `{client}  calculate finished "tls13 finished":`
	stepResMaster       = `{client}  derive secret "tls13 res master":`
	stepResumption      = `{server}  generate resumption secret "tls13 resumption":`
	stepBinder          = "{client}  calculate PSK binder:"
	stepClientEarly     = `{client}  extract secret "early":`
	stepEarlyTraffic    = `{client}  derive secret "tls13 c e traffic":`
	stepClientHSKeysOut = "{client}  derive write traffic keys for handshake data:"
)

// section3 holds the Section 3 handshake messages and every value the key
// schedule derives from them.
type section3 struct {
	ch, sh, ee, cert, cv, sf, cf []byte

	shared                           []byte
	early                            earlySecret
	hs                               handshakeSecret
	ms                               masterSecret
	thHello, thServerFin, thClientFn []byte
	chts, shts, cats, sats, exp, res []byte
	psk                              []byte
}

func loadSection3(t *testing.T) *section3 {
	t.Helper()
	f := traceSection3
	s := &section3{
		ch:   traceHex(t, f, stepClientHello, "ClientHello"),
		sh:   traceHex(t, f, stepServerHello, "ServerHello"),
		ee:   traceHex(t, f, stepEE, "EncryptedExtensions"),
		cert: traceHex(t, f, stepCertificate, "Certificate"),
		cv:   traceHex(t, f, stepCertVerify, "CertificateVerify"),
		sf:   traceHex(t, f, stepServerFinished, "Finished"),
		cf:   traceHex(t, f, stepClientFinished, "Finished"),
	}
	priv, err := ecdh.X25519().NewPrivateKey(traceHex(t, f, stepServerKeyPair, "private key"))
	if err != nil {
		t.Fatal(err)
	}
	var ch clientHelloMsg
	if !ch.unmarshal(s.ch) || len(ch.keyShares) != 1 {
		t.Fatal("Section 3: ClientHello does not parse")
	}
	peer, err := ecdh.X25519().NewPublicKey(ch.keyShares[0].data)
	if err != nil {
		t.Fatal(err)
	}
	if s.shared, err = priv.ECDH(peer); err != nil {
		t.Fatal(err)
	}

	tr := newTranscript(crypto.SHA256)
	s.early = newEarlySecret(crypto.SHA256, nil)
	s.hs = s.early.handshakeSecret(s.shared)
	tr.write(s.ch)
	tr.write(s.sh)
	s.thHello = tr.sum(nil)
	s.chts = s.hs.clientHandshakeTrafficSecret(s.thHello)
	s.shts = s.hs.serverHandshakeTrafficSecret(s.thHello)
	s.ms = s.hs.masterSecret()
	for _, m := range [][]byte{s.ee, s.cert, s.cv, s.sf} {
		tr.write(m)
	}
	s.thServerFin = tr.sum(nil)
	s.cats = s.ms.clientApplicationTrafficSecret(s.thServerFin)
	s.sats = s.ms.serverApplicationTrafficSecret(s.thServerFin)
	s.exp = s.ms.exporterMasterSecret(s.thServerFin)
	tr.write(s.cf)
	s.thClientFn = tr.sum(nil)
	s.res = s.ms.resumptionMasterSecret(s.thClientFn)
	s.psk = resumptionPSK(crypto.SHA256, s.res, []byte{0, 0})
	return s
}

func keyOf(h crypto.Hash, secret []byte) []byte { k, _ := trafficKeys(h, secret, 16); return k }
func ivOf(h crypto.Hash, secret []byte) []byte  { _, iv := trafficKeys(h, secret, 16); return iv }

// section3KeyScheduleTests lists every Section 3 value the key schedule must
// reproduce: the trace step, the label under it, and our derivation.
var section3KeyScheduleTests = []struct {
	step, label string
	got         func(t *testing.T, s *section3) []byte
}{
	{stepEarly, "secret", func(_ *testing.T, s *section3) []byte { return s.early.secret }},
	{stepHandshake, "IKM", func(_ *testing.T, s *section3) []byte { return s.shared }},
	{stepHandshake, "secret", func(_ *testing.T, s *section3) []byte { return s.hs.secret }},
	{stepCHSTraffic, "hash", func(_ *testing.T, s *section3) []byte { return s.thHello }},
	{stepCHSTraffic, "expanded", func(_ *testing.T, s *section3) []byte { return s.chts }},
	{stepSHSTraffic, "expanded", func(_ *testing.T, s *section3) []byte { return s.shts }},
	{stepMaster, "secret", func(_ *testing.T, s *section3) []byte { return s.ms.secret }},
	{stepServerHSKeys, "key expanded", func(_ *testing.T, s *section3) []byte { return keyOf(crypto.SHA256, s.shts) }},
	{stepServerHSKeys, "iv expanded", func(_ *testing.T, s *section3) []byte { return ivOf(crypto.SHA256, s.shts) }},
	{stepClientHSKeys, "key expanded", func(_ *testing.T, s *section3) []byte { return keyOf(crypto.SHA256, s.chts) }},
	{stepClientHSKeys, "iv expanded", func(_ *testing.T, s *section3) []byte { return ivOf(crypto.SHA256, s.chts) }},
	{stepServerFinCalc, "finished", func(_ *testing.T, s *section3) []byte {
		return finishedVerifyData(crypto.SHA256, s.shts, sha256Of(s.ch, s.sh, s.ee, s.cert, s.cv))
	}},
	{stepCAPTraffic, "hash", func(_ *testing.T, s *section3) []byte { return s.thServerFin }},
	{stepCAPTraffic, "expanded", func(_ *testing.T, s *section3) []byte { return s.cats }},
	{stepSAPTraffic, "expanded", func(_ *testing.T, s *section3) []byte { return s.sats }},
	{stepExporter, "expanded", func(_ *testing.T, s *section3) []byte { return s.exp }},
	{stepServerAPKeys, "key expanded", func(_ *testing.T, s *section3) []byte { return keyOf(crypto.SHA256, s.sats) }},
	{stepServerAPKeys, "iv expanded", func(_ *testing.T, s *section3) []byte { return ivOf(crypto.SHA256, s.sats) }},
	{stepClientFinCalc, "finished", func(_ *testing.T, s *section3) []byte {
		return finishedVerifyData(crypto.SHA256, s.chts, s.thServerFin)
	}},
	{stepClientAPKeys, "key expanded", func(_ *testing.T, s *section3) []byte { return keyOf(crypto.SHA256, s.cats) }},
	{stepClientAPKeys, "iv expanded", func(_ *testing.T, s *section3) []byte { return ivOf(crypto.SHA256, s.cats) }},
	{stepResMaster, "hash", func(_ *testing.T, s *section3) []byte { return s.thClientFn }},
	{stepResMaster, "expanded", func(_ *testing.T, s *section3) []byte { return s.res }},
	{stepResumption, "expanded", func(_ *testing.T, s *section3) []byte { return s.psk }},
}

func TestRFC8448Section3KeyScheduleMatchesTrace(t *testing.T) {
	s := loadSection3(t)
	for i, tt := range section3KeyScheduleTests {
		want := traceHex(t, traceSection3, tt.step, tt.label)
		if got := tt.got(t, s); !bytes.Equal(got, want) {
			t.Errorf("#%d: %s / %s = %x, want %x", i, tt.step, tt.label, got, want)
		}
	}
}

func TestRFC8448Section3HkdfExpandLabelInfo(t *testing.T) {
	// The trace prints HkdfLabel for "tls13 derived"; expanding with the
	// early secret must give the trace's expanded value.
	s := loadSection3(t)
	got := hkdfExpandLabel(crypto.SHA256, s.early.secret, labelDerived, sha256Of(), 32)
	want := traceHex(t, traceSection3, `{server}  derive secret for handshake "tls13 derived":`, "expanded")
	if !bytes.Equal(got, want) {
		t.Errorf("derived = %x, want %x", got, want)
	}
}

func TestRFC8448Section3ParsesClientHello(t *testing.T) {
	raw := traceHex(t, traceSection3, stepClientHello, "ClientHello")
	var m clientHelloMsg
	if !m.unmarshal(raw) {
		t.Fatal("Section 3 ClientHello does not parse")
	}
	want := clientHelloMsg{
		raw:                          raw,
		vers:                         0x0303,
		random:                       raw[6:38], // client randomness: the trace's own
		cipherSuites:                 []uint16{0x1301, 0x1303, 0x1302},
		compressionMethods:           []uint8{0},
		serverName:                   "server",
		supportedGroups:              []uint16{0x1d, 0x17, 0x18, 0x19, 0x100, 0x101, 0x102, 0x103, 0x104},
		signatureAlgorithms:          []uint16{0x0403, 0x0503, 0x0603, 0x0203, 0x0804, 0x0805, 0x0806, 0x0401, 0x0501, 0x0601, 0x0201, 0x0402, 0x0502, 0x0602, 0x0202},
		supportedVersions:            []uint16{0x0304},
		keyShares:                    []keyShare{{0x1d, traceHex(t, traceSection3, stepClientKeyPair, "public key")}},
		pskModes:                     []uint8{pskModeDHE},
		recordSizeLimit:              0x4001,
		hasRecordSizeLimit:           true,
		secureRenegotiationSupported: true,
		ticketSupported:              true,
		extensions:                   []uint16{0, 0xff01, 10, 35, 51, 43, 13, 45, 28},
	}
	if !clientHellosEqual(&m, &want) {
		t.Errorf("parsed %+v\nwant   %+v", m, want)
	}
	// The fixed extension order of appendTo is the trace's order.
	if got := m.appendTo(nil); !bytes.Equal(got, raw) {
		t.Errorf("re-serialised ClientHello\n got %x\nwant %x", got, raw)
	}
}

// clientHellosEqual compares every field.
func clientHellosEqual(a, b *clientHelloMsg) bool {
	return reflect.DeepEqual(a, b)
}

func TestRFC8448Section3ServerMessagesReserialise(t *testing.T) {
	s := loadSection3(t)
	f := traceSection3
	var certMsg certificateMsgTLS13
	if !certMsg.unmarshal(s.cert) || len(certMsg.certificates) != 1 {
		t.Fatal("Section 3 Certificate does not parse")
	}
	leaf, err := x509.ParseCertificate(certMsg.certificates[0])
	if err != nil || leaf.Subject.CommonName != "rsa" {
		t.Fatalf("Section 3 certificate: %v, CN %q", err, leaf.Subject.CommonName)
	}
	var cv certificateVerifyMsg
	if !cv.unmarshal(s.cv) {
		t.Fatal("Section 3 CertificateVerify does not parse")
	}
	// RFC 8446, Section 4.4.3: the signature covers 64 spaces, the context
	// string, a zero byte and the transcript hash through Certificate.
	signed := append(bytes.Repeat([]byte{0x20}, 64), "TLS 1.3, server CertificateVerify\x00"...)
	signed = append(signed, sha256Of(s.ch, s.sh, s.ee, s.cert)...)
	digest := sha256.Sum256(signed)
	if err := rsa.VerifyPSS(leaf.PublicKey.(*rsa.PublicKey), crypto.SHA256, digest[:], cv.signature,
		&rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash}); err != nil {
		t.Errorf("Section 3 CertificateVerify signature: %v", err)
	}
	var nst newSessionTicketMsgTLS13
	nstRaw := traceHex(t, f, stepNewTicket, "NewSessionTicket")
	if !nst.unmarshal(nstRaw) {
		t.Fatal("Section 3 NewSessionTicket does not parse")
	}

	msgs := []struct {
		name string
		m    interface{ appendTo([]byte) []byte }
		want []byte
	}{
		{"ServerHello", &serverHelloMsg{
			vers:             0x0303,
			random:           s.sh[6:38], // server randomness cannot be derived: the trace's own
			cipherSuite:      0x1301,
			supportedVersion: 0x0304,
			serverShare:      keyShare{0x1d, traceHex(t, f, stepServerKeyPair, "public key")},
		}, s.sh},
		{"EncryptedExtensions", &encryptedExtensionsMsg{
			supportedGroups: []uint16{0x1d, 0x17, 0x18, 0x19, 0x100, 0x101, 0x102, 0x103, 0x104},
			recordSizeLimit: 0x4001,
			serverNameAck:   true,
		}, s.ee},
		{"Certificate", &certificateMsgTLS13{certificates: [][]byte{leaf.Raw}}, s.cert},
		{"CertificateVerify", &certificateVerifyMsg{signatureAlgorithm: 0x0804, signature: cv.signature}, s.cv},
		{"Finished", &finishedMsg{verifyData: finishedVerifyData(crypto.SHA256, s.shts, sha256Of(s.ch, s.sh, s.ee, s.cert, s.cv))}, s.sf},
		{"NewSessionTicket", &newSessionTicketMsgTLS13{
			lifetime: 30, ageAdd: 0x933d0932, nonce: []byte{0, 0}, label: nst.label, maxEarlyData: 0x400,
		}, nstRaw},
	}
	for i, tt := range msgs {
		if got := tt.m.appendTo(nil); !bytes.Equal(got, tt.want) {
			t.Errorf("#%d %s:\n got %x\nwant %x", i, tt.name, got, tt.want)
		}
	}
}

func TestRFC8448Section4BinderFromTruncatedClientHello(t *testing.T) {
	s3 := loadSection3(t)
	f := traceSection4
	full := traceHex(t, f, stepClientSend, "payload")
	var ch clientHelloMsg
	if !ch.unmarshal(full) {
		t.Fatal("Section 4 ClientHello does not parse")
	}
	if len(ch.pskIdentities) != 1 || len(ch.pskBinders) != 1 || !ch.earlyData {
		t.Fatalf("Section 4 ClientHello: %d identities, %d binders, early_data %v", len(ch.pskIdentities), len(ch.pskBinders), ch.earlyData)
	}
	truncated := full[:ch.bindersOffset]
	if want := traceHex(t, f, stepBinder, "ClientHello prefix"); !bytes.Equal(truncated, want) {
		t.Errorf("truncated ClientHello\n got %x\nwant %x", truncated, want)
	}
	// The ticket is the one Section 3's NewSessionTicket carried.
	var nst newSessionTicketMsgTLS13
	nst.unmarshal(traceHex(t, traceSection3, stepNewTicket, "NewSessionTicket"))
	if !bytes.Equal(ch.pskIdentities[0].label, nst.label) {
		t.Error("Section 4 identity is not the Section 3 ticket")
	}
	if want := traceHex(t, f, stepClientEarly, "IKM"); !bytes.Equal(s3.psk, want) {
		t.Errorf("PSK = %x, want %x", s3.psk, want)
	}
	early := newEarlySecret(crypto.SHA256, s3.psk)
	binderKey := early.resumptionBinderKey()
	binder := finishedVerifyData(crypto.SHA256, binderKey, sha256Of(truncated))
	checks := []struct {
		step, label string
		got         []byte
	}{
		{stepClientEarly, "secret", early.secret},
		{stepBinder, "binder hash", sha256Of(truncated)},
		{stepBinder, "PRK", binderKey},
		{stepBinder, "finished", binder},
		{stepEarlyTraffic, "hash", sha256Of(full)},
		{stepEarlyTraffic, "expanded", early.clientEarlyTrafficSecret(sha256Of(full))},
	}
	for i, c := range checks {
		if want := traceHex(t, f, c.step, c.label); !bytes.Equal(c.got, want) {
			t.Errorf("#%d: %s / %s = %x, want %x", i, c.step, c.label, c.got, want)
		}
	}
	if !bytes.Equal(ch.pskBinders[0], binder) {
		t.Errorf("ClientHello binder %x, want %x", ch.pskBinders[0], binder)
	}
}

func TestRFC8448Section4ResumedHandshake(t *testing.T) {
	s3 := loadSection3(t)
	f := traceSection4
	full := traceHex(t, f, stepClientSend, "payload")
	sh := traceHex(t, f, stepServerHello, "ServerHello")
	ee := traceHex(t, f, stepEE, "EncryptedExtensions")
	var ch clientHelloMsg
	if !ch.unmarshal(full) {
		t.Fatal("Section 4 ClientHello does not parse")
	}
	priv, err := ecdh.X25519().NewPrivateKey(traceHex(t, f, stepServerKeyPair, "private key"))
	if err != nil {
		t.Fatal(err)
	}
	peer, err := ecdh.X25519().NewPublicKey(ch.keyShares[0].data)
	if err != nil {
		t.Fatal(err)
	}
	shared, _ := priv.ECDH(peer)
	hs := newEarlySecret(crypto.SHA256, s3.psk).handshakeSecret(shared)
	th := sha256Of(full, sh)
	shts := hs.serverHandshakeTrafficSecret(th)
	checks := []struct {
		step, label string
		got         []byte
	}{
		{stepHandshake, "secret", hs.secret},
		{stepCHSTraffic, "expanded", hs.clientHandshakeTrafficSecret(th)},
		{stepSHSTraffic, "expanded", shts},
		{stepMaster, "secret", hs.masterSecret().secret},
		{stepServerFinCalc, "finished", finishedVerifyData(crypto.SHA256, shts, sha256Of(full, sh, ee))},
	}
	for i, c := range checks {
		if want := traceHex(t, f, c.step, c.label); !bytes.Equal(c.got, want) {
			t.Errorf("#%d: %s / %s = %x, want %x", i, c.step, c.label, c.got, want)
		}
	}
	shMsg := serverHelloMsg{
		vers: 0x0303, random: sh[6:38], cipherSuite: 0x1301, supportedVersion: 0x0304,
		serverShare:             keyShare{0x1d, traceHex(t, f, stepServerKeyPair, "public key")},
		selectedIdentityPresent: true, selectedIdentity: 0,
	}
	if got := shMsg.appendTo(nil); !bytes.Equal(got, sh) {
		t.Errorf("ServerHello\n got %x\nwant %x", got, sh)
	}
	eeMsg := encryptedExtensionsMsg{
		supportedGroups: []uint16{0x1d, 0x17, 0x18, 0x19, 0x100, 0x101, 0x102, 0x103, 0x104},
		recordSizeLimit: 0x4001, serverNameAck: true, earlyData: true,
	}
	if got := eeMsg.appendTo(nil); !bytes.Equal(got, ee) {
		t.Errorf("EncryptedExtensions\n got %x\nwant %x", got, ee)
	}
	eoed := traceHex(t, f, "{client}  construct a EndOfEarlyData handshake message", "EndOfEarlyData")
	if !new(endOfEarlyDataMsg).unmarshal(eoed) || !bytes.Equal(new(endOfEarlyDataMsg).appendTo(nil), eoed) {
		t.Errorf("EndOfEarlyData %x does not round-trip", eoed)
	}
}

func TestRFC8448Section5HelloRetryRequest(t *testing.T) {
	f := traceSection5
	ch1 := traceHexN(t, f, 0, stepClientHello, "ClientHello")
	hrr := traceHexN(t, f, 0, stepServerHello, "ServerHello")
	ch2 := traceHexN(t, f, 1, stepClientHello, "ClientHello")
	sh := traceHexN(t, f, 1, stepServerHello, "ServerHello")
	if payload := traceHexN(t, f, 1, stepClientSend, "payload"); !bytes.Equal(ch2, payload) {
		t.Fatal("Section 5: second ClientHello differs from its record payload")
	}
	var c1, c2 clientHelloMsg
	if !c1.unmarshal(ch1) || !c2.unmarshal(ch2) {
		t.Fatal("Section 5 ClientHellos do not parse")
	}
	if c2.cookie == nil || len(c2.keyShares) != 1 || c2.keyShares[0].group != 0x17 {
		t.Fatalf("Section 5 second ClientHello: cookie %x, shares %v", c2.cookie, c2.keyShares)
	}
	// The HelloRetryRequest, rebuilt from fields; the cookie is the one the
	// client echoed.
	hrrMsg := serverHelloMsg{
		vers: 0x0303, random: helloRetryRequestRandom, cipherSuite: 0x1301,
		selectedGroup: 0x17, cookie: c2.cookie, supportedVersion: 0x0304,
	}
	if got := hrrMsg.appendTo(nil); !bytes.Equal(got, hrr) {
		t.Errorf("HelloRetryRequest\n got %x\nwant %x", got, hrr)
	}
	var parsed serverHelloMsg
	if !parsed.unmarshal(hrr) || !parsed.isHelloRetryRequest() || parsed.selectedGroup != 0x17 {
		t.Errorf("HelloRetryRequest does not parse back: %+v", parsed)
	}

	// RFC 8446, Section 4.4.1: ClientHello1 becomes message_hash.
	tr := newTranscript(crypto.SHA256)
	tr.write(ch1)
	tr.hrrRewrite()
	for _, m := range [][]byte{hrr, ch2, sh} {
		tr.write(m)
	}
	th := tr.sum(nil)
	if want := traceHex(t, f, stepCHSTraffic, "hash"); !bytes.Equal(th, want) {
		t.Errorf("transcript hash after HelloRetryRequest = %x, want %x", th, want)
	}

	priv, err := ecdh.P256().NewPrivateKey(traceHex(t, f, stepServerKeyPair, "private key"))
	if err != nil {
		t.Fatal(err)
	}
	peer, err := ecdh.P256().NewPublicKey(c2.keyShares[0].data)
	if err != nil {
		t.Fatal(err)
	}
	shared, _ := priv.ECDH(peer)
	hs := newEarlySecret(crypto.SHA256, nil).handshakeSecret(shared)
	checks := []struct {
		step, label string
		got         []byte
	}{
		{stepHandshake, "IKM", shared},
		{stepHandshake, "secret", hs.secret},
		{stepCHSTraffic, "expanded", hs.clientHandshakeTrafficSecret(th)},
		{stepSHSTraffic, "expanded", hs.serverHandshakeTrafficSecret(th)},
	}
	for i, c := range checks {
		if want := traceHex(t, f, c.step, c.label); !bytes.Equal(c.got, want) {
			t.Errorf("#%d: %s / %s = %x, want %x", i, c.step, c.label, c.got, want)
		}
	}
	shMsg := serverHelloMsg{
		vers: 0x0303, random: sh[6:38], cipherSuite: 0x1301, supportedVersion: 0x0304,
		serverShare: keyShare{0x17, traceHex(t, f, stepServerKeyPair, "public key")},
	}
	if got := shMsg.appendTo(nil); !bytes.Equal(got, sh) {
		t.Errorf("ServerHello\n got %x\nwant %x", got, sh)
	}
}

func TestRFC8448TraceReaderSkipsPageBreaks(t *testing.T) {
	// Section 3's Certificate spans a page break; its first certificate
	// length must match the octets read.
	cert := traceHex(t, traceSection3, stepCertificate, "Certificate")
	if len(cert) != 445 || cert[len(cert)-1] != 0 || !bytes.Equal(cert[:4], []byte{0x0b, 0, 1, 0xb9}) {
		t.Errorf("Certificate read as %d octets: %x...", len(cert), cert[:8])
	}
}

// ---- Section 3 end to end against the Engine -------------------------------

// traceRSAKey returns the server's RSA key from Section 2.
func traceRSAKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	const f, step = "section2-private-keys.txt", "The server in most examples uses an RSA certificate"
	num := func(label string) *big.Int { return new(big.Int).SetBytes(traceHex(t, f, step, label)) }
	key := &rsa.PrivateKey{
		PublicKey: rsa.PublicKey{N: num("modulus"), E: int(num("public exponent").Int64())},
		D:         num("private exponent"),
		Primes:    []*big.Int{num("prime1"), num("prime2")},
	}
	if err := key.Validate(); err != nil {
		t.Fatal(err)
	}
	key.Precompute()
	if key.Precomputed.Dp.Cmp(num("exponent1")) != 0 || key.Precomputed.Qinv.Cmp(num("coefficient")) != 0 {
		t.Fatal("Section 2 CRT values disagree with the key")
	}
	return key
}

// recordKeys protects one direction of TLS 1.3 records for the test's
// client (RFC 8446, Section 5.2/5.3), with AES-128-GCM.
type recordKeys struct {
	aead cipher.AEAD
	iv   []byte
	seq  uint64
}

func newRecordKeys(t *testing.T, secret []byte) *recordKeys {
	t.Helper()
	key, iv := trafficKeys(crypto.SHA256, secret, 16)
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	return &recordKeys{aead: aead, iv: iv}
}

func (k *recordKeys) nonce() []byte {
	n := slices.Clone(k.iv)
	for i := range 8 {
		n[len(n)-1-i] ^= byte(k.seq >> (8 * i))
	}
	k.seq++
	return n
}

func (k *recordKeys) seal(innerType byte, pt []byte) []byte {
	n := len(pt) + 1 + k.aead.Overhead()
	hdr := []byte{23, 3, 3, byte(n >> 8), byte(n)}
	return k.aead.Seal(hdr, k.nonce(), append(slices.Clone(pt), innerType), hdr)
}

func (k *recordKeys) open(t *testing.T, rec []byte) (innerType byte, pt []byte) {
	t.Helper()
	if rec[0] != 23 {
		t.Fatalf("record type %d, want application_data", rec[0])
	}
	pt, err := k.aead.Open(nil, k.nonce(), rec[5:], rec[:5])
	if err != nil {
		t.Fatalf("record does not decrypt: %v", err)
	}
	pt = bytes.TrimRight(pt, "\x00")
	return pt[len(pt)-1], pt[:len(pt)-1]
}

// records splits a byte stream into whole records.
func records(t *testing.T, b []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for len(b) > 0 {
		if len(b) < 5 || len(b) < 5+(int(b[3])<<8|int(b[4])) {
			t.Fatalf("partial record in %x", b)
		}
		n := 5 + (int(b[3])<<8 | int(b[4]))
		out = append(out, b[:n])
		b = b[n:]
	}
	return out
}

// TestRFC8448Section3EngineServesTraceClient drives the Engine with the
// Section 3 client: its ClientHello record, its X25519 key, and (since the
// server's ephemeral key cannot be injected) a client flight computed with
// this package's key schedule. With the trace's server random and ephemeral
// key injected through Config.Rand, the ServerHello record must equal the
// trace's byte for byte; EncryptedExtensions and Certificate, decrypted with
// the trace's keys, must equal the trace's (CertificateVerify cannot: RSA-PSS
// signatures are randomised, so Finished and later records differ too), and
// the ticket must carry the PSK the client derives.
func TestRFC8448Section3EngineServesTraceClient(t *testing.T) {
	r := section3EngineHandshake(t)
	e, f := r.engine, traceSection3
	fromServer, toServer := r.fromServer, r.toServer
	var err error

	// Section 3's application data, both ways, then close_notify.
	clientData := traceHex(t, f, "{client}  send application_data record:", "payload")
	in := toServer.seal(23, clientData)
	if _, p, err := e.Read(in, nil); err != nil || !bytes.Equal(p, clientData) {
		t.Fatalf("Read(application data) = %x, %v", p, err)
	}
	serverData := traceHex(t, f, "{server}  send application_data record:", "payload")
	buf, hdr := e.BeginRecord(nil)
	buf, err = e.SealRecord(append(buf, serverData...), hdr)
	if err != nil {
		t.Fatal(err)
	}
	if typ, p := fromServer.open(t, buf); typ != 23 || !bytes.Equal(p, serverData) {
		t.Errorf("server application data %d %x", typ, p)
	}
	alert := traceHex(t, f, "{client}  send alert record:", "payload")
	if _, _, err := e.Read(toServer.seal(21, alert), nil); err != nil || e.Status()&StatusPeerClosed == 0 {
		t.Errorf("close_notify: %v, status %b", err, e.Status())
	}
}

// section3Engine is the state after section3EngineHandshake.
type section3Engine struct {
	engine               *Engine
	cfg                  *Config
	fromServer, toServer *recordKeys // application traffic keys
	ticket               newSessionTicketMsgTLS13
	psk                  []byte // the resumption PSK of the ticket
}

// section3EngineHandshake runs the Section 3 handshake against a new Engine
// (see TestRFC8448Section3EngineServesTraceClient) up to the ticket.
func section3EngineHandshake(t *testing.T) *section3Engine {
	t.Helper()
	f := traceSection3
	traceCH := traceHex(t, f, stepClientHello, "ClientHello")
	traceSH := traceHex(t, f, stepServerHello, "ServerHello")
	traceCert := traceHex(t, f, stepCertificate, "Certificate")
	var cm certificateMsgTLS13
	if !cm.unmarshal(traceCert) {
		t.Fatal("Section 3 Certificate does not parse")
	}
	key := traceRSAKey(t)
	leaf, err := x509.ParseCertificate(cm.certificates[0])
	if err != nil {
		t.Fatal(err)
	}
	// The trace's key is RSA-1024, below NewCertificate's floor: build the
	// Certificate by hand, limited to rsa_pss_rsae_sha256 as in the trace.
	cert := &Certificate{Chain: cm.certificates, Key: key, Leaf: leaf, schemes: []SignatureScheme{PSSWithSHA256}}
	tk, err := NewTicketKeys(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{
		Certificates:     []*Certificate{cert},
		CipherSuites:     []uint16{0x1301},
		CurvePreferences: []CurveID{X25519},
		TicketKeys:       tk,
		// The trace's server random, then its ephemeral X25519 private key
		// (the engine draws X25519 keys from Rand), then real randomness.
		Rand: io.MultiReader(bytes.NewReader(traceSH[6:38]),
			bytes.NewReader(traceHex(t, f, stepServerKeyPair, "private key")), rand.Reader),
		Now:       func() time.Time { return time.Unix(1767225600, 0) },
		AsyncSign: func(SignatureScheme) bool { return true },
	}
	e := NewEngine(cfg)

	// ClientHello in, ServerHello + EncryptedExtensions + Certificate out.
	in := traceHex(t, f, stepClientSend, "complete record")
	if n, _, err := e.Read(in, nil); err != nil || n != len(in) {
		t.Fatalf("Read(ClientHello) = %d, %v", n, err)
	}
	if st := e.Status(); st&StatusWantSign == 0 || st&StatusHasOutput == 0 {
		t.Fatalf("status after ClientHello %b", st)
	}
	out := records(t, e.AppendOutput(nil))
	if out[0][0] != 22 {
		t.Fatalf("first record type %d", out[0][0])
	}
	// With the trace's random and ephemeral key, the ServerHello record is
	// the trace's byte for byte, so every secret after it is the trace's.
	if want := traceHex(t, f, stepServerSend, "complete record"); !bytes.Equal(out[0], want) {
		t.Fatalf("ServerHello record\n got %x\nwant %x", out[0], want)
	}
	sh := out[0][5:]
	share := sh[len(sh)-6-32 : len(sh)-6]
	clientKey, err := ecdh.X25519().NewPrivateKey(traceHex(t, f, stepClientKeyPair, "private key"))
	if err != nil {
		t.Fatal(err)
	}
	serverPub, err := ecdh.X25519().NewPublicKey(share)
	if err != nil {
		t.Fatal(err)
	}
	shared, _ := clientKey.ECDH(serverPub)
	tr := newTranscript(crypto.SHA256)
	tr.write(traceCH)
	tr.write(sh)
	hs := newEarlySecret(crypto.SHA256, nil).handshakeSecret(shared)
	chts, shts := hs.clientHandshakeTrafficSecret(tr.sum(nil)), hs.serverHandshakeTrafficSecret(tr.sum(nil))
	fromServer, toServer := newRecordKeys(t, shts), newRecordKeys(t, chts)

	var flight []byte
	for _, rec := range out[1:] {
		if rec[0] == 20 {
			continue // compatibility ChangeCipherSpec
		}
		typ, pt := fromServer.open(t, rec)
		if typ != 22 {
			t.Fatalf("inner type %d in the server flight", typ)
		}
		flight = append(flight, pt...)
	}
	eeLen := handshakeLen(flight)
	var ee encryptedExtensionsMsg
	if !ee.unmarshal(flight[:eeLen]) || ee.recordSizeLimit != 0x4001 || !ee.serverNameAck || ee.alpnProtocol != "" {
		t.Errorf("EncryptedExtensions %+v", ee)
	}
	if !bytes.Equal(flight[eeLen:], traceCert) {
		t.Errorf("Certificate\n got %x\nwant %x", flight[eeLen:], traceCert)
	}
	tr.write(flight)

	// The signature, computed here as an asynchronous signer would.
	req := e.SignRequest()
	if req == nil || req.Scheme != PSSWithSHA256 {
		t.Fatalf("sign request %+v", req)
	}
	sig, err := req.Key.Sign(rand.Reader, req.Digest, req.Opts)
	if err := e.SignDone(sig, err); err != nil {
		t.Fatal(err)
	}
	// CertificateVerify and Finished, then (RFC 8446, Section 4.6.1: no
	// client authentication was requested) the NewSessionTicket under the
	// application key in the same flight.
	out = records(t, e.AppendOutput(nil))
	if len(out) != 3 {
		t.Fatalf("%d records after SignDone, want CertificateVerify, Finished, NewSessionTicket", len(out))
	}
	flight = nil
	for _, rec := range out[:2] {
		_, pt := fromServer.open(t, rec)
		flight = append(flight, pt...)
	}
	ticketRecord := out[2]
	cvLen := handshakeLen(flight)
	var cv certificateVerifyMsg
	if !cv.unmarshal(flight[:cvLen]) || cv.signatureAlgorithm != 0x0804 || !bytes.Equal(cv.signature, sig) {
		t.Fatalf("CertificateVerify %x", flight[:cvLen])
	}
	signed := append(bytes.Repeat([]byte{0x20}, 64), "TLS 1.3, server CertificateVerify\x00"...)
	digest := sha256.Sum256(append(signed, tr.sum(nil)...))
	if err := rsa.VerifyPSS(&key.PublicKey, crypto.SHA256, digest[:], cv.signature, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash}); err != nil {
		t.Errorf("CertificateVerify does not verify: %v", err)
	}
	tr.write(flight[:cvLen])
	var sf finishedMsg
	if !sf.unmarshal(flight[cvLen:]) || !bytes.Equal(sf.verifyData, finishedVerifyData(crypto.SHA256, shts, tr.sum(nil))) {
		t.Fatalf("server Finished %x is not ours", flight[cvLen:])
	}
	tr.write(flight[cvLen:])
	ms := hs.masterSecret()
	cats, sats := ms.clientApplicationTrafficSecret(tr.sum(nil)), ms.serverApplicationTrafficSecret(tr.sum(nil))

	// Client Finished in: the handshake completes; the ticket already went out.
	cf := (&finishedMsg{verifyData: finishedVerifyData(crypto.SHA256, chts, tr.sum(nil))}).appendTo(nil)
	tr.write(cf)
	in = toServer.seal(22, cf)
	if n, _, err := e.Read(in, nil); err != nil || n != len(in) {
		t.Fatalf("Read(client Finished) = %d, %v", n, err)
	}
	if e.Status()&StatusHandshakeDone == 0 {
		t.Fatalf("status after client Finished %b", e.Status())
	}
	if out := e.AppendOutput(nil); len(out) != 0 {
		t.Fatalf("%d bytes after the client Finished, want none", len(out))
	}
	fromServer, toServer = newRecordKeys(t, sats), newRecordKeys(t, cats)
	typ, pt := fromServer.open(t, ticketRecord)
	var nst newSessionTicketMsgTLS13
	if typ != 22 || !nst.unmarshal(pt) {
		t.Fatalf("NewSessionTicket %x", pt)
	}
	psk := resumptionPSK(crypto.SHA256, ms.resumptionMasterSecret(tr.sum(nil)), nst.nonce)
	state, ok := tk.openTicket(nst.label)
	var st sessionState
	if !ok || !st.unmarshal(state) || !bytes.Equal(st.secret, psk) || st.suite != 0x1301 || st.serverName != "server" {
		t.Errorf("ticket state %+v does not carry the client's PSK %x", st, psk)
	}
	return &section3Engine{engine: e, cfg: cfg, fromServer: fromServer, toServer: toServer, ticket: nst, psk: psk}
}

// TestRFC8448Section4EngineResumesWithItsTicket replays the Section 4
// client against the Engine with the ticket the Engine issued in Section 3:
// the trace's ClientHello with that ticket as its identity and a binder
// computed over the truncated hello, then the trace's 0-RTT record, which
// the Engine must skip (it refuses early data), then the client Finished.
func TestRFC8448Section4EngineResumesWithItsTicket(t *testing.T) {
	s3 := section3EngineHandshake(t)
	f := traceSection4
	var ch clientHelloMsg
	if !ch.unmarshal(traceHex(t, f, stepClientSend, "payload")) {
		t.Fatal("Section 4 ClientHello does not parse")
	}
	const ageMillis = 10000
	ch.pskIdentities = []pskIdentity{{label: s3.ticket.label, obfuscatedTicketAge: ageMillis + s3.ticket.ageAdd}}
	ch.pskBinders = [][]byte{make([]byte, 32)}
	hello := ch.appendTo(nil)
	var again clientHelloMsg
	if !again.unmarshal(hello) {
		t.Fatal("rebuilt ClientHello does not parse")
	}
	early := newEarlySecret(crypto.SHA256, s3.psk)
	copy(hello[len(hello)-32:], finishedVerifyData(crypto.SHA256, early.resumptionBinderKey(), sha256Of(hello[:again.bindersOffset])))

	cfg := *s3.cfg
	cfg.Now = func() time.Time { return s3.cfg.Now().Add(ageMillis * time.Millisecond) }
	e := NewEngine(&cfg)
	in := append([]byte{22, 3, 1, byte(len(hello) >> 8), byte(len(hello))}, hello...)
	in = append(in, traceHex(t, f, "{client}  send application_data record:", "complete record")...)
	if n, _, err := e.Read(in, nil); err != nil || n != len(in) {
		t.Fatalf("Read(ClientHello, 0-RTT record) = %d of %d, %v", n, len(in), err)
	}
	out := records(t, e.AppendOutput(nil))
	var sh serverHelloMsg
	if out[0][0] != 22 || !sh.unmarshal(out[0][5:]) || !sh.selectedIdentityPresent || sh.selectedIdentity != 0 ||
		sh.serverShare.group != 0x1d || sh.cipherSuite != 0x1301 {
		t.Fatalf("ServerHello %+v does not accept the PSK", sh)
	}
	clientKey, err := ecdh.X25519().NewPrivateKey(traceHex(t, f, stepClientKeyPair, "private key"))
	if err != nil {
		t.Fatal(err)
	}
	serverPub, err := ecdh.X25519().NewPublicKey(sh.serverShare.data)
	if err != nil {
		t.Fatal(err)
	}
	shared, _ := clientKey.ECDH(serverPub)
	tr := newTranscript(crypto.SHA256)
	tr.write(hello)
	tr.write(out[0][5:])
	hs := early.handshakeSecret(shared)
	chts, shts := hs.clientHandshakeTrafficSecret(tr.sum(nil)), hs.serverHandshakeTrafficSecret(tr.sum(nil))
	fromServer, toServer := newRecordKeys(t, shts), newRecordKeys(t, chts)
	// The flight ends with the NewSessionTicket under the application key
	// (RFC 8446, Section 4.6.1: no client authentication when resuming).
	ticketRecord := out[len(out)-1]
	var flight []byte
	for _, rec := range out[1 : len(out)-1] {
		if rec[0] != 20 {
			_, pt := fromServer.open(t, rec)
			flight = append(flight, pt...)
		}
	}
	eeLen := handshakeLen(flight)
	var ee encryptedExtensionsMsg
	if !ee.unmarshal(flight[:eeLen]) || ee.earlyData {
		t.Errorf("EncryptedExtensions %+v: early data must be refused", ee)
	}
	tr.write(flight[:eeLen])
	var sf finishedMsg // no Certificate, no CertificateVerify when resuming
	if !sf.unmarshal(flight[eeLen:]) || !bytes.Equal(sf.verifyData, finishedVerifyData(crypto.SHA256, shts, tr.sum(nil))) {
		t.Fatalf("server Finished %x is not ours", flight[eeLen:])
	}
	tr.write(flight[eeLen:])
	sats := hs.masterSecret().serverApplicationTrafficSecret(tr.sum(nil))
	var nst newSessionTicketMsgTLS13
	if typ, pt := newRecordKeys(t, sats).open(t, ticketRecord); typ != 22 || !nst.unmarshal(pt) {
		t.Errorf("last record of the resumed flight: type %d, %x, want a NewSessionTicket", typ, pt)
	}
	// Early data was refused: no EndOfEarlyData (RFC 8446, Section 4.5).
	cf := (&finishedMsg{verifyData: finishedVerifyData(crypto.SHA256, chts, tr.sum(nil))}).appendTo(nil)
	if _, _, err := e.Read(toServer.seal(22, cf), nil); err != nil || e.Status()&StatusHandshakeDone == 0 {
		t.Fatalf("client Finished: %v, status %b", err, e.Status())
	}
	if cs := e.ConnectionState(); !cs.DidResume || cs.CipherSuite != 0x1301 {
		t.Errorf("connection state %+v", cs)
	}
}

// TestRFC8448Section5EngineSendsHelloRetryRequest replays the Section 5
// client against an Engine that prefers P-256: the Engine's
// HelloRetryRequest must equal the trace's without the cookie (the Engine
// sends none), and the handshake must complete over the message_hash
// transcript with the trace client's P-256 key and its second ClientHello
// (cookie removed, as the Engine asked for none).
func TestRFC8448Section5EngineSendsHelloRetryRequest(t *testing.T) {
	f := traceSection5
	var cm certificateMsgTLS13
	cm.unmarshal(traceHex(t, traceSection3, stepCertificate, "Certificate"))
	key := traceRSAKey(t)
	leaf, err := x509.ParseCertificate(cm.certificates[0])
	if err != nil {
		t.Fatal(err)
	}
	traceSH := traceHexN(t, f, 1, stepServerHello, "ServerHello")
	cfg := &Config{
		Certificates:     []*Certificate{{Chain: cm.certificates, Key: key, Leaf: leaf, schemes: []SignatureScheme{PSSWithSHA256}}},
		CipherSuites:     []uint16{0x1301},
		CurvePreferences: []CurveID{CurveP256},
		Rand:             io.MultiReader(bytes.NewReader(traceSH[6:38]), rand.Reader),
	}
	e := NewEngine(cfg)
	if n, _, err := e.Read(traceHexN(t, f, 0, stepClientSend, "complete record"), nil); err != nil || n == 0 {
		t.Fatalf("Read(ClientHello1) = %d, %v", n, err)
	}
	out := records(t, e.AppendOutput(nil))
	hrr := out[0][5:]
	want := (&serverHelloMsg{vers: 0x0303, random: helloRetryRequestRandom, cipherSuite: 0x1301,
		selectedGroup: 0x17, supportedVersion: 0x0304}).appendTo(nil)
	if len(out) != 1 || !bytes.Equal(hrr, want) {
		t.Fatalf("HelloRetryRequest\n got %x\nwant %x", hrr, want)
	}
	var traceHRR serverHelloMsg
	traceHRR.unmarshal(traceHexN(t, f, 0, stepServerHello, "ServerHello"))
	traceHRR.cookie = nil
	if !bytes.Equal(traceHRR.appendTo(nil), want) {
		t.Error("the trace's HelloRetryRequest without its cookie differs from the Engine's")
	}

	var ch2 clientHelloMsg
	if !ch2.unmarshal(traceHexN(t, f, 1, stepClientHello, "ClientHello")) {
		t.Fatal("Section 5 ClientHello2 does not parse")
	}
	ch2.cookie = nil
	hello2 := ch2.appendTo(nil)
	in := append([]byte{22, 3, 3, byte(len(hello2) >> 8), byte(len(hello2))}, hello2...)
	if n, _, err := e.Read(in, nil); err != nil || n != len(in) {
		t.Fatalf("Read(ClientHello2) = %d, %v", n, err)
	}
	out = records(t, e.AppendOutput(nil))
	sh := out[0][5:]
	var shMsg serverHelloMsg
	if !shMsg.unmarshal(sh) || shMsg.serverShare.group != 0x17 || !bytes.Equal(shMsg.random, traceSH[6:38]) {
		t.Fatalf("ServerHello %+v", shMsg)
	}
	clientKey, err := ecdh.P256().NewPrivateKey(traceHexN(t, f, 1, stepClientKeyPair, "private key"))
	if err != nil {
		t.Fatal(err)
	}
	serverPub, err := ecdh.P256().NewPublicKey(shMsg.serverShare.data)
	if err != nil {
		t.Fatal(err)
	}
	shared, _ := clientKey.ECDH(serverPub)
	tr := newTranscript(crypto.SHA256)
	tr.write(traceHexN(t, f, 0, stepClientHello, "ClientHello"))
	tr.hrrRewrite()
	for _, m := range [][]byte{hrr, hello2, sh} {
		tr.write(m)
	}
	hs := newEarlySecret(crypto.SHA256, nil).handshakeSecret(shared)
	chts, shts := hs.clientHandshakeTrafficSecret(tr.sum(nil)), hs.serverHandshakeTrafficSecret(tr.sum(nil))
	fromServer, toServer := newRecordKeys(t, shts), newRecordKeys(t, chts)
	var flight []byte
	for _, rec := range out[1:] {
		_, pt := fromServer.open(t, rec)
		flight = append(flight, pt...)
	}
	// EncryptedExtensions, Certificate, CertificateVerify (signed inline),
	// Finished.
	var types []uint8
	for len(flight) > 0 {
		n := handshakeLen(flight)
		msg := flight[:n]
		flight = flight[n:]
		types = append(types, msg[0])
		switch msg[0] {
		case typeCertificateVerify:
			var cv certificateVerifyMsg
			signed := append(bytes.Repeat([]byte{0x20}, 64), "TLS 1.3, server CertificateVerify\x00"...)
			digest := sha256.Sum256(append(signed, tr.sum(nil)...))
			if !cv.unmarshal(msg) || rsa.VerifyPSS(&key.PublicKey, crypto.SHA256, digest[:], cv.signature,
				&rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash}) != nil {
				t.Fatal("CertificateVerify does not verify over the message_hash transcript")
			}
		case typeFinished:
			var sf finishedMsg
			if !sf.unmarshal(msg) || !bytes.Equal(sf.verifyData, finishedVerifyData(crypto.SHA256, shts, tr.sum(nil))) {
				t.Fatal("server Finished does not match the message_hash transcript")
			}
		}
		tr.write(msg)
	}
	if want := []uint8{typeEncryptedExtensions, typeCertificate, typeCertificateVerify, typeFinished}; !slices.Equal(types, want) {
		t.Fatalf("server flight %v, want %v", types, want)
	}
	cf := (&finishedMsg{verifyData: finishedVerifyData(crypto.SHA256, chts, tr.sum(nil))}).appendTo(nil)
	if _, _, err := e.Read(toServer.seal(22, cf), nil); err != nil || e.Status()&StatusHandshakeDone == 0 {
		t.Fatalf("client Finished: %v, status %b", err, e.Status())
	}
	if cs := e.ConnectionState(); cs.CurveID != CurveP256 || cs.DidResume {
		t.Errorf("connection state %+v", cs)
	}
}
