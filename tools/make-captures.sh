#!/usr/bin/env bash
# Regenerates the bundled captures in captures/ from the physiological model
# (Sources/BraceletSimulator/Physiology) and the simulated bracelet, then checks that tshark
# dissects their ATT notifications. Deterministic: same build, same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product make-captures
.build/release/make-captures captures
if command -v tshark >/dev/null; then
  for f in captures/*.btsnoop; do
    n=$(tshark -r "$f" -Y 'btatt.opcode == 0x1b' 2>/dev/null | wc -l)
    echo "tshark: $f has $n ATT notifications"
    [ "$n" -gt 0 ] || { echo "tshark dissected no notifications in $f" >&2; exit 1; }
  done
else
  echo "tshark not installed: skipped the second opinion (apt-get install tshark)"
fi
