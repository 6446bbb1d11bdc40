#!/usr/bin/env bash
# benchmarks/fanout.sh — pub/sub fan-out over TLS (issue #14), loopkv side by
# side with redis-server 7 (Debian) in the same run: SUBS (10,000) idle TLS
# subscribers on one channel (crypto/tls clients, one connection each) and
# one TLS publisher sending MESSAGES messages of SIZE bytes at RATE per
# second (benchmarks/cmd/fanout).
#
# Each repetition starts each server fresh (for the RSS figure), pinned to
# SERVER_CPU (loopkv --loops 1), with the tool on CLIENT_CPU; TLS 1.3,
# TLS_AES_128_GCM_SHA256 pinned, one ECDSA P-256 certificate. Reported per
# server (medians over REPS, alternating loopkv, redis):
#   - server CPU per delivered message: utime+stime (/proc/PID/stat) from the
#     first PUBLISH until every subscriber has every message, / (SUBS ×
#     MESSAGES); user and kernel apart, with write-like system calls per
#     delivery (/proc/PID/io);              goal ≤ 0.7× redis
#   - delivery latency p50/p99/max, from each message's due time (open loop)
#     to its arrival at each subscriber;
#   - RSS per idle TLS subscriber: (RSS SETTLE after the last SUBSCRIBE − RSS
#     before the first connect) / SUBS;     goal ≤ 4 KiB (redis ~35 KiB)
#
#   benchmarks/fanout.sh              # ~3-4 minutes on an idle 2-CPU machine
#   SUBS=2000 REPS=1 benchmarks/fanout.sh
#
# Knobs (environment): SUBS=10000 MESSAGES=40 RATE=5 SIZE=64 SETTLE=5s REPS=2
# SERVER_CPU=0 CLIENT_CPU=1 BIN=bin OUT=benchmarks/results GO=go RUN_TIMEOUT=300
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=fanout
# shellcheck source=benchmarks/lib.sh
source benchmarks/lib.sh
need redis-server taskset timeout python3

SUBS=${SUBS:-10000}
MESSAGES=${MESSAGES:-40}
RATE=${RATE:-5}
SIZE=${SIZE:-64}
SETTLE=${SETTLE:-5s}
REPS=${REPS:-2}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
BIN=${BIN:-bin}
OUT=${OUT:-benchmarks/results}
GO=${GO:-go}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
SUITE=TLS_AES_128_GCM_SHA256

# Every subscriber is a descriptor in the server and in the tool.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
NOFILE=$(ulimit -n)
[[ $NOFILE == unlimited || $NOFILE -ge $((SUBS + 256)) ]] || die "open files limit $NOFILE < SUBS+256"

begin_run fanout
$GO build -o "$BIN/fanout" ./benchmarks/cmd/fanout
mapfile -t PORTS < <($BENCH ports 4)
MAXCLIENTS=$((SUBS + 100))

start() {
	if [[ $1 == loopkv ]]; then
		launch_loopkv_tls loopkv "$BIN/loopkv" "${PORTS[0]}" "${PORTS[1]}" --maxclients "$MAXCLIENTS"
		PORT=${PORTS[1]}
	else
		launch_redis_tls "${PORTS[2]}" "${PORTS[3]}" --maxclients "$MAXCLIENTS"
		PORT=${PORTS[3]}
	fi
	SRV_PID=$LAUNCHED
}

for REP in $(seq 1 "$REPS"); do
	for srv in loopkv redis; do
		start "$srv"
		log "rep $REP $srv: $SUBS subscribers, $MESSAGES messages at $RATE/s"
		rc=0
		cmdlog taskset -c "$CLIENT_CPU" timeout "$RUN_TIMEOUT" "$BIN/fanout" -addr "127.0.0.1:$PORT" -tls \
			-tls-ca "$CA" -pid "$SRV_PID" -subs "$SUBS" -messages "$MESSAGES" -rate "$RATE" -size "$SIZE" \
			-settle "$SETTLE" -label "$srv" -rep "$REP" -json "$JSONL" || rc=$?
		[[ $rc == 0 ]] || log "warning: $srv rep $REP failed (exit $rc)"
		stop "$SRV_PID"
	done
done

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
ELAPSED=$(($(date -u +%s) - START))
export MD JSONL CMDS COMMIT LOAD_BEFORE LOAD_AFTER ELAPSED REPS SUBS MESSAGES RATE SIZE SETTLE NOFILE
export QUICK=0 MACHINE="$(machine)" VERSIONS="$(versions)"
python3 - <<'PY'
import json, os, sys

sys.path.insert(0, "benchmarks")
from benchlib import fmt, med, ratio, rng, write_commands, write_header

E = os.environ
runs = [json.loads(l) for l in open(E["JSONL"]) if l.strip()]

def vals(label, key, sub=None):
    out = []
    for r in runs:
        if r.get("label") != label or r.get("error"):
            continue
        v = r[key][sub] if sub else r[key]
        out.append(v)
    return out

def row(what, key, sub=None, unit="", goal=None):
    lk, rd = vals("loopkv", key, sub), vals("redis", key, sub)
    ml, mr = med(lk), med(rd)
    r = ratio(ml, mr)
    g = "" if goal is None else goal(ml, r)
    return (f"| {what} | {fmt(ml, unit)} ({', '.join(fmt(x) for x in lk)}) | "
            f"{fmt(mr, unit)} ({', '.join(fmt(x) for x in rd)}) | {fmt(r)} | {g} |")

yes = lambda ok: "**yes**" if ok else "**no**"
rows = [
    row("µs server CPU per delivered message", "server_cpu_per_delivery_us", unit=" µs",
        goal=lambda m, r: f"≤ 0.7× redis: {yes(r is not None and r <= 0.7)}"),
    row("… of which user", "server_user_per_delivery_us", unit=" µs"),
    row("… of which kernel", "server_sys_per_delivery_us", unit=" µs"),
    row("write-like system calls per delivery", "server_syscw_per_delivery"),
    row("delivery p50", "Latency", "p50_us", " µs"),
    row("delivery p99", "Latency", "p99_us", " µs"),
    row("delivery max", "Latency", "max_us", " µs"),
    row("KiB RSS per idle TLS subscriber", "kib_per_idle_sub", unit=" KiB",
        goal=lambda m, r: f"≤ 4 KiB: {yes(m is not None and m <= 4)}"),
    row("s to connect and subscribe all", "connect_s", unit=" s"),
]
failed = [f"{r.get('label')} rep {r.get('rep')}: {r['error']}" for r in runs if r.get("error")]
with open(E["MD"], "w") as f:
    w = lambda s="": print(s, file=f)
    write_header(w, "Pub/sub fan-out over TLS — loopkv vs redis-server", "benchmarks/fanout.sh", E,
                 f"REPS={E['REPS']}; {E['SUBS']} subscribers, {E['MESSAGES']} messages of {E['SIZE']} bytes at "
                 f"{E['RATE']}/s, settle {E['SETTLE']}; open files {E['NOFILE']}.")
    w()
    w("Fresh servers per repetition on CPU 0 (loopkv `--loops 1`), the tool on CPU 1; TLS 1.3, "
      "TLS_AES_128_GCM_SHA256, one ECDSA P-256 certificate. Median (every repetition); ratio = loopkv / redis.")
    w()
    w("| measure | loopkv | redis | ratio | goal |")
    w("|---|---|---|---|---|")
    for r in rows:
        w(r)
    if failed:
        w()
        w("Failed runs: " + "; ".join(failed) + ".")
    w()
    w("Latency is from each message's due time (open loop, the payload carries it) to its arrival, read by one "
      "client CPU draining every subscriber's TLS stream: it includes the client's own queueing.")
    w()
    write_commands(w, open(E["CMDS"]))
print(open(E["MD"]).read())
PY
log "report: $MD (raw: $JSONL)"
