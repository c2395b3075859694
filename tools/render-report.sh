#!/usr/bin/env bash
# Renders `bracelet report` of every bundled capture in Debian's headless Chromium (PNG and PDF)
# and checks each page: no console message, no network request, the expected SVG elements (one path
# per curve, one bar per hour with steps, one segment per sleep-stage run), a legend entry for every
# colour drawn, round ticks and a unit on every value axis, the week table by default, one A4 page,
# and a screenshot that is not blank. The counts are checked against the exports of the same database,
# not against the report's own code.
#
# Usage: tools/render-report.sh [OUT_DIR]     (default: a temporary folder)
# Env:   BRACELET_BIN=path   VENV=path (default .build-venv)   CHROMIUM=path (default chromium)
set -euo pipefail
cd "$(dirname "$0")/.."

source tools/render-lib.sh
render_setup render-report

OUT=${1:-}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/render-report.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
[[ -n "$OUT" ]] || OUT=$WORK/out
mkdir -p "$OUT"

# Each capture with the zone it was recorded in and a day to report (its second day).
declare -A ZONES=([v1-day]=America/New_York [v1-faulty-transfer]=America/New_York
                  [v2-three-days]=America/New_York [v2-daylight-saving]=Europe/Amsterdam)
render_chrome 794 1123
for capture in captures/*.btsnoop; do
    name=$(basename "$capture" .btsnoop)
    zone=${ZONES[$name]:-UTC}
    db="$WORK/$name.db"
    "$BIN" ingest "$capture" --db "$db" --tz "$zone" --age 35 > /dev/null 2>&1
    day=$("$BIN" export --db "$db" --tz "$zone" --format csv | awk -F, 'NR == 3 { print $2 } END { if (NR == 2) print "" }')
    [[ -n "$day" ]] || day=$("$BIN" export --db "$db" --tz "$zone" --format csv | awk -F, 'NR == 2 { print $2 }')
    html="$OUT/$name.html"
    # No --days: the week view is there by default when the database holds more than one day.
    "$BIN" report --db "$db" --tz "$zone" --day "$day" -o "$html"
    week=()
    [[ $("$BIN" export --db "$db" --tz "$zone" --format csv | wc -l) -gt 2 ]] && week=(--expect-week)
    "$BIN" export --db "$db" --tz "$zone" --format csv --table slots --from "$day" --to "$day" -o "$WORK/$name.slots.csv"
    "$BIN" export --db "$db" --tz "$zone" --format ieee1752 --from "$day" --to "$day" -o "$WORK/$name.ieee.json"
    "${chrome[@]}" --screenshot="$OUT/$name.png" "file://$(realpath "$html")" > /dev/null 2> "$WORK/$name.png.log"
    "${chrome[@]}" --no-pdf-header-footer --print-to-pdf="$OUT/$name.pdf" "file://$(realpath "$html")" > /dev/null 2> "$WORK/$name.pdf.log"
    "${chrome[@]}" --log-net-log="$WORK/$name.netlog.json" --dump-dom "file://$(realpath "$html")" > "$WORK/$name.dom.html" 2> "$WORK/$name.dom.log"
    "$VENV/bin/python" tools/check_report.py --name "$name" --day "$day" --html "$html" --dom "$WORK/$name.dom.html" \
        --png "$OUT/$name.png" --pdf "$OUT/$name.pdf" --netlog "$WORK/$name.netlog.json" \
        --logs "$WORK/$name.png.log" "$WORK/$name.pdf.log" "$WORK/$name.dom.log" \
        --slots "$WORK/$name.slots.csv" --ieee "$WORK/$name.ieee.json" "${week[@]}"
done
echo "render-report: every report rendered and checked (files in $OUT)"
