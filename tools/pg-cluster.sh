#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for tests, the fleet chaos run and the benchmark.
#
#   tools/pg-cluster.sh start [DIR]   initdb in DIR (default: a new temp dir), start the server on a
#                                     Unix socket in DIR and a free TCP port on 127.0.0.1, create role
#                                     and database `bracelet` (the fleet owner: CREATEROLE, for
#                                     `bracelet fleet add-gateway`) with a random password; prints
#                                     `DIR<TAB>URL` (URL = postgresql://bracelet:PASSWORD@127.0.0.1:PORT/bracelet)
#   tools/pg-cluster.sh stop DIR      stop the server (fast) and remove DIR
#   tools/pg-cluster.sh kill DIR      stop the server immediately (no shutdown checkpoint), keep DIR
#   tools/pg-cluster.sh restart DIR   stop (fast) and start again on the same port
#   tools/pg-cluster.sh up DIR        start a stopped cluster again
#   tools/pg-cluster.sh psql DIR ...  psql over the Unix socket as the superuser
#   tools/pg-cluster.sh tls DIR CERT KEY   serve TLS with this certificate (chain) and key (copied into
#                                     the data directory, mode 0600) and reload; again to swap them
#
# TCP connections authenticate with SCRAM-SHA-256 (PostgreSQL 15's default password_encryption),
# the socket with `trust` for the superuser's administration only (the socket lives in DIR, mode 0700).
# PostgreSQL refuses to run as root: as root the server runs as the `postgres` system user (Debian's
# package creates it) through runuser; as anyone else, as that user. PG_BIN overrides where the
# binaries are (default /usr/lib/postgresql/15/bin). The URL holds the password: it goes to stdout
# and to DIR/url (mode 0600) only, never to stderr.
set -euo pipefail

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
RUN_AS=${PG_RUN_AS:-postgres}

die() { echo "pg-cluster: $*" >&2; exit 1; }

need_binaries() {
  [ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/pg_ctl" ] || \
    die "no PostgreSQL binaries in $PG_BIN: install them with tools/install-system-packages.sh (apt-get install -y postgresql libpq-dev) or set PG_BIN."
}

# Runs a command as the cluster's owner.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    id "$RUN_AS" >/dev/null 2>&1 || die "user $RUN_AS does not exist: install postgresql (it creates it) or set PG_RUN_AS to an unprivileged user."
    runuser -u "$RUN_AS" -- "$@"
  else
    "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()' 2>/dev/null \
    || echo $(( 20000 + RANDOM % 40000 ))
}

server_start() {
  local dir=$1 port
  port=$(cat "$dir/port")
  as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1" start >/dev/null \
    || die "the server in $dir did not start; see $dir/server.log"
}

cmd_start() {
  need_binaries
  local dir=${1:-}
  if [ -z "$dir" ]; then dir=$(mktemp -d /tmp/bracelet-pg.XXXXXX); fi
  mkdir -p "$dir"
  [ -e "$dir/data" ] && die "$dir already holds a cluster: use 'up $dir' or 'stop $dir' first."
  chmod 0700 "$dir"
  [ "$(id -u)" -eq 0 ] && chown "$RUN_AS" "$dir"
  local password
  password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
  # initdb reads the superuser's password from a file; the app role gets it through SQL below.
  as_owner "$PG_BIN/initdb" -D "$dir/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
    -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || die "initdb failed; see $dir/initdb.log"
  {
    echo "fsync = on"
    echo "max_connections = 200"
    echo "shared_buffers = 128MB"
    # Day summaries are hundreds of KB of JSON: lz4 compresses them several times faster than pglz.
    echo "default_toast_compression = lz4"
  } | as_owner tee -a "$dir/data/postgresql.conf" >/dev/null
  free_port | as_owner tee "$dir/port" >/dev/null
  server_start "$dir"
  local port
  port=$(cat "$dir/port")
  as_owner "$PG_BIN/psql" -X -q -h "$dir" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 >/dev/null <<SQL || die "creating role and database failed"
SET password_encryption = 'scram-sha-256';
CREATE ROLE bracelet LOGIN CREATEROLE PASSWORD '$password';
CREATE DATABASE bracelet OWNER bracelet;
SQL
  local url="postgresql://bracelet:$password@127.0.0.1:$port/bracelet"
  (umask 077; echo "$url" > "$dir/url.tmp")
  mv "$dir/url.tmp" "$dir/url"
  printf '%s\t%s\n' "$dir" "$url"
}

cmd_stop() {
  local dir=${1:?stop needs the cluster directory}
  [ -d "$dir/data" ] || die "$dir holds no cluster"
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}

cmd_kill() {
  local dir=${1:?kill needs the cluster directory}
  as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null
}

cmd_restart() {
  local dir=${1:?restart needs the cluster directory}
  as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
  server_start "$dir"
}

cmd_up() {
  local dir=${1:?up needs the cluster directory}
  server_start "$dir"
}

cmd_psql() {
  local dir=${1:?psql needs the cluster directory}
  shift
  as_owner "$PG_BIN/psql" -X -h "$dir" -p "$(cat "$dir/port")" -U postgres -d bracelet "$@"
}

cmd_tls() {
  local dir=${1:?tls needs the cluster directory} cert=${2:?tls needs a certificate file} key=${3:?tls needs a key file}
  [ -r "$cert" ] && [ -r "$key" ] || die "cannot read $cert or $key"
  # The server reads them as its owner and refuses a key others can read.
  as_owner tee "$dir/data/server.crt" <"$cert" >/dev/null
  as_owner tee "$dir/data/server.key" <"$key" >/dev/null
  as_owner chmod 0600 "$dir/data/server.crt" "$dir/data/server.key"
  as_owner "$PG_BIN/psql" -X -q -h "$dir" -p "$(cat "$dir/port")" -U postgres -d postgres -v ON_ERROR_STOP=1 >/dev/null <<'SQL' \
    || die "turning TLS on failed; see $dir/server.log"
ALTER SYSTEM SET ssl = on;
ALTER SYSTEM SET ssl_cert_file = 'server.crt';
ALTER SYSTEM SET ssl_key_file = 'server.key';
SELECT pg_reload_conf();
SQL
  # The reload is asynchronous: wait until the server reports TLS on.
  for _ in $(seq 1 50); do
    [ "$(as_owner "$PG_BIN/psql" -X -A -t -h "$dir" -p "$(cat "$dir/port")" -U postgres -d postgres -c 'SHOW ssl')" = on ] && return 0
    sleep 0.1
  done
  die "the server did not turn TLS on; see $dir/server.log"
}

case "${1:-}" in
  start) shift; cmd_start "$@" ;;
  stop) shift; cmd_stop "$@" ;;
  kill) shift; cmd_kill "$@" ;;
  restart) shift; cmd_restart "$@" ;;
  up) shift; cmd_up "$@" ;;
  psql) shift; cmd_psql "$@" ;;
  tls) shift; cmd_tls "$@" ;;
  *) die "usage: tools/pg-cluster.sh start [DIR] | stop DIR | kill DIR | restart DIR | up DIR | psql DIR [psql args] | tls DIR CERT KEY" ;;
esac
