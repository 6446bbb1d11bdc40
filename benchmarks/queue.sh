#!/usr/bin/env bash
# benchmarks/queue.sh — issue 13's queue latency, loopkv side by side with
# redis-server 7 in one run: queuebench -mode latency (waiters loop BLPOP,
# one pusher RPUSHes its send time, one element in flight; latency from the
# push's send to the waiter's reply) against each server in alternation,
# REPS times. Every server runs on SERVER_CPU, queuebench on CLIENT_CPU.
#
# loopkv runs with LOOPS (2) loops, so the waiters and the pusher spread
# over loops and deliveries cross from one loop to another. Each entry of
# VARIANTS is a loopkv run: "default" as started, or "gomaxprocs=N" with the
# Go runtime's GOMAXPROCS=N in its environment (on one CPU the runtime
# defaults to one P; with more loops than that loopkv raises it to loops + 1
# itself unless the environment sets it, so "gomaxprocs=1" is how it ran
# before, the loops' threads passing one P between them).
#
#	benchmarks/queue.sh
#	REPS=5 N=20000 VARIANTS="default gomaxprocs=3" benchmarks/queue.sh
#
# Knobs: REPS (3), N (10000 pushes), WAITERS (4), LOOPS (2), VARIANTS
# ("default gomaxprocs=3"), SERVER_CPU (0), CLIENT_CPU (1), BIN (bin), GO.
# Prints one line per run and a summary (median p50/p99/p99.9 per server).
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=queue
source benchmarks/lib.sh

REPS=${REPS:-3}
N=${N:-10000}
WAITERS=${WAITERS:-4}
LOOPS=${LOOPS:-2}
VARIANTS=${VARIANTS:-default gomaxprocs=3}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
BIN=${BIN:-bin}

need redis-server taskset timeout
build_bins
${GO:-go} build -o "$BIN/queuebench" ./benchmarks/cmd/queuebench
log "load average $(cut -d' ' -f1-3 /proc/loadavg), commit $COMMIT"

mapfile -t PORTS < <("$BENCH" ports 2)
LK_PORT=${PORTS[0]} RD_PORT=${PORTS[1]}
RESULTS=$WORK/results
: >"$RESULTS"

# one LABEL PORT: one queuebench run, its summary line kept as LABEL.
one() {
	local out
	out=$(timeout 300 taskset -c "$CLIENT_CPU" "$BIN/queuebench" -addr "127.0.0.1:$2" -n "$N" \
		-waiters "$WAITERS" -label "$1" 2>&1 | tail -1)
	echo "$out" >&2
	echo "$out" >>"$RESULTS"
}

launch redis "$RD_PORT" - taskset -c "$SERVER_CPU" redis-server --port "$RD_PORT" --bind 127.0.0.1 \
	--save '' --appendonly no --loglevel warning --dir "$WORK"
RPID=$LAUNCHED
for rep in $(seq "$REPS"); do
	REP=$rep
	for v in $VARIANTS; do
		envs=()
		[[ $v == gomaxprocs=* ]] && envs=("GOMAXPROCS=${v#gomaxprocs=}")
		launch "loopkv-$v" "$LK_PORT" - env "${envs[@]}" taskset -c "$SERVER_CPU" "$BIN/loopkv" \
			--bind 127.0.0.1 --port "$LK_PORT" --tls-port 0 --loops "$LOOPS" --loglevel warning --save '' --dir "$WORK"
		one "loopkv-$v" "$LK_PORT"
		stop "$LAUNCHED"
		one redis "$RD_PORT"
	done
done
stop "$RPID"
log "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo "== runs (label, then queuebench's figures)"
cat "$RESULTS"
