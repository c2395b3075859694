#!/usr/bin/env bash
# Many gateways into one fleet database, with faults: N simulated bracelets, each with its own
# gateway (`listen --via unix:` into its own SQLite file, then `sync --postgres` with the gateway's
# own role, made by `bracelet fleet add-gateway` and given its bracelet by `fleet assign`), random SIGKILLs of
# gateway processes at random moments (each gateway restarts what was killed), and one PostgreSQL
# restart mid-run. At the end the central tables must hold exactly the union of what every
# gateway's SQLite holds (device, kind, date or session start, version, content hash): no row lost,
# none duplicated, every version the newest, nothing pending or dead in any outbox; and for one
# device `summarize --postgres` prints what `summarize --db` prints, `score --postgres` what `score --db` does
# (as a read-only role whose password is in a libpq passfile, not in the URL).
#
#   tools/fleet-chaos.sh [GATEWAYS] [DAYS] [KILLS] [RESTARTS]     (default 20 3 10 1)
#
# Uses .build/debug/bracelet (BRACELET overrides) and a throwaway cluster from tools/pg-cluster.sh.
# Exit status 0 when the tables match; 1 with the difference otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

GATEWAYS=${1:-20}
DAYS=${2:-3}
KILLS=${3:-10}
RESTARTS=${4:-1}
BRACELET=${BRACELET:-$PWD/.build/debug/bracelet}
[ -x "$BRACELET" ] || { echo "fleet-chaos: no $BRACELET; run swift build first" >&2; exit 1; }

work=$(mktemp -d /tmp/bracelet-chaos.XXXXXX)
cluster=""
simulators=()
gateways=()
cleanup() {
  for pid in "${gateways[@]}" "${simulators[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -n "$cluster" ] && tools/pg-cluster.sh stop "$cluster" >/dev/null 2>&1 || true
  [ -n "${FLEET_CHAOS_KEEP:-}" ] && echo "fleet-chaos: kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT

started=$(date +%s)
out=$(tools/pg-cluster.sh start)
cluster=$(cut -f1 <<<"$out")
source tools/fleet-lib.sh
# The owner migrates and makes one role per gateway; each gateway gets its own URL through the
# environment only: nothing prints it, no process's arguments hold it.
export FLEET_OWNER_URL=$(cut -f2 <<<"$out")
server=${FLEET_OWNER_URL#*@}
fleet_owner migrate >/dev/null
for i in $(seq 1 "$GATEWAYS"); do
  fleet_role_url gateway "gw$i" "$server" >"$work/gw$i.url"
  fleet_owner assign "$(printf 'FLT%05d' "$i")" --gateway "gw$i" >/dev/null
done
reader_url=$(fleet_role_url reader fleet_reader "$server")
host_port=${server%%/*}
(umask 077; echo "${host_port%:*}:${host_port#*:}:bracelet:fleet_reader:$(sed 's|^postgresql://[^:]*:\([^@]*\)@.*|\1|' <<<"$reader_url")" >"$work/pgpass")
reader_url="postgresql://fleet_reader@$server?passfile=$work/pgpass"

for i in $(seq 1 "$GATEWAYS"); do
  serial=$(printf 'FLT%05d' "$i")
  "$BRACELET" simulate --serve "unix:$work/b$i.sock" --days "$DAYS" --seed "$((1000 + i))" --serial "$serial" --quiet \
    >"$work/sim$i.log" 2>&1 &
  simulators+=($!)
done
for i in $(seq 1 "$GATEWAYS"); do
  for _ in $(seq 1 100); do [ -S "$work/b$i.sock" ] && break; sleep 0.1; done
done

# One gateway: fetch and store everything the bracelet holds, then deliver the outbox; a step that
# was killed (or failed) runs again. The pid of the running step is in g$i.pid for the chaos driver.
gateway() {
  local i=$1
  local db="$work/gw$i.db"
  while true; do
    "$BRACELET" listen --via "unix:$work/b$i.sock" --db "$db" --tz UTC --age 40 --exit-after-sync --format jsonl \
      >/dev/null 2>>"$work/gw$i.log" &
    echo $! >"$work/g$i.pid"
    echo listen >"$work/g$i.phase"
    wait $! || { echo "listen exited $?" >>"$work/gw$i.log"; continue; }
    BRACELET_POSTGRES_URL=$(cat "$work/gw$i.url") "$BRACELET" sync --db "$db" --quiet --base-delay 0.05 --max-delay 1 2>>"$work/gw$i.log" &
    echo $! >"$work/g$i.pid"
    echo sync >"$work/g$i.phase"
    wait $! || { echo "sync exited $?" >>"$work/gw$i.log"; continue; }
    touch "$work/g$i.done"
    return 0
  done
}
for i in $(seq 1 "$GATEWAYS"); do
  gateway "$i" 2>>"$work/gw$i.log" &
  gateways+=($!)
done

# The faults: KILLS SIGKILLs of random running gateway steps (every other one, when some gateway is
# delivering, of a sync), and RESTARTS server restarts spread among them, 0.5 to 3 s apart.
restart_every=$(( RESTARTS > 0 ? (KILLS / (RESTARTS + 1)) + 1 : KILLS + 1 ))
killed=0
restarted=0
for k in $(seq 1 "$KILLS"); do
  sleep "$((RANDOM % 3)).$((RANDOM % 9 + 1))"
  i=$(( RANDOM % GATEWAYS + 1 ))
  if [ $((k % 2)) -eq 0 ]; then
    syncing=$(grep -l sync "$work"/g*.phase 2>/dev/null | sed 's/.*g\([0-9]*\)\.phase/\1/' | shuf -n 1 || true)
    [ -n "$syncing" ] && i=$syncing
  fi
  if [ ! -e "$work/g$i.done" ] && [ -f "$work/g$i.pid" ]; then
    kill -KILL "$(cat "$work/g$i.pid")" 2>/dev/null && killed=$((killed + 1)) || true
  fi
  if [ "$restarted" -lt "$RESTARTS" ] && [ $((k % restart_every)) -eq 0 ]; then
    tools/pg-cluster.sh restart "$cluster"
    restarted=$((restarted + 1))
  fi
done
while [ "$restarted" -lt "$RESTARTS" ]; do tools/pg-cluster.sh restart "$cluster"; restarted=$((restarted + 1)); done

for pid in "${gateways[@]}"; do wait "$pid"; done
gateways=()

# What the gateways hold (newest version of every summary) against what the server holds.
fleet_gateway_rows $(seq -f "$work/gw%g.db" 1 "$GATEWAYS") >"$work/gateways.txt"
outbox=$(for i in $(seq 1 "$GATEWAYS"); do sqlite3 -readonly "$work/gw$i.db" "SELECT state FROM outbox WHERE state <> 'delivered'"; done | sort | uniq -c)
tools/pg-cluster.sh psql "$cluster" -X -A -t -F '|' -c "$FLEET_SERVER_ROWS" | sort >"$work/server.txt"

# The fleet queries against the gateway's own: yesterday's summaries of gateway 1 byte for byte, and
# its score apart from the line naming the source.
serial=FLT00001
yesterday=$(date -u -d yesterday +%F)
queries=ok
# A query that fails is a finding like a difference: its exit status and message go to the report
# (under `set -e` a bare failing command would end the script before the report, saying nothing).
query() {
  local name=$1; shift
  "$@" >"$work/$name.out" 2>"$work/$name.err" && return 0
  echo "$name exited $?: $(tail -n 2 "$work/$name.err" | tr '\n' ' ')" >>"$work/query-failures"
}
query sum-db "$BRACELET" summarize --db "$work/gw1.db" --tz UTC --age 40 --day "$yesterday"
query sum-pg "$BRACELET" summarize --postgres "$reader_url" --device "$serial" --tz UTC --age 40 --day "$yesterday"
cmp -s "$work/sum-db.out" "$work/sum-pg.out" && [ -s "$work/sum-db.out" ] || queries="summarize --postgres differs from summarize --db"
query score-db "$BRACELET" score --db "$work/gw1.db" --age 40 --min-days 1 --format json
query score-pg "$BRACELET" score --postgres "$reader_url" --device "$serial" --age 40 --min-days 1 --format json
grep -v '"source"' "$work/score-db.out" >"$work/score-db.json" || true
grep -v '"source"' "$work/score-pg.out" >"$work/score-pg.json" || true
cmp -s "$work/score-db.json" "$work/score-pg.json" && [ -s "$work/score-db.json" ] || queries="$queries; score --postgres differs from score --db"
[ -s "$work/query-failures" ] && queries="$queries; $(tr '\n' ';' <"$work/query-failures")"

rows=$(wc -l <"$work/gateways.txt")
elapsed=$(( $(date +%s) - started ))
if [ -n "$outbox" ] || ! cmp -s "$work/gateways.txt" "$work/server.txt" || [ "$rows" -eq 0 ] || [ "$queries" != ok ]; then
  echo "fleet-chaos: FAILED: $GATEWAYS gateways x $DAYS days, $killed kills, $restarted server restarts" >&2
  [ "$queries" != ok ] && echo "$queries" >&2
  # What differs, so a failure can be understood from the log alone.
  for q in sum score; do
    cmp -s "$work/$q-db.out" "$work/$q-pg.out" || { echo "$q --db | --postgres:"; diff "$work/$q-db.out" "$work/$q-pg.out" | head -20; } >&2
  done
  [ -n "$outbox" ] && echo "outbox entries not delivered: $outbox" >&2
  diff "$work/gateways.txt" "$work/server.txt" | head -20 >&2 || true
  for i in $(seq 1 "$GATEWAYS"); do tail -3 "$work/gw$i.log" | sed "s/^/gw$i: /" >&2; done
  exit 1
fi
echo "fleet-chaos: ok: $GATEWAYS gateways x $DAYS days, $killed SIGKILLs, $restarted server restarts, ${elapsed} s;" \
  "the server holds exactly the $rows summaries and sessions of the gateways (newest versions), every outbox delivered;" \
  "summarize and score --postgres equal --db for $serial; one role per gateway, a passfile reader"
