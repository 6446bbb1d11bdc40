// Package tlsengine implements a sans-IO TLS 1.3 server (RFC 8446) for
// reactor loops: the caller hands it ciphertext, it says how much it
// consumed and what it needs next, and everything it produces lands in
// buffers the caller owns. It never blocks, starts goroutines, takes locks
// or reads the clock outside handshakes (Config.Now is injected).
//
// One immutable Config is shared by all connections; each connection has
// one small Engine (NewEngine), owned by one loop. After the handshake the
// Engine holds only fixed-size per-direction AEAD state, plus each
// direction's cipher.AEAD (its expanded key schedule, ~750 bytes for
// AES-GCM) until ReleaseIdle drops it.
//
// # Stepping
//
//	consumed, p, err := e.Read(in, plain) // in: received bytes, decrypted in place
//	// use p (application data), then discard consumed bytes of in
//	out = e.AppendOutput(out)            // handshake flights, tickets, KeyUpdate, alerts
//	out, hdr := e.BeginRecord(out)        // reserve a record header
//	out = append(out, reply...)           // at most e.MaxPlaintext() bytes
//	out, err = e.SealRecord(out, hdr)     // encrypt in place (+17 bytes)
//
// After every Read (and SignDone/VerifyDone) the caller switches on
// e.Status(); several flags may be set at once:
//
//	Status               what the caller does next
//	StatusHasOutput      out = e.AppendOutput(out), then write out
//	StatusNeedInput      keep in[consumed:] (a partial record) and wait for more bytes
//	StatusHasPlaintext   plain was full: use p, then Read(in[consumed:], …) again
//	StatusWantSign       r := e.SignRequest(); sig, err := r.Key.Sign(rand, r.Digest, r.Opts)
//	                     (inline or on a worker); e.SignDone(sig, err); Read again
//	StatusWantVerify     chain, opts := e.VerifyRequest(); _, err := chain[0].Verify(*opts);
//	                     e.VerifyDone(err); Read again
//	StatusHandshakeDone  application data may be sealed; ConnectionState is final
//	StatusPeerClosed     peer sent close_notify: e.CloseNotify(), flush output, close
//	StatusFailed         e.Err() is sticky: flush AppendOutput (the alert only), close
//	                     (after a sent alert, shut the write side and drain the input
//	                     briefly first, or a peer still sending is reset and loses it)
//	(idle a while)       e.ReleaseIdle(): drops both AEADs of an established, quiet
//	                     connection; the next record rebuilds its direction's AEAD
//	                     (2 small allocations), later records allocate nothing
//
// # Handshake states (RFC 8446, Appendix A.2)
//
// Each state is a type whose handle method accepts only its message and
// returns the next state:
//
//	state                      on                       next
//	expectClientHello          ClientHello, no share    expectClientHello{retried} (HelloRetryRequest sent)
//	expectClientHello          ClientHello              awaitSign | expectCertificate | expectFinished
//	awaitSign                  SignDone                 expectCertificate | expectFinished
//	expectCertificate          Certificate              awaitVerify | expectCertificateVerify | expectFinished
//	awaitVerify                VerifyDone               expectCertificateVerify
//	expectCertificateVerify    CertificateVerify        expectFinished
//	expectFinished             Finished (verified)      established (NewSessionTicket queued)
//	established                KeyUpdate, alerts, data  established
//
// The engine keeps no timers: bound handshakes and idle connections with
// the loop's timer wheel, call ReleaseIdle when a connection has been idle
// for a while, and Release when it closes.
//
// Every failure is a fatal *AlertError carrying the RFC 8446 Section 6 alert.
// Early data is never accepted; undecryptable 0-RTT records are skipped up
// to 64 KiB in the first flight only: until a record opens, or until the
// second ClientHello after a HelloRetryRequest (RFC 8446, Section 4.2.10).
// KeyUpdates are processed in bursts of up to 64; a key nearing its AEAD
// limit (Section 5.5) is replaced: ours by a KeyUpdate, the client's by
// asking for one. TLS 1.2 (handshake_server_tls12.go,
// off unless Config.MinVersion is VersionTLS12) branches off at the version
// dispatch in readClientHello.
//
// Other calls: AppendRecords seals a byte slice into as many records as
// needed; KeyUpdate(requestPeer) and CloseNotify queue control records
// that the next AppendOutput or BeginRecord emits; ConnectionState reports
// version, suite, group, SNI, ALPN, resumption, the certificate chosen (its index), the
// verified client leaf and the client's signature scheme; Buffered reports
// the bytes of a partial handshake message held (a ClientHello may reach
// 128 KiB: count them against a handshake budget); ReleaseIdle sheds the
// AEADs of an idle connection; Release zeroes the keys and secrets.
// Certificate.WithSignatureSchemes limits and orders what a certificate
// signs with.
package tlsengine
