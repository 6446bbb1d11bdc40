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
        help_ = HELP.get(name, "Redis's %s (accepted; no effect in loopkv)" % name)
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
