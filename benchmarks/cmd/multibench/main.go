// Command multibench measures transactions (issue #14): CONNS connections
// each send PIPELINE transactions of MULTI, SETS SETs and EXEC at a time
// and read their replies (closed loop), for DURATION. It reports
// transactions per second, batch latency and the server's CPU per
// transaction (utime and stime of /proc/PID/stat over the run). A run with
// any error reply (EXECABORT included) fails. One JSON line goes to -json
// (appended).
//
//	multibench -addr 127.0.0.1:6379 -pid $PID -conns 50 -pipeline 16 -duration 5s
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopkv/loopkv/benchmarks/loadgen"
)

type result struct {
	Mode        string  `json:"mode"`
	Label       string  `json:"label"`
	Scenario    string  `json:"scenario"`
	Rep         int     `json:"rep"`
	TLS         bool    `json:"tls"`
	Conns       int     `json:"conns"`
	Pipeline    int     `json:"pipeline"`
	Sets        int     `json:"sets"`
	Seconds     float64 `json:"seconds"`
	Txns        int64   `json:"transactions"`
	TxnsPerSec  float64 `json:"transactions_per_s"`
	ServerUserS float64 `json:"server_user_s"`
	ServerSysS  float64 `json:"server_sys_s"`
	CPUPerTxn   float64 `json:"server_cpu_per_txn_us"`
	UserPerTxn  float64 `json:"server_user_per_txn_us"`
	SysPerTxn   float64 `json:"server_sys_per_txn_us"`
	Latency     loadgen.Latency
	Error       string `json:"error,omitempty"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "server host:port")
	useTLS := flag.Bool("tls", false, "connect with TLS (crypto/tls)")
	caFile := flag.String("tls-ca", "", "CA file to verify the server with")
	pid := flag.Int("pid", 0, "server process id, for /proc figures")
	conns := flag.Int("conns", 50, "connections")
	pipeline := flag.Int("pipeline", 1, "transactions in flight per connection")
	sets := flag.Int("sets", 10, "SETs per transaction")
	duration := flag.Duration("duration", 5*time.Second, "run time")
	jsonPath := flag.String("json", "", "append the result as a JSON line to this file")
	label := flag.String("label", "", "label (server name) for the result")
	scenario := flag.String("scenario", "multi", "scenario name for the result")
	rep := flag.Int("rep", 1, "repetition number for the result")
	flag.Parse()

	r := &result{Mode: "multi", Label: *label, Scenario: *scenario, Rep: *rep, TLS: *useTLS, Conns: *conns,
		Pipeline: max(*pipeline, 1), Sets: max(*sets, 1)}
	t := loadgen.Target{Addr: *addr, Pid: *pid}
	if *useTLS {
		host, _, _ := net.SplitHostPort(*addr)
		cfg, err := loadgen.ClientTLS(*caFile, host, *caFile == "", 0, 0)
		if err != nil {
			fail(r, *jsonPath, err)
		}
		t.TLS = cfg
	}
	if err := run(r, t, *duration); err != nil {
		fail(r, *jsonPath, err)
	}
	fmt.Fprintf(os.Stderr, "multibench %s %s: %d transactions of %d SETs, %.0f/s, %.2f µs server CPU each (user %.2f, sys %.2f), batch p50 %.0f µs p99 %.0f µs\n",
		r.Label, r.Scenario, r.Txns, r.Sets, r.TxnsPerSec, r.CPUPerTxn, r.UserPerTxn, r.SysPerTxn, r.Latency.P50, r.Latency.P99)
	if err := write(r, *jsonPath); err != nil {
		fmt.Fprintln(os.Stderr, "multibench:", err)
		os.Exit(1)
	}
}

func fail(r *result, path string, err error) {
	r.Error = err.Error()
	fmt.Fprintln(os.Stderr, "multibench:", err)
	write(r, path)
	os.Exit(1)
}

func write(r *result, path string) error {
	if path == "" {
		return nil
	}
	return loadgen.AppendJSONLine(path, r)
}

func run(r *result, t loadgen.Target, d time.Duration) error {
	if _, err := loadgen.RaiseFileLimit(uint64(r.Conns) + 64); err != nil {
		return err
	}
	cs := make([]*loadgen.Conn, r.Conns)
	for i := range cs {
		c, err := loadgen.Dial(t, nil)
		if err != nil {
			return err
		}
		defer c.Close(false)
		cs[i] = c
	}
	// The commands of one batch, built once per connection: its keys are
	// its own, so transactions on different connections never touch the
	// same key.
	batches := make([][]string, r.Conns)
	for i := range cs {
		for p := range r.Pipeline {
			batches[i] = append(batches[i], "MULTI")
			for k := range r.Sets {
				batches[i] = append(batches[i], "SET\x00mb:"+strconv.Itoa(i)+":"+strconv.Itoa(p*r.Sets+k)+"\x00v")
			}
			batches[i] = append(batches[i], "EXEC")
		}
	}
	var stop atomic.Bool
	var txns atomic.Int64
	hists := make([]*loadgen.Histogram, r.Conns)
	errs := make([]error, r.Conns)
	user0, sys0, _ := loadgen.ProcTimes(t.Pid)
	t0 := time.Now()
	timer := time.AfterFunc(d, func() { stop.Store(true) })
	defer timer.Stop()
	var wg sync.WaitGroup
	for i, c := range cs {
		hists[i] = loadgen.NewHistogram()
		wg.Go(func() {
			cmds := make([][]string, len(batches[i]))
			for j, cmd := range batches[i] {
				cmds[j] = strings.Split(cmd, "\x00")
			}
			for !stop.Load() {
				b0 := time.Now()
				for _, args := range cmds {
					c.Append(args...)
				}
				if err := c.Do(len(cmds)); err != nil {
					errs[i] = err
					return
				}
				if c.ErrReplies > 0 {
					errs[i] = fmt.Errorf("error reply: %s", c.FirstErr)
					return
				}
				hists[i].RecordDuration(time.Since(b0))
				txns.Add(int64(r.Pipeline))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(t0)
	user1, sys1, _ := loadgen.ProcTimes(t.Pid)
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	all := loadgen.NewHistogram()
	for _, h := range hists {
		all.Merge(h)
	}
	r.Seconds, r.Txns = elapsed.Seconds(), txns.Load()
	r.TxnsPerSec = float64(r.Txns) / r.Seconds
	r.ServerUserS, r.ServerSysS = (user1 - user0).Seconds(), (sys1 - sys0).Seconds()
	if r.Txns > 0 && t.Pid > 0 {
		per := func(s float64) float64 { return s * 1e6 / float64(r.Txns) }
		r.CPUPerTxn, r.UserPerTxn, r.SysPerTxn = per(r.ServerUserS+r.ServerSysS), per(r.ServerUserS), per(r.ServerSysS)
	}
	r.Latency = loadgen.Summarize(all)
	return nil
}
