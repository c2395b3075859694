# Shared by the fleet scripts (sourced, not run): per-gateway roles made with the product's own
# commands. The owner's URL is in $FLEET_OWNER_URL; URLs with passwords go through variables and
# files only, never through a process's arguments.

# fleet_role_url KIND NAME REST: creates the login role NAME (KIND gateway or reader) with
# `bracelet fleet add-KIND --json` and prints postgresql://NAME:PASSWORD@REST.
fleet_role_url() {
  local kind=$1 name=$2 rest=$3 json
  json=$(BRACELET_POSTGRES_URL=$FLEET_OWNER_URL "$BRACELET" fleet "add-$kind" "$name" --json) || return 1
  python3 -c 'import json, sys; c = json.load(sys.stdin); print("postgresql://%s:%s@%s" % (c["role"], c["password"], sys.argv[1]))' \
    "$rest" <<<"$json"
}

# fleet_owner SUBCOMMAND ARGS...: a `bracelet fleet` administration command as the owner.
fleet_owner() {
  BRACELET_POSTGRES_URL=$FLEET_OWNER_URL "$BRACELET" fleet "$@"
}

# fleet_gateway_rows DB...: every summary the gateway databases hold, newest versions, as
# `device|kind|date or session start|version|content hash` lines, sorted: what the server must hold.
fleet_gateway_rows() {
  local db
  for db in "$@"; do
    sqlite3 -readonly -separator '|' "$db" "
      SELECT d.serial, 'daily:' || s.kind, s.local_date, s.version, s.content_hash FROM daily_summaries s JOIN devices d ON d.id = s.device_id;
      SELECT d.serial, 'sleep', s.start, s.version, s.content_hash FROM sleep_sessions s JOIN devices d ON d.id = s.device_id;"
  done | sort
}

# The same lines from the fleet tables (run with psql -A -t -F '|', then sorted).
FLEET_SERVER_ROWS="SELECT device, kind, local_date::text, version, content_hash FROM fleet_daily_summaries
  UNION ALL SELECT device, 'sleep', session_start::text, version, content_hash FROM fleet_sleep_sessions"

# fleet_server_cpu DIR: CPU seconds (user + system) used so far by every process of the
# tools/pg-cluster.sh cluster in DIR, ended backends included.
fleet_server_cpu() {
  local master total=0 pid ticks
  master=$(head -1 "$1/data/postmaster.pid")
  for pid in "$master" $(pgrep -P "$master"); do
    # Fields 14-17 of /proc/PID/stat: utime stime cutime cstime (clock ticks).
    ticks=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$pid/stat" 2>/dev/null || echo 0)
    total=$(( total + ticks ))
  done
  echo "scale=2; $total / $(getconf CLK_TCK)" | bc
}

# fleet_bench_server URL: for a benchmark, the fleet database at URL, or when URL is empty a
# throwaway tools/pg-cluster.sh cluster (its folder in $cluster, for the caller's cleanup to stop).
# Sets URL, server_dir (the local cluster's folder, for server_cpu; CLUSTER=DIR names one the caller
# runs) and PSQL, and exports the URL as $BRACELET_POSTGRES_URL for bracelet and as libpq's PG*
# variables for psql: a URL with a password is never an argument.
fleet_bench_server() {
  local out
  URL=$1
  server_dir=${CLUSTER:-}
  if [ -z "$URL" ]; then
    out=$(tools/pg-cluster.sh start)
    cluster=$(cut -f1 <<<"$out")
    URL=$(cut -f2 <<<"$out")
    server_dir=$cluster
  fi
  export BRACELET_POSTGRES_URL=$URL
  eval "$(python3 - <<'PY'
import os, shlex, urllib.parse
u = urllib.parse.urlsplit(os.environ["BRACELET_POSTGRES_URL"])
env = {"PGHOST": u.hostname or "", "PGPORT": str(u.port or ""), "PGUSER": urllib.parse.unquote(u.username or ""),
       "PGPASSWORD": urllib.parse.unquote(u.password or ""), "PGDATABASE": u.path.lstrip("/")}
for k, v in urllib.parse.parse_qsl(u.query):
    if k in ("sslmode", "sslrootcert"): env["PG" + k.upper()] = v
for k, v in env.items():
    if v: print("export %s=%s" % (k, shlex.quote(v)))
PY
)"
  PSQL=$(command -v psql || echo /usr/lib/postgresql/15/bin/psql)
}

# server_cpu: CPU seconds so far of the benchmark's local cluster (fleet_bench_server), else nothing.
server_cpu() { if [ -n "${server_dir:-}" ]; then fleet_server_cpu "$server_dir"; fi; }
