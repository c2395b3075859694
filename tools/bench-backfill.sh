#!/usr/bin/env bash
# Measures a long-absence backfill end to end over unix: (release build): a simulated bracelet with
# DAYS days of history (default: a V2 with 400 days, the simulator's maximum), then one
# `bracelet listen --via unix:... --db D --exit-after-sync` that transfers every sealed file of every
# kind, stores it, erases it and recomputes the summaries. Reports the client's wall time, CPU
# (user + sys) and peak RSS from /usr/bin/time -v, the files and bytes the bracelet erased, and
# checks that `bracelet summarize --db D` has a summary for every local day from the first to the
# last stored slot, and that every such day has beats stored.
#
# Usage: tools/bench-backfill.sh [--model v1|v2] [--days N] [--tz ZONE] [--keep]
#   Run it under `nice -n 10` on a shared machine. SKIP_BUILD=1 uses the existing release build.
set -euo pipefail
cd "$(dirname "$0")/.."

model=v2 days=400 zone=Europe/Amsterdam keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --model) model=$2; shift 2 ;;
    --days) days=$2; shift 2 ;;
    --tz) zone=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "unknown argument $1; use --model v1|v2 --days N --tz ZONE --keep" >&2; exit 2 ;;
  esac
done
for tool in /usr/bin/time sqlite3 python3; do
  command -v "$tool" >/dev/null || { echo "needs $tool: apt-get install -y time sqlite3 python3" >&2; exit 2; }
done

[ "${SKIP_BUILD:-0}" = 1 ] || swift build -c release --product bracelet >&2
B=$PWD/.build/release/bracelet
work=$(mktemp -d /tmp/bracelet-bench-backfill.XXXXXX)
sim=
cleanup() {
  [ -n "$sim" ] && kill "$sim" 2>/dev/null || true
  [ "$keep" = 1 ] && echo "kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT

sock=$work/sim.sock db=$work/backfill.db
"$B" simulate --model "$model" --days "$days" --serve "unix:$sock" 2>"$work/simulate.log" &
sim=$!
for _ in $(seq 600); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || { echo "the simulator did not start; see $work/simulate.log" >&2; cat "$work/simulate.log" >&2; exit 1; }

status=0
TZ=$zone /usr/bin/time -v -o "$work/time.txt" "$B" listen --via "unix:$sock" --db "$db" --exit-after-sync \
  --tz "$zone" --age 40 --format json >"$work/events.jsonl" 2>"$work/listen.log" || status=$?
kill "$sim" 2>/dev/null || true
wait "$sim" 2>/dev/null || true
sim=
if [ "$status" != 0 ]; then
  echo "listen failed (exit $status):" >&2
  tail -5 "$work/listen.log" >&2
  exit 1
fi

"$B" summarize --db "$db" --tz "$zone" --age 40 --format json >"$work/summary.json" 2>"$work/summarize.log"

python3 - "$work" "$db" "$zone" "$model" "$days" <<'EOF'
import json, os, re, sqlite3, struct, sys, datetime
from zoneinfo import ZoneInfo

work, db, zone, model, days = sys.argv[1:]
tz = ZoneInfo(zone)
timing = open(os.path.join(work, "time.txt")).read()

def field(name):
    return re.search(re.escape(name) + r":\s*(.+)", timing).group(1).strip()

wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)")
parts = [float(p) for p in wall.split(":")]
wall_s = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
user, system = float(field("User time (seconds)")), float(field("System time (seconds)"))
rss_kb = int(field("Maximum resident set size (kbytes)"))

events = [json.loads(l) for l in open(os.path.join(work, "events.jsonl")) if l.startswith("{")]
erased = [e for e in events if e.get("kind") == "erased"]
by_kind = {}
for e in erased:
    n, b = by_kind.get(e["file_kind"], (0, 0))
    by_kind[e["file_kind"]] = (n + 1, b + e["size"])
total_bytes = sum(b for _, b in by_kind.values())

con = sqlite3.connect(db)
first, last = con.execute("SELECT min(start), max(start) FROM slots").fetchone()
def local(t):
    return datetime.datetime.fromtimestamp(t, tz).date()
expected = []
d = local(first)
while d <= local(last):
    expected.append(d.isoformat())
    d += datetime.timedelta(days=1)
beat_days = set()
# Whole hours are enough to place a beat in a local day (zone offsets are whole or half hours:
# half-hour zones are checked at the half hour too).
# Beats are stored packed per UTC hour (BeatChunk.swift: 8 bytes a beat, ms since the hour first).
n_beats = 0
for start_ms, blob in con.execute("SELECT start_ms, beats FROM beat_chunks"):
    n_beats += len(blob) // 8
    for h in {(start_ms + offset) // 1800000 for offset, _ in struct.iter_unpack("<Ii", blob)}:
        beat_days.add(local(h * 1800).isoformat())
n_slots = con.execute("SELECT count(*) FROM slots").fetchone()[0]

summary = json.load(open(os.path.join(work, "summary.json")))
summarized = {d["date"] for d in summary["days"]}
missing_summary = [d for d in expected if d not in summarized]
missing_beats = [d for d in expected if d not in beat_days]

print(f"input: simulated {model} bracelet, {days} days of history, served on unix:, listen --db (release build)")
print(f"files erased: " + ", ".join(f"{k} {n} files {b} bytes" for k, (n, b) in sorted(by_kind.items())))
print(f"stored: {n_slots} slots, {n_beats} beats")
print(f"client wall time: {wall_s:.1f} s ({total_bytes / wall_s / 1e6:.2f} MB/s of sealed files end to end)")
print(f"client CPU: user {user:.1f} s + sys {system:.1f} s = {user + system:.1f} s")
print(f"client peak RSS: {rss_kb / 1024:.1f} MiB")
print(f"local days {expected[0]} .. {expected[-1]}: {len(expected)}; with a summary: {len(expected) - len(missing_summary)}; "
      f"with beats: {len(expected) - len(missing_beats)}")
ok = not missing_summary and not missing_beats and len(expected) >= int(days)
if missing_summary: print("days without a summary:", missing_summary[:10], file=sys.stderr)
if missing_beats: print("days without beats:", missing_beats[:10], file=sys.stderr)
print("check: " + ("every local day has a summary and beats" if ok else "FAILED"))
sys.exit(0 if ok else 1)
EOF
