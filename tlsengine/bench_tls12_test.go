package tlsengine

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"fmt"
	"net"
	"testing"
	"time"
)

// BenchmarkHandshakeTLS12 measures the server side of TLS 1.2 handshakes up
// to the server's flight by replaying a recorded crypto/tls ClientHello,
// next to crypto/tls's server doing the same work. Full: ECDHE key
// generation, ServerKeyExchange signature, ServerHelloDone (the client's
// second flight needs the server's ephemeral key, so it cannot be
// replayed). Resumed: ticket decryption, a new ticket, key block and
// Finished, against crypto/tls resuming its own ticket.
func BenchmarkHandshakeTLS12(b *testing.B) {
	p := loadPKI(b)
	for _, c := range []struct {
		name string
		cert *Certificate
		sni  string
	}{{"ECDSA-P256", p.p256, "example.com"}, {"RSA-2048", p.rsa, "rsa.test"}} {
		cc := clientConfig12(p)
		cc.ServerName, cc.CurvePreferences = c.sni, []tls.CurveID{tls.X25519}
		ch := captureClientHello(b, cc)
		b.Run("TLSv12/X25519/"+c.name+"/tlsengine", func(b *testing.B) {
			benchEngineFlight(b, config12(c.cert), ch, false)
		})
		b.Run("TLSv12/X25519/"+c.name+"/crypto-tls", func(b *testing.B) {
			gocert := tls.Certificate{Certificate: c.cert.Chain, PrivateKey: c.cert.Key}
			benchGoFlight(b, &tls.Config{Certificates: []tls.Certificate{gocert}, MaxVersion: tls.VersionTLS12}, ch)
		})
	}

	keys, _ := NewTicketKeys(rand.Reader)
	now := time.Now()
	cfg := config12(p.p256)
	cfg.TicketKeys, cfg.Now = keys, func() time.Time { return now }
	cc := clientConfig12(p)
	cc.CurvePreferences = []tls.CurveID{tls.X25519}
	ch := ticketClientHello(b, cfg, cc)
	b.Run("TLSv12/resumed/tlsengine", func(b *testing.B) {
		benchEngineFlight(b, cfg, ch, true)
	})
	gocfg := &tls.Config{Certificates: []tls.Certificate{p.goServer}, MaxVersion: tls.VersionTLS12}
	gocc := clientConfig12(p)
	gocc.CurvePreferences = []tls.CurveID{tls.X25519}
	gocc.ClientSessionCache = tls.NewLRUClientSessionCache(2)
	goResumeSetup(b, gocfg, gocc)
	goch := captureClientHello(b, gocc)
	b.Run("TLSv12/resumed/crypto-tls", func(b *testing.B) {
		benchGoFlight(b, gocfg, goch)
	})
}

// goResumeSetup runs one crypto/tls handshake so that ccfg's session cache
// holds a ticket scfg's server will resume.
func goResumeSetup(b *testing.B, scfg, ccfg *tls.Config) {
	cc, sc := net.Pipe()
	errc := make(chan error, 1)
	go func() {
		c := tls.Client(cc, ccfg)
		err := c.Handshake()
		if err == nil {
			_, err = c.Read(make([]byte, 1)) // process the ticket
		}
		cc.Close()
		errc <- err
	}()
	s := tls.Server(sc, scfg)
	if err := s.Handshake(); err != nil {
		b.Fatal(err)
	}
	s.Write([]byte{1})
	if err := <-errc; err != nil {
		b.Fatal(err)
	}
	sc.Close()
}

// BenchmarkSealRecordTLS12 seals one TLS 1.2 application data record in
// place (explicit nonce for AES-GCM).
func BenchmarkSealRecordTLS12(b *testing.B) {
	for _, s := range cipherSuites12[3:] {
		for _, n := range recordSizes {
			b.Run(fmt.Sprintf("%s/%d", tls.CipherSuiteName(s.id), n), func(b *testing.B) {
				e, _, _ := established12(b, s.id)
				benchSealRecord(b, e, n)
			})
		}
	}
}

// BenchmarkReadRecordTLS12 opens one TLS 1.2 record in place through Read;
// the copy restoring the ciphertext is included.
func BenchmarkReadRecordTLS12(b *testing.B) {
	for _, s := range cipherSuites12[3:] {
		for _, n := range recordSizes {
			b.Run(fmt.Sprintf("%s/%d", tls.CipherSuiteName(s.id), n), func(b *testing.B) {
				e, to, _ := established12(b, s.id)
				rec := peerRecord12(b, to, recordTypeApplicationData, bytes.Repeat([]byte{'a'}, n))
				benchReadRecord(b, e, rec, n)
			})
		}
	}
}
