// Command bogoshim is the shim through which BoringSSL's TLS test runner
// (BoGo) tests tlsengine as a TLS server. The runner starts it once per test
// with bssl_shim's flags (flags.go). It dials the runner, writes its shim id
// (little-endian uint64), runs the server handshake with a tlsengine.Engine
// over that connection and then echoes application data, each byte XORed
// with 0xff, until the peer closes; -resume-count repeats this on new
// connections that may resume. It exits 0 on success, 1 with the error on
// stderr on failure, and 89 when the test needs a flag it does not
// implement (the client side among them: it only plays the server).
package main

import (
	"bytes"
	"crypto/rand"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"slices"
	"time"

	"golang.org/x/sys/cpu"

	"github.com/loopkv/loopkv/tlsengine"
)

func main() {
	argv := os.Args[1:]
	if slices.Contains(argv, "-is-handshaker-supported") {
		fmt.Println("No") // no split handshakes
		return
	}
	if os.Getenv("BOGOSHIM_CLASSIFY") != "" {
		classify(argv)
	}
	if err := run(argv); err != nil {
		fmt.Fprintln(os.Stderr, err)
		var u errUnimplemented
		if errors.As(err, &u) {
			logUnimplemented(u.flag)
			os.Exit(exitUnimplemented)
		}
		os.Exit(1)
	}
}

// classify serves the conformance harness, which runs the whole suite once
// with BOGOSHIM_CLASSIFY set to learn which tests are server-side: a client
// test exits 89 (a skip), a server test exits 1 at once (it fails, or
// passes when it expects a failure). Nothing is dialled.
func classify(argv []string) {
	if slices.Contains(argv, "-server") {
		os.Exit(1)
	}
	os.Exit(exitUnimplemented)
}

// logUnimplemented appends the flag that made a test unimplemented to the
// file BOGOSHIM_UNIMPLEMENTED names, for the harness's tally.
func logUnimplemented(flag string) {
	name := os.Getenv("BOGOSHIM_UNIMPLEMENTED")
	if name == "" {
		return
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintln(f, flag) // one short write: O_APPEND keeps lines whole
	f.Close()
}

// run parses argv and runs the initial connection and its resumptions.
func run(argv []string) error {
	a, err := splitArgs(argv)
	if err != nil {
		return err
	}
	first, err := a.settingsFor(0)
	if err != nil {
		return err
	}
	if !first.server {
		return errUnimplemented{"(client side)"}
	}
	tickets, err := tlsengine.NewTicketKeys(rand.Reader) // shared by every connection
	if err != nil {
		return err
	}
	for i := 0; i <= first.resumeCount; i++ {
		s := first
		if i > 0 {
			if s, err = a.settingsFor(i); err != nil {
				return err
			}
		}
		cfg, err := s.config(tickets)
		if err != nil {
			return err
		}
		if err := runConnection(s, cfg, i > 0); err != nil {
			return err
		}
	}
	return nil
}

// config builds the tlsengine.Config for one connection.
func (s *settings) config(tickets *tlsengine.TicketKeys) (*tlsengine.Config, error) {
	cfg := &tlsengine.Config{MinVersion: tlsengine.VersionTLS12, MaxVersion: tlsengine.VersionTLS13}
	s.certs = make([]*tlsengine.Certificate, len(s.creds))
	for i, c := range s.creds {
		if c.certFile == "" && c.keyFile == "" {
			continue
		}
		certPEM, err := os.ReadFile(c.certFile)
		if err != nil {
			return nil, err
		}
		keyPEM, err := os.ReadFile(c.keyFile)
		if err != nil {
			return nil, err
		}
		cert, err := tlsengine.ParseCertificatePEM(certPEM, keyPEM)
		if err != nil {
			return nil, err
		}
		if prefs := s.signingPrefs(c); prefs != nil {
			cert = cert.WithSignatureSchemes(prefs)
		}
		s.certs[i] = cert
	}
	// bssl_shim tries the -new-x509-credential ones in order, then the
	// default; tlsengine prefers the first among equals.
	for _, c := range append(s.certs[1:], s.certs[0]) {
		if c != nil {
			cfg.Certificates = append(cfg.Certificates, c)
		}
	}
	if s.minVersion > tlsengine.VersionTLS12 {
		cfg.MinVersion = tlsengine.VersionTLS13
	}
	switch {
	case s.maxVersion == 0 || s.maxVersion >= tlsengine.VersionTLS13:
	case s.maxVersion == tlsengine.VersionTLS12:
		cfg.MaxVersion = tlsengine.VersionTLS12
	default:
		return nil, fmt.Errorf("bogoshim: -max-version %#04x: tlsengine offers TLS 1.2 and 1.3 only", s.maxVersion)
	}
	if cfg.MinVersion > cfg.MaxVersion {
		return nil, errors.New("bogoshim: no protocol version enabled")
	}
	for _, c := range s.curves {
		cfg.CurvePreferences = append(cfg.CurvePreferences, tlsengine.CurveID(c))
	}
	if p := s.policy; p != nil {
		cfg.CipherSuites = p.suites
		if cfg.CurvePreferences == nil {
			cfg.CurvePreferences = p.curves
		}
		cfg.CurvePreferences = slices.DeleteFunc(slices.Clone(cfg.CurvePreferences), func(c tlsengine.CurveID) bool {
			return !slices.Contains(p.curves, c)
		})
	}
	switch {
	case s.requireClientCert:
		cfg.ClientAuth = tlsengine.RequireClientCert
	case s.verifyPeer:
		cfg.ClientAuth = tlsengine.RequestClientCert
	}
	// bssl_shim's verify callback accepts any chain unless -verify-fail.
	// With a (here empty) pool and AsyncVerify, tlsengine hands the chain
	// to the shim, which decides as that callback does (pump), and a
	// ticket records the chain as verified, as the resumptions expect.
	if cfg.ClientAuth != tlsengine.NoClientCert {
		cfg.ClientCAs = x509.NewCertPool()
		cfg.AsyncVerify = true
	}
	if s.async {
		cfg.AsyncSign = func(tlsengine.SignatureScheme) bool { return true }
	}
	cfg.ClientSignatureSchemes = s.verifyPrefs
	if !s.noTicket {
		cfg.TicketKeys = tickets
	}
	switch {
	case s.rejectALPN:
		cfg.NextProtos = []string{"\x00shim rejects every protocol"}
	case s.selectALPN != "" && !s.declineALPN:
		cfg.NextProtos = []string{s.selectALPN}
	}
	return cfg, nil
}

// signingPrefs returns the schemes credential c may sign with: its
// -signing-prefs, within the policy's when there is one; nil for no limit.
func (s *settings) signingPrefs(c credential) []tlsengine.SignatureScheme {
	if s.policy == nil {
		return c.prefs
	}
	if c.prefs == nil {
		return s.policy.schemes
	}
	return slices.DeleteFunc(slices.Clone(c.prefs), func(p tlsengine.SignatureScheme) bool {
		return !slices.Contains(s.policy.schemes, p)
	})
}

// runConnection dials the runner and serves one TLS connection.
func runConnection(s *settings, cfg *tlsengine.Config, resumed bool) error {
	host := "127.0.0.1"
	if s.ipv6 {
		host = "::1"
	}
	nc, err := net.Dial("tcp", net.JoinHostPort(host, s.port))
	if err != nil {
		return err
	}
	defer nc.Close()
	var id [8]byte
	binary.LittleEndian.PutUint64(id[:], s.shimID)
	if _, err := nc.Write(id[:]); err != nil {
		return err
	}
	c := &conn{s: s, cfg: cfg, e: tlsengine.NewEngine(cfg), nc: nc.(*net.TCPConn)}
	defer c.e.Release()
	err = c.serve(resumed)
	if err != nil {
		c.flush() // the alert
		c.lingeringClose()
	}
	return err
}

// conn is one TLS connection stepped by the shim.
type conn struct {
	s     *settings
	cfg   *tlsengine.Config
	e     *tlsengine.Engine
	nc    *net.TCPConn
	in    []byte // received, not yet consumed by the engine
	offer int    // -async: bytes of in handed to the engine so far
	out   []byte
	plain []byte // application data not yet echoed
	wrote bool   // the first flight went out
	hrr   bool   // it was a HelloRetryRequest
	rbuf  [32 << 10]byte
}

// helloRetryRandom is SHA-256("HelloRetryRequest") (RFC 8446, Section 4.1.3).
var helloRetryRandom = []byte{
	0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
	0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c,
}

var errVerifyFail = errors.New("bogoshim: -verify-fail refuses the client certificate")

// serve runs the handshake, the checks and then the echo or the shutdown.
func (c *conn) serve(resumed bool) error {
	for c.e.Status()&tlsengine.StatusHandshakeDone == 0 {
		if err := c.pump(); err != nil {
			return err
		}
		if c.e.Status()&tlsengine.StatusHandshakeDone != 0 {
			break
		}
		if c.e.Status()&tlsengine.StatusPeerClosed != 0 {
			return errors.New("bogoshim: close_notify during the handshake")
		}
		if err := c.readMore(); err != nil {
			return fmt.Errorf("bogoshim: handshake: %w", err)
		}
	}
	if err := c.check(resumed); err != nil {
		return err
	}
	if c.s.keyUpdate {
		if err := c.e.KeyUpdate(false); err != nil {
			return err
		}
	}
	if c.s.writesFirst { // the runner reads "hello" on every connection of the test
		if err := c.write([]byte("hello")); err != nil {
			return err
		}
	}
	if c.s.shutsDown {
		return c.shutdown()
	}
	return c.echo()
}

// pump hands the buffered input to the engine until it needs more bytes,
// completing signatures and chain checks inline, and writes what it queues.
// Under -async the input is handed over one byte more at a time, so that
// the engine sees every partial record.
func (c *conn) pump() error {
	var buf [32 << 10]byte
	for {
		n := len(c.in)
		if c.s.async {
			n = min(n, c.offer+1)
		}
		consumed, p, err := c.e.Read(c.in[:n], buf[:0])
		c.plain = append(c.plain, p...)
		c.in = c.in[:copy(c.in, c.in[consumed:])]
		c.offer = n - consumed
		if werr := c.flush(); err == nil && werr != nil {
			err = werr
		}
		if err != nil {
			return err
		}
		st := c.e.Status()
		switch {
		case st&tlsengine.StatusWantSign != 0:
			r := c.e.SignRequest()
			sig, err := r.Key.Sign(rand.Reader, r.Digest, r.Opts)
			c.e.SignDone(sig, err)
		case st&tlsengine.StatusWantVerify != 0:
			var err error
			if c.s.verifyFail {
				err = errVerifyFail
			}
			c.e.VerifyDone(err)
		case st&tlsengine.StatusHasPlaintext != 0:
		case c.s.async && n < len(c.in)+consumed && st&(tlsengine.StatusFailed|tlsengine.StatusPeerClosed) == 0:
		default:
			return nil
		}
	}
}

// readMore appends what the socket has to c.in.
func (c *conn) readMore() error {
	n, err := c.nc.Read(c.rbuf[:])
	c.in = append(c.in, c.rbuf[:n]...)
	if n > 0 {
		return nil
	}
	return err
}

// flush writes the engine's pending records.
func (c *conn) flush() error {
	c.out = c.e.AppendOutput(c.out[:0])
	if len(c.out) == 0 {
		return nil
	}
	if !c.wrote {
		// The first record: a ServerHello, or a HelloRetryRequest when its
		// random is the RFC 8446 Section 4.1.3 constant.
		c.wrote = true
		if len(c.out) >= 44 && c.out[0] == 22 && c.out[5] == 2 {
			c.hrr = bytes.Equal(c.out[11:43], helloRetryRandom)
		}
	}
	_, err := c.nc.Write(c.out)
	return err
}

// write seals p as application data and sends it.
func (c *conn) write(p []byte) error {
	out, err := c.e.AppendRecords(c.out[:0], p)
	c.out = out
	if err != nil {
		return err
	}
	_, err = c.nc.Write(c.out)
	return err
}

// echo answers application data with its bytes XORed with 0xff until the
// peer closes.
func (c *conn) echo() error {
	for {
		if len(c.plain) > 0 {
			for i := range c.plain {
				c.plain[i] ^= 0xff
			}
			if err := c.write(c.plain); err != nil {
				return err
			}
			c.plain = c.plain[:0]
		}
		if c.e.Status()&tlsengine.StatusPeerClosed != 0 {
			if c.s.checkCloseNotify {
				c.e.CloseNotify()
				return c.flush()
			}
			return nil
		}
		if err := c.readMore(); err != nil {
			if err == io.EOF && !c.s.checkCloseNotify {
				return nil
			}
			return fmt.Errorf("bogoshim: reading: %w", err)
		}
		if err := c.pump(); err != nil {
			return err
		}
	}
}

// shutdown sends close_notify and, with -check-close-notify, waits for the
// peer's (SSL_shutdown called until it returns 1).
func (c *conn) shutdown() error {
	c.e.CloseNotify()
	if err := c.flush(); err != nil || !c.s.checkCloseNotify {
		return err
	}
	for c.e.Status()&tlsengine.StatusPeerClosed == 0 {
		if len(c.plain) > 0 {
			return errors.New("bogoshim: application data after our close_notify")
		}
		if err := c.readMore(); err != nil {
			return fmt.Errorf("bogoshim: waiting for close_notify: %w", err)
		}
		if err := c.pump(); err != nil {
			return err
		}
	}
	if len(c.plain) > 0 {
		return errors.New("bogoshim: application data after our close_notify")
	}
	return nil
}

// lingeringClose ends our side after a fatal alert and drains the peer's
// bytes for a bounded time, so that the kernel does not answer them with
// a reset that would destroy the alert before the runner reads it.
func (c *conn) lingeringClose() {
	c.nc.CloseWrite()
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	io.Copy(io.Discard, c.nc)
}

// check compares the negotiated connection with the -expect-* flags.
func (c *conn) check(resumed bool) error {
	s, cs := c.s, c.e.ConnectionState()
	switch {
	case resumed && !s.expectSessionMiss && !cs.DidResume:
		return errors.New("bogoshim: session was not resumed")
	case (!resumed || s.expectSessionMiss) && cs.DidResume:
		return errors.New("bogoshim: session unexpectedly resumed")
	case s.expectVersion != 0 && cs.Version != s.expectVersion:
		return fmt.Errorf("bogoshim: version %#04x, want %#04x", cs.Version, s.expectVersion)
	case s.expectCurve != 0 && uint16(cs.CurveID) != s.expectCurve:
		return fmt.Errorf("bogoshim: group %d, want %d", cs.CurveID, s.expectCurve)
	case s.expectALPN != "" && cs.NegotiatedProtocol != s.expectALPN:
		return fmt.Errorf("bogoshim: ALPN %q, want %q", cs.NegotiatedProtocol, s.expectALPN)
	case (s.expectNoALPN || s.declineALPN) && cs.NegotiatedProtocol != "":
		return fmt.Errorf("bogoshim: unexpected ALPN %q", cs.NegotiatedProtocol)
	case s.expectServerName != "" && cs.ServerName != s.expectServerName:
		return fmt.Errorf("bogoshim: server name %q, want %q", cs.ServerName, s.expectServerName)
	case s.expectNoServerName && cs.ServerName != "":
		return fmt.Errorf("bogoshim: unexpected server name %q", cs.ServerName)
	case s.expectVerifyResult && len(cs.PeerCertificates) > 0 && cs.VerifiedLeaf == nil:
		return errors.New("bogoshim: the client chain was not verified")
	case s.expectHRR && !c.hrr, s.expectNoHRR && c.hrr:
		return fmt.Errorf("bogoshim: HelloRetryRequest %v", c.hrr)
	}
	if want := s.expectedSuite(); want != 0 && cs.CipherSuite != want {
		return fmt.Errorf("bogoshim: cipher suite %#04x, want %#04x", cs.CipherSuite, want)
	}
	if !cs.DidResume && s.expectPeerScheme != 0 && cs.PeerSignatureScheme != s.expectPeerScheme {
		return fmt.Errorf("bogoshim: client signed with %#04x, want %#04x", cs.PeerSignatureScheme, s.expectPeerScheme)
	}
	if !cs.DidResume && s.checkCred {
		// Index -1 is the default credential (creds[0]), i the i-th new one.
		i := s.expectCred + 1
		if i < 0 || i >= len(s.certs) || s.certs[i] == nil || cs.CertificateIndex < 0 ||
			c.cfg.Certificates[cs.CertificateIndex] != s.certs[i] {
			return fmt.Errorf("bogoshim: the handshake did not select credential %d", s.expectCred)
		}
	}
	if s.expectPeerCertFile != "" {
		return checkPeerCerts(s.expectPeerCertFile, cs.PeerCertificates)
	}
	return nil
}

// expectedSuite is the suite -expect-cipher-aes or -expect-cipher-no-aes
// names for this CPU (tlsengine ranks ChaCha20 first without AES hardware).
func (s *settings) expectedSuite() uint16 {
	hasAES := cpu.X86.HasAES && cpu.X86.HasPCLMULQDQ || cpu.ARM64.HasAES && cpu.ARM64.HasPMULL ||
		runtime.GOARCH == "s390x" && cpu.S390X.HasAES && cpu.S390X.HasGHASH
	if hasAES {
		return s.expectAES
	}
	return s.expectNoAES
}

// checkPeerCerts compares the client's chain with the PEM file's.
func checkPeerCerts(file string, got []*x509.Certificate) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var want [][]byte
	for {
		var b *pem.Block
		if b, data = pem.Decode(data); b == nil {
			break
		}
		want = append(want, b.Bytes)
	}
	ok := len(want) == len(got)
	for i := 0; ok && i < len(want); i++ {
		ok = bytes.Equal(want[i], got[i].Raw)
	}
	if !ok {
		return errors.New("bogoshim: client certificate chain differs from -expect-peer-cert-file")
	}
	return nil
}
