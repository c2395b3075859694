#!/usr/bin/env bash
# The gateway left alone for weeks, in minutes: N simulated bracelets on unix: sockets, living on
# (recording, battery, reboots, out of range for hours, one clock step) on a clock running
# SOAK_SCALE times real time (default 2160: a simulated day per 40 s) across the end of daylight-saving
# time in Europe/Amsterdam (2026-10-25), one `bracelet gateway run` delivering to
# tools/webhook-receiver.py, with SIGKILLs and restarts of the gateway and the receiver down for 6
# simulated hours. Then every complete local day of every bracelet must be summarised and its final
# version delivered, no beat the bracelets erased may be missing from the store, no final version
# may arrive twice, and the gateway's memory and open files must stay flat.
#
#   tools/gateway-soak.sh BRACELETS DAYS OUTDIR        (the full soak: 5 14 DIR)
#
# Leaves the database (gateway.db), what the receiver accepted (received.log), the logs and
# status.json in OUTDIR. Uses .build/debug/bracelet (BRACELET overrides). The last line:
#   soak: bracelets=N days=N summarized=N/N lost_beats=N duplicate_final_versions=N rss_growth=P% fds_growth=P%
# Exit status 0 when every check holds. The gateway is sampled every SOAK_SAMPLE_HOURS simulated
# hours (default: a twelfth of the span, 1 to 6) from the baseline (day 2, or half a shorter run) to
# the end, all in one gateway process; the samples are printed to stderr and kept in
# OUTDIR/memory.tsv. rss_growth and fds_growth compare the median of the first three samples with
# the median of the last three (one sample taken while three syncs recompute is not a trend), and
# memory and open files count as flat when anonymous RSS grew by at most max(4 MiB, 10%) and open
# files by at most 2: a leak of a few KiB per sync adds MiBs per simulated day. Status and metrics
# must show every bracelet.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${1:?usage: tools/gateway-soak.sh BRACELETS DAYS OUTDIR}
DAYS=${2:?usage: tools/gateway-soak.sh BRACELETS DAYS OUTDIR}
OUT=${3:?usage: tools/gateway-soak.sh BRACELETS DAYS OUTDIR}
BRACELET=${BRACELET:-$PWD/.build/debug/bracelet}
SCALE=${SOAK_SCALE:-2160}
KILLS=${SOAK_KILLS:-10}
[ -x "$BRACELET" ] || { echo "gateway-soak: no $BRACELET; run swift build first" >&2; exit 1; }
mkdir -p "$OUT"
rm -f "$OUT"/gateway.db* "$OUT"/*.log "$OUT"/*.sock "$OUT"/status.json "$OUT"/memory.tsv
OUT=$(cd "$OUT" && pwd)

# Simulated start: 36 h before the clocks go back in Amsterdam (2026-10-25 01:00 UTC).
START=$(date -u -d 2026-10-23T13:00:00Z +%s)
ORIGIN=$(( $(date +%s) + 3 ))
SECRET=soak-secret
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
RPORT=$(free_port)
MPORT=$(free_port)
sim_now() { python3 -c "import time; print(int($START + (time.time() - $ORIGIN) * $SCALE))"; }
wait_until_hour() { # waits until the simulated clock passes hour $1 after START
  until python3 -c "import sys,time; sys.exit(0 if (time.time() - $ORIGIN) * $SCALE / 3600 >= $1 else 1)"; do sleep 0.2; done
}

simulators=()
gateway=""
receiver=""
cleanup() {
  [ -n "$gateway" ] && kill "$gateway" 2>/dev/null || true
  [ -n "$receiver" ] && kill "$receiver" 2>/dev/null || true
  for pid in "${simulators[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
began=$(date +%s)
clock=(--time-scale "$SCALE" --time-origin "$ORIGIN" --time-start "$START")

for i in $(seq 1 "$N"); do
  serial=$(printf 'SOAK%04d' "$i")
  model=v2; [ $((i % 3)) -eq 0 ] && model=v1
  life=()
  case $((i % 5)) in
    1) life=(--away-every 60 --away-for 8 --away-phase 20) ;;          # out of range 8 h every 2.5 days
    2) life=(--reboot-every 70 --away-every 96 --away-for 3 --away-phase 50) ;;
    3) life=(--clock-step 30:-3600) ;;                                  # its clock jumps an hour back once
    4) life=(--away-every 30 --away-for 2 --away-phase 7) ;;            # short absences, often
    0) life=(--away-every 120 --away-for 12 --away-phase 40) ;;
  esac
  "$BRACELET" simulate --serve "unix:$OUT/b$i.sock" --serial "$serial" --model "$model" --seed "$i" \
    --days 1 --live-days $((DAYS + 2)) "${clock[@]}" "${life[@]}" 2>"$OUT/sim$i.log" &
  simulators+=($!)
  "$BRACELET" gateway enroll --db "$OUT/gateway.db" --via "unix:$OUT/b$i.sock" --user "P-$i" --tz Europe/Amsterdam --age $((30 + i)) >/dev/null
done

start_receiver() {
  python3 tools/webhook-receiver.py --secret "$SECRET" --port "$RPORT" >>"$OUT/received.log" 2>>"$OUT/receiver.err" &
  receiver=$!
}
start_gateway() {
  BRACELET_WEBHOOK_SECRET=$SECRET "$BRACELET" gateway run --db "$OUT/gateway.db" --webhook "http://127.0.0.1:$RPORT/in" \
    --interval 3600 --max-links 3 --retry-base-seconds 600 --retry-cap-seconds 7200 --metrics "127.0.0.1:$MPORT" \
    --log-level warning "${clock[@]}" 2>>"$OUT/gateway.log" &
  gateway=$!
}
sample() { # anonymous RSS KiB (median of 5 readings over 2 s), open files (the fewest of those readings:
  # links and deliveries in flight come and go) and CPU time (clock ticks, user + system) of the gateway
  python3 - "$gateway" <<'PY'
import os, statistics, sys, time
pid = sys.argv[1]
rss, fds = [], []
for _ in range(5):
    rss.append(int(next(l for l in open(f"/proc/{pid}/status") if l.startswith("RssAnon:")).split()[1]))
    fds.append(len(os.listdir(f"/proc/{pid}/fd")))
    time.sleep(0.4)
stat = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
print(int(statistics.median(rss)), min(fds), int(stat[11]) + int(stat[12]))
PY
}
start_receiver
start_gateway

# Faults on the simulated timeline: the receiver down from hour 50 to 56 (a third into a shorter run).
total_hours=$((DAYS * 24))
down_at=$(( total_hours > 60 ? 50 : total_hours / 3 ))
# The kills fall between hour 6 and 60 % of the way to the baseline, so that memory and open files
# are compared within one gateway process, from simulated day 2 (or half the run, when shorter) to
# the end, and that process has had its first syncs (SQLite's page cache filling, the first
# deliveries) before the baseline: a process seconds old at the baseline made its warm-up read as growth.
baseline_hour=$(( total_hours > 48 ? 48 : total_hours / 2 ))
# At least a dozen samples also in a short run (the CI's), so that one taken during a burst of syncs
# weighs little in its half's median.
span=$(( (total_hours - baseline_hour) / 12 ))
SAMPLE_HOURS=${SOAK_SAMPLE_HOURS:-$(( span < 1 ? 1 : span > 6 ? 6 : span ))}
kills_at=$(python3 -c "print(' '.join(str(round(6 + k * ($baseline_hour * 0.6 - 6) / max(1, $KILLS), 2)) for k in range($KILLS)))")
events=$( { for h in $kills_at; do echo "$h kill"; done; echo "$down_at receiver_down"; echo "$((down_at + 6)) receiver_up"; \
            echo "$baseline_hour baseline"; \
            python3 -c "print('\\n'.join(f'{h} sample' for h in range($baseline_hour + $SAMPLE_HOURS, $total_hours, $SAMPLE_HOURS)))"; } | sort -n)
baseline=""
record_sample() { # appends "hour rss_kib fds cpu_ticks" to memory.tsv and shows it
  echo "$1 $2" >>"$OUT/memory.tsv"
  read -r rss fds _ <<<"$2"
  echo "gateway-soak: simulated hour $1: anonymous RSS $((rss / 1024)).$((rss % 1024 * 10 / 1024)) MiB, $fds open files" >&2
}
while read -r hour what; do
  (( $(python3 -c "print(int($hour < $total_hours))") )) || continue
  wait_until_hour "$hour"
  case $what in
    kill) kill -9 "$gateway"; wait "$gateway" 2>/dev/null || true; sleep 0.3; start_gateway ;;
    receiver_down) kill "$receiver"; wait "$receiver" 2>/dev/null || true ;;
    receiver_up) start_receiver ;;
    baseline) sleep 1; baseline=$(sample); record_sample "$hour" "$baseline" ;;
    sample) record_sample "$hour" "$(sample)" ;;
  esac
done <<<"$events"
wait_until_hour "$total_hours"
end_sim=$(sim_now)
[ -n "$baseline" ] || { baseline=$(sample); record_sample "$baseline_hour" "$baseline"; }
final=$(sample)
record_sample "$total_hours" "$final"
curl -fsS "http://127.0.0.1:$MPORT/metrics" >"$OUT/metrics.txt" || echo "gateway-soak: metrics not served" >&2

# Every bracelet synced once more after the end, and the outbox empty (at most 120 s).
deadline=$(( $(date +%s) + 120 ))
until python3 - "$OUT/gateway.db" "$end_sim" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
behind = db.execute("SELECT count(*) FROM gateway_enrolments WHERE coalesce(last_sync_at, 0) < ?", (int(sys.argv[2]) * 1000,)).fetchone()[0]
pending = db.execute("SELECT count(*) FROM outbox WHERE state = 'pending'").fetchone()[0]
sys.exit(0 if behind == 0 and pending == 0 else 1)
EOF
do
  [ "$(date +%s)" -lt "$deadline" ] || { echo "gateway-soak: bracelets or outbox still behind after 120 s" >&2; break; }
  sleep 1
done
"$BRACELET" gateway status --db "$OUT/gateway.db" --json >"$OUT/status.json"
kill -TERM "$gateway"; wait "$gateway" || echo "gateway-soak: gateway exited with $? on SIGTERM" >&2
gateway=""
for pid in "${simulators[@]}"; do kill -TERM "$pid"; done
for pid in "${simulators[@]}"; do wait "$pid" || true; done
simulators=()
kill "$receiver"; wait "$receiver" 2>/dev/null || true; receiver=""

python3 - "$OUT" "$N" "$DAYS" "$START" "$baseline" "$final" "$(( $(date +%s) - began ))" "$baseline_hour" "$(getconf CLK_TCK)" <<'EOF'
import collections, datetime, glob, json, os, re, sqlite3, statistics, sys, zoneinfo
out, n, days, start, baseline, final, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5].split(), sys.argv[6].split(), int(sys.argv[7])
baseline_hour, ticks = float(sys.argv[8]), int(sys.argv[9])
bracelet_days = n * (days * 24 - baseline_hour) / 24
cpu = (int(final[2]) - int(baseline[2])) / ticks / bracelet_days if bracelet_days > 0 else float("nan")
db = sqlite3.connect(f"file:{out}/gateway.db?mode=ro", uri=True)
zone = zoneinfo.ZoneInfo("Europe/Amsterdam")
accepted = collections.Counter(m.group(1) for m in (re.match(r"accepted (\S+) ", line) for line in open(f"{out}/received.log")) if m)
# The complete local days: from the first whole day after the history's start (START - 1 day) to
# the last whole day before the end of the run.
first = (datetime.datetime.fromtimestamp(start - 86400, zone) + datetime.timedelta(days=1)).date()
last = (datetime.datetime.fromtimestamp(start + days * 86400, zone) - datetime.timedelta(days=1)).date()
expected = [first + datetime.timedelta(days=k) for k in range((last - first).days + 1)]
summarized, problems, duplicates, lost = 0, [], 0, 0
for i in range(1, n + 1):
    serial = f"SOAK{i:04d}"
    rows = db.execute("""SELECT s.local_date, s.kind, s.version FROM daily_summaries s JOIN devices d ON d.id = s.device_id
                         WHERE d.serial = ?""", (serial,)).fetchall()
    final_keys = {(date, kind): f"{serial}/{date}/{kind}/v{version}" for date, kind, version in rows}
    ok = True
    for day in expected:
        keys = [key for (date, kind), key in final_keys.items() if date == day.isoformat()]
        if not keys or any(accepted[key] == 0 for key in keys):
            ok = False
            problems.append(f"{serial} {day}: " + ("no summary" if not keys else "final version not delivered"))
    duplicates += sum(1 for key in final_keys.values() if accepted[key] > 1)
    summarized += ok
    stored = db.execute("SELECT count(*) FROM beats b JOIN devices d ON d.id = b.device_id WHERE d.serial = ?", (serial,)).fetchone()[0]
    erased = re.search(r"beats=(\d+)", open(f"{out}/sim{i}.log").read())
    if erased is None:
        problems.append(f"{serial}: the simulator did not report what it erased")
    else:
        lost += max(0, int(erased.group(1)) - stored)
events = db.execute("SELECT kind, count(*) FROM outbox WHERE kind LIKE 'event:%' GROUP BY kind").fetchall()
growth = lambda a, b: round(100.0 * (int(b) - int(a)) / int(a), 1)
# Growth from day 2 to the end, each end the median of three samples.
samples = [[int(v) for v in line.split()] for line in open(f"{out}/memory.tsv") if line.strip()]
median = lambda rows, column: statistics.median(row[column] for row in rows)
rss_early, rss_late = median(samples[:3], 1), median(samples[-3:], 1)
fds_early, fds_late = median(samples[:3], 2), median(samples[-3:], 2)
rss_flat = rss_late - rss_early <= max(4 * 1024, 0.10 * rss_early)
fds_flat = fds_late - fds_early <= 2
if not rss_flat:
    problems.insert(0, f"gateway memory not flat: anonymous RSS {rss_early / 1024:.1f} -> {rss_late / 1024:.1f} MiB "
                    f"(median of the first and of the last three of {len(samples)} samples; allowed: 4 MiB or 10% more)")
if not fds_flat:
    problems.insert(0, f"gateway open files not flat: {fds_early:g} -> {fds_late:g} (median of the first and of the last three "
                    f"of {len(samples)} samples; allowed: 2 more)")
# Status and metrics show every bracelet.
serials = {f"SOAK{i:04d}" for i in range(1, n + 1)}
status = json.load(open(f"{out}/status.json"))
shown = serials & {d.get("serial") for d in status.get("devices", [])}
metrics = open(f"{out}/metrics.txt").read() if os.path.exists(f"{out}/metrics.txt") else ""
measured = {s for s in serials if f'bracelet_last_sync_timestamp_seconds{{device="{s}"}}' in metrics}
for missing in sorted(serials - shown):
    problems.insert(0, f"{missing}: not in gateway status --json")
for missing in sorted(serials - measured):
    problems.insert(0, f"{missing}: no bracelet_last_sync_timestamp_seconds in /metrics")
shown_all = shown == serials and measured == serials
for p in problems[:20]:
    print("gateway-soak:", p, file=sys.stderr)
print(f"gateway-soak: {len(expected)} complete local days per bracelet ({first}..{last}); operator events {dict(events)}; "
      f"gateway anonymous RSS {baseline[0]} -> {final[0]} KiB, open files {baseline[1]} -> {final[1]}, "
      f"CPU {cpu:.3f} s per bracelet-day (hour {baseline_hour:g} to the end); {seconds} s", file=sys.stderr)
print(f"soak: bracelets={n} days={days} summarized={summarized}/{n} lost_beats={lost} duplicate_final_versions={duplicates} "
      f"rss_growth={growth(rss_early, rss_late)}% fds_growth={growth(fds_early, fds_late)}%")
sys.exit(0 if summarized == n and lost == 0 and duplicates == 0 and rss_flat and fds_flat and shown_all else 1)
EOF
