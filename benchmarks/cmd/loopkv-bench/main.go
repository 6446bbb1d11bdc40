// Command loopkv-bench is a RESP load generator for loopkv and Redis,
// plaintext or TLS, and the reporter of comparison studies.
//
// Usage:
//
//	loopkv-bench throughput [flags]   closed-loop or rate-limited ops/s and latency
//	loopkv-bench conns [flags]        server RSS and threads vs idle connections
//	loopkv-bench churn [flags]        full or resumed handshakes/s, server CPU per handshake
//	loopkv-bench load [flags]         write a whole key space (strings or hashes) as fast as it goes
//	loopkv-bench storm [flags]        steady clients' latency while a group churns TLS handshakes
//	loopkv-bench report -out DIR FILE.jsonl...   Markdown table and PNG plots
//	loopkv-bench certs -dir DIR       a throwaway CA and server certificate for loopback
//	loopkv-bench probe [flags]        exit 0 once the server answers PING (-wait bounds it)
//	loopkv-bench ports N              print N free TCP ports on 127.0.0.1
//
// Each run writes its result as one JSON line (to -json, default stdout)
// and optionally CSV; a human summary and, on long runs, a progress line go
// to stderr. Run a mode with -h for its flags; benchmarks/README.md explains
// the method.
package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/loopkv/loopkv/benchmarks/loadgen"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	mode, args := os.Args[1], os.Args[2:]
	var err error
	switch mode {
	case "throughput", "run":
		err = runMode("throughput", args)
	case "conns", "churn", "storm", "load":
		err = runMode(mode, args)
	case "report":
		err = report(args)
	case "certs":
		err = certs(args)
	case "probe":
		err = probe(args)
	case "ports":
		err = ports(args)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loopkv-bench:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: loopkv-bench throughput|conns|churn|storm|load|report|certs|probe|ports [flags] (-h for flags)")
	os.Exit(2)
}

// common holds the flags every measuring mode takes.
type common struct {
	addr, ca, serverName, tlsVersion string
	groups                           string
	tlsOn, insecure                  bool
	pid                              int
	label, scenario, commit          string
	rep                              int
	jsonOut, csvOut                  string
	progress                         bool
	unavailable                      string
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.addr, "addr", "127.0.0.1:6379", "server `host:port`")
	fs.BoolVar(&c.tlsOn, "tls", false, "connect with TLS")
	fs.StringVar(&c.ca, "tls-ca", "", "PEM `file` of the CA to trust (default: system roots)")
	fs.BoolVar(&c.insecure, "tls-insecure", false, "skip certificate verification")
	fs.StringVar(&c.serverName, "tls-server-name", "", "SNI and verification name (default: the host of -addr)")
	fs.StringVar(&c.tlsVersion, "tls-version", "", "pin the TLS version: 1.2 or 1.3 (default: negotiate)")
	fs.StringVar(&c.groups, "tls-groups", "", "offer only these key exchange groups, in order: x25519, p256, p384, x25519mlkem768 (default: Go's)")
	fs.IntVar(&c.pid, "pid", 0, "server `pid`: measure its CPU (utime+stime), RSS and threads from /proc")
	fs.StringVar(&c.label, "label", "", "target name recorded in the result (loopkv, redis)")
	fs.StringVar(&c.scenario, "scenario", "", "scenario name recorded in the result (the report's row)")
	fs.IntVar(&c.rep, "rep", 0, "repetition number recorded in the result")
	fs.StringVar(&c.commit, "commit", "", "code version recorded in the result")
	fs.StringVar(&c.jsonOut, "json", "-", "append the result as a JSON line to `file` (- for stdout, empty for none)")
	fs.StringVar(&c.csvOut, "csv", "", "write the result as CSV to `file`")
	fs.BoolVar(&c.progress, "progress", true, "print a progress line every second on stderr for runs of 3s or more")
	fs.StringVar(&c.unavailable, "unavailable", "", "do not run: record the scenario as unavailable for this `reason`")
}

// tlsConfig builds the client configuration, or nil for plaintext.
func (c *common) tlsConfig(on bool) (*tls.Config, error) {
	if !on {
		return nil, nil
	}
	name := c.serverName
	if name == "" {
		name, _, _ = net.SplitHostPort(c.addr)
	}
	var v uint16
	switch c.tlsVersion {
	case "":
	case "1.2":
		v = tls.VersionTLS12
	case "1.3":
		v = tls.VersionTLS13
	default:
		return nil, fmt.Errorf("-tls-version %q: want 1.2 or 1.3", c.tlsVersion)
	}
	cfg, err := loadgen.ClientTLS(c.ca, name, c.insecure, v, v)
	if err != nil || c.groups == "" {
		return cfg, err
	}
	for _, g := range strings.Split(c.groups, ",") {
		id, ok := groupIDs[strings.ToLower(strings.TrimSpace(g))]
		if !ok {
			return nil, fmt.Errorf("-tls-groups: unknown group %q", g)
		}
		cfg.CurvePreferences = append(cfg.CurvePreferences, id)
	}
	return cfg, nil
}

var groupIDs = map[string]tls.CurveID{
	"x25519": tls.X25519, "p256": tls.CurveP256, "p384": tls.CurveP384, "p521": tls.CurveP521,
	"x25519mlkem768": tls.X25519MLKEM768,
}

func (c *common) target() (loadgen.Target, error) {
	cfg, err := c.tlsConfig(c.tlsOn)
	return loadgen.Target{Addr: c.addr, TLS: cfg, Pid: c.pid}, err
}

func (c *common) progressTo(d time.Duration) io.Writer {
	if c.progress && d >= 3*time.Second {
		return os.Stderr
	}
	return nil
}

// steadyFlags are the throughput flags, shared by the storm mode; the load
// mode takes the connection and key space flags only.
type steadyFlags struct {
	conns, pipeline, keys int
	keyLen, fields        int
	mix, dist, size       string
	duration              time.Duration
	requests              int64
	rate                  float64
	preload               bool
	seed                  uint64
}

func (s *steadyFlags) register(fs *flag.FlagSet) {
	s.registerKeys(fs, 50, 1, "get=8,set=2")
	fs.DurationVar(&s.duration, "duration", 10*time.Second, "run length (0: until -requests are done)")
	fs.Int64Var(&s.requests, "requests", 0, "total commands (0: until -duration is over)")
	fs.Float64Var(&s.rate, "rate", 0, "offered commands/s in total; latency from intended send times (0: closed loop)")
	fs.BoolVar(&s.preload, "preload", true, "write the mix's key space (strings and hashes) before measuring")
}

func (s *steadyFlags) registerKeys(fs *flag.FlagSet, conns, pipeline int, mix string) {
	fs.IntVar(&s.conns, "conns", conns, "connections")
	fs.IntVar(&s.pipeline, "pipeline", pipeline, "commands in flight per connection")
	fs.StringVar(&s.mix, "mix", mix, "command `ratios` of get, set, incr, ping, mget, mset, del, exists, hset, hget")
	fs.IntVar(&s.keys, "keys", 100000, "key space size")
	fs.IntVar(&s.keyLen, "key-len", 0, "pad every key with zeros to this many `bytes` (0: lkb:<n> unpadded)")
	fs.IntVar(&s.fields, "fields", 10, "fields per hash (hset, hget and the hash preload)")
	fs.StringVar(&s.dist, "key-dist", "uniform", "key distribution: uniform or zipf")
	fs.StringVar(&s.size, "value-size", "64", "value size in bytes, fixed (64) or a uniform range (16-1024)")
	fs.Uint64Var(&s.seed, "seed", 1, "seed of the command generators")
}

func (s *steadyFlags) parseMix() (loadgen.Mix, error) {
	m, err := loadgen.ParseMix(s.mix, s.keys, s.dist, s.size)
	if err == nil {
		err = m.SetShape(s.keyLen, s.fields)
	}
	return m, err
}

func (s *steadyFlags) config(t loadgen.Target) (loadgen.ThroughputConfig, error) {
	m, err := s.parseMix()
	return loadgen.ThroughputConfig{
		Target: t, Conns: s.conns, Pipeline: s.pipeline, Mix: m, Duration: s.duration,
		Requests: s.requests, Rate: s.rate, Preload: s.preload, Seed: s.seed,
	}, err
}

// runMode parses a measuring mode's flags, runs it and writes its result.
func runMode(mode string, args []string) error {
	fs := flag.NewFlagSet(mode, flag.ExitOnError)
	var c common
	c.register(fs)
	var st steadyFlags
	var steps string
	var dialers, workers int
	var settle time.Duration
	var resume, stormTLS bool
	var stormAddr string
	switch mode {
	case "throughput":
		st.register(fs)
	case "conns":
		fs.StringVar(&steps, "steps", "0,1000,5000,10000", "connection counts to measure at, ascending")
		fs.IntVar(&dialers, "dialers", 32, "concurrent dialers")
		fs.DurationVar(&settle, "settle", 500*time.Millisecond, "wait before reading the server's memory")
	case "churn":
		fs.IntVar(&workers, "workers", 4, "concurrent connect-handshake-PING-close workers")
		fs.DurationVar(&st.duration, "duration", 10*time.Second, "run length")
		fs.BoolVar(&resume, "resume", false, "resume TLS sessions (per-worker session cache)")
	case "load":
		st.registerKeys(fs, 4, 1000, "set=1")
	case "storm":
		st.register(fs)
		fs.IntVar(&workers, "storm-workers", 4, "workers opening and closing connections in the middle third")
		fs.BoolVar(&resume, "storm-resume", false, "storm with resumed handshakes")
		fs.StringVar(&stormAddr, "storm-addr", "", "storm `host:port` (default: -addr)")
		fs.BoolVar(&stormTLS, "storm-tls", false, "storm over TLS even when the steady clients are plaintext")
	}
	fs.Parse(args)
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	base := &loadgen.Result{Mode: mode, Label: c.label, Scenario: c.scenario, Rep: c.rep, Addr: c.addr,
		TLS: c.tlsOn || (mode == "storm" && stormTLS), Unavailable: c.unavailable, Meta: loadgen.NewMeta(c.commit)}
	if c.unavailable != "" {
		return c.emit(base)
	}
	t, err := c.target()
	if err != nil {
		return err
	}
	var r *loadgen.Result
	switch mode {
	case "throughput":
		var cfg loadgen.ThroughputConfig
		if cfg, err = st.config(t); err == nil {
			cfg.Progress = c.progressTo(cfg.Duration)
			r, err = loadgen.RunThroughput(cfg)
		}
	case "load":
		var m loadgen.Mix
		if m, err = st.parseMix(); err == nil {
			r, err = loadgen.RunLoad(loadgen.LoadConfig{Target: t, Conns: st.conns, Pipeline: st.pipeline, Mix: m,
				Seed: st.seed, Progress: c.progressTo(time.Hour)})
		}
	case "conns":
		var ns []int
		if ns, err = parseSteps(steps); err == nil {
			r, err = loadgen.RunConns(loadgen.ConnsConfig{Target: t, Steps: ns, Dialers: dialers, Settle: settle,
				Progress: c.progressTo(time.Hour)})
		}
	case "churn":
		r, err = loadgen.RunChurn(loadgen.ChurnConfig{Target: t, Workers: workers, Duration: st.duration,
			Resume: resume, Progress: c.progressTo(st.duration)})
	case "storm":
		var cfg loadgen.ThroughputConfig
		if cfg, err = st.config(t); err == nil {
			cfg.Progress = c.progressTo(cfg.Duration)
			storm := t
			if stormAddr != "" {
				storm.Addr = stormAddr
			}
			if stormTLS && storm.TLS == nil {
				if storm.TLS, err = c.tlsConfig(true); err != nil {
					return err
				}
			}
			r, err = loadgen.RunStorm(loadgen.StormConfig{Steady: cfg,
				Storm: loadgen.ChurnConfig{Target: storm, Workers: workers, Resume: resume}})
		}
	}
	if r == nil {
		r = base
	}
	r.Label, r.Scenario, r.Rep, r.Meta = base.Label, base.Scenario, base.Rep, base.Meta
	if err != nil {
		r.Unavailable = "failed: " + err.Error()
		if errors.Is(err, loadgen.ErrNotResumed) {
			r.Unavailable = "no session resumed"
		}
	}
	if eerr := c.emit(r); eerr != nil {
		return eerr
	}
	summary(os.Stderr, r)
	return err
}

func parseSteps(s string) ([]int, error) {
	var ns []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("-steps %q: %v", s, err)
		}
		ns = append(ns, n)
	}
	return ns, nil
}

// emit writes r to the JSON and CSV outputs.
func (c *common) emit(r *loadgen.Result) error {
	if c.jsonOut != "" {
		w := io.Writer(os.Stdout)
		if c.jsonOut != "-" {
			f, err := os.OpenFile(c.jsonOut, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}
			defer f.Close()
			w = f
		}
		if err := loadgen.WriteJSONLines(w, r); err != nil {
			return err
		}
	}
	if c.csvOut != "" {
		f, err := os.Create(c.csvOut)
		if err != nil {
			return err
		}
		defer f.Close()
		return loadgen.WriteCSV(f, r)
	}
	return nil
}

// summary prints the main figures of r for a human.
func summary(w io.Writer, r *loadgen.Result) {
	name := strings.Trim(r.Label+" "+r.Scenario, " ")
	if name == "" {
		name = r.Mode
	}
	fmt.Fprintf(w, "%s: %s %.1fs", name, r.Addr, r.Seconds)
	if r.TLSInfo != "" {
		fmt.Fprintf(w, " [%s]", r.TLSInfo)
	}
	if r.Unavailable != "" {
		fmt.Fprintf(w, " UNAVAILABLE (%s)", r.Unavailable)
	}
	switch r.Mode {
	case "throughput", "load":
		fmt.Fprintf(w, " %d ops %.0f ops/s", r.Ops, r.OpsPerSec)
	case "churn":
		fmt.Fprintf(w, " %d handshakes (%d resumed) %.0f/s", r.Handshakes, r.Resumed, r.HandshakesPerSec)
	case "storm":
		if s := r.Storm; s != nil {
			fmt.Fprintf(w, " steady p99 before %.0fµs during %.0fµs after %.0fµs; storm %.0f handshakes/s",
				s.Before.P99, s.During.P99, s.After.P99, s.StormHandshakesPerSec)
		}
	case "conns":
		for _, s := range r.Steps {
			fmt.Fprintf(w, " [%d conns: %d KiB, %d threads]", s.Conns, s.RSSKB, s.Threads)
		}
	}
	if l := r.Latency; l != nil && l.Count > 0 {
		fmt.Fprintf(w, " p50 %.0fµs p99 %.0fµs p99.9 %.0fµs max %.0fµs", l.P50, l.P99, l.P999, l.Max)
	}
	if r.ServerCPUPerOp >= 0 && r.Mode != "conns" {
		fmt.Fprintf(w, " server CPU %.2fµs/op", r.ServerCPUPerOp)
	}
	if r.ErrorReplies > 0 {
		fmt.Fprintf(w, " %d error replies (first: %s)", r.ErrorReplies, r.FirstError)
	}
	fmt.Fprintln(w)
}

func report(args []string) error {
	fs := flag.NewFlagSet("report", flag.ExitOnError)
	out := fs.String("out", ".", "output `dir`")
	stem := fs.String("stem", time.Now().UTC().Format("2006-01-02T1504Z"), "file name stem")
	fs.Parse(args)
	if fs.NArg() == 0 {
		return fmt.Errorf("report: name the results files (JSON lines)")
	}
	var rs []*loadgen.Result
	for _, name := range fs.Args() {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		more, err := loadgen.ReadJSONLines(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		rs = append(rs, more...)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	paths, err := loadgen.Report(rs, *out, *stem)
	for _, p := range paths {
		fmt.Println(p)
	}
	return err
}

func certs(args []string) error {
	fs := flag.NewFlagSet("certs", flag.ExitOnError)
	dir := fs.String("dir", ".", "output `dir` for ca.pem, server.pem, server-key.pem")
	fs.Parse(args)
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	f, err := loadgen.WriteCerts(*dir)
	if err == nil {
		fmt.Println(f.CA, f.Cert, f.Key)
	}
	return err
}

// probe waits until the target answers PING, for scripts starting servers.
func probe(args []string) error {
	fs := flag.NewFlagSet("probe", flag.ExitOnError)
	var c common
	c.register(fs)
	wait := fs.Duration("wait", 5*time.Second, "give up after this long")
	fs.Parse(args)
	t, err := c.target()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(*wait)
	for {
		conn, err := loadgen.Dial(t, nil)
		if err == nil {
			conn.Append("PING")
			err = conn.Do(1)
			if err == nil && conn.ErrReplies > 0 {
				err = errors.New(conn.FirstErr)
			}
			conn.Close(false)
			if err == nil {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("probe %s: %v", c.addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ports prints free loopback TCP ports, all distinct.
func ports(args []string) error {
	n := 1
	if len(args) > 0 {
		var err error
		if n, err = strconv.Atoi(args[0]); err != nil {
			return err
		}
	}
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		ls = append(ls, l)
		fmt.Println(l.Addr().(*net.TCPAddr).Port)
	}
	return nil
}
