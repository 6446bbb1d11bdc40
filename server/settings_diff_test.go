package server

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopkv/loopkv/config"
)

// settingsDefaultDiffers are the settings whose default CONFIG GET differs
// from redis-server 7.0's on purpose, and why.
var settingsDefaultDiffers = map[string]string{
	"bind":                       "loopkv listens on 127.0.0.1 only; Redis's default is \"* -::*\"",
	"port":                       "the two servers run on other ports",
	"dir":                        "the two servers run in other directories",
	"io-threads":                 "reports loopkv's event loops",
	"client-output-buffer-limit": "loopkv caps normal clients at 256mb; Redis leaves them unlimited",
	"syslog-ident":               "loopkv logs as loopkv",
	"tls-protocols":              "loopkv reports the versions it offers, Redis an empty string",
	"tls-auth-clients":           "loopkv's default follows whether a CA is configured",
	"loglevel":                   "the reference runs at warning",
	"save":                       "the reference runs with save \"\"",
	"hash-max-listpack-entries":  "loopkv's default is redis.conf's 128 (store.DefaultLimits); Redis's built-in one is 512",
}

// settingsImmutableDiffers are the settings Redis 7.0 changes with CONFIG
// SET and loopkv does not, and why.
var settingsImmutableDiffers = map[string]string{
	"bind":     "the listeners are bound once, at start",
	"port":     "the listeners are bound once, at start",
	"tls-port": "the listeners are bound once, at start",
}

// settingsRangeDiffers are the settings whose accepted values differ from
// Redis 7.0's on purpose, and why: their bad values are not compared.
var settingsRangeDiffers = map[string]string{
	"tls-session-cache-timeout": "a ticket lifetime of 0 s would make every ticket useless: loopkv takes 1 s at least",
}

// settingsBuildDiffers are settings whose good values the reference,
// Debian's build of Redis, refuses, and why: they are not round-tripped.
var settingsBuildDiffers = map[string]string{
	"activedefrag": "Debian's redis-server has no jemalloc and refuses yes; loopkv accepts it, as Redis's own build does",
}

// settingsNotIn70 are rows redis-server 7.0 does not have.
var settingsNotIn70 = map[string]string{
	"set-max-listpack-entries": "Redis 7.2's", "set-max-listpack-value": "Redis 7.2's",
}

// newDaemonServer is a server as the daemon builds it from no settings at
// all: every row's default, through OptionsFrom.
func newDaemonServer(t *testing.T, configFile string) *ourServer {
	t.Helper()
	values := map[string]string{}
	if configFile != "" {
		f, err := os.Open(configFile)
		if err != nil {
			t.Fatal(err)
		}
		dirs, err := config.ParseFile(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		find := func(name string) *config.Setting {
			if p := findConfigParam([]byte(name)); p != nil {
				return &p.Setting
			}
			return nil
		}
		if err := config.Load(configFile, dirs, find, values); err != nil {
			t.Fatal(err)
		}
	}
	o, errs := OptionsFrom(values)
	if len(errs) > 0 {
		t.Fatalf("OptionsFrom(%q): %v", values, errs)
	}
	o.ConfigFile = configFile
	o.Persist.Dir = t.TempDir()
	s := New(o)
	return &ourServer{s: s, cl: &client{proto: 2}}
}

// configPairs parses a CONFIG GET reply (a flat RESP2 array of bulk
// strings) into sorted "name=value" pairs.
func configPairs(t *testing.T, raw []byte) []string {
	t.Helper()
	r := bufio.NewReader(bytes.NewReader(raw))
	line, _ := r.ReadString('\n')
	if !strings.HasPrefix(line, "*") {
		t.Fatalf("CONFIG GET reply %q", raw)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	var items []string
	for range n {
		h, _ := r.ReadString('\n')
		size, _ := strconv.Atoi(strings.TrimSpace(h[1:]))
		b := make([]byte, size+2)
		if _, err := io.ReadFull(r, b); err != nil {
			t.Fatal(err)
		}
		items = append(items, string(b[:size]))
	}
	var pairs []string
	for i := 0; i+1 < len(items); i += 2 {
		pairs = append(pairs, items[i]+"="+items[i+1])
	}
	sort.Strings(pairs)
	return pairs
}

// badValues are values each type refuses, with Redis's reasons.
func badValues(typ config.Type) []string {
	switch t := typ.(type) {
	case config.Int:
		vs := []string{"abc", "-1", "01", "+1", "1.5", "", "99999999999999999999"}
		if t.Max < math.MaxInt64 && t.Max > 0 {
			vs = append(vs, strconv.FormatInt(t.Max+1, 10))
		}
		if t.Min > math.MinInt64 && t.Min != 0 {
			vs = append(vs, strconv.FormatInt(t.Min-1, 10))
		}
		return vs
	case config.Memory:
		return []string{"abc", "-1", "1tb", "1kbb", "99999999999999999999", "1"}
	case config.Bool:
		return []string{"maybe", "1", ""}
	case config.Enum:
		return []string{"nosuch", ""}
	}
	return nil
}

// goodValue is a value the row accepts other than its default, or "".
func goodValue(p *configParam) string {
	switch t := p.Type.(type) {
	case config.Int:
		if t.Max > 0 && p.Default != "3" {
			return "3"
		}
	case config.Memory:
		return "2mb"
	case config.Bool:
		if p.Default == "yes" {
			return "no"
		}
		return "yes"
	case config.Enum:
		for _, n := range t {
			if n != p.Default {
				return n
			}
		}
	}
	return ""
}

// TestSettingsMatchRedis checks every row redis-server 7.0 also has:
// CONFIG GET of the default, immutability, the error for each bad value
// and a CONFIG SET / CONFIG GET round trip, under the row's name and its
// aliases, on both servers; loopkv's own rows round-trip on loopkv alone.
func TestSettingsMatchRedis(t *testing.T) {
	ref := startDiffRedis(t)
	ours := newDaemonServer(t, "")
	for _, p := range settingsTable() {
		p := p
		names := append([]string{p.Name}, p.Aliases...)
		get := []string{"CONFIG", "GET", p.Name}
		if p.Flags&config.FileOnly != 0 { // a directive: CONFIG knows it on neither
			for _, cmd := range [][]string{get, {"CONFIG", "SET", p.Name, "x"}} {
				if w, g := ref.do(t, cmd), ours.do(t, cmd); !bytes.Equal(w, g) {
					t.Errorf("%q: redis %q, loopkv %q", cmd, w, g)
				}
			}
			continue
		}
		if p.Flags&config.Own != 0 || settingsNotIn70[p.Name] != "" {
			if w := ref.do(t, get); string(w) != "*0\r\n" {
				t.Errorf("%s is marked as loopkv's own, but redis-server has it: %q", p.Name, w)
			}
			if v := goodValue(&p); v != "" && !p.immutable() {
				if r := ours.do(t, []string{"CONFIG", "SET", p.Name, v}); string(r) != "+OK\r\n" &&
					!strings.Contains(string(r), errTLSDisabled) {
					t.Errorf("CONFIG SET %s %s: %q", p.Name, v, r)
				}
				ours.do(t, []string{"CONFIG", "SET", p.Name, p.Default})
			}
			continue
		}
		for _, name := range names {
			get := []string{"CONFIG", "GET", name}
			w, g := ref.do(t, get), ours.do(t, get)
			if string(w) == "*0\r\n" {
				t.Errorf("%s: redis-server 7.0 has no such setting; mark it config.Own or list it in settingsNotIn70", name)
				continue
			}
			if _, differs := settingsDefaultDiffers[p.Name]; !differs && !bytes.Equal(w, g) {
				t.Errorf("%q default: redis %q, loopkv %q", get, w, g)
			}
			cur := configPairs(t, g)[0][len(name)+1:]
			set := []string{"CONFIG", "SET", name, cur}
			w, g = ref.do(t, set), ours.do(t, set)
			rImm, oImm := bytes.Contains(w, []byte("immutable")), bytes.Contains(g, []byte("immutable"))
			if _, differs := settingsImmutableDiffers[p.Name]; rImm != oImm && !differs {
				t.Errorf("%q: redis %q, loopkv %q", set, w, g)
			}
			if rImm || oImm {
				continue
			}
			for _, bad := range badValues(p.Type) {
				if settingsRangeDiffers[p.Name] != "" {
					break
				}
				set := []string{"CONFIG", "SET", name, bad}
				if w, g := ref.do(t, set), ours.do(t, set); !bytes.Equal(w, g) {
					t.Errorf("%q: redis %q, loopkv %q", set, w, g)
				}
			}
			tlsOff := strings.HasPrefix(p.Name, "tls-") && ours.s.tls == nil // ours refuses good values: no TLS state
			if v := goodValue(&p); v != "" && settingsDefaultDiffers[p.Name] == "" && settingsBuildDiffers[p.Name] == "" && !tlsOff {
				diffSetThenGet(t, ref, ours, name, v, names)
				reset := []string{"CONFIG", "SET", name, cur}
				ref.do(t, reset)
				ours.do(t, reset)
			}
		}
	}
}

// TestEveryRedisSettingHasARow checks that loopkv has a row (or an alias)
// for each setting redis-server 7.0 lists, so that any redis.conf of
// Redis 7.0 loads (settings_accepted.go holds those loopkv ignores).
func TestEveryRedisSettingHasARow(t *testing.T) {
	ref := startDiffRedis(t)
	pairs := configPairs(t, ref.do(t, []string{"CONFIG", "GET", "*"}))
	if len(pairs) < 100 {
		t.Fatalf("CONFIG GET * lists %d settings", len(pairs))
	}
	for _, kv := range pairs {
		name, _, _ := strings.Cut(kv, "=")
		if p := findConfigSetting([]byte(name)); p == nil {
			t.Errorf("%s: redis-server 7.0 has it, loopkv has no row", name)
		}
	}
}

// diffSetThenGet sends CONFIG SET name v to both servers, then CONFIG GET
// of each of names, and reports any reply that differs.
func diffSetThenGet(t *testing.T, ref *redisRef, ours *ourServer, name, v string, names []string) {
	t.Helper()
	set := []string{"CONFIG", "SET", name, v}
	if w, g := ref.do(t, set), ours.do(t, set); !bytes.Equal(w, g) {
		t.Errorf("%q: redis %q, loopkv %q", set, w, g)
	}
	for _, n := range names {
		get := []string{"CONFIG", "GET", n}
		if w, g := ref.do(t, get), ours.do(t, get); !bytes.Equal(w, g) {
			t.Errorf("%q after %q: redis %q, loopkv %q", get, set, w, g)
		}
	}
}

// configGetTests are CONFIG GET forms: globs, several patterns, aliases,
// names in capitals (echoed as given), unknown names.
var configGetTests = [][]string{
	{"*max-*-entries"},
	{"*ziplist*"},
	{"maxmemory*"},
	{"MAXCLIENTS"},
	{"hash-max-ziplist-entries", "hash-max-listpack-entries"},
	{"timeout", "maxclients", "timeout"},
	{"nosuch"},
	{"latency-*", "slowlog-*"},
	{"[lm]axmemory"},
	{"?imeout"},
	{"*-max-listpack-value", "hash-*"},
}

// TestConfigGetPatternsMatchRedis compares CONFIG GET of patterns, as maps:
// Redis answers in its dictionary's order. Settings either side lacks are
// left out of the comparison.
func TestConfigGetPatternsMatchRedis(t *testing.T) {
	ref := startDiffRedis(t)
	ours := newDaemonServer(t, "")
	known := func(pairs []string, other *ourServer) []string {
		var out []string
		for _, kv := range pairs {
			name := kv[:strings.IndexByte(kv, '=')]
			p := findConfigParam([]byte(name))
			if p == nil || p.Flags&config.Own != 0 || settingsNotIn70[p.Name] != "" || settingsDefaultDiffers[p.Name] != "" {
				continue
			}
			out = append(out, kv)
		}
		return out
	}
	for _, pats := range configGetTests {
		cmd := append([]string{"CONFIG", "GET"}, pats...)
		w := known(configPairs(t, ref.do(t, cmd)), ours)
		g := known(configPairs(t, ours.do(t, cmd)), ours)
		if strings.Join(w, "\n") != strings.Join(g, "\n") {
			t.Errorf("%q:\nredis  %q\nloopkv %q", cmd, w, g)
		}
	}
}

// configSetTests are multi-pair CONFIG SETs: all are applied or none.
var configSetTests = [][]string{
	{"maxclients", "500", "timeout", "7"},
	{"maxclients", "600", "timeout", "abc"},
	{"maxclients", "700", "maxclients", "800"},
	{"timeout", "1", "nosuch", "2"},
	{"timeout", "2", "databases", "3"},
	{"maxmemory", "10mb", "maxmemory-policy", "allkeys-lru", "hash-max-ziplist-entries", "64"},
	{"hash-max-ziplist-entries", "10", "hash-max-listpack-entries", "20"},
	{"slowlog-max-len", "10", "latency-tracking", "nope"},
	{"timeout"},
	{"maxclients", "900", "dbfilename", "x.rdb"}, // refused while applying: maxclients is restored
	{"client-output-buffer-limit", "normal 0 0 0 slave 1kb 2k 3"},
	{"client-output-buffer-limit", "pubsub 1mb 2mb 30"},
	{"client-output-buffer-limit", "replica 1 2"},
	{"client-output-buffer-limit", "master 1 2 3"},
	{"client-output-buffer-limit", "normal x 0 0"},
	{"client-output-buffer-limit", "normal 1 2 -3"},
	{"client-output-buffer-limit", "NORMAL 5MB 1mb 0 pubsub 0 0 0", "timeout", "3"},
}

// TestConfigSetIsAtomicAsInRedis sends each multi-pair CONFIG SET to both
// servers and compares the reply and the settings named after it.
func TestConfigSetIsAtomicAsInRedis(t *testing.T) {
	ref := startDiffRedis(t)
	ours := newDaemonServer(t, "")
	for _, pairs := range configSetTests {
		set := append([]string{"CONFIG", "SET"}, pairs...)
		if w, g := ref.do(t, set), ours.do(t, set); !bytes.Equal(w, g) {
			t.Errorf("%q: redis %q, loopkv %q", set, w, g)
		}
		get := []string{"CONFIG", "GET"}
		for i := 0; i < len(pairs); i += 2 {
			get = append(get, pairs[i])
		}
		if w, g := configPairs(t, ref.do(t, get)), configPairs(t, ours.do(t, get)); strings.Join(w, " ") != strings.Join(g, " ") {
			t.Errorf("%q after %q: redis %q, loopkv %q", get, set, w, g)
		}
	}
}

// TestEverySettingHasHelpAndItsDefaultParses fails for a row with no
// one-line meaning (--help prints it), a default its own type refuses, or
// no way to read it.
func TestEverySettingHasHelpAndItsDefaultParses(t *testing.T) {
	for _, p := range settingsTable() {
		if strings.TrimSpace(p.Help) == "" || strings.Contains(p.Help, "\n") {
			t.Errorf("%s: no one-line help", p.Name)
		}
		if p.get == nil {
			t.Errorf("%s: no get", p.Name)
		}
		if p.Flags&config.Multi == 0 || p.Default != "" {
			if _, msg := p.Parse(p.Default); msg != "" {
				t.Errorf("%s: default %q refused: %s", p.Name, p.Default, msg)
			}
		}
		if p.Name != strings.ToLower(p.Name) {
			t.Errorf("%s: names are lower case", p.Name)
		}
	}
}

// rewriteCase is a starting file and the CONFIG SETs before CONFIG
// REWRITE.
type rewriteCase struct {
	name string
	file string
	sets [][]string
}

var rewriteCases = []rewriteCase{
	{"nothing changed", "# top\nmaxclients 10000\n\n\n# c2\ntimeout 5\n", nil},
	{"in place and appended",
		"# top comment\n  maxclients 100\nhz 10\n\n# c2\ntimeout 5\nhash-max-ziplist-entries 100\nloglevel notice\nmaxmemory 1gb\n",
		[][]string{{"timeout", "0"}, {"maxmemory", "100mb"}, {"client-query-buffer-limit", "2mb"},
			{"maxmemory-policy", "allkeys-lru"}, {"slowlog-max-len", "64"}, {"hash-max-listpack-value", "1024"},
			{"latency-tracking", "no"}, {"notify-keyspace-events", "KEA"}}},
	{"duplicates removed", "maxclients 10\nmaxclients 20\ntimeout 1\ntimeout 2\n", [][]string{{"maxclients", "30"}}},
	{"output limits by class", "client-output-buffer-limit pubsub 64mb 16mb 30\nmaxmemory-policy noeviction\n",
		[][]string{{"client-output-buffer-limit", "replica 128mb 32mb 60"}, {"maxmemory-policy", "volatile-ttl"}}},
	{"users", "user default on nopass ~* &* +@all\nuser alice on >pw ~k* +get\n# end\n",
		[][]string{{"maxclients", "77"}}},
	{"signature kept", "timeout 1\n# Generated by CONFIG REWRITE\nmaxclients 5\n", [][]string{{"tcp-keepalive", "60"}}},
}

// rewriteIgnored are the lines that differ for reasons outside the
// rewrite: dir and port (each server runs elsewhere), Redis 7.0's always-written percentiles, the save
// rules (the reference runs with save ""), and the normal clients' output
// limit (loopkv's default is 256mb, Redis's 0).
func rewriteIgnored(line string) bool {
	for _, p := range []string{"dir ", "latency-tracking-info-percentiles ", "save ", "port ",
		"client-output-buffer-limit normal "} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// TestConfigRewriteMatchesRedis starts both servers on the same file,
// applies the same CONFIG SETs and compares the rewritten files: the
// lines of the old file in order, and the appended block as a set (Redis
// appends in its dictionary's order).
// acceptedRewriteCase is a rewrite case for the accepted rows: a file
// setting some by their old names and immutable ones, then CONFIG SET of
// a good value of each mutable one (but TLS ones, which the reference
// refuses without TLS).
func acceptedRewriteCase() rewriteCase {
	tc := rewriteCase{name: "accepted settings",
		file: "slave-read-only no\nlua-time-limit 100\nunixsocketperm 0700\nenable-debug-command LOCAL\nsupervised SYSTEMD\nshutdown-on-sigterm now save\nmaxmemory-clients 10%\n"}
	for i := range acceptedSettings {
		p := &acceptedSettings[i]
		if v := goodValue(p); v != "" && !p.immutable() && settingsBuildDiffers[p.Name] == "" && !strings.HasPrefix(p.Name, "tls-") {
			tc.sets = append(tc.sets, []string{p.Name, v})
		}
	}
	tc.sets = append(tc.sets, []string{"oom-score-adj-values", "0 100 900"}, []string{"masterauth", "a b"})
	return tc
}

func TestConfigRewriteMatchesRedis(t *testing.T) {
	for _, tc := range append(rewriteCases, acceptedRewriteCase()) {
		dir := t.TempDir()
		refFile, ourFile := filepath.Join(dir, "redis.conf"), filepath.Join(dir, "loopkv.conf")
		for _, f := range []string{refFile, ourFile} {
			if err := os.WriteFile(f, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		ref := startDiffRedisWith(t, refFile)
		ours := newDaemonServer(t, ourFile)
		for _, kv := range tc.sets {
			set := append([]string{"CONFIG", "SET"}, kv...)
			if w, g := ref.do(t, set), ours.do(t, set); !bytes.Equal(w, g) {
				t.Errorf("%s: %q: redis %q, loopkv %q", tc.name, set, w, g)
			}
		}
		rw := []string{"CONFIG", "REWRITE"}
		if w, g := ref.do(t, rw), ours.do(t, rw); !bytes.Equal(w, g) {
			t.Fatalf("%s: %q: redis %q, loopkv %q", tc.name, rw, w, g)
		}
		want, _ := os.ReadFile(refFile)
		got, _ := os.ReadFile(ourFile)
		wHead, wTail := splitRewrite(string(want))
		gHead, gTail := splitRewrite(string(got))
		if wHead != gHead || wTail != gTail {
			t.Errorf("%s: rewritten file\nredis-server:\n%s\nloopkv:\n%s", tc.name, want, got)
		}
	}
}

// splitRewrite returns a rewritten file's lines before the appended block
// and the appended lines sorted, both without rewriteIgnored lines.
func splitRewrite(s string) (head, tail string) {
	var h, tl []string
	in := &h
	for _, l := range strings.Split(s, "\n") {
		if rewriteIgnored(l) {
			continue
		}
		if l == config.Signature {
			in = &tl
		}
		*in = append(*in, l)
	}
	sort.Strings(tl)
	return strings.Join(h, "\n"), strings.Join(tl, "\n")
}

// diffRedisConfigFile, when set, is the file startDiffRedis starts
// redis-server on.
var diffRedisConfigFile string

// startDiffRedisWith is startDiffRedis on a config file.
func startDiffRedisWith(t *testing.T, file string) *redisRef {
	t.Helper()
	diffRedisConfigFile = file
	defer func() { diffRedisConfigFile = "" }()
	rr := startDiffRedis(t)
	deadline := time.Now().Add(5 * time.Second)
	for string(rr.do(t, []string{"PING"})) != "+PONG\r\n" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return rr
}

// TestConfigResetStatMatchesRedis runs the same commands on both servers
// around CONFIG RESETSTAT and compares INFO's keyspace counters and the
// calls of INFO commandstats after it.
func TestConfigResetStatMatchesRedis(t *testing.T) {
	ref := startDiffRedis(t)
	ours := newDaemonServer(t, "")
	script := [][]string{
		{"SET", "a", "1"}, {"GET", "a"}, {"GET", "nosuch"}, {"SET", "e", "1", "PX", "1"}, {"INCR", "a"},
		{"HSET", "h", "f", "v"}, {"LPOP", "h"},
		{"CONFIG", "RESETSTAT"},
		{"GET", "a"}, {"GET", "b"}, {"GET", "c"}, {"SET", "a", "2"}, {"EXISTS", "a", "b"},
	}
	for _, cmd := range script {
		if w, g := ref.do(t, cmd), ours.do(t, cmd); !bytes.Equal(w, g) {
			t.Errorf("%q: redis %q, loopkv %q", cmd, w, g)
		}
	}
	fields := func(info []byte, keep func(k string) bool) []string {
		var out []string
		for _, l := range strings.Split(string(info), "\r\n") {
			k, v, ok := strings.Cut(l, ":")
			if !ok || !keep(k) {
				continue
			}
			if strings.HasPrefix(k, "cmdstat_") { // calls only: times differ
				v, _, _ = strings.Cut(v, ",")
			}
			out = append(out, k+"="+v)
		}
		sort.Strings(out)
		return out
	}
	counters := map[string]bool{"keyspace_hits": true, "keyspace_misses": true, "evicted_keys": true}
	for _, sec := range []string{"stats", "commandstats"} {
		info := []string{"INFO", sec}
		keep := func(k string) bool { return counters[k] || strings.HasPrefix(k, "cmdstat_") && k != "cmdstat_info" }
		w, g := fields(ref.do(t, info), keep), fields(ours.do(t, info), keep)
		if strings.Join(w, " ") != strings.Join(g, " ") {
			t.Errorf("INFO %s after CONFIG RESETSTAT:\nredis  %q\nloopkv %q", sec, w, g)
		}
	}
}
