#!/usr/bin/env bash
# benchmarks/goals.sh — one command that measures every performance goal of
# issue #4, loopkv side by side with redis-server 7 (Debian) in the same run.
#
# Both servers use TLS 1.3, TLS_AES_128_GCM_SHA256 (pinned on each server),
# X25519 (offered alone by loopkv-bench; OpenSSL's redis-benchmark offers it
# first) and one ECDSA P-256 certificate. Each server runs on SERVER_CPU (0),
# loopkv with one loop; every load generator runs on CLIENT_CPU (1). Runs
# alternate loopkv, redis, loopkv, redis ... REPS times; figures are medians.
#
#   G1  server CPU per SET, 50 clients, pipeline 1, TLS      ≤ 0.75× redis
#   G2  the same at pipeline 16                             ≤ 0.5× redis
#   G2u/G2k  at pipeline 16 over TLS, user CPU per SET ≤ 0.4× redis's, kernel
#       CPU per SET ≤ redis's (utime and stime apart); with system calls and
#       context switches per SET for both servers (issue #16)
#   G3  loopkv's TLS over its plaintext CPU per op          ≤ 1.15 (redis-benchmark
#       at pipelines 1 and 16, and loopkv-bench's open loop at RATE, equal load)
#   G4  RSS per idle TLS connection at CONN_COUNT (10,000), fresh servers  ≤ 4 KiB
#   G5  server CPU per full handshake (churn, 16 workers)   ≤ 0.5× redis, and below
#       crypto/tls's (a stdlib TLS server built here, CRYPTOTLS=1; else the issue's 250 µs)
#   G6  server threads during a storm of ≥ 10,000 handshakes ≤ loops + 6
#   G7  p99 of established clients during the storm        ≤ 2× before it
#
# Writes OUT/goals-<UTC date-time>.md (table, commands, machine, commit) and
# beside it the raw runs (.jsonl from loopkv-bench, .csv from redis-benchmark,
# thread samples). Stops only the processes it started, by PID.
#
#   benchmarks/goals.sh               # the study, ~6-7 minutes on an idle 2-CPU machine
#   QUICK=1 benchmarks/goals.sh       # a ~2-minute smoke run (shows the tool works, not who wins)
#
# Knobs (environment): REPS=3 P1_REQUESTS=200000 P16_REQUESTS=2000000 CLIENTS=50
# RATE=20000 RATE_DURATION=5s CONN_COUNT=10000 SETTLE=5s CHURN_DURATION=8s
# CHURN_WORKERS=16 STORM_DURATION=13s STORM_RATE=5000 STORM_WORKERS=4 STORM_REPS=REPS
# CRYPTOTLS=1 SERVER_CPU=0 CLIENT_CPU=1 BIN=bin OUT=benchmarks/results GO=go
# PERF=0 (1: count every system call and context switch of the servers with
# `perf stat` during the redis-benchmark runs; its tracepoint adds a little
# kernel time to both servers, so the CPU rows come from PERF=0 runs)
# RUN_TIMEOUT=300 (seconds; a load generator run that exceeds it is killed and
# recorded as failed, so a stuck server cannot hang the study)
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ${QUICK:-0} == 1 ]]; then
	: "${REPS:=1}" "${P1_REQUESTS:=50000}" "${P16_REQUESTS:=500000}" "${RATE_DURATION:=2s}"
	: "${CONN_COUNT:=5000}" "${SETTLE:=2s}" "${CHURN_DURATION:=3s}" "${STORM_DURATION:=6s}"
fi
REPS=${REPS:-3}
P1_REQUESTS=${P1_REQUESTS:-200000}
P16_REQUESTS=${P16_REQUESTS:-2000000}
CLIENTS=${CLIENTS:-50}
RATE=${RATE:-20000}
RATE_DURATION=${RATE_DURATION:-5s}
CONN_COUNT=${CONN_COUNT:-10000}
SETTLE=${SETTLE:-5s}
CHURN_DURATION=${CHURN_DURATION:-8s}
CHURN_WORKERS=${CHURN_WORKERS:-16}
STORM_DURATION=${STORM_DURATION:-13s}
STORM_RATE=${STORM_RATE:-5000}
STORM_WORKERS=${STORM_WORKERS:-4}
STORM_REPS=${STORM_REPS:-$REPS}
CRYPTOTLS=${CRYPTOTLS:-1}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
BIN=${BIN:-bin}
OUT=${OUT:-benchmarks/results}
GO=${GO:-go}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
PERF=${PERF:-0}
LOOPS=1
SUITE=TLS_AES_128_GCM_SHA256

# Processes we start, and only those, are stopped on exit (benchmarks/lib.sh:
# log, die, need, stop, note, cmdlog, launch, cpu_ticks, build_bins).
NAME=goals
# shellcheck source=benchmarks/lib.sh
source benchmarks/lib.sh
need redis-server redis-benchmark taskset timeout openssl python3
[[ $(nproc --all) -ge 2 ]] || die "needs 2 CPUs (server on $SERVER_CPU, load on $CLIENT_CPU)"

# Every connection is a descriptor in the server and in the load generator:
# raise the soft limit as far as the hard limit allows (an unprivileged
# container, root or not, cannot raise the hard limit).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
NOFILE=$(ulimit -n)
if [[ $NOFILE != unlimited && $NOFILE -lt $((CONN_COUNT + 256)) ]]; then
	log "warning: open files limit $NOFILE < CONN_COUNT+256; G4 measures $((NOFILE - 256)) connections"
	CONN_COUNT=$((NOFILE - 256))
fi

# --- build, certificates, ports -------------------------------------------------
START=$(date -u +%s)
STEM=goals-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
MD=$OUT/$STEM.md JSONL=$OUT/$STEM.jsonl CSV=$OUT/$STEM.csv THREADS=$OUT/$STEM-threads.csv
: >"$JSONL"
echo "scenario,label,rep,pipeline,tls,requests,rps,server_cpu_ticks,server_cpu_us_per_op,utime_ticks,stime_ticks,syscr,syscw,voluntary_cs,nonvoluntary_cs,perf_syscalls,perf_cs" >"$CSV"
echo "label,rep,max_threads,samples" >"$THREADS"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
build_bins

# A crypto/tls server (standard library, written here) answering +PONG to
# every command, the reference for G5's "below crypto/tls".
CRYPTOTLS_BIN=""
if [[ $CRYPTOTLS == 1 ]]; then
	mkdir -p "$WORK/cryptotls"
	printf 'module goalscryptotls\n\ngo 1.26\n' >"$WORK/cryptotls/go.mod"
	cat >"$WORK/cryptotls/main.go" <<'GO'
// Command goalscryptotls is a TLS 1.3 server on crypto/tls that answers
// +PONG to every RESP command: the crypto/tls reference of goals.sh G5.
package main

import (
	"bufio"
	"crypto/tls"
	"log"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	cert, err := tls.LoadX509KeyPair(os.Args[2], os.Args[3])
	if err != nil {
		log.Fatal(err)
	}
	cfg := &tls.Config{
		Certificates:     []tls.Certificate{cert},
		MinVersion:       tls.VersionTLS13,
		CurvePreferences: []tls.CurveID{tls.X25519},
	}
	ln, err := tls.Listen("tcp", os.Args[1], cfg)
	if err != nil {
		log.Fatal(err)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		go serve(c)
	}
}

// serve reads RESP arrays of bulk strings (or inline lines) and answers
// each with +PONG.
func serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		if strings.HasPrefix(line, "*") {
			n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
			for range n {
				h, err := r.ReadString('\n')
				if err != nil {
					return
				}
				l, _ := strconv.Atoi(strings.TrimSpace(h[1:]))
				if _, err := r.Discard(l + 2); err != nil {
					return
				}
			}
		}
		if _, err := c.Write([]byte("+PONG\r\n")); err != nil {
			return
		}
	}
}
GO
	(cd "$WORK/cryptotls" && GOFLAGS= $GO build -o goalscryptotls .) && CRYPTOTLS_BIN=$WORK/cryptotls/goalscryptotls ||
		log "warning: the crypto/tls reference did not build; G5 compares with the issue's 250 µs"
fi

$BENCH certs -dir "$WORK" >/dev/null
CA=$WORK/ca.pem CERT=$WORK/server.pem KEY=$WORK/server-key.pem
mapfile -t PORTS < <($BENCH ports 5)
LK_PORT=${PORTS[0]} LK_TLS=${PORTS[1]} RD_PORT=${PORTS[2]} RD_TLS=${PORTS[3]} CT_TLS=${PORTS[4]}
PIN_SERVER=(taskset -c "$SERVER_CPU")
PIN_CLIENT=(taskset -c "$CLIENT_CPU" timeout "$RUN_TIMEOUT")

# --- servers ---------------------------------------------------------------------
LK_PID=0 RD_PID=0 CT_PID=0
start_loopkv() {
	launch loopkv "$LK_PORT" "$LK_TLS" "${PIN_SERVER[@]}" "$BIN/loopkv" --bind 127.0.0.1 \
		--port "$LK_PORT" --tls-port "$LK_TLS" --tls-cert-file "$CERT" --tls-key-file "$KEY" \
		--tls-ciphersuites "$SUITE" --tls-protocols TLSv1.3 --loops "$LOOPS" --maxclients 20000 \
		--loglevel warning --save '' --dir "$WORK"
	LK_PID=$LAUNCHED
}
start_redis() {
	launch redis "$RD_PORT" "$RD_TLS" "${PIN_SERVER[@]}" redis-server --bind 127.0.0.1 \
		--port "$RD_PORT" --tls-port "$RD_TLS" --tls-cert-file "$CERT" --tls-key-file "$KEY" \
		--tls-ca-cert-file "$CA" --tls-auth-clients no --tls-ciphersuites "$SUITE" \
		--tls-protocols TLSv1.3 --save '' --appendonly no --maxclients 20000 --loglevel warning \
		--dir "$WORK"
	RD_PID=$LAUNCHED
}
start_cryptotls() {
	local cmd=("${PIN_SERVER[@]}" "$CRYPTOTLS_BIN" "127.0.0.1:$CT_TLS" "$CERT" "$KEY")
	note "${cmd[@]}"
	"${cmd[@]}" >>"$WORK/cryptotls.log" 2>&1 &
	CT_PID=$!
	PIDS+=("$CT_PID")
	$BENCH probe -addr "127.0.0.1:$CT_TLS" -tls -tls-ca "$CA" -wait 10s >/dev/null ||
		{ tail -5 "$WORK/cryptotls.log" >&2; die "the crypto/tls reference did not start"; }
}

# bench MODE LABEL SCENARIO PID ADDR TLS ARGS...: one loopkv-bench run on
# CLIENT_CPU, appended to JSONL; a failure is recorded and the study goes on.
bench() {
	local mode=$1 label=$2 scenario=$3 pid=$4 addr=$5 tls=$6
	shift 6
	local args=(-label "$label" -scenario "$scenario" -rep "$REP" -json "$JSONL" -pid "$pid"
		-addr "$addr" -progress=false)
	[[ $tls == 1 ]] && args+=(-tls -tls-ca "$CA" -tls-groups x25519)
	log "rep $REP $scenario $label"
	local rc=0
	cmdlog "${PIN_CLIENT[@]}" "$BENCH" "$mode" "${args[@]}" "$@" || rc=$?
	bench_rc "$rc" "$mode" "$label" "$scenario"
}

# rb LABEL PID PORT TLS PIPELINE REQUESTS: one redis-benchmark SET run on
# CLIENT_CPU; server CPU = utime+stime delta over the requests, with user and
# kernel time, read-like and write-like system calls and context switches
# apart (proc_counters), and with PERF=1 perf's count of all system calls.
rb() {
	local label=$1 pid=$2 port=$3 tls=$4 pl=$5 n=$6 extra=() before after rps pf=$WORK/perf.csv counts=(- -)
	[[ $tls == 1 ]] && extra=(--tls --cacert "$CA")
	log "rep $REP redis-benchmark P$pl $([[ $tls == 1 ]] && echo tls || echo plain) $label"
	before=$(proc_counters "$pid")
	[[ $PERF == 1 ]] && perf_start "$pid" "$pf"
	rps=$(cmdlog "${PIN_CLIENT[@]}" redis-benchmark -h 127.0.0.1 -p "$port" "${extra[@]}" -c "$CLIENTS" \
		-n "$n" -P "$pl" -t set --csv -q 2>/dev/null | awk -F'","' 'NR==2{print $2}') || true
	if [[ $PERF == 1 ]]; then
		perf_stop "$pf"
		read -ra counts <<<"$PERF_COUNTS"
	fi
	after=$(proc_counters "$pid")
	awk -v s="rb-$([[ $tls == 1 ]] && echo tls || echo plain)-p$pl" -v l="$label" -v r="$REP" -v pl="$pl" \
		-v t="$tls" -v n="$n" -v rps="$rps" -v b="$before" -v a="$after" -v ps="${counts[0]}" -v pc="${counts[1]}" \
		'BEGIN{split(b, x, " "); split(a, y, " "); for (i = 1; i <= 6; i++) d[i] = y[i] - x[i]
		printf "%s,%s,%s,%s,%s,%s,%s,%d,%.4f,%d,%d,%d,%d,%d,%d,%s,%s\n", s, l, r, pl, t, n, rps, d[1] + d[2],
			(d[1] + d[2]) * 1e4 / n, d[1], d[2], d[3], d[4], d[5], d[6], ps, pc}' >>"$CSV"
}

# sample_threads PID FILE: the server's thread count every 100 ms until killed.
sample_threads() {
	local k v _
	while [[ -r /proc/$1/status ]]; do
		while read -r k v _; do
			[[ $k == Threads: ]] && echo "$v"
		done <"/proc/$1/status" >>"$2" 2>/dev/null || true
		sleep 0.1
	done
}

# storm LABEL PID PORT: the storm on CLIENT_CPU with the server's threads
# sampled meanwhile (the sampler is pinned there too).
storm() {
	local label=$1 pid=$2 port=$3 sp f=$WORK/threads-$1-$REP max
	: >"$f"
	sample_threads "$pid" "$f" &
	sp=$!
	PIDS+=("$sp")
	taskset -cp "$CLIENT_CPU" "$sp" >/dev/null 2>&1 || true
	bench storm "$label" storm "$pid" "127.0.0.1:$port" 1 -conns 10 -rate "$STORM_RATE" \
		-duration "$STORM_DURATION" -storm-workers "$STORM_WORKERS"
	stop "$sp"
	max=$(sort -n "$f" | tail -1)
	echo "$label,$REP,${max:-},$(wc -l <"$f")" >>"$THREADS"
}

# tlsinfo NAME PORT: what an OpenSSL client offering its defaults (as
# redis-benchmark does) negotiates with the server.
tlsinfo() {
	local o
	o=$(openssl s_client -connect "127.0.0.1:$2" -CAfile "$CA" -brief </dev/null 2>&1 || true)
	printf '%s: %s\n' "$1" "$(grep -E 'Protocol version|Ciphersuite|Signature type|Server Temp Key|Verification' <<<"$o" |
		sed 's/^ *//' | paste -sd';' - | sed 's/;/; /g')" >>"$WORK/tlsinfo"
}

# --- G4: idle TLS connections on fresh servers -------------------------------------
log "G4: $CONN_COUNT idle TLS connections, fresh servers, settle $SETTLE"
start_loopkv
bench conns loopkv conns-tls "$LK_PID" "127.0.0.1:$LK_TLS" 1 -steps "0,$CONN_COUNT" -settle "$SETTLE"
stop "$LK_PID"
start_redis
bench conns redis conns-tls "$RD_PID" "127.0.0.1:$RD_TLS" 1 -steps "0,$CONN_COUNT" -settle "$SETTLE"
stop "$RD_PID"

# --- G1, G2, G3, G5, G6, G7 on one pair of servers ----------------------------------
start_loopkv
start_redis
[[ -z $CRYPTOTLS_BIN ]] || start_cryptotls
: >"$WORK/tlsinfo"
tlsinfo loopkv "$LK_TLS"
tlsinfo redis "$RD_TLS"
[[ -z $CRYPTOTLS_BIN ]] || tlsinfo crypto/tls "$CT_TLS"

for REP in $(seq 1 "$REPS"); do
	for pl in 1 16; do
		n=$P1_REQUESTS
		[[ $pl == 16 ]] && n=$P16_REQUESTS
		rb loopkv "$LK_PID" "$LK_TLS" 1 "$pl" "$n"
		rb redis "$RD_PID" "$RD_TLS" 1 "$pl" "$n"
		rb loopkv "$LK_PID" "$LK_PORT" 0 "$pl" "$n"
		rb redis "$RD_PID" "$RD_PORT" 0 "$pl" "$n"
	done
	for tls in 1 0; do
		sc=rate-$([[ $tls == 1 ]] && echo tls || echo plain)
		lp=$LK_PORT rp=$RD_PORT
		[[ $tls == 1 ]] && lp=$LK_TLS rp=$RD_TLS
		for t in loopkv redis; do
			if [[ $t == loopkv ]]; then pid=$LK_PID port=$lp; else pid=$RD_PID port=$rp; fi
			bench throughput "$t" "$sc" "$pid" "127.0.0.1:$port" "$tls" -rate "$RATE" -conns "$CLIENTS" \
				-pipeline 1 -mix set=1 -value-size 3 -preload=false -duration "$RATE_DURATION"
		done
	done
	bench churn loopkv churn "$LK_PID" "127.0.0.1:$LK_TLS" 1 -workers "$CHURN_WORKERS" -duration "$CHURN_DURATION"
	bench churn redis churn "$RD_PID" "127.0.0.1:$RD_TLS" 1 -workers "$CHURN_WORKERS" -duration "$CHURN_DURATION"
	[[ -z $CRYPTOTLS_BIN ]] ||
		bench churn crypto/tls churn "$CT_PID" "127.0.0.1:$CT_TLS" 1 -workers "$CHURN_WORKERS" -duration "$CHURN_DURATION"
	if [[ $REP -le $STORM_REPS ]]; then
		storm loopkv "$LK_PID" "$LK_TLS"
		storm redis "$RD_PID" "$RD_TLS"
	fi
done

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
ELAPSED=$(($(date -u +%s) - START))

# --- report -------------------------------------------------------------------------
export MD JSONL CSV THREADS CMDS COMMIT LOAD_BEFORE LOAD_AFTER ELAPSED REPS STORM_REPS LOOPS CONN_COUNT \
	SETTLE RATE CLIENTS STORM_DURATION SUITE NOFILE
export TLSINFO=$WORK/tlsinfo QUICK=${QUICK:-0} HAVE_CRYPTOTLS=$([[ -n $CRYPTOTLS_BIN ]] && echo 1 || echo 0)
export MACHINE="$(machine)" VERSIONS="$(versions)"
python3 - <<'PY'
import csv, json, os, sys

sys.path.insert(0, "benchmarks")
from benchlib import fmt, med, ratio, rng, write_commands, write_header

E = os.environ
runs = [json.loads(l) for l in open(E["JSONL"]) if l.strip()]
rbs = list(csv.DictReader(open(E["CSV"])))
thr = list(csv.DictReader(open(E["THREADS"])))

def ok(r):
    return not r.get("unavailable")

def rb(scenario, label):
    return [float(r["server_cpu_us_per_op"]) for r in rbs
            if r["scenario"] == scenario and r["label"] == label and r["rps"]]

def js(mode, scenario, label, f):
    return [f(r) for r in runs if r["mode"] == mode and r.get("scenario") == scenario
            and r.get("label") == label and ok(r)]

def met(x, limit):
    return "n/a" if x is None else ("**yes**" if x <= limit else "**no**")

rows, detail = [], []

def add(goal, what, lk, rd, rt, limit_text, verdict):
    rows.append(f"| {goal} | {what} | {lk} | {rd} | {fmt(rt)} | {limit_text} | {verdict} |")

def cpu_row(goal, scen, limit):
    lk, rd = med(rb(scen, "loopkv")), med(rb(scen, "redis"))
    r = ratio(lk, rd)
    add(goal, f"µs server CPU per SET, redis-benchmark {scen[3:]}", fmt(lk, " µs"), fmt(rd, " µs"),
        r, f"≤ {limit}× redis", met(r, limit))

cpu_row("G1", "rb-tls-p1", 0.75)
cpu_row("G2", "rb-tls-p16", 0.5)

def rbper(scenario, label, f):
    """f(row) / requests for every redis-benchmark run that gave a result;
    ticks are turned into µs (10 ms each)."""
    out = []
    for r in rbs:
        if r["scenario"] == scenario and r["label"] == label and r["rps"] and r.get(f, "-") not in ("", "-"):
            v = float(r[f]) * (1e4 if f.endswith("_ticks") else 1) / float(r["requests"])
            out.append(v)
    # Context switches are summed over the threads alive at each end of the run
    # (/proc/PID/task/*/status); a thread that exits in between takes its count
    # with it and the delta can go negative. Such a row is unknown, not small:
    # PERF=1 counts every thread.
    if f.endswith("_cs") and any(v < 0 for v in out):
        return []
    return out

for goal, f, what, limit in (("G2u", "utime_ticks", "user", 0.4), ("G2k", "stime_ticks", "kernel", 1.0)):
    lk, rd = med(rbper("rb-tls-p16", "loopkv", f)), med(rbper("rb-tls-p16", "redis", f))
    r = ratio(lk, rd)
    add(goal, f"µs {what} CPU per SET, redis-benchmark tls-p16", fmt(lk, " µs"), fmt(rd, " µs"), r,
        f"≤ {limit}× redis", met(r, limit))

for pl in ("1", "16"):
    lt, lp = med(rb(f"rb-tls-p{pl}", "loopkv")), med(rb(f"rb-plain-p{pl}", "loopkv"))
    rt_, rp = med(rb(f"rb-tls-p{pl}", "redis")), med(rb(f"rb-plain-p{pl}", "redis"))
    r = ratio(lt, lp)
    add("G3", f"TLS / plaintext CPU per SET, redis-benchmark p{pl}", f"{fmt(lt)} / {fmt(lp)} µs",
        f"{fmt(rt_)} / {fmt(rp)} µs (×{fmt(ratio(rt_, rp))})", r, "≤ 1.15 (loopkv)", met(r, 1.15))

cpu = lambda r: r["server_cpu_per_op_us"] if r["server_cpu_per_op_us"] >= 0 else None
ach = lambda r: r["ops_per_s"]
lt, lp = med(js("throughput", "rate-tls", "loopkv", cpu)), med(js("throughput", "rate-plain", "loopkv", cpu))
rt_, rp = med(js("throughput", "rate-tls", "redis", cpu)), med(js("throughput", "rate-plain", "redis", cpu))
r = ratio(lt, lp)
add("G3", f"TLS / plaintext CPU per SET, open loop {int(float(E['RATE']))}/s, {E['CLIENTS']} conns, p1",
    f"{fmt(lt)} / {fmt(lp)} µs", f"{fmt(rt_)} / {fmt(rp)} µs (×{fmt(ratio(rt_, rp))})", r,
    "≤ 1.15 (loopkv)", met(r, 1.15))
short = [f"{x['label']} {x['scenario']} rep {x['rep']}: {x['ops_per_s']:.0f}/s"
         for x in runs if x["mode"] == "throughput" and ok(x) and x["ops_per_s"] < 0.97 * float(E["RATE"])]

def per_conn(r):
    s = r.get("steps") or []
    if len(s) < 2 or s[0]["rss_kb"] <= 0:
        return None
    return (s[-1]["rss_kb"] - s[0]["rss_kb"]) / (s[-1]["conns"] - s[0]["conns"])

lk, rd = med(js("conns", "conns-tls", "loopkv", per_conn)), med(js("conns", "conns-tls", "redis", per_conn))
add("G4", f"KiB RSS per idle TLS connection at {E['CONN_COUNT']} (fresh server, settle {E['SETTLE']})",
    fmt(lk, " KiB"), fmt(rd, " KiB"), ratio(lk, rd), "≤ 4 KiB (loopkv)", met(lk, 4.0))

hs = lambda r: r["server_cpu_per_handshake_us"] if r.get("server_cpu_per_handshake_us", -1) >= 0 else None
lk, rd = med(js("churn", "churn", "loopkv", hs)), med(js("churn", "churn", "redis", hs))
r = ratio(lk, rd)
add("G5", "µs server CPU per full handshake (churn, 16 workers)", fmt(lk, " µs"), fmt(rd, " µs"), r,
    "≤ 0.5× redis", met(r, 0.5))
ct = med(js("churn", "churn", "crypto/tls", hs)) if E["HAVE_CRYPTOTLS"] == "1" else None
ref, src = (ct, "crypto/tls server measured here") if ct is not None else (250.0, "the issue's crypto/tls figure")
add("G5", f"… and below crypto/tls ({src})", fmt(lk, " µs"), f"crypto/tls: {fmt(ref, ' µs')}",
    ratio(lk, ref), "< 1× crypto/tls", "n/a" if lk is None else ("**yes**" if lk < ref else "**no**"))

mt = lambda lab: [int(x["max_threads"]) for x in thr if x["label"] == lab and x["max_threads"]]
lkt, rdt = mt("loopkv"), mt("redis")
lim = int(E["LOOPS"]) + 6
add("G6", f"max server threads during the storm ({E['LOOPS']} loop)", str(max(lkt)) if lkt else "n/a",
    str(max(rdt)) if rdt else "n/a", None, f"≤ {lim} (loopkv)", met(max(lkt) if lkt else None, lim))

p99 = lambda ph: (lambda r: r["storm"][ph]["p99_us"] if r.get("storm") else None)
def storm_ratio(r):
    s = r.get("storm")
    return s["during"]["p99_us"] / s["before"]["p99_us"] if s and s["before"]["p99_us"] > 0 else None
lk, rd = med(js("storm", "storm", "loopkv", storm_ratio)), med(js("storm", "storm", "redis", storm_ratio))
lb, ld = med(js("storm", "storm", "loopkv", p99("before"))), med(js("storm", "storm", "loopkv", p99("during")))
rb_, rd_ = med(js("storm", "storm", "redis", p99("before"))), med(js("storm", "storm", "redis", p99("during")))
add("G7", "p99 during / before the storm (steady clients)",
    f"×{fmt(lk)} ({fmt(ld and ld / 1000)} / {fmt(lb and lb / 1000)} ms)",
    f"×{fmt(rd)} ({fmt(rd_ and rd_ / 1000)} / {fmt(rb_ and rb_ / 1000)} ms)", None, "≤ 2× (loopkv)", met(lk, 2.0))

# Detail: every repetition.
det = ["| run | label | values per repetition | median | min–max |", "|---|---|---|---|---|"]
def drow(name, label, xs, unit=""):
    if xs:
        det.append(f"| {name} | {label} | {', '.join(fmt(x) for x in xs)} | {fmt(med(xs), unit)} | {rng(xs)} |")
for scen in ("rb-tls-p1", "rb-plain-p1", "rb-tls-p16", "rb-plain-p16"):
    for lab in ("loopkv", "redis"):
        drow(f"{scen} µs CPU/op", lab, rb(scen, lab))
        drow(f"{scen} req/s", lab, [float(r["rps"]) for r in rbs if r["scenario"] == scen and r["label"] == lab and r["rps"]])
counters = (("utime_ticks", "µs user CPU/op"), ("stime_ticks", "µs kernel CPU/op"), ("syscr", "read-like syscalls/op"),
            ("syscw", "write-like syscalls/op"), ("voluntary_cs", "voluntary context switches/op"),
            ("nonvoluntary_cs", "involuntary context switches/op"), ("perf_syscalls", "all syscalls/op (perf)"),
            ("perf_cs", "context switches/op (perf)"))
ctab = ["| redis-benchmark run | counter | loopkv (median, min–max) | redis (median, min–max) | ratio |",
        "|---|---|---|---|---|"]
for scen in ("rb-tls-p1", "rb-plain-p1", "rb-tls-p16", "rb-plain-p16"):
    for f, what in counters:
        lk, rd = rbper(scen, "loopkv", f), rbper(scen, "redis", f)
        if lk or rd:
            ml, mr = med(lk), med(rd)
            p = lambda x: "n/a" if x is None else (f"{x:.3f}" if abs(x) < 10 else fmt(x))
            ctab.append(f"| {scen} | {what} | {p(ml)} ({rng(lk)}) | {p(mr)} ({rng(rd)}) | {fmt(ratio(ml, mr))} |")
for scen in ("rate-tls", "rate-plain"):
    for lab in ("loopkv", "redis"):
        drow(f"{scen} µs CPU/op", lab, js("throughput", scen, lab, cpu))
        drow(f"{scen} achieved ops/s", lab, js("throughput", scen, lab, ach))
        drow(f"{scen} p99 ms", lab, js("throughput", scen, lab, lambda r: r["latency"]["p99_us"] / 1000))
for lab in ("loopkv", "redis"):
    drow("conns-tls KiB/conn", lab, js("conns", "conns-tls", lab, per_conn))
    drow("conns-tls RSS KiB at 0", lab, js("conns", "conns-tls", lab, lambda r: r["steps"][0]["rss_kb"] if r.get("steps") else None))
for lab in ("loopkv", "redis", "crypto/tls"):
    drow("churn µs CPU/handshake", lab, js("churn", "churn", lab, hs))
    drow("churn handshakes/s", lab, js("churn", "churn", lab, lambda r: r["handshakes_per_s"]))
for lab in ("loopkv", "redis"):
    drow("storm handshakes (middle third)", lab, js("storm", "storm", lab, lambda r: r.get("handshakes", 0)))
    for ph in ("before", "during", "after"):
        drow(f"storm p99 {ph} ms", lab, js("storm", "storm", lab, lambda r, ph=ph: r["storm"][ph]["p99_us"] / 1000))
        drow(f"storm ops/s {ph}", lab, js("storm", "storm", lab, lambda r, ph=ph: r["storm"][f"{ph}_ops_per_s"]))
    drow("storm max threads", lab, [float(x) for x in mt(lab)])

def storm_hs(lab):
    return [r.get("handshakes", 0) for r in runs if r["mode"] == "storm" and ok(r) and r.get("label") == lab]
lkh, rdh = storm_hs("loopkv"), storm_hs("redis")
storm_note = (f"Storm handshakes in the middle third, loopkv: {', '.join(map(str, lkh)) or 'none'} "
              f"(≥ 10,000 in every run, as G6 needs: {'yes' if lkh and min(lkh) >= 10000 else '**no**'}); "
              f"redis: {', '.join(map(str, rdh)) or 'none'}.")
failed = [f"{r.get('label')} {r.get('scenario')} rep {r.get('rep')}: {r['unavailable']}" for r in runs if not ok(r)]
failed += [f"{r['label']} {r['scenario']} rep {r['rep']}: redis-benchmark gave no result" for r in rbs if not r["rps"]]
tlsi = sorted({r.get("tls_info", "") for r in runs if r.get("tls") and r.get("tls_info")})

with open(E["MD"], "w") as f:
    w = lambda s="": print(s, file=f)
    write_header(w, "Issue #4 goals — loopkv vs redis-server", "benchmarks/goals.sh", E,
                 f"REPS={E['REPS']} (storm {E['STORM_REPS']}); open files {E['NOFILE']}.")
    w()
    w("Servers on CPU 0 (loopkv `--loops 1`), load generators on CPU 1; TLS 1.3, "
      f"{E['SUITE']} pinned on every server, X25519, one ECDSA P-256 certificate. Medians over repetitions; "
      "ratio = loopkv / redis (below 1 favours loopkv).")
    w()
    w("| goal | measure | loopkv | redis | ratio | goal | met? |")
    w("|---|---|---|---|---|---|---|")
    for r in rows:
        w(r)
    w()
    w(storm_note)
    if short:
        w()
        w("Open-loop runs that fell short of the offered rate (the load generator or the server was saturated; "
          "their CPU per op is not at equal load): " + "; ".join(short) + ".")
    if failed:
        w()
        w("Failed or unavailable runs: " + "; ".join(failed) + ".")
    w()
    w("Negotiated (OpenSSL client offering its defaults, as redis-benchmark does):")
    w()
    for l in open(E["TLSINFO"]):
        w(f"- {l.strip()}")
    for t in tlsi:
        w(f"- loopkv-bench (Go crypto/tls client, X25519 only): {t}")
    w()
    w("## User and kernel CPU, system calls and context switches per SET (redis-benchmark runs)")
    w()
    w("utime and stime from /proc/PID/stat (10 ms ticks), syscr and syscw from /proc/PID/io (read-like and "
      "write-like calls only: epoll_wait, accept and the like are not counted there), context switches summed over "
      "/proc/PID/task/*/status (n/a, or no row, when a thread exited during a run and took its count with it); "
      "the perf rows only with PERF=1.")
    w()
    for c in ctab:
        w(c)
    w()
    w("## Every repetition")
    w()
    for d in det:
        w(d)
    w()
    write_commands(w, open(E["CMDS"]))
    w()
    w("Server CPU = utime+stime from /proc/PID/stat (10 ms ticks): for redis-benchmark the delta over the run "
      "divided by -n; loopkv-bench reports its own (`server_cpu_per_op_us`, `server_cpu_per_handshake_us`). "
      "G4: (RSS at the last step − RSS at 0) / connections. G6: /proc/PID/status Threads every 100 ms during the whole "
      "storm run (max). G7: p99 of the steady clients by intended send time, middle third / first third.")
print(open(E["MD"]).read())
PY
log "report: $MD (raw: $JSONL $CSV $THREADS)"
