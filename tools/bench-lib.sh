# Benchmark rows against their last accepted figures: source this from a benchmark script, call
# bench_row once per measured row, then bench_compare (or bench_accept). See docs/performance.md,
# "Regressions", and tools/bench-baseline.py for the line and file formats.
#
#   . "$(dirname "$0")/bench-lib.sh"
#   bench_row fleet-score.10000.seconds '<=60' "$seconds"
#   bench_compare            # table of target, figure, baseline, change; status 1 on a regression
#
# Rows go to $BENCH_ROWS (a file; one is made when unset), so several scripts run one after the
# other can collect into one file and be compared at once (as .ci/run does).

bench_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -z "${BENCH_ROWS:-}" ]; then
  BENCH_ROWS=$(mktemp /tmp/bench-rows.XXXXXX)
  bench_rows_made=1
fi
export BENCH_ROWS

# bench_row NAME TARGET FIGURE: records one row. NAME has no spaces and ends with its unit (_s, _mb,
# _pct, _x); TARGET is <=N, >=N, =N, lower or higher; FIGURE a number (anything else is recorded
# as it is and fails the comparison: a row without a figure never passes).
bench_row() {
  printf '%s %s %s\n' "$1" "$2" "${3:-none}" >> "$BENCH_ROWS"
}

# bench_compare [--ci]: prints the rows recorded so far against tools/bench-baseline.txt; status 1
# when one is worse than its baseline by more than its tolerance (--ci: or a `ci` row is missing).
bench_compare() {
  python3 "$bench_lib_dir/bench-baseline.py" check "$@" "$BENCH_ROWS"
}

# bench_accept: writes the rows recorded so far into tools/bench-baseline.txt as the new baseline.
bench_accept() {
  python3 "$bench_lib_dir/bench-baseline.py" accept "$@" "$BENCH_ROWS"
}

# bench_cleanup: removes $BENCH_ROWS when this library made it.
bench_cleanup() {
  if [ "${bench_rows_made:-0}" = 1 ]; then rm -f "$BENCH_ROWS"; fi
}
