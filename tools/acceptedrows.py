#!/usr/bin/env python3
# One-off generator of server/settings_accepted.go: one "accepted" row for
# every setting redis-server 7.0 has and loopkv does not. It reads names and
# defaults from CONFIG GET * of a redis-server on port 7778
# (redis-server --port 7778 --daemonize yes --save ''), and each setting's
# type, range and mutability by CONFIG SET (or, for immutable ones, by
# starting redis-server with a bad value) of probe values.
# Usage: tools/acceptedrows.py OURS.txt > server/settings_accepted.go
# where OURS.txt lists loopkv's setting names and aliases, one a line.
import re, subprocess, sys

def cli(*a):
    return subprocess.run(["redis-cli", "-p", "7778"] + list(a), capture_output=True, text=True).stdout.rstrip("\n")

# Redis 7.0's aliases: alias -> name.
ALIAS = {"slaveof": "replicaof", "slave-serve-stale-data": "replica-serve-stale-data",
         "slave-read-only": "replica-read-only", "slave-announce-ip": "replica-announce-ip",
         "slave-announce-port": "replica-announce-port", "slave-priority": "replica-priority",
         "slave-lazy-flush": "replica-lazy-flush", "slave-ignore-maxmemory": "replica-ignore-maxmemory",
         "repl-ping-slave-period": "repl-ping-replica-period", "min-slaves-to-write": "min-replicas-to-write",
         "min-slaves-max-lag": "min-replicas-max-lag", "cluster-slave-validity-factor": "cluster-replica-validity-factor",
         "cluster-slave-no-failover": "cluster-replica-no-failover", "lua-time-limit": "busy-reply-threshold"}
# Types the probes cannot find, written by hand.
TYPE = {"oom-score-adj": "oomScoreAdj", "oom-score-adj-values": "config.Func(checkOOMScoreAdjValues)",
        "maxmemory-clients": "config.Func(checkMemoryOrPercent)", "shutdown-on-sigint": "shutdownOnSignal",
        "shutdown-on-sigterm": "shutdownOnSignal", "unixsocketperm": "config.Func(checkOctalPerm)",
        "replicaof": "config.Func(refuseReplicaOf)", "cluster-enabled": "config.Func(refuseClusterEnabled)"}
# Settings that do something in loopkv or are refused: their own meaning.
HELP = {"replicaof": "replicate from HOST PORT (accepted as empty: loopkv does not replicate)",
        "cluster-enabled": "run in cluster mode (accepted as no: loopkv has no cluster mode)"}

# What each setting means in Redis, one line (the rows add "(accepted; no
# effect in loopkv)").
MEANING = {
    "acl-pubsub-default": "pub/sub channel permissions of new ACL users",
    "acllog-max-len": "most entries ACL LOG keeps",
    "active-defrag-cycle-max": "most CPU percent active defragmentation uses",
    "active-defrag-cycle-min": "least CPU percent active defragmentation uses",
    "active-defrag-ignore-bytes": "fragmentation waste below which defragmentation does not start",
    "active-defrag-max-scan-fields": "most fields of a collection one defragmentation step scans",
    "active-defrag-threshold-lower": "fragmentation percent at which defragmentation starts",
    "active-defrag-threshold-upper": "fragmentation percent at which defragmentation works hardest",
    "active-expire-effort": "effort (1 to 10) of the active expiry cycle",
    "activedefrag": "defragment memory in the background",
    "activerehashing": "rehash the main dictionaries incrementally in the background",
    "always-show-logo": "print the ASCII logo at start even when not on a terminal",
    "aof-disable-auto-gc": "keep old AOF files instead of deleting them after a rewrite",
    "aof_rewrite_cpulist": "CPUs the AOF rewrite child is pinned to",
    "bgsave_cpulist": "CPUs the BGSAVE child is pinned to",
    "bind-source-addr": "source address of outgoing connections",
    "bio_cpulist": "CPUs the background I/O threads are pinned to",
    "busy-reply-threshold": "milliseconds a script or function runs before others get BUSY",
    "cluster-allow-pubsubshard-when-down": "serve shard channels while the cluster is down",
    "cluster-allow-reads-when-down": "serve reads while the cluster is down",
    "cluster-allow-replica-migration": "let replicas migrate to orphaned primaries",
    "cluster-announce-bus-port": "cluster bus port announced to other nodes",
    "cluster-announce-hostname": "hostname announced to other nodes",
    "cluster-announce-ip": "address announced to other nodes",
    "cluster-announce-port": "client port announced to other nodes",
    "cluster-announce-tls-port": "TLS client port announced to other nodes",
    "cluster-config-file": "file the cluster state is kept in",
    "cluster-link-sendbuf-limit": "most bytes queued on one cluster bus link",
    "cluster-migration-barrier": "replicas a primary keeps before one migrates away",
    "cluster-node-timeout": "milliseconds a node may be unreachable before it counts as failing",
    "cluster-port": "cluster bus port (0 is port + 10000)",
    "cluster-preferred-endpoint-type": "endpoint type shown to clients in redirections",
    "cluster-replica-no-failover": "never fail over to this replica automatically",
    "cluster-replica-validity-factor": "how stale a replica may be and still fail over",
    "cluster-require-full-coverage": "refuse queries while some slots have no node",
    "crash-log-enabled": "write a stack trace to the log on a crash",
    "crash-memcheck-enabled": "run a memory test after a crash",
    "disable-thp": "turn transparent huge pages off for the process",
    "dynamic-hz": "raise hz with the number of clients",
    "enable-module-command": "allow MODULE: no, yes or local connections only",
    "hll-sparse-max-bytes": "largest sparse HyperLogLog before it turns dense",
    "ignore-warnings": "start-up warnings not to print",
    "io-threads-do-reads": "let I/O threads read and parse requests too",
    "jemalloc-bg-thread": "let jemalloc purge memory from a background thread",
    "lazyfree-lazy-eviction": "free evicted values in the background",
    "lazyfree-lazy-expire": "free expired values in the background",
    "lazyfree-lazy-server-del": "free values the server deletes (RENAME, SET) in the background",
    "lazyfree-lazy-user-del": "make DEL behave as UNLINK",
    "lazyfree-lazy-user-flush": "make FLUSHALL and FLUSHDB asynchronous by default",
    "lfu-decay-time": "minutes after which an LFU counter halves",
    "lfu-log-factor": "how slowly LFU counters grow",
    "masterauth": "password for authenticating to the primary",
    "masteruser": "user for authenticating to the primary",
    "maxmemory-clients": "memory (or percent of maxmemory) all clients' buffers may use",
    "min-replicas-max-lag": "seconds of lag within which a replica counts for min-replicas-to-write",
    "min-replicas-to-write": "replicas that must be connected for writes to be accepted",
    "no-appendfsync-on-rewrite": "skip AOF fsync while a rewrite or save runs",
    "oom-score-adj": "set the kernel's OOM score of the process: no, yes, relative or absolute",
    "oom-score-adj-values": "OOM scores of primary, replica and background child",
    "proc-title-template": "process title shown by ps",
    "propagation-error-behavior": "what a replica does when a replicated command fails",
    "rdb-save-incremental-fsync": "fsync the RDB every 4 MB while saving",
    "repl-backlog-size": "size of the replication backlog",
    "repl-backlog-ttl": "seconds without replicas before the backlog is freed",
    "repl-disable-tcp-nodelay": "send replication data in fewer, larger packets",
    "repl-diskless-load": "how a replica loads a full sync: disabled, on-empty-db or swapdb",
    "repl-diskless-sync": "send full syncs to replicas without writing an RDB file",
    "repl-diskless-sync-delay": "seconds to wait for more replicas before a diskless sync",
    "repl-diskless-sync-max-replicas": "replicas that start a diskless sync early once connected",
    "repl-ping-replica-period": "seconds between pings to replicas",
    "repl-timeout": "seconds of silence before a replication link counts as dead",
    "replica-announce-ip": "address a replica announces to its primary",
    "replica-announce-port": "port a replica announces to its primary",
    "replica-announced": "list this replica in Sentinel's replies",
    "replica-ignore-disk-write-errors": "keep replicating when the replica cannot persist",
    "replica-ignore-maxmemory": "a replica ignores maxmemory and waits for its primary's deletes",
    "replica-lazy-flush": "a replica flushes its data in the background before a full sync",
    "replica-priority": "rank of this replica for promotion by Sentinel (0 never)",
    "replica-read-only": "a replica refuses writes",
    "replica-serve-stale-data": "a replica serves reads while out of sync",
    "sanitize-dump-payload": "check RESTORE and full-sync payloads deeply: no, yes or clients",
    "server_cpulist": "CPUs the main and I/O threads are pinned to",
    "set-proc-title": "change the process title",
    "shutdown-on-sigint": "what SIGINT's shutdown does: default, or save, nosave, now, force",
    "shutdown-on-sigterm": "what SIGTERM's shutdown does: default, or save, nosave, now, force",
    "shutdown-timeout": "seconds shutdown waits for replicas to catch up",
    "socket-mark-id": "mark (SO_MARK) set on listening sockets",
    "stream-node-max-bytes": "largest stream node in bytes",
    "stream-node-max-entries": "most entries of a stream node",
    "tls-client-cert-file": "certificate for outgoing TLS connections (replication, cluster)",
    "tls-client-key-file": "key of tls-client-cert-file",
    "tls-client-key-file-pass": "passphrase of tls-client-key-file",
    "tls-cluster": "use TLS on the cluster bus",
    "tls-dh-params-file": "Diffie-Hellman parameters file for TLS 1.2's DHE suites",
    "tls-prefer-server-ciphers": "prefer the server's cipher order over the client's",
    "tls-replication": "use TLS for replication links",
    "tls-session-cache-size": "most TLS sessions cached",
    "unixsocket": "path of a Unix socket to listen on",
    "unixsocketperm": "permissions of the Unix socket",
}

def probe(name, value, mutable):
    """"" if value is accepted, else Redis's reason."""
    if mutable:
        r = cli("CONFIG", "SET", name, value)
        if r == "OK":
            return ""
        return r.split(") - ", 1)[1]
    p = subprocess.run(["timeout", "0.5", "redis-server", "--port", "0", "--save", "", "--" + name, value],
                       capture_output=True, text=True)
    if p.returncode == 124 or "Configured to not listen anywhere" in p.stdout:
        return ""  # started: the value passed
    lines = [l for l in (p.stdout + p.stderr).splitlines() if l.strip()]
    return lines[-1].strip() if lines else "?"

def gotype(name, mutable):
    if name in TYPE:
        return TYPE[name]
    r = probe(name, "abc", mutable)
    if r == "":
        return "config.String{}"
    if r.startswith("argument must be 'yes' or 'no'"):
        return "config.Bool{}"
    m = re.match(r"argument\(s\) must be one of the following: (.*)", r)
    if m:
        return "config.Enum{" + ", ".join('"%s"' % c for c in m.group(1).split(", ")) + "}"
    kind = {"argument couldn't be parsed into an integer": "Int", "argument must be a memory value": "Memory"}.get(r)
    if kind is None:
        sys.exit("%s: cannot type from %r" % (name, r))
    lo, hi, unsigned = None, None, False
    for v in ("-9223372036854775808", "9223372036854775807", "18446744073709551615"):
        r = probe(name, v, mutable)
        m = re.match(r"argument must be between (-?\d+) and (\d+) inclusive", r)
        if m:
            lo, hi = int(m.group(1)), int(m.group(2))
            break
    if lo is None and kind == "Memory" and r == "":  # an unsigned long long: memtoull saturates
        lo, hi = 0, (1 << 64) - 1
    if lo is None:
        lo, hi = (0 if kind == "Memory" else -(1 << 63)), (1 << 63) - 1
    if hi >= 1 << 63:
        unsigned, hi = True, hi - (1 << 64)
    def lit(n):
        return {-1: "-1 /* 1<<64 - 1 */", -(1 << 63): "math.MinInt64", (1 << 63) - 1: "math.MaxInt64", (1 << 31) - 1: "math.MaxInt32",
                -(1 << 31): "math.MinInt32", (1 << 32) - 1: "math.MaxUint32"}.get(n, str(n))
    f = []
    if lo != 0:
        f.append("Min: " + lit(lo))
    f.append("Max: " + lit(hi))
    if unsigned or (kind == "Int" and hi == (1 << 32) - 1):
        f.append("Unsigned: true")
    return "config.%s{%s}" % (kind, ", ".join(f))

def words(name):
    return name.replace("-", " ").replace("_", " ")

def main():
    ours = set(open(sys.argv[1]).read().split())
    out = cli("CONFIG", "GET", "*").split("\n")
    vals = dict(zip(out[0::2], out[1::2]))
    rows = []
    for name in sorted(vals):
        if name in ours or name in ALIAS:
            continue
        mutable = "immutable" not in cli("CONFIG", "SET", name, vals[name])
        aliases = sorted(a for a, n in ALIAS.items() if n == name)
        typ = gotype(name, mutable)
        help_ = HELP.get(name) or MEANING[name] + " (accepted; no effect in loopkv)"
        st = 'config.Setting{Name: "%s", ' % name
        if aliases:
            st += "Aliases: []string{%s}, " % ", ".join('"%s"' % a for a in aliases)
        st += 'Default: %s, Type: %s,\n\t\tHelp: "%s"}' % (q(vals[name]), typ, help_)
        rows.append("\t%s(%s)," % ("settable" if mutable else "fixed", st))
    print(HEAD + "\n".join(rows) + "\n}")

def q(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'

HEAD = """// Code generated by tools/acceptedrows.py from redis-server 7.0.15; DO NOT EDIT.

package server

import (
	"math"

	"github.com/loopkv/loopkv/config"
)

func init() { registerSettings(acceptedSettings...) }

// acceptedSettings are Redis 7.0's settings that loopkv reads from
// redis.conf, checks as Redis does, reports and round-trips through CONFIG
// SET and REWRITE, and otherwise ignores (see settings_accepted_types.go).
var acceptedSettings = []configParam{
"""

main()
