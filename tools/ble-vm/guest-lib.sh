# Helpers shared by the ble-vm guest scripts (suite-guest.sh, pairing.sh, link-security.sh), sourced after they set:
#   B            the bracelet binary            W        the work folder (logs go there)
#   LABEL        prefix of every result line (empty: none), e.g. "pairing"
#   SIM_HISTORY  the simulated history, e.g. (--days 3 --seed 7): an array
#   PEER         the simulated device's address (strap_listen)
# and `failures=0`. One copy, so every guest script reports and starts its simulator the same way.

# ok/fail/step: one result line each; `fail` counts into $failures (the exit status of the scripts).
ok() { echo "ok   ${LABEL:+$LABEL: }$*"; }
fail() { echo "FAIL ${LABEL:+$LABEL: }$*"; failures=$((failures + 1)); }
step() { echo "---- ${LABEL:+$LABEL: }$* ($(date -u +%T))"; }

# start_sim LOG [options]: starts a simulated v2 bracelet holding SIM_HISTORY (options after the log
# name) and waits until it serves; its pid goes to $SIM. Fails (and shows the log) when it does not.
# --verbose: the cases read its command log (erased files, dropped links, refused requests).
SIM=
start_sim() {
  local log=$1; shift
  "$B" simulate --model v2 --verbose "${SIM_HISTORY[@]}" "$@" > "$W/$log" 2>&1 &
  SIM=$!
  for _ in $(seq 1800); do
    grep -q 'advertising on\|serving on' "$W/$log" && return 0
    kill -0 $SIM 2>/dev/null || break
    sleep 0.1
  done
  fail "simulator $* did not come up:"; cat "$W/$log"; return 1
}
# stop_sim: stops the simulator start_sim started, if any.
stop_sim() { [ -n "$SIM" ] && kill "$SIM" 2>/dev/null && wait "$SIM" 2>/dev/null; SIM=; }

# same_summary DAY A B HOW: `summarize --db` of DAY from $W/A.db and from $W/B.db (written to
# $W/summary-A.json and $W/summary-B.json) must be byte-identical: the same history, fetched two ways.
same_summary() {
  local day=$1 a=$2 b=$3 how=$4
  "$B" summarize --db "$W/$a.db" --day "$day" --tz UTC --age 40 --format json > "$W/summary-$a.json" 2>&1
  "$B" summarize --db "$W/$b.db" --day "$day" --tz UTC --age 40 --format json > "$W/summary-$b.json" 2>&1
  if [ -s "$W/summary-$a.json" ] && cmp -s "$W/summary-$a.json" "$W/summary-$b.json"; then
    ok "summary of $day identical $how ($(wc -c < "$W/summary-$a.json") bytes)"
  else
    fail "summaries differ:"; diff "$W/summary-$a.json" "$W/summary-$b.json" | head -20
  fi
}

# strap_listen NAME [listen options]: `listen` from hci0 to the strap at $PEER until it printed 3
# samples with RR intervals (or ended, or 120 s passed), then Ctrl-C; its output in $W/NAME.jsonl
# and $W/NAME.err. Sets rc (its exit status), samples (lines with RR), and first: the seconds from
# just before listen started to the stamp of its first sample line (empty: none).
strap_listen() {
  local name=$1; shift
  local t0 stamp
  t0=$(date +%s.%N)
  "$B" listen --adapter hci0 --device $PEER "$@" > "$W/$name.jsonl" 2> "$W/$name.err" &
  local L=$!
  for _ in $(seq 1200); do
    [ "$(grep -c '"rr_ms":\[[0-9]' "$W/$name.jsonl")" -ge 3 ] && break
    kill -0 $L 2>/dev/null || break
    sleep 0.1
  done
  kill -INT $L 2>/dev/null; wait $L; rc=$?
  samples=$(grep -c '^{"kind":"hr","t":"[0-9T:.-]*Z","bpm":[0-9]*,"rr_ms":\[[0-9]' "$W/$name.jsonl")
  stamp=$(head -1 "$W/$name.jsonl" | grep -o '"t":"[^"]*"' | cut -d'"' -f4)
  first=
  [ -n "$stamp" ] && first=$(printf '%.1f' "$(echo "$(date -d "$stamp" +%s.%N) - $t0" | bc)")
  sed 's/^/  | /' "$W/$name.err" | grep -v 'heart rate' | tail -6
}
# within SECONDS: the first sample came within SECONDS.
within() { [ -n "$first" ] && awk "BEGIN{exit !($first <= $1)}"; }

# links CONTROLLER: the LE links the controller's kernel holds (btmgmt con), one address per line.
links() { btmgmt --index "$1" con 2>/dev/null | grep -oE '([0-9A-F]{2}:){5}[0-9A-F]{2}'; }
# no_links: waits (at most 5 s) until neither hci0 nor hci1 holds a link. listen leaves its last link
# to the kernel, which ends it about 2 s after the process: a listen started meanwhile gets that link,
# secured as the last one left it (so a "bonded reconnect" would reconnect nothing), and btvirt has
# been seen to stop connecting the two controllers when a link was still going down as the next
# simulator started.
no_links() {
  for _ in $(seq 50); do [ -z "$(links 0)$(links 1)" ] && return 0; sleep 0.1; done
  echo "  (a link is still up after 5 s: hci0 $(links 0 | tr '\n' ' ')hci1 $(links 1 | tr '\n' ' '))"
}
