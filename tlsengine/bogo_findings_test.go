package tlsengine

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"slices"
	"testing"
	"time"

	"golang.org/x/crypto/cryptobyte"
)

// Behaviours the BoGo run (CONFORMANCE.md) found, each checked here against
// a crypto/tls client.

// An empty ClientCAs pool sends no certificate_authorities extension: its
// list may not be empty (RFC 8446, Section 4.2.4), and crypto/tls refuses
// the CertificateRequest as malformed. The chain then fails verification
// against the empty pool with unknown_ca. (BoGo: ClientAuth-Server-TLS13-TLS-Async.)
func TestBoGoEmptyClientCAPool(t *testing.T) {
	p := loadPKI(t)
	for _, async := range []bool{false, true} {
		cfg := &Config{Certificates: []*Certificate{p.p256}, ClientAuth: RequireClientCert, ClientCAs: x509.NewCertPool(), AsyncVerify: async}
		cc := clientConfig(p)
		c := p.client
		cc.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &c, nil }
		r, serr, e := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1])
		wantClientAuth(t, "empty pool", r, serr, e, AlertUnknownCA, false)
	}
}

// recordCounter is a net.Conn that counts the records it reads, by type.
type recordCounter struct {
	net.Conn
	buf    []byte
	counts map[byte]int
	first  []byte // the body of the first handshake record (TLS 1.2: the ServerHello)
}

func (c *recordCounter) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.buf = append(c.buf, p[:n]...)
	for len(c.buf) >= 5 {
		l := 5 + (int(c.buf[3])<<8 | int(c.buf[4]))
		if len(c.buf) < l {
			break
		}
		c.counts[c.buf[0]]++
		if c.buf[0] == recordTypeHandshake && c.first == nil {
			c.first = bytes.Clone(c.buf[5:l])
		}
		c.buf = c.buf[l:]
	}
	return n, err
}

// serverHelloExtensions lists the extension types of the ServerHello at the
// start of b (a TLS 1.2 handshake record body).
func serverHelloExtensions(t *testing.T, b []byte) []uint16 {
	t.Helper()
	s := cryptobyte.String(b)
	var typ uint8
	var body, sid, exts cryptobyte.String
	if !s.ReadUint8(&typ) || typ != typeServerHello || !s.ReadUint24LengthPrefixed(&body) ||
		!body.Skip(2+32) || !body.ReadUint8LengthPrefixed(&sid) || !body.Skip(2+1) || !body.ReadUint16LengthPrefixed(&exts) {
		t.Fatalf("not a ServerHello: %x", b)
	}
	var types []uint16
	for !exts.Empty() {
		var et uint16
		var data cryptobyte.String
		if !exts.ReadUint16(&et) || !exts.ReadUint16LengthPrefixed(&data) {
			t.Fatalf("bad ServerHello extensions: %x", b)
		}
		types = append(types, et)
	}
	return types
}

// A TLS 1.2 ServerHello acknowledges the client's server_name with an empty
// extension on a full handshake, and not on resumption (RFC 6066, Section 3).
// (BoGo: ServerNameExtensionServer-TLS-TLS12.)
func TestBoGoServerNameAckTLS12(t *testing.T) {
	p := loadPKI(t)
	tk, err := NewTicketKeys(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Certificates: []*Certificate{p.p256}, TicketKeys: tk, MinVersion: VersionTLS12}
	cc := clientConfig(p)
	cc.MinVersion, cc.MaxVersion = tls.VersionTLS12, tls.VersionTLS12
	cc.ClientSessionCache = tls.NewLRUClientSessionCache(1)
	for i, want := range []bool{true, false} {
		cl, sc := tcpPair(t)
		rc := &recordCounter{Conn: cl, counts: map[byte]int{}}
		res := make(chan clientResult, 1)
		go echoClient(rc, cc, echoMsgs[:1], res)
		d := &driver{t: t, e: NewEngine(cfg), conn: sc}
		serr := d.run()
		sc.Close()
		r := <-res
		if !wantOK(t, "handshake", r, serr) {
			return
		}
		if r.state.DidResume != (i == 1) {
			t.Fatalf("connection %d: resumed %v", i, r.state.DidResume)
		}
		if got := slices.Contains(serverHelloExtensions(t, rc.first), extensionServerName); got != want {
			t.Errorf("connection %d (resumed %v): server_name ack %v, want %v", i, r.state.DidResume, got, want)
		}
	}
}

// A client certificate whose key usage lacks digitalSignature cannot sign
// CertificateVerify (RFC 8446, Section 4.4.2.3; RFC 5280, Section 4.2.1.3):
// it is refused with unsupported_certificate, in TLS 1.3 and 1.2, even
// when any chain is accepted (no ClientCAs). (BoGo: ECDSAKeyUsage-Server-TLS13.)
func TestBoGoClientCertificateKeyUsage(t *testing.T) {
	p := loadPKI(t)
	key := mustKey(t, "p256")
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "encipher only"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageKeyEncipherment, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.caCert, key.Public(), p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	for _, vers := range []uint16{tls.VersionTLS13, tls.VersionTLS12} {
		cfg := &Config{Certificates: []*Certificate{p.p256}, ClientAuth: RequireClientCert, MinVersion: VersionTLS12}
		cc := clientConfig(p)
		cc.MinVersion, cc.MaxVersion = vers, vers
		cc.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }
		r, serr, _ := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1])
		wantAlert(t, "keyEncipherment-only client certificate", r, serr, AlertUnsupportedCertificate)
	}
}

// A client whose psk_key_exchange_modes lists only psk_ke gets no
// NewSessionTicket (RFC 8446, Section 4.2.9: it could not use one, since
// psk_dhe_ke is our only mode), nor does one that sends no
// psk_key_exchange_modes at all (it may never offer a PSK: crypto/tls
// without a session cache, as go-redis dials by default); one that lists
// psk_dhe_ke gets it with the server Finished. (BoGo:
// TLS13-ExpectNoSessionTicketOnBadKEMode-Server.)
func TestBoGoNoTicketForPSKKEOnly(t *testing.T) {
	keys, err := NewTicketKeys(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		modes  []uint8
		ticket bool
	}{
		{[]uint8{pskModePlain}, false},
		{nil, false},
		{[]uint8{pskModePlain, pskModeDHE}, true},
	} {
		rec := clientHelloRecord(t, nil)
		var ch clientHelloMsg
		if !ch.unmarshal(rec[5:]) {
			t.Fatal("crypto/tls ClientHello does not parse")
		}
		ch.pskModes = tt.modes
		f := runFirstFlightWith(t, &Config{Certificates: []*Certificate{loadPKI(t).p256}, TicketKeys: keys}, handshakeRecord(ch.appendTo(nil)))
		if got := slices.Contains(f.afterFin, typeNewSessionTicket); got != tt.ticket {
			t.Errorf("modes %v: NewSessionTicket %v, want %v (flight %v)", tt.modes, got, tt.ticket, f.types)
		}
	}
}

// WithSignatureSchemes limits what a certificate signs with: an RSA key
// held to PKCS #1 v1.5 SHA-256 serves TLS 1.2 but not TLS 1.3 (RFC 8446,
// Section 4.2.3), one held to PSS serves both, and a P-256 key held to
// ecdsa_secp384r1_sha384 serves TLS 1.2 (no curve binding) but not 1.3.
// (BoGo's -signing-prefs and the compliance policies use it.)
func TestBoGoWithSignatureSchemes(t *testing.T) {
	p := loadPKI(t)
	for _, tt := range []struct {
		cert  *Certificate
		name  string
		prefs []SignatureScheme
		vers  uint16
		ok    bool
	}{
		{p.rsa, "rsa.test", []SignatureScheme{PKCS1WithSHA256}, tls.VersionTLS12, true},
		{p.rsa, "rsa.test", []SignatureScheme{PKCS1WithSHA256}, tls.VersionTLS13, false},
		{p.rsa, "rsa.test", []SignatureScheme{PSSWithSHA384}, tls.VersionTLS13, true},
		{p.rsa, "rsa.test", []SignatureScheme{PSSWithSHA384}, tls.VersionTLS12, true},
		{p.p256, "example.com", []SignatureScheme{ECDSAWithP384AndSHA384}, tls.VersionTLS12, true},
		{p.p256, "example.com", []SignatureScheme{ECDSAWithP384AndSHA384}, tls.VersionTLS13, false},
		{p.p256, "example.com", []SignatureScheme{}, tls.VersionTLS13, false},
	} {
		cfg := &Config{Certificates: []*Certificate{tt.cert.WithSignatureSchemes(tt.prefs)}, MinVersion: VersionTLS12}
		cc := clientConfig(p)
		cc.ServerName, cc.MinVersion, cc.MaxVersion = tt.name, tt.vers, tt.vers
		r, serr, _ := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1])
		name := fmt.Sprintf("%s %v version %x", tt.name, tt.prefs, tt.vers)
		if tt.ok {
			wantOK(t, name, r, serr)
		} else {
			wantAlert(t, name, r, serr, AlertHandshakeFailure)
		}
	}
}

// ConnectionState names the certificate a full handshake chose (its index)
// and the
// scheme of the client's CertificateVerify, in TLS 1.3 and 1.2; a
// resumption chose no certificate. (BoGo's -expect-selected-credential and
// -expect-peer-signature-algorithm read them.)
func TestBoGoConnectionStateCertificateAndPeerScheme(t *testing.T) {
	p := loadPKI(t)
	tk, err := NewTicketKeys(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, vers := range []uint16{tls.VersionTLS13, tls.VersionTLS12} {
		cfg := &Config{Certificates: []*Certificate{p.p256, p.p384}, ClientAuth: RequireClientCert, ClientCAs: p.pool,
			TicketKeys: tk, MinVersion: VersionTLS12}
		cc := clientConfig(p)
		cc.ServerName, cc.MinVersion, cc.MaxVersion = "p384.test", vers, vers
		cc.ClientSessionCache = tls.NewLRUClientSessionCache(1)
		c := p.client
		cc.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &c, nil }
		for i, resumed := range []bool{false, true} {
			r, serr, e := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1])
			if !wantOK(t, "client certificate", r, serr) {
				continue
			}
			st := e.ConnectionState()
			if st.DidResume != resumed {
				t.Fatalf("version %x connection %d: resumed %v", vers, i, st.DidResume)
			}
			wantIndex, wantScheme := int16(1), ECDSAWithP256AndSHA256 // p.p384, by SNI
			if resumed {
				wantIndex, wantScheme = -1, 0
			}
			if st.CertificateIndex != wantIndex || st.PeerSignatureScheme != wantScheme {
				t.Errorf("version %x resumed %v: certificate %d scheme %v, want %d %v", vers, resumed, st.CertificateIndex, st.PeerSignatureScheme, wantIndex, wantScheme)
			}
		}
	}
}

// Config.ClientSignatureSchemes is what CertificateRequest advertises and
// what a client CertificateVerify may use: in TLS 1.3 the list as given
// (PKCS #1 v1.5 advertised but not accepted), in TLS 1.2 those of the
// suite's hash. A P-256
// client key then signs when ecdsa_secp256r1_sha256 is listed; when only
// ecdsa_secp384r1_sha384 is, crypto/tls refuses to sign and the handshake
// fails. (BoGo's -verify-prefs sets it.)
func TestBoGoClientSignatureSchemes(t *testing.T) {
	p := loadPKI(t)
	for _, tt := range []struct {
		vers      uint16
		schemes   []SignatureScheme
		advertise []tls.SignatureScheme
		ok        bool
	}{
		{tls.VersionTLS13, []SignatureScheme{PSSWithSHA256, ECDSAWithP256AndSHA256, PKCS1WithSHA256},
			[]tls.SignatureScheme{tls.PSSWithSHA256, tls.ECDSAWithP256AndSHA256, tls.PKCS1WithSHA256}, true},
		{tls.VersionTLS13, []SignatureScheme{ECDSAWithP384AndSHA384}, []tls.SignatureScheme{tls.ECDSAWithP384AndSHA384}, false},
		{tls.VersionTLS12, []SignatureScheme{PKCS1WithSHA256, ECDSAWithP384AndSHA384, ECDSAWithP256AndSHA256},
			[]tls.SignatureScheme{tls.PKCS1WithSHA256, tls.ECDSAWithP256AndSHA256}, true},
		// Nothing of the suite's hash is listed: the suite's list goes out
		// (an empty one is malformed) and every signature is refused.
		{tls.VersionTLS12, []SignatureScheme{ECDSAWithP384AndSHA384},
			[]tls.SignatureScheme{tls.ECDSAWithP256AndSHA256, tls.PSSWithSHA256, tls.PKCS1WithSHA256}, false},
	} {
		cfg := &Config{Certificates: []*Certificate{p.p256}, ClientAuth: RequireClientCert, ClientCAs: p.pool,
			ClientSignatureSchemes: tt.schemes, MinVersion: VersionTLS12}
		cc := clientConfig(p)
		cc.MinVersion, cc.MaxVersion = tt.vers, tt.vers
		cc.CipherSuites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256} // TLS 1.2: a SHA-256 suite
		var advertised []tls.SignatureScheme
		c := p.client
		cc.GetClientCertificate = func(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
			advertised = cri.SignatureSchemes
			return &c, nil
		}
		r, serr, e := runInterop(t, cfg, cc, feedWhole, echoMsgs[:1])
		name := fmt.Sprintf("version %x schemes %v", tt.vers, tt.schemes)
		if !slices.Equal(advertised, tt.advertise) {
			t.Errorf("%s: CertificateRequest lists %v, want %v", name, advertised, tt.advertise)
		}
		if tt.ok {
			if wantOK(t, name, r, serr) && e.ConnectionState().PeerSignatureScheme != ECDSAWithP256AndSHA256 {
				t.Errorf("%s: client signed with %v", name, e.ConnectionState().PeerSignatureScheme)
			}
		} else if r.err == nil || serr == nil {
			t.Errorf("%s: client %v server %v, want both to fail", name, r.err, serr)
		}
	}
}
