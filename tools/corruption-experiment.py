#!/usr/bin/env python3
"""Random page corruption: does bracelet notice damage before it summarises it?

Builds a database with `bracelet ingest CAPTURE`, records `bracelet summarize --db` of it, then, for
each trial, copies the database, overwrites 8 random bytes at a random offset of one random page and
runs summarize again. Each trial is one of: same (exit 0, same summaries: the bytes hit a page
summarize does not read, or unused space; `db check` then tells whether the damage is found), error (non-zero exit with a message), SILENT (exit 0, different summaries) or CRASH (killed
by a signal). The goal is 0 SILENT and 0 CRASH. With --ingest, each damaged copy also gets a second
capture ingested. Every page carries a checksum, verified when the page is read, and ingest runs
`PRAGMA quick_check` (which reads every page in use) at open, so it refuses a file with damage in
any page in use, also in rows it would not read; each ingest is one of: refused (non-zero exit with a
message), nothing new (exit 0, no new row: the capture was already stored), stored into a clean file
(`db check` clean afterwards: the bytes hit no page in use), APPENDED to a damaged file (`db check`
finds damage the ingest did not see) or CRASH. The goal is 0 APPENDED too.

Usage: python3 tools/corruption-experiment.py BRACELET [--trials 60] [--seed 1] [--capture C] [--ingest C2]
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(args):
    p = subprocess.run(args, capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bracelet")
    ap.add_argument("--trials", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--capture", default=os.path.join(ROOT, "captures", "v1-day.btsnoop"))
    ap.add_argument("--ingest", help="a second capture to ingest into each damaged copy")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    work = tempfile.mkdtemp(prefix="bracelet-corrupt-")
    clean = os.path.join(work, "clean.db")
    code, _, err = run([a.bracelet, "ingest", a.capture, "--db", clean, "--tz", "UTC", "--age", "40"])
    assert code == 0, err
    summarize = ["summarize", "--format", "json", "--tz", "UTC", "--age", "40"]
    code, baseline, err = run([a.bracelet] + summarize + ["--db", clean])
    assert code == 0, err
    size = os.path.getsize(clean)
    pages = size // 4096
    counts = {"same": 0, "error": 0, "SILENT": 0, "CRASH": 0}
    same_checked = {"db check finds it": 0, "db check clean": 0}
    ingest_counts = {"refused": 0, "nothing new": 0, "stored, check clean": 0, "APPENDED": 0, "CRASH": 0}
    print(f"database: {size} bytes, {pages} pages (ingest of {os.path.basename(a.capture)})")
    for trial in range(a.trials):
        db = os.path.join(work, f"t{trial}.db")
        shutil.copy(clean, db)
        page = rng.randrange(pages)
        offset = page * 4096 + rng.randrange(4096 - 8)
        with open(db, "r+b") as f:
            f.seek(offset)
            f.write(bytes(rng.randrange(256) for _ in range(8)))
        code, out, err = run([a.bracelet] + summarize + ["--db", db])
        if code < 0 or code >= 128:
            kind = "CRASH"
        elif code != 0:
            kind = "error" if err.strip() else "CRASH"
        else:
            kind = "same" if out == baseline else "SILENT"
        counts[kind] += 1
        if kind == "same":
            check, _, _ = run([a.bracelet, "db", "check", "--db", db])
            same_checked["db check clean" if check == 0 else "db check finds it"] += 1
        first = (err.strip().splitlines() or [""])[-1][:150]
        print(f"trial {trial:2d}: page {page:3d} offset {offset % 4096:4d}: {kind:6s} exit {code} {first if kind != 'same' else ''}")
        if a.ingest:
            code, out, err = run([a.bracelet, "ingest", a.ingest, "--db", db, "--tz", "UTC"])
            if code < 0 or code >= 128 or (code not in (0, 3) and not err.strip()):
                outcome = "CRASH"
            elif code not in (0, 3):
                outcome = "refused"
            elif out.startswith(b"stored 0 new slots") and b" and 0 new beats" in out.splitlines()[0]:
                outcome = "nothing new"
            else:
                check, _, _ = run([a.bracelet, "db", "check", "--db", db])
                outcome = "stored, check clean" if check == 0 else "APPENDED"
            ingest_counts[outcome] += 1
            print(f"          ingest: {outcome} exit {code} {(err.strip().splitlines() or [''])[-1][:120] if outcome == 'refused' else ''}")
        os.remove(db)
        for suffix in ("-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)
    print("summarize --db after damage:", counts)
    print("of the same summaries:", same_checked)
    if a.ingest:
        print("ingest into the damaged copy:", ingest_counts)
    shutil.rmtree(work)
    sys.exit(1 if counts["SILENT"] or counts["CRASH"] or ingest_counts["CRASH"] or ingest_counts["APPENDED"] else 0)


if __name__ == "__main__":
    main()
