package server

import (
	"bufio"
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// The oversized-Finished tests run a crypto/tls client whose Finished
// record is replaced on the wire, as it leaves, by records built here
// under the client handshake traffic key (taken from the client's key log):
// a way to send the server what no TLS stack sends, through the real
// transport and loop.

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"TLSOversizedFinishedGetsItsAlert", TestTLSOversizedFinishedGetsItsAlert},
	}...)
}

// finishedSwap is the client's connection: it passes bytes through until
// the first protected record (the client Finished), which it replaces with
// flight(fin, seal), fin being the client's own Finished message, and then
// drops what the client writes (pass: passes it on).
type finishedSwap struct {
	net.Conn
	suite  string // the TLS 1.3 suite the server is pinned to
	keyLog bytes.Buffer
	flight func(fin []byte, seal func(inner []byte) []byte) []byte
	pass   bool

	mu      sync.Mutex
	swapped bool
	err     error
}

func (w *finishedSwap) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.swapped {
		if w.pass {
			return w.Conn.Write(b)
		}
		return len(b), nil
	}
	for off := 0; off+5 <= len(b); {
		n := 5 + int(binary.BigEndian.Uint16(b[off+3:]))
		if b[off] == 23 {
			seal, open := w.keys()
			fin := open(b[off : off+n])
			out := append(bytes.Clone(b[:off]), w.flight(fin, seal)...)
			w.swapped = true
			if _, err := w.Conn.Write(out); err != nil {
				w.err = err // the server may reset a client still sending
			}
			return len(b), nil
		}
		off += n
	}
	return w.Conn.Write(b)
}

// keys returns a function sealing one inner plaintext (content, type,
// padding) after another under the client handshake traffic key (RFC 8446,
// Sections 5.2, 5.3 and 7.3), and one opening the client's first record
// under it, returning its content.
func (w *finishedSwap) keys() (seal func(inner []byte) []byte, open func(rec []byte) []byte) {
	var secret []byte
	for _, line := range strings.Split(w.keyLog.String(), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "CLIENT_HANDSHAKE_TRAFFIC_SECRET" {
			secret, _ = hex.DecodeString(f[2])
		}
	}
	h, keyLen := sha256.New, 16
	switch w.suite {
	case "TLS_AES_256_GCM_SHA384":
		h, keyLen = sha512.New384, 32
	case "TLS_CHACHA20_POLY1305_SHA256":
		keyLen = 32
	}
	key, iv := expandLabel(h, secret, "key", keyLen), expandLabel(h, secret, "iv", 12)
	var aead cipher.AEAD
	if w.suite == "TLS_CHACHA20_POLY1305_SHA256" {
		aead, _ = chacha20poly1305.New(key)
	} else {
		b, _ := aes.NewCipher(key)
		aead, _ = cipher.NewGCM(b)
	}
	var seq uint64
	seal = func(inner []byte) []byte {
		nonce := bytes.Clone(iv)
		for i := 0; i < 8; i++ {
			nonce[4+i] ^= byte(seq >> (56 - 8*i))
		}
		seq++
		n := len(inner) + aead.Overhead()
		hdr := []byte{23, 3, 3, byte(n >> 8), byte(n)}
		return aead.Seal(hdr, nonce, inner, hdr)
	}
	open = func(rec []byte) []byte {
		inner, err := aead.Open(nil, iv, rec[5:], rec[:5]) // sequence number 0
		if err != nil || len(inner) == 0 || inner[len(inner)-1] != 22 {
			return nil
		}
		return inner[:len(inner)-1]
	}
	return seal, open
}

// expandLabel is HKDF-Expand-Label with an empty context (RFC 8446, Section 7.1).
func expandLabel(h func() hash.Hash, secret []byte, label string, n int) []byte {
	info := []byte{byte(n >> 8), byte(n), byte(6 + len(label))}
	info = append(append(info, "tls13 "+label...), 0)
	out, _ := hkdf.Expand(h, secret, string(info), n)
	return out
}

// paddedFinished cuts the handshake message msg into records of chunk
// content bytes each, every one padded to the 2^14+1 inner plaintext limit,
// followed by tail of more client data.
func paddedFinished(msg []byte, chunk, tail int) func(_ []byte, seal func([]byte) []byte) []byte {
	return func(_ []byte, seal func([]byte) []byte) []byte {
		var out []byte
		for off := 0; off < len(msg); off += chunk {
			c := msg[off:min(off+chunk, len(msg))]
			inner := append(append(bytes.Clone(c), 22), make([]byte, 1<<14-len(c))...)
			out = append(out, seal(inner)...)
		}
		for ; tail > 0; tail -= 1 << 14 {
			out = append(out, seal(append(make([]byte, 1<<14), 22))...)
		}
		return out
	}
}

// finishedOf is a Finished message with a body of n bytes.
func finishedOf(n int) []byte {
	return append([]byte{20, byte(n >> 16), byte(n >> 8), byte(n)}, make([]byte, n)...)
}

// paddedTo seals the client's own Finished in one record padded to an
// inner plaintext of n bytes.
func paddedTo(n int) func(fin []byte, seal func([]byte) []byte) []byte {
	return func(fin []byte, seal func([]byte) []byte) []byte {
		return seal(append(append(bytes.Clone(fin), 22), make([]byte, n-len(fin)-1)...))
	}
}

// TestTLSOversizedFinishedGetsItsAlert: a Finished of the largest size
// the engine reads (64 KiB) in records padded to the limit, one refused at
// its 128 KiB header, a record whose inner plaintext is one byte over
// 2^14+1, and the client's own Finished padded to the largest record, each
// followed by more client data, get their alert every time (decode_error,
// decode_error, record_overflow, record_overflow) on every TLS 1.3 suite.
// The client's Finished padded to exactly 2^14+1 completes the handshake.
func TestTLSOversizedFinishedGetsItsAlert(t *testing.T) {
	p := newTestPKI(t)
	cases := []struct {
		name   string
		flight func(fin []byte, seal func([]byte) []byte) []byte
		alert  string
	}{
		{"64 KiB Finished, full padding", paddedFinished(finishedOf(64<<10), 1<<12, 64<<10), "error decoding message"},
		{"64 KiB Finished, records of 2^14", paddedFinished(finishedOf(64<<10), 1<<14, 64<<10), "error decoding message"},
		{"128 KiB Finished refused at its header", paddedFinished(finishedOf(128<<10), 1<<14, 64<<10), "error decoding message"},
		{"inner plaintext over 2^14+1", func(_ []byte, seal func([]byte) []byte) []byte {
			fin := finishedOf(32)
			return append(seal(append(append(fin, 22), make([]byte, 1<<14+1-len(fin))...)), seal(make([]byte, 1<<14))...)
		}, "record overflow"},
		{"own Finished in the largest record", paddedTo(1<<14 + 256 - 16), "record overflow"},
	}
	for _, suite := range []string{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"} {
		s := startTLSServer(t, p, Options{TLS: TLSOptions{Ciphersuites: suite}})
		for _, tt := range cases {
			for run := 0; run < 2; run++ {
				raw, err := net.Dial("tcp", s.TLSAddr())
				if err != nil {
					t.Fatal(err)
				}
				w := &finishedSwap{Conn: raw, suite: suite, flight: tt.flight}
				cfg := p.clientConfig()
				cfg.MinVersion, cfg.KeyLogWriter = tls.VersionTLS13, &w.keyLog
				c := tls.Client(w, cfg)
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				if err := c.Handshake(); err != nil {
					t.Fatalf("%s %s: handshake: %v", suite, tt.name, err)
				}
				_, err = bufio.NewReader(c).ReadByte()
				c.Close()
				if err == nil || !strings.Contains(err.Error(), "remote error: tls: "+tt.alert) {
					t.Errorf("%s %s #%d: read %v, want the alert %q (write: %v)", suite, tt.name, run, err, tt.alert, w.err)
				}
			}
		}
		raw, err := net.Dial("tcp", s.TLSAddr())
		if err != nil {
			t.Fatal(err)
		}
		w := &finishedSwap{Conn: raw, suite: suite, flight: paddedTo(1<<14 + 1), pass: true}
		cfg := p.clientConfig()
		cfg.MinVersion, cfg.KeyLogWriter = tls.VersionTLS13, &w.keyLog
		c := tls.Client(w, cfg)
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		if got := tlsDo(t, c, bufio.NewReader(c), "PING"); got != "+PONG\r\n" {
			t.Errorf("%s: Finished padded to 2^14+1: PING = %q", suite, got)
		}
		c.Close()
	}
}
