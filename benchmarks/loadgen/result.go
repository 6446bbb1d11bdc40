package loadgen

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Latency summarises a Histogram of nanoseconds in microseconds.
type Latency struct {
	Count uint64  `json:"count"`
	Mean  float64 `json:"mean_us"`
	P50   float64 `json:"p50_us"`
	P90   float64 `json:"p90_us"`
	P99   float64 `json:"p99_us"`
	P999  float64 `json:"p999_us"`
	Max   float64 `json:"max_us"`
}

// Summarize returns h's figures in microseconds.
func Summarize(h *Histogram) Latency {
	us := func(ns int64) float64 { return float64(ns) / 1e3 }
	return Latency{
		Count: h.Count(), Mean: h.Mean() / 1e3,
		P50: us(h.Quantile(0.5)), P90: us(h.Quantile(0.9)), P99: us(h.Quantile(0.99)),
		P999: us(h.Quantile(0.999)), Max: us(h.Max()),
	}
}

// ConnStep is one step of a connection-scaling run.
type ConnStep struct {
	Conns       int     `json:"conns"`
	RSSKB       int64   `json:"rss_kb"`       // server VmRSS; 0 when unknown
	Threads     int     `json:"threads"`      // server threads; 0 when unknown
	OpenSeconds float64 `json:"open_s"`       // time to open this step's new connections
	ServerCPU   float64 `json:"server_cpu_s"` // server CPU while opening them; -1 when unknown
}

// StormPhases splits the steady clients' figures of a storm run.
type StormPhases struct {
	Before                Latency `json:"before"`
	During                Latency `json:"during"`
	After                 Latency `json:"after"`
	BeforeOps             float64 `json:"before_ops_per_s"`
	DuringOps             float64 `json:"during_ops_per_s"`
	AfterOps              float64 `json:"after_ops_per_s"`
	StormHandshakesPerSec float64 `json:"storm_handshakes_per_s"`
}

// Meta records where and when a result was measured.
type Meta struct {
	Time        string `json:"time"`
	Host        string `json:"host"`
	CPU         string `json:"cpu"`
	NumCPU      int    `json:"num_cpu"` // CPUs this process may run on (its affinity)
	MachineCPUs int    `json:"machine_cpus"`
	GOMAXPROCS  int    `json:"gomaxprocs"`
	GoVersion   string `json:"go"`
	Commit      string `json:"commit,omitempty"`
}

// Result is the outcome of one run of one mode against one target. Fields
// that do not apply to a mode are zero; server figures are -1 when the
// server's pid was not given.
type Result struct {
	Mode     string `json:"mode"`               // throughput, conns, churn, storm
	Label    string `json:"label,omitempty"`    // the target's name: loopkv, redis
	Scenario string `json:"scenario,omitempty"` // the comparison row it belongs to
	Rep      int    `json:"rep"`
	Addr     string `json:"addr"`
	TLS      bool   `json:"tls"`
	TLSInfo  string `json:"tls_info,omitempty"` // negotiated version, cipher suite, group
	// Unavailable, when set, says why the target could not run the scenario.
	Unavailable string `json:"unavailable,omitempty"`

	Conns    int     `json:"conns,omitempty"`
	Pipeline int     `json:"pipeline,omitempty"`
	Rate     float64 `json:"rate,omitempty"` // offered ops/s; 0 for closed loop
	Mix      string  `json:"mix,omitempty"`
	Workers  int     `json:"workers,omitempty"`
	Resume   bool    `json:"resume,omitempty"`

	Seconds      float64  `json:"seconds"`
	Ops          int64    `json:"ops"`
	ErrorReplies int64    `json:"error_replies"`
	FirstError   string   `json:"first_error,omitempty"`
	OpsPerSec    float64  `json:"ops_per_s"`
	Latency      *Latency `json:"latency,omitempty"`

	ServerCPU        float64 `json:"server_cpu_s"`         // -1 when unknown
	ServerCPUPerOp   float64 `json:"server_cpu_per_op_us"` // -1 when unknown
	ClientCPU        float64 `json:"client_cpu_s"`
	Handshakes       int64   `json:"handshakes,omitempty"`
	Resumed          int64   `json:"resumed,omitempty"`
	HandshakesPerSec float64 `json:"handshakes_per_s,omitempty"`
	ServerCPUPerHS   float64 `json:"server_cpu_per_handshake_us,omitempty"` // -1 when unknown

	Steps []ConnStep   `json:"steps,omitempty"`
	Storm *StormPhases `json:"storm,omitempty"`
	Meta  Meta         `json:"meta"`
}

// NewMeta describes this machine now; commit is the code version measured.
func NewMeta(commit string) Meta {
	host, _ := os.Hostname()
	return Meta{
		Time: time.Now().UTC().Format(time.RFC3339), Host: host, CPU: cpuModel(), MachineCPUs: machineCPUs(),
		NumCPU: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		GoVersion: runtime.Version(), Commit: commit,
	}
}

// perOp returns cpu/n in microseconds, or -1 when cpu is unknown or n is 0.
func perOp(cpu time.Duration, n int64) float64 {
	if cpu < 0 || n <= 0 {
		return -1
	}
	return float64(cpu) / 1e3 / float64(n)
}

func seconds(d time.Duration) float64 {
	if d < 0 {
		return -1
	}
	return d.Seconds()
}

// WriteJSONLines appends each result to w as one line of JSON.
func WriteJSONLines(w io.Writer, rs ...*Result) error {
	enc := json.NewEncoder(w)
	for _, r := range rs {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// AppendJSONLine appends v to the file at path as one line of JSON,
// creating the file when needed: the tools with a result type of their own
// (fanout, multibench) write their -json files with it.
func AppendJSONLine(path string, v any) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if err := json.NewEncoder(f).Encode(v); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadJSONLines reads results written by WriteJSONLines; blank lines are
// skipped.
func ReadJSONLines(r io.Reader) ([]*Result, error) {
	var out []*Result
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		b := strings.TrimSpace(sc.Text())
		if b == "" {
			continue
		}
		res := new(Result)
		if err := json.Unmarshal([]byte(b), res); err != nil {
			return nil, fmt.Errorf("loadgen: results line %d: %w", line, err)
		}
		out = append(out, res)
	}
	return out, sc.Err()
}

// csvHeader names the columns of WriteCSV.
var csvHeader = []string{
	"mode", "label", "scenario", "rep", "tls", "conns", "pipeline", "rate", "workers", "resume",
	"seconds", "ops", "error_replies", "ops_per_s", "p50_us", "p90_us", "p99_us", "p999_us", "max_us",
	"server_cpu_per_op_us", "handshakes_per_s", "server_cpu_per_handshake_us",
	"step_conns", "rss_kb", "threads", "unavailable",
}

// WriteCSV writes a header and one row per result, or one row per step for
// connection-scaling results.
func WriteCSV(w io.Writer, rs ...*Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for _, r := range rs {
		var lat Latency
		if r.Latency != nil {
			lat = *r.Latency
		}
		row := []string{
			r.Mode, r.Label, r.Scenario, strconv.Itoa(r.Rep), strconv.FormatBool(r.TLS),
			strconv.Itoa(r.Conns), strconv.Itoa(r.Pipeline), f(r.Rate), strconv.Itoa(r.Workers),
			strconv.FormatBool(r.Resume), f(r.Seconds), strconv.FormatInt(r.Ops, 10),
			strconv.FormatInt(r.ErrorReplies, 10), f(r.OpsPerSec), f(lat.P50), f(lat.P90), f(lat.P99),
			f(lat.P999), f(lat.Max), f(r.ServerCPUPerOp), f(r.HandshakesPerSec), f(r.ServerCPUPerHS),
		}
		steps := r.Steps
		if len(steps) == 0 {
			steps = []ConnStep{{}}
		}
		for _, s := range steps {
			full := append(append([]string(nil), row...), strconv.Itoa(s.Conns),
				strconv.FormatInt(s.RSSKB, 10), strconv.Itoa(s.Threads), r.Unavailable)
			if err := cw.Write(full); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// addErrors folds a connection's error-reply counts into r.
func (r *Result) addErrors(c *Conn) {
	r.ErrorReplies += c.ErrReplies
	if r.FirstError == "" {
		r.FirstError = c.FirstErr
	}
}
