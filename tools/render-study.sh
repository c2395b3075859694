#!/usr/bin/env bash
# Renders `bracelet report --study` in Debian's headless Chromium (PNG and PDF) and checks each page
# against the CSV of the same database (tools/check_study.py): a cell per participant and day with
# the CSV's state and minutes, the counts on top, a legend entry for every colour, A4 landscape, no
# console message, no network request, not blank.
#
# The database: the bundled captures ingested into one file (three bracelets, two zones, a
# daylight-saving day) and one bracelet enrolled at the gateway that never answered (its row has
# the gateway columns). Pages: two weeks of June (days missing, incomplete and whole), and the
# daylight-saving week (a day of 1500 minutes).
#
# Usage: tools/render-study.sh [OUT_DIR]     (default: a temporary folder)
# Env:   BRACELET_BIN=path   VENV=path (default .build-venv)   CHROMIUM=path (default chromium)
set -euo pipefail
cd "$(dirname "$0")/.."

source tools/render-lib.sh
render_setup render-study

OUT=${1:-}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/render-study.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
[[ -n "$OUT" ]] || OUT=$WORK/out
mkdir -p "$OUT"

db=$WORK/study.db
declare -A ZONES=([v1-day]=America/New_York [v1-faulty-transfer]=America/New_York
                  [v2-three-days]=America/New_York [v2-daylight-saving]=Europe/Amsterdam)
for capture in captures/*.btsnoop; do
    name=$(basename "$capture" .btsnoop)
    "$BIN" ingest "$capture" --db "$db" --tz "${ZONES[$name]:-UTC}" --age 35 > /dev/null 2>&1
done
"$BIN" gateway enroll --db "$db" --via "unix:$WORK/absent.sock" --user P-0099 --tz UTC --age 40 > /dev/null

# A4 landscape at 96 dpi: 1123 x 794 pixels.
render_chrome 1123 794
for page in june:2026-06-06:2026-06-19 daylight-saving:2026-10-21:2026-10-28; do
    IFS=: read -r name from to <<< "$page"
    html="$OUT/study-$name.html"
    "$BIN" report --study --db "$db" --from "$from" --to "$to" -o "$html"
    "$BIN" report --study --db "$db" --from "$from" --to "$to" --format csv -o "$WORK/$name.csv"
    "${chrome[@]}" --screenshot="$OUT/study-$name.png" "file://$(realpath "$html")" > /dev/null 2> "$WORK/$name.png.log"
    "${chrome[@]}" --no-pdf-header-footer --print-to-pdf="$OUT/study-$name.pdf" "file://$(realpath "$html")" > /dev/null 2> "$WORK/$name.pdf.log"
    "${chrome[@]}" --log-net-log="$WORK/$name.netlog.json" --dump-dom "file://$(realpath "$html")" > "$WORK/$name.dom.html" 2> "$WORK/$name.dom.log"
    "$VENV/bin/python" tools/check_study.py --name "study-$name" --html "$html" --dom "$WORK/$name.dom.html" --csv "$WORK/$name.csv" \
        --png "$OUT/study-$name.png" --pdf "$OUT/study-$name.pdf" --netlog "$WORK/$name.netlog.json" \
        --logs "$WORK/$name.png.log" "$WORK/$name.pdf.log" "$WORK/$name.dom.log"
done
echo "render-study: every study page rendered and checked (files in $OUT)"
