package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// devTLSFiles are the paths of a development CA and a server certificate
// signed by it, for `make run`.
type devTLSFiles struct {
	CACert, Cert, Key string
}

// ensureDevTLS returns the development CA and server certificate in dir,
// generating them (ECDSA P-256, valid for localhost, 127.0.0.1 and ::1, one
// year) when they are missing. Nothing here is meant for production.
func ensureDevTLS(dir string) (devTLSFiles, error) {
	f := devTLSFiles{
		CACert: filepath.Join(dir, "ca.crt"),
		Cert:   filepath.Join(dir, "server.crt"),
		Key:    filepath.Join(dir, "server.key"),
	}
	if fileExists(f.CACert) && fileExists(f.Cert) && fileExists(f.Key) {
		return f, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return f, err
	}
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return f, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{CommonName: "loopkv development CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(1, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return f, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return f, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return f, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(1, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return f, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return f, err
	}
	err = errors.Join(
		writePEM(f.CACert, "CERTIFICATE", caDER, 0o644),
		writePEM(f.Cert, "CERTIFICATE", der, 0o644),
		writePEM(f.Key, "PRIVATE KEY", keyDER, 0o600),
	)
	return f, err
}

func randomSerial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return n
}

func writePEM(path, typ string, der []byte, mode os.FileMode) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), mode)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
