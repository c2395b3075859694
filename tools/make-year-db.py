#!/usr/bin/env python3
"""Fills a bracelet database with a year of one-minute slots and nightly beats, for timing the
integrity checks (`bracelet db check`, the checks at open). The schema comes from bracelet itself:
run `bracelet ingest captures/v1-day.btsnoop --db DB` first. Values are plausible, not physiological.

bracelet_row_check is implemented here a second time, from its description in
Sources/BraceletStore/SQLite/RowCheck.swift; `bracelet db check` on the result therefore also checks
that the two implementations agree.

Usage: python3 tools/make-year-db.py DB [DAYS]
"""
import random
import sqlite3
import struct
import sys

TYPES = {int: 1, float: 2, str: 3, bytes: 4, type(None): 5}


def row_check(*values):
    h = 0xCBF29CE484222325

    def mix(word, count):
        nonlocal h
        for _ in range(count):
            h = ((h ^ (word & 0xFF)) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
            word >>= 8

    for v in values:
        mix(TYPES[type(v)], 1)
        if isinstance(v, int):
            mix(v & 0xFFFFFFFFFFFFFFFF, 8)
        elif isinstance(v, float):
            mix(struct.unpack("<Q", struct.pack("<d", v))[0], 8)
        elif isinstance(v, (str, bytes)):
            data = v.encode() if isinstance(v, str) else v
            mix(len(data), 4)
            for b in data:
                mix(b, 1)
    return h >> 33


def main():
    path, days = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 365
    db = sqlite3.connect(path)
    db.create_function("bracelet_row_check", -1, row_check, deterministic=True)
    db.execute("INSERT OR IGNORE INTO devices (serial, model, first_seen_at, last_seen_at) VALUES ('YEAR0001', 'v2', 0, 0)")
    device = db.execute("SELECT id FROM devices WHERE serial = 'YEAR0001'").fetchone()[0]
    rng = random.Random(1)
    start = 1_767_225_600  # 2026-01-01T00:00:00Z
    for day in range(days):
        base = start + day * 86_400
        slots = []
        for minute in range(1440):
            asleep = minute < 420
            slots.append((device, base + minute * 60, 60, rng.randint(50, 70) if asleep else rng.randint(60, 120), 4,
                          round(rng.uniform(12, 18), 2), 3, 0 if asleep else rng.randint(0, 120), 7, 0.0,
                          rng.randint(900, 1100), 0, round(rng.uniform(32, 35), 2), None, 97, 3, 0.5, 3 if asleep else 0, 4, 80))
        db.executemany("""INSERT OR IGNORE INTO slots (device_id, start, interval_s, bpm, bpm_quality, breath, breath_quality,
            steps, activity, speed, energy_cal, active_cal, skin_temp_c, core_temp_c, spo2, spo2_quality, eda_us, sleep_stage,
            wearing, battery) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)""", slots)
        # Beats are stored packed per UTC hour (Sources/BraceletStore/BeatChunk.swift): 8 bytes a beat,
        # milliseconds since the hour (unsigned) and the RR interval (signed), little-endian.
        t, hours = base * 1000, {}
        for _ in range(27_000):
            rr = rng.randint(800, 1100)
            t += rr
            hour = t - t % 3_600_000
            hours.setdefault(hour, []).append(struct.pack("<Ii", t - hour, rr))
        db.executemany("INSERT OR IGNORE INTO beat_chunks (device_id, start_ms, beats) VALUES (?,?,?)",
                       [(device, hour, b"".join(records)) for hour, records in hours.items()])
        db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


if __name__ == "__main__":
    main()
