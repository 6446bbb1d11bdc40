#!/usr/bin/env bash
# benchmarks/compare.sh — loopkv against redis-server 7 on loopback, run by `make compare`.
#
# Builds loopkv and loopkv-bench, starts both servers pinned to one CPU
# (SERVER_CPU) with the load generator pinned to another (CLIENT_CPU), runs
# every scenario against each server in alternation (A B A B, REPS times),
# and writes benchmarks/results/<UTC date>.{jsonl,md} and PNG plots.
# It stops only the processes it started, by PID. See benchmarks/README.md.
#
# Knobs (environment): REPS=3 DURATION=5s STORM_DURATION=9s CONNS=50
# PIPELINES="1 10 20" MIX=get=8,set=2 RATE=20000 CHURN_WORKERS=4
# CONN_STEPS=0,1000,5000,10000 SCENARIOS="tput latency conns churn storm"
# ENGINES="gnet" (loopkv's --engine; "gnet netpoll" runs one loopkv per engine,
# labelled loopkv-<engine>, pinned to the same SERVER_CPU and run in turn)
# SERVER_CPU=0 CLIENT_CPU=1 TLS_GROUPS=x25519 (empty: Go's default offer)
# OUT=benchmarks/results QUICK=1 (a smoke run).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${QUICK:-0}" == 1 ]]; then
	: "${REPS:=1}" "${DURATION:=1s}" "${STORM_DURATION:=1.5s}" "${CONN_STEPS:=0,100,500}" "${CONNS:=10}"
	: "${RATE:=5000}" "${PIPELINES:=1 10}"
fi
REPS=${REPS:-3}
DURATION=${DURATION:-5s}
STORM_DURATION=${STORM_DURATION:-9s}
CONNS=${CONNS:-50}
PIPELINES=${PIPELINES:-1 10 20}
MIX=${MIX:-get=8,set=2}
RATE=${RATE:-20000}
CHURN_WORKERS=${CHURN_WORKERS:-4}
CONN_STEPS=${CONN_STEPS:-0,1000,5000,10000}
SCENARIOS=${SCENARIOS:-tput latency conns churn storm}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
TLS_GROUPS=${TLS_GROUPS-x25519}
OUT=${OUT:-benchmarks/results}
ENGINES=${ENGINES:-gnet}
GO=${GO:-go}

log() { echo "compare: $*" >&2; }

# --- processes we start, and only those, are stopped on exit ---------------
PIDS=()
WORK=$(mktemp -d)
cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- pinning -----------------------------------------------------------------
PIN_SERVER=() PIN_CLIENT=()
if command -v taskset >/dev/null && [[ $(nproc) -ge 2 ]]; then
	PIN_SERVER=(taskset -c "$SERVER_CPU")
	PIN_CLIENT=(taskset -c "$CLIENT_CPU")
else
	log "warning: no taskset or fewer than 2 CPUs; running unpinned"
fi
# Both servers and the client need a descriptor per connection.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# --- build -------------------------------------------------------------------
mkdir -p bin "$OUT"
$GO build -o bin/loopkv-bench ./benchmarks/cmd/loopkv-bench
BENCH=bin/loopkv-bench
LOOPKV_OK=1
if ! $GO build -tags poll_opt -o bin/loopkv ./cmd/loopkv; then
	LOOPKV_OK=0
	LOOPKV_WHY="loopkv did not build"
	log "warning: $LOOPKV_WHY; its rows will be marked unavailable"
fi
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
	COMMIT="$COMMIT-dirty"
fi
$BENCH certs -dir "$WORK" >/dev/null
CA="$WORK/ca.pem" CERT="$WORK/server.pem" KEY="$WORK/server-key.pem"
read -ra ENGINE_LIST <<<"$ENGINES"
mapfile -t ports < <($BENCH ports $((2 + 2 * ${#ENGINE_LIST[@]})))
REDIS_PORT=${ports[0]} REDIS_TLS_PORT=${ports[1]}
# Per loopkv target (one per engine): port, TLS port, PID, OK, TLS OK, why not OK.
declare -A LK_ENGINE LK_PORT LK_TLS_PORT LK_PID LK_OK LK_TLS LK_WHY
LOOPKV_TARGETS=()
for i in "${!ENGINE_LIST[@]}"; do
	t=loopkv
	[[ $ENGINES == gnet ]] || t=loopkv-${ENGINE_LIST[$i]}
	LOOPKV_TARGETS+=("$t")
	LK_ENGINE[$t]=${ENGINE_LIST[$i]} LK_PORT[$t]=${ports[$((2 + 2 * i))]} LK_TLS_PORT[$t]=${ports[$((3 + 2 * i))]}
	LK_PID[$t]=0 LK_OK[$t]=$LOOPKV_OK LK_TLS[$t]=1 LK_WHY[$t]=${LOOPKV_WHY:-}
done
# The first loopkv, then redis (the report's ratio column), then the other engines.
TARGETS=("${LOOPKV_TARGETS[0]}" redis "${LOOPKV_TARGETS[@]:1}")

# --- servers -----------------------------------------------------------------
REDIS_PID=0 REDIS_TLS=1 REDIS_OK=1
redis-server --version >/dev/null
"${PIN_SERVER[@]}" redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no \
	--maxclients 11000 --dir "$WORK" --tls-port "$REDIS_TLS_PORT" --tls-cert-file "$CERT" \
	--tls-key-file "$KEY" --tls-ca-cert-file "$CA" --tls-auth-clients no >"$WORK/redis.log" 2>&1 &
REDIS_PID=$!
PIDS+=("$REDIS_PID")
if ! $BENCH probe -addr "127.0.0.1:$REDIS_PORT" -wait 10s; then
	REDIS_OK=0
	log "warning: redis-server did not start:"; tail -5 "$WORK/redis.log" >&2
fi
$BENCH probe -addr "127.0.0.1:$REDIS_TLS_PORT" -tls -tls-ca "$CA" -wait 5s || REDIS_TLS=0

# start_loopkv TARGET: one loopkv with the target's engine and ports.
start_loopkv() {
	local t=$1 help tlsargs
	help=$(bin/loopkv --help 2>&1 || true)
	tlsargs=(--tls-port "${LK_TLS_PORT[$t]}")
	if grep -q -- 'tls-cert-file' <<<"$help"; then
		tlsargs+=(--tls-cert-file "$CERT" --tls-key-file "$KEY")
	elif grep -q -- 'dev-tls-dir' <<<"$help"; then
		# The development TLS directory takes existing files as they are.
		mkdir -p "$WORK/$t-tls"
		cp "$CA" "$WORK/$t-tls/ca.crt"; cp "$CERT" "$WORK/$t-tls/server.crt"
		cp "$KEY" "$WORK/$t-tls/server.key"
		tlsargs+=(--dev-tls-dir "$WORK/$t-tls")
	fi
	"${PIN_SERVER[@]}" bin/loopkv --bind 127.0.0.1 --port "${LK_PORT[$t]}" --maxclients 11000 \
		--engine "${LK_ENGINE[$t]}" "${tlsargs[@]}" >"$WORK/$t.log" 2>&1 &
	LK_PID[$t]=$!
	PIDS+=("${LK_PID[$t]}")
	if ! $BENCH probe -addr "127.0.0.1:${LK_PORT[$t]}" -wait 10s; then
		LK_OK[$t]=0 LK_WHY[$t]="$t did not answer on its port"
		log "warning: ${LK_WHY[$t]}:"; tail -5 "$WORK/$t.log" >&2
	fi
	$BENCH probe -addr "127.0.0.1:${LK_TLS_PORT[$t]}" -tls -tls-ca "$CA" -wait 3s 2>/dev/null || {
		LK_TLS[$t]=0; log "$t's TLS port does not answer: TLS rows marked unavailable"; }
}
if [[ $LOOPKV_OK == 1 ]]; then
	for t in "${LOOPKV_TARGETS[@]}"; do
		start_loopkv "$t"
	done
fi

# --- scenarios -----------------------------------------------------------------
STEM=$(date -u +%Y-%m-%dT%H%MZ)
RESULTS="$OUT/$STEM.jsonl"
: >"$RESULTS"

# run TARGET REP SCENARIO TLS MODE ARGS...: one measurement, appended to RESULTS.
run() {
	local target=$1 rep=$2 scenario=$3 tls=$4 mode=$5
	shift 5
	local port tport pid ok tok why
	if [[ $target != redis ]]; then
		port=${LK_PORT[$target]} tport=${LK_TLS_PORT[$target]} pid=${LK_PID[$target]} ok=${LK_OK[$target]}
		tok=${LK_TLS[$target]} why=${LK_WHY[$target]}
	else
		port=$REDIS_PORT tport=$REDIS_TLS_PORT pid=$REDIS_PID ok=$REDIS_OK tok=$REDIS_TLS why="redis-server did not start"
	fi
	local args=(-label "$target" -scenario "$scenario" -rep "$rep" -commit "$COMMIT" -json "$RESULTS"
		-pid "$pid" -tls-ca "$CA")
	if [[ $tls == 1 ]]; then
		args+=(-addr "127.0.0.1:$tport" -tls)
		[[ -z $TLS_GROUPS ]] || args+=(-tls-groups "$TLS_GROUPS")
	else
		args+=(-addr "127.0.0.1:$port")
	fi
	if [[ $ok != 1 ]]; then
		args+=(-unavailable "$why")
	elif [[ $tls == 1 && $tok != 1 ]]; then
		args+=(-unavailable "TLS port does not answer")
	fi
	log "rep $rep $target $scenario"
	"${PIN_CLIENT[@]}" "$BENCH" "$mode" "${args[@]}" "$@" || log "warning: $target $scenario failed (recorded)"
}

# both REP SCENARIO TLS MODE ARGS...: the scenario against each server in turn.
both() {
	local t
	for t in "${TARGETS[@]}"; do
		run "$t" "$@"
	done
}

for rep in $(seq 1 "$REPS"); do
	for s in $SCENARIOS; do
		case $s in
		tput)
			for tls in 0 1; do
				for p in $PIPELINES; do
					sc=tput-$([[ $tls == 1 ]] && echo tls || echo plain)-p$p
					both "$rep" "$sc" "$tls" throughput -conns "$CONNS" -pipeline "$p" -mix "$MIX" \
						-duration "$DURATION" -progress=false
				done
			done ;;
		latency)
			for tls in 0 1; do
				sc=latency-$([[ $tls == 1 ]] && echo tls || echo plain)-rate$RATE
				both "$rep" "$sc" "$tls" throughput -conns 10 -pipeline 1 -mix "$MIX" -rate "$RATE" \
					-duration "$DURATION" -progress=false
			done ;;
		conns)
			for tls in 0 1; do
				both "$rep" "conns-$([[ $tls == 1 ]] && echo tls || echo plain)" "$tls" conns \
					-steps "$CONN_STEPS" -progress=false
			done ;;
		churn)
			both "$rep" churn-tcp 0 churn -workers "$CHURN_WORKERS" -duration "$DURATION" -progress=false
			both "$rep" churn-tls-full 1 churn -workers "$CHURN_WORKERS" -duration "$DURATION" -progress=false
			both "$rep" churn-tls-resumed 1 churn -workers "$CHURN_WORKERS" -duration "$DURATION" -resume \
				-progress=false ;;
		storm)
			both "$rep" storm-tls 1 storm -conns 10 -pipeline 1 -mix "$MIX" -rate $((RATE / 2)) \
				-duration "$STORM_DURATION" -storm-workers "$CHURN_WORKERS" -progress=false ;;
		*)
			log "unknown scenario $s (tput latency conns churn storm)"; exit 2 ;;
		esac
	done
done

"$BENCH" report -out "$OUT" -stem "$STEM" "$RESULTS"
log "results: $OUT/$STEM.md"
