#!/usr/bin/env bash
# Fleet benchmark: summaries per second from one gateway process into PostgreSQL, and the time of
# `bracelet score` for one participant out of BRACELETS x DAYS days of fleet data.
#
#   tools/fleet-bench.sh [BRACELETS] [DAYS] [SYNCED]      (default 1000 30 100)
#
# 1. One simulated V2 bracelet with DAYS days of history is fetched with `listen --via unix:` into a
#    gateway database (real day summaries and sleep sessions, real outbox entries).
# 2. Its outbox is cloned in SQLite to SYNCED bracelets (serial, key and participant renamed; the
#    summaries, hashes and sizes the same), and ONE `bracelet sync --postgres` process delivers all of it.
#    Reported: entries/s, day summaries/s and MB/s of payload, end to end and for the delivery alone
#    (after sync's integrity check of the pending payloads), and the CPU seconds of the sync process
#    and of the PostgreSQL server (every process of the cluster), which say which side is the limit.
# 3. The server's tables are filled up to BRACELETS x DAYS day summaries: SYNTHETIC server-side copies
#    of the rows delivered for FLB00001 (device, participant and key renamed; score input as delivered;
#    the payload as delivered for the measured participant's bracelet and, unless FILL=copy, a placeholder
#    for the others, which score never reads), then `bracelet score --postgres --user` runs 11 times for one participant; the
#    median wall time (whole process: start, connect, query, decode, score) is reported, and the
#    day query's own time from EXPLAIN ANALYZE.
#
#   TEMPLATE=gw.db tools/fleet-bench.sh ...               (reuse the gateway database of step 1)
#   GATEWAYS=100 PARALLEL=2 tools/fleet-bench.sh 1000 30 10
#       step 2b: the bracelets past SYNCED are not filled in on the server but delivered through the
#       product path: GATEWAYS gateway databases, each cloned from the template's outbox for its
#       share of the bracelets (serial, key and participant renamed, as in step 2), each delivered
#       by its own `bracelet sync --postgres` process, PARALLEL at a time. Each gateway database is
#       made just before its sync and removed after it, so the disk holds only PARALLEL + 1 of them.
#
# Uses .build/release/bracelet when it exists (BRACELET overrides). Run it under `nice -n 10` on a
# shared machine; the load average is printed with the figures. KEEP=1 leaves the work directory
# and the cluster running (their paths are printed) for EXPLAIN and experiments.
set -euo pipefail
cd "$(dirname "$0")/.."

BRACELETS=${1:-1000}
DAYS=${2:-30}
SYNCED=${3:-100}
if [ -z "${BRACELET:-}" ]; then
  BRACELET=$PWD/.build/release/bracelet
  [ -x "$BRACELET" ] || BRACELET=$PWD/.build/debug/bracelet
fi
[ -x "$BRACELET" ] || { echo "fleet-bench: no bracelet binary; run swift build -c release first" >&2; exit 1; }

work=$(mktemp -d /tmp/bracelet-fleet-bench.XXXXXX)
cluster=""
sim=""
cleanup() {
  [ -n "$sim" ] && kill "$sim" 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then echo "fleet-bench: kept $work and the cluster in $cluster" >&2; return; fi
  [ -n "$cluster" ] && tools/pg-cluster.sh stop "$cluster" >/dev/null 2>&1 || true
  rm -rf "$work"
}
# CPU seconds (user + system) used so far by every process of the cluster, ended backends included.
server_cpu() { fleet_server_cpu "$cluster"; }
trap cleanup EXIT
source tools/fleet-lib.sh
ms() { echo $(( $(date +%s%N) / 1000000 )); }

out=$(tools/pg-cluster.sh start)
cluster=$(cut -f1 <<<"$out")
export BRACELET_POSTGRES_URL=$(cut -f2 <<<"$out")
psql_() { tools/pg-cluster.sh psql "$cluster" -X -A -t -q "$@"; }
# Sets `delivered` to the summary rows the server holds and ends the run unless that is $rows: every
# summary queued on the gateways (named by $1) must arrive exactly once.
check_server_rows() {
  delivered=$(psql_ -c "SELECT (SELECT count(*) FROM fleet_daily_summaries) + (SELECT count(*) FROM fleet_sleep_sessions)")
  [ "$delivered" -eq "$rows" ] || { echo "fleet-bench: the server holds $delivered rows, $1 had $rows summaries" >&2; exit 1; }
}

# 1. A real gateway database of one bracelet (or a copy of TEMPLATE, a gateway database an earlier
#    run of step 1 made with the same DAYS and serial FLB00001: the simulated fetch takes minutes).
if [ -n "${TEMPLATE:-}" ]; then
  cp "$TEMPLATE" "$work/gw.db"
  echo "template: copied from $TEMPLATE" >&2
else
  "$BRACELET" simulate --serve "unix:$work/b.sock" --days "$DAYS" --seed 4242 --serial FLB00001 --quiet 2>/dev/null &
  sim=$!
  for _ in $(seq 1 100); do [ -S "$work/b.sock" ] && break; sleep 0.1; done
  t0=$(ms)
  "$BRACELET" listen --via "unix:$work/b.sock" --db "$work/gw.db" --tz UTC --age 40 --exit-after-sync --format jsonl >/dev/null 2>&1
  echo "template: $DAYS days of one bracelet fetched and summarised in $(( $(ms) - t0 )) ms" >&2
  kill "$sim"; sim=""
fi

# 2. The outbox of SYNCED bracelets, delivered by one sync process.
# The outbox of bracelets FIRST..LAST added to database DB as copies of FLB00001's entries.
clone() { # DB FIRST LAST
  sqlite3 "$1" "
  PRAGMA synchronous = OFF;
  WITH RECURSIVE n(x) AS (SELECT $2 WHERE $3 >= $2 UNION ALL SELECT x + 1 FROM n WHERE x < $3)
  INSERT INTO outbox (key, kind, device, local_date, version, content_hash, payload, state, attempts, next_attempt_at, created_at, user_id,
                      score_input)
  SELECT replace(o.key, 'FLB00001', printf('FLB%05d', n.x)), o.kind, printf('FLB%05d', n.x), o.local_date, o.version, o.content_hash,
         replace(o.payload, 'FLB00001', printf('FLB%05d', n.x)), 'pending', 0, o.next_attempt_at, o.created_at,
         printf('P-%05d', n.x), o.score_input
  FROM outbox o, n WHERE o.device = 'FLB00001';" >/dev/null
}
# The sqlite3 shell writes pages without bracelet's page checksums, which bracelet refuses as
# damage; every file edited here is sealed again once the edits are in the file (the shell
# checkpoints and removes the WAL when it closes).
seal() { sqlite3 "$1" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null; python3 tools/pagechecksum.py "$1"; }
# Opened once by this build first, so the template is at this build's schema (sync would migrate
# each copy otherwise); entries it wrote before have no score input (the sink then makes it).
"$BRACELET" sync --status --db "$work/gw.db" >/dev/null
sqlite3 "$work/gw.db" "UPDATE outbox SET user_id = 'P-00001', state = 'pending'"
with_input=$(sqlite3 -readonly "$work/gw.db" "SELECT count(score_input) || ' of ' || count(*) FROM outbox")
echo "template: $with_input outbox entries carry the score input the gateway made" >&2
# The gateway template of step 2b: this database before the clones.
[ "${GATEWAYS:-0}" -gt 0 ] && cp "$work/gw.db" "$work/gw-template.db"
clone "$work/gw.db" 2 "$SYNCED"
seal "$work/gw.db"
# Entries count every version; the server ends with the newest of each (rows).
read -r entries summaries mbytes rows < <(sqlite3 -readonly -separator ' ' "$work/gw.db" \
  "SELECT count(*), sum(kind LIKE 'daily:%'), round(sum(length(payload)) / 1e6, 1),
          count(DISTINCT substr(key, 1, length(key) - length('/v' || version))) FROM outbox WHERE state = 'pending'")
load_before=$(cut -d' ' -f1 /proc/loadavg)
cpu_before=$(server_cpu)
t0=$(ms)
# Progress lines stamped as they come: the first says the integrity check is over and delivery starts.
/usr/bin/time -f '%U %S %M' -o "$work/sync.time" "$BRACELET" sync --db "$work/gw.db" 2>&1 >/dev/null \
  | while IFS= read -r line; do echo "$(ms) $line"; done >"$work/sync.log"
sync_ms=$(( $(ms) - t0 ))
cpu_server=$(echo "$(server_cpu) - $cpu_before" | bc)
started=$(grep -m1 ' sync: .* pending entries' "$work/sync.log" | cut -d' ' -f1)
deliver_ms=$(( t0 + sync_ms - started ))
read -r cpu_user cpu_sys max_kb <"$work/sync.time"
check_server_rows "the outbox"
tables=$(psql_ -c "SELECT pg_size_pretty(pg_total_relation_size('fleet_daily_summaries') + pg_total_relation_size('fleet_sleep_sessions'))")
echo "sync: $entries entries ($summaries of them day summaries; $rows rows on the server, $tables with indexes and TOAST;" \
  "$mbytes MB of payload) from one process (load average $load_before before):"
echo "  end to end $sync_ms ms: $(( entries * 1000 / sync_ms )) entries/s, $(( summaries * 1000 / sync_ms )) day summaries/s," \
  "$(echo "scale=1; $mbytes * 1000 / $sync_ms" | bc) MB/s"
echo "  integrity check of the pending payloads $(( started - t0 )) ms; delivery alone $deliver_ms ms:" \
  "$(( entries * 1000 / deliver_ms )) entries/s, $(( summaries * 1000 / deliver_ms )) day summaries/s," \
  "$(echo "scale=1; $mbytes * 1000 / $deliver_ms" | bc) MB/s"
echo "  CPU: sync process ${cpu_user} s user + ${cpu_sys} s system (peak RSS $(( max_kb / 1024 )) MB); PostgreSQL server ${cpu_server} s"

# 2b. The bracelets past SYNCED, delivered by GATEWAYS gateway processes (PARALLEL at a time).
filled_from=$(( SYNCED + 1 ))
if [ "${GATEWAYS:-0}" -gt 0 ] && [ "$BRACELETS" -gt "$SYNCED" ]; then
  parallel=${PARALLEL:-2}
  per=$(( (BRACELETS - SYNCED + GATEWAYS - 1) / GATEWAYS ))
  load_before=$(cut -d' ' -f1 /proc/loadavg)
  cpu_before=$(server_cpu)
  t0=$(ms)
  made_ms=0
  first=$filled_from
  g=0
  while [ "$first" -le "$BRACELETS" ]; do
    g=$(( g + 1 ))
    last=$(( first + per - 1 )); [ "$last" -gt "$BRACELETS" ] && last=$BRACELETS
    db="$work/gateway-$g.db"
    m0=$(ms)
    cp "$work/gw-template.db" "$db"
    # Made without a journal (setup, not the path measured); sync opens it in WAL mode again.
    sqlite3 "$db" "PRAGMA journal_mode = OFF" >/dev/null
    clone "$db" "$first" "$last"
    sqlite3 "$db" "DELETE FROM outbox WHERE device = 'FLB00001'"
    seal "$db"
    made_ms=$(( made_ms + $(ms) - m0 ))
    while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
    ( /usr/bin/time -f '%e %U %S %M' -o "$db.time" "$BRACELET" sync --db "$db" >/dev/null 2>"$db.err" || echo "failed $?" >>"$db.time"
      rm -f "$db" "$db-wal" "$db-shm"
      # A line per gateway as it ends, so a run cut short still says how far it got.
      echo "gateway $g (bracelets $first..$last) delivered $(( $(ms) - t0 )) ms after the first: sync $(head -1 "$db.time")" >&2 ) &
    first=$(( last + 1 ))
  done
  wait
  gateways_ms=$(( $(ms) - t0 ))
  cpu_server=$(echo "$(server_cpu) - $cpu_before" | bc)
  if grep -l failed "$work"/gateway-*.db.time >/dev/null 2>&1; then
    echo "fleet-bench: a gateway's sync failed:" >&2; grep -h . "$work"/gateway-*.db.err | tail -5 >&2; exit 1
  fi
  read -r sync_wall sync_user sync_sys sync_peak < <(cat "$work"/gateway-*.db.time | awk '
    { w += $1; u += $2; s += $3; if ($4 > m) m = $4 } END { printf "%.1f %.1f %.1f %d\n", w, u, s, m / 1024 }')
  rows=$(( rows * BRACELETS / SYNCED ))
  check_server_rows "the gateways"
  devices=$(psql_ -c "SELECT count(*) FROM fleet_devices")
  echo "gateways: bracelets $filled_from..$BRACELETS ($(( BRACELETS - SYNCED )) x $(( entries / SYNCED )) outbox entries) delivered by $g gateway" \
    "databases of $per bracelets, one sync --postgres process each, $parallel at a time (load average $load_before before):"
  echo "  $gateways_ms ms wall, of which $made_ms ms making the gateway databases (clone in SQLite, overlapping the syncs);" \
    "the server now holds $delivered rows of $devices devices, exactly the newest version of every summary of every gateway"
  echo "  CPU: sync processes ${sync_user} s user + ${sync_sys} s system (wall ${sync_wall} s summed, peak RSS ${sync_peak} MB);" \
    "PostgreSQL server ${cpu_server} s"
  filled_from=$(( BRACELETS + 1 ))
fi

# 3. BRACELETS x DAYS days on the server, then score one participant.
measured=$(printf 'FLB%05d' $(( BRACELETS / 2 )))
psql_ -c "
  INSERT INTO fleet_daily_summaries (device, kind, local_date, version, content_hash, user_id, outbox_key, payload, score_input)
  SELECT printf, s.kind, s.local_date, s.version, s.content_hash, 'P-' || substr(printf, 4), replace(s.outbox_key, 'FLB00001', printf),
         CASE WHEN printf = '$measured' OR '${FILL:-stub}' = 'copy' THEN s.payload ELSE '{"filler":true}' END, s.score_input
  FROM fleet_daily_summaries s, (SELECT format('FLB%s', lpad(x::text, 5, '0')) AS printf FROM generate_series($filled_from, $BRACELETS) x) d
  WHERE s.device = 'FLB00001';
  INSERT INTO fleet_sleep_sessions (device, session_start, session_stop, local_date, version, content_hash, user_id, outbox_key, payload,
                                    score_input)
  SELECT printf, s.session_start, s.session_stop, s.local_date, s.version, s.content_hash, 'P-' || substr(printf, 4),
         replace(s.outbox_key, 'FLB00001', printf), s.payload, s.score_input
  FROM fleet_sleep_sessions s, (SELECT format('FLB%s', lpad(x::text, 5, '0')) AS printf FROM generate_series($filled_from, $BRACELETS) x) d
  WHERE s.device = 'FLB00001';
  INSERT INTO fleet_devices (device, user_id, last_sync_at)
  SELECT format('FLB%s', lpad(x::text, 5, '0')), format('P-%s', lpad(x::text, 5, '0')), now() FROM generate_series($filled_from, $BRACELETS) x;
  ANALYZE;"
days=$(psql_ -c "SELECT count(*) FROM fleet_daily_summaries")
stubs=$(psql_ -c "SELECT count(*) FROM fleet_daily_summaries WHERE payload = '{\"filler\":true}'")
[ "$stubs" -gt 0 ] && echo "fill: $stubs of the $days day rows are synthetic copies with a placeholder payload (FILL=stub;" \
  "score reads their score_input, never the payload; FILL=copy copies the real payload, 2.6 GB more to write)"
size=$(psql_ -c "SELECT pg_size_pretty(pg_database_size('bracelet'))")
user=P-${measured#FLB}
window=$(( DAYS < 30 ? DAYS : 30 ))
# The URL carries a password: score refuses it in its arguments (every user reads them in ps).
(umask 077; printf '%s\n' "$BRACELET_POSTGRES_URL" >"$work/fleet.url")
score() { "$BRACELET" score --postgres-file "$work/fleet.url" --user "$user" --age 40 --days "$window" --min-days 1 "$@"; }
score --format json >"$work/score.json" 2>"$work/score.err" || { echo "fleet-bench: score failed:" >&2; cat "$work/score.err" >&2; exit 1; }
# Median wall and CPU time of 11 runs of score (whole process: start, connect, query, decode, score).
runs() {
  local times=() cpus=() t0
  for _ in $(seq 1 11); do
    t0=$(ms)
    /usr/bin/time -f '%U %S' -o "$work/score.time" "$BRACELET" score --postgres-file "$work/fleet.url" --user "$user" --age 40 \
      --days "$window" --min-days 1 >/dev/null 2>&1
    times+=($(( $(ms) - t0 )))
    cpus+=($(awk '{ printf "%d", ($1 + $2) * 1000 }' "$work/score.time"))
  done
  echo "median $(printf '%s\n' "${times[@]}" | sort -n | sed -n 6p) ms wall, $(printf '%s\n' "${cpus[@]}" | sort -n | sed -n 6p) ms CPU" \
    "(11 runs, wall: ${times[*]} ms)"
}
with_input=$(runs)
# The two statements score runs (FleetReader), as they run. EXPLAIN ANALYZE does not fetch the
# TOASTed values it would send: the wall time of score includes that.
arms() { # table, columns, filter
  echo "(SELECT $2 FROM $1 WHERE user_id = '$user' AND $3 UNION ALL SELECT $2 FROM $1 WHERE user_id IS NULL
    AND device IN (SELECT device FROM fleet_devices WHERE user_id = '$user') AND $3) AS rows"
}
explain() { psql_ -c "EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) $1" >>"$work/explain.txt"; }
explain "SELECT DISTINCT ON (local_date) score_input, CASE WHEN score_input IS NULL THEN payload END
  FROM $(arms fleet_daily_summaries 'local_date, delivered_at, score_input, payload' "kind = 'daily:daily' AND local_date BETWEEN '0001-01-01' AND '9999-12-31'")
  ORDER BY local_date, delivered_at DESC"
explain "SELECT score_input, CASE WHEN score_input IS NULL THEN payload END
  FROM $(arms fleet_sleep_sessions 'session_start, score_input, payload' "local_date BETWEEN '0001-01-01' AND '9999-12-31'") ORDER BY session_start"
queries=$(grep -o 'Execution Time: [0-9.]*' "$work/explain.txt" | cut -d' ' -f3 | paste -sd/)
echo "score: one participant ($user) out of $days day summaries ($size database), bracelet score --postgres --days $window:" \
  "$with_input; the day / sleep queries themselves $queries ms (EXPLAIN ANALYZE; load average $(cut -d' ' -f1 /proc/loadavg))"
# The same participant read the way rows delivered before migration 2 are read (payload decoded).
psql_ -c "UPDATE fleet_daily_summaries SET score_input = NULL WHERE user_id = '$user';
  UPDATE fleet_sleep_sessions SET score_input = NULL WHERE user_id = '$user'"
echo "score without the stored score inputs (each day's and session's whole payload decoded): $(runs)"
[ "${VERBOSE:-0}" = 1 ] && cat "$work/explain.txt" >&2
exit 0
