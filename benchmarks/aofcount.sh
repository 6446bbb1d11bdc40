#!/usr/bin/env bash
# benchmarks/aofcount.sh — what each SET costs in system calls and context
# switches under aof.sh's load (issue 15), loopkv beside redis-server 7 in
# the same run: each server on SERVER_CPU with MODE (default
# appendfsync always), the load (loopkv-bench throughput, CONNS
# connections × pipeline 1, SET of 64-byte values) on CLIENT_CPU for
# WINDOW+6 s; after 3 s of it, for WINDOW, perf counts the server's
# context switches and system calls by name (syscalls:sys_enter_*), then
# records for 1 s the return value of every epoll_wait (events per wake).
# Operations are INFO's total_commands_processed over the window. Needs
# perf with tracepoint access (root, or perf_event_paranoid <= -1).
#
#   benchmarks/aofcount.sh
#   LOOPKV_B=/tmp/loopkv-other benchmarks/aofcount.sh   # and a second loopkv build
#
# Knobs: MODE=always (no, everysec, always) CONNS=50 WINDOW=3 REPS=1
# LOOPKV_B= SERVER_CPU=0 CLIENT_CPU=1 BIN=bin OUT=benchmarks/results GO=go
#
# Writes OUT/aofcount-<UTC date-time>.md. Stops only the processes it
# started, by PID; only 127.0.0.1 is used.
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=aofcount
# shellcheck source=benchmarks/lib.sh
source benchmarks/lib.sh

MODE=${MODE:-always}
CONNS=${CONNS:-50}
WINDOW=${WINDOW:-3}
REPS=${REPS:-1}
LOOPKV_B=${LOOPKV_B:-}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
BIN=${BIN:-bin}
OUT=${OUT:-benchmarks/results}
need redis-server redis-cli taskset timeout perf python3

SYSCALLS="read write epoll_wait epoll_pwait fdatasync futex nanosleep"
EVENTS=context-switches,raw_syscalls:sys_enter
for s in $SYSCALLS; do EVENTS+=,syscalls:sys_enter_$s; done

START=$(date -u +%s)
STEM=aofcount-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
ROWS=$WORK/rows
: >"$ROWS"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
build_bins

# processed PORT: INFO's total_commands_processed.
processed() {
	redis-cli -p "$1" info stats | tr -d '\r' | awk -F: '$1 == "total_commands_processed" {print $2}'
}

# count_one LABEL: launch LABEL with MODE, load it, count, stop it; appends
# one JSON row to ROWS.
count_one() {
	local label=$1 dir port pid load c0 c1 t0 t1 flags
	dir=$WORK/$label-$REP
	mkdir -p "$dir"
	port=$("$BENCH" ports 1)
	flags=(--appendonly yes --appendfsync "$MODE")
	[[ $MODE == no ]] && flags=(--appendonly no)
	case $label in
	redis) launch "$label-$REP" "$port" - taskset -c "$SERVER_CPU" redis-server --bind 127.0.0.1 --port "$port" \
		--save '' --loglevel warning --dir "$dir" "${flags[@]}" ;;
	*)
		local bin=$BIN/loopkv
		[[ $label == loopkv-b ]] && bin=$LOOPKV_B
		launch "$label-$REP" "$port" - taskset -c "$SERVER_CPU" "$bin" --bind 127.0.0.1 --port "$port" \
			--loops 1 --loglevel warning --save '' --dir "$dir" "${flags[@]}"
		;;
	esac
	pid=$LAUNCHED
	log "$MODE $label rep $REP"
	cmdlog taskset -c "$CLIENT_CPU" timeout 120 "$BENCH" throughput -addr "127.0.0.1:$port" -progress=false \
		-mix set=1 -keys 100000 -value-size 64 -conns "$CONNS" -pipeline 1 -preload=false \
		-duration "$((WINDOW + 6))s" -json "" >/dev/null &
	load=$!
	sleep 3
	c0=$(processed "$port")
	t0=$(cpu_ticks "$pid")
	perf stat -x, -e "$EVENTS" -o "$dir/stat" -p "$pid" -- sleep "$WINDOW" 2>/dev/null
	c1=$(processed "$port")
	t1=$(cpu_ticks "$pid")
	perf record -q -e syscalls:sys_exit_epoll_wait -p "$pid" -o "$dir/wait.data" -- sleep 1 >/dev/null 2>&1 || true
	wait "$load" || log "warning: the load on $label failed"
	stop "$pid"
	perf script -i "$dir/wait.data" -F trace 2>/dev/null >"$dir/wait.txt" || true
	python3 - "$label" "$REP" "$((c1 - c0 - 1))" "$((t1 - t0))" "$WINDOW" "$dir/stat" "$dir/wait.txt" >>"$ROWS" <<'PY'
import json, sys
label, rep, ops, ticks, window, stat, wait = sys.argv[1:]
ops, window = max(int(ops), 1), float(window)
counts = {}
for line in open(stat):
    f = line.strip().split(",")
    if len(f) > 2 and f[0].isdigit():
        name = "all" if f[2] == "raw_syscalls:sys_enter" else f[2].split(":")[-1].replace("sys_enter_", "")
        counts[name] = int(f[0])
calls = events = 0
for line in open(wait):
    if "0x" in line:
        r = int(line.rsplit("0x", 1)[1], 16)
        if r < 1 << 63:
            calls, events = calls + 1, events + r
print(json.dumps({"label": label, "rep": int(rep), "ops": ops, "ops_per_s": ops / window,
                  "cpu_us_per_op": int(ticks) * 1e4 / ops, "counts": counts,
                  "events_per_wait": events / calls if calls else None}))
PY
}

for ((REP = 1; REP <= REPS; REP++)); do
	count_one loopkv
	[[ -z $LOOPKV_B ]] || count_one loopkv-b
	count_one redis
done

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
ELAPSED=$(($(date -u +%s) - START))
export ELAPSED COMMIT LOAD_BEFORE LOAD_AFTER CONNS MODE WINDOW REPS LOOPKV_B ROWS SYSCALLS CMDS
export QUICK=0 MACHINE="$(machine)" VERSIONS="$(versions)" DURATION="${WINDOW}s"
python3 - "$OUT/$STEM.md" <<'PY'
import json, os, sys
sys.path.insert(0, "benchmarks")
import benchlib as bl
E = dict(os.environ)
rows = [json.loads(l) for l in open(E["ROWS"]) if l.strip()]
f = open(sys.argv[1], "w")
w = lambda s="": f.write(s + "\n")
bl.write_header(w, "System calls and context switches per SET, appendfsync %s" % E["MODE"], "benchmarks/aofcount.sh", E,
                "%s connections × pipeline 1, SET of 64-byte values, counted over %s s (perf stat -p) after 3 s of load, "
                "every repetition listed." % (E["CONNS"], E["WINDOW"]))
w()
names = E["SYSCALLS"].split()
w("| server (rep) | ops/s | CPU µs/op | ctx switches/op | syscalls/op | " + " | ".join(n + "/op" for n in names) +
  " | ops per fdatasync | events per epoll_wait |")
w("|---" * (7 + len(names)) + "|")
for r in rows:
    c, ops = r["counts"], r["ops"]
    per = lambda k: "%.3f" % (c[k] / ops) if k in c else "–"
    fs = c.get("fdatasync", 0)
    w("| %s (%d) | %s | %.2f | %s | %s | %s | %s | %s |" % (
        r["label"], r["rep"], bl.fmt(r["ops_per_s"]), r["cpu_us_per_op"], per("context-switches"), per("all"),
        " | ".join(per(n) for n in names), "%.1f" % (ops / fs) if fs else "–",
        "%.1f" % r["events_per_wait"] if r["events_per_wait"] else "–"))
w()
bl.write_commands(w, [l.rstrip("\n") for l in open(E["CMDS"])], "ports and directories were free/temporary")
PY
log "report: $OUT/$STEM.md"
