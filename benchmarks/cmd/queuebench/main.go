// Command queuebench measures blocking pops, for issue 13:
//
//	latency  the time from an RPUSH to the BLPOP reply it serves, with the
//	         waiters and the pusher on separate connections (on loopkv,
//	         connections are spread over the loops, so with two loops the
//	         pusher and a waiter sit on different ones);
//	rss      the server's RSS per connection for N idle connections, then
//	         for the same connections blocked in BLPOP.
//
// It speaks RESP itself over TCP or TLS and reads /proc/PID/status for RSS.
// Every run is bounded by -n or -conns and stops by itself.
package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	mode := flag.String("mode", "latency", "latency or rss")
	addr := flag.String("addr", "127.0.0.1:6379", "server address")
	useTLS := flag.Bool("tls", false, "connect with TLS")
	caFile := flag.String("tls-ca", "", "CA certificate (PEM) for -tls")
	pid := flag.Int("pid", 0, "server pid, for rss")
	n := flag.Int("n", 20000, "latency: pushes")
	waiters := flag.Int("waiters", 4, "latency: blocked connections")
	timeout := flag.String("timeout", "1", "latency: the waiters' BLPOP timeout in seconds (0: forever)")
	conns := flag.Int("conns", 10000, "rss: connections")
	label := flag.String("label", "", "label printed with the result")
	srcPort := flag.Int("src-port", 0, "latency: bind the connections to 127.0.0.1 source ports from this one up, in the order they open\n"+
		"(admin, waiters, pusher), so that a server whose loops share the port by SO_REUSEPORT places them the same way\n"+
		"in every run against the same port; 0: the kernel picks")
	flag.Parse()
	d := &dialer{addr: *addr, port: *srcPort}
	if *useTLS {
		pool := x509.NewCertPool()
		if *caFile != "" {
			pem, err := os.ReadFile(*caFile)
			if err != nil {
				fatal(err)
			}
			pool.AppendCertsFromPEM(pem)
		}
		host, _, _ := net.SplitHostPort(*addr)
		d.tls = &tls.Config{RootCAs: pool, ServerName: host, InsecureSkipVerify: *caFile == ""}
	}
	switch *mode {
	case "latency":
		latency(d, *n, *waiters, *timeout, *label)
	case "rss":
		rss(d, *conns, *pid, *label)
	default:
		fatal(fmt.Errorf("unknown mode %q", *mode))
	}
}

type dialer struct {
	addr string
	tls  *tls.Config
	port int // the next source port; 0: the kernel's choice
}

type conn struct {
	c net.Conn
	r *bufio.Reader
}

func (d *dialer) dial() *conn {
	nd := net.Dialer{Timeout: 5 * time.Second}
	if d.port != 0 {
		nd.LocalAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: d.port}
		nd.Control = reuseAddr
		d.port++
	}
	c, err := nd.Dial("tcp", d.addr)
	if err != nil {
		fatal(err)
	}
	if d.port != 0 {
		// closed with a reset, so that no TIME_WAIT holds the port for the next run
		_ = c.(*net.TCPConn).SetLinger(0)
	}
	if d.tls != nil {
		tc := tls.Client(c, d.tls)
		if err := tc.Handshake(); err != nil {
			fatal(err)
		}
		c = tc
	}
	return &conn{c: c, r: bufio.NewReaderSize(c, 4096)}
}

// reuseAddr sets SO_REUSEADDR, so that a source port a previous run used binds again.
func reuseAddr(_, _ string, rc syscall.RawConn) error {
	var serr error
	err := rc.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1)
	})
	if err != nil {
		return err
	}
	return serr
}

func (c *conn) send(args ...string) {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.c.Write([]byte(b.String())); err != nil {
		fatal(err)
	}
}

// reply reads one reply and returns its last bulk string (BLPOP's element)
// or its first line.
func (c *conn) reply() string {
	line, err := c.r.ReadString('\n')
	if err != nil {
		fatal(err)
	}
	switch line[0] {
	case '*':
		k, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		last := ""
		for i := 0; i < k; i++ {
			last = c.reply()
		}
		return last
	case '$':
		k, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		if k < 0 {
			return ""
		}
		buf := make([]byte, k+2)
		if _, err := ioReadFull(c.r, buf); err != nil {
			fatal(err)
		}
		return string(buf[:k])
	case '-':
		fatal(fmt.Errorf("server error: %s", strings.TrimSpace(line)))
	}
	return strings.TrimSpace(line)
}

func ioReadFull(r *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func (c *conn) do(args ...string) string {
	c.send(args...)
	return c.reply()
}

var start = time.Now()

// latency: each waiter loops BLPOP q timeout; the pusher pushes the send
// time and waits for that element to be delivered before the next push, so
// exactly one element is in flight.
func latency(d *dialer, n, waiters int, timeout, label string) {
	admin := d.dial()
	admin.do("DEL", "queuebench:q")
	got := make(chan time.Duration, 1)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := 0; i < waiters; i++ {
		w := d.dial()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				w.send("BLPOP", "queuebench:q", timeout)
				el := w.reply()
				select {
				case <-stop:
					return
				default:
				}
				if el == "" {
					continue // the timeout, between runs
				}
				sent, _ := strconv.ParseInt(el, 10, 64)
				got <- time.Since(start) - time.Duration(sent)
			}
		}()
	}
	for waitBlocked(admin) < int64(waiters) {
		time.Sleep(5 * time.Millisecond)
	}
	pusher := d.dial()
	samples := make([]time.Duration, 0, n)
	deadline := time.Now().Add(2 * time.Minute)
	for i := 0; i < n && time.Now().Before(deadline); i++ {
		pusher.do("RPUSH", "queuebench:q", strconv.FormatInt(int64(time.Since(start)), 10))
		samples = append(samples, <-got)
	}
	close(stop)
	slices.Sort(samples)
	q := func(p float64) time.Duration { return samples[int(float64(len(samples)-1)*p)] }
	fmt.Printf("%s pushes=%d waiters=%d p50=%v p90=%v p99=%v p99.9=%v max=%v\n", label, len(samples), waiters,
		q(0.5), q(0.9), q(0.99), q(0.999), samples[len(samples)-1])
}

// waitBlocked reads INFO's blocked_clients.
func waitBlocked(c *conn) int64 {
	c.send("INFO", "clients")
	for _, l := range strings.Split(c.reply(), "\r\n") {
		if v, ok := strings.CutPrefix(l, "blocked_clients:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return -1
}

// rss opens conns idle connections, reads RSS, blocks them all in BLPOP on
// their own keys, reads RSS again, then serves them.
func rss(d *dialer, conns, pid int, label string) {
	admin := d.dial()
	base := rssOf(pid)
	cs := make([]*conn, conns)
	for i := range cs {
		cs[i] = d.dial()
		cs[i].do("PING")
	}
	time.Sleep(3 * time.Second) // idle TLS connections release their key schedules after 1 s
	idle := rssOf(pid)
	for i, c := range cs {
		c.send("BLPOP", "queuebench:b:"+strconv.Itoa(i), "0")
	}
	for waitBlocked(admin) < int64(conns) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(3 * time.Second)
	blocked := rssOf(pid)
	for i := range cs {
		admin.do("RPUSH", "queuebench:b:"+strconv.Itoa(i), "x")
	}
	for _, c := range cs {
		c.reply()
	}
	per := func(v int64) float64 { return float64(v-base) / float64(conns) }
	fmt.Printf("%s conns=%d rss_base=%d idle_per_conn=%.0f blocked_per_conn=%.0f\n", label, conns, base, per(idle), per(blocked))
}

func rssOf(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return -1
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "queuebench:", err)
	os.Exit(1)
}
