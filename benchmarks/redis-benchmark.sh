#!/usr/bin/env bash
# redis-benchmark against loopkv and redis-server 7 in the same run.
#
# Each server is pinned to SERVER_CPU (loopkv with one loop), redis-benchmark to
# CLIENT_CPU; runs alternate loopkv, redis, loopkv, redis ... REPS times for
# every pipeline depth and, with TLS=1, over TLS too. For every run it records
# redis-benchmark's requests/s and the server's CPU time (utime+stime from
# /proc/PID/stat) per request. It stops only the processes it started.
#
#   benchmarks/redis-benchmark.sh                 # plaintext, pipelines 1 and 16
#   TLS=1 REPS=5 benchmarks/redis-benchmark.sh    # plaintext and TLS
set -euo pipefail
cd "$(dirname "$0")/.."

REPS=${REPS:-3}
REQUESTS=${REQUESTS:-200000}
CLIENTS=${CLIENTS:-50}
PIPELINES=${PIPELINES:-"1 16"}
TESTS=${TESTS:-"set,get,incr,ping_mbulk"}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
TLS=${TLS:-0}
OUT=${OUT:-benchmarks/results/redis-benchmark-$(date -u +%Y%m%dT%H%M%SZ).csv}

for tool in redis-server redis-benchmark taskset; do
	command -v "$tool" >/dev/null || { echo "missing $tool (make deps)" >&2; exit 1; }
done
mkdir -p "$(dirname "$OUT")" bin
go build -tags poll_opt -o bin/loopkv ./cmd/loopkv

work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Development CA and server certificate (ECDSA P-256), shared by both servers.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
	-subj /CN=loopkv-bench-ca -keyout "$work/ca.key" -out "$work/ca.crt" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=localhost \
	-keyout "$work/server.key" -out "$work/server.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$work/ext"
openssl x509 -req -in "$work/server.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" -CAcreateserial \
	-days 2 -extfile "$work/ext" -out "$work/server.crt" 2>/dev/null

lk_port=$(freeport); lk_tls=$(freeport); rd_port=$(freeport); rd_tls=$(freeport)
tlsflags=()
if [ "$TLS" = 1 ]; then
	tlsflags=(--tls-port "$lk_tls" --tls-cert-file "$work/server.crt" --tls-key-file "$work/server.key")
fi
taskset -c "$SERVER_CPU" bin/loopkv --port "$lk_port" --loops 1 --loglevel warning "${tlsflags[@]}" &
pids+=($!); lk_pid=$!
rdtls=()
if [ "$TLS" = 1 ]; then
	rdtls=(--tls-port "$rd_tls" --tls-cert-file "$work/server.crt" --tls-key-file "$work/server.key"
		--tls-ca-cert-file "$work/ca.crt" --tls-auth-clients no)
fi
taskset -c "$SERVER_CPU" redis-server --port "$rd_port" --save "" --appendonly no \
	--loglevel warning "${rdtls[@]}" &
pids+=($!); rd_pid=$!
for p in "$lk_port" "$rd_port"; do
	for _ in $(seq 50); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.1; done
done

cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
echo "server,transport,pipeline,rep,test,rps,server_us_per_req" >"$OUT"

run() { # name pid port transport pipeline rep
	local name=$1 pid=$2 port=$3 tr=$4 pl=$5 rep=$6 extra=()
	[ "$tr" = tls ] && extra=(--tls --cacert "$work/ca.crt")
	for t in ${TESTS//,/ }; do
		local before after rps
		before=$(cpu_ticks "$pid")
		rps=$(taskset -c "$CLIENT_CPU" redis-benchmark -p "$port" "${extra[@]}" -c "$CLIENTS" \
			-n "$REQUESTS" -P "$pl" -t "$t" --csv -q 2>/dev/null | awk -F'","' 'NR==2{print $2}')
		after=$(cpu_ticks "$pid")
		awk -v s="$name" -v tr="$tr" -v pl="$pl" -v r="$rep" -v t="$t" -v rps="$rps" \
			-v d=$((after - before)) -v hz="$hz" -v n="$REQUESTS" \
			'BEGIN{printf "%s,%s,%s,%s,%s,%s,%.3f\n", s, tr, pl, r, t, rps, d*1e6/hz/n}' >>"$OUT"
	done
}

transports=plain
[ "$TLS" = 1 ] && transports="plain tls"
for tr in $transports; do
	for pl in $PIPELINES; do
		for rep in $(seq "$REPS"); do
			if [ "$tr" = tls ]; then
				run loopkv "$lk_pid" "$lk_tls" tls "$pl" "$rep"
				run redis "$rd_pid" "$rd_tls" tls "$pl" "$rep"
			else
				run loopkv "$lk_pid" "$lk_port" plain "$pl" "$rep"
				run redis "$rd_pid" "$rd_port" plain "$pl" "$rep"
			fi
		done
	done
done

# Medians per (transport, pipeline, test) and the loopkv/redis ratios.
python3 - "$OUT" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
key = lambda r: (r["transport"], int(r["pipeline"]), r["test"])
groups = {}
for r in rows:
    groups.setdefault(key(r), {}).setdefault(r["server"], []).append(r)
print("| transport | pipeline | test | loopkv req/s | redis req/s | ratio | loopkv µs CPU/req | redis µs CPU/req | CPU ratio |")
print("|---|---|---|---|---|---|---|---|---|")
for k in sorted(groups):
    g = groups[k]
    if "loopkv" not in g or "redis" not in g:
        continue
    med = lambda rs, f: statistics.median(float(x[f] or 0) for x in rs)
    lr, rr = med(g["loopkv"], "rps"), med(g["redis"], "rps")
    lc, rc = med(g["loopkv"], "server_us_per_req"), med(g["redis"], "server_us_per_req")
    print(f"| {k[0]} | {k[1]} | {k[2]} | {lr:,.0f} | {rr:,.0f} | {lr/rr if rr else 0:.2f} | {lc:.2f} | {rc:.2f} | {lc/rc if rc else 0:.2f} |")
PY
echo "raw results: $OUT" >&2
