#!/usr/bin/env bash
# benchmarks/aof.sh — SET throughput and server CPU per op with the
# append-only file, loopkv side by side with redis-server 7 (Debian) in the
# same run (issue 15). Both servers run on SERVER_CPU (0) with the same
# settings (--save '', a fresh --dir per run, appendonly no | yes with
# appendfsync everysec | always; loopkv with one loop), the load on
# CLIENT_CPU (1): closed loop, CONNS connections × pipeline 1, SET of
# VALUE_SIZE-byte values on KEYS uniformly random keys, for DURATION, REPS
# times in alternation (loopkv, redis, loopkv, ...). Server CPU per op is
# the server process's utime+stime (every thread: loopkv's AOF writer,
# Redis's bio fsync thread) over the run divided by the commands.
#
# Writes OUT/aof-<UTC date-time>.md (table of medians, goals, commands,
# machine, load average) and the raw runs (.jsonl). Stops only the
# processes it started, by PID; only 127.0.0.1 is used. The fsync cost
# depends on the disk under WORKDIR (default: TMPDIR or /tmp).
#
#   benchmarks/aof.sh
#   QUICK=1 benchmarks/aof.sh      # a smoke run: one short repetition
#   LOOPKV_B=/tmp/loopkv-other benchmarks/aof.sh   # and a second loopkv build, in turn
#
# Knobs: CONNS=50 PIPELINE=1 DURATION=5s REPS=3 KEYS=100000 VALUE_SIZE=64
# MODES="no everysec always" RUN_TIMEOUT=120 SERVER_CPU=0 CLIENT_CPU=1
# LOOPKV_B= BIN=bin OUT=benchmarks/results GO=go
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=aof
# shellcheck source=benchmarks/lib.sh
source benchmarks/lib.sh

QUICK=${QUICK:-0}
CONNS=${CONNS:-50}
PIPELINE=${PIPELINE:-1}
DURATION=${DURATION:-5s}
REPS=${REPS:-3}
KEYS=${KEYS:-100000}
VALUE_SIZE=${VALUE_SIZE:-64}
MODES=${MODES:-no everysec always}
LOOPKV_B=${LOOPKV_B:-}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
BIN=${BIN:-bin}
OUT=${OUT:-benchmarks/results}
GO=${GO:-go}
if [[ $QUICK == 1 ]]; then
	DURATION=1s REPS=1
fi

need redis-server redis-cli taskset timeout python3
[[ $(nproc --all) -ge 2 ]] || die "needs 2 CPUs (server on $SERVER_CPU, load on $CLIENT_CPU)"

START=$(date -u +%s)
STEM=aof-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
JSONL=$OUT/$STEM.jsonl
: >"$JSONL"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
log "load average $LOAD_BEFORE"
build_bins
PIN_SERVER=(taskset -c "$SERVER_CPU")
PIN_CLIENT=(taskset -c "$CLIENT_CPU" timeout "$RUN_TIMEOUT")

# aof_args MODE: the persistence flags of MODE, the same for both servers.
aof_args() {
	if [[ $1 == no ]]; then
		echo "--appendonly no"
	else
		echo "--appendonly yes --appendfsync $1"
	fi
}

# run_one LABEL MODE: launch LABEL with MODE on a fresh directory, run the
# load once, stop it.
run_one() {
	local label=$1 mode=$2 dir port rc=0
	dir=$WORK/$label-$mode-$REP
	mkdir -p "$dir"
	port=$("$BENCH" ports 1)
	# shellcheck disable=SC2046
	if [[ $label == loopkv* ]]; then
		local bin=$BIN/loopkv
		[[ $label == loopkv-b ]] && bin=$LOOPKV_B
		launch "$label-$mode-$REP" "$port" - "${PIN_SERVER[@]}" "$bin" --bind 127.0.0.1 --port "$port" \
			--loops 1 --loglevel warning --save '' --dir "$dir" $(aof_args "$mode")
	else
		launch "$label-$mode-$REP" "$port" - "${PIN_SERVER[@]}" redis-server --bind 127.0.0.1 --port "$port" \
			--save '' --loglevel warning --dir "$dir" $(aof_args "$mode")
	fi
	local pid=$LAUNCHED
	log "$mode $label rep $REP"
	cmdlog "${PIN_CLIENT[@]}" "$BENCH" throughput -label "$label" -scenario "$mode" -rep "$REP" -json "$JSONL" \
		-pid "$pid" -addr "127.0.0.1:$port" -progress=false -mix set=1 -keys "$KEYS" -value-size "$VALUE_SIZE" \
		-conns "$CONNS" -pipeline "$PIPELINE" -preload=false -duration "$DURATION" || rc=$?
	bench_rc "$rc" throughput "$label" "$mode"
	stop "$pid"
}

for ((REP = 1; REP <= REPS; REP++)); do
	for mode in $MODES; do
		run_one loopkv "$mode"
		[[ -z $LOOPKV_B ]] || run_one loopkv-b "$mode"
		run_one redis "$mode"
	done
done

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
ELAPSED=$(($(date -u +%s) - START))
export ELAPSED COMMIT LOAD_BEFORE LOAD_AFTER CONNS PIPELINE DURATION REPS KEYS VALUE_SIZE MODES CMDS JSONL QUICK LOOPKV_B
export MACHINE="$(machine)" VERSIONS="$(versions)"
python3 - "$OUT/$STEM.md" <<'PY'
import json, os, sys
sys.path.insert(0, "benchmarks")
import benchlib as bl
E = dict(os.environ)
runs = [json.loads(l) for l in open(E["JSONL"]) if l.strip()]
def vals(mode, label, key):
    return [r.get(key) for r in runs if r.get("scenario") == mode and r.get("label") == label
            and not r.get("unavailable") and r.get(key, -1) >= 0]
def m(mode, label, key):
    return bl.med(vals(mode, label, key))
f = open(sys.argv[1], "w")
w = lambda s="": f.write(s + "\n")
bl.write_header(w, "SET with the append-only file, loopkv and redis-server", "benchmarks/aof.sh", E,
                "%s connections × pipeline %s, SET of %s-byte values on %s keys, %s per run, median of %s." % (
                    E["CONNS"], E["PIPELINE"], E["VALUE_SIZE"], E["KEYS"], E["DURATION"], E["REPS"]))
w()
w("| appendfsync | loopkv ops/s | redis ops/s | loopkv / redis | loopkv CPU µs/op | redis CPU µs/op | loopkv / redis |")
w("|---|---|---|---|---|---|---|")
modes = E["MODES"].split()
for mode in modes:
    a, b = m(mode, "loopkv", "ops_per_s"), m(mode, "redis", "ops_per_s")
    ca, cb = m(mode, "loopkv", "server_cpu_per_op_us"), m(mode, "redis", "server_cpu_per_op_us")
    name = "appendonly no" if mode == "no" else mode
    w("| %s | %s (%s) | %s (%s) | %s | %s | %s | %s |" % (
        name, bl.fmt(a), bl.rng(vals(mode, "loopkv", "ops_per_s")), bl.fmt(b), bl.rng(vals(mode, "redis", "ops_per_s")),
        bl.fmt(bl.ratio(a, b), "×"), bl.fmt(ca), bl.fmt(cb), bl.fmt(bl.ratio(ca, cb), "×")))
w()
if E["LOOPKV_B"]:
    w("loopkv-b is `%s`, run in turn with the two above (loopkv, loopkv-b, redis):" % E["LOOPKV_B"])
    w()
    w("| appendfsync | loopkv-b ops/s | loopkv-b / redis | loopkv-b CPU µs/op | loopkv-b / redis | loopkv-b / loopkv CPU |")
    w("|---|---|---|---|---|---|")
    for mode in modes:
        a, b = m(mode, "loopkv-b", "ops_per_s"), m(mode, "redis", "ops_per_s")
        ca, cb = m(mode, "loopkv-b", "server_cpu_per_op_us"), m(mode, "redis", "server_cpu_per_op_us")
        name = "appendonly no" if mode == "no" else mode
        w("| %s | %s (%s) | %s | %s | %s | %s |" % (
            name, bl.fmt(a), bl.rng(vals(mode, "loopkv-b", "ops_per_s")), bl.fmt(bl.ratio(a, b), "×"), bl.fmt(ca),
            bl.fmt(bl.ratio(ca, cb), "×"), bl.fmt(bl.ratio(ca, m(mode, "loopkv", "server_cpu_per_op_us")), "×")))
    w()
def verdict(ok):
    return "n/a" if ok is None else ("met" if ok else "**not met**")
ra = bl.ratio(m("always", "loopkv", "ops_per_s"), m("always", "redis", "ops_per_s"))
rc = bl.ratio(m("always", "loopkv", "server_cpu_per_op_us"), m("always", "redis", "server_cpu_per_op_us"))
re = bl.ratio(m("everysec", "loopkv", "server_cpu_per_op_us"), m("no", "loopkv", "server_cpu_per_op_us"))
w("Goals (issue 15):")
w()
w("- appendfsync always, SET throughput at least Redis's: %s (%s) — %s" % (bl.fmt(ra, "×"), "loopkv / redis", verdict(None if ra is None else ra >= 1)))
w("- appendfsync always, server CPU per op at most 0.7× Redis's: %s — %s" % (bl.fmt(rc, "×"), verdict(None if rc is None else rc <= 0.7)))
w("- everysec, loopkv's CPU per op at most +10%% over no persistence: %s — %s" % (bl.fmt(re, "×"), verdict(None if re is None else re <= 1.1)))
w()
bl.write_commands(w, [l.rstrip("\n") for l in open(E["CMDS"])], "ports and directories were free/temporary")
PY
log "report: $OUT/$STEM.md (raw: $JSONL)"
