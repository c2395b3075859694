#!/usr/bin/env bash
# Whole-process benchmarks on a generated history: a table, then one row per figure with its target
# and its change against the last accepted figure (tools/bench-baseline.txt; docs/performance.md).
#
# usage: tools/bench.sh [--ci] [--accept] [DAYS] [MODEL]   (default: 30 v2; `tools/bench.sh 365` for a year)
#   --ci      only the steps cheap enough for .ci/run (ingest, summarize-db, replay, listen, decoder;
#             5 runs each), judged on the rows the baseline marks `ci`; status 1 on a regression
#   --accept  after the run, write every row's figure into tools/bench-baseline.txt (on purpose only:
#             a change made things faster, or the machine changed)
#
# Generates the history once per DAYS/MODEL (cached in $BENCH_DIR, default /tmp/bracelet-bench):
# `bracelet simulate --days DAYS --seed 3` served on a Unix socket and recorded by `bracelet listen
# --record`. Then times, each as a whole process (peak RSS by /usr/bin/time; wall and CPU by perf stat's
# duration_time and task-clock when perf is installed, else by /usr/bin/time, which counts in 10 ms
# steps):
#   ingest        the capture into a new database
#   summarize-db  `summarize --db` of every day in it, with the settings of the ingest: prints the
#                 summaries the ingest stored (no raw row is read)
#   summarize-db-raw  the same with other settings (--age 36): every day recomputed from the raw rows
#   summarize     `summarize CAPTURE` (peak RSS is the figure to watch)
#   replay        `replay --format jsonl -o FILE` against `tshark -T fields -e btatt.value > FILE`
#                 on the same capture: both read the whole file and write every record
#   listen        `listen --db` of the whole history over unix: against `simulate` (client CPU)
#   decoder       `bracelet bench --model both` (decoder vs same-run memory-read rate, V1 and V2)
# Each step runs RUNS times (default 3; listen once) and the run with the least wall time is shown.
# Set BRACELET=path to measure a given binary instead of building .build/release/bracelet, and
# STEPS="ingest summarize-db listen" (names as above) to run only those steps. The rows are compared
# by tools/bench-lib.sh; BENCH_ROWS=FILE collects them in FILE (appended) for a later comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
ci=0 accept=0 positional=()
for arg in "$@"; do
  case $arg in
    --ci) ci=1 ;;
    --accept) accept=1 ;;
    -*) echo "unknown option $arg; usage: tools/bench.sh [--ci] [--accept] [DAYS] [MODEL]" >&2; exit 2 ;;
    *) positional+=("$arg") ;;
  esac
done
days=${positional[0]:-30}
model=${positional[1]:-v2}
if [ "$ci" = 1 ]; then
  : "${STEPS:=ingest summarize-db replay listen decoder}" "${RUNS:=5}"
fi
. tools/bench-lib.sh
trap bench_cleanup EXIT
dir=${BENCH_DIR:-/tmp/bracelet-bench}
mkdir -p "$dir"
if [ -z "${BRACELET:-}" ]; then
  swift build -c release --product bracelet >/dev/null
  BRACELET=.build/release/bracelet
fi
B=$(realpath "$BRACELET")
capture="$dir/$model-${days}d.btsnoop"
tz=UTC

# Starts a simulated bracelet holding the history on $dir/sim.sock; its pid goes to $sim.
serve() {
  rm -f "$dir/sim.sock"
  "$B" simulate --model "$model" --days "$days" --seed 3 --serve "unix:$dir/sim.sock" --quiet &
  sim=$!
  for _ in $(seq 1 600); do [ -S "$dir/sim.sock" ] && return 0; sleep 0.1; done
  echo "the simulator did not start" >&2; exit 1
}

if [ ! -s "$capture" ]; then
  serve
  rm -rf "$dir/files"
  "$B" listen --via "unix:$dir/sim.sock" --record "$capture" --save-dir "$dir/files" --exit-after-sync --quiet >/dev/null
  kill "$sim"; wait "$sim" 2>/dev/null || true
fi

# wanted NAME: whether step NAME is to run (all, unless $STEPS names some).
wanted() {
  [ -z "${STEPS:-}" ] || [[ " $STEPS " == *" $1 "* ]]
}

# prepare NAME: what runs before each timed run of step NAME, outside the timing: a new database for
# ingest, no previous output for replay and tshark (truncating last run's 90 MB inside the timed
# process would cost it 20 ms of freeing pages).
prepare() {
  case $1 in
    ingest) rm -f "$dir/bench.db" "$dir/bench.db-wal" "$dir/bench.db-shm" "$dir/bench.db-journal" ;;
    replay) rm -f "$dir/replay.jsonl" ;;
    tshark) rm -f "$dir/tshark.txt" ;;
  esac
}

# measure NAME COMMAND...: runs it $RUNS times (default 3), appends "NAME wall cpu rss" of the run with
# the least wall time (seconds, seconds, KiB) to $dir/times.
measure() {
  local name=$1; shift
  wanted "$name" || return 0
  local counter=()
  if command -v perf >/dev/null; then
    counter=(perf stat -x, -o "$dir/perf.$name" -e task-clock,duration_time)
  fi
  local best=
  for _ in $(seq 1 "${RUNS:-3}"); do
    prepare "$name"
    "${counter[@]}" /usr/bin/time -o "$dir/time.$name" -f "%e %U %S %M" "$@" >/dev/null 2>"$dir/err.$name" || {
      echo "$name failed:" >&2; cat "$dir/err.$name" >&2; exit 1; }
    local wall user sys rss cpu
    read -r wall user sys rss < "$dir/time.$name"
    cpu=$(echo "$user + $sys" | bc -l)
    if [ ${#counter[@]} -gt 0 ]; then
      cpu=$(awk -F, '$3 ~ /^task-clock/ {printf "%.3f", $1 / 1000}' "$dir/perf.$name")
      wall=$(awk -F, '$3 ~ /^duration_time/ {printf "%.3f", $1 / 1e9}' "$dir/perf.$name")
    fi
    if [ -z "$best" ] || [ "$(echo "$wall < ${best%% *}" | bc -l)" = 1 ]; then best="$wall $cpu $rss"; fi
  done
  echo "$name $best" >> "$dir/times"
}

: > "$dir/times"
if wanted ingest || wanted summarize-db || wanted summarize-db-raw; then
  rm -f "$dir/bench.db" "$dir/bench.db-wal" "$dir/bench.db-shm"
fi
if wanted ingest; then
  measure ingest "$B" ingest "$capture" --db "$dir/bench.db" --tz $tz --age 35
elif wanted summarize-db || wanted summarize-db-raw; then
  "$B" ingest "$capture" --db "$dir/bench.db" --tz $tz --age 35 >/dev/null 2>&1
fi
measure summarize-db "$B" summarize --db "$dir/bench.db" --tz $tz --age 35
measure summarize-db-raw "$B" summarize --db "$dir/bench.db" --tz $tz --age 36
measure summarize "$B" summarize "$capture" --tz $tz --age 35
measure replay "$B" replay "$capture" --format jsonl -o "$dir/replay.jsonl" --quiet
if command -v tshark >/dev/null && wanted tshark; then
  measure tshark sh -c "tshark -r '$capture' -T fields -e btatt.value > '$dir/tshark.txt'"
fi
if wanted listen; then
  serve
  rm -f "$dir/listen.db" "$dir/listen.db-wal" "$dir/listen.db-shm"
  RUNS=1 measure listen "$B" listen --via "unix:$dir/sim.sock" --db "$dir/listen.db" --tz $tz --age 35 --exit-after-sync --quiet
  kill "$sim"; wait "$sim" 2>/dev/null || true
fi
decoder=
if wanted decoder; then
  # "v1: ..." then its "ratio : N % ..." line, likewise for v2.
  decoder=$("$B" bench --model both --repetitions 15 | awk '/^v[12]:/ {m = substr($1, 1, 2)} /ratio/ {printf "%s %s ", m, $3}')
fi

slots=?; records=?
if [ -s "$dir/replay.jsonl" ]; then
  slots=$(grep -c '"kind":"slot"' "$dir/replay.jsonl" || true)
  records=$(wc -l < "$dir/replay.jsonl")
fi
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; capture $capture ($(stat -c %s "$capture") bytes, $slots slots, $records records)"
echo
echo "| step | wall s | CPU s | peak RSS MiB |"
echo "|---|---|---|---|"
while read -r name wall cpu rss; do
  printf '| %s | %.3f | %.3f | %.1f |\n' "$name" "$wall" "$cpu" "$(echo "$rss / 1024" | bc -l)"
done < "$dir/times"
echo "(wall and CPU: $(command -v perf >/dev/null && echo 'perf stat duration_time and task-clock' || echo '/usr/bin/time'))"
echo
if wanted replay && wanted tshark && grep -q '^tshark ' "$dir/times"; then
  # Replay writes on a second thread, so its wall is below its CPU; tshark runs on one. Both shown.
  read -r _ ours_wall ours_cpu _ < <(grep '^replay ' "$dir/times")
  read -r _ theirs_wall theirs_cpu _ < <(grep '^tshark ' "$dir/times")
  printf 'replay vs tshark (whole processes): wall %.1fx, CPU %.1fx\n' \
    "$(echo "$theirs_wall / $ours_wall" | bc -l)" "$(echo "$theirs_cpu / $ours_cpu" | bc -l)"
fi
if [ -n "$decoder" ]; then echo "decoder: $decoder (model, % of the memory-read rate)"; fi
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# The rows: NAME TARGET FIGURE (tools/bench-lib.sh). Wall and CPU in seconds, peak RSS in MB
# (10^6 bytes, as the footprint targets), ratios as multiples, shares in percent.
h=$model-${days}d
while read -r name wall cpu rss; do
  wall_target=lower cpu_target=lower rss_target=lower
  # The targets are set on the 30-day V2 history, and on a year for summarize's memory.
  if [ "$h" = v2-30d ]; then
    case $name in
      ingest) wall_target="<=0.25" rss_target="<=96" ;;
      summarize-db) wall_target="<=0.03" ;;
      listen) cpu_target="<=0.5" ;;
    esac
  fi
  if [ "$name" = summarize ] && [ "$days" = 365 ]; then rss_target="<=64"; fi
  bench_row "bench.$h.$name.wall_s" "$wall_target" "$wall"
  bench_row "bench.$h.$name.cpu_s" "$cpu_target" "$cpu"
  bench_row "bench.$h.$name.rss_mb" "$rss_target" "$(echo "scale=1; $rss * 1024 / 1000000" | bc -l)"
done < "$dir/times"
if wanted replay && wanted tshark && grep -q '^tshark ' "$dir/times"; then
  bench_row "bench.$h.replay-vs-tshark.wall_x" ">=30" "$(printf '%.1f' "$(echo "$theirs_wall / $ours_wall" | bc -l)")"
  bench_row "bench.$h.replay-vs-tshark.cpu_x" "higher" "$(printf '%.1f' "$(echo "$theirs_cpu / $ours_cpu" | bc -l)")"
fi
for part in $decoder; do
  case $part in v1|v2) m=$part ;; *) bench_row "bench.decoder.${m}_pct" ">=80" "$part" ;; esac
done
status=0
if [ "$ci" = 1 ]; then bench_compare --ci || status=1; else bench_compare || status=1; fi
if [ "$accept" = 1 ]; then bench_accept; fi
exit $status
