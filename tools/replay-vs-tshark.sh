#!/usr/bin/env bash
# Replay against tshark on the same capture, both as whole processes that read the whole file and
# write every record to a file: `bracelet replay --format jsonl -o FILE` and
# `tshark -r CAPTURE -T fields -e btatt.value > FILE`.
#
# usage: tools/replay-vs-tshark.sh [CAPTURE] [RUNS]
#   CAPTURE  default: the 30-day V2 history of tools/bench.sh ($BENCH_DIR/v2-30d.btsnoop, made by
#            `tools/bench.sh` first) when present, else captures/v2-three-days.btsnoop
#   RUNS     runs of each, the best kept (default 5)
# Prints the best wall and CPU time of each (perf's task-clock when perf is installed) and the ratios. On a shared machine the CPU
# ratio is the figure to compare; wall times follow the load. BRACELET=path measures a given binary.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_DIR:-/tmp/bracelet-bench}
capture=${1:-}
if [ -z "$capture" ]; then
  capture=captures/v2-three-days.btsnoop
  [ -s "$dir/v2-30d.btsnoop" ] && capture="$dir/v2-30d.btsnoop"
fi
runs=${2:-5}
command -v tshark >/dev/null || { echo "tshark is not installed (apt-get install -y tshark)" >&2; exit 2; }
if [ -z "${BRACELET:-}" ]; then
  swift build -c release --product bracelet >/dev/null
  BRACELET=.build/release/bracelet
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# CPU time: perf's task-clock (microseconds) when perf is installed, else /usr/bin/time's user + sys,
# which counts in 10 ms steps, a tenth of replay's time on the 30-day history.
clock=time
if command -v perf >/dev/null && perf stat -e task-clock true >/dev/null 2>&1; then clock=perf; fi

# best NAME OUTPUT COMMAND...: runs COMMAND $runs times; prints "wall cpu" of the run with the least CPU.
# Each run writes a new OUTPUT: the previous run's output is deleted first, outside the timing, for both
# tools alike. Writing over it would charge the run with the kernel freeing the previous 90 MB
# (about 0.01-0.02 s for replay's output, next to nothing for tshark's smaller one), which is the
# cost of discarding an old export, not of producing this one.
best() {
  local name=$1 output=$2; shift 2
  local bestcpu= bestwall=
  for _ in $(seq 1 "$runs"); do
    rm -f "$output"
    if [ "$clock" = perf ]; then
      perf stat -x, -e task-clock,duration_time -o "$out/time" "$@" >/dev/null 2>"$out/err" || { echo "$name failed:" >&2; cat "$out/err" >&2; exit 1; }
      cpu=$(awk -F, '$3 == "task-clock" {printf "%.4f", $1 / 1000}' "$out/time")
      wall=$(awk -F, '$3 == "duration_time" {printf "%.4f", $1 / 1e9}' "$out/time")
    else
      /usr/bin/time -o "$out/time" -f "%e %U %S" "$@" >/dev/null 2>"$out/err" || { echo "$name failed:" >&2; cat "$out/err" >&2; exit 1; }
      read -r wall user sys < "$out/time"
      cpu=$(echo "$user + $sys" | bc -l)
    fi
    if [ -z "$bestcpu" ] || [ "$(echo "$cpu < $bestcpu" | bc -l)" = 1 ]; then bestcpu=$cpu; bestwall=$wall; fi
  done
  echo "$bestwall $bestcpu"
}

read -r ours_wall ours_cpu < <(best replay "$out/replay.jsonl" "$BRACELET" replay "$capture" --format jsonl -o "$out/replay.jsonl" --quiet)
read -r theirs_wall theirs_cpu < <(best tshark "$out/tshark.txt" sh -c "tshark -r '$capture' -T fields -e btatt.value > '$out/tshark.txt' 2>/dev/null")
printf 'capture   %s (%d bytes): bracelet %d records, tshark %d lines\n' "$capture" "$(stat -c %s "$capture")" \
  "$(wc -l < "$out/replay.jsonl")" "$(wc -l < "$out/tshark.txt")"
printf 'bracelet  replay --format jsonl -o FILE     wall %6.3f s  CPU %6.3f s (best of %d)\n' "$ours_wall" "$ours_cpu" "$runs"
printf 'tshark    -T fields -e btatt.value > FILE   wall %6.3f s  CPU %6.3f s (best of %d)\n' "$theirs_wall" "$theirs_cpu" "$runs"
printf 'clock     %s\n' "$([ "$clock" = perf ] && echo "perf stat task-clock (CPU) and duration_time (wall)" || echo "/usr/bin/time, 10 ms steps")"
printf 'ratio     CPU %.1fx, wall %.1fx\n' "$(echo "$theirs_cpu / $ours_cpu" | bc -l)" "$(echo "$theirs_wall / $ours_wall" | bc -l)"
