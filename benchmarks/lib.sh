# benchmarks/lib.sh — shell helpers shared by the benchmark scripts
# (goals.sh, scaling.sh, types.sh). Source it after `set -euo pipefail`, with
# NAME set to the script's name for log lines; build_bins sets BENCH (the
# loopkv-bench binary) and COMMIT.
#
# It keeps the PIDs of the processes a script starts and stops only those,
# by PID, on any exit; WORK is a temporary directory removed then.

PIDS=()
WORK=$(mktemp -d)
CMDS=$WORK/commands
: >"$CMDS"
REP=1

log() { echo "${NAME:-bench}: $*" >&2; }
die() {
	log "$*"
	exit 1
}

lib_cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap lib_cleanup EXIT
trap 'exit 130' INT TERM

# need TOOL...: die unless every tool is on PATH.
need() {
	local tool
	for tool in "$@"; do
		command -v "$tool" >/dev/null || die "missing $tool (make deps)"
	done
}

# stop PID: stop one process we started, wait for it and forget it (so the
# exit trap never signals a reused PID).
stop() {
	local p keep=()
	kill "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
	for p in "${PIDS[@]}"; do [[ $p == "$1" ]] || keep+=("$p"); done
	PIDS=("${keep[@]}")
}

# note ARGS...: record a command (exactly as run, first repetition only) in
# $CMDS for the report. cmdlog ARGS...: note it, then run it.
note() {
	[[ $REP == 1 ]] || return 0
	local a line=""
	for a in "$@"; do
		if [[ $a =~ ^[][A-Za-z0-9_./:=,@%+-]+$ ]]; then line+="$a "; else line+="'${a//\'/\'\\\'\'}' "; fi
	done
	echo "${line% }" >>"$CMDS"
}
cmdlog() {
	note "$@"
	"$@"
}

# build_bins: build BIN/loopkv (-tags poll_opt) and BIN/loopkv-bench with
# GO; sets BENCH and COMMIT.
build_bins() {
	log "building $BIN/loopkv (-tags poll_opt) and $BIN/loopkv-bench"
	mkdir -p "$BIN"
	${GO:-go} build -tags poll_opt -o "$BIN/loopkv" ./cmd/loopkv
	${GO:-go} build -o "$BIN/loopkv-bench" ./benchmarks/cmd/loopkv-bench
	BENCH=$BIN/loopkv-bench
	COMMIT=$(commit_id)
}

# launch NAME PORT TLS_PORT CMD...: run CMD in the background, logging to
# $WORK/NAME.log, and wait until PORT answers PING, and TLS_PORT too over
# TLS trusting $CA unless it is "-"; LAUNCHED is its PID. LAUNCH_WAIT (10s)
# bounds the wait.
launch() {
	local name=$1 port=$2 tls=$3
	shift 3
	note "$@"
	"$@" >>"$WORK/$name.log" 2>&1 &
	LAUNCHED=$!
	PIDS+=("$LAUNCHED")
	"$BENCH" probe -addr "127.0.0.1:$port" -wait "${LAUNCH_WAIT:-10s}" >/dev/null &&
		{ [[ $tls == - ]] || "$BENCH" probe -addr "127.0.0.1:$tls" -tls -tls-ca "$CA" -wait 5s >/dev/null; } ||
		{
			tail -5 "$WORK/$name.log" >&2
			die "$name did not start"
		}
}

# begin_run STEM_PREFIX: the common start of a side-by-side study: START,
# STEM (STEM_PREFIX-<UTC date-time>), MD and JSONL under OUT (created, the
# JSONL emptied), LOAD_BEFORE, the binaries (build_bins), and a fresh
# certificate set in WORK: CA, CERT, KEY.
begin_run() {
	START=$(date -u +%s)
	STEM=$1-$(date -u +%Y%m%dT%H%M%SZ)
	mkdir -p "$OUT"
	MD=$OUT/$STEM.md JSONL=$OUT/$STEM.jsonl
	: >"$JSONL"
	LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
	build_bins
	"$BENCH" certs -dir "$WORK" >/dev/null
	CA=$WORK/ca.pem CERT=$WORK/server.pem KEY=$WORK/server-key.pem
}

# launch_loopkv_tls NAME BINARY PORT TLS_PORT ARGS...: launch a loopkv
# binary on SERVER_CPU with one loop, TLS 1.3 and SUITE only, the
# certificate of begin_run, and ARGS; LAUNCHED is its PID.
launch_loopkv_tls() {
	local name=$1 bin=$2 port=$3 tls=$4
	shift 4
	launch "$name" "$port" "$tls" taskset -c "$SERVER_CPU" "$bin" --bind 127.0.0.1 --port "$port" \
		--tls-port "$tls" --tls-cert-file "$CERT" --tls-key-file "$KEY" --tls-ciphersuites "$SUITE" \
		--tls-protocols TLSv1.3 --loops 1 --loglevel warning "$@"
}

# launch_redis_tls PORT TLS_PORT ARGS...: launch redis-server the same way
# (no persistence, no client certificates); LAUNCHED is its PID.
launch_redis_tls() {
	local port=$1 tls=$2
	shift 2
	launch redis "$port" "$tls" taskset -c "$SERVER_CPU" redis-server --bind 127.0.0.1 --port "$port" \
		--tls-port "$tls" --tls-cert-file "$CERT" --tls-key-file "$KEY" --tls-ca-cert-file "$CA" \
		--tls-auth-clients no --tls-ciphersuites "$SUITE" --tls-protocols TLSv1.3 --save '' \
		--appendonly no --loglevel warning --dir "$WORK" "$@"
}

# bench_rc RC MODE LABEL SCENARIO: after a loopkv-bench run that exited
# with RC, record a timeout (124, from `timeout RUN_TIMEOUT`) in $JSONL, as
# loopkv-bench itself records other failures, and warn of any failure.
bench_rc() {
	if [[ $1 == 124 ]]; then
		printf '{"mode":"%s","label":"%s","scenario":"%s","rep":%d,"unavailable":"timed out after %ss"}\n' \
			"$2" "$3" "$4" "$REP" "$RUN_TIMEOUT" >>"$JSONL"
	fi
	[[ $1 == 0 ]] || log "warning: $4 $3 failed (exit $1, recorded)"
}

# cpu_ticks PID: the process's utime+stime in clock ticks (10 ms).
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }

# proc_counters PID: "utime stime syscr syscw voluntary nonvoluntary" of a
# process: utime and stime in clock ticks (10 ms, /proc/PID/stat), the
# read-like and write-like system calls (/proc/PID/io), and context switches
# summed over its threads (/proc/PID/task/*/status).
proc_counters() {
	local ut st sr sw
	read -r ut st < <(sed 's/.*) //' "/proc/$1/stat" | awk '{print $12, $13}')
	sr=$(awk '$1 == "syscr:" {print $2}' "/proc/$1/io")
	sw=$(awk '$1 == "syscw:" {print $2}' "/proc/$1/io")
	echo "$ut $st $sr $sw $(cat /proc/"$1"/task/*/status 2>/dev/null |
		awk '$1 == "voluntary_ctxt_switches:" {v += $2} $1 == "nonvoluntary_ctxt_switches:" {n += $2} END {print v + 0, n + 0}')"
}

# perf_start PID FILE: when perf can count the process's system calls
# (raw_syscalls:sys_enter) and context switches, count them into FILE (CSV)
# until perf_stop; PERF_PID is the counter's PID, 0 without perf.
PERF_PID=0
perf_start() {
	PERF_PID=0
	command -v perf >/dev/null || return 0
	perf stat -x, -e raw_syscalls:sys_enter,context-switches -o "$2" -p "$1" 2>/dev/null &
	PERF_PID=$!
	PIDS+=("$PERF_PID")
	sleep 0.2
	kill -0 "$PERF_PID" 2>/dev/null || PERF_PID=0
}
# perf_stop FILE: stop the counter and set PERF_COUNTS to "syscalls
# context_switches" from FILE, or "- -" without perf. Not in a subshell: it
# waits for the counter.
PERF_COUNTS="- -"
perf_stop() {
	PERF_COUNTS="- -"
	[[ $PERF_PID != 0 ]] || return 0
	local p keep=()
	kill -INT "$PERF_PID" 2>/dev/null || true
	wait "$PERF_PID" 2>/dev/null || true
	for p in "${PIDS[@]}"; do [[ $p == "$PERF_PID" ]] || keep+=("$p"); done
	PIDS=("${keep[@]}")
	PERF_PID=0
	PERF_COUNTS=$(awk -F, '$3 == "raw_syscalls:sys_enter" {s = $1} $3 == "context-switches" {c = $1}
		END {print (s == "" ? "-" : s), (c == "" ? "-" : c)}' "$1")
}

# rss_kb PID: the process's VmRSS in KiB.
rss_kb() { awk '$1 == "VmRSS:" {print $2}' "/proc/$1/status"; }

# commit_id: HEAD, marked when tracked files are modified.
commit_id() {
	local c
	c=$(git rev-parse HEAD 2>/dev/null || echo unknown)
	[[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]] || c="$c (dirty tree)"
	echo "$c"
}

# machine, versions: one-line descriptions for a report.
machine() {
	echo "$(nproc --all) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), $(free -g | awk '/^Mem:/ {print $2}') GiB, $(uname -sr)"
}
versions() {
	echo "$(${GO:-go} version | cut -d' ' -f3), redis-server $(redis-server --version | cut -d' ' -f3 | cut -d= -f2), $(openssl version | cut -d' ' -f1-2)"
}
