#!/usr/bin/env bash
# Replay throughput of bracelet against tshark on the same capture.
# usage: tools/replay-vs-tshark.sh [CAPTURE]   (default: captures/v2-three-days.btsnoop)
# Builds bracelet in release, measures its replay rate with `bracelet bench --replay-only`, then
# times `tshark -r FILE -T fields -e btatt.value` and prints both rates and the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
capture=${1:-captures/v2-three-days.btsnoop}
command -v tshark >/dev/null || { echo "tshark is not installed (apt-get install -y tshark)" >&2; exit 2; }
swift build -c release --product bracelet >/dev/null
ours=$(.build/release/bracelet bench --replay-only --capture "$capture" --repetitions 20 | awk '/MB\/s/ {print $3}')
bytes=$(stat -c %s "$capture")
start=$(date +%s.%N)
tshark -r "$capture" -T fields -e btatt.value >/dev/null 2>&1
end=$(date +%s.%N)
theirs=$(echo "$bytes / 1000000 / ($end - $start)" | bc -l)
printf 'capture   %s (%d bytes)\n' "$capture" "$bytes"
printf 'bracelet  %.1f MB/s (best of 20, release)\n' "$ours"
printf 'tshark    %.1f MB/s (one run, -T fields -e btatt.value)\n' "$theirs"
printf 'ratio     %.0fx\n' "$(echo "$ours / $theirs" | bc -l)"
