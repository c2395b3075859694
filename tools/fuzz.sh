#!/usr/bin/env bash
# libFuzzer harnesses of bracelet (Fuzz/): build, seed, run briefly (CI) or long (campaign).
#
#   tools/fuzz.sh build               build every harness (release, -sanitize=fuzzer,address) into .build-fuzz
#   tools/fuzz.sh seeds               write the seed corpora into .build-fuzz/seeds (tools/fuzz-seeds.py)
#   tools/fuzz.sh ci [SECONDS]        build, then run every harness over its seeds and the committed
#                                     regression inputs, then fuzz it SECONDS (default 15); any crash,
#                                     hang or memory blow-up fails
#   tools/fuzz.sh run NAME [ARGS...]  fuzz one harness with its corpus (.build-fuzz/corpus/NAME), seeds,
#                                     dictionary and limits; extra ARGS go to libFuzzer
#                                     (e.g. -runs=10000000, -max_total_time=600)
#   tools/fuzz.sh campaign NAME [RUNS] fuzz one harness RUNS executions (default 10,000,000) under
#                                     nice -n 10 (CAMPAIGN_NICE), continuing from its corpus; prints the
#                                     docs/fuzzing.md table figures (executions, wall and CPU time, exec/s,
#                                     coverage, corpus, load average, commit of the binary)
#   tools/fuzz.sh list                the harness names
#
# The harnesses exist only when BRACELET_FUZZ is set (see the end of Package.swift), so a plain
# `swift build` never builds them. Crashes are written to .build-fuzz/crashes/NAME/; minimise one with
#   .build-fuzz/release/NAME -minimize_crash=1 -runs=100000 CRASH
# and add it to Tests/Fixtures/fuzz-regressions/NAME/ with a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."

SCRATCH=.build-fuzz
HARNESSES=(FuzzBtsnoop FuzzCaptureReader FuzzReplay FuzzFrames FuzzHealth FuzzDecoders FuzzAdvertisement FuzzATTPDU FuzzCSV FuzzROOK FuzzLayout)
# Per input: at most 10 s and 2 GiB resident.
# No leak checking: Swift's lazily built globals (static lets, metadata) stay allocated until exit
# and LeakSanitizer reports each as a leak; memory growth is caught by -rss_limit_mb instead.
LIMITS=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -detect_leaks=0)
export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
# Swift's own crash backtracer reads the crashed process's memory, which AddressSanitizer reports as
# an "unknown-crash" that hides the real failure; libFuzzer's deadly-signal report names it instead.
export SWIFT_BACKTRACE=enable=no

# What a failed run's log says first: the sanitizer or runtime error, the top frames of its stack and
# the input that triggered it (a report's tail is only its shadow-memory dump).
failure_summary() {
  grep -m 24 -E "Fatal error|runtime failure|ERROR:|SUMMARY:|^ +#[0-9] |Test unit written|crash-|timeout-|oom-" "$1" >&2 || true
  echo "  ..." >&2
  tail -n 8 "$1" >&2
}

# Longest generated input: captures 4 KiB (the seed windows are that long; longer ones run ~100
# times slower and find nothing a short one does not), everything else 2 KiB.
max_len() {
  case "$1" in
    FuzzBtsnoop|FuzzCaptureReader|FuzzReplay|FuzzROOK) echo 4096 ;;
    *) echo 2048 ;;
  esac
}

dictionary() {
  case "$1" in
    FuzzBtsnoop|FuzzCaptureReader|FuzzReplay) echo Fuzz/dictionaries/capture.dict ;;
    FuzzFrames|FuzzDecoders) echo Fuzz/dictionaries/frames.dict ;;
    FuzzHealth) echo Fuzz/dictionaries/health.dict ;;
    FuzzAdvertisement|FuzzATTPDU) echo Fuzz/dictionaries/att.dict ;;
    FuzzCSV) echo Fuzz/dictionaries/csv.dict ;;
    FuzzROOK) echo Fuzz/dictionaries/rook.dict ;;
    FuzzLayout) echo Fuzz/dictionaries/json.dict ;;
    *) echo "unknown harness $1; tools/fuzz.sh list names them" >&2; exit 2 ;;
  esac
}

build() {
  # One invocation per product: SwiftPM builds a single --product per call; modules are shared.
  for h in "${HARNESSES[@]}"; do
    BRACELET_FUZZ=1 swift build --scratch-path "$SCRATCH" -c release \
      -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library \
      -Xcc -fsanitize=fuzzer-no-link,address --product "$h" >&2
  done
  # The commit the binaries were built from (with "+changes" when the worktree differed), for the
  # campaign figures.
  local commit
  commit=$(git rev-parse --short HEAD)
  git diff --quiet HEAD -- Sources Fuzz Package.swift || commit="$commit+changes"
  echo "$commit" > "$SCRATCH/release/BUILD_COMMIT"
}

seeds() {
  rm -rf "$SCRATCH/seeds"
  python3 tools/fuzz-seeds.py "$SCRATCH/seeds"
}

# The inputs a harness starts from: generated seeds and committed regression inputs.
inputs() {
  local h=$1
  [ -d "$SCRATCH/seeds/$h" ] && echo "$SCRATCH/seeds/$h"
  [ -d "Tests/Fixtures/fuzz-regressions/$h" ] && echo "Tests/Fixtures/fuzz-regressions/$h"
  return 0
}

# Runs every committed regression input of a harness once, whole (named files are never cut to
# -max_len); a crash, a hang or a blow-up fails.
regressions() {
  local h=$1 files
  # A harness without regression inputs has no folder (find fails there: not an error).
  [ -d "Tests/Fixtures/fuzz-regressions/$h" ] || return 0
  files=$(find "Tests/Fixtures/fuzz-regressions/$h" -type f | sort)
  [ -n "$files" ] || return 0
  mkdir -p "$SCRATCH/crashes/$h"
  # shellcheck disable=SC2086
  if ! "$SCRATCH/release/$h" "${LIMITS[@]}" -artifact_prefix="$SCRATCH/crashes/$h/" $files > "$SCRATCH/regressions-$h.log" 2>&1; then
    echo "FAIL $h: a regression input fails again:" >&2
    failure_summary "$SCRATCH/regressions-$h.log"
    return 1
  fi
  grep -E "^Executed" "$SCRATCH/regressions-$h.log" >&2 || true
}

run() {
  local h=$1; shift
  dictionary "$h" >/dev/null
  mkdir -p "$SCRATCH/corpus/$h" "$SCRATCH/crashes/$h"
  # shellcheck disable=SC2046
  "$SCRATCH/release/$h" "${LIMITS[@]}" -max_len="$(max_len "$h")" -dict="$(dictionary "$h")" -artifact_prefix="$SCRATCH/crashes/$h/" \
    -print_final_stats=1 "$@" "$SCRATCH/corpus/$h" $(inputs "$h")
}

# One campaign: RUNS executions of harness NAME from its stored corpus, then the figures docs/fuzzing.md
# table records: executions, wall and CPU time, exec/s, coverage, corpus, the load average (sampled
# every minute: the machine is shared, so CPU time is the figure to compare) and the commit the
# binary was built from. CAMPAIGN_NICE sets the niceness (default 10); CAMPAIGN_SECONDS, when set,
# ends the run (with its figures) after that many seconds if RUNS were not reached by then;
# CAMPAIGN_TIMEOUT raises the per-input limit (10 s), since on a loaded machine a niced fuzzer can be
# kept off the CPU longer than that by an input that takes milliseconds (found so: a CSV input that
# runs in 0.01 s of CPU was reported as a 12 s timeout at load 20).
# ASan keeps no malloc/free stack per allocation here (malloc_context_size=0): recording one costs
# about a tenth of each execution and serves only the text of a report; detection is unchanged, and
# a crash input found is run again with the full stacks when it is minimised.
campaign() {
  local h=$1 runs=${2:-10000000} log started ended sampler
  mkdir -p "$SCRATCH/campaign"
  log="$SCRATCH/campaign/$h-$(date -u +%Y%m%dT%H%M%S).log"
  started=$(date +%s)
  (while sleep 60; do cut -d' ' -f1 /proc/loadavg; done) > "$log.load" &
  sampler=$!
  cut -d' ' -f1 /proc/loadavg >> "$log.load"
  if ! ASAN_OPTIONS="$ASAN_OPTIONS:malloc_context_size=0" /usr/bin/time -f "cpu: %U user %S sys" -o "$log.cpu" \
      nice -n "${CAMPAIGN_NICE:-10}" "$0" run "$h" -runs="$runs" ${CAMPAIGN_SECONDS:+-max_total_time=$CAMPAIGN_SECONDS} \
        ${CAMPAIGN_TIMEOUT:+-timeout=$CAMPAIGN_TIMEOUT} > "$log" 2>&1; then
    kill "$sampler"
    echo "FAIL $h: see $log" >&2; failure_summary "$log"; return 1
  fi
  ended=$(date +%s)
  kill "$sampler"
  cut -d' ' -f1 /proc/loadavg >> "$log.load"
  local execs rate cov corpus bytes cpu load
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -n 's/.*cov: \([0-9]*\) ft: \([0-9]*\).*/\1 \/ \2/p')
  corpus=$(find "$SCRATCH/corpus/$h" -type f | wc -l)
  bytes=$(du -sb "$SCRATCH/corpus/$h" | cut -f1)
  cpu=$(awk '/^cpu:/ {printf "%.0f", $2 + $4}' "$log.cpu")
  load=$(sort -g "$log.load" | sed -n '1p;$p' | paste -sd- -)
  echo "$h: $execs executions, $((ended - started)) s wall, $cpu s CPU, $rate exec/s wall," \
    "$((execs / (cpu > 0 ? cpu : 1))) per CPU s, cov/ft $cov, corpus $corpus inputs $bytes bytes," \
    "load $load, binary of $(cat "$SCRATCH/release/BUILD_COMMIT" 2>/dev/null || echo unknown); log $log"
}

case "${1:-}" in
  build) build ;;
  campaign)
    [ $# -ge 2 ] || { echo "usage: tools/fuzz.sh campaign NAME [RUNS]" >&2; exit 2; }
    shift; campaign "$@" ;;
  seeds) seeds ;;
  list) printf '%s\n' "${HARNESSES[@]}" ;;
  run)
    [ $# -ge 2 ] || { echo "usage: tools/fuzz.sh run NAME [libFuzzer args]" >&2; exit 2; }
    shift; run "$@" ;;
  ci)
    seconds=${2:-15}
    build
    seeds
    for h in "${HARNESSES[@]}"; do
      echo "== $h: regression inputs and seeds, then ${seconds} s of fuzzing" >&2
      regressions "$h"
      # The fuzzer's own exit status decides; its log is kept and shown in full when it fails.
      log="$SCRATCH/ci-$h.log"
      if ! run "$h" -max_total_time="$seconds" > "$log" 2>&1; then
        echo "FAIL $h: libFuzzer exited non-zero; from its log ($log):" >&2
        failure_summary "$log"
        exit 1
      fi
      grep -E "^(Done|stat::number_of_executed_units)" "$log" >&2 || true
    done ;;
  *) sed -n '2,21p' "$0" >&2; exit 2 ;;
esac
