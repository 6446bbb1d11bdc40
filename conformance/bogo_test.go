package conformance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Flags of TestBoGoFull (make conformance).
var (
	full       = flag.Bool("bogo.full", false, "TestBoGoFull: run every server-side BoGo test that is not disabled")
	otherShim  = flag.String("bogo.shim", "", "TestBoGoFull: run this shim instead of bogoshim (e.g. crypto/tls's test binary)")
	shimExtra  = flag.String("bogo.shim-extra-flags", "", "TestBoGoFull: the runner's -shim-extra-flags (crypto/tls: -bogo-mode)")
	configFile = flag.String("bogo.config", "bogo_config.json", "TestBoGoFull: the shim config")
	testFilter = flag.String("bogo.test", "", "TestBoGoFull: the runner's -test patterns, ';'-separated")
	resultsOut = flag.String("bogo.results", "", "TestBoGoFull: also write the server-side results (JSON) to this file")
)

// minSubset is the least number of tests TestBoGoSubset must run, so that a
// pattern that stops matching cannot hollow it out unnoticed.
const minSubset = 250

// bogo holds the built runner and shim.
type bogo struct {
	dir    string // ../shared/bogo
	tmp    string
	runner string
	shim   string
}

// result is one test's entry in the runner's JSON output.
type result struct {
	Actual string `json:"actual"`
	Error  string `json:"error"`
}

// shimConfig is the part of the runner's config file the harness reads.
type shimConfig struct {
	DisabledTests map[string]string
}

// setup finds ../shared/bogo beside the repository (skipping the test when
// it is absent) and builds the runner and the shim into a temp dir.
func setup(t *testing.T) *bogo {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root not found from %s: %v", root, err)
	}
	b := &bogo{dir: filepath.Join(root, "..", "shared", "bogo"), tmp: t.TempDir()}
	if _, err := os.Stat(filepath.Join(b.dir, "ssl", "test", "runner")); err != nil {
		t.Skipf("BoGo runner not found (%v): it lives in ../shared/bogo beside the repository", err)
	}
	b.runner = filepath.Join(b.tmp, "runner")
	b.shim = filepath.Join(b.tmp, "bogoshim")
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	build := func(i int, dir string, args ...string) {
		defer wg.Done()
		cmd := exec.Command(goTool, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			errs[i] = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	wg.Add(2)
	go build(0, b.dir, "test", "-c", "-o", b.runner, "./ssl/test/runner")
	go build(1, root, "build", "-o", b.shim, "./conformance/bogoshim")
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return b
}

// run runs the runner with the shim and config on the tests matching
// patterns (all when empty) and returns the results by test name.
func (b *bogo) run(t *testing.T, shim, extraFlags, config string, patterns []string, env ...string) map[string]result {
	t.Helper()
	out := filepath.Join(b.tmp, "results.json")
	os.Remove(out)
	args := []string{
		"-test.run", "^TestAll$", "-test.timeout", "30m",
		"-shim-path", shim, "-shim-config", config,
		"-allow-unimplemented", "-loose-errors", "-num-workers", "2", "-pipe",
		"-json-output", out,
	}
	if extraFlags != "" {
		args = append(args, "-shim-extra-flags", extraFlags)
	}
	if len(patterns) > 0 {
		args = append(args, "-test", strings.Join(patterns, ";"))
	}
	cmd := exec.Command(b.runner, args...)
	cmd.Dir = filepath.Join(b.dir, "ssl", "test", "runner") // it reads its key files from here
	cmd.Env = append(os.Environ(), env...)
	log, _ := cmd.CombinedOutput() // it exits non-zero whenever a test fails
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("runner wrote no results (%v); its output ends:\n%s", err, tail(log, 3000))
	}
	var res struct{ Tests map[string]result }
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	return res.Tests
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// readSubset returns the patterns of bogo_subset.txt: one per line, with
// '#' comments.
func readSubset(t *testing.T) []string {
	f, err := os.Open("bogo_subset.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var pats []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if line = strings.TrimSpace(line); line != "" {
			pats = append(pats, line)
		}
	}
	return pats
}

func readConfig(t *testing.T, name string) (shimConfig, map[string]any) {
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var c shimConfig
	var raw map[string]any
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for pat, reason := range c.DisabledTests {
		if _, err := filepath.Match(pat, ""); err != nil || strings.TrimSpace(reason) == "" {
			t.Fatalf("%s: pattern %q needs a valid glob and a reason", name, pat)
		}
	}
	return c, raw
}

// TestBoGoSubset runs the tests bogo_subset.txt names (make test): every
// one must pass, none may be unimplemented or switched off.
func TestBoGoSubset(t *testing.T) {
	if *full {
		t.Skip("-bogo.full: TestBoGoFull runs everything")
	}
	readConfig(t, "bogo_config.json")
	b := setup(t)
	cfg, err := filepath.Abs("bogo_config.json")
	if err != nil {
		t.Fatal(err)
	}
	subset := readSubset(t)
	res := b.run(t, b.shim, "", cfg, subset)
	for _, name := range subset {
		if _, ok := res[name]; !ok && !strings.ContainsAny(name, `*?[\`) {
			t.Errorf("%s: did not run (no such test, or bogo_config.json disables it)", name)
		}
	}
	counts := map[string]int{}
	for _, name := range slices.Sorted(maps.Keys(res)) {
		r := res[name]
		counts[r.Actual]++
		switch r.Actual {
		case "FAIL":
			t.Errorf("%s: %s", name, r.Error)
		case "SKIP":
			t.Errorf("%s: unimplemented by bogoshim; drop it from bogo_subset.txt or implement its flags", name)
		}
	}
	if len(res) < minSubset {
		t.Errorf("the subset ran %d tests, want at least %d: a pattern in bogo_subset.txt stopped matching", len(res), minSubset)
	}
	t.Logf("BoGo subset: %d tests: %d passed, %d failed, %d unimplemented", len(res), counts["PASS"], counts["FAIL"], counts["SKIP"])
}

// TestBoGoFull (make conformance) runs every server-side test that the
// config does not switch off and prints the counts CONFORMANCE.md keeps. A
// first pass with BOGOSHIM_CLASSIFY set sorts the tests into client and
// server side (bogoshim plays only the server); the client-side ones are
// then switched off as such in a copy of the config.
func TestBoGoFull(t *testing.T) {
	if !*full {
		t.Skip("needs -bogo.full (make conformance)")
	}
	b := setup(t)
	var filter []string
	if *testFilter != "" {
		filter = strings.Split(*testFilter, ";")
	}
	empty := filepath.Join(b.tmp, "empty.json")
	if err := os.WriteFile(empty, []byte(`{"DisabledTests":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var server, client []string
	for name, r := range b.run(t, b.shim, "", empty, filter, "BOGOSHIM_CLASSIFY=1") {
		if r.Actual == "SKIP" {
			client = append(client, name)
		} else {
			server = append(server, name)
		}
	}
	sort.Strings(server)

	cfg, raw := readConfig(t, *configFile)
	disabledBy := map[string][]string{} // reason -> server tests
	for _, name := range server {
		for _, pat := range slices.Sorted(maps.Keys(cfg.DisabledTests)) { // first match, in a stable order
			if ok, _ := filepath.Match(pat, name); ok {
				reason := cfg.DisabledTests[pat]
				disabledBy[reason] = append(disabledBy[reason], name)
				break
			}
		}
	}
	// The copy: the config plus every client-side test by name. (Patterns
	// match names, and the runner has no flag for the side.)
	dis, _ := raw["DisabledTests"].(map[string]any)
	if dis == nil {
		dis = map[string]any{}
		raw["DisabledTests"] = dis
	}
	for _, name := range client {
		dis[escapeGlob(name)] = "client side: the shim plays only the server"
	}
	merged := filepath.Join(b.tmp, "config.json")
	data, _ := json.Marshal(raw)
	if err := os.WriteFile(merged, data, 0o644); err != nil {
		t.Fatal(err)
	}

	shim := b.shim
	if *otherShim != "" {
		shim = *otherShim
	}
	unimplLog := filepath.Join(b.tmp, "unimplemented.log")
	res := b.run(t, shim, *shimExtra, merged, filter, "BOGOSHIM_UNIMPLEMENTED="+unimplLog)

	counts := map[string]int{}
	var failed []string
	for _, name := range server {
		r, ok := res[name]
		if !ok {
			continue
		}
		counts[r.Actual]++
		if r.Actual == "FAIL" {
			failed = append(failed, name)
		}
	}
	if *resultsOut != "" {
		srv := map[string]result{}
		for _, name := range server {
			if r, ok := res[name]; ok {
				srv[name] = r
			}
		}
		data, _ := json.MarshalIndent(srv, "", "  ")
		if err := os.WriteFile(*resultsOut, data, 0o644); err != nil {
			t.Error(err)
		}
	}
	disabled := 0
	for _, names := range disabledBy {
		disabled += len(names)
	}
	var w bytes.Buffer
	fmt.Fprintf(&w, "BoGo (TLS): %d client-side tests not run; %d server-side tests: %d disabled by %s, %d run: %d passed, %d failed, %d unimplemented\n",
		len(client), len(server), disabled, filepath.Base(*configFile), counts["PASS"]+counts["FAIL"]+counts["SKIP"], counts["PASS"], counts["FAIL"], counts["SKIP"])
	// The comparison CONFORMANCE.md keeps with crypto/tls's config: server-side
	// TLS 1.2 and 1.3 tests (by name: no DTLS, QUIC, SSL 3.0, TLS 1.0, 1.1).
	var scope, scopeOff, scopeUnimpl int
	for _, name := range server {
		if outOfScope.MatchString(name) {
			continue
		}
		scope++
		if r, ok := res[name]; !ok {
			scopeOff++
		} else if r.Actual == "SKIP" {
			scopeUnimpl++
		}
	}
	fmt.Fprintf(&w, "TLS 1.2 and 1.3 (by name): %d server-side tests, %d disabled, %d unimplemented, %d together\n",
		scope, scopeOff, scopeUnimpl, scopeOff+scopeUnimpl)
	fmt.Fprintf(&w, "\ndisabled server-side tests by reason:\n")
	for _, reason := range slices.Sorted(maps.Keys(disabledBy)) {
		fmt.Fprintf(&w, "%6d  %s\n", len(disabledBy[reason]), reason)
	}
	if log, err := os.ReadFile(unimplLog); err == nil {
		byFlag := map[string]int{}
		for _, f := range strings.Fields(string(log)) {
			if f != "(client" && f != "side)" {
				byFlag[f]++
			}
		}
		fmt.Fprintf(&w, "\nunimplemented server-side tests by the first flag bogoshim lacks:\n")
		flags := slices.Sorted(maps.Keys(byFlag))
		sort.SliceStable(flags, func(i, j int) bool { return byFlag[flags[i]] > byFlag[flags[j]] })
		for _, f := range flags {
			fmt.Fprintf(&w, "%6d  %s\n", byFlag[f], f)
		}
	}
	fmt.Fprintf(&w, "\nfailed:\n")
	for _, name := range failed {
		fmt.Fprintf(&w, "  %s: %s\n", name, firstLines(res[name].Error))
	}
	fmt.Print(w.String())
	if len(failed) > 0 {
		t.Errorf("%d server-side BoGo tests failed", len(failed))
	}
}

// outOfScope matches the names of DTLS, QUIC, SSL 3.0, TLS 1.0 and TLS 1.1 tests.
var outOfScope = regexp.MustCompile(`DTLS|QUIC|SSL3|(-TLS1|-TLS11)(-|$)|^TLS11?-`)

// escapeGlob quotes the glob metacharacters of a test name.
func escapeGlob(name string) string {
	var b strings.Builder
	for _, r := range name {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// firstLines squeezes a runner error onto one line.
func firstLines(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
