#!/usr/bin/env python3
"""Benchmark rows against their last accepted figures (tools/bench-baseline.txt).

A benchmark script writes one line per measured row, `NAME TARGET FIGURE` (see docs/performance.md,
"Regressions"); the shell helper `bench_row` of tools/bench-lib.sh writes them for you:

    NAME    no spaces; the script's prefix first (bench.ingest.30d.cpu_s, footprint.listen.400d.rss_mb)
    TARGET  <=N or >=N (the goal, which also says which way is better), =N (must equal), or
            lower / higher (no goal, only the better direction)
    FIGURE  a number (no unit: the name ends with it)

usage:
  tools/bench-baseline.py check [--ci] [--baseline FILE] ROWFILE...   (ROWFILE - reads stdin)
      prints each row's target, figure, baseline and change; exit 1 when a row is worse than its
      baseline by more than the row's tolerance, or its figure is not a number. With --ci, only
      the rows the baseline marks `ci` are judged (the others are printed), and one of them not
      measured fails too (a check that silently measures nothing).
      A target missed is printed (MISSED) but fails nothing: the baseline is what a change is
      judged against.
  tools/bench-baseline.py accept [--baseline FILE] [--note TEXT] ROWFILE...
      writes the rows' figures into the baseline (new rows get 25% and no `ci` mark); every other
      row, comment and column is kept as it was.

The baseline file: `#` comments, then one row per line, columns separated by spaces:
    NAME  FIGURE  TOLERANCE  CI  NOTE...
TOLERANCE is N% (relative to the baseline figure) or +N (absolute, in the row's unit); CI is `ci`
for rows `.ci/run` measures, `-` otherwise; NOTE is free text (accept writes date, commit, load).
"""
import datetime
import os
import re
import subprocess
import sys

DEFAULT_BASELINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-baseline.txt")
DEFAULT_TOLERANCE = "25%"
TARGET = re.compile(r"^(<=|>=|=)(-?[0-9.]+)$|^(lower|higher)$")


class Row:
    def __init__(self, name, target, figure, source):
        m = TARGET.match(target)
        if not m:
            raise SystemExit(f"{source}: row {name}: target '{target}' is not <=N, >=N, =N, lower or higher")
        self.name, self.target, self.source = name, target, source
        self.op, self.goal = (m.group(1), float(m.group(2))) if m.group(1) else (None, None)
        self.better = {"<=": "lower", ">=": "higher", "=": "equal"}.get(self.op, m.group(3))
        try:
            self.figure = float(figure)
        except ValueError:
            self.figure = None
        self.text = figure

    def met(self):
        if self.figure is None:
            return False
        if self.op == "<=":
            return self.figure <= self.goal
        if self.op == ">=":
            return self.figure >= self.goal
        if self.op == "=":
            return self.figure == self.goal
        return None


def read_rows(paths):
    rows = {}
    for path in paths:
        handle = sys.stdin if path == "-" else open(path)
        for number, line in enumerate(handle, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split()
            if len(parts) != 3:
                raise SystemExit(f"{path}:{number}: '{line}' is not 'NAME TARGET FIGURE'")
            rows[parts[0]] = Row(*parts, source=f"{path}:{number}")
    return rows


def read_baseline(path):
    """(lines as read, {name: (index, figure, tolerance, ci, note)})."""
    lines = open(path).read().splitlines() if os.path.exists(path) else []
    entries = {}
    for index, line in enumerate(lines):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split(None, 4)
        if len(parts) < 4:
            raise SystemExit(f"{path}:{index + 1}: '{line}' is not 'NAME FIGURE TOLERANCE CI [NOTE]'")
        name, figure, tolerance, ci = parts[:4]
        if not re.match(r"^([0-9.]+%|\+[0-9.]+)$", tolerance):
            raise SystemExit(f"{path}:{index + 1}: tolerance '{tolerance}' is not N% or +N")
        entries[name] = (index, float(figure), tolerance, ci == "ci", parts[4] if len(parts) > 4 else "")
    return lines, entries


def worse_by(row, baseline):
    """How much worse the figure is than the baseline, in the row's unit (negative: better)."""
    if row.better == "higher":
        return baseline - row.figure
    if row.better == "equal":
        return abs(row.figure - baseline)
    return row.figure - baseline


def allowed(tolerance, baseline):
    if tolerance.endswith("%"):
        return abs(baseline) * float(tolerance[:-1]) / 100
    return float(tolerance[1:])


def number(value):
    return f"{value:.4g}" if value is not None else "?"


def check(rows, baseline_path, ci):
    _, entries = read_baseline(baseline_path)
    failed = False
    print(f"{'row':<40} {'target':<10} {'figure':>10} {'baseline':>10} {'change':>8}  verdict")
    for name, row in rows.items():
        met = row.met()
        goal = "" if met is None else ("target met" if met else "target MISSED")
        judged = not ci or (name in entries and entries[name][3])
        if row.figure is None:
            print(f"{name:<40} {row.target:<10} {row.text:>10} {'':>10} {'':>8}  no figure" + (": FAIL" if judged else ""))
            failed = failed or judged
            continue
        if name not in entries:
            print(f"{name:<40} {row.target:<10} {number(row.figure):>10} {'-':>10} {'new':>8}  no baseline" + (f"; {goal}" if goal else ""))
            continue
        _, base, tolerance, _, _ = entries[name]
        worse = worse_by(row, base)
        change = f"{(row.figure - base) / base * 100:+.0f}%" if base else f"{row.figure - base:+.3g}"
        if not judged:
            verdict = "not judged here (no ci mark)"
        elif worse > allowed(tolerance, base):
            verdict = f"REGRESSED (worse by more than {tolerance})"
            failed = True
        else:
            verdict = f"ok (within {tolerance})"
        verdict += f"; {goal}" if goal else ""
        print(f"{name:<40} {row.target:<10} {number(row.figure):>10} {number(base):>10} {change:>8}  {verdict}")
    if ci:
        for name, (_, _, _, marked, _) in entries.items():
            if marked and name not in rows:
                print(f"{name:<40} {'':<10} {'-':>10} {'':>10} {'':>8}  marked ci but not measured: FAIL")
                failed = True
    return 1 if failed else 0


def accept(rows, baseline_path, note):
    lines, entries = read_baseline(baseline_path)
    if not note:
        try:
            commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        except OSError:
            commit = "?"
        load = open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "?"
        note = f"{datetime.date.today()} {commit or '?'} load {load}"
    for name, row in rows.items():
        if row.figure is None:
            raise SystemExit(f"{row.source}: row {name} has no figure ('{row.text}'); nothing accepted")
    for name, row in rows.items():
        if name in entries:
            index, _, tolerance, ci, _ = entries[name]
            lines[index] = format_line(name, row.figure, tolerance, "ci" if ci else "-", note)
        else:
            lines.append(format_line(name, row.figure, DEFAULT_TOLERANCE, "-", note))
    with open(baseline_path + ".tmp", "w") as out:
        out.write("\n".join(lines) + "\n")
    os.replace(baseline_path + ".tmp", baseline_path)
    print(f"accepted {len(rows)} rows into {baseline_path}")


def format_line(name, figure, tolerance, ci, note):
    return f"{name:<40} {figure:<10.6g} {tolerance:<9} {ci:<3} {note}".rstrip()


def main(argv):
    if len(argv) < 2 or argv[1] not in ("check", "accept"):
        raise SystemExit(__doc__)
    command, args = argv[1], argv[2:]
    baseline, ci, note, paths = DEFAULT_BASELINE, False, None, []
    while args:
        arg = args.pop(0)
        if arg == "--baseline":
            baseline = args.pop(0)
        elif arg == "--ci" and command == "check":
            ci = True
        elif arg == "--note" and command == "accept":
            note = args.pop(0)
        elif arg.startswith("--"):
            raise SystemExit(f"unknown option {arg}\n{__doc__}")
        else:
            paths.append(arg)
    rows = read_rows(paths or ["-"])
    if command == "check":
        return check(rows, baseline, ci)
    accept(rows, baseline, note)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
