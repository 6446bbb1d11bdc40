#!/usr/bin/env bash
# benchmarks/default-suite.sh — issue 13: redis-benchmark's default suite, test by test, server CPU
# per op of loopkv (--loops 1) and redis-server 7, both on CPU 0, redis-benchmark on CPU 1;
# TLS at pipeline 16 and plaintext at pipeline 1 (CONFIGS: "transport pipeline requests;..." , e.g.
# CONFIGS="tls 1 60000;tls 16 300000" for the issue's TLS P1 and P16). CPU = utime+stime ticks
# (10 ms) over each run.
# Needs bin-free paths: builds loopkv and loopkv-bench into /tmp. Only 127.0.0.1; stops what it started.
set -u
LK=/tmp/lk; CERTS=/tmp/suitecerts
cd "$(dirname "$0")/.." && go build -tags poll_opt -o $LK ./cmd/loopkv
rm -rf $CERTS; mkdir -p $CERTS
go build -o /tmp/lkb ./benchmarks/cmd/loopkv-bench && /tmp/lkb certs -dir $CERTS >/dev/null 2>&1
ls $CERTS >&2
taskset -c 0 $LK --port 7801 --tls-port 7802 --loops 1 --tls-cert-file $CERTS/server.pem --tls-key-file $CERTS/server-key.pem --tls-ca-cert-file $CERTS/ca.pem --tls-auth-clients no --save '' --dir /tmp >/tmp/suite-lk.log 2>&1 &
LKPID=$!
taskset -c 0 redis-server --port 7803 --tls-port 7804 --tls-cert-file $CERTS/server.pem --tls-key-file $CERTS/server-key.pem --tls-ca-cert-file $CERTS/ca.pem --tls-auth-clients no --save '' --appendonly no --daemonize no >/tmp/suite-rd.log 2>&1 &
RDPID=$!
sleep 1.5
ticks() { awk '{print $14+$15}' /proc/$1/stat; }
run() { # label pid port tls pl n test
	local extra=(); [[ $4 == tls ]] && extra=(--tls --cacert $CERTS/ca.pem)
	local b=$(ticks $2)
	timeout 120 taskset -c 1 redis-benchmark -h 127.0.0.1 -p $3 "${extra[@]}" -c 50 -n $6 -P $5 -t $7 -q >/dev/null 2>&1
	local a=$(ticks $2)
	echo "$(( (a-b) )) "
}
TESTS="ping_inline ping_mbulk set get incr lpush rpush lpop rpop sadd hset spop zadd zpopmin lrange_100 lrange_300 lrange_500 lrange_600 mset"
IFS=';' read -ra CFGS <<<"${CONFIGS:-tls 16 300000;plain 1 60000}"
for cfg in "${CFGS[@]}"; do
	# shellcheck disable=SC2086
	set -- $cfg; tr=$1 pl=$2 n=$3
	lp=7801 rp=7803; [[ $tr == tls ]] && lp=7802 rp=7804
	echo "## $tr P$pl n=$n"
	for t in $TESTS; do
		l=$(run lk $LKPID $lp $tr $pl $n $t); r=$(run rd $RDPID $rp $tr $pl $n $t)
		awk -v t=$t -v l=$l -v r=$r -v n=$n 'BEGIN{ if (r>0) printf "%s loopkv %.2f us/op redis %.2f us/op ratio %.2f\n", t, l*1e4/n, r*1e4/n, l/r; else print t, "n/a" }'
	done
done
kill $LKPID $RDPID
