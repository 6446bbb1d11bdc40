package tlsengine

import (
	"bytes"
	"crypto"
	"crypto/ecdh"
	"crypto/rand"
	"crypto/tls"
	"sync"
	"testing"
)

// Fixed inputs so that fuzz seeds built once stay valid for every engine
// the fuzz function creates: the server's ECDHE key, the client's, zero
// randoms, and ticket keys drawn from a fixed reader.
var (
	fuzz12Once   sync.Once
	fuzz12Server *ecdh.PrivateKey
	fuzz12Client *ecdh.PrivateKey
	fuzz12Keys   *TicketKeys
)

func fuzz12Fixed(t testing.TB) {
	fuzz12Once.Do(func() {
		var err error
		if fuzz12Server, err = ecdh.X25519().NewPrivateKey(bytes.Repeat([]byte{1}, 32)); err != nil {
			t.Fatal(err)
		}
		if fuzz12Client, err = ecdh.X25519().NewPrivateKey(bytes.Repeat([]byte{2}, 32)); err != nil {
			t.Fatal(err)
		}
		if fuzz12Keys, err = NewTicketKeys(&fixedReader{}); err != nil {
			t.Fatal(err)
		}
	})
}

// fuzz12Suite is the suite of the mid-handshake variants.
var fuzz12Suite = cipherSuite12ByID(TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)

// fuzz12Config accepts TLS 1.2 with tickets and asks for (variant 2:
// requires) a client certificate.
func fuzz12Config(t testing.TB, variant int) *Config {
	p := loadPKI(t)
	cfg := config12(p.p256, p.rsa)
	cfg.TicketKeys, cfg.ClientAuth, cfg.ClientCAs = fuzz12Keys, RequestClientCert, p.pool
	if variant == 2 {
		cfg.ClientAuth = RequireClientCert
	}
	return cfg
}

// fuzz12Engine returns the engine for a variant: 0 fresh (input: a first
// flight), 1 waiting for ClientKeyExchange, 2 waiting for the client
// Certificate (input: the client's second flight), 3 established (input:
// protected records).
func fuzz12Engine(t testing.TB, variant int) *Engine {
	fuzz12Fixed(t)
	if variant == 3 {
		e, _, _ := established12(t, fuzz12Suite.id)
		return e
	}
	e := NewEngine(fuzz12Config(t, variant))
	if variant == 0 {
		return e
	}
	e.state.Version, e.state.CipherSuite, e.state.CurveID = VersionTLS12, fuzz12Suite.id, X25519
	hs := e.hs
	hs.group, hs.sawCH = X25519, true
	hs.transcript = newTranscript(fuzz12Suite.aead.hash)
	hs.v12 = &handshake12{suite: fuzz12Suite, priv: fuzz12Server}
	hs.state = expectClientKeyExchange12{}
	if variant == 2 {
		hs.certRequested = true
		hs.state = expectCertificate12{}
	}
	return e
}

// fuzz12SecondFlight builds a valid client second flight for variants 1
// and 2: [Certificate], ClientKeyExchange, [CertificateVerify], CCS,
// Finished, then one application data record.
func fuzz12SecondFlight(t testing.TB, withCert bool) []byte {
	fuzz12Fixed(t)
	p := loadPKI(t)
	h := fuzz12Suite.aead.hash
	tr := newTranscript(h)
	var msgs []byte
	if withCert {
		m := (&certificateMsg{certificates: p.client.Certificate}).appendTo(nil)
		tr.write(m)
		msgs = append(msgs, m...)
	}
	cke := (&clientKeyExchangeMsg{publicKey: fuzz12Client.PublicKey().Bytes()}).appendTo(nil)
	tr.write(cke)
	msgs = append(msgs, cke...)
	shared, err := fuzz12Client.ECDH(fuzz12Server.PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	master := extendedMasterFromPreMasterSecret(h, shared, tr.sum(nil))
	if withCert {
		sig, err := p.client.PrivateKey.(crypto.Signer).Sign(rand.Reader, tr.sum(nil), crypto.SHA256)
		if err != nil {
			t.Fatal(err)
		}
		cv := (&certificateVerifyMsg{signatureAlgorithm: uint16(ECDSAWithP256AndSHA256), signature: sig}).appendTo(nil)
		tr.write(cv)
		msgs = append(msgs, cv...)
	}
	var zero [32]byte
	ck, _, civ, _ := keysFromMasterSecret(h, master, zero[:], zero[:], fuzz12Suite.aead.keyLen, fuzz12Suite.ivLen)
	peer := new(direction)
	if err := peer.setKeys12(fuzz12Suite, ck, civ); err != nil {
		t.Fatal(err)
	}
	fin := (&finishedMsg{verifyData: finishedVerifyData12(h, master, labelClientFinished, tr.sum(nil))}).appendTo(nil)
	flight := append(handshakeRecord(msgs), recordTypeChangeCipherSpec, 3, 3, 0, 1, 1)
	flight = append(flight, peerRecord12(t, peer, recordTypeHandshake, fin)...)
	return append(flight, peerRecord12(t, peer, recordTypeApplicationData, []byte("PING"))...)
}

// fuzz12Records builds protected records for the established variant.
func fuzz12Records(t testing.TB, typ uint8, payloads ...[]byte) []byte {
	_, to, _ := established12(t, fuzz12Suite.id)
	var in []byte
	for _, pl := range payloads {
		in = append(in, peerRecord12(t, to, typ, pl)...)
	}
	return in
}

// fuzz12FirstFlights captures crypto/tls TLS 1.2 ClientHellos: plain, with
// ALPN and SNI for the RSA certificate, and with a ticket sealed under the
// fixed ticket keys (the resumption path).
func fuzz12FirstFlights(t testing.TB) [][]byte {
	fuzz12Fixed(t)
	pin := func(c *tls.Config) {
		c.MinVersion, c.MaxVersion, c.Rand = tls.VersionTLS12, tls.VersionTLS12, &fixedReader{}
	}
	out := [][]byte{
		clientHelloRecord(t, pin),
		clientHelloRecord(t, func(c *tls.Config) { pin(c); c.NextProtos = []string{"redis"}; c.ServerName = "rsa.test" }),
	}
	return append(out, ticketClientHello(t, fuzz12Config(t, 0), clientConfig12(loadPKI(t))))
}

// TestFuzzTLS12SeedsReachTheirTarget keeps the seeds meaningful: each
// variant's seed completes the handshake (or, established, yields data).
func TestFuzzTLS12SeedsReachTheirTarget(t *testing.T) {
	for i, fl := range fuzz12FirstFlights(t) {
		e := fuzz12Engine(t, 0)
		if _, _, err := e.Read(bytes.Clone(fl), nil); err != nil || len(e.AppendOutput(nil)) == 0 {
			t.Errorf("first flight #%d: %v", i, err)
		}
		if i == 2 && !e.ConnectionState().DidResume {
			t.Error("ticket seed did not resume")
		}
	}
	for v := 1; v <= 2; v++ {
		e := fuzz12Engine(t, v)
		_, p, err := e.Read(fuzz12SecondFlight(t, v == 2), nil)
		if err != nil || !e.done || string(p) != "PING" {
			t.Errorf("variant %d: done %v data %q err %v", v, e.done, p, err)
		}
	}
}

// FuzzEngineTLS12 feeds mutated TLS 1.2 client flights to an Engine in one
// of four starting points (see fuzz12Engine), cut at a fuzzer-chosen
// point. The engine must never panic, never consume more than it was
// given, and either progress or fail with a sticky *AlertError.
func FuzzEngineTLS12(f *testing.F) {
	for _, fl := range fuzz12FirstFlights(f) {
		f.Add(fl, uint16(len(fl)), uint8(0))
		f.Add(fl, uint16(len(fl)/2), uint8(0))
	}
	f.Add(fuzz12SecondFlight(f, false), uint16(0xffff), uint8(1))
	f.Add(fuzz12SecondFlight(f, true), uint16(100), uint8(2))
	f.Add(fuzz12Records(f, recordTypeApplicationData, []byte("PING"), nil, []byte("x")), uint16(30), uint8(3))
	f.Add(fuzz12Records(f, recordTypeAlert, []byte{1, 0}), uint16(0xffff), uint8(3))                       // close_notify
	f.Add(fuzz12Records(f, recordTypeHandshake, []byte{1, 0, 0, 4, 3, 3, 0, 0}), uint16(0xffff), uint8(3)) // renegotiation
	f.Fuzz(func(t *testing.T, in []byte, cut uint16, variant uint8) {
		fuzzReadInTwo(t, fuzz12Engine(t, int(variant%4)), in, cut)
	})
}
