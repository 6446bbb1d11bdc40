package tlsengine

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"testing"
)

func TestRecordPathDoesNotAllocate(t *testing.T) {
	for _, suite := range defaultCipherSuites {
		e, peer := establishedWithPeer(t)
		s := cipherSuiteByID(suite)
		secret := bytes.Repeat([]byte{1}, s.hash.Size())
		e.in.setTrafficSecret(s, secret)
		e.out.setTrafficSecret(s, secret)
		*peer = e.in
		pt := bytes.Repeat([]byte{'z'}, 1000)
		if n := sealAllocs(t, e, pt); n != 0 {
			t.Errorf("%x: SealRecord allocates %.1f times", suite, n)
		}
		rec := peerRecord(t, peer, recordTypeApplicationData, pt)
		in := make([]byte, len(rec))
		plain := make([]byte, 0, 2048)
		if n := testing.AllocsPerRun(100, func() {
			copy(in, rec)
			e.in.seq = peer.seq - 1
			if _, p, err := e.Read(in, plain[:0]); err != nil || len(p) != len(pt) {
				t.Fatal(err)
			}
			copy(in, rec)
			e.in.seq = peer.seq - 1
			if _, p, err := e.Read(in, nil); err != nil || len(p) != len(pt) {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%x: Read allocates %.1f times", suite, n)
		}
	}
}

// sealAllocs returns the allocations per run of sealing one application
// data record of pt with e into a 2048-byte buffer.
func sealAllocs(t *testing.T, e *Engine, pt []byte) float64 {
	t.Helper()
	buf := make([]byte, 0, 2048)
	return testing.AllocsPerRun(100, func() {
		out, hdr := e.BeginRecord(buf[:0])
		out = append(out, pt...)
		if _, err := e.SealRecord(out, hdr); err != nil {
			t.Fatal(err)
		}
	})
}

func TestReadCompactsPlaintextInPlace(t *testing.T) {
	e, peer := establishedWithPeer(t)
	var in []byte
	var want []byte
	for i := 0; i < 5; i++ {
		m := bytes.Repeat([]byte{'a' + byte(i)}, 10*i+1)
		want = append(want, m...)
		in = append(in, peerRecord(t, peer, recordTypeApplicationData, m)...)
	}
	full := len(in)
	in = append(in, 23, 3, 3, 0) // a partial header stays with the caller
	c, p, err := e.Read(in, nil)
	if err != nil || c != full || !bytes.Equal(p, want) || &p[0] != &in[0] {
		t.Fatalf("consumed %d/%d, p %q, err %v", c, full, p, err)
	}
	if e.Status()&StatusNeedInput == 0 {
		t.Errorf("status %b", e.Status())
	}
}

func TestReleasedOutputIsNotReused(t *testing.T) {
	// Output goes to caller buffers; overwriting them must not disturb the engine.
	e, peer := establishedWithPeer(t)
	e.KeyUpdate(false)
	out := e.AppendOutput(nil)
	for i := range out {
		out[i] = 0xAA
	}
	if e.hasOutput() || len(e.AppendOutput(nil)) != 0 {
		t.Fatal("output handed out twice")
	}
	in := peerRecord(t, peer, recordTypeApplicationData, []byte("ok"))
	if _, p, err := e.Read(in, nil); err != nil || string(p) != "ok" {
		t.Fatal(p, err)
	}
}

func TestAppendRecordsSplitsAtMaxPlaintext(t *testing.T) {
	e, peer := establishedWithPeer(t)
	e.sendLimit = 100
	msg := bytes.Repeat([]byte{'q'}, 250)
	out, err := e.AppendRecords(nil, msg)
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	for len(out) > 0 {
		rec, _ := nextRecord(out)
		_, pt, err := peer.openInPlace(rec)
		if err != nil || len(pt) > 100 {
			t.Fatalf("record of %d: %v", len(pt), err)
		}
		got = append(got, pt...)
		out = out[len(rec):]
	}
	if !bytes.Equal(got, msg) {
		t.Error("split records do not reassemble")
	}
	if _, err := e.SealRecord(append(make([]byte, 5), msg...), 0); !errors.Is(err, ErrRecordOverflow) {
		t.Errorf("oversized SealRecord: %v", err)
	}
}

func TestSealBeforeHandshakeFails(t *testing.T) {
	e := NewEngine(testConfig(t))
	out, hdr := e.BeginRecord(nil)
	if _, err := e.SealRecord(append(out, 'x'), hdr); err != ErrNotEstablished {
		t.Errorf("got %v", err)
	}
	if err := e.KeyUpdate(true); err != ErrNotEstablished {
		t.Errorf("KeyUpdate: %v", err)
	}
	if e.SignDone([]byte{1}, nil) != ErrNoPendingOperation || e.VerifyDone(nil) != ErrNoPendingOperation {
		t.Error("Sign/VerifyDone without a request")
	}
	if st := e.Status(); st != StatusNeedInput {
		t.Errorf("fresh status %b", st)
	}
}

func TestSequenceNumberExhaustionFails(t *testing.T) {
	e, peer := establishedWithPeer(t)
	e.out.seq = maxSeq
	if _, err := e.AppendRecords(nil, []byte("x")); !errors.Is(err, ErrSequenceLimit) {
		t.Errorf("seal at maxSeq: %v", err)
	}
	e2, _ := establishedWithPeer(t)
	in := peerRecord(t, peer, recordTypeApplicationData, []byte("x"))
	e2.in.seq = maxSeq
	if _, _, err := e2.Read(in, nil); !errors.Is(err, ErrSequenceLimit) {
		t.Errorf("open at maxSeq: %v", err)
	}
}

func TestOwnKeyUpdateBeforeAEADLimit(t *testing.T) {
	e, _ := establishedWithPeer(t)
	e.out.seq = keyUpdateAfterRecords - 1
	old := e.out.secret
	out, _ := e.AppendRecords(nil, []byte("x"))
	if !e.kuQ {
		t.Fatal("no KeyUpdate queued at the limit")
	}
	out, _ = e.AppendRecords(out, []byte("y"))
	if e.out.secret == old || e.out.seq != 1 {
		t.Errorf("keys not updated: seq %d", e.out.seq)
	}
}

var selectSuiteTests = []struct {
	server, client []uint16
	aesHW          bool
	want           uint16
}{
	{defaultCipherSuites, []uint16{0x1301, 0x1302, 0x1303}, true, 0x1301},
	{defaultCipherSuites, []uint16{0x1303, 0x1301}, true, 0x1303}, // client lacks AES hardware
	{defaultCipherSuites, []uint16{0x1302, 0x1301, 0x1303}, false, 0x1303},
	{defaultCipherSuites, []uint16{0x1302}, false, 0x1302},
	{[]uint16{0x1302}, []uint16{0x1301, 0x1302}, true, 0x1302},
	{[]uint16{0x1301}, []uint16{0x1303}, true, 0},
	{defaultCipherSuites, []uint16{0xc02b, 0x1302}, true, 0x1302},
}

func TestSelectCipherSuite(t *testing.T) {
	saved := hasAESHardware
	defer func() { hasAESHardware = saved }()
	for i, tt := range selectSuiteTests {
		hasAESHardware = tt.aesHW
		got := selectCipherSuite(tt.server, tt.client)
		if got == nil && tt.want != 0 || got != nil && got.id != tt.want {
			t.Errorf("#%d: got %v, want %x", i, got, tt.want)
		}
	}
}

var matchNameTests = []struct {
	name string
	want int
}{
	{"example.com", 2}, {"Example.COM.", 2}, {"x.wild.test", 1}, {"wild.test", 0},
	{"a.b.wild.test", 0}, {"other.com", 0}, {"", 0},
}

func TestCertificateMatchesName(t *testing.T) {
	c := loadPKI(t).p256
	for i, tt := range matchNameTests {
		if got := c.matchesName(tt.name); got != tt.want {
			t.Errorf("#%d: %q: got %d, want %d", i, tt.name, got, tt.want)
		}
	}
}

func TestSelectCertificateBySignatureAlgorithms(t *testing.T) {
	p := loadPKI(t)
	certs := allCerts(p)
	c, s := selectCertificate(certs, "example.com", []uint16{uint16(Ed25519)}, nil)
	if c != p.ed || s != Ed25519 {
		t.Errorf("got %v/%v, want the Ed25519 certificate", c.Leaf.DNSNames, s)
	}
	c, s = selectCertificate(certs, "", []uint16{uint16(PSSWithSHA384)}, nil)
	if c != p.rsa || s != PSSWithSHA384 {
		t.Errorf("got %v/%v, want RSA-PSS-SHA384", c.Leaf.DNSNames, s)
	}
	if c, _ := selectCertificate(certs, "", []uint16{0x0201}, nil); c != nil {
		t.Error("selected a certificate for SHA-1 only")
	}
}

func TestNewCertificateRejectsBadKeys(t *testing.T) {
	p := loadPKI(t)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if _, err := NewCertificate(p.p256.Chain, other); err == nil {
		t.Error("mismatched key accepted")
	}
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	leaf := issue(t, p.caCert, p.caKey, small, "small", false, nil, "small.test")
	if _, err := NewCertificate([][]byte{leaf.Raw}, small); err == nil {
		t.Error("RSA-1024 accepted")
	}
	if _, err := NewCertificate(nil, other); err == nil {
		t.Error("empty chain accepted")
	}
}

func TestParseCertificatePEM(t *testing.T) {
	p := loadPKI(t)
	der, _ := x509.MarshalPKCS8PrivateKey(p.p256.Key)
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.p256.Chain[0]})
	certPEM = append(certPEM, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.p256.Chain[1]})...)
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	c, err := ParseCertificatePEM(certPEM, keyPEM)
	if err != nil || len(c.Chain) != 2 || c.schemes[0] != ECDSAWithP256AndSHA256 {
		t.Fatalf("%v %v", c, err)
	}
	if _, err := ParseCertificatePEM(certPEM, []byte("junk")); err == nil {
		t.Error("junk key accepted")
	}
}

var badShareTests = []struct {
	g     CurveID
	share []byte
}{
	{X25519, make([]byte, 31)},
	{CurveP256, make([]byte, 65)}, // not on the curve
	{CurveP384, []byte{4}},
	{X25519MLKEM768, make([]byte, 1184)},
	{CurveP521, make([]byte, 133)},      // not on the curve
	{CurveID(0x001e), make([]byte, 56)}, // x448: unsupported
}

func TestServerKeyShareRejectsBadShares(t *testing.T) {
	for i, tt := range badShareTests {
		if _, _, err := serverKeyShare(tt.g, tt.share, rand.Reader); err == nil {
			t.Errorf("#%d: %v share of %d bytes accepted", i, tt.g, len(tt.share))
		}
	}
}

func TestAlertErrorNamesAlert(t *testing.T) {
	err := alertErr(AlertDecodeError, ErrDecode)
	if err.Error() != "tlsengine: malformed message (sent decode_error)" || !errors.Is(err, ErrDecode) {
		t.Errorf("%q", err.Error())
	}
	if Alert(200).String() != "alert(200)" {
		t.Error(Alert(200).String())
	}
}

func TestAsyncSignBlocksUntilSignDone(t *testing.T) {
	cfg := testConfig(t)
	cfg.AsyncSign = func(SignatureScheme) bool { return true }
	rec := clientHelloRecord(t, nil)
	e := NewEngine(cfg)
	if c, _, err := e.Read(bytes.Clone(rec), nil); err != nil || c != len(rec) {
		t.Fatalf("Read: %d %v", c, err)
	}
	st := e.Status()
	if st&StatusWantSign == 0 || st&StatusHasOutput == 0 || st&StatusNeedInput != 0 {
		t.Fatalf("status %b", st)
	}
	r := e.SignRequest()
	if r == nil || r.Scheme != ECDSAWithP256AndSHA256 || len(r.Digest) != 32 {
		t.Fatalf("request %+v", r)
	}
	first := e.AppendOutput(nil)
	// While blocked, Read consumes nothing.
	if c, _, err := e.Read([]byte{20, 3, 3, 0, 1, 1}, nil); c != 0 || err != nil {
		t.Errorf("Read while blocked: %d %v", c, err)
	}
	sig, err := r.Key.Sign(rand.Reader, r.Digest, r.Opts)
	if err := e.SignDone(sig, err); err != nil {
		t.Fatal(err)
	}
	rest := e.AppendOutput(nil)
	if len(first) == 0 || len(rest) == 0 || e.Status()&StatusWantSign != 0 || e.SignRequest() != nil {
		t.Errorf("flight %d+%d bytes, status %b", len(first), len(rest), e.Status())
	}
}

func TestSignDoneErrorIsInternalError(t *testing.T) {
	cfg := testConfig(t)
	cfg.AsyncSign = func(SignatureScheme) bool { return true }
	e := NewEngine(cfg)
	e.Read(clientHelloRecord(t, nil), nil)
	e.AppendOutput(nil)
	err := e.SignDone(nil, errors.New("hsm offline"))
	wantAlertErr(t, "sign failure", err, AlertInternalError)
	if out := e.AppendOutput(nil); len(out) != 5+2+1+aeadTagLen {
		t.Errorf("alert record %x", out)
	}
}
