#!/usr/bin/env bash
# tools/check-alert-rules.sh [BRACELET]: checks the Prometheus alert rules the package ships
# (prometheus/bracelet.rules.yml, installed as /usr/share/bracelet/prometheus/bracelet.rules.yml):
# - promtool check rules: they load;
# - promtool test rules prometheus/bracelet.rules.test.yml: each rule fires on the series that should
#   raise it, with its labels and summary, and stays quiet otherwise;
# - each rule's test can fail: with that rule's expression replaced by one that never fires, the
#   tests fail;
# - with BRACELET (a built bracelet), every bracelet_* metric the rules read is one a gateway
#   serves: a gateway syncing a simulated bracelet is scraped on loopback.
# Needs promtool (Debian's prometheus package; tools/install-system-packages.sh). About 1 s, plus
# about 10-20 s with BRACELET.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "check-alert-rules: FAIL: $*" >&2; exit 1; }
command -v promtool >/dev/null || fail "no promtool: install Debian's prometheus package (tools/install-system-packages.sh)"
rules=prometheus/bracelet.rules.yml tests=prometheus/bracelet.rules.test.yml
promtool check rules "$rules" >/dev/null || { promtool check rules "$rules"; fail "promtool check rules $rules"; }
promtool test rules "$tests" >/dev/null || { promtool test rules "$tests"; fail "promtool test rules $tests"; }
count=$(grep -c '^ *- alert: ' "$rules")
echo "check-alert-rules: $count rules load and pass their tests"

work=$(mktemp -d /tmp/bracelet-alert-rules.XXXXXX)
cleanup() { jobs -p | xargs -r kill 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
# Each rule broken in turn: its expression never fires, so its firing test must fail.
for alert in $(sed -n 's/^ *- alert: //p' "$rules"); do
  python3 - "$rules" "$alert" "$work/bracelet.rules.yml" <<'PY'
import re, sys
text, alert, out = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
start = text.index(f"- alert: {alert}\n")
expr = re.compile(r"(\n\s+expr: )(>-\n(?:\s{10,}.*\n)+|.*\n)").search(text, start)
open(out, "w").write(text[:expr.start()] + expr.group(1) + "vector(1) == 0\n" + text[expr.end():])
PY
  cp "$tests" "$work/"
  promtool check rules "$work/bracelet.rules.yml" >/dev/null || fail "the copy of $rules with $alert broken does not load"
  if promtool test rules "$work/$(basename "$tests")" >/dev/null 2>&1; then
    fail "the tests pass with $alert never firing: $tests has no test that $alert fires"
  fi
done
echo "check-alert-rules: each of the $count rules' tests fails when its rule never fires"

[ $# -ge 1 ] || exit 0
bin=$(realpath "$1")
[ -x "$bin" ] || fail "no bracelet at $1"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cd "$work"
"$bin" simulate --model v2 --days 2 --serve unix:sim.sock --quiet &
for _ in $(seq 100); do [ -S sim.sock ] && break; sleep 0.1; done
[ -S sim.sock ] || fail "the simulated bracelet did not start within 10 s"
"$bin" gateway enroll --db g.db --via unix:sim.sock --user P-0001 --tz UTC --age 40 >/dev/null
"$bin" gateway run --db g.db --jsonl out.jsonl --metrics "127.0.0.1:$port" --quiet &
for _ in $(seq 120); do
  # A sink's health series appear with its first attempt, which follows the first sync.
  curl -sf "http://127.0.0.1:$port/metrics" >metrics.txt 2>/dev/null && grep -q '^bracelet_last_sync_timestamp_seconds{' metrics.txt \
    && grep -q '^bracelet_sink_failing{' metrics.txt && break
  sleep 0.5
done
grep -q '^bracelet_last_sync_timestamp_seconds{' metrics.txt || fail "the gateway did not sync the simulated bracelet within 60 s"
grep -q '^bracelet_sink_failing{' metrics.txt || fail "the gateway synced but tried no delivery to its JSON Lines sink within 60 s"
served=$(grep -o '^bracelet_[a-z_]*' metrics.txt | sort -u)
used=$(grep -o 'bracelet_[a-z_]*' "$OLDPWD/$rules" | sort -u)
missing=$(comm -23 <(echo "$used") <(echo "$served"))
[ -z "$missing" ] || fail "the rules read metrics a gateway does not serve: $(echo $missing)"
echo "check-alert-rules: the $(echo "$used" | wc -l) bracelet_* metrics the rules read are served by a gateway ($bin)"
