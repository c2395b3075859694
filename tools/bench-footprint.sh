#!/usr/bin/env bash
# The footprint of a backfill, one row per target with the target and the figure (docs/footprint.md):
#   peak RSS of `listen` for a SHORT-day and a LONG-day V2 backfill over unix: (whole process, /usr/bin/time)
#   peak RSS of `listen --record` of the same backfills (the capture is written as the session goes)
#   peak RSS of `ingest` of a recording of the same SHORT- and LONG-day backfills, and of `recompute --db`
#     of the database it made (every stored day)
#   peak RSS of one `gateway run` taking three LONG-day backfills at once (three simulated bracelets)
#   CPU (user + sys) of each step, and LONG-day CPU against SHORT-day CPU (must stay linear: <= 14x)
#   database bytes per day (db + wal + shm after the run, over the days of history)
#   bytes written to disk per day by `listen` (write_bytes of /proc/PID/io, reaped into the wrapping
#     shell's own counter) and against the database's growth (write amplification, <= 3x)
#   bytes on the wire per day per sink: webhook with a receiver that takes gzip, webhook with one that
#     answers 415 to gzip (identity from then on), --jsonl, --jsonl-gzip
#   every day of the history has its summary; with BASELINE=path (a build of the previous main), the
#     summaries as delivered (sync --jsonl) are byte-identical to that build's for the SHORT-day run
#
# Usage: tools/bench-footprint.sh [--short DAYS] [--long DAYS] [--ci]
#   default --short 30 --long 400. --ci: --short 7, no long or concurrent runs (about a minute).
#   BRACELET=path measures a given binary instead of building .build/release/bracelet;
#   SKIP_CONCURRENT=1 leaves out the gateway's three concurrent backfills. Run it under `nice` on a shared machine.
# Exit status 1 when a row misses its target or a check fails, except rows whose name starts with
# $ALLOW_MISS (a known miss, still printed as MISSED).
set -euo pipefail
cd "$(dirname "$0")/.."
short=30 long=400 concurrent=1
while [ $# -gt 0 ]; do
  case "$1" in
    --short) short=$2; shift 2 ;;
    --long) long=$2; shift 2 ;;
    --ci) short=7 long=0 concurrent=0; shift ;;
    *) echo "unknown argument $1; use --short DAYS --long DAYS --ci" >&2; exit 2 ;;
  esac
done
[ "${SKIP_CONCURRENT:-0}" = 1 ] && concurrent=0
for tool in /usr/bin/time sqlite3 python3 zcat; do
  command -v "$tool" >/dev/null || { echo "needs $tool: apt-get install -y time sqlite3 python3 gzip" >&2; exit 2; }
done
if [ -z "${BRACELET:-}" ]; then
  swift build -c release --product bracelet >&2
  BRACELET=.build/release/bracelet
fi
B=$(realpath "$BRACELET")
work=$(mktemp -d /tmp/bracelet-footprint.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
failed=0

# row NAME TARGET FIGURE OK: one line of the table; OK is 1 (met), - (no target), anything else
# missed: 0, or nothing when the figure could not be computed (a row without a figure never passes).
row() {
  local mark="ok"
  if [ "$4" = - ]; then
    mark=""
  elif [ "$4" != 1 ]; then
    mark="MISSED"; [ "$4" = 0 ] || mark="MISSED (no figure: '$4')"
    if [ -n "${ALLOW_MISS:-}" ] && [[ "$1" == "$ALLOW_MISS"* ]]; then mark="$mark (known, allowed)"; else failed=1; fi
  fi
  printf '%-44s %-16s %-28s %s\n' "$1" "$2" "$3" "$mark"
}
# le A B: 1 when A <= B (decimals), else 0.
le() { python3 -c "import sys; print(1 if float(sys.argv[1]) <= float(sys.argv[2]) else 0)" "$1" "$2"; }

# serve DIR DAYS BIN: a simulated V2 bracelet with DAYS of history (seed 4) on DIR/sim.sock.
serve() {
  mkdir -p "$1"
  "$3" simulate --model v2 --days "$2" --seed 4 --serve "unix:$1/sim.sock" --quiet 2>"$1/simulate.log" &
  pids+=($!)
  for _ in $(seq 900); do [ -S "$1/sim.sock" ] && return 0; sleep 0.1; done
  echo "the simulator did not start; see $1/simulate.log" >&2; exit 1
}

# backfill DIR DAYS [BIN]: one `listen --exit-after-sync` of the whole history into DIR/d.db; leaves
# DIR/time.txt (/usr/bin/time -v) and DIR/io (the /proc io counters of the shell that reaped it).
backfill() {
  local bin=${3:-$B}
  serve "$1" "$2" "$bin"
  bash -c '"$@" >/dev/null 2>"${DIR}/listen.log"; status=$?; cat /proc/$$/io >"${DIR}/io"; exit $status' _ \
    /usr/bin/time -v -o "$1/time.txt" "$bin" listen --via "unix:$1/sim.sock" --db "$1/d.db" --tz UTC --age 40 \
    --exit-after-sync --quiet || { echo "listen failed; see $1/listen.log" >&2; tail -3 "$1/listen.log" >&2; exit 1; }
}
export DIR
rss_mb() { awk '/Maximum resident/ {printf "%.1f", $6 / 1024}' "$1/time.txt"; }
cpu_s() { awk '/User time/ {u = $4} /System time/ {s = $4} END {printf "%.2f", u + s}' "$1/time.txt"; }
written() { awk '/^write_bytes/ {print $2}' "$1/io"; }
db_bytes() { cat "$1"/d.db "$1"/d.db-wal "$1"/d.db-shm 2>/dev/null | wc -c; }
# every_day DIR: days from the first to the last stored slot (UTC) that have no daily summary.
missing_days() {
  sqlite3 "$1/d.db" "WITH RECURSIVE d(day) AS (SELECT date(min(start), 'unixepoch') FROM slots
      UNION ALL SELECT date(day, '+1 day') FROM d WHERE day < (SELECT date(max(start), 'unixepoch') FROM slots))
    SELECT count(*) FROM d WHERE day NOT IN (SELECT local_date FROM daily_summaries WHERE kind = 'daily')"
}

echo "bracelet footprint: $B, V2 simulate --seed 4, listen --tz UTC --age 40; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-44s %-16s %-28s %s\n' "row" "target" "figure" ""

runs=("$short")
[ "$long" -gt 0 ] && runs+=("$long")
for days in "${runs[@]}"; do
  DIR=$work/b$days
  backfill "$DIR" "$days"
  size=$(db_bytes "$DIR") wrote=$(written "$DIR")
  row "listen peak RSS, $days days" "<= 96 MB" "$(rss_mb "$DIR") MB" "$(le "$(rss_mb "$DIR")" 96)"
  row "listen CPU (user+sys), $days days" "" "$(cpu_s "$DIR") s" -
  per_day=$((size / days))
  row "database bytes per day, $days days" "<= 400 kB" "$((per_day / 1000)) kB ($size B)" "$(le "$per_day" 400000)"
  row "disk bytes written per day, $days days" "" "$((wrote / days / 1000)) kB" -
  amp=$(python3 -c "print(f'{$wrote / $size:.2f}')")
  row "written / database growth, $days days" "<= 3x" "${amp}x" "$(le "$amp" 3)"
  missing=$(missing_days "$DIR")
  row "days without a summary, $days days" "0" "$missing" "$([ "$missing" = 0 ] && echo 1 || echo 0)"
done
# listen --record of the same histories (the capture written as the session goes, so its peak is
# listen's), then that recording ingested into a new database, then every stored day recomputed
# (`recompute --db`).
for days in "${runs[@]}"; do
  DIR=$work/i$days
  serve "$DIR" "$days" "$B"
  /usr/bin/time -v -o "$DIR/time.txt" "$B" listen --via "unix:$DIR/sim.sock" --record "$DIR/capture.btsnoop" --save-dir "$DIR/files" \
    --exit-after-sync --quiet >/dev/null 2>"$DIR/record.log" || { echo "listen --record failed; see $DIR/record.log" >&2; exit 1; }
  row "listen --record peak RSS, $days days" "<= 96 MB" "$(rss_mb "$DIR") MB ($(( $(wc -c <"$DIR/capture.btsnoop") / 1000000 )) MB capture)" \
    "$(le "$(rss_mb "$DIR")" 96)"
  rm -rf "$DIR/files"
  /usr/bin/time -v -o "$DIR/time.txt" "$B" ingest "$DIR/capture.btsnoop" --db "$DIR/d.db" --tz UTC --age 40 \
    >/dev/null 2>"$DIR/ingest.log" || { echo "ingest failed; see $DIR/ingest.log" >&2; exit 1; }
  row "ingest peak RSS, $days days" "<= 96 MB" "$(rss_mb "$DIR") MB ($(cpu_s "$DIR") s CPU)" "$(le "$(rss_mb "$DIR")" 96)"
  missing=$(missing_days "$DIR")
  row "days without a summary after ingest, $days d" "0" "$missing" "$([ "$missing" = 0 ] && echo 1 || echo 0)"
  /usr/bin/time -v -o "$DIR/time.txt" "$B" recompute --db "$DIR/d.db" --tz UTC --age 40 \
    >/dev/null 2>"$DIR/recompute.log" || { echo "recompute failed; see $DIR/recompute.log" >&2; exit 1; }
  row "recompute --db peak RSS, $days days" "<= 96 MB" "$(rss_mb "$DIR") MB ($(cpu_s "$DIR") s CPU)" "$(le "$(rss_mb "$DIR")" 96)"
done
if [ "$long" -gt 0 ]; then
  ratio=$(python3 -c "print(f'{$(cpu_s "$work/b$long") / $(cpu_s "$work/b$short"):.1f}')")
  row "listen CPU $long days / $short days" "<= 14x" "${ratio}x" "$(le "$ratio" 14)"
fi

# The wire, on the SHORT-day database: a copy per sink, each delivered from scratch.
db=$work/b$short/d.db
# fresh: a copy of the SHORT-day database with nothing delivered yet, without another run's log files.
fresh() { rm -f "$work"/wire.db*; cp "$db" "$work/wire.db"; }
port=$(python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
for mode in gzip identity-only; do
  fresh
  flag=""; [ "$mode" = identity-only ] && flag="--identity-only"
  python3 tools/webhook-receiver.py --secret s3cret --port "$port" $flag >"$work/receiver-$mode.log" 2>&1 &
  receiver=$!; pids+=($receiver)
  for _ in $(seq 100); do grep -q listening "$work/receiver-$mode.log" && break; sleep 0.1; done
  BRACELET_WEBHOOK_SECRET=s3cret /usr/bin/time -f "%U %S" -o "$work/sync-time" "$B" sync --db "$work/wire.db" \
    --webhook "http://127.0.0.1:$port/in" --once --quiet || { echo "sync --webhook failed" >&2; exit 1; }
  kill "$receiver"; wait "$receiver" 2>/dev/null || true
  bytes=$(awk '/^accepted/ {for (i = 1; i <= NF; i++) if ($i ~ /^bytes$/ && $(i+1) != "of") {s += $(i-1); break}} END {print s + 0}' "$work/receiver-$mode.log")
  entries=$(grep -c '^accepted' "$work/receiver-$mode.log" || true)
  cpu=$(awk '{printf "%.2f", $1 + $2}' "$work/sync-time")
  if [ "$mode" = gzip ]; then
    # Nothing accepted is no figure, not 0 kB.
    met=0; [ "$entries" -gt 0 ] && met=$(le $((bytes / short)) 64000)
    row "webhook bytes per day, gzip" "<= 64 kB" "$((bytes / short / 1000)) kB ($entries entries, ${cpu} s CPU)" "$met"
  else
    fallback=$(grep -c 'identity' "$work/receiver-$mode.log" || true)
    row "webhook bytes per day, 415 -> identity" "unchanged" "$((bytes / short / 1000)) kB ($entries entries, ${cpu} s CPU)" \
      "$([ "$entries" -gt 0 ] && [ "$fallback" = "$entries" ] && echo 1 || echo 0)"
  fi
done
for mode in plain gzip; do
  fresh
  out=$work/out-$mode.jsonl; flag=""; [ "$mode" = gzip ] && flag="--jsonl-gzip"
  /usr/bin/time -f "%U %S" -o "$work/sync-time" "$B" sync --db "$work/wire.db" --jsonl "$out" $flag --once --quiet
  cpu=$(awk '{printf "%.2f", $1 + $2}' "$work/sync-time")
  bytes=$(wc -c <"$out")
  row "jsonl bytes per day, $mode" "" "$((bytes / short / 1000)) kB (${cpu} s CPU)" -
done
same=$([ "$(zcat "$work/out-gzip.jsonl" | sha256sum)" = "$(sha256sum <"$work/out-plain.jsonl")" ] && echo 1 || echo 0)
row "jsonl gzip read by zcat = jsonl" "identical" "$([ "$same" = 1 ] && echo identical || echo differs)" "$same"

if [ -n "${BASELINE:-}" ]; then
  # Both histories end when their simulator starts, so the last (partial) day may differ between
  # two runs minutes apart: every other entry must be byte-identical, and the two runs follow each
  # other at once to keep that day equal too, mostly.
  DIR=$work/again$short
  backfill "$DIR" "$short"
  "$B" sync --db "$DIR/d.db" --jsonl "$work/again.jsonl" --once --quiet
  DIR=$work/base$short
  backfill "$DIR" "$short" "$(realpath "$BASELINE")"
  "$BASELINE" sync --db "$DIR/d.db" --jsonl "$work/base.jsonl" --once --quiet
  verdict=$(python3 -c '
import json, sys
def entries(path):
    return {json.loads(line)["key"]: line for line in open(path, "rb").read().splitlines()}
base, new = entries(sys.argv[1]), entries(sys.argv[2])
last = max(key.split("/")[1] for key in base)
differ = sorted(k for k in base.keys() | new.keys() if base.get(k) != new.get(k))
partial = [k for k in differ if k.split("/")[1] == last]
ok = len(differ) == len(partial)
print(("1 " if ok else "0 ") + (f"identical ({len(base)} entries)" if not differ else
      f"{len(base) - len(differ)} of {len(base)} identical; differ: {len(partial)} of the last day {last}, {len(differ) - len(partial)} others"))
' "$work/base.jsonl" "$work/again.jsonl")
  row "summaries as delivered vs BASELINE, $short d" "byte-identical" "${verdict#* }" "${verdict%% *}"
fi

if [ "$concurrent" = 1 ] && [ "$long" -gt 0 ]; then
  # One gateway process taking three LONG-day backfills at once (three links): enrolled over unix:,
  # run until all three are synced, then ended with SIGTERM as systemd ends it.
  g=$work/gateway
  mkdir -p "$g"
  for i in 1 2 3; do
    serve "$work/c$i" "$long" "$B"
    "$B" gateway enroll --db "$g/d.db" --via "unix:$work/c$i/sim.sock" --tz UTC --age 40 --quiet >/dev/null
  done
  /usr/bin/time -v -o "$g/time.txt" "$B" gateway run --db "$g/d.db" --max-links 3 --interval 86400 --log-level warning \
    >/dev/null 2>"$g/gateway.log" &
  gateway=$!
  pids+=("$gateway")
  for _ in $(seq 3600); do
    [ "$("$B" gateway status --db "$g/d.db" --json | grep -o '"state":"synced"' | wc -l)" = 3 ] && break
    sleep 1
  done
  # /usr/bin/time passes the signal on to the gateway, which stops at its next safe point.
  kill -TERM "$(pgrep -P "$gateway")" 2>/dev/null || true
  wait "$gateway" || true
  synced=$("$B" gateway status --db "$g/d.db" --json | grep -o '"state":"synced"' | wc -l)
  row "gateway, 3 concurrent $long-day backfills" "<= 160 MB" "$(rss_mb "$g") MB ($(cpu_s "$g") s CPU, $synced of 3 synced)" \
    "$([ "$synced" = 3 ] && le "$(rss_mb "$g")" 160 || echo 0)"
fi
exit $failed
