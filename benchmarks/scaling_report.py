"""Writes the Markdown report of benchmarks/scaling.sh from its raw files.

Usage: python3 benchmarks/scaling_report.py OUT/STEM

Reads STEM.jsonl (loopkv-bench results), STEM-mem.csv (RSS and used_memory
readings), STEM-marks.csv (the gctrace collection numbers at the start and
end of each loopkv run), STEM-gctrace-CASE.log (loopkv's gctrace lines) and
STEM-meta.json (the run's description and commands); writes STEM.md and
prints it.
"""

import csv
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import fmt, med, ratio, rng, write_commands, write_header  # noqa: E402

BASE = sys.argv[1]
E = json.load(open(BASE + "-meta.json"))
runs = [json.loads(l) for l in open(BASE + ".jsonl") if l.strip()]
mem = list(csv.DictReader(open(BASE + "-mem.csv")))
marks = list(csv.DictReader(open(BASE + "-marks.csv")))
sizes = [int(s) for s in E["SIZES"].split()]
hashes = int(E.get("HASHES") or 0)


def size_name(n):
    if n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    if n % 1000 == 0:
        return f"{n // 1000}k"
    return str(n)


cases = [(f"strings-{size_name(n)}", "strings", n) for n in sizes]
if hashes > 0:
    cases.append((f"hashes-{size_name(hashes)}", "hashes", hashes))


def ops_of(kind):
    return ("set", "get") if kind == "strings" else ("hset", "hget")


def paren(xs):
    """" (min–max)" of xs, or "" for fewer than two."""
    r = rng(xs)
    return f" ({r})" if r else ""


def ok(r):
    return not r.get("unavailable")


def sel(scenario, label):
    return [r for r in runs if r.get("scenario") == scenario and r.get("label") == label and ok(r)]


# --- gctrace --------------------------------------------------------------------------
GC = re.compile(r"^gc (\d+) @([\d.]+)s \d+%: ([\d.]+)\+([\d.]+)\+([\d.]+) ms clock, "
                r"([\d.]+)\+([\d.]+)/([\d.]+)/([\d.]+)\+([\d.]+) ms cpu, (\d+)->(\d+)->(\d+) MB")


def gctrace(case):
    """Returns {gc number: (cpu ms, longest STW ms, live heap MB)} and the lifetime CPU ticks."""
    path = f"{BASE}-gctrace-{case}.log"
    gcs, ticks = {}, None
    if not os.path.exists(path):
        return gcs, ticks
    for line in open(path):
        if line.startswith("lifetime_cpu_ticks"):
            ticks = int(line.split()[1])
            continue
        m = GC.match(line)
        if m:
            f = [float(x) for x in m.groups()]
            gcs[int(f[0])] = (sum(f[5:10]), max(f[2], f[4]), f[12])
    return gcs, ticks


def gc_in(case, scenario_pred, gcs):
    """Collections that ended during the loopkv runs of case whose scenario matches."""
    nums = set()
    for m in marks:
        if m["case"] == case and scenario_pred(m["scenario"]):
            nums |= {n for n in gcs if int(m["gc_from"]) < n <= int(m["gc_to"])}
    return nums


rows_mem, rows_tput, rows_open, rows_gc, goals, notes = [], [], [], [], [], []
per_key = {}
tput = {}
p999 = {}

for case, kind, n in cases:
    # Memory.
    def reading(label, stage):
        for r in mem:
            if r["case"] == case and r["label"] == label and r["stage"] == stage and r["rss_kb"]:
                return r
        return None

    cells = []
    for label in ("loopkv", "redis"):
        e, l, end = reading(label, "empty"), reading(label, "loaded"), reading(label, "end")
        if e and l:
            bpk = (int(l["rss_kb"]) - int(e["rss_kb"])) * 1024 / n
            um = int(l["used_memory"]) / n if l["used_memory"] else None
            per_key[(case, label)] = bpk
            tail = f" → {int(end['rss_kb']) / 1024:.0f}" if end else ""
            cells.append(f"{int(e['rss_kb']) / 1024:.0f} → {int(l['rss_kb']) / 1024:.0f}{tail} MiB | "
                         f"**{fmt(bpk)}** | {fmt(um)}")
            if l["dbsize"] and int(l["dbsize"]) != n:
                notes.append(f"{case} {label}: DBSIZE {l['dbsize']} after the preload, not {n}.")
        else:
            cells.append("n/a | n/a | n/a")
    r = ratio(per_key.get((case, "loopkv")), per_key.get((case, "redis")))
    rows_mem.append(f"| {case} | {n:,} | {cells[0]} | {cells[1]} | {fmt(r)} |")
    goals.append((f"RSS per key ≤ redis's, {case}", fmt(per_key.get((case, "loopkv")), " B"),
                  fmt(per_key.get((case, "redis")), " B"), r, r is not None and r <= 1))

    # Preload rates.
    for label in ("loopkv", "redis"):
        for x in sel(f"{case}-load", label):
            notes.append(f"{case} preload {label}: {x['ops']:,} keys in {x['seconds']:.1f} s "
                         f"({x['ops_per_s']:,.0f}/s, {fmt(x['server_cpu_per_op_us'])} µs server CPU per key).")

    # Closed loop.
    for op in ops_of(kind):
        sc = f"{case}-{op}"
        lk, rd = sel(sc, "loopkv"), sel(sc, "redis")
        lo, ro = [x["ops_per_s"] for x in lk], [x["ops_per_s"] for x in rd]
        lc = [x["server_cpu_per_op_us"] for x in lk if x["server_cpu_per_op_us"] >= 0]
        rc = [x["server_cpu_per_op_us"] for x in rd if x["server_cpu_per_op_us"] >= 0]
        busy = lambda xs: med([x["client_cpu_s"] / x["seconds"] * 100 for x in xs if x["seconds"]])
        tput[(case, op, "loopkv")], tput[(case, op, "redis")] = med(lo), med(ro)
        rows_tput.append(f"| {case} | {op.upper()} | {fmt(med(lo))}{paren(lo)} | {fmt(med(ro))}{paren(ro)} | "
                         f"{fmt(ratio(med(lo), med(ro)))} | {fmt(med(lc))}{paren(lc)} | {fmt(med(rc))}{paren(rc)} | "
                         f"{fmt(ratio(med(lc), med(rc)))} | {fmt(busy(lk))} / {fmt(busy(rd))} % |")
        for x in lk + rd:
            if x.get("error_replies"):
                notes.append(f"{sc} {x['label']} rep {x['rep']}: {x['error_replies']} error replies "
                             f"(first: {x.get('first_error')}).")

    # Open loop.
    sc = f"{case}-open"
    gcs, ticks = gctrace(case)
    cells = []
    for label in ("loopkv", "redis"):
        xs = sel(sc, label)
        if not xs:
            cells.append("n/a | n/a | n/a")
            continue
        lat = lambda k: [x["latency"][k] for x in xs if x.get("latency")]
        p = [v / 1000 for v in lat("p999_us")]
        p999[(case, label)] = med(p)
        rate, ach = xs[0]["rate"], med([x["ops_per_s"] for x in xs])
        short = any(x["ops_per_s"] < 0.97 * x["rate"] for x in xs)
        cells.append(f"{fmt(rate)} / {fmt(ach)}{' ⚠' if short else ''} | "
                     f"{fmt(med(lat('p50_us')) / 1000)} / {fmt(med(lat('p99_us')) / 1000)} / "
                     f"**{fmt(med(p))}**{paren(p)} / {fmt(med(lat('max_us')) / 1000)} | "
                     f"{fmt(med([x['server_cpu_per_op_us'] for x in xs]))}")
        if short:
            notes.append(f"{sc} {label}: some runs achieved less than 97 % of the offered rate "
                         "(saturated: the percentiles measure a queue).")
    ngc = len(gc_in(case, lambda s: s == sc, gcs))
    rows_open.append(f"| {case} | {cells[0]} | {cells[1]} | {ngc} |")

    # GC share.
    def share(pred):
        nums = gc_in(case, pred, gcs)
        cpu_ms = sum(gcs[k][0] for k in nums)
        server_s = sum(x["server_cpu_s"] for x in runs if x.get("label") == "loopkv" and ok(x)
                       and pred(x.get("scenario", "")) and x.get("scenario", "").startswith(case + "-")
                       and x.get("server_cpu_s", -1) >= 0)
        return len(nums), cpu_ms, server_s, (cpu_ms / 1000 / server_s * 100 if server_s else None)

    pre = share(lambda s: s == f"{case}-load")
    meas = share(lambda s: s != f"{case}-load" and s != "lifetime")
    allgc = sum(v[0] for v in gcs.values())
    life = allgc / 1000 / (ticks / 100) * 100 if ticks else None
    stw = max((v[1] for v in gcs.values()), default=None)
    heap = max((v[2] for v in gcs.values()), default=None)
    if gcs or ticks:
        rows_gc.append(f"| {case} | {pre[0]} / {fmt(pre[1], ' ms')} / {fmt(pre[3], ' %')} | {meas[0]} / "
                       f"{fmt(meas[1], ' ms')} of {fmt(meas[2], ' s')} / **{fmt(meas[3], ' %')}** | {len(gcs)} / "
                       f"{fmt(allgc, ' ms')} of {fmt(ticks and ticks / 100, ' s')} / {fmt(life, ' %')} | "
                       f"{fmt(stw, ' ms')} | {fmt(heap, ' MB')} |")
    else:
        rows_gc.append(f"| {case} | n/a | n/a | n/a | n/a | n/a |")

# Goals at the largest and smallest string sizes.
if len(sizes) >= 2:
    lo_c, hi_c = f"strings-{size_name(min(sizes))}", f"strings-{size_name(max(sizes))}"
    for op in ("set", "get"):
        a, b, c = tput.get((hi_c, op, "loopkv")), tput.get((hi_c, op, "redis")), tput.get((lo_c, op, "loopkv"))
        r = ratio(a, b)
        goals.append((f"{op.upper()} ops/s at {hi_c} ≥ redis's", fmt(a), fmt(b), r, r is not None and r >= 1))
        r = ratio(a, c)
        goals.append((f"{op.upper()} ops/s at {hi_c} ≥ 0.8× loopkv's at {lo_c}", fmt(a), f"loopkv {lo_c}: {fmt(c)}",
                      r, r is not None and r >= 0.8))
    a, c = p999.get((hi_c, "loopkv")), p999.get((lo_c, "loopkv"))
    r = ratio(a, c)
    goals.append((f"open-loop p99.9 at {hi_c} ≤ 2× at {lo_c}", fmt(a, " ms"), f"loopkv {lo_c}: {fmt(c, ' ms')}",
                  r, r is not None and r <= 2))

failed = [f"{r.get('label')} {r.get('scenario')} rep {r.get('rep')}: {r['unavailable']}" for r in runs if not ok(r)]
with open(BASE + ".md", "w") as f:
    w = lambda s="": print(s, file=f)
    write_header(w, "Keyspace scaling, issue 12 — loopkv vs redis-server", "benchmarks/scaling.sh", E,
                 f"Sizes {E['SIZES']}, hashes {hashes or 'none'} of {E['FIELDS']} fields; keys {E['KEY_LEN']} B, "
                 f"values {E['VALUE_SIZE']} B; {E['CONNS']} connections × pipeline {E['PIPELINE']}; REPS={E['REPS']}, "
                 f"closed-loop runs {E['DURATION']}, open-loop runs {E['OPEN_DURATION']} at {E['OPEN_FRACTION']}× "
                 "capacity.")
    w()
    w("Servers on CPU 0 (loopkv `--loops 1`, GODEBUG=gctrace=1), load generator on CPU 1; both servers fresh per "
      "case. Medians over repetitions (min–max); ratio = loopkv / redis.")
    w()
    w("## Goals")
    w()
    w("| goal | loopkv | reference | ratio | met? |")
    w("|---|---|---|---|---|")
    for g, a, b, r, m in goals:
        w(f"| {g} | {a} | {b} | {fmt(r)} | {'n/a' if r is None else '**yes**' if m else '**no**'} |")
    w()
    w("## Memory: RSS per key")
    w()
    w("RSS empty → after the preload (+ settle) → at the end of the case; B/key = (loaded − empty) / keys; "
      "used_memory from INFO, per key (loopkv counts its chunks and bucket arrays).")
    w()
    w("| case | keys | loopkv RSS | loopkv B/key | loopkv used_memory B/key | redis RSS | redis B/key | "
      "redis used_memory B/key | B/key ratio |")
    w("|---|---|---|---|---|---|---|---|---|")
    for r in rows_mem:
        w(r)
    w()
    w("## Closed loop: throughput and server CPU per op")
    w()
    w("Uniformly random keys over the loaded range (every GET hits; SET overwrites). Client busy = the load "
      "generator's CPU / wall time: near 100 % the client, not the server, bounds ops/s; compare server CPU per op.")
    w()
    w("| case | command | loopkv ops/s | redis ops/s | ratio | loopkv µs CPU/op | redis µs CPU/op | CPU ratio | "
      "client busy loopkv / redis |")
    w("|---|---|---|---|---|---|---|---|---|")
    for r in rows_tput:
        w(r)
    w()
    w("## Open loop at half of capacity: latency")
    w()
    w("Offered / achieved ops/s, then p50 / p99 / p99.9 / max in ms from each batch's intended send time, then "
      "server µs CPU per op; GCs = loopkv collections that ended during its open-loop runs.")
    w()
    w("| case | loopkv offered / achieved | loopkv p50 / p99 / p99.9 / max ms | loopkv µs CPU/op | redis offered / "
      "achieved | redis p50 / p99 / p99.9 / max ms | redis µs CPU/op | loopkv GCs |")
    w("|---|---|---|---|---|---|---|---|")
    for r in rows_open:
        w(r)
    w()
    w("## loopkv's garbage collector")
    w()
    w("From GODEBUG=gctrace=1: collections / GC CPU (sum of each line's \"ms cpu\" fields: STW sweep termination, "
      "assist, background and idle marking, STW mark termination) / its share of loopkv's CPU (utime+stime) over "
      "the same runs. Measured runs = the closed- and open-loop runs; lifetime = from start to the end of the case. "
      "STW = the longest stop-the-world phase; heap = the largest live heap after a collection.")
    w()
    w("| case | preload: GCs / CPU / share | measured runs: GCs / CPU / share | lifetime: GCs / CPU / share | "
      "longest STW | live heap |")
    w("|---|---|---|---|---|---|")
    for r in rows_gc:
        w(r)
    if notes or failed:
        w()
        w("## Notes")
        w()
        for n_ in notes:
            w(f"- {n_}")
        for n_ in failed:
            w(f"- failed or unavailable: {n_}")
    w()
    write_commands(w, E["COMMANDS"], "ports and directories were free/temporary")
print(open(BASE + ".md").read())
