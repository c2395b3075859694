#!/usr/bin/env bash
# tools/readme-walkthrough.sh: runs README.md's commands so the README cannot drift from the program.
# - ```sh blocks run in order, as one bash script with `set -euo pipefail`, in an empty folder that
#   holds only links to captures/ and tools/; `bracelet` is the release build (BRACELET=path to use
#   another). Background jobs a block starts are ended when the run ends.
# - ```sh ci blocks: each command line must be a line of .ci/run, which runs it.
# - ```sh package blocks: run by tools/check-deb.sh when it installs the package.
# - ```sh service blocks: the service on a real box (a radio, systemd as PID 1), which CI machines
#   lack; tools/check-deb.sh verifies the unit they start, and the gateway's own tests run it
#   as a notify service. Each line must name bracelet, systemctl, journalctl or tee.
# Also checks that README.md has at most 300 lines and that the run wrote nothing into the checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
fail() { echo "readme-walkthrough: FAIL: $*" >&2; exit 1; }
lines=$(wc -l <README.md)
[ "$lines" -le 300 ] || fail "README.md has $lines lines (at most 300)"
bin=${BRACELET:-$repo/.build/release/bracelet}
[ -x "$bin" ] || fail "no $bin: run swift build -c release (or set BRACELET)"
work=$(mktemp -d)
before=$(git status --porcelain --untracked-files=all)
cleanup() { jobs -p | xargs -r kill 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/bin" "$work/run"
ln -s "$bin" "$work/bin/bracelet"
ln -s "$repo/captures" "$work/run/captures"
ln -s "$repo/tools" "$work/run/tools"
python3 - README.md "$work/walkthrough.sh" .ci/run <<'PY'
import re, sys
readme, script, ci = sys.argv[1], sys.argv[2], sys.argv[3]
ci_lines = {line.strip() for line in open(ci)}
blocks = re.findall(r"^```(sh[^\n]*)\n(.*?)^```", open(readme).read(), flags=re.S | re.M)
out, runs, missing, strays = [], 0, [], []
for info, body in blocks:
    kind = info.split()[1] if len(info.split()) > 1 else ""
    commands = [l for l in body.splitlines() if l.strip() and not l.lstrip().startswith("#")]
    if kind == "ci":
        missing += [c for c in commands if c.strip() not in ci_lines]
    elif kind == "":
        runs += 1
        for c in commands:
            out.append('printf "readme$ %s\\n" ' + "'" + c.replace("'", "'\\''") + "' >&2")
            out.append(c)
    elif kind == "service":
        strays += [c for c in commands if not re.search(r"\b(bracelet|systemctl|journalctl|tee)\b", c)]
    elif kind != "package":
        sys.exit(f"README block ```{info}: unknown kind (sh, sh ci, sh package, sh service)")
if missing:
    sys.exit("README commands not in .ci/run: " + "; ".join(missing))
if strays:
    sys.exit("README sh service lines that are not bracelet, systemctl, journalctl or tee: " + "; ".join(strays))
open(script, "w").write("set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + "\n".join(out) + "\n")
print(f"readme-walkthrough: {runs} sh blocks, {len(out) // 2} commands", file=sys.stderr)
PY
start=$(date +%s.%N)
(cd "$work/run" && PATH="$work/bin:$PATH" bash "$work/walkthrough.sh" >"$work/stdout.txt") ||
  { tail -20 "$work/stdout.txt" >&2; fail "a README command failed (above: its output's end)"; }
[ "$(git status --porcelain --untracked-files=all)" = "$before" ] || fail "the walk-through wrote into the checkout: $(git status --porcelain)"
printf 'readme-walkthrough: OK in %.1f s; README.md %d lines\n' "$(echo "$(date +%s.%N) - $start" | bc)" "$lines"
