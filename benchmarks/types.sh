#!/usr/bin/env bash
# benchmarks/types.sh — issue 12's type benchmarks: `redis-benchmark -t
# hset,sadd,spop` at pipelines 1 and 16, plaintext and TLS, against loopkv and
# redis-server 7 (Debian) in the same run. Goal: loopkv's server CPU per
# operation ≤ 0.7× redis's.
#
# Setup as goals.sh: both servers on SERVER_CPU (0) — loopkv `--loops 1`,
# built with -tags poll_opt; redis `--save '' --appendonly no` — and
# redis-benchmark on CLIENT_CPU (1); TLS 1.3 with TLS_AES_128_GCM_SHA256
# pinned on each server and one ECDSA P-256 certificate from `loopkv-bench
# certs` (redis-benchmark --tls --cacert). Each test runs alone (`-t sadd`,
# then `-t hset`, then `-t spop`, so SPOP finds what SADD added) with CLIENTS
# (50) clients; server CPU per op = the server's utime+stime delta
# (/proc/PID/stat, 10 ms ticks) over the run / -n. Runs alternate loopkv,
# redis, REPS times; the table shows medians. A command loopkv does not know
# yet (checked with redis-cli first) is recorded as n/a, not run.
#
# Writes OUT/types-<UTC date-time>.md and the raw runs beside it (.csv).
# Stops only the processes it started, by PID; every run is bounded by
# RUN_TIMEOUT; only 127.0.0.1 is used.
#
#   benchmarks/types.sh             # REPS=3, ~5 minutes on an idle 2-CPU machine
#   QUICK=1 benchmarks/types.sh     # a ~1-minute smoke run
#
# Knobs (environment): REPS=3 TESTS="sadd hset spop" PIPELINES="1 16"
# TRANSPORTS="plain tls" P1_REQUESTS=100000 P16_REQUESTS=1000000 CLIENTS=50
# KEYSPACE= (redis-benchmark -r; empty: none, as the issue's command)
# RUN_TIMEOUT=300 SERVER_CPU=0 CLIENT_CPU=1 BIN=bin OUT=benchmarks/results GO=go
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=types
# shellcheck source=benchmarks/lib.sh
source benchmarks/lib.sh

if [[ ${QUICK:-0} == 1 ]]; then
	: "${REPS:=1}" "${P1_REQUESTS:=20000}" "${P16_REQUESTS:=200000}"
fi
REPS=${REPS:-3}
TESTS=${TESTS:-sadd hset spop}
PIPELINES=${PIPELINES:-1 16}
TRANSPORTS=${TRANSPORTS:-plain tls}
P1_REQUESTS=${P1_REQUESTS:-100000}
P16_REQUESTS=${P16_REQUESTS:-1000000}
CLIENTS=${CLIENTS:-50}
KEYSPACE=${KEYSPACE:-}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
BIN=${BIN:-bin}
OUT=${OUT:-benchmarks/results}
GO=${GO:-go}
SUITE=TLS_AES_128_GCM_SHA256

need redis-server redis-cli redis-benchmark taskset timeout openssl python3
[[ $(nproc --all) -ge 2 ]] || die "needs 2 CPUs (server on $SERVER_CPU, load on $CLIENT_CPU)"

START=$(date -u +%s)
STEM=types-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
CSV=$OUT/$STEM.csv
echo "label,rep,test,pipeline,transport,requests,rps,server_cpu_ticks,server_cpu_us_per_op" >"$CSV"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
log "load average $LOAD_BEFORE"
build_bins
$BENCH certs -dir "$WORK" >/dev/null
CA=$WORK/ca.pem CERT=$WORK/server.pem KEY=$WORK/server-key.pem
mapfile -t PORTS < <($BENCH ports 4)
LK_PORT=${PORTS[0]} LK_TLS=${PORTS[1]} RD_PORT=${PORTS[2]} RD_TLS=${PORTS[3]}
PIN_SERVER=(taskset -c "$SERVER_CPU")
PIN_CLIENT=(taskset -c "$CLIENT_CPU" timeout "$RUN_TIMEOUT")

launch loopkv "$LK_PORT" "$LK_TLS" "${PIN_SERVER[@]}" "$BIN/loopkv" --bind 127.0.0.1 --port "$LK_PORT" --tls-port "$LK_TLS" \
	--tls-cert-file "$CERT" --tls-key-file "$KEY" --tls-ciphersuites "$SUITE" --tls-protocols TLSv1.3 --loops 1 \
	--loglevel warning --save '' --dir "$WORK"
LK_PID=$LAUNCHED
launch redis "$RD_PORT" "$RD_TLS" "${PIN_SERVER[@]}" redis-server --bind 127.0.0.1 --port "$RD_PORT" --tls-port "$RD_TLS" \
	--tls-cert-file "$CERT" --tls-key-file "$KEY" --tls-ca-cert-file "$CA" --tls-auth-clients no \
	--tls-ciphersuites "$SUITE" --tls-protocols TLSv1.3 --save '' --appendonly no --loglevel warning --dir "$WORK"
RD_PID=$LAUNCHED

# The commands loopkv answers (an unknown one is skipped for loopkv).
declare -A LK_HAS
declare -A probe_args=([sadd]="SADD types:probe m" [hset]="HSET types:probe f v" [spop]="SPOP types:probe")
for t in $TESTS; do
	redis-cli -h 127.0.0.1 -p "$LK_PORT" DEL types:probe >/dev/null
	# shellcheck disable=SC2086
	if redis-cli -h 127.0.0.1 -p "$LK_PORT" ${probe_args[$t]} 2>&1 | grep -q "ERR unknown command"; then
		LK_HAS[$t]=0
		log "warning: loopkv does not know ${t^^}; its rows are n/a"
	else
		LK_HAS[$t]=1
	fi
done
redis-cli -h 127.0.0.1 -p "$LK_PORT" DEL types:probe >/dev/null

# rb LABEL PID PORT TRANSPORT PIPELINE REQUESTS TEST: one redis-benchmark run
# on CLIENT_CPU; server CPU = utime+stime delta over the requests.
rb() {
	local label=$1 pid=$2 port=$3 tr=$4 pl=$5 n=$6 test=$7 extra=() before after rps
	[[ $tr == tls ]] && extra=(--tls --cacert "$CA")
	[[ -z $KEYSPACE ]] || extra+=(-r "$KEYSPACE")
	log "rep $REP $test P$pl $tr $label"
	before=$(cpu_ticks "$pid")
	rps=$(cmdlog "${PIN_CLIENT[@]}" redis-benchmark -h 127.0.0.1 -p "$port" "${extra[@]}" -c "$CLIENTS" \
		-n "$n" -P "$pl" -t "$test" --csv -q 2>/dev/null | awk -F'","' 'NR==2{print $2}') || true
	after=$(cpu_ticks "$pid")
	awk -v l="$label" -v r="$REP" -v t="$test" -v pl="$pl" -v tr="$tr" -v n="$n" -v rps="$rps" \
		-v d=$((after - before)) 'BEGIN{printf "%s,%s,%s,%s,%s,%s,%s,%d,%.4f\n", l, r, t, pl, tr, n, rps, d, d * 1e4 / n}' >>"$CSV"
}

for REP in $(seq 1 "$REPS"); do
	for pl in $PIPELINES; do
		n=$P1_REQUESTS
		[[ $pl == 1 ]] || n=$P16_REQUESTS
		for tr in $TRANSPORTS; do
			lp=$LK_PORT rp=$RD_PORT
			[[ $tr == tls ]] && lp=$LK_TLS rp=$RD_TLS
			for t in $TESTS; do
				[[ ${LK_HAS[$t]} == 0 ]] || rb loopkv "$LK_PID" "$lp" "$tr" "$pl" "$n" "$t"
				rb redis "$RD_PID" "$rp" "$tr" "$pl" "$n" "$t"
			done
		done
	done
done

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
ELAPSED=$(($(date -u +%s) - START))

# --- report -------------------------------------------------------------------------
export MD=$OUT/$STEM.md CSV CMDS COMMIT LOAD_BEFORE LOAD_AFTER ELAPSED REPS CLIENTS KEYSPACE TESTS PIPELINES TRANSPORTS
export QUICK=${QUICK:-0} MACHINE="$(machine)" VERSIONS="$(versions)"
python3 - <<'PY'
import csv, os, sys

sys.path.insert(0, "benchmarks")
from benchlib import fmt, med, ratio, rng, write_commands, write_header

E = os.environ
rows = [r for r in csv.DictReader(open(E["CSV"])) if r["rps"]]

def pick(label, test, pl, tr, f):
    return [f(r) for r in rows if r["label"] == label and r["test"] == test and r["pipeline"] == pl
            and r["transport"] == tr]

out = []
for tr in E["TRANSPORTS"].split():
    for pl in E["PIPELINES"].split():
        for test in E["TESTS"].split():
            cpu = lambda r: float(r["server_cpu_us_per_op"])
            rps = lambda r: float(r["rps"])
            lc, rc = pick("loopkv", test, pl, tr, cpu), pick("redis", test, pl, tr, cpu)
            lr, rr = med(pick("loopkv", test, pl, tr, rps)), med(pick("redis", test, pl, tr, rps))
            l, r = med(lc), med(rc)
            q = ratio(l, r)
            rg = lambda xs: f" ({rng(xs)})" if rng(xs) else ""
            met = "n/a" if q is None else "**yes**" if q <= 0.7 else "**no**"
            out.append(f"| {tr} | {pl} | {test.upper()} | {fmt(l)}{rg(lc)} | {fmt(r)}{rg(rc)} | {fmt(q)} | {met} | "
                       f"{fmt(lr)} | {fmt(rr)} |")

with open(E["MD"], "w") as f:
    w = lambda s="": print(s, file=f)
    write_header(w, "Type benchmarks, issue 12 — loopkv vs redis-server", "benchmarks/types.sh", E,
                 f"REPS={E['REPS']}, {E['CLIENTS']} clients, -r {E['KEYSPACE'] or 'none'}.")
    w()
    w("Servers on CPU 0 (loopkv `--loops 1`), redis-benchmark on CPU 1; TLS 1.3 TLS_AES_128_GCM_SHA256, ECDSA "
      "P-256. Server CPU per op = utime+stime delta / -n, median (min–max) over repetitions; goal: loopkv ≤ 0.7× "
      "redis.")
    w()
    w("| transport | pipeline | test | loopkv µs CPU/op | redis µs CPU/op | ratio | ≤ 0.7? | loopkv req/s | "
      "redis req/s |")
    w("|---|---|---|---|---|---|---|---|---|")
    for r in out:
        w(r)
    w()
    write_commands(w, open(E["CMDS"]))
print(open(E["MD"]).read())
PY
log "report: $MD (raw: $CSV)"
