// Command fanout measures pub/sub fan-out (issue #14): SUBS idle
// subscribers on one channel, each its own connection (crypto/tls clients
// with -tls), and one publisher.
//
// It reads the server's RSS (/proc/PID/status) before the subscribers
// connect and SETTLE after the last one subscribed, so RSS per idle
// subscriber = (idle − before) / SUBS. The publisher then sends MESSAGES
// PUBLISHes at RATE per second (open loop: message i is due at start +
// i/RATE, and its payload carries that due time), and every subscriber
// records, for each message, the time from the due time to its arrival.
// Server CPU per delivered message = the server's utime+stime
// (/proc/PID/stat) from the first PUBLISH until every subscriber has every
// message, over SUBS × MESSAGES. One JSON line goes to -json (appended).
//
//	fanout -addr 127.0.0.1:6380 -tls -tls-ca ca.pem -pid $PID -subs 10000 -messages 40 -rate 5
package main

import (
	"bufio"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopkv/loopkv/benchmarks/loadgen"
)

type options struct {
	addr, caFile, channel, jsonPath, label, scenario string
	tls                                              bool
	pid, subs, messages, size, dialers, rep          int
	rate                                             float64
	settle, drain                                    time.Duration
}

// result is the JSON line of one run.
type result struct {
	Mode          string  `json:"mode"`
	Label         string  `json:"label"`
	Scenario      string  `json:"scenario"`
	Rep           int     `json:"rep"`
	TLS           bool    `json:"tls"`
	Subs          int     `json:"subs"`
	Messages      int     `json:"messages"`
	Size          int     `json:"size"`
	Rate          float64 `json:"rate"`
	Deliveries    int64   `json:"deliveries"`
	Lost          int64   `json:"lost"`
	ConnectS      float64 `json:"connect_s"`
	PublishS      float64 `json:"publish_s"`
	RSSBeforeKB   int64   `json:"rss_before_kb"`
	RSSIdleKB     int64   `json:"rss_idle_kb"`
	KBPerSub      float64 `json:"kib_per_idle_sub"`
	ServerUserS   float64 `json:"server_user_s"`
	ServerSysS    float64 `json:"server_sys_s"`
	SyscrPerDeliv float64 `json:"server_syscr_per_delivery"`
	SyscwPerDeliv float64 `json:"server_syscw_per_delivery"`
	CPUPerDeliver float64 `json:"server_cpu_per_delivery_us"`
	UserPerDeliv  float64 `json:"server_user_per_delivery_us"`
	SysPerDeliv   float64 `json:"server_sys_per_delivery_us"`
	Latency       loadgen.Latency
	Error         string `json:"error,omitempty"`
}

func main() {
	var o options
	flag.StringVar(&o.addr, "addr", "127.0.0.1:6379", "server host:port")
	flag.BoolVar(&o.tls, "tls", false, "connect with TLS (crypto/tls)")
	flag.StringVar(&o.caFile, "tls-ca", "", "CA file to verify the server with")
	flag.IntVar(&o.pid, "pid", 0, "server process id, for /proc figures")
	flag.IntVar(&o.subs, "subs", 10000, "subscribers (one connection each)")
	flag.IntVar(&o.messages, "messages", 40, "messages published")
	flag.Float64Var(&o.rate, "rate", 5, "messages per second")
	flag.IntVar(&o.size, "size", 64, "payload bytes (at least 24)")
	flag.StringVar(&o.channel, "channel", "fanout", "channel name")
	flag.IntVar(&o.dialers, "dialers", 32, "concurrent connects while subscribing")
	flag.DurationVar(&o.settle, "settle", 5*time.Second, "wait after the last subscription before reading RSS")
	flag.DurationVar(&o.drain, "drain", 60*time.Second, "longest wait for deliveries after the last PUBLISH")
	flag.StringVar(&o.jsonPath, "json", "", "append the result as a JSON line to this file")
	flag.StringVar(&o.label, "label", "", "label (server name) for the result")
	flag.StringVar(&o.scenario, "scenario", "fanout", "scenario name for the result")
	flag.IntVar(&o.rep, "rep", 1, "repetition number for the result")
	flag.Parse()
	r, err := run(o)
	if err != nil {
		r.Error = err.Error()
		fmt.Fprintln(os.Stderr, "fanout:", err)
	}
	fmt.Fprintf(os.Stderr, "fanout %s: %d subs, %.2f KiB RSS per idle sub, %d/%d deliveries, %.3f µs server CPU each (user %.3f, sys %.3f; %.2f writes), p50 %.0f µs p99 %.0f µs max %.0f µs\n",
		o.label, r.Subs, r.KBPerSub, r.Deliveries, int64(r.Subs)*int64(r.Messages), r.CPUPerDeliver,
		r.UserPerDeliv, r.SysPerDeliv, r.SyscwPerDeliv, r.Latency.P50, r.Latency.P99, r.Latency.Max)
	if o.jsonPath != "" {
		if err := loadgen.AppendJSONLine(o.jsonPath, r); err != nil {
			fmt.Fprintln(os.Stderr, "fanout:", err)
			os.Exit(1)
		}
	}
	if err != nil {
		os.Exit(1)
	}
}

// hist is a latency histogram shared by the subscribers, in shards so
// that readers rarely wait on one another.
type hist struct {
	shards [64]struct {
		mu sync.Mutex
		h  loadgen.Histogram
	}
}

func (h *hist) record(i int, d time.Duration) {
	s := &h.shards[i%len(h.shards)]
	s.mu.Lock()
	s.h.RecordDuration(d)
	s.mu.Unlock()
}

func (h *hist) merged() *loadgen.Histogram {
	all := loadgen.NewHistogram()
	for i := range h.shards {
		all.Merge(&h.shards[i].h)
	}
	return all
}

func run(o options) (*result, error) {
	r := &result{Mode: "fanout", Label: o.label, Scenario: o.scenario, Rep: o.rep, TLS: o.tls, Subs: o.subs,
		Messages: o.messages, Size: max(o.size, 24), Rate: o.rate}
	if _, err := loadgen.RaiseFileLimit(uint64(o.subs) + 64); err != nil {
		return r, fmt.Errorf("raising RLIMIT_NOFILE: %w", err)
	}
	var cfg *tls.Config
	if o.tls {
		host, _, _ := net.SplitHostPort(o.addr)
		var err error
		if cfg, err = loadgen.ClientTLS(o.caFile, host, o.caFile == "", 0, 0); err != nil {
			return r, err
		}
		cfg.ClientSessionCache = nil // every subscriber pays a full handshake, as a new client does
	}
	r.RSSBeforeKB, _, _ = loadgen.ProcMem(o.pid)

	// Subscribe.
	t0 := time.Now()
	subs := make([]net.Conn, o.subs)
	readers := make([]*bufio.Reader, o.subs)
	var next atomic.Int64
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	for range max(o.dialers, 1) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= o.subs {
					return
				}
				c, br, err := subscribe(o, cfg)
				if err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("subscriber %d: %w", i, err) })
					return
				}
				subs[i], readers[i] = c, br
			}
		})
	}
	wg.Wait()
	r.ConnectS = time.Since(t0).Seconds()
	defer func() {
		for _, c := range subs {
			if c != nil {
				c.Close()
			}
		}
	}()
	if firstErr != nil {
		return r, firstErr
	}
	time.Sleep(o.settle)
	r.RSSIdleKB, _, _ = loadgen.ProcMem(o.pid)
	if r.RSSBeforeKB > 0 && r.RSSIdleKB > 0 {
		r.KBPerSub = float64(r.RSSIdleKB-r.RSSBeforeKB) / float64(o.subs)
	}

	// Readers: each subscriber counts its messages and records their latency.
	var h hist
	var received atomic.Int64
	var readErr atomic.Pointer[error]
	var allDone sync.WaitGroup
	for i, br := range readers {
		allDone.Go(func() {
			for range o.messages {
				due, err := readMessage(br)
				if err != nil {
					if !errors.Is(err, net.ErrClosed) {
						readErr.CompareAndSwap(nil, &err)
					}
					return
				}
				h.record(i, time.Since(time.Unix(0, due)))
				received.Add(1)
			}
		})
	}

	// Publish.
	pub, pbr, err := dial(o, cfg)
	if err != nil {
		return r, fmt.Errorf("publisher: %w", err)
	}
	defer pub.Close()
	user0, sys0, _ := loadgen.ProcTimes(o.pid)
	io0, _ := procIO(o.pid)
	start := time.Now()
	interval := time.Duration(float64(time.Second) / o.rate)
	var cmd []byte
	for i := range o.messages {
		due := start.Add(time.Duration(i) * interval)
		time.Sleep(time.Until(due))
		payload := make([]byte, 0, r.Size)
		payload = strconv.AppendInt(payload, due.UnixNano(), 10)
		payload = append(payload, ':')
		for len(payload) < r.Size {
			payload = append(payload, 'x')
		}
		cmd = loadgen.AppendCommand(cmd[:0], "PUBLISH", o.channel, string(payload))
		if _, err := pub.Write(cmd); err != nil {
			return r, fmt.Errorf("publish: %w", err)
		}
		line, err := pbr.ReadString('\n')
		if err != nil {
			return r, fmt.Errorf("publish reply: %w", err)
		}
		if n, _ := strconv.Atoi(line[1 : len(line)-2]); line[0] != ':' || n != o.subs {
			return r, fmt.Errorf("PUBLISH answered %q, want :%d", line, o.subs)
		}
	}
	want := int64(o.subs) * int64(o.messages)
	deadline := time.Now().Add(o.drain)
	for received.Load() < want && time.Now().Before(deadline) && readErr.Load() == nil {
		time.Sleep(2 * time.Millisecond)
	}
	user1, sys1, _ := loadgen.ProcTimes(o.pid)
	io1, _ := procIO(o.pid)
	r.PublishS = time.Since(start).Seconds()
	r.Deliveries = received.Load()
	r.Lost = want - r.Deliveries
	r.ServerUserS, r.ServerSysS = (user1 - user0).Seconds(), (sys1 - sys0).Seconds()
	if r.Deliveries > 0 && o.pid > 0 {
		per := func(s float64) float64 { return s * 1e6 / float64(r.Deliveries) }
		r.CPUPerDeliver, r.UserPerDeliv, r.SysPerDeliv = per(r.ServerUserS+r.ServerSysS), per(r.ServerUserS), per(r.ServerSysS)
		r.SyscrPerDeliv = float64(io1[0]-io0[0]) / float64(r.Deliveries)
		r.SyscwPerDeliv = float64(io1[1]-io0[1]) / float64(r.Deliveries)
	}
	r.Latency = loadgen.Summarize(h.merged())
	if p := readErr.Load(); p != nil {
		return r, fmt.Errorf("subscriber read: %w", *p)
	}
	if r.Lost > 0 {
		return r, fmt.Errorf("%d of %d deliveries missing after %s", r.Lost, want, o.drain)
	}
	return r, nil
}

// procIO returns the read-like and write-like system calls the process
// pid has made (syscr and syscw of /proc/PID/io); zeros where there is no
// /proc.
func procIO(pid int) ([2]int64, error) {
	var n [2]int64
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return n, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		x, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		switch k {
		case "syscr":
			n[0] = x
		case "syscw":
			n[1] = x
		}
	}
	return n, nil
}

// dial connects (and, with cfg, completes a TLS handshake).
func dial(o options, cfg *tls.Config) (net.Conn, *bufio.Reader, error) {
	c, err := net.DialTimeout("tcp", o.addr, 10*time.Second)
	if err != nil {
		return nil, nil, err
	}
	if cfg != nil {
		tc := tls.Client(c, cfg)
		tc.SetDeadline(time.Now().Add(10 * time.Second))
		if err := tc.Handshake(); err != nil {
			c.Close()
			return nil, nil, err
		}
		tc.SetDeadline(time.Time{})
		c = tc
	}
	return c, bufio.NewReaderSize(c, 512), nil
}

// subscribe connects one subscriber and reads its confirmation.
func subscribe(o options, cfg *tls.Config) (net.Conn, *bufio.Reader, error) {
	c, br, err := dial(o, cfg)
	if err != nil {
		return nil, nil, err
	}
	if _, err := c.Write(loadgen.AppendCommand(nil, "SUBSCRIBE", o.channel)); err != nil {
		c.Close()
		return nil, nil, err
	}
	// *3 $9 subscribe $<n> channel :1
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer c.SetReadDeadline(time.Time{})
	var line string
	for range 6 {
		if line, err = br.ReadString('\n'); err != nil {
			c.Close()
			return nil, nil, err
		}
	}
	if line != ":1\r\n" {
		c.Close()
		return nil, nil, fmt.Errorf("SUBSCRIBE confirmation ends %q", line)
	}
	return c, br, nil
}

// readMessage reads one RESP2 message push ([message, channel, payload])
// and returns the due time at the head of its payload.
func readMessage(br *bufio.Reader) (int64, error) {
	var line string
	var err error
	for range 6 { // *3, $7, message, $n, channel, $m
		if line, err = br.ReadString('\n'); err != nil {
			return 0, err
		}
	}
	n, err := strconv.Atoi(line[1 : len(line)-2])
	if err != nil || line[0] != '$' || n < 0 {
		return 0, fmt.Errorf("bad payload header %q", line)
	}
	buf := make([]byte, n+2)
	if _, err := io.ReadFull(br, buf); err != nil {
		return 0, err
	}
	head, _, ok := cut(buf, ':')
	due, err := strconv.ParseInt(string(head), 10, 64)
	if !ok || err != nil {
		return 0, fmt.Errorf("payload %q has no due time", buf)
	}
	return due, nil
}

func cut(b []byte, sep byte) (before, after []byte, ok bool) {
	for i, c := range b {
		if c == sep {
			return b[:i], b[i+1:], true
		}
	}
	return b, nil, false
}
