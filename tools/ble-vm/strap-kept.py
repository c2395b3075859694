#!/usr/bin/env python3
"""Judges what `gateway run` kept of a heart-rate strap against what the strap sent it over the air.

    strap-kept.py NOTIFICATIONS STATUS_RUNNING STATUS_END JSONL SERIAL MIN_VERSIONS

NOTIFICATIONS: tshark fields (tab-separated) of the Heart Rate Measurement notifications the
gateway's controller handed its host (hci0 in the trace): time, 8-bit rate, 16-bit rate, contact
flag. STATUS_RUNNING: `gateway status --json` while the gateway streamed; STATUS_END: after it
stopped; JSONL: its JSON Lines sink. Run by tools/ble-vm/link-security.sh (case gateway) inside the
VM. Prints one line per check, "ok   ..." or "FAIL ..."; the exit status is the number of failures.

The rules (the ones the strap's values are kept by, Definitions.md "Standard sensors"): one second
of the store per value, so every value that reached the gateway is kept, but for the last few in
flight when it stopped; the day's averageBPM is the mean of the rates sent with skin contact (or
without a contact flag), within 2 (the latest version may predate the last seconds).
"""
import json
import sys

# Values that may reach the host and not be kept: in flight while the gateway stopped, and one that
# found no free second (two values within a second are a strap's own jitter under emulation).
IN_FLIGHT = 3
# The longest silence between two values of a strap that streams once a second, under emulation.
MAX_GAP_S = 3.0


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    notifications, status_running, status_end, jsonl, serial, min_versions = sys.argv[1:]
    failures = []

    def check(good, text):
        print(("ok   " if good else "FAIL ") + text)
        if not good:
            failures.append(text)

    times, rates = [], []
    with open(notifications) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 4 or not fields[0]:
                continue
            rate = fields[1] or fields[2]
            if not rate:
                continue
            times.append(float(fields[0]))
            # Wireshark shows the contact flag as 0/1 (or False/True): 0 is "no skin contact".
            if fields[3] not in ("0", "False"):
                rates.append(int(rate, 0))
    received = len(times)
    gaps = [b - a for a, b in zip(times, times[1:])]
    longest = max(gaps, default=0.0)
    span = times[-1] - times[0] if times else 0.0
    check(received >= 10 and longest <= MAX_GAP_S,
          f"the strap streamed: {received} Heart Rate Measurement(s) reached the gateway over {span:.1f} s, "
          f"longest gap {longest:.1f} s ({MAX_GAP_S} s allowed)")

    def device(path):
        with open(path) as f:
            devices = json.load(f).get("devices", [])
        return devices[0] if len(devices) == 1 else {}

    running = device(status_running)
    check(isinstance(running.get("samples_kept"), int) and running["samples_kept"] > 0
          and isinstance(running.get("battery"), int) and running.get("serial") == serial
          and running.get("state") == "streaming" and running.get("last_sample") is not None,
          "status while it streams: samples_kept %s, battery %s, serial %s, state %s, last_sample %s"
          % tuple(running.get(k) for k in ("samples_kept", "battery", "serial", "state", "last_sample")))
    kept = device(status_end).get("samples_kept")
    check(isinstance(kept, int) and received - IN_FLIGHT <= kept <= received,
          f"every value that reached it was kept: samples_kept {kept} after it stopped, {received} received "
          f"(at most {IN_FLIGHT} in flight at the stop)")

    daily = []
    with open(jsonl) as f:
        for line in f:
            entry = json.loads(line)
            if entry.get("kind") == "daily:daily" and entry.get("device") == serial:
                daily.append(entry)
    versions = len(daily)
    if not daily or not rates:
        check(False, f"a daily entry of {serial} in the JSON Lines sink: {versions}, {len(rates)} rate(s) with contact")
    else:
        # The latest version of the latest day (a run that crossed midnight has two days).
        latest = max(daily, key=lambda e: (e.get("local_date", ""), e.get("version", 0)))
        average = latest.get("summary", {}).get("bpm", {}).get("averageBPM")
        mean = sum(rates) / len(rates)
        check(versions >= int(min_versions) and isinstance(average, int) and abs(average - mean) <= 2,
              f"JSON Lines: {versions} daily version(s) of {serial} (at least {min_versions}), the latest "
              f"({latest.get('local_date')} v{latest.get('version')}) averageBPM {average}, the stream's mean {mean:.1f} (2 allowed)")
    sys.exit(len(failures))


if __name__ == "__main__":
    main()
