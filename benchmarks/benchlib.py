"""Number formatting and statistics shared by the benchmark reports
(goals.sh, scaling_report.py, types.sh). Import it with benchmarks/ on
sys.path."""

import statistics as st


def fmt(x, unit=""):
    """x with three significant digits or so, and unit; "n/a" for None."""
    if x is None:
        return "n/a"
    a = abs(x)
    s = f"{x:,.0f}" if a >= 100 else f"{x:.1f}" if a >= 10 else f"{x:.2f}"
    return s + unit


def med(xs):
    """The median of the values that are not None, or None."""
    xs = [x for x in xs if x is not None]
    return st.median(xs) if xs else None


def rng(xs):
    """"min–max" of the values that are not None, or "" for fewer than two."""
    xs = [x for x in xs if x is not None]
    return f"{fmt(min(xs))}–{fmt(max(xs))}" if len(xs) > 1 else ""


def ratio(a, b):
    """a / b, or None when either is unknown or b is 0."""
    return None if a is None or not b else a / b


def busy_warning(load_before):
    """The report's warning line for a machine that was not idle, or None."""
    load = float(load_before.split()[0])
    if load <= 0.5:
        return None
    return f"**The machine was not idle (load average {load} before the run): figures include its neighbours.**"


def write_header(w, title, script, env, details):
    """Writes a report's title, its machine and load line (with details
    appended) and the busy-machine warning; env holds QUICK, COMMIT, MACHINE,
    VERSIONS, LOAD_BEFORE, LOAD_AFTER and ELAPSED."""
    w(f"# {title} ({'QUICK smoke run: not a measurement' if env['QUICK'] == '1' else script})")
    w()
    w(f"Commit {env['COMMIT']}; {env['MACHINE']}; {env['VERSIONS']}. Load average before {env['LOAD_BEFORE']}, "
      f"after {env['LOAD_AFTER']}; {env['ELAPSED']} s. {details}")
    if busy_warning(env["LOAD_BEFORE"]):
        w()
        w(busy_warning(env["LOAD_BEFORE"]))


def write_commands(w, lines, what="ports and the certificate directory were free/temporary"):
    """Writes the section listing the commands as run."""
    w(f"## Commands (first repetition, as run; {what})")
    w()
    w("```sh")
    for l in lines:
        w(l.rstrip())
    w("```")
