// Command soak runs loopkv under mixed load with connection churn, over
// plaintext and TLS, for a long time (issue 8; not in CI), and judges
// whether the server stayed flat and kept every acknowledged write.
//
//	go run ./benchmarks/soak -duration 30m            # builds and spawns loopkv (gnet, TLS on)
//	go run ./benchmarks/soak -duration 30m -engine netpoll -flood 10000
//	go run ./benchmarks/soak -addr 127.0.0.1:6379 -tls-addr 127.0.0.1:6380 -tls-ca ca.pem -pid $PID
//
// Every worker owns its keys, so the value each key must hold is known:
// a write counts as acknowledged when its reply is read, and a write whose
// reply was lost (the connection failed) may or may not have happened, so
// both outcomes stay acceptable until the next acknowledged write of the
// key. GETs are checked as they come, and at the end every key is read
// back. The server's RSS, threads (/proc/PID/status), open descriptors
// (/proc/PID/fd) and connected clients (INFO) are sampled; the verdict
// compares the medians of the last quarter of the run with the first.
// The server's goroutine count is not exposed (neither INFO nor /proc
// has it).
package main

import (
	"bufio"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopkv/loopkv/benchmarks/loadgen"
)

type config struct {
	duration, sample  time.Duration
	bin, engine       string
	addr, tlsAddr     string
	tlsCA             string
	pid               int
	useTLS            bool
	workers, keys     int
	churn, maxClients int
	flood             int
	seed              uint64
	rssTol            float64
}

func main() {
	var c config
	flag.DurationVar(&c.duration, "duration", 30*time.Minute, "how long the load runs")
	flag.DurationVar(&c.sample, "sample", 5*time.Second, "interval between samples of the server")
	flag.StringVar(&c.bin, "bin", "", "loopkv binary to spawn; empty: go build ./cmd/loopkv")
	flag.StringVar(&c.engine, "engine", "gnet", "engine of the spawned server: gnet or netpoll")
	flag.StringVar(&c.addr, "addr", "", "plaintext address of a running server (no spawn)")
	flag.StringVar(&c.tlsAddr, "tls-addr", "", "TLS address of the running server given by -addr")
	flag.StringVar(&c.tlsCA, "tls-ca", "", "CA file for -tls-addr; empty: do not verify")
	flag.IntVar(&c.pid, "pid", 0, "pid of the running server given by -addr, for /proc samples")
	flag.BoolVar(&c.useTLS, "tls", true, "spawned server: open a TLS port and use it for half the connections")
	flag.IntVar(&c.workers, "workers", 16, "concurrent clients")
	flag.IntVar(&c.keys, "keys", 2000, "keys per worker")
	flag.IntVar(&c.churn, "churn", 200, "mean commands per connection before it is closed and reopened")
	flag.IntVar(&c.maxClients, "maxclients", 0, "spawned server's maxclients; 0: its default (10000), or flood/2 with -flood")
	flag.IntVar(&c.flood, "flood", 0, "open this many connections at once before the load (maxclients check)")
	flag.Uint64Var(&c.seed, "seed", 1, "random seed")
	flag.Float64Var(&c.rssTol, "rss-tolerance", 0.25, "allowed growth of median RSS, last quarter vs first")
	flag.Parse()
	ok, err := run(c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

func run(c config) (bool, error) {
	if _, err := loadgen.RaiseFileLimit(uint64(c.flood + 4096)); err != nil {
		fmt.Println("warning: cannot raise the file limit:", err)
	}
	srv, err := startTarget(&c)
	if err != nil {
		return false, err
	}
	defer srv.stop()
	fmt.Printf("soak: %s for %v, %d workers x %d keys, churn ~%d commands, plaintext %s, tls %s, pid %d, seed %d\n",
		c.engine, c.duration, c.workers, c.keys, c.churn, c.addr, orNone(c.tlsAddr), c.pid, c.seed)
	ok := true
	if c.flood > 0 {
		ok = flood(c) && ok
	}
	var tcfg *tls.Config
	if c.tlsAddr != "" {
		if tcfg, err = loadgen.ClientTLS(c.tlsCA, "localhost", c.tlsCA == "", 0, 0); err != nil {
			return false, err
		}
		tcfg.ClientSessionCache = tls.NewLRUClientSessionCache(64)
	}
	workers := make([]*worker, c.workers)
	for i := range workers {
		workers[i] = newWorker(i, c, tcfg)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() { defer wg.Done(); w.run(stop) }()
	}
	samples := sampleUntil(c, workers, time.Now().Add(c.duration))
	close(stop)
	wg.Wait()
	time.Sleep(2 * time.Second) // let the server close what the workers left
	final := takeSample(c, workers, time.Duration(0))
	ok = verdict(c, samples, final) && ok
	ok = checkAll(c, workers) && ok
	if ok {
		fmt.Println("VERDICT: PASS")
	} else {
		fmt.Println("VERDICT: FAIL")
	}
	return ok, nil
}

func orNone(s string) string {
	if s == "" {
		return "off"
	}
	return s
}

// server is a spawned loopkv, or nothing when the flags name a running one.
type server struct {
	cmd *exec.Cmd
	dir string
}

func (s *server) stop() {
	if s.cmd != nil {
		_ = s.cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- s.cmd.Wait() }()
		select {
		case err := <-done:
			fmt.Printf("soak: server stopped (%v)\n", err)
		case <-time.After(15 * time.Second):
			_ = s.cmd.Process.Kill()
			fmt.Println("soak: server did not stop within 15 s of SIGINT; killed")
		}
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// startTarget spawns loopkv unless c.addr names a running server, and
// fills c.addr, c.tlsAddr, c.tlsCA and c.pid.
func startTarget(c *config) (*server, error) {
	if c.addr != "" {
		return &server{}, nil
	}
	dir, err := os.MkdirTemp("", "loopkv-soak-")
	if err != nil {
		return nil, err
	}
	s := &server{dir: dir}
	if c.bin == "" {
		c.bin = filepath.Join(dir, "loopkv")
		b := exec.Command("go", "build", "-tags", "poll_opt", "-o", c.bin, "./cmd/loopkv")
		b.Stdout, b.Stderr = os.Stdout, os.Stderr
		if err := b.Run(); err != nil {
			s.stop()
			return nil, fmt.Errorf("go build ./cmd/loopkv (run from the repository root): %w", err)
		}
	}
	port, tlsPort := freePort(), freePort()
	maxClients := c.maxClients
	if maxClients == 0 && c.flood > 0 {
		maxClients = c.flood / 2
	}
	args := []string{"--port", strconv.Itoa(port), "--engine", c.engine, "--loglevel", "warning"}
	if maxClients > 0 {
		args = append(args, "--maxclients", strconv.Itoa(maxClients))
	}
	if c.useTLS {
		certs, err := loadgen.WriteCerts(dir)
		if err != nil {
			s.stop()
			return nil, err
		}
		args = append(args, "--tls-port", strconv.Itoa(tlsPort), "--tls-cert-file", certs.Cert,
			"--tls-key-file", certs.Key)
		c.tlsAddr, c.tlsCA = "127.0.0.1:"+strconv.Itoa(tlsPort), certs.CA
	}
	s.cmd = exec.Command(c.bin, args...)
	s.cmd.Stdout, s.cmd.Stderr = os.Stdout, os.Stderr
	if err := s.cmd.Start(); err != nil {
		s.stop()
		return nil, err
	}
	c.addr, c.pid = "127.0.0.1:"+strconv.Itoa(port), s.cmd.Process.Pid
	for i := 0; ; i++ {
		if cl, err := dialPlain(c.addr); err == nil {
			_, err = cl.do("PING")
			cl.close()
			if err == nil {
				return s, nil
			}
		}
		if i == 100 {
			s.stop()
			return nil, errors.New("spawned loopkv does not answer PING")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// client is a minimal RESP2 client that returns replies as strings.
type client struct {
	nc net.Conn
	r  *bufio.Reader
	w  []byte
}

func dialPlain(addr string) (*client, error) {
	nc, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return &client{nc: nc, r: bufio.NewReaderSize(nc, 32<<10)}, nil
}

func dialTLS(addr string, cfg *tls.Config) (*client, error) {
	d := &net.Dialer{Timeout: 10 * time.Second}
	nc, err := tls.DialWithDialer(d, "tcp", addr, cfg)
	if err != nil {
		return nil, err
	}
	return &client{nc: nc, r: bufio.NewReaderSize(nc, 32<<10)}, nil
}

func (c *client) close() { c.nc.Close() }

// abort resets the connection instead of closing it cleanly.
func (c *client) abort() {
	raw := c.nc
	if tc, ok := raw.(*tls.Conn); ok {
		raw = tc.NetConn()
	}
	if tc, ok := raw.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	c.nc.Close()
}

func (c *client) append(args ...string) { c.w = loadgen.AppendCommand(c.w, args...) }

func (c *client) flush() error {
	_ = c.nc.SetDeadline(time.Now().Add(30 * time.Second))
	_, err := c.nc.Write(c.w)
	c.w = c.w[:0]
	return err
}

func (c *client) do(args ...string) (reply, error) {
	c.append(args...)
	if err := c.flush(); err != nil {
		return reply{}, err
	}
	return c.read()
}

// reply is one RESP2 reply: kind is the type byte; str the simple or bulk
// string or error text; null marks a null bulk; elems an array.
type reply struct {
	kind  byte
	str   string
	null  bool
	elems []reply
}

func (c *client) read() (reply, error) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return reply{}, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return reply{}, fmt.Errorf("bad reply line %q", line)
	}
	r := reply{kind: line[0], str: line[1 : len(line)-2]}
	switch r.kind {
	case '+', '-', ':':
		return r, nil
	case '$':
		n, err := strconv.Atoi(r.str)
		if err != nil {
			return r, fmt.Errorf("bad bulk length %q", line)
		}
		if n < 0 {
			r.null = true
			return r, nil
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, b); err != nil {
			return r, err
		}
		r.str = string(b[:n])
		return r, nil
	case '*':
		n, err := strconv.Atoi(r.str)
		if err != nil {
			return r, fmt.Errorf("bad array length %q", line)
		}
		for i := 0; i < n; i++ {
			e, err := c.read()
			if err != nil {
				return r, err
			}
			r.elems = append(r.elems, e)
		}
		return r, nil
	}
	return r, fmt.Errorf("unexpected reply %q", line)
}

// keyState is what a key must hold: the last acknowledged state and the
// writes whose outcome is unknown.
type keyState struct {
	val     string
	present bool
	maybe   []maybeWrite
}

type maybeWrite struct {
	val     string
	present bool
}

// accepts reports whether a read of (val, present) is consistent.
func (k *keyState) accepts(val string, present bool) bool {
	if present == k.present && (!present || val == k.val) {
		return true
	}
	for _, m := range k.maybe {
		if present == m.present && (!present || val == m.val) {
			return true
		}
	}
	return false
}

// worker is one client that owns keys soak:<id>:<n>.
type worker struct {
	id   int
	c    config
	tcfg *tls.Config
	rng  *rand.Rand
	keys []keyState
	seq  int

	// read by the sampler
	ops, conns, tlsConns, ioErrs, bad atomic.Int64
	firstBad                          atomic.Pointer[string]
}

func newWorker(id int, c config, tcfg *tls.Config) *worker {
	return &worker{id: id, c: c, tcfg: tcfg, rng: rand.New(rand.NewPCG(c.seed, uint64(id))),
		keys: make([]keyState, c.keys)}
}

func (w *worker) key(n int) string { return "soak:" + strconv.Itoa(w.id) + ":" + strconv.Itoa(n) }

func (w *worker) value() string {
	w.seq++
	return fmt.Sprintf("w%d-%d-%s", w.id, w.seq, strings.Repeat("v", w.rng.IntN(512)))
}

func (w *worker) fail(msg string) {
	w.bad.Add(1)
	w.firstBad.CompareAndSwap(nil, &msg)
}

// op is one command of a pipeline and the effect it has once
// acknowledged.
type op struct {
	args    []string
	keys    []int
	vals    []string
	write   bool
	present bool // for writes: the keys exist afterwards
}

func (w *worker) nextOp() op {
	k := w.rng.IntN(w.c.keys)
	switch p := w.rng.IntN(100); {
	case p < 40:
		v := w.value()
		return op{args: []string{"SET", w.key(k), v}, keys: []int{k}, vals: []string{v}, write: true, present: true}
	case p < 85:
		return op{args: []string{"GET", w.key(k)}, keys: []int{k}}
	case p < 92:
		return op{args: []string{"DEL", w.key(k)}, keys: []int{k}, vals: []string{""}, write: true}
	default:
		k2 := (k + 1 + w.rng.IntN(w.c.keys-1)) % w.c.keys
		v1, v2 := w.value(), w.value()
		return op{args: []string{"MSET", w.key(k), v1, w.key(k2), v2}, keys: []int{k, k2},
			vals: []string{v1, v2}, write: true, present: true}
	}
}

func (w *worker) run(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		useTLS := w.tcfg != nil && w.rng.IntN(2) == 0
		var cl *client
		var err error
		if useTLS {
			cl, err = dialTLS(w.c.tlsAddr, w.tcfg)
		} else {
			cl, err = dialPlain(w.c.addr)
		}
		if err != nil {
			w.ioErrs.Add(1)
			w.fail("dial: " + err.Error())
			time.Sleep(100 * time.Millisecond)
			continue
		}
		w.conns.Add(1)
		if useTLS {
			w.tlsConns.Add(1)
		}
		if err := w.session(cl, 1+w.rng.IntN(2*w.c.churn), stop); err != nil {
			w.ioErrs.Add(1)
			w.fail("session: " + err.Error())
			cl.abort()
			continue
		}
		switch w.rng.IntN(3) {
		case 0:
			if r, err := cl.do("QUIT"); err != nil || r.str != "OK" {
				w.fail(fmt.Sprintf("QUIT: %q %v", r.str, err))
			}
			cl.close()
		case 1:
			cl.abort()
		default:
			cl.close()
		}
	}
}

// session runs about n commands in pipelines of 1 to 16 on cl.
func (w *worker) session(cl *client, n int, stop <-chan struct{}) error {
	for done := 0; done < n; {
		select {
		case <-stop:
			return nil
		default:
		}
		ops := make([]op, 1+w.rng.IntN(16))
		for i := range ops {
			ops[i] = w.nextOp()
			cl.append(ops[i].args...)
		}
		err := cl.flush()
		for i, o := range ops {
			var r reply
			if err == nil {
				r, err = cl.read()
			}
			if err != nil {
				// No reply: the writes from here on may or may not have run.
				for _, o := range ops[i:] {
					for j, k := range o.keys {
						if o.write {
							w.keys[k].maybe = append(w.keys[k].maybe, maybeWrite{o.vals[j], o.present})
						}
					}
				}
				return err
			}
			w.check(o, r)
		}
		done += len(ops)
		w.ops.Add(int64(len(ops)))
	}
	return nil
}

// check applies an acknowledged reply to the model, or verifies a read.
func (w *worker) check(o op, r reply) {
	if r.kind == '-' {
		w.fail(fmt.Sprintf("%v: error %q", o.args[:2], r.str))
		return
	}
	if !o.write {
		ks := &w.keys[o.keys[0]]
		if !ks.accepts(r.str, !r.null) {
			w.fail(fmt.Sprintf("GET %s = %.40q (present %v), want %.40q (present %v)",
				o.args[1], r.str, !r.null, ks.val, ks.present))
		}
		return
	}
	for j, k := range o.keys {
		w.keys[k] = keyState{val: o.vals[j], present: o.present}
	}
}

// checkAll reads every key back over a new connection.
func checkAll(c config, workers []*worker) bool {
	cl, err := dialPlain(c.addr)
	if err != nil {
		fmt.Println("final check: dial:", err)
		return false
	}
	defer cl.close()
	checked, wrong := 0, 0
	for _, w := range workers {
		for start := 0; start < c.keys; start += 500 {
			end := min(start+500, c.keys)
			args := []string{"MGET"}
			for k := start; k < end; k++ {
				args = append(args, w.key(k))
			}
			r, err := cl.do(args...)
			if err != nil || len(r.elems) != end-start {
				fmt.Println("final check: MGET:", err, r.str)
				return false
			}
			for i, e := range r.elems {
				checked++
				if ks := &w.keys[start+i]; !ks.accepts(e.str, !e.null) {
					wrong++
					if wrong <= 5 {
						fmt.Printf("final check: %s = %.40q (present %v), want %.40q (present %v)\n",
							w.key(start+i), e.str, !e.null, ks.val, ks.present)
					}
				}
			}
		}
	}
	var bad, ioErrs int64
	for _, w := range workers {
		bad += w.bad.Load()
		ioErrs += w.ioErrs.Load()
		if p := w.firstBad.Load(); p != nil {
			fmt.Printf("worker %d: first failure: %s\n", w.id, *p)
		}
	}
	fmt.Printf("final check: %d keys read back, %d wrong or missing; %d failures during the run (%d I/O errors)\n",
		checked, wrong, bad, ioErrs)
	return wrong == 0 && bad == 0
}

// sample is one observation of the server.
type sample struct {
	at                 time.Duration
	ops, conns, tlsC   int64
	rssKB              int64
	threads, fds       int
	clients, usedBytes int64
}

func takeSample(c config, workers []*worker, at time.Duration) sample {
	s := sample{at: at, rssKB: -1, threads: -1, fds: -1, clients: -1, usedBytes: -1}
	for _, w := range workers {
		s.ops += w.ops.Load()
		s.conns += w.conns.Load()
		s.tlsC += w.tlsConns.Load()
	}
	if c.pid > 0 {
		if rss, th, err := loadgen.ProcMem(c.pid); err == nil {
			s.rssKB, s.threads = rss, th
		}
		if ents, err := os.ReadDir("/proc/" + strconv.Itoa(c.pid) + "/fd"); err == nil {
			s.fds = len(ents)
		}
	}
	if cl, err := dialPlain(c.addr); err == nil {
		if r, err := cl.do("INFO", "everything"); err == nil {
			s.clients = infoInt(r.str, "connected_clients") - 1 // not this one
			s.usedBytes = infoInt(r.str, "used_memory")
		}
		cl.close()
	}
	return s
}

func infoInt(info, field string) int64 {
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return -1
}

func sampleUntil(c config, workers []*worker, end time.Time) []sample {
	start := time.Now()
	fmt.Printf("%8s %9s %7s %7s %9s %8s %5s %7s %10s\n",
		"t", "ops/s", "conns/s", "tls/s", "rss_MiB", "threads", "fds", "clients", "used_mem")
	var out []sample
	prev := takeSample(c, workers, 0)
	for time.Now().Before(end) {
		time.Sleep(min(c.sample, time.Until(end)))
		s := takeSample(c, workers, time.Since(start))
		dt := (s.at - prev.at).Seconds()
		fmt.Printf("%8s %9.0f %7.0f %7.0f %9.1f %8d %5d %7d %10d\n", s.at.Round(time.Second),
			float64(s.ops-prev.ops)/dt, float64(s.conns-prev.conns)/dt, float64(s.tlsC-prev.tlsC)/dt,
			float64(s.rssKB)/1024, s.threads, s.fds, s.clients, s.usedBytes)
		out = append(out, s)
		prev = s
	}
	return out
}

func median(xs []int64) int64 {
	if len(xs) == 0 {
		return -1
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// verdict compares the first and the last quarter of the samples, and the
// state after the load with the start.
func verdict(c config, samples []sample, final sample) bool {
	if len(samples) < 8 {
		fmt.Println("verdict: fewer than 8 samples; run longer or sample more often")
		return false
	}
	q := len(samples) / 4
	first, last := samples[:q], samples[len(samples)-q:]
	pick := func(ss []sample, f func(sample) int64) []int64 {
		var v []int64
		for _, s := range ss {
			v = append(v, f(s))
		}
		return v
	}
	ok := true
	check := func(name string, f func(sample) int64, allowed func(a int64) int64) {
		a, b := median(pick(first, f)), median(pick(last, f))
		if a < 0 || b < 0 {
			fmt.Printf("flat %-9s n/a (no /proc: pass -pid)\n", name)
			return
		}
		good := b <= a+allowed(a)
		ok = ok && good
		fmt.Printf("flat %-9s first quarter %d, last quarter %d, allowed +%d: %s\n", name, a, b, allowed(a), passFail(good))
	}
	check("rss_KiB", func(s sample) int64 { return s.rssKB },
		func(a int64) int64 { return int64(float64(a)*c.rssTol) + 4096 })
	check("threads", func(s sample) int64 { return int64(s.threads) }, func(int64) int64 { return 2 })
	check("fds", func(s sample) int64 { return int64(s.fds) }, func(int64) int64 { return int64(c.workers) + 8 })
	check("used_mem", func(s sample) int64 { return s.usedBytes },
		func(a int64) int64 { return a/10 + 64<<10 })
	settled := final.clients == 0
	fmt.Printf("after the load: %d clients connected (want 0), %d fds, %d threads, RSS %.1f MiB: %s\n",
		final.clients, final.fds, final.threads, float64(final.rssKB)/1024, passFail(settled))
	fmt.Printf("totals: %d commands, %d connections (%d TLS)\n", final.ops, final.conns, final.tlsC)
	return ok && settled
}

func passFail(ok bool) string {
	if ok {
		return "ok"
	}
	return "FAIL"
}

// flood opens c.flood connections at once, counts those served and those
// refused with Redis's maxclients error, and closes them all.
func flood(c config) bool {
	conns := make([]net.Conn, c.flood)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 256)
	var dialErrs atomic.Int64
	for i := range conns {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			nc, err := net.DialTimeout("tcp", c.addr, 10*time.Second)
			if err != nil {
				dialErrs.Add(1)
				return
			}
			conns[i] = nc
		}()
	}
	wg.Wait()
	var admitted, refused, other atomic.Int64
	deadline := time.Now().Add(3 * time.Second)
	for _, nc := range conns {
		if nc == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = nc.SetReadDeadline(deadline)
			b, err := io.ReadAll(nc)
			var ne net.Error
			switch {
			case errors.As(err, &ne) && ne.Timeout() && len(b) == 0:
				admitted.Add(1)
			case string(b) == "-ERR max number of clients reached\r\n":
				refused.Add(1)
			default:
				other.Add(1)
			}
		}()
	}
	wg.Wait()
	for _, nc := range conns {
		if nc != nil {
			nc.Close()
		}
	}
	time.Sleep(time.Second)
	after := takeSample(c, nil, 0)
	ok := other.Load() == 0 && dialErrs.Load() == 0 && refused.Load() > 0 && after.clients == 0
	fmt.Printf("flood: %d connections at once: %d served, %d refused with the maxclients error, %d other, %d dial errors; %d clients left after closing: %s\n",
		c.flood, admitted.Load(), refused.Load(), other.Load(), dialErrs.Load(), after.clients, passFail(ok))
	return ok
}
