#!/usr/bin/env python3
"""Fills a bracelet database with a year of one-minute slots and nightly beats, for timing the
integrity checks (`bracelet db check`, the checks at open). The schema comes from bracelet itself:
run `bracelet ingest captures/v1-day.btsnoop --db DB` first. Values are plausible, not physiological.

bracelet_row_check is implemented here a second time, from its description in
Sources/BraceletStore/SQLite/RowCheck.swift, and the page checksum comes from tools/pagechecksum.py:
Python's sqlite3 does not write page checksums, so every page is sealed again at the end (on a
database of schema 10 or later). `bracelet db check` on the result therefore also checks that the
implementations agree.

Usage: python3 tools/make-year-db.py DB [DAYS]
"""
import random
import sqlite3
import struct
import sys

from pagechecksum import seal_pages

TYPES = {int: 1, float: 2, str: 3, bytes: 4, type(None): 5}


def row_check(*values):
    """FNV-1a over each value's type byte and its bytes (an integer's 8 bytes and a real's bit pattern
    little-endian, text and blobs as a 4-byte little-endian length and their bytes), top 31 bits."""
    parts = []
    for v in values:
        parts.append(bytes((TYPES[type(v)],)))
        if isinstance(v, int):
            parts.append(struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF))
        elif isinstance(v, float):
            parts.append(struct.pack("<d", v))
        elif isinstance(v, (str, bytes)):
            data = v.encode() if isinstance(v, str) else v
            parts.append(struct.pack("<I", len(data) & 0xFFFFFFFF))
            parts.append(data)
    h = 0xCBF29CE484222325
    for b in b"".join(parts):
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
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
    seal_pages(path)


if __name__ == "__main__":
    main()
