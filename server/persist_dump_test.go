package server

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// DUMP and RESTORE against redis-server: payloads move both ways, and the
// errors are Redis's.

// bulkValue is the content of a raw bulk-string reply.
func bulkValue(t *testing.T, raw string) string {
	t.Helper()
	i := strings.Index(raw, "\r\n")
	if raw[0] != '$' || i < 0 {
		t.Fatalf("not a bulk: %q", raw)
	}
	n, _ := strconv.Atoi(raw[1:i])
	return raw[i+2 : i+2+n]
}

// moveAll DUMPs every key of from and RESTOREs it into to with its
// absolute expiry (ABSTTL).
func moveAll(t *testing.T, from, to *rawConn) {
	t.Helper()
	for _, db := range []string{"0", "3"} {
		from.do("SELECT", db)
		to.do("SELECT", db)
		for _, k := range bulks(t, from.do("KEYS", "*")) {
			payload := bulkValue(t, from.do("DUMP", k))
			at := strings.TrimSpace(from.do("PEXPIRETIME", k)[1:])
			if at == "-1" {
				at = "0"
			}
			if r := to.do("RESTORE", k, at, payload, "ABSTTL"); r != "+OK\r\n" {
				t.Fatalf("RESTORE %q: %q", k, r)
			}
		}
	}
	from.do("SELECT", "0")
	to.do("SELECT", "0")
}

func TestDumpRestoreBothWaysWithRedis(t *testing.T) {
	at := time.Now().Add(time.Hour).UnixMilli()
	for _, dir := range []string{"redis to loopkv", "loopkv to redis"} {
		s, _ := startServer(t, Options{Loops: 1})
		ours := dialRaw(t, s.Addr())
		ref := dialRaw(t, startRefRedis(t, "--hash-max-listpack-entries", "128"))
		from, to := ref, ours
		if dir == "loopkv to redis" {
			from, to = ours, ref
		}
		fill(t, from, persistDataset(at))
		moveAll(t, from, to)
		sameContents(t, contents(t, to), contents(t, from))
	}
}

func TestRestoreErrorsMatchRedis(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 1})
	p := &obsPair{ref: dialRaw(t, startRefRedis(t)), ours: dialRaw(t, s.Addr())}
	p.both(t, "SET", "src", "hello")
	p.both(t, "RPUSH", "srclist", "a", "b")
	payload := bulkValue(t, p.ref.do("DUMP", "src"))
	list := bulkValue(t, p.ref.do("DUMP", "srclist"))
	bad := payload[:len(payload)-1] + string(payload[len(payload)-1]^1)
	old := payload[:len(payload)-10] + "\x0b\x00" + payload[len(payload)-8:] // RDB version 11
	for _, proto := range []string{"2", "3"} {
		p.ours.do("HELLO", proto)
		p.ref.do("HELLO", proto)
		for _, args := range [][]string{
			{"DUMP", "missing"}, {"DUMP"}, {"DUMP", "a", "b"},
			{"RESTORE", "k", "0"}, {"RESTORE", "src", "0", payload}, {"RESTORE", "k", "x", payload},
			{"RESTORE", "k", "-1", payload}, {"RESTORE", "k", "0", "garbage"}, {"RESTORE", "k", "0", ""},
			{"RESTORE", "k", "0", bad}, {"RESTORE", "k", "0", old},
			{"RESTORE", "k", "0", payload, "NOPE"}, {"RESTORE", "k", "0", payload, "IDLETIME"},
			{"RESTORE", "k", "0", payload, "IDLETIME", "-1"}, {"RESTORE", "k", "0", payload, "IDLETIME", "x"},
			{"RESTORE", "k", "0", payload, "FREQ", "256"}, {"RESTORE", "k", "0", payload, "FREQ", "-1"},
			{"RESTORE", "k", "0", payload, "IDLETIME", "10", "FREQ", "5"}, {"RESTORE", "k", "0", payload, "FREQ", "5", "IDLETIME", "10"},
			{"RESTORE", "src", "-1", payload}, {"RESTORE", "src", "0", bad, "REPLACE"},
			{"RESTORE", "k", "0", payload, "FREQ", "5"}, {"GET", "k"},
			{"RESTORE", "k2", "0", payload, "IDLETIME", "1000"}, {"~ OBJECT", "IDLETIME", "k2"},
			{"RESTORE", "src", "0", list, "REPLACE"}, {"TYPE", "src"}, {"LRANGE", "src", "0", "-1"},
			{"RESTORE", "src", "1", payload, "ABSTTL", "REPLACE"}, {"EXISTS", "src"},
			{"RESTORE", "k3", "100000", payload, "replace", "absttl"}, {"EXISTS", "k3"},
			{"RESTORE", "k4", "100000", payload}, {"TTL", "k4"},
			{"DEL", "k", "k2", "k4"},
			// under an LFU policy FREQ sets the counter and IDLETIME is
			// ignored (the key starts at LFU_INIT_VAL), as objectSetLRUOrLFU
			{"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"},
			{"RESTORE", "k", "0", payload, "FREQ", "100"}, {"OBJECT", "FREQ", "k"},
			{"RESTORE", "k2", "0", payload, "IDLETIME", "1000"}, {"OBJECT", "FREQ", "k2"},
			{"RESTORE", "k4", "0", payload, "FREQ", "0"}, {"OBJECT", "FREQ", "k4"}, {"OBJECT", "IDLETIME", "k4"},
			{"RESTORE", "k", "0", payload, "FREQ", "255", "REPLACE"}, {"OBJECT", "FREQ", "k"},
			{"CONFIG", "SET", "maxmemory-policy", "noeviction"},
			{"RESTORE", "k5", "0", payload, "FREQ", "100"}, {"OBJECT", "FREQ", "k5"},
			{"DEL", "k", "k2", "k4", "k5"},
		} {
			if args[0] == "~ OBJECT" { // idle times may differ by a second
				args[0] = "OBJECT"
				g, w := p.ours.do(args...), p.ref.do(args...)
				gn, _ := strconv.Atoi(strings.TrimSpace(g[1:]))
				wn, _ := strconv.Atoi(strings.TrimSpace(w[1:]))
				if g[0] != ':' || gn < wn-2 || gn > wn+2 {
					t.Errorf("%q: got %q, want about %q", args, g, w)
				}
				continue
			}
			p.both(t, args...)
		}
	}
}
