#!/usr/bin/env python3
"""Power-loss images: is every crash image of a database being written either intact or reported?

Two kinds of image, per trial:
- kill: `bracelet ingest` runs on a copy of a database and is killed with SIGKILL after a random
  delay; the database as left is the image (what a crashed process leaves);
- copy: while another ingest runs, the database file and its -wal are copied at a random moment
  (what a disk that kept only some of the writes could hold; the copy is not atomic, so pages may
  mix two moments).
Each image is then checked with `bracelet db check` and read with `bracelet summarize --db`.
An image is "intact" (check clean, summarize exit 0), "reported" (non-zero exit with a message) or
BAD (check clean but summarize fails without a message, or a crash). The goal is 0 BAD.

Usage: python3 tools/crash-images.py BRACELET [--trials 20] [--seed 1]
"""
import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CAPTURES = [os.path.join(ROOT, "captures", n) for n in ("v1-day.btsnoop", "v2-three-days.btsnoop", "v2-daylight-saving.btsnoop")]


def run(args):
    p = subprocess.run(args, capture_output=True, timeout=300)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def classify(bracelet, db):
    check, out, err = run([bracelet, "db", "check", "--db", db])
    if check < 0 or check >= 128:
        return "BAD", f"db check crashed ({check})"
    devices = []
    if check == 0:
        for serial in ("V1DAY001", "V23DAY01", "V2DST001"):
            code, _, err2 = run([bracelet, "summarize", "--db", db, "--device", serial, "--tz", "UTC", "--age", "40"])
            if code < 0 or code >= 128 or (code != 0 and not err2.strip()):
                return "BAD", f"summarize {serial}: exit {code}"
            devices.append(code)
        return "intact", f"check clean; summarize exits {devices}"
    message = (out.decode(errors="replace") + err).strip().splitlines()
    return ("reported" if message else "BAD"), (message[0][:140] if message else "no message")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bracelet")
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    work = tempfile.mkdtemp(prefix="bracelet-crash-")
    base = os.path.join(work, "base.db")
    code, _, err = run([a.bracelet, "ingest", CAPTURES[0], "--db", base, "--tz", "UTC", "--age", "40"])
    assert code == 0, err
    counts = {"intact": 0, "reported": 0, "BAD": 0}
    for trial in range(a.trials):
        db = os.path.join(work, f"t{trial}.db")
        shutil.copy(base, db)
        kind = "kill" if trial % 2 == 0 else "copy"
        delay = rng.uniform(0.05, 3.0)
        proc = subprocess.Popen([a.bracelet, "ingest", CAPTURES[1], CAPTURES[2], "--db", db, "--tz", "UTC", "--age", "40"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        image = db
        if kind == "kill":
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        else:
            image = os.path.join(work, f"image{trial}.db")
            shutil.copy(db, image)
            if os.path.exists(db + "-wal"):
                shutil.copy(db + "-wal", image + "-wal")
            proc.wait()
        result, detail = classify(a.bracelet, image)
        counts[result] += 1
        print(f"trial {trial:2d}: {kind} after {delay:.2f} s: {result:8s} {detail}")
    print("crash images:", counts)
    shutil.rmtree(work)
    sys.exit(1 if counts["BAD"] else 0)


if __name__ == "__main__":
    main()
