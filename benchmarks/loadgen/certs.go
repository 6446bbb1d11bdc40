package loadgen

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// CertFiles names the PEM files WriteCerts creates.
type CertFiles struct {
	CA   string // the CA certificate clients trust
	Cert string // the server certificate, for localhost and 127.0.0.1
	Key  string // the server's ECDSA P-256 private key (PKCS #8)
}

// WriteCerts creates a throwaway CA and a server certificate signed by it
// (ECDSA P-256, valid for localhost, 127.0.0.1 and ::1 for a week) under
// dir, for benchmarks and tests on loopback.
func WriteCerts(dir string) (CertFiles, error) {
	f := CertFiles{
		CA: filepath.Join(dir, "ca.pem"), Cert: filepath.Join(dir, "server.pem"),
		Key: filepath.Join(dir, "server-key.pem"),
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return f, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "loopkv-bench CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(7 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return f, err
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return f, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(7 * 24 * time.Hour),
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return f, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return f, err
	}
	for _, w := range []struct {
		path, typ string
		der       []byte
	}{{f.CA, "CERTIFICATE", caDER}, {f.Cert, "CERTIFICATE", der}, {f.Key, "PRIVATE KEY", keyDER}} {
		b := pem.EncodeToMemory(&pem.Block{Type: w.typ, Bytes: w.der})
		if err := os.WriteFile(w.path, b, 0o600); err != nil {
			return f, err
		}
	}
	return f, nil
}

// ClientTLS returns a client configuration that trusts the CA in caFile
// (or skips verification when insecure), with serverName for SNI and
// verification, and versions limited to [minVer, maxVer] when not 0.
func ClientTLS(caFile, serverName string, insecure bool, minVer, maxVer uint16) (*tls.Config, error) {
	cfg := &tls.Config{ServerName: serverName, InsecureSkipVerify: insecure, MinVersion: minVer, MaxVersion: maxVer}
	if caFile != "" {
		b, err := os.ReadFile(caFile)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("loadgen: no certificate in %s", caFile)
		}
	}
	return cfg, nil
}
