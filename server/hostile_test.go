package server

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"regexp"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/loopkv/loopkv/store"
)

// Hostile clients (issue 8). Every attack runs beside a victim: a client
// that writes keys before the attack and reads them back after it, so a
// test fails if the server answers the attacker correctly but loses or
// mixes up someone else's data. Health is asserted by commands that
// succeed, never by timing.

// victim is a well-behaved client with keys of its own.
type victim struct {
	t    *testing.T
	rc   *rawConn
	keys map[string]string
}

// newVictim connects to addr and writes n keys with random values.
func newVictim(t *testing.T, addr string, n int) *victim {
	t.Helper()
	v := &victim{t: t, rc: dialRaw(t, addr), keys: make(map[string]string, n)}
	args := []string{"MSET"}
	for i := 0; i < n; i++ {
		k, val := fmt.Sprintf("victim:%d", i), fmt.Sprintf("v%d-%x", i, rand.Uint64())
		v.keys[k] = val
		args = append(args, k, val)
	}
	if got := v.rc.do(args...); got != "+OK\r\n" {
		t.Fatalf("victim MSET: %q", got)
	}
	return v
}

// check reads every key back and fails the test on a missing or changed
// value.
func (v *victim) check() {
	v.t.Helper()
	args := []string{"MGET"}
	for k := range v.keys {
		args = append(args, k)
	}
	got := v.rc.do(args...)
	var want strings.Builder
	fmt.Fprintf(&want, "*%d\r\n", len(args)-1)
	for _, k := range args[1:] {
		fmt.Fprintf(&want, "$%d\r\n%s\r\n", len(v.keys[k]), v.keys[k])
	}
	if got != want.String() {
		v.t.Errorf("victim's keys changed: MGET = %.200q, want %.200q", got, want.String())
	}
	if got := v.rc.do("PING"); got != "+PONG\r\n" {
		v.t.Errorf("victim PING = %q", got)
	}
}

// infoValue returns field of INFO as read by rc.
func infoValue(t *testing.T, rc *rawConn, field string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + field + `:(\S*)\r$`).FindStringSubmatch(rc.do("INFO", "everything"))
	if m == nil {
		t.Fatalf("INFO has no %s", field)
	}
	return m[1]
}

// protectedRejectsTests are the decision of protected mode for real peer
// addresses, with no password and protected mode on.
var protectedRejectsTests = []struct {
	addr   net.Addr
	reject bool
}{
	{&net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 5000}, false},
	{&net.TCPAddr{IP: net.ParseIP("127.0.0.2"), Port: 5000}, false}, // Redis 7.0.15 denies it; 7.2 and Valkey do not
	{&net.TCPAddr{IP: net.ParseIP("127.255.255.254"), Port: 5000}, false},
	{&net.TCPAddr{IP: net.ParseIP("::1"), Port: 5000}, false},
	{&net.TCPAddr{IP: net.ParseIP("::ffff:127.0.0.1"), Port: 5000}, false},
	{&net.UnixAddr{Name: "/tmp/loopkv.sock", Net: "unix"}, false},
	{&net.TCPAddr{IP: net.ParseIP("10.0.0.1"), Port: 5000}, true},
	{&net.TCPAddr{IP: net.ParseIP("192.0.2.2"), Port: 5000}, true},
	{&net.TCPAddr{IP: net.ParseIP("128.0.0.1"), Port: 5000}, true},
	{&net.TCPAddr{IP: net.ParseIP("0.0.0.0"), Port: 5000}, true},
	{&net.TCPAddr{IP: net.ParseIP("fe80::1"), Port: 5000}, true},
	{&net.TCPAddr{IP: net.ParseIP("::ffff:10.0.0.1"), Port: 5000}, true},
	{&net.TCPAddr{IP: net.ParseIP("2001:db8::1"), Port: 5000}, true},
	{nil, true}, // an address Redis cannot read is denied
}

func TestProtectedModeAdmitsOnlyLoopbackPeers(t *testing.T) {
	s := New(Options{})
	for i, tt := range protectedRejectsTests {
		if got := s.protectedRejects(tt.addr, false); got != tt.reject {
			t.Errorf("#%d %v: rejects %v, want %v", i, tt.addr, got, tt.reject)
		}
		if s.protectedRejects(tt.addr, true) {
			t.Errorf("#%d %v: rejects a verified client certificate", i, tt.addr)
		}
	}
	remote := &net.TCPAddr{IP: net.ParseIP("10.0.0.1")}
	for _, o := range []Options{{ProtectedMode: "no"}, {ProtectedMode: "NO"}, {RequirePass: "pw"}} {
		if New(o).protectedRejects(remote, false) {
			t.Errorf("%+v: remote peer rejected", o)
		}
	}
}

// refDenied returns what redis-server 7.0 sends a client it refuses in
// protected mode: it denies 127.0.0.2, so loopback suffices.
func refDenied(t *testing.T) string {
	t.Helper()
	ref := startRefRedis(t)
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", ref)
	if err != nil {
		t.Skipf("cannot dial from 127.0.0.2: %v", err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, err := io.ReadAll(c)
	if err != nil || !strings.HasPrefix(string(b), "-DENIED ") {
		t.Fatalf("redis-server from 127.0.0.2: %q, %v", b, err)
	}
	return string(b)
}

// nonLoopbackIPv4 returns an IPv4 address of this machine other than
// loopback, or nil.
func nonLoopbackIPv4() net.IP {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP
		}
	}
	return nil
}

// dialFrom connects to port on ip from ip itself and returns everything
// the server sends before it closes, or "<open>" appended if it stays
// open for a second after sending what it sent.
func dialFrom(t *testing.T, ip net.IP, port int, send string) string {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if send != "" {
		_, _ = io.WriteString(c, send)
	}
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	b, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return string(b) + "<open>"
	}
	return string(b)
}

// TestProtectedModeDeniesNonLoopbackClients binds every interface and
// connects from this machine's own non-loopback address: the server sees a
// remote peer. The DENIED text is compared with redis-server's.
func TestProtectedModeDeniesNonLoopbackClients(t *testing.T) {
	ip := nonLoopbackIPv4()
	if ip == nil {
		t.Skip("no non-loopback IPv4 address; TestProtectedModeDeniedTextMatchesRedis covers the reply")
	}
	want := refDenied(t)
	s, _ := startServer(t, Options{Bind: "0.0.0.0"})
	port := s.opts.Port
	v := newVictim(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 50)
	if got := dialFrom(t, ip, port, ""); got != want {
		t.Errorf("from %v: got %.120q, want redis-server's %.120q", ip, got, want)
	}
	if got := infoValue(t, v.rc, "rejected_connections"); got != "1" {
		t.Errorf("rejected_connections = %s, want 1", got)
	}
	steps := []struct {
		admin []string // run by the loopback victim first
		want  string   // what the remote client then reads after PING
	}{
		{[]string{"CONFIG", "SET", "protected-mode", "no"}, "+PONG\r\n<open>"},
		{[]string{"CONFIG", "SET", "protected-mode", "yes"}, want},
		{[]string{"CONFIG", "SET", "requirepass", "secret"}, "-NOAUTH Authentication required.\r\n<open>"},
		{[]string{"CONFIG", "SET", "requirepass", ""}, want},
		{[]string{"ACL", "SETUSER", "default", "resetpass", ">pw"}, "-NOAUTH Authentication required.\r\n<open>"},
		{[]string{"ACL", "SETUSER", "default", "nopass"}, want},
	}
	for i, st := range steps {
		if got := v.rc.do(st.admin...); got != "+OK\r\n" {
			t.Fatalf("#%d %v: %q", i, st.admin, got)
		}
		if st.admin[0] == "ACL" && st.admin[3] == "resetpass" {
			v.rc.do("AUTH", "pw") // the victim stays authenticated either way
		}
		send := "PING\r\n"
		if st.want == want {
			send = "" // the server closes at once; do not race its close
		}
		if got := dialFrom(t, ip, port, send); got != st.want {
			t.Errorf("#%d after %v: got %.120q, want %.120q", i, st.admin, got, st.want)
		}
	}
	v.check()
}

// TestProtectedModeDeniedTextMatchesRedis reaches the DENIED path over
// loopback, with the unexported hook that counts loopback peers as remote,
// for machines without another local address.
func TestProtectedModeDeniedTextMatchesRedis(t *testing.T) {
	want := refDenied(t)
	s, _ := startServer(t, Options{})
	v := newVictim(t, s.Addr(), 50)
	s.cfg.prot.loopbackIsRemote.Store(true)
	c := dialRaw(t, s.Addr())
	if got := c.expectClosed(); got != want {
		t.Errorf("got %.120q, want redis-server's %.120q", got, want)
	}
	if got := infoValue(t, v.rc, "rejected_connections"); got != "1" {
		t.Errorf("rejected_connections = %s, want 1", got)
	}
	if got := v.rc.do("CONFIG", "GET", "protected-mode"); got != "*2\r\n$14\r\nprotected-mode\r\n$3\r\nyes\r\n" {
		t.Errorf("CONFIG GET protected-mode = %q", got)
	}
	if got := v.rc.do("CONFIG", "SET", "protected-mode", "maybe"); got != "-ERR CONFIG SET failed (possibly related to argument 'protected-mode') - argument must be 'yes' or 'no'\r\n" {
		t.Errorf("CONFIG SET protected-mode maybe = %q", got)
	}
	v.rc.do("CONFIG", "SET", "protected-mode", "no")
	if got := dialRaw(t, s.Addr()).do("PING"); got != "+PONG\r\n" {
		t.Errorf("protected-mode no: PING = %q", got)
	}
	v.check()
}

// dialTLSFrom connects to addr over TLS (from local unless nil), sends
// send after the handshake, and returns everything the server sends
// before its close_notify, with "<open>" appended if the session stays
// open for half a second, "<reset>" if the TCP connection is reset after
// the close_notify (the server closed with bytes of ours unread), or
// "<not closed>" if it neither ends nor resets.
func dialTLSFrom(t *testing.T, local net.IP, addr string, cfg *tls.Config, send string) string {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second}
	if local != nil {
		d.LocalAddr = &net.TCPAddr{IP: local}
	}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tc := tls.Client(c, cfg)
	_ = tc.SetDeadline(time.Now().Add(5 * time.Second))
	if err := tc.Handshake(); err != nil {
		return "handshake: " + err.Error()
	}
	if send != "" {
		_, _ = io.WriteString(tc, send)
	}
	_ = tc.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	b, err := io.ReadAll(tc)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return string(b) + "<open>"
	}
	if err != nil {
		return string(b) + "<" + err.Error() + ">"
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := c.Read(make([]byte, 1))
	switch {
	case n == 0 && err == io.EOF:
		return string(b)
	case n == 0 && errors.Is(err, syscall.ECONNRESET):
		return string(b) + "<reset>"
	}
	return string(b) + "<not closed>"
}

// protectedTLSTests are TLS clients that protected mode sees as remote:
// the handshake completes, and a client without a verified certificate
// reads the DENIED text in the session and is closed.
var protectedTLSTests = []struct {
	auth    string // tls-auth-clients; "" without tls-ca-cert-file
	cert    bool   // the client shows the CA's client certificate
	version uint16 // the client's highest version
	denied  bool
}{
	{"", false, tls.VersionTLS13, true},
	{"", true, tls.VersionTLS13, true}, // not asked for, not verified
	{"", false, tls.VersionTLS12, true},
	{"optional", false, tls.VersionTLS13, true},
	{"optional", false, tls.VersionTLS12, true},
	{"optional", true, tls.VersionTLS13, false},
	{"optional", true, tls.VersionTLS12, false},
	{"yes", true, tls.VersionTLS13, false},
	{"yes", true, tls.VersionTLS12, false},
}

// protectedTLSClient returns the client configuration of a
// protectedTLSTests row.
func protectedTLSClient(t *testing.T, p *testPKI, cert bool, version uint16) *tls.Config {
	cfg := p.clientConfig()
	cfg.MaxVersion = version
	if cert {
		cfg.Certificates = []tls.Certificate{p.clientPair(t)}
	}
	return cfg
}

// TestProtectedModeOnTheTLSPort reaches protected mode on the TLS port
// over loopback, with the unexported hook that counts loopback peers as
// remote: a client without a verified certificate completes the
// handshake, reads the DENIED text the plaintext port sends and is closed;
// one with a verified certificate is served. A command sent right after
// the handshake never runs. Loopback clients are served once the hook is
// off.
func TestProtectedModeOnTheTLSPort(t *testing.T) {
	p := newTestPKI(t)
	servers := map[string]*Server{}
	for _, auth := range []string{"", "optional", "yes"} {
		o := TLSOptions{}
		if auth != "" {
			o = TLSOptions{CACertFile: p.caFile, AuthClients: auth}
		}
		servers[auth] = startTLSServer(t, p, Options{TLS: o})
		servers[auth].cfg.prot.loopbackIsRemote.Store(true)
	}
	denied := map[string]int{}
	for i, tt := range protectedTLSTests {
		s := servers[tt.auth]
		want, send := string(rejectProtected), ""
		if !tt.denied {
			want, send = "+PONG\r\n<open>", "PING\r\n"
		}
		if got := dialTLSFrom(t, nil, s.TLSAddr(), protectedTLSClient(t, p, tt.cert, tt.version), send); got != want {
			t.Errorf("#%d auth-clients %q cert %v version %x: got %.120q, want %.120q",
				i, tt.auth, tt.cert, tt.version, got, want)
		}
		if tt.denied {
			denied[tt.auth]++
		}
	}
	// A denied client's command, sent at once behind its Finished, never
	// runs. Whether the server has read it when it closes is a race: if
	// the record arrives after the server's last read, the close with
	// unread input makes the kernel send a reset, which may come after
	// the whole DENIED text and close_notify, or cut it short.
	s := servers["optional"]
	got := dialTLSFrom(t, nil, s.TLSAddr(), protectedTLSClient(t, p, false, tls.VersionTLS13), "SET protected:leak 1\r\n")
	if !deniedOrReset(got) {
		t.Errorf("pipelined SET: got %q, want the DENIED text, whole or cut short by a reset", got)
	}
	denied["optional"]++
	for auth, s := range servers {
		s.cfg.prot.loopbackIsRemote.Store(false)
		rc := dialRaw(t, s.Addr())
		if got := infoValue(t, rc, "rejected_connections"); got != strconv.Itoa(denied[auth]) {
			t.Errorf("auth-clients %q: rejected_connections = %s, want %d", auth, got, denied[auth])
		}
		if got := rc.do("EXISTS", "protected:leak"); got != ":0\r\n" {
			t.Errorf("auth-clients %q: the denied client's SET ran: EXISTS = %q", auth, got)
		}
		if auth == "yes" {
			continue // needs a certificate, remote or not
		}
		if got := dialTLSFrom(t, nil, s.TLSAddr(), protectedTLSClient(t, p, false, tls.VersionTLS13), "PING\r\n"); got != "+PONG\r\n<open>" {
			t.Errorf("auth-clients %q: loopback client without a certificate: %.120q", auth, got)
		}
	}
}

// deniedOrReset reports whether got, from dialTLSFrom, is the DENIED text
// and a close, or a prefix of that text ended by a connection reset.
func deniedOrReset(got string) bool {
	if got == string(rejectProtected) || got == string(rejectProtected)+"<reset>" {
		return true
	}
	i := strings.LastIndexByte(got, '<')
	return i >= 0 && strings.HasSuffix(got, "reset by peer>") && strings.HasPrefix(string(rejectProtected), got[:i])
}

// TestProtectedModeDeniesRemoteTLSClients binds every interface and
// connects over TLS from this machine's own non-loopback address: without
// a certificate the client reads DENIED in the session and is closed; with
// a verified one (tls-auth-clients optional) it is served, as is a
// loopback client without one.
func TestProtectedModeDeniesRemoteTLSClients(t *testing.T) {
	ip := nonLoopbackIPv4()
	if ip == nil {
		t.Skip("no non-loopback IPv4 address; TestProtectedModeOnTheTLSPort covers the TLS path")
	}
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{Bind: "0.0.0.0", TLS: TLSOptions{CACertFile: p.caFile, AuthClients: "optional"}})
	remote := net.JoinHostPort(ip.String(), strconv.Itoa(s.opts.TLS.Port))
	loopback := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.opts.TLS.Port))
	steps := []struct {
		local net.IP
		addr  string
		cert  bool
		want  string
	}{
		{ip, remote, false, string(rejectProtected)},
		{ip, remote, true, "+PONG\r\n<open>"},
		{nil, loopback, false, "+PONG\r\n<open>"},
	}
	for i, st := range steps {
		send := "PING\r\n"
		if st.want == string(rejectProtected) {
			send = ""
		}
		if got := dialTLSFrom(t, st.local, st.addr, protectedTLSClient(t, p, st.cert, tls.VersionTLS13), send); got != st.want {
			t.Errorf("#%d from %v, cert %v: got %.120q, want %.120q", i, st.local, st.cert, got, st.want)
		}
	}
	if got := infoValue(t, dialRaw(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(s.opts.Port))), "rejected_connections"); got != "1" {
		t.Errorf("rejected_connections = %s, want 1", got)
	}
}

// TestSlowlorisClientsDoNotStarveOthers holds 100 plaintext and 20
// established TLS connections that each send one byte of a command every
// 100 ms (on TLS, one record per byte). Other clients are served
// throughout; once the trickle stops, the idle timeout closes them all.
func TestSlowlorisClientsDoNotStarveOthers(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{Timeout: 1})
	v := newVictim(t, s.Addr(), 100)
	const plain, tlsN, n = 100, 20, 120
	cmd := multibulk("SET", "slow", strings.Repeat("s", 1000))
	conns := make([]net.Conn, n)
	for i := range conns {
		var c net.Conn
		var err error
		if i < plain {
			c, err = net.Dial("tcp", s.Addr())
		} else {
			c, err = tls.Dial("tcp", s.TLSAddr(), p.clientConfig())
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		conns[i] = c
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				if _, err := c.Write([]byte{cmd[i%len(cmd)]}); err != nil {
					return
				}
			}
		}()
	}
	// 2.5 s of trickle: longer than the timeout, so only the trickle keeps
	// the slow clients open. The victim works all along.
	ops := 0
	for end := time.Now().Add(2500 * time.Millisecond); time.Now().Before(end); ops++ {
		k := "busy:" + strconv.Itoa(ops)
		if got := v.rc.do("SET", k, k); got != "+OK\r\n" {
			t.Fatalf("victim SET during slowloris: %q", got)
		}
		if got := v.rc.do("GET", k); got != "$"+strconv.Itoa(len(k))+"\r\n"+k+"\r\n" {
			t.Fatalf("victim GET during slowloris: %q", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := infoValue(t, v.rc, "connected_clients"); got != strconv.Itoa(n+1) {
		t.Errorf("connected_clients while trickling = %s, want %d", got, n+1)
	}
	close(stop)
	wg.Wait()
	// Every slow client is closed by the idle timeout, while the victim,
	// never idle, is served.
	var closed atomic.Int64
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
			b, err := io.ReadAll(c)
			if err != nil && !strings.Contains(err.Error(), "reset") || len(b) != 0 {
				t.Errorf("slow client %d: read %q, %v; want a close by the idle timeout", i, b, err)
			}
			closed.Add(1)
		}()
	}
	for closed.Load() < n {
		if got := v.rc.do("PING"); got != "+PONG\r\n" {
			t.Fatalf("victim PING while the slow clients time out: %q", got)
		}
		time.Sleep(100 * time.Millisecond)
	}
	wg.Wait()
	v.check()
	if got := infoValue(t, v.rc, "connected_clients"); got != "1" {
		t.Errorf("connected_clients after the timeout = %s, want 1", got)
	}
}

// heapBytes is the live heap as runtime/metrics reports it.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestClientThatNeverReadsIsClosedAndMemoryStaysBounded sends 2,000 GETs
// of a 1 MiB value (2 GiB of replies) and never reads. The output buffer
// limit (4 MiB here: several replies, which accumulate behind the parked
// Flush on netpoll as in gnet's outbound buffer) closes it; the heap of
// the process (server included) never grows by more than a small multiple
// of the limit.
func TestClientThatNeverReadsIsClosedAndMemoryStaysBounded(t *testing.T) {
	s, _ := startServer(t, Options{ClientOutputBufferLimit: 4 << 20})
	v := newVictim(t, s.Addr(), 100)
	v.rc.do("SET", "big", strings.Repeat("b", 1<<20))
	baseline := heapBytes()
	var peak atomic.Uint64
	sampling := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		for {
			if h := heapBytes(); h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-sampling:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	hog := dialRaw(t, s.Addr())
	hog.do("CLIENT", "SETNAME", "hog")
	pipeline := strings.Repeat(multibulk("GET", "big"), 2000)
	go func() { _, _ = io.WriteString(hog.c, pipeline) }() // never reads
	waitFor(t, func() bool { return !strings.Contains(v.rc.do("CLIENT", "LIST"), "name=hog ") },
		"the client that never reads to be closed")
	close(sampling)
	sampler.Wait()
	// What reached the hog is bounded by the limit plus the socket
	// buffers, far from the 2 GiB it asked for.
	_ = hog.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, _ := io.Copy(io.Discard, hog.r)
	if got > 64<<20 {
		t.Errorf("hog read %d bytes after its close, want < 64 MiB", got)
	}
	if grew := int64(peak.Load()) - int64(baseline); grew > 64<<20 {
		t.Errorf("heap grew by %d MiB during the attack, want < 64 MiB", grew>>20)
	}
	t.Logf("hog received %d MiB; heap peak %d MiB over a %d MiB baseline", got>>20, peak.Load()>>20, baseline>>20)
	v.check()
}

// TestMaxClientsWithManyConnectionsAtOnce opens 2,000 connections against
// maxclients 500 (the victim holds one): exactly 499 are served and the
// other 1,501 read Redis's error and are closed. (10,000 at once is in
// benchmarks/soak -flood.)
func TestMaxClientsWithManyConnectionsAtOnce(t *testing.T) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur < 4096 {
		t.Skipf("RLIMIT_NOFILE %d: 2,000 clients and 500 server sockets need 4096", rl.Cur)
	}
	s, _ := startServer(t, Options{MaxClients: 500})
	v := newVictim(t, s.Addr(), 100)
	const n = 2000
	conns := make([]net.Conn, n)
	var wg sync.WaitGroup
	var dialErr atomic.Pointer[error]
	sem := make(chan struct{}, 64)
	for i := range conns {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			c, err := net.DialTimeout("tcp", s.Addr(), 10*time.Second)
			if err != nil {
				dialErr.Store(&err)
				return
			}
			conns[i] = c
		}()
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	})
	if e := dialErr.Load(); e != nil {
		t.Fatalf("dial: %v", *e)
	}
	// The refused read their error and EOF at once; the admitted read
	// nothing until the shared deadline.
	var refused, admitted atomic.Int64
	deadline := time.Now().Add(1500 * time.Millisecond)
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.SetReadDeadline(deadline)
			b, err := io.ReadAll(c)
			var ne net.Error
			switch {
			case errors.As(err, &ne) && ne.Timeout() && len(b) == 0:
				admitted.Add(1)
			case err == nil && string(b) == "-ERR max number of clients reached\r\n":
				refused.Add(1)
			default:
				t.Errorf("connection read %q, %v", b, err)
			}
		}()
	}
	wg.Wait()
	if admitted.Load() != 499 || refused.Load() != n-499 {
		t.Fatalf("admitted %d, refused %d; want 499 and %d", admitted.Load(), refused.Load(), n-499)
	}
	if got := infoValue(t, v.rc, "rejected_connections"); got != strconv.Itoa(n-499) {
		t.Errorf("rejected_connections = %s, want %d", got, n-499)
	}
	if got := infoValue(t, v.rc, "connected_clients"); got != "500" {
		t.Errorf("connected_clients = %s, want 500", got)
	}
	// Every admitted connection works.
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.WriteString(c, "PING\r\n"); err != nil {
				return // a refused one
			}
			line, err := bufio.NewReader(c).ReadString('\n')
			if err == nil && line != "+PONG\r\n" {
				t.Errorf("admitted client: %q", line)
			}
		}()
	}
	wg.Wait()
	for _, c := range conns {
		c.Close()
	}
	waitFor(t, func() bool { return s.connected.Load() == 1 }, "the 2,000 connections to close")
	if got := dialRaw(t, s.Addr()).do("PING"); got != "+PONG\r\n" {
		t.Errorf("new client after the flood: %q", got)
	}
	v.check()
}

// lengthInputs are oversized and negative lengths. The answer and whether
// the connection stays open come from redis-server 7.0.15.
var lengthInputs = []string{
	"*-5\r\nPING\r\n", // a negative count is an empty command: skipped
	"*0\r\nPING\r\n",
	"*1\r\n$-2\r\n",
	"*1\r\n$-1\r\n",
	"*2\r\n$3\r\nGET\r\n$-1\r\n",
	"*99999999999999999999\r\n", // overflows int64
	"*-99999999999999999999\r\n",
	"*1\r\n$99999999999999999999\r\n",
	"*1\r\n$536870913\r\n",   // proto-max-bulk-len + 1
	"*1\r\n$536870912\r\n",   // exactly the limit: Redis waits for the bulk
	"*2147483648\r\n",        // past Redis's INT_MAX argument count
	"*1\r\n$+5\r\nhello\r\n", // a sign on a length
	"$-2\r\n",                // not a multibulk: an inline command "$-2"
	"*1\r\n$ 5\r\nhello\r\n",
	"*1\r\n$4\r\nPING\r\n*1\r\n$-0\r\n",
}

// drainAll sends every input on its own connection at once and returns
// what each read until the server closed it, with "<open>" appended when
// it was still open a second later.
func drainAll(t *testing.T, addr string, inputs []string) []string {
	t.Helper()
	out := make([]string, len(inputs))
	var wg sync.WaitGroup
	for i, in := range inputs {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			_, _ = io.WriteString(c, in)
			_ = c.SetReadDeadline(time.Now().Add(time.Second))
			b, err := io.ReadAll(c)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				out[i] = string(b) + "<open>"
				return
			}
			out[i] = string(b)
		}()
	}
	wg.Wait()
	return out
}

func TestOversizedAndNegativeLengthsMatchRedis(t *testing.T) {
	s, _ := startServer(t, Options{})
	v := newVictim(t, s.Addr(), 100)
	ref := startRefRedis(t)
	want := drainAll(t, ref, lengthInputs)
	got := drainAll(t, s.Addr(), lengthInputs)
	for i, in := range lengthInputs {
		if got[i] != want[i] {
			t.Errorf("#%d %q: got %q, want %q (redis-server)", i, in, got[i], want[i])
		}
	}
	// A lowered proto-max-bulk-len applies to the next command.
	for _, addr := range []string{ref, s.Addr()} {
		dialRaw(t, addr).do("CONFIG", "SET", "proto-max-bulk-len", "1mb")
	}
	in := []string{"*2\r\n$4\r\nECHO\r\n$1048577\r\n"}
	if got, want := drainAll(t, s.Addr(), in)[0], drainAll(t, ref, in)[0]; got != want {
		t.Errorf("proto-max-bulk-len 1mb: got %q, want %q", got, want)
	}
	v.check()
}

// TestBinaryGarbageGetsOnlyErrors sends 100 blobs of random bytes, some
// behind a multibulk header, at once. Whatever the server answers is RESP
// errors; it closes or waits, and the victim's keys are intact.
func TestBinaryGarbageGetsOnlyErrors(t *testing.T) {
	s, _ := startServer(t, Options{})
	v := newVictim(t, s.Addr(), 100)
	const seed = 8
	r := rand.New(rand.NewPCG(seed, seed))
	t.Logf("garbage seed %d", seed)
	inputs := make([]string, 100)
	for i := range inputs {
		b := make([]byte, 1+r.IntN(4096))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		if i%3 == 0 {
			b = append([]byte("*3\r\n$3\r\nSET\r\n"), b...)
		}
		inputs[i] = string(b)
	}
	for i, out := range drainAll(t, s.Addr(), inputs) {
		out = strings.TrimSuffix(out, "<open>")
		br := bufio.NewReader(strings.NewReader(out))
		for {
			reply, err := readRaw(br)
			if err == io.EOF && reply == "" {
				break
			}
			if err != nil || !strings.HasPrefix(reply, "-ERR ") {
				t.Errorf("#%d: reply %q (%v) is not an error", i, reply, err)
				break
			}
		}
	}
	waitFor(t, func() bool { return s.connected.Load() == 1 }, "garbage connections to close")
	v.check()
}

// rfc8448ClientHello is the ClientHello record of RFC 8448, Section 3.
func rfc8448ClientHello(t *testing.T) []byte {
	t.Helper()
	txt, err := os.ReadFile("../tlsengine/testdata/rfc8448/section3-simple-1rtt.txt")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)ClientHello \(196 octets\):(.*?)\n\n`).FindSubmatch(txt)
	if m == nil {
		t.Fatal("no ClientHello in the RFC 8448 trace")
	}
	p, err := hex.DecodeString(strings.Join(strings.Fields(string(m[1])), ""))
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte{22, 3, 1, 0, byte(len(p))}, p...)
}

// TestTLSClientHelloOnPlaintextPort sends a TLS ClientHello to the
// plaintext port. Its first line ends at a NUL, so loopkv answers an
// unknown-command error for "\x16\x03\x01" and keeps the rest as an
// incomplete line; redis-server says nothing (its strchr stops at the NUL
// and waits for a newline forever; resp/doc.go lists the difference). A
// real TLS client fails its handshake and the server stays healthy.
func TestTLSClientHelloOnPlaintextPort(t *testing.T) {
	s, _ := startServer(t, Options{})
	v := newVictim(t, s.Addr(), 100)
	ref := startRefRedis(t)
	hello := string(rfc8448ClientHello(t))
	const want = "-ERR unknown command '\x16\x03\x01', with args beginning with: \r\n<open>"
	if got := drainAll(t, s.Addr(), []string{hello})[0]; got != want {
		t.Errorf("loopkv: got %q, want %q", got, want)
	}
	if got := drainAll(t, ref, []string{hello})[0]; got != "<open>" {
		t.Errorf("redis-server answered %q; the documented difference is gone", got)
	}
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if err := tls.Client(c, &tls.Config{InsecureSkipVerify: true}).Handshake(); err == nil {
		t.Error("TLS handshake with the plaintext port succeeded")
	}
	v.check()
}

// TestRESPOnTLSPortAndTLSOnPlaintextPort attacks both ports of one server
// across protocols, with a victim on each.
func TestRESPOnTLSPortAndTLSOnPlaintextPort(t *testing.T) {
	p := newTestPKI(t)
	s := startTLSServer(t, p, Options{})
	v := newVictim(t, s.Addr(), 50)
	stop := healthyClient(t, s, p)
	tc := dialTLS(t, s.TLSAddr(), p.clientConfig())
	tr := bufio.NewReader(tc)
	if got := tlsDo(t, tc, tr, "SET", "tls-victim", "kept"); got != "+OK\r\n" {
		t.Fatalf("TLS victim SET: %q", got)
	}
	for _, in := range []string{multibulk("SET", "x", "y"), "PING\r\n", strings.Repeat("*1\r\n$4\r\nPING\r\n", 1000)} {
		c, err := net.Dial("tcp", s.TLSAddr())
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(c, in)
		if alert, closed := readAlert(t, c, 5*time.Second); alert < 0 || !closed {
			t.Errorf("RESP %.20q on the TLS port: alert %d, closed %v; want a fatal alert and a close", in, alert, closed)
		}
		c.Close()
	}
	if got := drainAll(t, s.Addr(), []string{string(rfc8448ClientHello(t))})[0]; !strings.HasPrefix(got, "-ERR unknown command") {
		t.Errorf("ClientHello on the plaintext port: %q", got)
	}
	if n := stop(); n == 0 {
		t.Error("established TLS client made no progress")
	}
	if got := tlsDo(t, tc, tr, "GET", "tls-victim"); got != "$4\r\nkept\r\n" {
		t.Errorf("TLS victim GET: %q", got)
	}
	// The ClientHello's connection stays open (as on Redis) until drainAll
	// closes it; the server learns of that close a little later (on
	// netpoll, from a poller and then a pool goroutine, which took longer
	// than the steps above 2 times in 180 runs under load). Wait for it,
	// with a bound, before asking INFO.
	waitFor(t, func() bool { return s.connected.Load() == 3 }, "the attackers' connections to be forgotten")
	if got := infoValue(t, v.rc, "connected_clients"); got != "3" {
		t.Errorf("connected_clients = %s, want 3 (the victims and the PING client)", got)
	}
	v.check()
}

// TestStopIsBoundedByStuckClients stops a server holding a client that
// never reads (megabytes queued), one halfway through a command and one
// idle. Stop returns within its bound, the port refuses new connections,
// and every acknowledged write is in the store when a new server starts on
// it.
func TestStopIsBoundedByStuckClients(t *testing.T) {
	st := store.New(store.Options{Databases: 16})
	s, errc := startServer(t, Options{Store: st})
	v := newVictim(t, s.Addr(), 200)
	v.rc.do("SET", "big", strings.Repeat("b", 1<<20))
	hog := dialRaw(t, s.Addr())
	go func() { _, _ = io.WriteString(hog.c, strings.Repeat(multibulk("GET", "big"), 64)) }()
	half := dialRaw(t, s.Addr())
	half.send("*2\r\n$4\r\nECHO\r\n$10\r\nhal")
	dialRaw(t, s.Addr()).do("PING")
	waitFor(t, func() bool { return strings.Contains(v.rc.do("CLIENT", "LIST"), "cmd=get") },
		"the hog's GETs to run")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := <-errc; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if c, err := net.DialTimeout("tcp", s.Addr(), time.Second); err == nil {
		c.Close()
		t.Error("the port accepts connections after Stop")
	}
	half.expectClosed()
	// Restart on the same store: the victim's data is all there.
	s2, _ := startServer(t, Options{Store: st})
	v.rc = dialRaw(t, s2.Addr())
	v.check()
}

// The hostile tests that start a server also run on every engine
// (engines_test.go).
func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"ProtectedModeDeniesNonLoopbackClients", TestProtectedModeDeniesNonLoopbackClients},
		{"ProtectedModeDeniedTextMatchesRedis", TestProtectedModeDeniedTextMatchesRedis},
		{"ProtectedModeOnTheTLSPort", TestProtectedModeOnTheTLSPort},
		{"ProtectedModeDeniesRemoteTLSClients", TestProtectedModeDeniesRemoteTLSClients},
		{"SlowlorisClientsDoNotStarveOthers", TestSlowlorisClientsDoNotStarveOthers},
		{"ClientThatNeverReadsIsClosedAndMemoryStaysBounded", TestClientThatNeverReadsIsClosedAndMemoryStaysBounded},
		{"MaxClientsWithManyConnectionsAtOnce", TestMaxClientsWithManyConnectionsAtOnce},
		{"OversizedAndNegativeLengthsMatchRedis", TestOversizedAndNegativeLengthsMatchRedis},
		{"BinaryGarbageGetsOnlyErrors", TestBinaryGarbageGetsOnlyErrors},
		{"TLSClientHelloOnPlaintextPort", TestTLSClientHelloOnPlaintextPort},
		{"RESPOnTLSPortAndTLSOnPlaintextPort", TestRESPOnTLSPortAndTLSOnPlaintextPort},
		{"StopIsBoundedByStuckClients", TestStopIsBoundedByStuckClients},
	}...)
}
