#!/usr/bin/env bash
# Fleet scoring benchmark: `bracelet fleet score` over N participants x 30 days, as one process.
#
#   tools/fleet-score-bench.sh N [URL]
#
# URL is the fleet database's owner (default: $BRACELET_POSTGRES_URL; with neither, a throwaway
# cluster from tools/pg-cluster.sh, removed at the end). The database must hold no devices but the
# bench's own (FSB*, replaced on every run). CLUSTER=DIR (a tools/pg-cluster.sh directory) adds the
# server's CPU time to the figures when URL is that cluster's.
#
# 1. Templates: TEMPLATES (default 3) simulated V2 bracelets with 30 days of history each (`simulate
#    --days 30 --seed 11, 12, ...` fetched by `listen --db --tz UTC --age 40`: real day summaries and
#    sleep sessions with the gateway's score inputs), kept in $BENCH_DIR (default /tmp/bracelet-bench)
#    for the next run, and delivered by `bracelet sync --postgres`, the gateways' write path.
# 2. Fill, SYNTHETIC and labelled: participants FSB00001..N are server-side copies of the templates'
#    rows (one INSERT ... SELECT per table, the bulk-load equivalent of N gateways delivering):
#    participant i copies template i mod TEMPLATES with its daily step count scaled by 0.6-1.4 (so
#    neighbours score differently), and every 50th keeps only its last 3 days (too few: no score,
#    with the reason). Payloads are a placeholder: scoring reads only the score inputs.
# 3. `bracelet fleet score --days 30 --format json` for every participant (WINDOW=7: --days 7, a
#    nightly week of the same 30 days), timed as a whole process
#    (wall, user and system CPU, peak RSS by /usr/bin/time); then, for one participant of each kind,
#    `bracelet score --postgres --device` must print the same `scores` object (python compares).
#
# Ends with `fleet-score: participants=N days=30 seconds=S peak_rss_mb=M`, then benchmark rows
# `NAME TARGET FIGURE` (also appended to $BENCH_ROWS when set). Uses .build/release/bracelet when it
# exists (BRACELET overrides); run it under `nice -n 10` on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${1:?usage: tools/fleet-score-bench.sh N [URL]}
[[ "$N" =~ ^[1-9][0-9]*$ ]] || { echo "fleet-score-bench: N is a number of participants, got $N" >&2; exit 2; }
URL=${2:-${BRACELET_POSTGRES_URL:-}}
TEMPLATES=${TEMPLATES:-3}
DAYS=30
# The window scored (--days): the 30 days by default; WINDOW=7 scores a nightly week of the same data.
WINDOW=${WINDOW:-30}
if [ -z "${BRACELET:-}" ]; then
  BRACELET=$PWD/.build/release/bracelet
  [ -x "$BRACELET" ] || BRACELET=$PWD/.build/debug/bracelet
fi
[ -x "$BRACELET" ] || { echo "fleet-score-bench: no bracelet binary; run swift build -c release first" >&2; exit 1; }
cache=${BENCH_DIR:-/tmp/bracelet-bench}
mkdir -p "$cache"

work=$(mktemp -d /tmp/bracelet-fleet-score.XXXXXX)
cluster=""
sim=""
cleanup() {
  [ -n "$sim" ] && kill "$sim" 2>/dev/null || true
  [ -n "$cluster" ] && tools/pg-cluster.sh stop "$cluster" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
source tools/fleet-lib.sh

fleet_bench_server "$URL"
sql() { "$PSQL" -X -A -t -q -v ON_ERROR_STOP=1 "$@"; }

# The schema (fleet_scores included) before anything else reads it.
"$BRACELET" fleet migrate >/dev/null
others=$(sql -c "SELECT count(*) FROM fleet_devices WHERE device NOT LIKE 'FSB%'")
[ "$others" -eq 0 ] || { echo "fleet-score-bench: the fleet database holds $others devices of its own: give it an empty one" >&2; exit 1; }
sql -c "DELETE FROM fleet_scores WHERE device LIKE 'FSB%'; DELETE FROM fleet_daily_summaries WHERE device LIKE 'FSB%';
        DELETE FROM fleet_sleep_sessions WHERE device LIKE 'FSB%'; DELETE FROM fleet_devices WHERE device LIKE 'FSB%'"

# 1. The templates: fetched once per seed (the simulated history ends now, so a cached template
#    older than a day is fetched again), delivered by one sync each.
ms() { echo $(( $(date +%s%N) / 1000000 )); }
for t in $(seq 1 "$TEMPLATES"); do
  serial=$(printf 'FSB-T%d' "$t")
  db="$cache/fleet-score-template-$t.db"
  if [ ! -s "$db" ] || [ -n "$(find "$db" -mmin +1440)" ]; then
    rm -f "$db" "$db-wal" "$db-shm" "$work/sim.sock"
    t0=$(ms)
    "$BRACELET" simulate --model v2 --serve "unix:$work/sim.sock" --days "$DAYS" --seed $(( 10 + t )) --serial "$serial" --quiet \
      2>"$work/simulate.log" &
    sim=$!
    for _ in $(seq 1 600); do [ -S "$work/sim.sock" ] && break; sleep 0.1; done
    "$BRACELET" listen --via "unix:$work/sim.sock" --db "$db" --tz UTC --age 40 --exit-after-sync --quiet >/dev/null 2>"$work/listen.log" \
      || { echo "fleet-score-bench: listen failed:" >&2; tail -5 "$work/listen.log" >&2; exit 1; }
    kill "$sim"; wait "$sim" 2>/dev/null || true; sim=""
    echo "template $t: $DAYS days of $serial fetched and summarised in $(( $(ms) - t0 )) ms" >&2
  fi
  cp "$db" "$work/gw-$t.db"
  "$BRACELET" sync --db "$work/gw-$t.db" --quiet >/dev/null
done
read -r tdays tsessions < <(sql -F ' ' -c "SELECT (SELECT count(*) FROM fleet_daily_summaries WHERE device LIKE 'FSB-T%'),
  (SELECT count(*) FROM fleet_sleep_sessions WHERE device LIKE 'FSB-T%')")
echo "templates: $TEMPLATES bracelets delivered by sync --postgres: $tdays day summaries, $tsessions sleep sessions" >&2

# 2. The participants, copied on the server.
t0=$(ms)
sql <<SQL
CREATE TEMPORARY TABLE participants AS
  SELECT format('FSB%s', lpad(x::text, 5, '0')) AS device, format('P-%s', lpad(x::text, 5, '0')) AS user_id,
         format('FSB-T%s', (x - 1) % $TEMPLATES + 1) AS template, 0.6 + ((x * 37) % 81) / 100.0 AS steps_factor, x % 50 = 0 AS few
  FROM generate_series(1, $N) x;
INSERT INTO fleet_daily_summaries (device, kind, local_date, version, content_hash, user_id, outbox_key, payload, score_input)
  SELECT p.device, s.kind, s.local_date, s.version, s.content_hash, p.user_id, replace(s.outbox_key, s.device, p.device), '{"filler":true}',
         jsonb_set(s.score_input::jsonb, '{summary,steps,stepCount}',
                   to_jsonb(round((s.score_input::jsonb #>> '{summary,steps,stepCount}')::numeric * p.steps_factor)))::text
  FROM participants p JOIN fleet_daily_summaries s ON s.device = p.template
  WHERE NOT p.few OR s.local_date > (SELECT max(local_date) - 3 FROM fleet_daily_summaries WHERE device = p.template);
INSERT INTO fleet_sleep_sessions (device, session_start, session_stop, local_date, version, content_hash, user_id, outbox_key, payload,
                                  score_input)
  SELECT p.device, s.session_start, s.session_stop, s.local_date, s.version, s.content_hash, p.user_id,
         replace(s.outbox_key, s.device, p.device), '{"filler":true}', s.score_input
  FROM participants p JOIN fleet_sleep_sessions s ON s.device = p.template
  WHERE NOT p.few OR s.local_date > (SELECT max(local_date) - 3 FROM fleet_daily_summaries WHERE device = p.template);
INSERT INTO fleet_devices (device, user_id, last_sync_at) SELECT device, user_id, now() FROM participants;
DELETE FROM fleet_daily_summaries WHERE device LIKE 'FSB-T%';
DELETE FROM fleet_sleep_sessions WHERE device LIKE 'FSB-T%';
DELETE FROM fleet_devices WHERE device LIKE 'FSB-T%';
SQL
sql -c "VACUUM ANALYZE fleet_daily_summaries, fleet_sleep_sessions, fleet_devices"
read -r devices days sessions < <(sql -F ' ' -c "SELECT (SELECT count(*) FROM fleet_devices), (SELECT count(*) FROM fleet_daily_summaries),
  (SELECT count(*) FROM fleet_sleep_sessions)")
[ "$devices" -eq "$N" ] || { echo "fleet-score-bench: $devices devices on the server, expected $N" >&2; exit 1; }
echo "fill: $N participants, $days day summaries, $sessions sleep sessions (synthetic server-side copies) in $(( $(ms) - t0 )) ms;" \
  "database $(sql -c "SELECT pg_size_pretty(pg_database_size(current_database()))")" >&2

# 3. The run.
load=$(cut -d' ' -f1-3 /proc/loadavg)
server_before=$(server_cpu)
/usr/bin/time -f '%e %U %S %M' -o "$work/score.time" "$BRACELET" fleet score --age 40 --days "$WINDOW" --format json \
  >"$work/scores.json" 2>"$work/score.err" || { echo "fleet-score-bench: fleet score failed:" >&2; cat "$work/score.err" >&2; exit 1; }
read -r seconds user system peak_kb <"$work/score.time"
server=""
[ -n "$server_before" ] && server="; PostgreSQL server $(printf "%.2f" "$(echo "$(server_cpu) - $server_before" | bc)") s CPU"
stored=$(sql -c "SELECT count(*) || ' rows, ' || count(scores) || ' with scores' FROM fleet_scores WHERE device LIKE 'FSB%'")
echo "fleet score: $(tail -1 "$work/score.err" | sed 's/^fleet score: //'); fleet_scores holds $stored" >&2
echo "  wall $seconds s, CPU $user s user + $system s system, peak RSS $(( peak_kb / 1024 )) MB$server (load average $load before," \
  "$(cut -d' ' -f1-3 /proc/loadavg) after; $(nproc) cores)" >&2

# The same participants through `score --postgres --device`: one of each template, one with too few days.
check=$(printf 'FSB%05d ' 1 $(( N > 1 ? 2 : 1 )) $(( N > 2 ? 3 : 1 )) $(( N >= 50 ? 50 : 1 )))
# The URL carries the owner's password: score refuses it in its arguments (every user reads them in ps).
(umask 077; printf '%s\n' "$BRACELET_POSTGRES_URL" >"$work/fleet.url")
for device in $check; do
  "$BRACELET" score --postgres-file "$work/fleet.url" --device "$device" --age 40 --days "$WINDOW" --format json \
    >"$work/single-$device.json" 2>"$work/single-$device.err" || true
done
python3 - "$work" $check <<'PY' >&2
import json, sys
work, devices = sys.argv[1], sys.argv[2:]
fleet = {item["device"]: item for item in json.load(open(work + "/scores.json"))}
for device in dict.fromkeys(devices):
    text = open("%s/single-%s.json" % (work, device)).read()
    item = fleet[device]
    if text.strip():
        single = json.loads(text)["scores"]
        def differences(a, b, path=""):
            if isinstance(a, dict) and isinstance(b, dict):
                return [d for k in sorted(set(a) | set(b)) for d in differences(a.get(k), b.get(k), "%s.%s" % (path, k))]
            if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
                return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, "%s[%d]" % (path, i))]
            return [] if a == b else ["%s: fleet score %r, score --device %r" % (path or "scores", a, b)]
        found = differences(item["scores"], single)
        assert not found, "%s differs: %s" % (device, "; ".join(found[:8]))
        print("check: %s scored %s by both fleet score and score --postgres --device" % (device, single["total"]))
    else:
        error = open("%s/single-%s.err" % (work, device)).read()
        assert item["scores"] is None and item["error"] in error, "%s: fleet score %s, score --device %s" % (device, item, error)
        print("check: %s has no score from either (%s)" % (device, item["error"][:60]))
PY

echo "fleet-score: participants=$N days=$DAYS$([ "$WINDOW" = "$DAYS" ] || echo " window=$WINDOW") seconds=$seconds peak_rss_mb=$(( peak_kb / 1024 ))"
target=lower
[ "$N" -eq 10000 ] && [ "$WINDOW" = "$DAYS" ] && target='<=60'
row=fleet-score.$N$([ "$WINDOW" = "$DAYS" ] || echo ".w$WINDOW")
rows="$row.wall_s $target $seconds
$row.cpu_s lower $(echo "$user $system" | awk '{ printf "%.2f", $1 + $2 }')
$row.rss_mb lower $(awk -v k="$peak_kb" 'BEGIN { printf "%.1f", k / 1024 }')"
echo "$rows"
[ -n "${BENCH_ROWS:-}" ] && echo "$rows" >>"$BENCH_ROWS"
exit 0
