package server

import (
	"bufio"
	"crypto/tls"
	"strconv"
	"strings"
	"testing"
	"time"
)

func init() {
	engineSuite = append(engineSuite, struct {
		name string
		fn   func(*testing.T)
	}{"TLSSubscriberReceivingIsActive", TestTLSSubscriberReceivingIsActive})
}

// tlsIdleClients are the crypto/tls clients that go quiet: TLS 1.3 and 1.2,
// AES-GCM and ChaCha20-Poly1305.
var tlsIdleClients = []struct {
	name  string
	max   uint16
	suite uint16 // TLS 1.2 only; TLS 1.3 takes the server's choice
}{
	{"TLSv13", tls.VersionTLS13, 0},
	{"TLSv12/AES_128_GCM", tls.VersionTLS12, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256},
	{"TLSv12/CHACHA20_POLY1305", tls.VersionTLS12, tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305},
}

// TestTLSIdleConnectionsShedKeysAndKeepWorking: connections quiet for over
// a second lose their AEADs in the sweep (INFO tls_idle_released counts
// them), then their next commands still work, and they are shed again once
// quiet again.
func TestTLSIdleConnectionsShedKeysAndKeepWorking(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{})
	admin := dialRaw(t, s.Addr())
	released := func() int {
		n, err := strconv.Atoi(infoValue(t, admin, "tls_idle_released"))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	type client struct {
		c *tls.Conn
		r *bufio.Reader
	}
	var clients []client
	for _, tt := range tlsIdleClients {
		cfg := p.clientConfig()
		cfg.MaxVersion = tt.max
		if tt.suite != 0 {
			cfg.CipherSuites = []uint16{tt.suite}
		}
		c := dialTLS(t, s.TLSAddr(), cfg)
		r := bufio.NewReader(c)
		if got := tlsDo(t, c, r, "SET", "k:"+tt.name, tt.name); got != "+OK\r\n" {
			t.Fatalf("%s: SET = %q", tt.name, got)
		}
		clients = append(clients, client{c, r})
	}
	base := released()
	for round := 1; round <= 2; round++ {
		want := base + round*len(clients)
		deadline := time.Now().Add(10 * time.Second)
		for released() < want && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if got := released(); got < want {
			t.Fatalf("round %d: tls_idle_released = %d, want >= %d", round, got, want)
		}
		for i, tt := range tlsIdleClients {
			cl := clients[i]
			if got := tlsDo(t, cl.c, cl.r, "GET", "k:"+tt.name); got != "$"+strconv.Itoa(len(tt.name))+"\r\n"+tt.name+"\r\n" {
				t.Errorf("round %d: %s: GET after the keys were shed = %q", round, tt.name, got)
			}
			if got := tlsDo(t, cl.c, cl.r, "PING"); got != "+PONG\r\n" {
				t.Errorf("round %d: %s: PING = %q", round, tt.name, got)
			}
		}
	}
}

// TestTLSSubscriberReceivingIsActive: output counts as activity, as in
// Redis (writeToClient sets lastinteraction): a TLS subscriber that has
// sent nothing for over two seconds shows idle>=2 in CLIENT LIST, and after
// a message reaches it, idle below 2 again, so the sweep does not shed the
// keys of a subscriber that keeps receiving.
func TestTLSSubscriberReceivingIsActive(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{})
	admin := dialRaw(t, s.Addr())
	c := dialTLS(t, s.TLSAddr(), p.clientConfig())
	r := bufio.NewReader(c)
	if got := tlsDo(t, c, r, "CLIENT", "SETNAME", "sub"); got != "+OK\r\n" {
		t.Fatalf("CLIENT SETNAME = %q", got)
	}
	if got := tlsDo(t, c, r, "SUBSCRIBE", "ch"); got != "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n" {
		t.Fatalf("SUBSCRIBE = %q", got)
	}
	idle := func() int {
		list := admin.do("CLIENT", "LIST")
		for _, line := range strings.Split(list, "\n") {
			if !strings.Contains(line, " name=sub ") {
				continue
			}
			_, v, _ := strings.Cut(line, " idle=")
			v, _, _ = strings.Cut(v, " ")
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("CLIENT LIST line %q", line)
			}
			return n
		}
		t.Fatalf("no subscriber in CLIENT LIST %q", list)
		return 0
	}
	deadline := time.Now().Add(10 * time.Second)
	for idle() < 2 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if got := idle(); got < 2 {
		t.Fatalf("idle = %d after a quiet wait, want >= 2", got)
	}
	if got := admin.do("PUBLISH", "ch", "hello"); got != ":1\r\n" {
		t.Fatalf("PUBLISH = %q", got)
	}
	if got, err := readRaw(r); err != nil || got != "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$5\r\nhello\r\n" {
		t.Fatalf("message = %q %v", got, err)
	}
	if got := idle(); got >= 2 {
		t.Fatalf("idle = %d right after a delivery, want < 2 (output is activity)", got)
	}
}
