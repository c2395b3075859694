#!/usr/bin/env bash
# Second opinion on a btsnoop capture: how many ATT PDUs and notifications Wireshark's dissector
# finds in it, and how fast tshark reads it (MB/s). With our own replay rate as second argument it
# prints the ratio ours / tshark.
#
# usage: tools/tshark-check.sh CAPTURE.btsnoop [OUR_MB_PER_S]
set -euo pipefail

capture=${1:?usage: tools/tshark-check.sh CAPTURE.btsnoop [OUR_MB_PER_S]}
ours=${2:-}
if ! command -v tshark >/dev/null 2>&1; then
    echo "tshark is not installed (Debian: apt-get install -y tshark); nothing checked." >&2
    exit 2
fi
[ -r "$capture" ] || { echo "cannot read $capture" >&2; exit 2; }

bytes=$(stat -c %s "$capture")
out=$(mktemp)
trap 'rm -f "$out"' EXIT

start=$(date +%s.%N)
tshark -r "$capture" -Y btatt -T fields -e btatt.opcode -e btatt.handle -e btatt.value >"$out" 2>/dev/null
end=$(date +%s.%N)

att=$(wc -l <"$out")
notifications=$(grep -c '^0x1b' "$out" || true)
handles=$(awk -F'\t' '$2 != "" {print $2}' "$out" | sort -u | tr '\n' ' ')
seconds=$(echo "$end - $start" | bc -l)
rate=$(echo "$bytes / 1000000 / $seconds" | bc -l)

printf 'capture        %s (%d bytes)\n' "$capture" "$bytes"
printf 'ATT PDUs       %d (notifications %d)\n' "$att" "$notifications"
printf 'handles        %s\n' "${handles:-none}"
printf 'tshark         %.2f s, %.1f MB/s\n' "$seconds" "$rate"
if [ -n "$ours" ]; then
    printf 'ours / tshark  %.1fx (ours %s MB/s)\n' "$(echo "$ours / $rate" | bc -l)" "$ours"
fi
