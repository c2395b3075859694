#!/usr/bin/env bash
# Installs the Debian packages bracelet builds and tests with, when they are missing:
# libbluetooth-dev (BlueZ), libsqlite3-dev, libssl-dev (the webhook client's TLS and HMAC signatures), pkg-config,
# tshark (second opinion on captures, used by one test) and bc (tools/ scripts);
# postgresql (a throwaway server for the fleet tests, tools/pg-cluster.sh) and libpq-dev (the fleet sink's client);
# libcurl4-openssl-dev (the toolchain's FoundationNetworking loads libcurl: the tests' own HTTP clients use
# URLSession; bracelet itself links no libcurl, its webhook client is its own, over OpenSSL);
# openssl (tools/fleet-tls.sh makes its CA and certificates); postgresql-15-auto-failover (pg_auto_failover:
# tools/fleet-failover.sh's monitor, primary and synchronous standby);
# zlib1g-dev (gzip bodies on the wire) and libzstd-dev (summary documents compressed in the store);
# sqlite3 (the stock shell: tests read and write a bracelet database with it, as a person would);
# python3-pip (installs the PyPI package below) and curl (tools/ scripts scrape the gateway's /metrics).
# prometheus for its promtool (tools/check-alert-rules.sh checks and unit-tests the alert rules the
# package ships), without its recommends (the server itself is never started).
# From PyPI: standardwebhooks (pure Python, no dependencies), the Standard Webhooks verifier that
# tools/webhook-receiver.py and the delivery tests check bracelet's signatures with.
# Debian's packages come first: python3-pip is one of them, and PyPI's package needs it.
set -euo pipefail
need=()
for pkg in libbluetooth-dev libsqlite3-dev libssl-dev pkg-config tshark bc postgresql libpq-dev libcurl4-openssl-dev openssl \
    postgresql-15-auto-failover zlib1g-dev libzstd-dev sqlite3 python3-pip curl; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
lean=()
dpkg -s prometheus >/dev/null 2>&1 || lean+=(prometheus)
if [ ${#need[@]} -gt 0 ] || [ ${#lean[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install as root: apt-get install -y ${need[*]} ${lean[*]}" >&2; exit 1; }
    SUDO="sudo"
  fi
  echo "installing ${need[*]} ${lean[*]}" >&2
  $SUDO apt-get update -qq
  [ ${#need[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
  [ ${#lean[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${lean[@]}" >/dev/null
fi
if ! python3 -c 'import standardwebhooks' 2>/dev/null; then
  echo "installing standardwebhooks (PyPI)" >&2
  # Debian's own python3 refuses pip outside a venv (PEP 668) unless told that this is intended.
  python3 -m pip install -q --disable-pip-version-check "standardwebhooks==1.1.0" 2>/dev/null ||
    python3 -m pip install -q --disable-pip-version-check --break-system-packages "standardwebhooks==1.1.0"
fi
