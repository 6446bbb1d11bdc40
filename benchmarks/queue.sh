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
# With LOOPKV_B set to a second loopkv binary (a build of another commit),
# each variant runs on both builds in turn, as "loopkv-b-VARIANT", each
# followed by its own redis run, so the two builds are compared in the same
# run (A/B). queuebench binds its connections to fixed source ports
# (SRC_PORT, a new base each repetition), so that within a repetition every
# loopkv build sees its connections spread over its loops the same way (the
# kernel picks a SO_REUSEPORT listener by a hash of the addresses): how many
# waiters share the pusher's loop changes the figures more than most
# changes do. SRC_PORT=0 lets the kernel pick.
#
#	benchmarks/queue.sh
#	REPS=5 N=20000 VARIANTS="default gomaxprocs=3" benchmarks/queue.sh
#	REPS=5 VARIANTS=default LOOPKV_B=/tmp/loopkv-before benchmarks/queue.sh
#
# Knobs: REPS (3), N (10000 pushes), WAITERS (4), LOOPS (2), VARIANTS
# ("default gomaxprocs=3"), LOOPKV_B (none), SRC_PORT (21000), SERVER_CPU (0),
# CLIENT_CPU (1), BIN (bin), GO.
# Prints one line per run and a summary (median p50/p99/p99.9 per label).
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=queue
source benchmarks/lib.sh

REPS=${REPS:-3}
N=${N:-10000}
WAITERS=${WAITERS:-4}
LOOPS=${LOOPS:-2}
VARIANTS=${VARIANTS:-default gomaxprocs=3}
LOOPKV_B=${LOOPKV_B:-}
SRC_PORT=${SRC_PORT:-21000}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
BIN=${BIN:-bin}

need redis-server taskset timeout
[[ -z $LOOPKV_B || -x $LOOPKV_B ]] || die "LOOPKV_B=$LOOPKV_B is not an executable"
build_bins
${GO:-go} build -o "$BIN/queuebench" ./benchmarks/cmd/queuebench
log "load average $(cut -d' ' -f1-3 /proc/loadavg), commit $COMMIT"

mapfile -t PORTS < <("$BENCH" ports 2)
LK_PORT=${PORTS[0]} RD_PORT=${PORTS[1]}
RESULTS=$WORK/results
: >"$RESULTS"

# one LABEL PORT: one queuebench run, its summary line kept as LABEL.
one() {
	local out src=0
	((SRC_PORT == 0)) || src=$((SRC_PORT + 10 * (REP - 1)))
	out=$(timeout 300 taskset -c "$CLIENT_CPU" "$BIN/queuebench" -addr "127.0.0.1:$2" -n "$N" \
		-waiters "$WAITERS" -src-port "$src" -label "$1" 2>&1 | tail -1)
	echo "$out" >&2
	echo "$out" >>"$RESULTS"
}

launch redis "$RD_PORT" - taskset -c "$SERVER_CPU" redis-server --port "$RD_PORT" --bind 127.0.0.1 \
	--save '' --appendonly no --loglevel warning --dir "$WORK"
RPID=$LAUNCHED
builds=(loopkv)
[[ -z $LOOPKV_B ]] || builds+=(loopkv-b)
for rep in $(seq "$REPS"); do
	REP=$rep
	for v in $VARIANTS; do
		envs=()
		[[ $v == gomaxprocs=* ]] && envs=("GOMAXPROCS=${v#gomaxprocs=}")
		for b in "${builds[@]}"; do
			bin=$BIN/loopkv
			[[ $b == loopkv-b ]] && bin=$LOOPKV_B
			launch "$b-$v" "$LK_PORT" - env "${envs[@]}" taskset -c "$SERVER_CPU" "$bin" \
				--bind 127.0.0.1 --port "$LK_PORT" --tls-port 0 --loops "$LOOPS" --loglevel warning --save '' --dir "$WORK"
			one "$b-$v" "$LK_PORT"
			stop "$LAUNCHED"
			one redis "$RD_PORT"
		done
	done
done
stop "$RPID"
log "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo "== runs (label, then queuebench's figures)"
cat "$RESULTS"
echo "== medians per label (runs, p50, p90, p99, p99.9, max)"
awk '{
	n[$1]++
	for (i = 2; i <= NF; i++) { split($i, kv, "="); v[$1, kv[1], n[$1]] = kv[2] }
}
function us(d) { # a Go duration: 52.1µs, 1.2ms, 3s
	if (d ~ /µs$/) return d + 0
	if (d ~ /ms$/) return d * 1000
	if (d ~ /ns$/) return d / 1000
	if (d ~ /s$/) return d * 1e6
	return d
}
function median(label, key,   i, j, k, t, a) {
	k = n[label]
	for (i = 1; i <= k; i++) a[i] = us(v[label, key, i])
	for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
END {
	for (l in n) printf "%-22s runs=%d p50=%.1fµs p90=%.1fµs p99=%.1fµs p99.9=%.1fµs max=%.1fµs\n", l, n[l],
		median(l, "p50"), median(l, "p90"), median(l, "p99"), median(l, "p99.9"), median(l, "max")
}' "$RESULTS" | sort
