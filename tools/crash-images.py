#!/usr/bin/env python3
"""Power-loss images: is every crash image of a database being written either intact or reported?

Two kinds of image, per trial, of `ingest` (default) or, with --listen, of `listen --via unix:`
against `bracelet simulate --serve unix:` (see listen_trials below):
- kill: `bracelet ingest` runs on a copy of a database and is killed with SIGKILL after a random
  delay; the database as left is the image (what a crashed process leaves);
- copy: while another ingest runs, the database file and its -wal are copied at a random moment
  (what a disk that kept only some of the writes could hold; the copy is not atomic, so pages may
  mix two moments).
Each image is then checked with `bracelet db check` and read with `bracelet summarize --db`.
An image is "intact" (check clean, summarize exit 0), "reported" (non-zero exit with a message) or
BAD (check clean but summarize fails without a message, or a crash). The goal is 0 BAD.

Usage: python3 tools/crash-images.py BRACELET [--trials 20] [--seed 1] [--listen [--days 2]]
"""
import argparse
import datetime
import os
import random
import shutil
import sqlite3
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

# --listen: power loss while a live session stores files.
#
# Per trial, two simulated bracelets with the same history (same seed and days, started in the same
# minute: the history ends at the minute) serve unix:A and unix:B. A clean `listen --db` takes all of
# A; a second `listen --db` takes B and is killed with SIGKILL after a random delay (kill), or its
# database and -wal are copied at a random moment while it runs (copy). Each image must:
# - pass `bracelet db check`, or fail it with a message (reported);
# - hold only rows the clean run holds (no damaged or invented slot or beat);
# - have stored summaries that `bracelet recompute` would not change (no summary of rows that were
#   not committed with it, no rows without their summaries), except on the days listed as pending
#   recompute (committed by listen, to be summarised when its sync ends or by the next run);
# and, for kill images, a new `listen` into the image against B (which still holds every file it
# did not erase) must end with exactly the clean run's slots, beats and daily summaries: nothing
# the bracelet erased was lost. Anything else is BAD.
PERSON = ["--tz", "UTC", "--age", "40"]
SLOT_COLUMNS = ("start, interval_s, bpm, bpm_quality, breath, breath_quality, steps, activity, speed, energy_cal, "
                "active_cal, skin_temp_c, core_temp_c, spo2, spo2_quality, eda_us, sleep_stage, wearing, battery")


def start_simulators(bracelet, work, days, trial):
    # Both histories end at the same minute only when both start within it.
    while datetime.datetime.now().second > 50:
        time.sleep(1)
    sims = []
    for name in ("a", "b"):
        sock = os.path.join(work, f"sim{trial}{name}.sock")
        log = open(os.path.join(work, f"sim{trial}{name}.log"), "w")
        # Files of at most 16 KB: a day becomes about 17 files, each committed (and erased) alone.
        proc = subprocess.Popen([bracelet, "simulate", "--model", "v2", "--serve", f"unix:{sock}", "--days", str(days),
                                 "--seed", "7", "--serial", "PWRLOSS1", "--max-file-size", "16384"],
                                stdout=subprocess.DEVNULL, stderr=log)
        sims.append((proc, sock))
    for proc, sock in sims:
        deadline = time.time() + 60
        while not os.path.exists(sock):
            assert proc.poll() is None and time.time() < deadline, "the simulator did not start"
            time.sleep(0.05)
    return sims


def listen_args(bracelet, sock, db):
    return [bracelet, "listen", "--via", f"unix:{sock}", "--db", db, "--exit-after-sync", "--quiet"] + PERSON


def copy_image(db, image):
    shutil.copy(db, image)
    if os.path.exists(db + "-wal"):
        shutil.copy(db + "-wal", image + "-wal")


def crash(proc, kind, delay, db, copy):
    """After `delay` s of `proc` writing `db`: kill it (the image is db as left) or copy db and -wal
    to `copy` while it goes on (the image is the copy); returns the image once proc has ended."""
    time.sleep(delay)
    if kind == "kill":
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return db
    if os.path.exists(db):
        copy_image(db, copy)
    proc.wait()
    return copy


def read_only(path):
    """A connection that never writes: a read-write one would checkpoint a WAL into the file when it
    closes, writing pages without the checksums bracelet keeps in every page of the file (they would
    then read as damaged)."""
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def rows_not_in(image, clean):
    """Slots and beats of the image that the clean run does not hold (damaged or invented rows)."""
    db = read_only(image)
    try:
        db.execute("ATTACH DATABASE ? AS clean", (f"file:{clean}?mode=ro",))
        slots = f"SELECT d.serial, {', '.join('s.' + c.strip() for c in SLOT_COLUMNS.split(','))} FROM {{0}}slots s JOIN {{0}}devices d ON d.id = s.device_id"
        beats = "SELECT d.serial, b.time_ms, b.rr_ms FROM {0}beats b JOIN {0}devices d ON d.id = b.device_id"
        return sum(db.execute(f"SELECT count(*) FROM ({q.format('main.')} EXCEPT {q.format('clean.')})").fetchone()[0]
                   for q in (slots, beats))
    finally:
        db.close()


def pending_and_summaries(path):
    """The (serial, date) days waiting to be recomputed, and every daily summary by (serial, date, kind),
    as its content hash (the SHA-256 of its canonical JSON: equal hashes, equal summaries; the JSON
    itself is a zstd frame in `documents`, which `db check` verifies against the hash)."""
    db = read_only(path)
    try:
        pending = set(db.execute("SELECT d.serial, p.local_date FROM pending_recompute p JOIN devices d ON d.id = p.device_id"))
        summaries = {(serial, date, kind): json for serial, date, kind, json in db.execute(
            "SELECT d.serial, s.local_date, s.kind, s.content_hash FROM daily_summaries s JOIN devices d ON d.id = s.device_id")}
        return pending, summaries
    finally:
        db.close()


def contents(path):
    """Slots, beats and daily summaries of a database, for comparing with the clean run's."""
    db = read_only(path)
    try:
        return (db.execute(f"SELECT {SLOT_COLUMNS} FROM slots ORDER BY start").fetchall(),
                db.execute("SELECT time_ms, rr_ms FROM beats ORDER BY time_ms").fetchall(),
                db.execute("SELECT local_date, kind, content_hash FROM daily_summaries ORDER BY local_date, kind").fetchall())
    finally:
        db.close()


def classify_listen_image(bracelet, image, clean, work):
    if not os.path.exists(image):
        return "intact", "no database yet (killed before the first commit)"
    check, out, err = run([bracelet, "db", "check", "--db", image])
    if check < 0 or check >= 128:
        return "BAD", f"db check crashed ({check})"
    if check != 0 and "holds no bracelet data yet" in err:
        return "intact", "killed before the schema was committed"
    if check != 0:
        message = (out.decode(errors="replace") + err).strip().splitlines()
        return ("reported" if message else "BAD"), (message[0][:140] if message else "no message")
    foreign = rows_not_in(image, clean)
    if foreign:
        return "BAD", f"{foreign} rows the clean run does not hold"
    probe = os.path.join(work, "probe.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(probe + suffix):
            os.remove(probe + suffix)
    copy_image(image, probe)
    # Days listen committed rows of but had not yet recomputed are listed in pending_recompute (with
    # those rows): recompute may change only them.
    pending, before = pending_and_summaries(probe)
    code, out, err = run([bracelet, "recompute", "--db", probe] + PERSON)
    text = out.decode(errors="replace")
    if code == 2 and "holds no device yet" in err:
        return "intact", "no file committed yet"
    if code != 0:
        return ("reported" if err.strip() else "BAD"), f"recompute exit {code}: {err.strip()[:120]}"
    if pending:
        after = pending_and_summaries(probe)[1]
        changed = [f"{day} changed though not pending" for day in sorted(set(before) | set(after))
                   if day[:2] not in pending and before.get(day) != after.get(day)]
    else:
        changed = [line for line in text.splitlines() if "recomputed" in line and "; 0 daily summaries and 0 sleep sessions changed" not in line]
    if changed:
        return "BAD", f"stored summaries differ from their rows: {changed[0][:140]}"
    return "intact", "check clean, rows a subset of the clean run's, summaries match their rows" + (
        f" ({len(pending)} days pending recompute)" if pending else "")


def listen_trials(a, rng, work):
    counts = {"intact": 0, "reported": 0, "BAD": 0}
    resumed = {"equal": 0, "BAD": 0}
    clean_seconds = 10.0  # until the first clean run says how long a session takes here
    for trial in range(a.trials):
        sims = start_simulators(a.bracelet, work, a.days, trial)
        try:
            # The clean run and the one that crashes run side by side (the same history, two bracelets).
            clean = os.path.join(work, f"clean{trial}.db")
            db = os.path.join(work, f"t{trial}.db")
            began = time.time()
            reference = subprocess.Popen(listen_args(a.bracelet, sims[0][1], clean), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            kind = "kill" if trial % 2 == 0 else "copy"
            delay = rng.uniform(0.05, clean_seconds)
            proc = subprocess.Popen(listen_args(a.bracelet, sims[1][1], db), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            image = crash(proc, kind, delay, db, os.path.join(work, f"image{trial}.db"))
            _, err = reference.communicate()
            assert reference.returncode == 0, f"the clean listen failed: {err.decode(errors='replace')}"
            clean_seconds = time.time() - began
            result, detail = classify_listen_image(a.bracelet, image, clean, work)
            counts[result] += 1
            line = f"trial {trial:2d}: {kind} after {delay:.2f} s of {clean_seconds:.2f}: {result:8s} {detail}"
            if kind == "kill" and result != "reported":
                code, _, err = run(listen_args(a.bracelet, sims[1][1], image))
                same = code == 0 and contents(image) == contents(clean)
                resumed["equal" if same else "BAD"] += 1
                line += "; resumed: " + ("equal to the clean run" if same else f"DIFFERS (exit {code} {err.strip()[:100]})")
            print(line, flush=True)
        finally:
            for proc, _ in sims:
                proc.terminate()
                proc.wait()
    print("listen crash images:", counts, "resumed after kill:", resumed)
    return counts["BAD"] + resumed["BAD"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bracelet")
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--listen", action="store_true", help="crash listen --via unix: instead of ingest")
    ap.add_argument("--days", type=int, default=2, help="days of history the simulated bracelet holds (--listen)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    work = tempfile.mkdtemp(prefix="bracelet-crash-")
    if a.listen:
        try:
            bad = listen_trials(a, rng, work)
        finally:
            shutil.rmtree(work)
        sys.exit(1 if bad else 0)
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
        image = crash(proc, kind, delay, db, os.path.join(work, f"image{trial}.db"))
        result, detail = classify(a.bracelet, image)
        counts[result] += 1
        print(f"trial {trial:2d}: {kind} after {delay:.2f} s: {result:8s} {detail}")
    print("crash images:", counts)
    shutil.rmtree(work)
    sys.exit(1 if counts["BAD"] else 0)


if __name__ == "__main__":
    main()
