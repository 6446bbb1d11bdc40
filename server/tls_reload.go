package server

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/loopkv/loopkv/tlsengine"
)

// Building and reloading the TLS configuration. Every reload (CONFIG SET of
// a file setting, SIGHUP through ReloadTLS) reads the files off the loops,
// builds a new immutable tlsengine.Config and swaps it in atomically: new
// handshakes use it, established connections keep theirs.

// build reads the files named by o and returns the engine configuration.
func (t *tlsState) build(o TLSOptions) (*tlsengine.Config, error) {
	if o.Config != nil {
		return o.Config, nil
	}
	cfg := &tlsengine.Config{Rand: randReader, AsyncSign: asyncSign}
	if len(o.CertFiles) == 0 || len(o.CertFiles) != len(o.KeyFiles) {
		return nil, errors.New("server: tls-cert-file and tls-key-file must be given in pairs")
	}
	for i := range o.CertFiles {
		c, err := loadCertificate(o.CertFiles[i], o.KeyFiles[i], o.KeyFilePass)
		if err != nil {
			return nil, err
		}
		cfg.Certificates = append(cfg.Certificates, c)
	}
	var err error
	if cfg.ClientCAs, err = loadCAs(o.CACertFile, o.CACertDir); err != nil {
		return nil, err
	}
	switch strings.ToLower(o.AuthClients) {
	case "no":
	case "optional":
		cfg.ClientAuth = tlsengine.RequestClientCert
	case "yes":
		cfg.ClientAuth = tlsengine.RequireClientCert
	default:
		return nil, fmt.Errorf("server: tls-auth-clients must be no, optional or yes: %q", o.AuthClients)
	}
	if cfg.ClientAuth != tlsengine.NoClientCert {
		if cfg.ClientCAs == nil {
			return nil, errors.New("server: tls-auth-clients needs tls-ca-cert-file or tls-ca-cert-dir")
		}
		cfg.AsyncVerify = true
	}
	if cfg.MinVersion, cfg.MaxVersion, err = parseTLSProtocols(o.Protocols); err != nil {
		return nil, err
	}
	if cfg.CipherSuites, err = parseTLSSuites(o.Ciphersuites, o.Ciphers); err != nil {
		return nil, err
	}
	if cfg.CurvePreferences, err = parseTLSGroups(o.Groups); err != nil {
		return nil, err
	}
	switch strings.ToLower(o.SessionCaching) {
	case "yes":
		cfg.TicketKeys = t.tickets
		cfg.TicketLifetime = time.Duration(o.SessionCacheTimeout) * time.Second
	case "no":
	default:
		return nil, fmt.Errorf("server: tls-session-caching must be yes or no: %q", o.SessionCaching)
	}
	return cfg, nil
}

// asyncSign sends RSA signatures to the worker pool; ECDSA and Ed25519 are
// cheap enough (about 30 µs) to make on the loop.
func asyncSign(s tlsengine.SignatureScheme) bool {
	switch s {
	case tlsengine.ECDSAWithP256AndSHA256, tlsengine.ECDSAWithP384AndSHA384,
		tlsengine.ECDSAWithP521AndSHA512, tlsengine.Ed25519:
		return false
	}
	return true
}

// loadCertificate reads a PEM chain and its key. A legacy encrypted PEM key
// (RFC 1421 "Proc-Type: 4,ENCRYPTED", as `openssl genrsa -aes256` writes)
// is decrypted with pass; encrypted PKCS #8 needs a dependency and is
// refused with a clear error.
func loadCertificate(certFile, keyFile, pass string) (*tlsengine.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return nil, fmt.Errorf("server: tls-cert-file: %w", err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("server: tls-key-file: %w", err)
	}
	if keyPEM, err = decryptKeyPEM(keyPEM, pass); err != nil {
		return nil, err
	}
	c, err := tlsengine.ParseCertificatePEM(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("server: %s: %w", certFile, err)
	}
	return c, nil
}

// decryptKeyPEM returns keyPEM with its first private key block decrypted
// when it is a legacy encrypted PEM block.
func decryptKeyPEM(keyPEM []byte, pass string) ([]byte, error) {
	rest := keyPEM
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return keyPEM, nil
		}
		if b.Type == "ENCRYPTED PRIVATE KEY" {
			return nil, errors.New("server: tls-key-file: encrypted PKCS #8 keys are not supported; " +
				"convert with `openssl pkey -in key.pem -out key.pem -aes256 -traditional` or decrypt it")
		}
		//lint:ignore SA1019 the standard library's only reader of legacy encrypted PEM
		if !x509.IsEncryptedPEMBlock(b) { //nolint:staticcheck
			continue
		}
		if pass == "" {
			return nil, errors.New("server: tls-key-file is encrypted: set tls-key-file-pass")
		}
		//lint:ignore SA1019 see above
		der, err := x509.DecryptPEMBlock(b, []byte(pass)) //nolint:staticcheck
		if err != nil {
			return nil, fmt.Errorf("server: tls-key-file: %w", err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: b.Type, Bytes: der}), nil
	}
}

// loadCAs reads tls-ca-cert-file and every PEM file of tls-ca-cert-dir;
// nil when neither is set.
func loadCAs(file, dir string) (*x509.CertPool, error) {
	if file == "" && dir == "" {
		return nil, nil
	}
	pool := x509.NewCertPool()
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("server: tls-ca-cert-file: %w", err)
		}
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("server: tls-ca-cert-file: no certificate in %s", file)
		}
	}
	if dir != "" {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("server: tls-ca-cert-dir: %w", err)
		}
		for _, e := range ents {
			if e.IsDir() {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err == nil {
				pool.AppendCertsFromPEM(b) // OpenSSL's hash links and non-PEM files add nothing
			}
		}
	}
	return pool, nil
}

// parseTLSProtocols maps tls-protocols ("TLSv1.2 TLSv1.3") to a version range.
func parseTLSProtocols(s string) (lo, hi uint16, err error) {
	for _, f := range strings.Fields(s) {
		var v uint16
		switch strings.ToLower(f) {
		case "tlsv1.2":
			v = tlsengine.VersionTLS12
		case "tlsv1.3":
			v = tlsengine.VersionTLS13
		default:
			return 0, 0, fmt.Errorf("server: tls-protocols: unsupported protocol %q (TLSv1.2, TLSv1.3)", f)
		}
		if lo == 0 || v < lo {
			lo = v
		}
		hi = max(hi, v)
	}
	if lo == 0 {
		return 0, 0, errors.New("server: tls-protocols: no protocol")
	}
	return lo, hi, nil
}

// tlsSuiteNames are the suites by OpenSSL name (TLS 1.3: tls-ciphersuites;
// TLS 1.2: tls-ciphers).
var tlsSuiteNames = map[string]uint16{
	"TLS_AES_128_GCM_SHA256":        tlsengine.TLS_AES_128_GCM_SHA256,
	"TLS_AES_256_GCM_SHA384":        tlsengine.TLS_AES_256_GCM_SHA384,
	"TLS_CHACHA20_POLY1305_SHA256":  tlsengine.TLS_CHACHA20_POLY1305_SHA256,
	"ECDHE-ECDSA-AES128-GCM-SHA256": tlsengine.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-ECDSA-AES256-GCM-SHA384": tlsengine.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-RSA-AES128-GCM-SHA256":   tlsengine.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-RSA-AES256-GCM-SHA384":   tlsengine.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-ECDSA-CHACHA20-POLY1305": tlsengine.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-RSA-CHACHA20-POLY1305":   tlsengine.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}

// parseTLSSuites joins tls-ciphersuites (TLS 1.3) and tls-ciphers (TLS 1.2)
// into Config.CipherSuites; an empty list keeps that version's defaults.
func parseTLSSuites(suites13, ciphers12 string) ([]uint16, error) {
	l13, err := parseSuiteList("tls-ciphersuites", suites13, true)
	if err != nil {
		return nil, err
	}
	l12, err := parseSuiteList("tls-ciphers", ciphers12, false)
	if err != nil {
		return nil, err
	}
	if l13 == nil && l12 == nil {
		return nil, nil
	}
	if l13 == nil {
		l13 = []uint16{tlsengine.TLS_AES_128_GCM_SHA256, tlsengine.TLS_AES_256_GCM_SHA384, tlsengine.TLS_CHACHA20_POLY1305_SHA256}
	}
	return append(l13, l12...), nil
}

func parseSuiteList(name, s string, tls13 bool) ([]uint16, error) {
	var ids []uint16
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ':' || r == ' ' || r == ',' }) {
		if strings.EqualFold(f, "DEFAULT") {
			continue
		}
		id, ok := tlsSuiteNames[strings.ToUpper(f)]
		if !ok || tls13 != (id>>8 == 0x13) {
			return nil, fmt.Errorf("server: %s: unsupported suite %q", name, f)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// parseTLSGroups maps tls-groups to curve preferences, accepting OpenSSL's
// names and aliases.
func parseTLSGroups(s string) ([]tlsengine.CurveID, error) {
	var ids []tlsengine.CurveID
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ':' || r == ' ' || r == ',' }) {
		var id tlsengine.CurveID
		switch strings.ToLower(f) {
		case "x25519mlkem768":
			id = tlsengine.X25519MLKEM768
		case "x25519":
			id = tlsengine.X25519
		case "p-256", "prime256v1", "secp256r1":
			id = tlsengine.CurveP256
		case "p-384", "secp384r1":
			id = tlsengine.CurveP384
		case "p-521", "secp521r1":
			id = tlsengine.CurveP521
		default:
			return nil, fmt.Errorf("server: tls-groups: unsupported group %q", f)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// reload rebuilds the configuration from the current settings and swaps it
// in. It reads files: call it off the loops.
func (t *tlsState) reload(why string) error {
	t.reloadMu.Lock()
	defer t.reloadMu.Unlock()
	t.mu.Lock()
	o := t.opts
	t.mu.Unlock()
	cfg, err := t.build(o)
	if err != nil {
		t.stats.reloadFails.Add(1)
		msg := err.Error()
		t.lastErr.Store(&msg)
		t.log.Error("tls reload failed", zap.String("trigger", why), zap.Error(err))
		return err
	}
	t.cfg.Store(cfg)
	t.stats.reloads.Add(1)
	t.lastErr.Store(nil)
	t.log.Info("tls configuration reloaded", zap.String("trigger", why))
	return nil
}

// ReloadTLS re-reads the TLS certificates, keys and CAs (SIGHUP) and swaps
// them in for new handshakes; established connections keep theirs. It is
// a no-op without TLS.
func (s *Server) ReloadTLS() error {
	s.lazy()
	if s.tls == nil {
		return nil
	}
	return s.tls.reload("reload")
}

// setTLSOption changes a TLS setting and reloads off the loop (CONFIG SET
// runs on a loop, so it answers at once; a failed reload keeps the old
// configuration, is logged and shows in INFO tls_last_reload_error).
func (t *tlsState) setTLSOption(change func(o *TLSOptions)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	change(&t.opts)
	if !t.reloadDue {
		// The other settings of the same CONFIG SET land in this reload.
		t.reloadDue = true
		time.AfterFunc(configReloadDelay, func() {
			t.mu.Lock()
			t.reloadDue = false
			t.mu.Unlock()
			_ = t.reload("config set")
		})
	}
}

// configReloadDelay gathers the settings of one CONFIG SET into one reload.
const configReloadDelay = 20 * time.Millisecond

// options returns a copy of the current settings.
func (t *tlsState) options() TLSOptions {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.opts
}
