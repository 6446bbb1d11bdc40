#!/usr/bin/env bash
# benchmarks/multi.sh — MULTI/EXEC transactions (issue #14), loopkv side by
# side with redis-server 7 (Debian) in the same run: CONNS connections each
# send PIPELINE transactions of MULTI, SETS (10) SETs and EXEC at a time,
# closed loop, for DURATION (benchmarks/cmd/multibench), at pipelines 1 and
# 16, plaintext and TLS.
#
# Both servers run on SERVER_CPU (loopkv --loops 1), the tool on CLIENT_CPU;
# TLS 1.3, TLS_AES_128_GCM_SHA256 pinned, one ECDSA P-256 certificate. Runs
# alternate loopkv, redis, REPS times. Server CPU per transaction = utime +
# stime (/proc/PID/stat) over the run / transactions, user and kernel apart;
# goal ≤ 0.7× redis's.
#
#   benchmarks/multi.sh                              # ~2 minutes on an idle 2-CPU machine
#   LOOPKV_B=/tmp/loopkv-other benchmarks/multi.sh   # and a second loopkv binary in the same run
#
# Knobs (environment): CONNS=50 SETS=10 PIPELINES="1 16" TRANSPORTS="plain tls"
# DURATION=5s REPS=2 LOOPKV_B= SERVER_CPU=0 CLIENT_CPU=1 BIN=bin
# OUT=benchmarks/results GO=go RUN_TIMEOUT=120
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=multi
# shellcheck source=benchmarks/lib.sh
source benchmarks/lib.sh
need redis-server taskset timeout python3

CONNS=${CONNS:-50}
SETS=${SETS:-10}
PIPELINES=${PIPELINES:-1 16}
TRANSPORTS=${TRANSPORTS:-plain tls}
DURATION=${DURATION:-5s}
REPS=${REPS:-2}
LOOPKV_B=${LOOPKV_B:-}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
BIN=${BIN:-bin}
OUT=${OUT:-benchmarks/results}
GO=${GO:-go}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
SUITE=TLS_AES_128_GCM_SHA256

begin_run multi
$GO build -o "$BIN/multibench" ./benchmarks/cmd/multibench
mapfile -t PORTS < <($BENCH ports 6)
launch_loopkv_tls loopkv "$BIN/loopkv" "${PORTS[0]}" "${PORTS[1]}"
TARGETS=("loopkv $LAUNCHED ${PORTS[0]} ${PORTS[1]}")
if [[ -n $LOOPKV_B ]]; then
	launch_loopkv_tls loopkv-b "$LOOPKV_B" "${PORTS[4]}" "${PORTS[5]}"
	TARGETS+=("loopkv-b $LAUNCHED ${PORTS[4]} ${PORTS[5]}")
fi
launch_redis_tls "${PORTS[2]}" "${PORTS[3]}"
TARGETS+=("redis $LAUNCHED ${PORTS[2]} ${PORTS[3]}")

for REP in $(seq 1 "$REPS"); do
	for tr in $TRANSPORTS; do
		for pl in $PIPELINES; do
			for t in "${TARGETS[@]}"; do
				read -r srv pid port tport <<<"$t"
				args=(-addr "127.0.0.1:$port")
				[[ $tr == tls ]] && args=(-addr "127.0.0.1:$tport" -tls -tls-ca "$CA")
				log "rep $REP $tr P$pl $srv"
				rc=0
				cmdlog taskset -c "$CLIENT_CPU" timeout "$RUN_TIMEOUT" "$BIN/multibench" "${args[@]}" -pid "$pid" \
					-conns "$CONNS" -sets "$SETS" -pipeline "$pl" -duration "$DURATION" -label "$srv" \
					-scenario "multi-$tr-p$pl" -rep "$REP" -json "$JSONL" || rc=$?
				[[ $rc == 0 ]] || log "warning: $srv $tr P$pl rep $REP failed (exit $rc)"
			done
		done
	done
done

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
ELAPSED=$(($(date -u +%s) - START))
export MD JSONL CMDS COMMIT LOAD_BEFORE LOAD_AFTER ELAPSED REPS CONNS SETS DURATION LOOPKV_B
export QUICK=0 MACHINE="$(machine)" VERSIONS="$(versions)"
python3 - <<'PY'
import json, os, sys

sys.path.insert(0, "benchmarks")
from benchlib import fmt, med, ratio, write_commands, write_header

E = os.environ
runs = [json.loads(l) for l in open(E["JSONL"]) if l.strip()]
scens = []
for r in runs:
    if r["scenario"] not in scens:
        scens.append(r["scenario"])

def vals(scen, label, key):
    return [r[key] for r in runs if r["scenario"] == scen and r["label"] == label and not r.get("error")]

def cell(xs, unit=""):
    return f"{fmt(med(xs), unit)} ({', '.join(fmt(x) for x in xs)})"

failed = [f"{r['label']} {r['scenario']} rep {r['rep']}: {r['error']}" for r in runs if r.get("error")]
with open(E["MD"], "w") as f:
    w = lambda s="": print(s, file=f)
    write_header(w, "MULTI/EXEC — loopkv vs redis-server", "benchmarks/multi.sh", E,
                 f"REPS={E['REPS']}; {E['CONNS']} connections, {E['SETS']} SETs per transaction, {E['DURATION']} per run." +
                 (f" loopkv-b = {E['LOOPKV_B']}." if E["LOOPKV_B"] else ""))
    w()
    w("Both servers on CPU 0 (loopkv `--loops 1`), the tool on CPU 1. Median (every repetition); "
      "ratio = loopkv / redis; goal: server CPU per transaction ≤ 0.7× redis.")
    w()
    w("| run | server | µs server CPU per transaction | redis | ratio | met? | user / redis's | kernel / redis's | transactions/s / redis's |")
    w("|---|---|---|---|---|---|---|---|---|")
    for s in scens:
        for lab in ["loopkv"] + (["loopkv-b"] if E["LOOPKV_B"] else []):
            lk, rd = vals(s, lab, "server_cpu_per_txn_us"), vals(s, "redis", "server_cpu_per_txn_us")
            r = ratio(med(lk), med(rd))
            ok = "n/a" if r is None else ("**yes**" if r <= 0.7 else "**no**")
            u = lambda l: fmt(med(vals(s, l, "server_user_per_txn_us")))
            k = lambda l: fmt(med(vals(s, l, "server_sys_per_txn_us")))
            t = lambda l: fmt(med(vals(s, l, "transactions_per_s")))
            w(f"| {s} | {lab} | {cell(lk, ' µs')} | {cell(rd, ' µs')} | {fmt(r)} | {ok} | {u(lab)} / {u('redis')} µs | "
              f"{k(lab)} / {k('redis')} µs | {t(lab)} / {t('redis')} |")
    if failed:
        w()
        w("Failed runs: " + "; ".join(failed) + ".")
    w()
    write_commands(w, open(E["CMDS"]))
print(open(E["MD"]).read())
PY
log "report: $MD (raw: $JSONL)"
