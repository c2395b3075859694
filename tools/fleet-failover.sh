#!/usr/bin/env bash
# The fleet database survives losing its server: a primary with a synchronous standby and automatic
# failover by pg_auto_failover (Debian's postgresql-15-auto-failover: a monitor and two nodes on
# loopback ports), N gateways each with its own role syncing through a multi-host URL with
# target_session_attrs=read-write, and the primary node (its postgres and its pg_autoctl keeper)
# SIGKILLed while the gateways deliver. The monitor promotes the standby; every gateway goes on
# delivering there. At the end the new primary must hold exactly the newest version of every
# summary of every gateway, once, with nothing pending or dead in any outbox.
#
#   tools/fleet-failover.sh [GATEWAYS] [DAYS] [STAGGER_S]     (default 6 2 2; about 60-90 s)
#
# Each gateway fetches its bracelet and then runs `sync --follow`. The first half fetch STAGGER_S s
# apart from the start; the kill comes once the first gateway's rows are on the primary; the second
# half fetch STAGGER_S s apart from the kill, so deliveries arrive before, during and after the
# failover (at least one gateway must have retried through the outage). Final line:
#   failover: gateways=N rows_expected=N rows_found=N duplicates=N resumed_after_s=S
# resumed_after_s is from the SIGKILL to the first row a gateway committed on the new primary.
# PostgreSQL refuses to run as root: as root the nodes run as the `postgres` system user.
# Uses .build/debug/bracelet (BRACELET overrides); FLEET_FAILOVER_KEEP=1 keeps the work directory.
# Exit status 0 when every check holds.
set -euo pipefail
cd "$(dirname "$0")/.."

GATEWAYS=${1:-6}
DAYS=${2:-2}
STAGGER=${3:-2}
BRACELET=${BRACELET:-$PWD/.build/debug/bracelet}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
RUN_AS=${PG_RUN_AS:-postgres}
[ -x "$BRACELET" ] || { echo "fleet-failover: no $BRACELET; run swift build first" >&2; exit 1; }
command -v pg_autoctl >/dev/null || { echo "fleet-failover: pg_autoctl is missing: apt-get install -y postgresql-15-auto-failover" >&2; exit 1; }
source tools/fleet-lib.sh

work=$(mktemp -d /tmp/bracelet-failover.XXXXXX)
chmod 0755 "$work"
mkdir -m 0700 "$work/ha"
[ "$(id -u)" -eq 0 ] && chown "$RUN_AS" "$work/ha"
pids=()
groups=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for group in "${groups[@]}"; do kill -KILL -- "-$group" 2>/dev/null || true; done
  # PostgreSQL's children lead their own process groups: whatever still runs in a node's data
  # directory is one of ours and goes too.
  for proc in /proc/[0-9]*; do
    case "$(readlink "$proc/cwd" 2>/dev/null)" in "$work/ha/"*) kill -KILL "${proc#/proc/}" 2>/dev/null || true ;; esac
  done
  wait 2>/dev/null || true
  [ -n "${FLEET_FAILOVER_KEEP:-}" ] && echo "fleet-failover: kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "fleet-failover: FAILED: $*" >&2; for f in "$work"/gw*.log; do tail -n 2 "$f" | sed "s|^|$(basename "$f"): |" >&2; done; exit 1; }
started=$(date +%s)

# pg_autoctl keeps its configuration and state under the XDG directories: here, not in a home.
as_pg() {
  local env=(env "XDG_CONFIG_HOME=$work/ha/config" "XDG_DATA_HOME=$work/ha/data" "XDG_RUNTIME_DIR=$work/ha/run" "PATH=$PG_BIN:$PATH")
  if [ "$(id -u)" -eq 0 ]; then runuser -u "$RUN_AS" -- "${env[@]}" "$@"; else "${env[@]}" "$@"; fi
}
# A pg_autoctl service in its own session: SIGKILL of its process group takes the keeper and its
# postgres (postmaster and backends) at once, as losing the machine would.
service() {
  local name=$1
  setsid bash -c "$(declare -f as_pg); work=$work PG_BIN=$PG_BIN RUN_AS=$RUN_AS; as_pg pg_autoctl run --pgdata $work/ha/$name" \
    >"$work/$name.log" 2>&1 &
  groups+=($!)
  echo $! >"$work/$name.pgid"
  disown $!  # its SIGKILL is the test, not news for the shell
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
monitor_sql() {  # one -c per statement: ALTER SYSTEM may not run in a transaction block
  local args=()
  for statement in "$@"; do args+=(-c "$statement"); done
  as_pg "$PG_BIN/psql" -X -A -t -h 127.0.0.1 -p "$p0" -d pg_auto_failover "${args[@]}"
}
# Waits up to $2 s until the monitor reports every node in the state it was assigned and $1 matches.
wait_states() {
  local want=$1 limit=$2 t=0 states
  while [ "$t" -lt $((limit * 5)) ]; do
    states=$(monitor_sql "SELECT string_agg(nodename || '=' || reportedstate || '/' || goalstate, ' ' ORDER BY nodename) FROM pgautofailover.node" 2>/dev/null || true)
    grep -Eq "$want" <<<"$states" && return 0
    sleep 0.2; t=$((t + 1))
  done
  fail "the nodes did not reach $want in $limit s: $states"
}

# The monitor, with health checks tight enough for a short run (defaults: 5 s period, 20 s
# unhealthy timeout, 30 s demote timeout; production keeps them).
p0=$(free_port); p1=$(free_port); p2=$(free_port)
as_pg pg_autoctl create monitor --pgdata "$work/ha/monitor" --pgport "$p0" --hostname 127.0.0.1 --auth trust --no-ssl \
  >"$work/monitor-create.log" 2>&1 || fail "pg_autoctl create monitor: $(tail -n 3 "$work/monitor-create.log")"
as_pg pg_autoctl config set --pgdata "$work/ha/monitor" postgresql.listen_addresses 127.0.0.1 >/dev/null
service monitor
for _ in $(seq 1 150); do as_pg "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$p0" && break; sleep 0.2; done
monitor_sql "ALTER SYSTEM SET pgautofailover.health_check_period = 1000" "ALTER SYSTEM SET pgautofailover.health_check_timeout = 1000" \
  "ALTER SYSTEM SET pgautofailover.health_check_max_retries = 1" "ALTER SYSTEM SET pgautofailover.health_check_retry_delay = 500" \
  "ALTER SYSTEM SET pgautofailover.node_considered_unhealthy_timeout = 2000" "ALTER SYSTEM SET pgautofailover.primary_demote_timeout = 3000" \
  "SELECT pg_reload_conf()" >/dev/null

# The nodes: pg_autoctl's own connections are trusted on loopback; the fleet's roles log in with
# SCRAM (the first pg_hba line, copied to the standby by its base backup).
node() {
  local name=$1 port=$2
  as_pg pg_autoctl create postgres --pgdata "$work/ha/$name" --pgport "$port" --listen 127.0.0.1 --hostname 127.0.0.1 \
    --name "$name" --dbname bracelet --monitor "postgres://autoctl_node@127.0.0.1:$p0/pg_auto_failover?sslmode=disable" \
    --auth trust --no-ssl >"$work/$name-create.log" 2>&1 || fail "pg_autoctl create postgres $name: $(tail -n 3 "$work/$name-create.log")"
  service "$name"
}
node node1 "$p1"
wait_states "node1=single/single" 60
# The monitor saw the state at creation; the node's postgres is up once `run` started it again.
for _ in $(seq 1 150); do as_pg "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$p1" && break; sleep 0.2; done
owner_password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
as_pg "$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$p1" -d bracelet -v ON_ERROR_STOP=1 >/dev/null <<SQL
SET password_encryption = 'scram-sha-256';
CREATE ROLE bracelet LOGIN CREATEROLE PASSWORD '$owner_password';
ALTER DATABASE bracelet OWNER TO bracelet;
ALTER SCHEMA public OWNER TO bracelet;
SQL
as_pg sed -i '1i host all bracelet,+bracelet_gateway,+bracelet_reader 127.0.0.1/32 scram-sha-256' "$work/ha/node1/pg_hba.conf"
as_pg "$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$p1" -d bracelet -c "SELECT pg_reload_conf()" >/dev/null
node node2 "$p2"
wait_states "node1=primary/primary node2=secondary/secondary" 90
sync_standby=$(as_pg "$PG_BIN/psql" -X -A -t -h 127.0.0.1 -p "$p1" -d bracelet -c "SELECT sync_state FROM pg_stat_replication")
[ "$sync_standby" = quorum ] || [ "$sync_standby" = sync ] || fail "the standby is not synchronous (sync_state '$sync_standby')"
ready=$(( $(date +%s) - started ))

# The fleet, with the product's commands: schema, one role per gateway, one bracelet per gateway.
hosts="127.0.0.1:$p1,127.0.0.1:$p2/bracelet?target_session_attrs=read-write&connect_timeout=2"
export FLEET_OWNER_URL="postgresql://bracelet:$owner_password@$hosts"
fleet_owner migrate >/dev/null
for i in $(seq 1 "$GATEWAYS"); do
  fleet_role_url gateway "gw$i" "$hosts" >"$work/gw$i.url"
  fleet_owner assign "$(printf 'FOV%05d' "$i")" --gateway "gw$i" >/dev/null
done
owner_psql() { PGPASSWORD=$owner_password "$PG_BIN/psql" -X -A -t -F '|' \
  "host=127.0.0.1,127.0.0.1 port=$p1,$p2 dbname=bracelet user=bracelet target_session_attrs=read-write connect_timeout=2" "$@"; }
rows_on_server() { owner_psql -c "SELECT (SELECT count(*) FROM fleet_daily_summaries) + (SELECT count(*) FROM fleet_sleep_sessions)" 2>/dev/null || echo 0; }

for i in $(seq 1 "$GATEWAYS"); do
  "$BRACELET" simulate --serve "unix:$work/b$i.sock" --days "$DAYS" --seed "$((2000 + i))" --serial "$(printf 'FOV%05d' "$i")" --quiet \
    >"$work/sim$i.log" 2>&1 &
  pids+=($!)
done
# One gateway: at its turn, fetch its bracelet, then deliver for good with its own role.
half=$(( (GATEWAYS + 1) / 2 ))
gateway() {
  local i=$1
  if [ "$i" -le "$half" ]; then
    sleep "$(( (i - 1) * STAGGER ))"
  else
    while [ ! -e "$work/killed" ]; do sleep 0.1; done
    sleep "$(( (i - half - 1) * STAGGER ))"
  fi
  for _ in $(seq 1 100); do [ -S "$work/b$i.sock" ] && break; sleep 0.1; done
  "$BRACELET" listen --via "unix:$work/b$i.sock" --db "$work/gw$i.db" --tz UTC --age 40 --exit-after-sync --format jsonl \
    >/dev/null 2>>"$work/gw$i.log" || { echo "listen exited $?" >>"$work/gw$i.log"; return 1; }
  touch "$work/gw$i.listened"
  BRACELET_POSTGRES_URL=$(cat "$work/gw$i.url") exec "$BRACELET" sync --db "$work/gw$i.db" --follow --poll 0.2 \
    --base-delay 0.1 --max-delay 1 2>>"$work/gw$i.log"
}
for i in $(seq 1 "$GATEWAYS"); do
  gateway "$i" &
  pids+=($!)
done

# The kill: once the first gateway's rows are on the primary, while the others fetch and deliver.
for _ in $(seq 1 300); do [ "$(rows_on_server)" -gt 0 ] && break; sleep 0.2; done
[ "$(rows_on_server)" -gt 0 ] || fail "no gateway delivered within 60 s"
before_kill=$(rows_on_server)
kill_at=$(date +%s.%N)
# The keeper's process group, the postmaster and its children (each leads its own group).
postmaster=$(head -n 1 "$work/ha/node1/postmaster.pid")
kill -KILL -- "-$(cat "$work/node1.pgid")" "$postmaster" $(pgrep -P "$postmaster") 2>/dev/null || true
touch "$work/killed"
wait_states "node2=(wait_primary|primary)/(wait_primary|primary)" 60
promoted_s=$(echo "$(date +%s.%N) - $kill_at" | bc)

# Every gateway done: fetched, and nothing pending in its outbox.
deadline=$(( $(date +%s) + 120 ))
while true; do
  left=0
  for i in $(seq 1 "$GATEWAYS"); do
    if [ ! -e "$work/gw$i.listened" ] || [ "$(sqlite3 -readonly "$work/gw$i.db" "SELECT count(*) FROM outbox WHERE state <> 'delivered'")" -ne 0 ]; then
      left=$((left + 1))
    fi
  done
  [ "$left" -eq 0 ] && break
  [ "$(date +%s)" -lt "$deadline" ] || fail "$left gateways still had entries to deliver 120 s after the failover"
  sleep 0.5
done
for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done

# What the gateways hold (newest version of every summary) against what the new primary holds.
fleet_gateway_rows $(seq -f "$work/gw%g.db" 1 "$GATEWAYS") >"$work/gateways.txt"
owner_psql -c "$FLEET_SERVER_ROWS" | sort >"$work/server.txt"
duplicates=$(owner_psql -c "SELECT (SELECT count(*) - count(DISTINCT (device, kind, local_date)) FROM fleet_daily_summaries)
    + (SELECT count(*) - count(DISTINCT (device, session_start)) FROM fleet_sleep_sessions)
    + (SELECT count(*) - count(DISTINCT outbox_key) FROM (SELECT outbox_key FROM fleet_daily_summaries UNION ALL SELECT outbox_key FROM fleet_sleep_sessions) k)")
resumed=$(owner_psql -c "SELECT round((extract(epoch FROM min(delivered_at)) - $kill_at)::numeric, 1) FROM
    (SELECT delivered_at FROM fleet_daily_summaries UNION ALL SELECT delivered_at FROM fleet_sleep_sessions) d WHERE delivered_at > to_timestamp($kill_at)")
expected=$(wc -l <"$work/gateways.txt")
found=$(wc -l <"$work/server.txt")
dead=$(for i in $(seq 1 "$GATEWAYS"); do sqlite3 -readonly "$work/gw$i.db" "SELECT count(*) FROM outbox WHERE state = 'dead'"; done | paste -sd+ | bc)
status=0
# Gateways that met the outage: a delivery failed as unreachable and was retried.
through=$(grep -l "cannot reach the fleet database" "$work"/gw*.log 2>/dev/null | wc -l)
echo "fleet-failover: ready in ${ready} s (monitor + primary + synchronous standby, sync_state $sync_standby); $before_kill rows on the" \
  "primary when it was SIGKILLed; standby promoted after ${promoted_s%??????} s; $through gateways retried through the outage;" \
  "$(( $(date +%s) - started )) s in all"
[ "$through" -gt 0 ] || { echo "fleet-failover: no gateway was delivering during the outage: the kill came too late" >&2; status=1; }
cmp -s "$work/gateways.txt" "$work/server.txt" || { echo "fleet-failover: the new primary differs from the gateways:" >&2; diff "$work/gateways.txt" "$work/server.txt" | head -20 >&2; status=1; }
[ "$expected" -gt 0 ] && [ "$duplicates" -eq 0 ] && [ "$dead" -eq 0 ] || status=1
[ -n "$resumed" ] && [ "$(echo "$resumed <= 60" | bc)" -eq 1 ] || { echo "fleet-failover: no gateway resumed within 60 s (${resumed:-never})" >&2; status=1; }
echo "failover: gateways=$GATEWAYS rows_expected=$expected rows_found=$found duplicates=$duplicates resumed_after_s=${resumed:-never}"
exit "$status"
