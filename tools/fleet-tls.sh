#!/usr/bin/env bash
# TLS to the fleet database, checked: a CA and server certificates made here with openssl, a
# throwaway cluster serving each in turn, and one gateway (its own role) syncing with
# sslmode=verify-full. The server's certificate for localhost from the fleet's CA is accepted (and
# the server logs the gateway's connection as TLS); a certificate for another name, one from
# another CA, and a URL without the CA file are each refused with an error that says which, the
# outbox left pending and nothing written.
#
#   tools/fleet-tls.sh            (about 15 s; uses .build/debug/bracelet, BRACELET overrides)
#
# Exit status 0 when every case behaves; 1 with the case that did not.
set -euo pipefail
cd "$(dirname "$0")/.."
BRACELET=${BRACELET:-$PWD/.build/debug/bracelet}
[ -x "$BRACELET" ] || { echo "fleet-tls: no $BRACELET; run swift build first" >&2; exit 1; }
command -v openssl >/dev/null || { echo "fleet-tls: openssl is missing: apt-get install -y openssl" >&2; exit 1; }
source tools/fleet-lib.sh

work=$(mktemp -d /tmp/bracelet-tls.XXXXXX)
cluster=""
cleanup() {
  [ -n "$cluster" ] && tools/pg-cluster.sh stop "$cluster" >/dev/null 2>&1 || true
  [ -n "${FLEET_TLS_KEEP:-}" ] && echo "fleet-tls: kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT
started=$(date +%s)
fail() { echo "fleet-tls: FAILED: $*" >&2; exit 1; }

# The certificates: the fleet's CA, the server's for localhost, one for another name from the same
# CA, and one for localhost from another CA. P-256 keys: quick to make.
ca() { openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=$2" \
         -keyout "$work/$1.key" -out "$work/$1.crt" 2>/dev/null; }
cert() {  # name CA dns-name
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$3" \
    -addext "subjectAltName=DNS:$3" -keyout "$work/$1.key" -out "$work/$1.csr" 2>/dev/null
  openssl x509 -req -in "$work/$1.csr" -CA "$work/$2.crt" -CAkey "$work/$2.key" -CAcreateserial -days 2 \
    -copy_extensions copy -out "$work/$1.crt" 2>/dev/null
}
ca fleet-ca "bracelet fleet test CA"
ca other-ca "some other CA"
cert good fleet-ca localhost
cert other-name fleet-ca db.other.example
cert other-ca-cert other-ca localhost

out=$(tools/pg-cluster.sh start)
cluster=$(cut -f1 <<<"$out")
export FLEET_OWNER_URL=$(cut -f2 <<<"$out")
port=$(cat "$cluster/port")
tools/pg-cluster.sh psql "$cluster" -q -c "ALTER SYSTEM SET log_connections = on" >/dev/null
fleet_owner migrate >/dev/null
# The gateway's URL names the host as its certificate does, and the fleet's CA.
tls="sslmode=verify-full&sslrootcert=$work/fleet-ca.crt&connect_timeout=5"
gateway_url=$(fleet_role_url gateway gw_tls "localhost:$port/bracelet?$tls")
"$BRACELET" ingest captures/v2-three-days.btsnoop --db "$work/gw.db" --tz UTC --age 40 >/dev/null 2>&1
serial=$(sqlite3 -readonly "$work/gw.db" "SELECT serial FROM devices")
fleet_owner assign "$serial" --gateway gw_tls >/dev/null
entries=$(sqlite3 -readonly "$work/gw.db" "SELECT count(*) FROM outbox WHERE state = 'pending'")

rows() { tools/pg-cluster.sh psql "$cluster" -A -t -c "SELECT (SELECT count(*) FROM fleet_daily_summaries) + (SELECT count(*) FROM fleet_sleep_sessions)"; }

# refused CASE CERT URL EXPECTED: the server serves CERT; sync with URL must stop (exit 78, the
# sink paused) saying EXPECTED, with every entry still pending and nothing on the server.
refused() {
  local name=$1 cert=$2 url=$3 expected=$4 status=0
  tools/pg-cluster.sh tls "$cluster" "$work/$cert.crt" "$work/$cert.key"
  BRACELET_POSTGRES_URL=$url "$BRACELET" sync --db "$work/gw.db" --quiet >"$work/$name.out" 2>"$work/$name.err" || status=$?
  [ "$status" -eq 78 ] || fail "$name: sync exited $status, not 78 (paused): $(tail -n 3 "$work/$name.err")"
  grep -q "$expected" "$work/$name.err" || fail "$name: the error does not say \"$expected\": $(tail -n 3 "$work/$name.err")"
  grep -q "$(cut -d: -f3 <<<"${url%%@*}")" "$work/$name.err" && fail "$name: the error shows the password"
  [ "$(sqlite3 -readonly "$work/gw.db" "SELECT count(*) FROM outbox WHERE state = 'pending'")" -eq "$entries" ] \
    || fail "$name: entries left the pending state"
  [ "$(rows)" -eq 0 ] || fail "$name: rows reached the server"
  echo "fleet-tls: $name refused: $(grep -o 'TLS to the fleet database[^(]*' "$work/$name.err" | head -1 | sed 's/postgresql:[^ ]*/URL/')"
}
refused other-name other-name "$gateway_url" "issued for another name"
refused other-ca other-ca-cert "$gateway_url" "not signed by the CA"
refused no-ca-file good "${gateway_url/$work\/fleet-ca.crt/$work/missing.crt}" "needs the fleet's CA certificate"

# The real certificate: sync delivers everything, over TLS.
tools/pg-cluster.sh tls "$cluster" "$work/good.crt" "$work/good.key"
BRACELET_POSTGRES_URL=$gateway_url "$BRACELET" sync --db "$work/gw.db" --quiet 2>"$work/good.err" \
  || fail "verify-full with the fleet's CA: sync exited $?: $(tail -n 3 "$work/good.err")"
delivered=$(sqlite3 -readonly "$work/gw.db" "SELECT count(*) FROM outbox WHERE state = 'delivered'")
[ "$delivered" -eq "$entries" ] || fail "verify-full: $delivered of $entries entries delivered"
[ "$(rows)" -eq "$entries" ] || fail "verify-full: the server holds $(rows) rows, not $entries"
grep -q "connection authorized: user=gw_tls database=bracelet application_name=bracelet SSL enabled" "$cluster/server.log" \
  || fail "the server did not log the gateway's connection as TLS"
echo "fleet-tls: ok: verify-full with the fleet's CA delivered $entries of $entries entries over TLS" \
  "($(grep -o 'user=gw_tls database=bracelet application_name=bracelet SSL enabled (protocol=[^,]*' "$cluster/server.log" | tail -1 | sed 's/.*(//'));" \
  "another name, another CA and no CA file refused; $(( $(date +%s) - started )) s"
