#!/usr/bin/env bash
# benchmarks/scaling.sh — the keyspace-scaling study of issue 12: loopkv side
# by side with redis-server 7 (Debian) in the same run, at every keyspace
# size of SIZES (string keys) and at HASHES hashes of FIELDS fields.
#
# For each case both servers start fresh on SERVER_CPU (0) — loopkv with one
# loop, -tags poll_opt and GODEBUG=gctrace=1; redis with --save ''
# --appendonly no — and every load generator runs on CLIENT_CPU (1). Keys are
# KEY_LEN (14) bytes ("lkb:0000000042", hashes "lkh:…"), values VALUE_SIZE
# (16) bytes. Per case:
#
#   1. RSS of the empty server (VmRSS, /proc/PID/status), then the preload
#      (`loopkv-bench load`: LOAD_CONNS connections of LOAD_PIPELINE
#      pipelined SETs, or one HSET of FIELDS fields per hash), SETTLE
#      seconds, RSS again: RSS per key = (loaded − empty) / keys.
#   2. Closed loop, CONNS (50) connections × PIPELINE (16): SET and GET (HSET
#      and HGET for hashes) on uniformly random keys of the loaded range,
#      DURATION each, alternating loopkv, redis, REPS times: ops/s and server
#      CPU per op (utime+stime, /proc/PID/stat).
#   3. Open loop at OPEN_FRACTION (0.5) of each server's measured capacity
#      (the lower median of its two commands), a 1:1 mix of the two, same
#      connections and pipeline, OPEN_DURATION each, REPS times: latency from
#      each batch's intended send time (coordinated omission corrected),
#      p50/p99/p99.9/max, with whatever collections happened meanwhile.
#   4. loopkv's garbage collector: every `gc N` line of gctrace between the
#      start and the end of each run; GC CPU = the sum of its "ms cpu"
#      fields (STW sweep termination + assist/background/idle marking + STW
#      mark termination) over the run's server CPU.
#
# Writes OUT/scaling-<UTC date-time>.md (tables, goals, commands, machine,
# load average before and after, commit) and beside it the raw runs (.jsonl),
# the memory readings (-mem.csv) and loopkv's gctrace lines (-gctrace-*.log).
# Stops only the processes it started, by PID; every client run is bounded
# by RUN_TIMEOUT; only 127.0.0.1 is used.
#
#   benchmarks/scaling.sh                                # the study: 100k, 1M, 10M strings, 1M hashes
#   SIZES="100000 1000000" HASHES=0 benchmarks/scaling.sh  # a quick run
#   QUICK=1 benchmarks/scaling.sh                        # a ~3-minute smoke run (shows the tool works)
#
# Knobs (environment): SIZES="100000 1000000 10000000" HASHES=1000000 (0:
# none) FIELDS=10 KEY_LEN=14 VALUE_SIZE=16 CONNS=50 PIPELINE=16 REPS=3
# DURATION=5s OPEN_DURATION=15s OPEN_FRACTION=0.5 LOAD_CONNS=4
# LOAD_PIPELINE=1000 SETTLE=3 (seconds) RUN_TIMEOUT=600 (seconds)
# SERVER_CPU=0 CLIENT_CPU=1 BIN=bin OUT=benchmarks/results GO=go
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=scaling
# shellcheck source=benchmarks/lib.sh
source benchmarks/lib.sh

if [[ ${QUICK:-0} == 1 ]]; then
	: "${SIZES:=100000 1000000}" "${HASHES:=100000}" "${REPS:=1}" "${DURATION:=2s}" "${OPEN_DURATION:=4s}"
	: "${SETTLE:=1}"
fi
SIZES=${SIZES:-100000 1000000 10000000}
HASHES=${HASHES:-1000000}
FIELDS=${FIELDS:-10}
KEY_LEN=${KEY_LEN:-14}
VALUE_SIZE=${VALUE_SIZE:-16}
CONNS=${CONNS:-50}
PIPELINE=${PIPELINE:-16}
REPS=${REPS:-3}
DURATION=${DURATION:-5s}
OPEN_DURATION=${OPEN_DURATION:-15s}
OPEN_FRACTION=${OPEN_FRACTION:-0.5}
LOAD_CONNS=${LOAD_CONNS:-4}
LOAD_PIPELINE=${LOAD_PIPELINE:-1000}
SETTLE=${SETTLE:-3}
RUN_TIMEOUT=${RUN_TIMEOUT:-600}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
BIN=${BIN:-bin}
OUT=${OUT:-benchmarks/results}
GO=${GO:-go}

need redis-server redis-cli taskset timeout python3
[[ $(nproc --all) -ge 2 ]] || die "needs 2 CPUs (server on $SERVER_CPU, load on $CLIENT_CPU)"

START=$(date -u +%s)
STEM=scaling-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
JSONL=$OUT/$STEM.jsonl MEM=$OUT/$STEM-mem.csv MARKS=$WORK/marks.csv
: >"$JSONL"
echo "case,label,stage,keys,rss_kb,used_memory,dbsize" >"$MEM"
echo "case,scenario,rep,gc_from,gc_to" >"$MARKS"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
log "load average $LOAD_BEFORE"
build_bins
PIN_SERVER=(taskset -c "$SERVER_CPU")
PIN_CLIENT=(taskset -c "$CLIENT_CPU" timeout "$RUN_TIMEOUT")

# size_name N: 100000 → 100k, 10000000 → 10M.
size_name() {
	local n=$1
	if ((n % 1000000 == 0)); then echo "$((n / 1000000))M"; elif ((n % 1000 == 0)); then echo "$((n / 1000))k"; else echo "$n"; fi
}

# gc_last LOG: the number of the last collection gctrace reported (0: none).
gc_last() { awk '$1 == "gc" && $2 ~ /^[0-9]+$/ {n = $2} END {print n + 0}' "$1"; }

# memory CASE LABEL STAGE KEYS PID PORT: one row of $MEM.
memory() {
	local used db
	used=$(redis-cli -h 127.0.0.1 -p "$6" INFO memory 2>/dev/null | tr -d '\r' | awk -F: '$1 == "used_memory" {print $2}')
	db=$(redis-cli -h 127.0.0.1 -p "$6" DBSIZE 2>/dev/null | tr -d '\r')
	echo "$1,$2,$3,$4,$(rss_kb "$5"),${used:-},${db:-}" >>"$MEM"
}

# bench CASE LABEL SCENARIO MODE ARGS...: one loopkv-bench run on CLIENT_CPU
# against the case's server LABEL, appended to JSONL; loopkv's collections
# during it are marked. A failure is recorded and the study goes on.
bench() {
	local case=$1 label=$2 scenario=$3 mode=$4 pid port gc0 rc=0
	shift 4
	if [[ $label == loopkv ]]; then pid=$LK_PID port=$LK_PORT; else pid=$RD_PID port=$RD_PORT; fi
	local args=(-label "$label" -scenario "$scenario" -rep "$REP" -json "$JSONL" -pid "$pid"
		-addr "127.0.0.1:$port" -progress=false)
	log "$scenario $label rep $REP"
	gc0=$(gc_last "$LK_LOG")
	cmdlog "${PIN_CLIENT[@]}" "$BENCH" "$mode" "${args[@]}" "$@" || rc=$?
	[[ $label != loopkv ]] || echo "$case,$scenario,$REP,$gc0,$(gc_last "$LK_LOG")" >>"$MARKS"
	bench_rc "$rc" "$mode" "$label" "$scenario"
}

# unavailable CASE LABEL SCENARIO REASON: record a run that cannot be made.
unavailable() {
	"$BENCH" throughput -label "$2" -scenario "$3" -rep "$REP" -json "$JSONL" -unavailable "$4"
}

# capacity SCENARIO LABEL: the median closed-loop ops/s of its runs (0 if none).
capacity() {
	python3 - "$JSONL" "$1" "$2" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
xs = [r["ops_per_s"] for r in runs if r.get("scenario") == sys.argv[2] and r.get("label") == sys.argv[3]
      and not r.get("unavailable") and r.get("ops_per_s")]
print(int(statistics.median(xs)) if xs else 0)
PY
}

# run_case KIND N: the whole study of one case on fresh servers.
run_case() {
	local kind=$1 n=$2 case ops load_mix
	case=$kind-$(size_name "$n")
	if [[ $kind == strings ]]; then ops=(set get) load_mix=set=1; else ops=(hset hget) load_mix=hset=1; fi
	local shape=(-keys "$n" -key-len "$KEY_LEN" -value-size "$VALUE_SIZE" -fields "$FIELDS")
	log "case $case: fresh servers"
	local ports
	mapfile -t ports < <($BENCH ports 2)
	LK_PORT=${ports[0]} RD_PORT=${ports[1]} LK_LOG=$WORK/loopkv-$case.log
	launch "loopkv-$case" "$LK_PORT" - env GODEBUG=gctrace=1 "${PIN_SERVER[@]}" "$BIN/loopkv" --bind 127.0.0.1 \
		--port "$LK_PORT" --loops 1 --loglevel warning --save '' --dir "$WORK"
	LK_PID=$LAUNCHED
	launch "redis-$case" "$RD_PORT" - "${PIN_SERVER[@]}" redis-server --bind 127.0.0.1 --port "$RD_PORT" \
		--save '' --appendonly no --loglevel warning --dir "$WORK"
	RD_PID=$LAUNCHED
	local lk_ok=1
	if [[ $kind == hashes ]] && redis-cli -h 127.0.0.1 -p "$LK_PORT" HSET lkh:probe f v 2>&1 | grep -q ERR; then
		lk_ok=0
		log "warning: loopkv has no HSET yet; its hash rows are recorded as unavailable"
	fi
	redis-cli -h 127.0.0.1 -p "$LK_PORT" DEL lkh:probe >/dev/null
	sleep 1
	REP=1
	local t targets=(loopkv redis)
	[[ $lk_ok == 1 ]] || targets=(redis)
	for t in loopkv redis; do
		if [[ $t == loopkv ]]; then pid=$LK_PID port=$LK_PORT; else pid=$RD_PID port=$RD_PORT; fi
		memory "$case" "$t" empty "$n" "$pid" "$port"
	done
	[[ $lk_ok == 1 ]] || unavailable "$case" loopkv "$case-load" "loopkv has no HSET"
	for t in "${targets[@]}"; do
		bench "$case" "$t" "$case-load" load "${shape[@]}" -mix "$load_mix" -conns "$LOAD_CONNS" \
			-pipeline "$LOAD_PIPELINE"
		sleep "$SETTLE"
		if [[ $t == loopkv ]]; then pid=$LK_PID port=$LK_PORT; else pid=$RD_PID port=$RD_PORT; fi
		memory "$case" "$t" loaded "$n" "$pid" "$port"
	done
	local op
	for REP in $(seq 1 "$REPS"); do
		for op in "${ops[@]}"; do
			[[ $lk_ok == 1 ]] || unavailable "$case" loopkv "$case-$op" "loopkv has no HSET"
			for t in "${targets[@]}"; do
				bench "$case" "$t" "$case-$op" throughput "${shape[@]}" -mix "$op=1" -conns "$CONNS" \
					-pipeline "$PIPELINE" -preload=false -duration "$DURATION"
			done
		done
	done
	declare -A rate
	local c0 c1
	for t in "${targets[@]}"; do
		c0=$(capacity "$case-${ops[0]}" "$t") c1=$(capacity "$case-${ops[1]}" "$t")
		rate[$t]=$(awk -v a="$c0" -v b="$c1" -v f="$OPEN_FRACTION" 'BEGIN{m = a < b ? a : b; printf "%d", m * f}')
		log "$case $t: capacity ${ops[0]} $c0, ${ops[1]} $c1 ops/s; open loop at ${rate[$t]}/s"
	done
	for REP in $(seq 1 "$REPS"); do
		[[ $lk_ok == 1 ]] || unavailable "$case" loopkv "$case-open" "loopkv has no HSET"
		for t in "${targets[@]}"; do
			if [[ ${rate[$t]} -le 0 ]]; then
				unavailable "$case" "$t" "$case-open" "no capacity measured"
				continue
			fi
			bench "$case" "$t" "$case-open" throughput "${shape[@]}" -mix "${ops[0]}=1,${ops[1]}=1" \
				-rate "${rate[$t]}" -conns "$CONNS" -pipeline "$PIPELINE" -preload=false -duration "$OPEN_DURATION"
		done
	done
	REP=1
	for t in loopkv redis; do
		if [[ $t == loopkv ]]; then pid=$LK_PID port=$LK_PORT; else pid=$RD_PID port=$RD_PORT; fi
		memory "$case" "$t" end "$n" "$pid" "$port"
	done
	for t in loopkv redis; do
		if [[ $t == loopkv ]]; then pid=$LK_PID; else pid=$RD_PID; fi
		kill -0 "$pid" 2>/dev/null && continue
		log "warning: $t exited during $case; its log: $OUT/$STEM-$t-$case.log"
		cp "$WORK/$t-$case.log" "$OUT/$STEM-$t-$case.log" || true
	done
	echo "$case,lifetime,0,0,$(gc_last "$LK_LOG")" >>"$MARKS"
	echo "lifetime_cpu_ticks $(cpu_ticks "$LK_PID")" >"$OUT/$STEM-gctrace-$case.log"
	grep '^gc ' "$LK_LOG" >>"$OUT/$STEM-gctrace-$case.log" || true
	stop "$LK_PID"
	stop "$RD_PID"
}

for n in $SIZES; do
	run_case strings "$n"
done
if [[ ${HASHES:-0} -gt 0 ]]; then
	run_case hashes "$HASHES"
fi

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
ELAPSED=$(($(date -u +%s) - START))
cp "$MARKS" "$OUT/$STEM-marks.csv"

# --- report: the run's description goes to OUT/STEM-meta.json, from which
# `python3 benchmarks/scaling_report.py OUT/STEM` (re)writes OUT/STEM.md.
export COMMIT LOAD_BEFORE LOAD_AFTER ELAPSED REPS SIZES HASHES FIELDS KEY_LEN VALUE_SIZE CONNS PIPELINE DURATION \
	OPEN_DURATION OPEN_FRACTION CMDS
export QUICK=${QUICK:-0} MACHINE="$(machine)" VERSIONS="$(versions)"
python3 - "$OUT/$STEM-meta.json" <<'PY'
import json, os, sys
keys = "COMMIT LOAD_BEFORE LOAD_AFTER ELAPSED REPS SIZES HASHES FIELDS KEY_LEN VALUE_SIZE CONNS PIPELINE DURATION " \
       "OPEN_DURATION OPEN_FRACTION QUICK MACHINE VERSIONS".split()
meta = {k: os.environ[k] for k in keys}
meta["COMMANDS"] = [l.rstrip("\n") for l in open(os.environ["CMDS"])]
json.dump(meta, open(sys.argv[1], "w"), indent=1)
PY
python3 benchmarks/scaling_report.py "$OUT/$STEM"
log "report: $OUT/$STEM.md (raw: $JSONL $MEM $OUT/$STEM-gctrace-*.log)"
