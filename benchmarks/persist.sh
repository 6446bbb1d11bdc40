#!/usr/bin/env bash
# benchmarks/persist.sh — BGSAVE of a large keyspace while an open-loop load
# runs, loopkv side by side with redis-server 7 (Debian) in the same run
# (issue 15). Both servers run on SERVER_CPU (0) with the same settings
# (--save '', a fresh --dir, rdbcompression yes, rdbchecksum yes; loopkv
# with one loop), every client on CLIENT_CPU (1). Per server:
#
#   1. KEYS string keys of VALUE_SIZE bytes (`loopkv-bench load`).
#   2. Capacity: closed loop, CONNS connections × pipeline 1, GET:SET 1:1 on
#      uniformly random keys, DURATION: ops/s.
#   3. An idle BGSAVE: time from BGSAVE to rdb_bgsave_in_progress:0 (polled
#      every 10 ms) — the time to save.
#   4. Open loop at OPEN_FRACTION (0.5) of capacity, the same mix, for
#      OPEN_DURATION: p99.9 "before" (latency from intended send times,
#      coordinated omission corrected).
#   5. The same open loop again, with a BGSAVE sent 0.3 s after it starts;
#      its duration is the idle save time, so the window lies inside the
#      save: p99.9 "during". Meanwhile the server's memory is sampled every
#      50 ms as the sum of Pss (/proc/PID/smaps_rollup) over the server and
#      its children (Redis's fork child): extra memory = peak − the reading
#      before BGSAVE. Pss splits pages shared by the fork, so the sum is the
#      physical memory both processes hold.
#   6. Load: SHUTDOWN NOSAVE, restart on the dump, time from exec until PING
#      answers PONG (Redis answers -LOADING meanwhile; loopkv loads before
#      it listens).
#
# Writes OUT/persist-<UTC date-time>.md (table, goals, commands, machine,
# load average) and the raw runs (.jsonl). Stops only the processes it
# started, by PID; only 127.0.0.1 is used.
#
#   benchmarks/persist.sh                  # 5 million keys
#   KEYS=1000000 benchmarks/persist.sh     # a reduced run
#
# Knobs: KEYS=5000000 VALUE_SIZE=64 CONNS=50 DURATION=5s OPEN_DURATION=10s
# OPEN_FRACTION=0.5 LOAD_CONNS=4 LOAD_PIPELINE=1000 RUN_TIMEOUT=900 TARGETS="loopkv redis"
# SERVER_CPU=0 CLIENT_CPU=1 BIN=bin OUT=benchmarks/results GO=go
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=persist
# shellcheck source=benchmarks/lib.sh
source benchmarks/lib.sh

KEYS=${KEYS:-5000000}
VALUE_SIZE=${VALUE_SIZE:-64}
CONNS=${CONNS:-50}
DURATION=${DURATION:-5s}
OPEN_DURATION=${OPEN_DURATION:-10s}
OPEN_FRACTION=${OPEN_FRACTION:-0.5}
LOAD_CONNS=${LOAD_CONNS:-4}
LOAD_PIPELINE=${LOAD_PIPELINE:-1000}
RUN_TIMEOUT=${RUN_TIMEOUT:-900}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
BIN=${BIN:-bin}
OUT=${OUT:-benchmarks/results}
GO=${GO:-go}

need redis-server redis-cli taskset timeout python3
[[ $(nproc --all) -ge 2 ]] || die "needs 2 CPUs (server on $SERVER_CPU, load on $CLIENT_CPU)"

START=$(date -u +%s)
STEM=persist-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
JSONL=$OUT/$STEM.jsonl FIG=$WORK/figures
: >"$JSONL"
: >"$FIG"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
log "load average $LOAD_BEFORE"
build_bins
PIN_SERVER=(taskset -c "$SERVER_CPU")
PIN_CLIENT=(taskset -c "$CLIENT_CPU" timeout "$RUN_TIMEOUT")
SHAPE=(-keys "$KEYS" -value-size "$VALUE_SIZE")

# now_ms: the wall clock in milliseconds.
now_ms() { date +%s%3N; }

# pss_kb PID: the Pss of PID and its children, in KiB.
pss_kb() {
	local p sum=0 v
	for p in "$1" $(pgrep -P "$1" 2>/dev/null || true); do
		v=$(awk '$1 == "Pss:" {print $2}' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0)
		sum=$((sum + ${v:-0}))
	done
	echo "$sum"
}

# rcli PORT ARGS...: redis-cli against a local port.
rcli() {
	local port=$1
	shift
	redis-cli -h 127.0.0.1 -p "$port" "$@"
}

# bgsave_wait PORT: send BGSAVE, wait for its end; prints its milliseconds.
bgsave_wait() {
	local t0 r
	t0=$(now_ms)
	r=$(rcli "$1" BGSAVE)
	[[ $r == "Background saving started" ]] || die "BGSAVE: $r"
	sleep 0.01
	while rcli "$1" INFO persistence | grep -q '^rdb_bgsave_in_progress:1'; do sleep 0.01; done
	rcli "$1" INFO persistence | grep -q '^rdb_last_bgsave_status:ok' || die "BGSAVE failed"
	echo $(($(now_ms) - t0))
}

# figure LABEL NAME VALUE: one measured figure, for the report.
figure() { echo "$1 $2 $3" >>"$FIG"; }

# bench LABEL SCENARIO MODE ARGS...: one loopkv-bench run on CLIENT_CPU.
bench() {
	local label=$1 scenario=$2 mode=$3 rc=0
	shift 3
	log "$scenario $label"
	cmdlog "${PIN_CLIENT[@]}" "$BENCH" "$mode" -label "$label" -scenario "$scenario" -json "$JSONL" -pid "$PID" \
		-addr "127.0.0.1:$PORT" -progress=false "$@" || rc=$?
	bench_rc "$rc" "$mode" "$label" "$scenario"
}

# field SCENARIO LABEL KEY: a number from the last matching JSONL run.
field() {
	python3 - "$JSONL" "$@" <<'PY'
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
v = 0
for r in runs:
    if r.get("scenario") == sys.argv[2] and r.get("label") == sys.argv[3] and not r.get("unavailable"):
        v = r
        for k in sys.argv[4].split("."):
            v = v.get(k, 0) if isinstance(v, dict) else 0
print(v)
PY
}

# start LABEL DIR: launch the server LABEL saving into DIR; sets PID and PORT.
start() {
	local label=$1 dir=$2
	if [[ $label == loopkv ]]; then
		launch "$label-$RUNS" "$PORT" - "${PIN_SERVER[@]}" "$BIN/loopkv" --bind 127.0.0.1 --port "$PORT" --loops 1 \
			--loglevel warning --save '' --dir "$dir"
	else
		launch "$label-$RUNS" "$PORT" - "${PIN_SERVER[@]}" redis-server --bind 127.0.0.1 --port "$PORT" \
			--save '' --appendonly no --loglevel warning --dir "$dir"
	fi
	PID=$LAUNCHED
}
LAUNCH_WAIT=${RUN_TIMEOUT}s # a restart loads the file before it answers

RUNS=0
# run_server LABEL: the whole study of one server.
run_server() {
	local label=$1 dir=$WORK/$1 ms cap rate
	mkdir -p "$dir"
	RUNS=$((RUNS + 1))
	PORT=$("$BENCH" ports 1)
	start "$label" "$dir"
	bench "$label" load load "${SHAPE[@]}" -mix set=1 -conns "$LOAD_CONNS" -pipeline "$LOAD_PIPELINE"
	figure "$label" rss_loaded_kb "$(rss_kb "$PID")"
	bench "$label" capacity throughput "${SHAPE[@]}" -mix get=1,set=1 -conns "$CONNS" -preload=false -duration "$DURATION"
	cap=$(field capacity "$label" ops_per_s)
	rate=$(awk -v c="$cap" -v f="$OPEN_FRACTION" 'BEGIN{printf "%d", c * f}')
	log "$label: capacity $cap ops/s; open loop at $rate/s"
	figure "$label" capacity "$cap"
	ms=$(bgsave_wait "$PORT")
	log "$label: idle BGSAVE $ms ms"
	figure "$label" save_ms "$ms"
	figure "$label" rdb_bytes "$(stat -c %s "$dir/dump.rdb")"
	bench "$label" before throughput "${SHAPE[@]}" -mix get=1,set=1 -conns "$CONNS" -preload=false \
		-rate "$rate" -duration "$OPEN_DURATION"
	# during: the load in the background, BGSAVE 0.3 s in, memory sampled
	local win base peak=0 v t0 bg
	win=$(awk -v m="$ms" 'BEGIN{printf "%dms", (m > 1000 ? m : 1000)}')
	bench "$label" during throughput "${SHAPE[@]}" -mix get=1,set=1 -conns "$CONNS" -preload=false \
		-rate "$rate" -duration "$win" &
	bg=$!
	sleep 0.3
	base=$(pss_kb "$PID")
	t0=$(now_ms)
	[[ $(rcli "$PORT" BGSAVE) == "Background saving started" ]] || die "$label: BGSAVE refused"
	while :; do
		v=$(pss_kb "$PID")
		((v > peak)) && peak=$v
		rcli "$PORT" INFO persistence | grep -q '^rdb_bgsave_in_progress:1' || break
		sleep 0.05
	done
	figure "$label" loaded_save_ms "$(($(now_ms) - t0))"
	wait "$bg" || true
	figure "$label" pss_before_kb "$base"
	figure "$label" pss_extra_kb "$((peak - base))"
	rcli "$PORT" INFO persistence | grep -q '^rdb_last_bgsave_status:ok' || die "$label: BGSAVE under load failed"
	rcli "$PORT" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
	wait "$PID" 2>/dev/null || true
	stop "$PID"
	# load: restart on the file
	t0=$(now_ms)
	start "$label" "$dir"
	figure "$label" load_ms "$(($(now_ms) - t0))"
	figure "$label" keys_loaded "$(rcli "$PORT" DBSIZE)"
	stop "$PID"
}

for t in ${TARGETS:-loopkv redis}; do
	run_server "$t"
done

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
ELAPSED=$(($(date -u +%s) - START))
export ELAPSED COMMIT LOAD_BEFORE LOAD_AFTER KEYS VALUE_SIZE CONNS DURATION OPEN_DURATION OPEN_FRACTION CMDS FIG JSONL STEM
export MACHINE="$(machine)" VERSIONS="$(versions)"
python3 - "$OUT/$STEM.md" <<'PY'
import json, os, sys
sys.path.insert(0, "benchmarks")
import benchlib as bl
E = dict(os.environ)
fig = {}
for line in open(E["FIG"]):
    label, name, value = line.split()
    fig.setdefault(label, {})[name] = float(value)
runs = {}
for l in open(E["JSONL"]):
    if l.strip():
        r = json.loads(l)
        runs[(r.get("scenario"), r.get("label"))] = r
def p999(scenario, label):
    r = runs.get((scenario, label)) or {}
    return None if r.get("unavailable") else (r.get("latency") or {}).get("p999_us")
def value(label, key):
    F = fig.get(label, {})
    if key == "rate":
        return F.get("capacity", 0) * float(E["OPEN_FRACTION"])
    if key in ("before", "during"):
        return p999(key, label)
    if key == "ratio":
        return bl.ratio(p999("during", label), p999("before", label))
    return F.get(key)
rows = [
    ("capacity (GET:SET 1:1, %s conns, pipeline 1)" % E["CONNS"], "capacity", " ops/s", 1),
    ("open-loop rate", "rate", " ops/s", 1),
    ("p99.9 before the save", "before", " µs", 1),
    ("p99.9 during the save", "during", " µs", 1),
    ("p99.9 during / before", "ratio", "×", 1),
    ("RSS with the keys loaded", "rss_loaded_kb", " MiB", 1 / 1024),
    ("extra memory during the save (Pss peak − before)", "pss_extra_kb", " MiB", 1 / 1024),
    ("time to save (idle BGSAVE)", "save_ms", " s", 1 / 1000),
    ("time to save under the load", "loaded_save_ms", " s", 1 / 1000),
    ("time to load (exec to PONG)", "load_ms", " s", 1 / 1000),
    ("RDB file", "rdb_bytes", " MiB", 1 / 2**20),
    ("keys loaded", "keys_loaded", "", 1),
]
f = open(sys.argv[1], "w")
w = lambda s="": f.write(s + "\n")
E["QUICK"] = "0"
bl.write_header(w, "BGSAVE of %s keys under an open-loop load, loopkv and redis-server" % f"{int(E['KEYS']):,}",
                "benchmarks/persist.sh", E, "KEYS=%s, values %s bytes, open loop %s of capacity." % (
                    E["KEYS"], E["VALUE_SIZE"], E["OPEN_FRACTION"]))
w()
w("| | loopkv | redis | loopkv / redis |")
w("|---|---|---|---|")
for name, key, unit, scale in rows:
    a, b = value("loopkv", key), value("redis", key)
    sc = lambda v: None if v is None else v * scale
    r = bl.ratio(a, b)
    w("| %s | %s | %s | %s |" % (name, bl.fmt(sc(a), unit), bl.fmt(sc(b), unit), "" if r is None else bl.fmt(r, "×")))
w()
w("Goals (issue 15): p99.9 during the save at most 2× before; extra memory at most Redis's; "
  "time to save and to load at most Redis's.")
w()
bl.write_commands(w, [l.rstrip("\n") for l in open(E["CMDS"])], "ports and directories were free/temporary")
PY
log "report: $OUT/$STEM.md (raw: $JSONL)"
