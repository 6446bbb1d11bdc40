#!/usr/bin/env bash
# benchmarks/floor.sh — the syscall floor under the per-op CPU goals: loopkv,
# redis-server 7 (Debian) and floorsrv (benchmarks/floor/floorsrv.c: one C
# thread on epoll that reads each connection once, counts the RESP commands
# and writes one canned reply per command, with no keyspace) under the same
# redis-benchmark runs, plaintext. floorsrv makes the system calls Redis
# makes per request (epoll_wait, read, write) and does nothing else, so its
# server CPU per op over redis's is the lowest ratio any server that reads and
# writes its sockets with one system call each can reach on this machine.
#
# Setup as types.sh: every server on SERVER_CPU (0) — loopkv `--loops 1`,
# built with -tags poll_opt, `--save ''`; redis `--save '' --appendonly no` —
# and redis-benchmark on CLIENT_CPU (1), CLIENTS (50) clients, one test per
# run (`-t TEST`). Server CPU per op = utime and stime deltas (/proc/PID/stat,
# 10 ms ticks) / requests, apart and summed. Runs alternate loopkv, redis,
# floor, REPS times; the report shows medians (min–max).
#
# Writes OUT/floor-<UTC date-time>.md and the raw runs (.csv). Stops only the
# processes it started, by PID; every run is bounded by RUN_TIMEOUT.
#
#   benchmarks/floor.sh              # REPS=3, TESTS="set get sadd hset spop", P1 and P16 (~6 min)
#   QUICK=1 benchmarks/floor.sh      # a ~1-minute smoke run
#   AOF=always benchmarks/floor.sh   # the appendfsync-always floor: SET at P1 (issue 15)
#   AOF=always GATHER=1 benchmarks/floor.sh  # floorsrv -g: one fdatasync for every client
#
# AOF=always runs all three with an append-only file fsynced before every
# reply: loopkv and redis `--appendonly yes --appendfsync always`, floorsrv
# `-a FILE` (per epoll batch one write(2) of the batch's commands and one
# fdatasync(2), then the replies: Redis's model with nothing else), so
# floor / redis is the lowest CPU-per-op ratio any server that makes each
# acknowledged write durable with Redis's system calls can reach.
#
# Knobs: REPS=3 TESTS="set get sadd hset spop" PIPELINES="1 16"
# P1_REQUESTS=200000 P16_REQUESTS=2000000 CLIENTS=50 RUN_TIMEOUT=300
# SERVER_CPU=0 CLIENT_CPU=1 BIN=bin OUT=benchmarks/results GO=go CC=gcc
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=floor
# shellcheck source=benchmarks/lib.sh
source benchmarks/lib.sh

if [[ ${QUICK:-0} == 1 ]]; then
	: "${REPS:=1}" "${P1_REQUESTS:=50000}" "${P16_REQUESTS:=500000}" "${TESTS:=set hset}"
fi
AOF=${AOF:-}
[[ -z $AOF || $AOF == always ]] || die "AOF=$AOF: only AOF=always is known"
REPS=${REPS:-3}
if [[ -n $AOF ]]; then
	TESTS=${TESTS:-set}
	PIPELINES=${PIPELINES:-1}
fi
TESTS=${TESTS:-set get sadd hset spop}
PIPELINES=${PIPELINES:-1 16}
P1_REQUESTS=${P1_REQUESTS:-200000}
P16_REQUESTS=${P16_REQUESTS:-2000000}
CLIENTS=${CLIENTS:-50}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
BIN=${BIN:-bin}
OUT=${OUT:-benchmarks/results}
CC=${CC:-gcc}

need redis-server redis-benchmark taskset timeout python3 "$CC"
[[ $(nproc --all) -ge 2 ]] || die "needs 2 CPUs (servers on $SERVER_CPU, load on $CLIENT_CPU)"

begin_run "floor${AOF:+-aof}" # lib.sh: STEM, LOAD_BEFORE, the binaries
rm -f "$JSONL" # the runs go to the CSV
CSV=$OUT/$STEM.csv
echo "label,rep,test,pipeline,requests,rps,utime_ticks,stime_ticks" >"$CSV"
log "load average $LOAD_BEFORE"
cmdlog "$CC" -O2 -o "$BIN/floorsrv" benchmarks/floor/floorsrv.c
mapfile -t PORTS < <($BENCH ports 3)
LK_PORT=${PORTS[0]} RD_PORT=${PORTS[1]} FL_PORT=${PORTS[2]}
PIN_SERVER=(taskset -c "$SERVER_CPU")
PIN_CLIENT=(taskset -c "$CLIENT_CPU" timeout "$RUN_TIMEOUT")

AOF_ARGS=(--appendonly no) FL_ARGS=(-r ':1\r\n')
if [[ -n $AOF ]]; then
	AOF_ARGS=(--appendonly yes --appendfsync always) FL_ARGS=(-r '+OK\r\n' -a "$WORK/floor.aof")
	[[ ${GATHER:-0} == 1 ]] && FL_ARGS+=(-g)
	mkdir -p "$WORK/loopkv" "$WORK/redis"
fi
launch loopkv "$LK_PORT" - "${PIN_SERVER[@]}" "$BIN/loopkv" --bind 127.0.0.1 --port "$LK_PORT" --tls-port 0 \
	--loops 1 --loglevel warning --save '' "${AOF_ARGS[@]}" --dir "$WORK${AOF:+/loopkv}"
LK_PID=$LAUNCHED
launch redis "$RD_PORT" - "${PIN_SERVER[@]}" redis-server --bind 127.0.0.1 --port "$RD_PORT" --save '' \
	"${AOF_ARGS[@]}" --loglevel warning --dir "$WORK${AOF:+/redis}"
RD_PID=$LAUNCHED
launch floor "$FL_PORT" - "${PIN_SERVER[@]}" "$BIN/floorsrv" -p "$FL_PORT" "${FL_ARGS[@]}"
FL_PID=$LAUNCHED

# rb LABEL PID PORT PIPELINE REQUESTS TEST: one redis-benchmark run.
rb() {
	local label=$1 pid=$2 port=$3 pl=$4 n=$5 test=$6 ut0 st0 ut1 st1 rps
	log "rep $REP $test P$pl $label"
	read -r ut0 st0 < <(sed 's/.*) //' "/proc/$pid/stat" | awk '{print $12, $13}')
	rps=$(cmdlog "${PIN_CLIENT[@]}" redis-benchmark -h 127.0.0.1 -p "$port" -c "$CLIENTS" -n "$n" -P "$pl" \
		-t "$test" --csv -q 2>/dev/null | awk -F'","' 'NR==2{print $2}') || true
	read -r ut1 st1 < <(sed 's/.*) //' "/proc/$pid/stat" | awk '{print $12, $13}')
	echo "$label,$REP,$test,$pl,$n,$rps,$((ut1 - ut0)),$((st1 - st0))" >>"$CSV"
}

for REP in $(seq 1 "$REPS"); do
	for pl in $PIPELINES; do
		n=$P1_REQUESTS
		[[ $pl == 1 ]] || n=$P16_REQUESTS
		for t in $TESTS; do
			rb loopkv "$LK_PID" "$LK_PORT" "$pl" "$n" "$t"
			rb redis "$RD_PID" "$RD_PORT" "$pl" "$n" "$t"
			rb floor "$FL_PID" "$FL_PORT" "$pl" "$n" "$t"
		done
	done
done

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
ELAPSED=$(($(date -u +%s) - START))

export MD=$OUT/$STEM.md CSV CMDS COMMIT LOAD_BEFORE LOAD_AFTER ELAPSED REPS CLIENTS TESTS PIPELINES AOF
export QUICK=${QUICK:-0} MACHINE="$(machine)" VERSIONS="$(versions)"
python3 - <<'PY'
import csv, os, sys

sys.path.insert(0, "benchmarks")
from benchlib import fmt, med, ratio, rng, write_commands, write_header

E = os.environ
rows = [r for r in csv.DictReader(open(E["CSV"])) if r["rps"]]

def vals(label, test, pl, f):
    return [f(r) for r in rows if r["label"] == label and r["test"] == test and r["pipeline"] == pl]

us = lambda k: lambda r: int(r[k]) * 1e4 / int(r["requests"])
total = lambda r: (int(r["utime_ticks"]) + int(r["stime_ticks"])) * 1e4 / int(r["requests"])
rg = lambda xs: f" ({rng(xs)})" if rng(xs) else ""

lines = []
for pl in E["PIPELINES"].split():
    for test in E["TESTS"].split():
        t = {lb: vals(lb, test, pl, total) for lb in ("loopkv", "redis", "floor")}
        u = {lb: med(vals(lb, test, pl, us("utime_ticks"))) for lb in ("loopkv", "redis", "floor")}
        s = {lb: med(vals(lb, test, pl, us("stime_ticks"))) for lb in ("loopkv", "redis", "floor")}
        m = {lb: med(x) for lb, x in t.items()}
        lines.append(
            f"| {pl} | {test.upper()} | {fmt(m['loopkv'])}{rg(t['loopkv'])} | {fmt(m['redis'])}{rg(t['redis'])} | "
            f"{fmt(m['floor'])}{rg(t['floor'])} | {fmt(ratio(m['loopkv'], m['redis']))} | "
            f"{fmt(ratio(m['floor'], m['redis']))} | {fmt(u['loopkv'])} / {fmt(s['loopkv'])} | "
            f"{fmt(u['redis'])} / {fmt(s['redis'])} | {fmt(u['floor'])} / {fmt(s['floor'])} |")

with open(E["MD"], "w") as f:
    w = lambda s="": print(s, file=f)
    aof = E.get("AOF", "")
    write_header(w, "The syscall floor — loopkv, redis-server and floorsrv" + (", appendfsync always" if aof else ""),
                 "benchmarks/floor.sh", E,
                 f"REPS={E['REPS']}, {E['CLIENTS']} clients, plaintext" + (", AOF=always." if aof else "."))
    w()
    w("Servers on CPU 0 (loopkv `--loops 1`), redis-benchmark on CPU 1. Server CPU per op = (utime+stime) "
      "delta / requests, median (min–max) over repetitions; user / kernel medians apart. floorsrv: one read "
      "and one write per readable connection, a canned reply per command, nothing else." +
      (" AOF=always: every server appends each command to its append-only file and fsyncs it before the reply "
       "(loopkv and redis `--appendonly yes --appendfsync always`); floorsrv `-a`: per epoll batch one write(2) "
       "of the batch's commands and one fdatasync(2), then the replies." if aof else ""))
    w()
    w("| pipeline | test | loopkv µs/op | redis µs/op | floor µs/op | loopkv / redis | floor / redis | "
      "loopkv user / kernel | redis user / kernel | floor user / kernel |")
    w("|---|---|---|---|---|---|---|---|---|---|")
    for l in lines:
        w(l)
    w()
    write_commands(w, open(E["CMDS"]))
print(open(E["MD"]).read())
PY
log "report: $MD (raw: $CSV)"
