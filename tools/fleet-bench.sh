#!/usr/bin/env bash
# Fleet benchmark: summaries per second from one gateway process into PostgreSQL, and the time of
# `bracelet score` for one participant out of BRACELETS x DAYS days of fleet data.
#
#   tools/fleet-bench.sh [BRACELETS] [DAYS] [SYNCED]      (default 1000 30 100)
#
# 1. One simulated V2 bracelet with DAYS days of history is fetched with `listen --via unix:` into a
#    gateway database (real day summaries and sleep sessions, real outbox entries).
# 2. Its outbox is cloned in SQLite to SYNCED bracelets (serial, key and participant renamed; the
#    summaries, hashes and sizes the same), and ONE `bracelet sync --postgres` process delivers all of it:
#    entries/s, summaries/s and MB/s.
# 3. The server's tables are filled up to BRACELETS x DAYS day summaries (server-side copies of the
#    delivered rows, renamed), then `bracelet score --postgres --user` runs 11 times for one
#    participant; the median wall time (whole process: start, connect, query, decode, score) is
#    reported, and the query's own time from EXPLAIN ANALYZE.
#
# Uses .build/release/bracelet when it exists (BRACELET overrides). Run it under `nice -n 10` on a
# shared machine; the load average is printed with the figures.
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
  [ -n "$cluster" ] && tools/pg-cluster.sh stop "$cluster" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
ms() { echo $(( $(date +%s%N) / 1000000 )); }

out=$(tools/pg-cluster.sh start)
cluster=$(cut -f1 <<<"$out")
export BRACELET_POSTGRES_URL=$(cut -f2 <<<"$out")
psql_() { tools/pg-cluster.sh psql "$cluster" -X -A -t -q "$@"; }

# 1. A real gateway database of one bracelet.
"$BRACELET" simulate --serve "unix:$work/b.sock" --days "$DAYS" --seed 4242 --serial FLB00001 --quiet 2>/dev/null &
sim=$!
for _ in $(seq 1 100); do [ -S "$work/b.sock" ] && break; sleep 0.1; done
t0=$(ms)
"$BRACELET" listen --via "unix:$work/b.sock" --db "$work/gw.db" --tz UTC --age 40 --exit-after-sync --format jsonl >/dev/null 2>&1
echo "template: $DAYS days of one bracelet fetched and summarised in $(( $(ms) - t0 )) ms" >&2
kill "$sim"; sim=""

# 2. The outbox of SYNCED bracelets, delivered by one sync process.
sqlite3 "$work/gw.db" "
  UPDATE outbox SET user_id = 'P-00001';
  WITH RECURSIVE n(x) AS (SELECT 2 UNION ALL SELECT x + 1 FROM n WHERE x < $SYNCED)
  INSERT INTO outbox (key, kind, device, local_date, version, content_hash, payload, state, attempts, next_attempt_at, created_at, user_id)
  SELECT replace(o.key, 'FLB00001', printf('FLB%05d', n.x)), o.kind, printf('FLB%05d', n.x), o.local_date, o.version, o.content_hash,
         replace(o.payload, 'FLB00001', printf('FLB%05d', n.x)), 'pending', 0, o.next_attempt_at, o.created_at,
         printf('P-%05d', n.x)
  FROM outbox o, n WHERE o.device = 'FLB00001';"
# Entries count every version; the server ends with the newest of each (rows).
read -r entries summaries mbytes rows < <(sqlite3 -separator ' ' "$work/gw.db" \
  "SELECT count(*), sum(kind LIKE 'daily:%'), round(sum(length(payload)) / 1e6, 1),
          count(DISTINCT substr(key, 1, length(key) - length('/v' || version))) FROM outbox WHERE state = 'pending'")
load_before=$(cut -d' ' -f1 /proc/loadavg)
t0=$(ms)
"$BRACELET" sync --db "$work/gw.db" --quiet
sync_ms=$(( $(ms) - t0 ))
delivered=$(psql_ -c "SELECT (SELECT count(*) FROM fleet_daily_summaries) + (SELECT count(*) FROM fleet_sleep_sessions)")
[ "$delivered" -eq "$rows" ] || { echo "fleet-bench: the server holds $delivered rows, the outbox had $rows summaries" >&2; exit 1; }
echo "sync: $entries entries ($summaries of them day summaries; $rows rows on the server; $mbytes MB of payload) from one process in $sync_ms ms:" \
  "$(( entries * 1000 / sync_ms )) entries/s, $(( summaries * 1000 / sync_ms )) day summaries/s," \
  "$(echo "scale=1; $mbytes * 1000 / $sync_ms" | bc) MB/s (load average $load_before before)"

# 3. BRACELETS x DAYS days on the server, then score one participant.
psql_ -c "
  INSERT INTO fleet_daily_summaries (device, kind, local_date, version, content_hash, user_id, outbox_key, payload)
  SELECT printf, s.kind, s.local_date, s.version, s.content_hash, 'P-' || substr(printf, 4), replace(s.outbox_key, 'FLB00001', printf),
         replace(s.payload, 'FLB00001', printf)
  FROM fleet_daily_summaries s, (SELECT format('FLB%s', lpad(x::text, 5, '0')) AS printf FROM generate_series($SYNCED + 1, $BRACELETS) x) d
  WHERE s.device = 'FLB00001';
  INSERT INTO fleet_sleep_sessions (device, session_start, session_stop, local_date, version, content_hash, user_id, outbox_key, payload)
  SELECT printf, s.session_start, s.session_stop, s.local_date, s.version, s.content_hash, 'P-' || substr(printf, 4),
         replace(s.outbox_key, 'FLB00001', printf), replace(s.payload, 'FLB00001', printf)
  FROM fleet_sleep_sessions s, (SELECT format('FLB%s', lpad(x::text, 5, '0')) AS printf FROM generate_series($SYNCED + 1, $BRACELETS) x) d
  WHERE s.device = 'FLB00001';
  ANALYZE;"
days=$(psql_ -c "SELECT count(*) FROM fleet_daily_summaries")
size=$(psql_ -c "SELECT pg_size_pretty(pg_database_size('bracelet'))")
user=$(printf 'P-%05d' $(( BRACELETS / 2 )))
times=()
for _ in $(seq 1 11); do
  t0=$(ms)
  "$BRACELET" score --postgres "$BRACELET_POSTGRES_URL" --user "$user" --age 40 --days "$(( DAYS < 30 ? DAYS : 30 ))" --min-days 1 >/dev/null 2>&1
  times+=($(( $(ms) - t0 )))
done
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 6p)
query=$(psql_ -c "EXPLAIN (ANALYZE, FORMAT JSON) SELECT DISTINCT ON (local_date) payload FROM fleet_daily_summaries
  WHERE user_id = '$user' AND kind = 'daily:daily' ORDER BY local_date, delivered_at DESC" | grep -o '"Execution Time": [0-9.]*' | cut -d' ' -f3)
echo "score: one participant ($user) out of $days day summaries ($size database): median $median ms per run of" \
  "bracelet score --postgres (11 runs: ${times[*]} ms); the day query itself $query ms (load average $(cut -d' ' -f1 /proc/loadavg))"
