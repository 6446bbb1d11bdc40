#!/usr/bin/env bash
# benchmarks/queue-trace.sh — issue 13's queue latency as the server sees
# it, from its system calls: queuebench -mode latency runs against each
# server as in queue.sh (loopkv with LOOPS loops and redis-server, both on
# SERVER_CPU, queuebench on CLIENT_CPU, fixed source ports so that every
# loopkv build places the connections alike), and perf records the
# server's read and write tracepoints for TRACE_SECONDS in the middle of
# the run. For each RPUSH read (its 49 bytes) it reports the time to the
# start and to the end of the write of the BLPOP reply that push served
# (38 bytes), split by whether a write of 8 bytes to another loop's eventfd
# came between them, i.e. whether the waiter sat on another loop than the
# pusher ("cross") or on the same one ("same"; redis has only those). A
# loop's eventfd is its epoll descriptor + 1 (gnet's OpenPoller makes them
# in that order), so the loop's own eventfd (the deferred-reply flush of
# transport_gnet_out.go) does not count. A second pass counts system calls
# and context switches per push (perf stat).
#
# These figures exclude the client's side (its wake-ups and scheduling),
# which dominates queuebench's end-to-end latency on a virtual machine and
# varies with the load, so they move with a server change where queue.sh's
# do not. Needs perf and the rights to trace (root).
#
#	benchmarks/queue-trace.sh
#	LOOPKV_B=/tmp/loopkv-before REPS=2 benchmarks/queue-trace.sh
#
# Knobs: REPS (2), N (20000 pushes), WAITERS (4), LOOPS (2), LOOPKV_B (none),
# SRC_PORT (21000), TRACE_SECONDS (1), SERVER_CPU (0), CLIENT_CPU (1),
# BIN (bin), GO.
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=queue-trace
source benchmarks/lib.sh

REPS=${REPS:-2}
N=${N:-20000}
WAITERS=${WAITERS:-4}
LOOPS=${LOOPS:-2}
LOOPKV_B=${LOOPKV_B:-}
SRC_PORT=${SRC_PORT:-21000}
TRACE_SECONDS=${TRACE_SECONDS:-1}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
BIN=${BIN:-bin}

need redis-server taskset timeout perf python3
[[ -z $LOOPKV_B || -x $LOOPKV_B ]] || die "LOOPKV_B=$LOOPKV_B is not an executable"
build_bins
${GO:-go} build -o "$BIN/queuebench" ./benchmarks/cmd/queuebench
log "load average $(cut -d' ' -f1-3 /proc/loadavg), commit $COMMIT"
PORT=$("$BENCH" ports 1)

# start LABEL: launch the server of LABEL on PORT; LAUNCHED is its PID.
start() {
	case $1 in
	redis)
		launch "$1" "$PORT" - taskset -c "$SERVER_CPU" redis-server --port "$PORT" --bind 127.0.0.1 \
			--save '' --appendonly no --loglevel warning --dir "$WORK"
		;;
	*)
		local bin=$BIN/loopkv
		[[ $1 == loopkv-b ]] && bin=$LOOPKV_B
		launch "$1" "$PORT" - taskset -c "$SERVER_CPU" "$bin" --bind 127.0.0.1 --port "$PORT" \
			--tls-port 0 --loops "$LOOPS" --loglevel warning --save '' --dir "$WORK"
		;;
	esac
}

# bench SRC LABEL: queuebench against PORT in the background; QB is its PID.
bench() {
	taskset -c "$CLIENT_CPU" "$BIN/queuebench" -addr "127.0.0.1:$PORT" -n "$N" -waiters "$WAITERS" \
		-src-port "$1" -label "$2" >"$WORK/qb.out" 2>&1 &
	QB=$!
}

# latencies: perf script lines on stdin -> one line per kind (same, cross).
latencies() {
	python3 -c '
import sys
lat = {"same": ([], []), "cross": ([], [])}
epfd = {}  # thread -> the epoll descriptor it last waited on
t0 = enter = own = None
cross = False
for line in sys.stdin:
    f = line.split()
    if len(f) < 4:
        continue
    tid, t, ev = f[0], float(f[1].rstrip(":")), f[2]
    if ev.endswith("sys_enter_epoll_wait:"):
        epfd[tid] = int(f[4].rstrip(","), 16)
    elif ev.endswith("sys_exit_read:") and f[3] == "0x31":  # the RPUSH, 49 bytes
        t0, cross, enter = t, False, None
        own = epfd.get(tid, -2) + 1  # the eventfd of the reading loop
    elif t0 is not None and ev.endswith("sys_enter_write:"):
        fd, count = int(f[4].rstrip(","), 16), f[-1]
        if count == "0x00000008" and fd != own:  # the eventfd of another loop: the waiter is there
            cross = True
        elif count == "0x00000026":  # the BLPOP reply, 38 bytes
            enter = t
    elif t0 is not None and enter is not None and ev.endswith("sys_exit_write:") and f[3] == "0x26":
        k = "cross" if cross else "same"
        lat[k][0].append((enter - t0) * 1e6)
        lat[k][1].append((t - t0) * 1e6)
        t0 = enter = None
q = lambda v, p: v[min(len(v) - 1, int(len(v) * p))]
for k, (a, b) in lat.items():
    if a:
        a.sort(); b.sort()
        print("  %-5s n=%-5d to the write: p50=%.0f p90=%.0f p99=%.0f µs; to its end: p50=%.0f p90=%.0f p99=%.0f µs"
              % (k, len(a), q(a, .5), q(a, .9), q(a, .99), q(b, .5), q(b, .9), q(b, .99)))
'
}

labels=(loopkv)
[[ -z $LOOPKV_B ]] || labels+=(loopkv-b)
labels+=(redis)
EVENTS=syscalls:sys_enter_futex,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_write,syscalls:sys_enter_read,syscalls:sys_enter_nanosleep,sched:sched_switch
for rep in $(seq "$REPS"); do
	REP=$rep
	src=$((SRC_PORT + 10 * (rep - 1)))
	for l in "${labels[@]}"; do
		start "$l"
		pid=$LAUNCHED
		bench "$src" "$l"
		sleep 0.5
		perf record -q -o "$WORK/perf.data" -p "$pid" -e syscalls:sys_exit_write,syscalls:sys_enter_write,syscalls:sys_exit_read,syscalls:sys_enter_epoll_wait \
			-- sleep "$TRACE_SECONDS" >/dev/null 2>&1
		wait "$QB" || true
		echo "$l rep $rep (queuebench, traced: $(tail -1 "$WORK/qb.out"))"
		perf script -i "$WORK/perf.data" -F tid,time,event,trace 2>/dev/null | latencies
		stop "$pid"
		start "$l"
		pid=$LAUNCHED
		perf stat -x, -e "$EVENTS" -p "$pid" -o "$WORK/stat.txt" &
		ps=$!
		bench "$src" "$l"
		wait "$QB" || true
		kill -INT "$ps"
		wait "$ps" || true
		pushes=$(sed -n 's/.*pushes=\([0-9]*\).*/\1/p' "$WORK/qb.out")
		awk -F, -v n="${pushes:-$N}" '/^[0-9]/ { e = $3; sub(/^(syscalls:sys_enter_|sched:sched_)/, "", e); printf " %s=%.2f", e, $1 / n }
			END { print "" }' "$WORK/stat.txt" | sed 's/^/  per push:/'
		stop "$pid"
	done
done
log "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
