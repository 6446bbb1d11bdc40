#!/usr/bin/env bash
# benchmarks/churn.sh — server CPU per full TLS 1.3 handshake (goals.sh's G5
# alone, for quick before/after work): loopkv-bench churn (CHURN_WORKERS
# workers connect, handshake, PING, reset, in a loop) against loopkv and
# redis-server 7 side by side in the same run, alternating REPS times.
#
# Same settings as goals.sh: TLS 1.3, TLS_AES_128_GCM_SHA256 pinned on both
# servers, X25519 offered alone, one ECDSA P-256 certificate, servers on
# SERVER_CPU (loopkv --loops 1), the load generator on CLIENT_CPU. Server CPU
# = utime+stime (/proc/PID/stat) over the run / handshakes.
#
#   benchmarks/churn.sh                                # loopkv (bin/loopkv, built here) vs redis
#   LOOPKV_B=/tmp/loopkv-other benchmarks/churn.sh     # and a second loopkv binary in the same run
#   PAIRED=1 LOOPKV_B=/tmp/loopkv-other benchmarks/churn.sh
#
# PAIRED=1 churns loopkv and loopkv-b at the same time in each repetition
# (both servers on SERVER_CPU, both clients on CLIENT_CPU), then redis
# alone: whatever else loads the machine then weighs on both alike, and
# the report's loopkv / loopkv-b ratio of each repetition stays within a
# few percent where consecutive runs of one binary differ by 30 % on a
# busy machine. Its absolute figures are not comparable with redis's.
#
# Knobs (environment): REPS=3 CHURN_DURATION=8s CHURN_WORKERS=16 LOOPKV_B=
# PAIRED=0 SERVER_CPU=0 CLIENT_CPU=1 BIN=bin OUT=benchmarks/results GO=go
# RUN_TIMEOUT=120
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=churn
# shellcheck source=benchmarks/lib.sh
source benchmarks/lib.sh
need redis-server taskset timeout python3

REPS=${REPS:-3}
CHURN_DURATION=${CHURN_DURATION:-8s}
CHURN_WORKERS=${CHURN_WORKERS:-16}
LOOPKV_B=${LOOPKV_B:-}
PAIRED=${PAIRED:-0}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
BIN=${BIN:-bin}
OUT=${OUT:-benchmarks/results}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
SUITE=TLS_AES_128_GCM_SHA256

begin_run churn
mapfile -t PORTS < <($BENCH ports 6)
launch_loopkv_tls loopkv "$BIN/loopkv" "${PORTS[0]}" "${PORTS[1]}" --maxclients 20000
TARGETS=("loopkv $LAUNCHED ${PORTS[1]}")
if [[ -n $LOOPKV_B ]]; then
	launch_loopkv_tls loopkv-b "$LOOPKV_B" "${PORTS[2]}" "${PORTS[3]}" --maxclients 20000
	TARGETS+=("loopkv-b $LAUNCHED ${PORTS[3]}")
fi
launch_redis_tls "${PORTS[4]}" "${PORTS[5]}" --maxclients 20000
TARGETS+=("redis $LAUNCHED ${PORTS[5]}")

# churn_one LABEL PID PORT: one churn run against a server, recorded in JSONL.
churn_one() {
	local rc=0
	log "rep $REP churn $1"
	cmdlog taskset -c "$CLIENT_CPU" timeout "$RUN_TIMEOUT" "$BENCH" churn -label "$1" -scenario churn \
		-rep "$REP" -json "$JSONL" -pid "$2" -addr "127.0.0.1:$3" -progress=false -tls -tls-ca "$CA" \
		-tls-groups x25519 -workers "$CHURN_WORKERS" -duration "$CHURN_DURATION" >/dev/null || rc=$?
	bench_rc "$rc" churn "$1" churn
}

for REP in $(seq 1 "$REPS"); do
	if [[ $PAIRED == 1 && -n $LOOPKV_B ]]; then
		read -r la pa pta <<<"${TARGETS[0]}"
		read -r lb pb ptb <<<"${TARGETS[1]}"
		churn_one "$la" "$pa" "$pta" &
		ca=$!
		churn_one "$lb" "$pb" "$ptb" &
		cb=$!
		wait "$ca" "$cb"
		read -r label pid port <<<"${TARGETS[2]}"
		churn_one "$label" "$pid" "$port"
		continue
	fi
	for t in "${TARGETS[@]}"; do
		read -r label pid port <<<"$t"
		churn_one "$label" "$pid" "$port"
	done
done

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
ELAPSED=$(($(date -u +%s) - START))
export MD JSONL CMDS COMMIT LOAD_BEFORE LOAD_AFTER ELAPSED REPS CHURN_WORKERS LOOPKV_B PAIRED
export QUICK=0 MACHINE="$(machine)" VERSIONS="$(versions)"
python3 - <<'PY'
import json, os, sys

sys.path.insert(0, "benchmarks")
from benchlib import fmt, med, ratio, rng, write_commands, write_header

E = os.environ
runs = [json.loads(l) for l in open(E["JSONL"]) if l.strip()]
labels = ["loopkv"] + (["loopkv-b"] if E["LOOPKV_B"] else []) + ["redis"]

def vals(label, f):
    return [f(r) for r in runs if r.get("label") == label and not r.get("unavailable")]

hs = lambda r: r["server_cpu_per_handshake_us"] if r.get("server_cpu_per_handshake_us", -1) >= 0 else None
rd = med(vals("redis", hs))
with open(E["MD"], "w") as f:
    w = lambda s="": print(s, file=f)
    write_header(w, "Handshake churn — loopkv vs redis-server", "benchmarks/churn.sh", E,
                 f"REPS={E['REPS']}, {E['CHURN_WORKERS']} workers." +
                 (f" loopkv-b = {E['LOOPKV_B']}." if E["LOOPKV_B"] else "") +
                 (" PAIRED=1: loopkv and loopkv-b churned at the same time, redis alone."
                  if E["PAIRED"] == "1" and E["LOOPKV_B"] else ""))
    w()
    w("| server | µs server CPU per handshake (per rep) | median | min–max | / redis | handshakes/s (median) |")
    w("|---|---|---|---|---|---|")
    for l in labels:
        xs = vals(l, hs)
        w(f"| {l} | {', '.join(fmt(x) for x in xs)} | {fmt(med(xs))} | {rng(xs)} | "
          f"{fmt(ratio(med(xs), rd))} | {fmt(med(vals(l, lambda r: r['handshakes_per_s'])))} |")
    if E["LOOPKV_B"]:
        a = {r["rep"]: hs(r) for r in runs if r.get("label") == "loopkv" and not r.get("unavailable")}
        b = {r["rep"]: hs(r) for r in runs if r.get("label") == "loopkv-b" and not r.get("unavailable")}
        per = [a[k] / b[k] for k in sorted(a) if k in b and a[k] and b[k]]
        w()
        w(f"loopkv / loopkv-b in the same repetition: {', '.join(f'{x:.3f}' for x in per)}; "
          f"median {med(per):.3f}." if per else "loopkv / loopkv-b in the same repetition: none.")
    failed = [f"{r.get('label')} rep {r.get('rep')}: {r['unavailable']}" for r in runs if r.get("unavailable")]
    if failed:
        w()
        w("Failed runs: " + "; ".join(failed) + ".")
    w()
    write_commands(w, open(E["CMDS"]))
print(open(E["MD"]).read())
PY
log "report: $MD (raw: $JSONL)"
