package tlsengine

import (
	"bytes"
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"encoding/hex"
	"hash"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// refPRF12 is RFC 5246, Section 5 transcribed naively over crypto/hmac.
func refPRF12(h func() hash.Hash, secret []byte, label string, seed []byte, n int) []byte {
	ls := append([]byte(label), seed...)
	var out []byte
	a := ls
	for len(out) < n {
		a = refHMAC(h, secret, a)
		out = append(out, refHMAC(h, secret, a, ls)...)
	}
	return out[:n]
}

func TestPRF12MatchesReference(t *testing.T) {
	secret := bytes.Repeat([]byte{0x0b}, 48)
	seed := []byte("seed bytes")
	for _, h := range []func() hash.Hash{sha256.New, sha512.New384} {
		for _, n := range []int{1, 12, 32, 33, 48, 100, 200} {
			got := make([]byte, n)
			prf12(h, got, secret, "test label", seed[:4], seed[4:])
			if want := refPRF12(h, secret, "test label", seed, n); !bytes.Equal(got, want) {
				t.Errorf("size %d, n %d: %x, want %x", h().Size(), n, got, want)
			}
		}
	}
}

// TestPRF12KnownAnswer uses the P_SHA256 test vector circulated on the IETF
// TLS list for RFC 5246 implementations.
func TestPRF12KnownAnswer(t *testing.T) {
	secret, _ := hex.DecodeString("9bbe436ba940f017b17652849a71db35")
	seed, _ := hex.DecodeString("a0ba9f936cda311827a6f796ffd5198c")
	want, _ := hex.DecodeString("e3f229ba727be17b8d122620557cd453c2aab21d07c3d495329b52d4e61edb5a6b301791e90d35c9c9a46b4e14baf9af0fa022f7077def17abfd3797c0564bab4fbc91666e9def9b97fce34f796789baa48082d122ee42c5a72e5a5110fff70187347b66")
	got := make([]byte, len(want))
	prf12(sha256.New, got, secret, "test label", seed)
	if !bytes.Equal(got, want) {
		t.Errorf("PRF = %x\nwant %x", got, want)
	}
}

func TestMasterSecretDerivationsMatchReference(t *testing.T) {
	pms := bytes.Repeat([]byte{1}, 32)
	cr, sr := bytes.Repeat([]byte{2}, 32), bytes.Repeat([]byte{3}, 32)
	sh := bytes.Repeat([]byte{4}, 48)
	if got, want := masterFromPreMasterSecret(crypto.SHA256, pms, cr, sr), refPRF12(sha256.New, pms, "master secret", append(cr, sr...), 48); !bytes.Equal(got, want) {
		t.Errorf("master secret %x, want %x", got, want)
	}
	if got, want := extendedMasterFromPreMasterSecret(crypto.SHA384, pms, sh), refPRF12(sha512.New384, pms, "extended master secret", sh, 48); !bytes.Equal(got, want) {
		t.Errorf("extended master secret %x, want %x", got, want)
	}
}

// recordingConn records the bytes a net.Conn reads and writes.
type recordingConn struct {
	net.Conn
	mu          sync.Mutex
	read, wrote []byte
}

func (c *recordingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.read = append(c.read, p[:n]...)
	c.mu.Unlock()
	return n, err
}

func (c *recordingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.wrote = append(c.wrote, p...)
	c.mu.Unlock()
	return c.Conn.Write(p)
}

// splitRecords returns the records of a TLS byte stream.
func splitRecords(t *testing.T, b []byte) (types []uint8, payloads [][]byte) {
	t.Helper()
	for len(b) >= 5 {
		n := int(b[3])<<8 | int(b[4])
		if len(b) < 5+n {
			t.Fatalf("truncated record stream")
		}
		types = append(types, b[0])
		payloads = append(payloads, b[5:5+n])
		b = b[5+n:]
	}
	return types, payloads
}

// handshakeBeforeCCS concatenates the handshake records that precede the
// ChangeCipherSpec, and returns the first record after it.
func handshakeBeforeCCS(t *testing.T, stream []byte) (hs, afterCCS []byte) {
	t.Helper()
	types, payloads := splitRecords(t, stream)
	for i, typ := range types {
		switch typ {
		case 22:
			hs = append(hs, payloads[i]...)
		case 20:
			if i+1 < len(payloads) {
				afterCCS = payloads[i+1]
			}
			return hs, afterCCS
		}
	}
	t.Fatal("no ChangeCipherSpec in stream")
	return nil, nil
}

// handshakeLen returns the length of the first handshake message in b,
// header included.
func handshakeLen(b []byte) int {
	return 4 + (int(b[1])<<16 | int(b[2])<<8 | int(b[3]))
}

// prfSuiteTests are TLS 1.2 suites whose key schedule is checked against a
// crypto/tls handshake.
var prfSuiteTests = []struct {
	name   string
	suite  uint16
	hash   crypto.Hash
	keyLen int
}{
	{"ECDHE-ECDSA-AES128-GCM-SHA256", tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, crypto.SHA256, 16},
	{"ECDHE-ECDSA-AES256-GCM-SHA384", tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, crypto.SHA384, 32},
}

// TestTLS12KeyScheduleMatchesCryptoTLS runs a TLS 1.2 handshake between
// crypto/tls peers, takes the master secret from the key log and the
// handshake from the wire, and checks: the client Finished (decrypted with
// our key block) carries our verify_data, and our exporter matches
// ExportKeyingMaterial.
func TestTLS12KeyScheduleMatchesCryptoTLS(t *testing.T) {
	cert := testCertificate(t)
	for i, tt := range prfSuiteTests {
		var keyLog bytes.Buffer
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			s, err := ln.Accept()
			if err != nil {
				return
			}
			s.SetDeadline(time.Now().Add(10 * time.Second))
			srv := tls.Server(s, &tls.Config{Certificates: []tls.Certificate{cert}, MaxVersion: tls.VersionTLS12})
			srv.Handshake()
			io.Copy(io.Discard, srv)
			srv.Close()
		}()
		raw, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		raw.SetDeadline(time.Now().Add(10 * time.Second))
		rc := &recordingConn{Conn: raw}
		cli := tls.Client(rc, &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS12,
			CipherSuites: []uint16{tt.suite}, KeyLogWriter: &keyLog})
		if err := cli.Handshake(); err != nil {
			t.Fatal(err)
		}
		cs := cli.ConnectionState()
		ekm, err := cs.ExportKeyingMaterial("EXPERIMENTAL loopkv", []byte("ctx"), 40)
		if err != nil {
			t.Fatal(err)
		}
		cli.Close()
		ln.Close()

		fields := strings.Fields(keyLog.String())
		if len(fields) != 3 || fields[0] != "CLIENT_RANDOM" {
			t.Fatalf("#%d: key log %q", i, keyLog.String())
		}
		cr, _ := hex.DecodeString(fields[1])
		ms, _ := hex.DecodeString(fields[2])
		rc.mu.Lock()
		clientHS, clientFin := handshakeBeforeCCS(t, rc.wrote)
		serverHS, _ := handshakeBeforeCCS(t, rc.read)
		rc.mu.Unlock()
		var sh serverHelloMsg
		if !sh.unmarshal(serverHS[:handshakeLen(serverHS)]) || sh.cipherSuite != tt.suite || !sh.extendedMasterSecret {
			t.Fatalf("#%d: ServerHello %+v", i, sh)
		}
		chLen := handshakeLen(clientHS)
		h := tt.hash.New()
		h.Write(clientHS[:chLen]) // ClientHello
		h.Write(serverHS)         // ServerHello .. ServerHelloDone
		h.Write(clientHS[chLen:]) // ClientKeyExchange
		wantVerify := finishedVerifyData12(tt.hash, ms, labelClientFinished, h.Sum(nil))

		clientKey, _, clientIV, _ := keysFromMasterSecret(tt.hash, ms, cr, sh.random, tt.keyLen, 4)
		block, _ := aes.NewCipher(clientKey)
		aead, _ := cipher.NewGCM(block)
		// RFC 5288, Section 3: nonce = implicit IV || explicit 8 bytes;
		// additional data = seq_num || type || version || length.
		nonce := append(clientIV[:4:4], clientFin[:8]...)
		ad := []byte{0, 0, 0, 0, 0, 0, 0, 0, 22, 3, 3, 0, 16}
		fin, err := aead.Open(nil, nonce, clientFin[8:], ad)
		if err != nil {
			t.Errorf("#%d %s: client Finished does not decrypt with our key block: %v", i, tt.name, err)
			continue
		}
		var fm finishedMsg
		if !fm.unmarshal(fin) || !bytes.Equal(fm.verifyData, wantVerify) {
			t.Errorf("#%d %s: client verify_data %x, want %x", i, tt.name, fm.verifyData, wantVerify)
		}
		if got := exportKeyingMaterial12(tt.hash, ms, cr, sh.random, "EXPERIMENTAL loopkv", []byte("ctx"), 40); !bytes.Equal(got, ekm) {
			t.Errorf("#%d %s: exporter %x, want %x", i, tt.name, got, ekm)
		}
	}
}

func BenchmarkPRF12MasterAndKeys(b *testing.B) {
	pms := bytes.Repeat([]byte{1}, 32)
	cr, sr := bytes.Repeat([]byte{2}, 32), bytes.Repeat([]byte{3}, 32)
	b.ReportAllocs()
	for b.Loop() {
		ms := extendedMasterFromPreMasterSecret(crypto.SHA256, pms, cr)
		keysFromMasterSecret(crypto.SHA256, ms, cr, sr, 16, 4)
	}
}
