package tlsengine

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
)

// serverFlight is a TLS 1.3 server's first flight opened with the secrets
// its KeyLog wrote: the plaintext handshake messages in order, and the
// traffic keys a client would hold after it.
type serverFlight struct {
	ch         []byte   // the ClientHello message
	msgs       [][]byte // ServerHello, then every protected handshake message
	types      []uint8  // the handshake type of each of msgs
	afterFin   []uint8  // types of the messages sent under the application key
	clientHS   []byte   // client_handshake_traffic_secret
	toServer   *recordKeys
	engine     *Engine
	transcript transcript // ClientHello..server Finished
}

// runFirstFlight feeds a crypto/tls ClientHello to a new Engine with cfg
// (TLS_AES_128_GCM_SHA256 forced, KeyLog set) and opens its whole output.
func runFirstFlight(t *testing.T, cfg *Config) *serverFlight {
	t.Helper()
	// With a session cache the client sends psk_key_exchange_modes, without
	// which no ticket is issued.
	return runFirstFlightWith(t, cfg, clientHelloRecord(t, func(c *tls.Config) {
		c.ClientSessionCache = tls.NewLRUClientSessionCache(1)
	}))
}

// runFirstFlightWith is runFirstFlight with the ClientHello record rec.
func runFirstFlightWith(t *testing.T, cfg *Config, rec []byte) *serverFlight {
	t.Helper()
	var keylog bytes.Buffer
	cfg.CipherSuites, cfg.KeyLog = []uint16{TLS_AES_128_GCM_SHA256}, &keylog
	e := NewEngine(cfg)
	if _, _, err := e.Read(bytes.Clone(rec), nil); err != nil {
		t.Fatal(err)
	}
	secrets := map[string][]byte{}
	for _, line := range strings.Split(strings.TrimSpace(keylog.String()), "\n") {
		f := strings.Fields(line)
		secrets[f[0]], _ = hex.DecodeString(f[2])
	}
	f := &serverFlight{ch: rec[5:], engine: e, transcript: newTranscript(crypto.SHA256)}
	f.clientHS = secrets["CLIENT_HANDSHAKE_TRAFFIC_SECRET"]
	f.toServer = newRecordKeys(t, f.clientHS)
	fromServer := newRecordKeys(t, secrets["SERVER_HANDSHAKE_TRAFFIC_SECRET"])
	f.transcript.write(f.ch)
	finished := false
	for _, r := range records(t, e.AppendOutput(nil)) {
		var pt []byte
		switch r[0] {
		case recordTypeChangeCipherSpec:
			continue
		case recordTypeHandshake:
			pt = r[5:]
		default:
			var typ uint8
			if typ, pt = fromServer.open(t, r); typ != recordTypeHandshake {
				t.Fatalf("inner type %d in the server flight", typ)
			}
		}
		for len(pt) > 0 {
			n := handshakeLen(pt)
			msg := pt[:n]
			pt = pt[n:]
			f.msgs, f.types = append(f.msgs, msg), append(f.types, msg[0])
			if finished {
				f.afterFin = append(f.afterFin, msg[0])
				continue
			}
			f.transcript.write(msg)
			if msg[0] == typeFinished {
				// RFC 8446, Section 5.1: nothing follows Finished in its record.
				finished = true
				if len(pt) > 0 {
					t.Fatal("server Finished shares its record")
				}
				fromServer = newRecordKeys(t, secrets["SERVER_TRAFFIC_SECRET_0"])
			}
		}
	}
	if !finished {
		t.Fatalf("flight %v has no Finished", f.types)
	}
	return f
}

// firstFlightTicketTests say when the NewSessionTicket goes out with the
// server Finished (RFC 8446, Section 4.6.1, the note on the resumption
// master secret): only with ticket keys and no CertificateRequest.
var firstFlightTicketTests = []struct {
	name  string
	edit  func(*Config)
	types []uint8 // the whole first flight
}{
	{"ticket-keys", func(*Config) {}, []uint8{
		typeServerHello, typeEncryptedExtensions, typeCertificate, typeCertificateVerify, typeFinished, typeNewSessionTicket}},
	{"no-ticket-keys", func(c *Config) { c.TicketKeys = nil }, []uint8{
		typeServerHello, typeEncryptedExtensions, typeCertificate, typeCertificateVerify, typeFinished}},
	{"client-cert-requested", func(c *Config) { c.ClientAuth = RequestClientCert }, []uint8{
		typeServerHello, typeEncryptedExtensions, typeCertificateRequest, typeCertificate, typeCertificateVerify, typeFinished}},
}

func TestNewSessionTicketFollowsServerFinishedWithoutClientAuth(t *testing.T) {
	keys, _ := NewTicketKeys(rand.Reader)
	for i, tt := range firstFlightTicketTests {
		cfg := &Config{Certificates: []*Certificate{loadPKI(t).p256}, TicketKeys: keys}
		tt.edit(cfg)
		f := runFirstFlight(t, cfg)
		if !slices.Equal(f.types, tt.types) {
			t.Errorf("#%d %s: first flight %v, want %v", i, tt.name, f.types, tt.types)
		}
		if ticket := len(f.afterFin) == 1; ticket != (tt.name == "ticket-keys") {
			t.Errorf("#%d %s: %v after Finished", i, tt.name, f.afterFin)
		}
	}
}

// earlyTicketFinishedTests are client Finished messages sent after a first
// flight that carried the ticket: each is checked against the prediction.
var earlyTicketFinishedTests = []struct {
	name  string
	edit  func(verifyData []byte) []byte
	alert Alert // 0: the handshake completes
}{
	{"correct", func(v []byte) []byte { return v }, 0},
	{"last-bit-flipped", func(v []byte) []byte { v[len(v)-1] ^= 1; return v }, AlertDecryptError},
	{"first-byte-flipped", func(v []byte) []byte { v[0] ^= 0xff; return v }, AlertDecryptError},
	{"short", func(v []byte) []byte { return v[:len(v)-1] }, AlertDecodeError},
}

func TestClientFinishedIsCheckedAfterEarlyTicket(t *testing.T) {
	keys, _ := NewTicketKeys(rand.Reader)
	for i, tt := range earlyTicketFinishedTests {
		f := runFirstFlight(t, &Config{Certificates: []*Certificate{loadPKI(t).p256}, TicketKeys: keys})
		if len(f.afterFin) != 1 {
			t.Fatalf("#%d %s: no ticket in the first flight (%v)", i, tt.name, f.types)
		}
		verify := tt.edit(finishedVerifyData(crypto.SHA256, f.clientHS, f.transcript.sum(nil)))
		cf := (&finishedMsg{verifyData: verify}).appendTo(nil)
		err, out := feedAll(f.engine, f.toServer.seal(recordTypeHandshake, cf))
		if tt.alert == 0 {
			if err != nil || f.engine.Status()&StatusHandshakeDone == 0 || len(out) != 0 {
				t.Errorf("#%d %s: err %v, status %b, %d bytes out, want done and silent", i, tt.name, err, f.engine.Status(), len(out))
			}
			continue
		}
		wantAlertErr(t, tt.name, err, tt.alert)
		if f.engine.Status()&StatusHandshakeDone != 0 || len(out) == 0 {
			t.Errorf("#%d %s: status %b, %d bytes out, want the alert", i, tt.name, f.engine.Status(), len(out))
		}
	}
}
