#!/usr/bin/env bash
# tools/readme-walkthrough.sh: runs README.md's commands as a reader pastes them, so the README
# cannot drift from the program. Needs the package installed (tools/check-deb.sh installs the one it
# builds and runs this before it removes it).
# - Plain ```sh blocks: pasted in order into one bash (`set -euo pipefail`) in an empty folder
#   outside the checkout, with nothing of the checkout: the environment is emptied, PATH is
#   /usr/bin:/bin (the installed bracelet), HOME is the folder, and as root the shell runs as the
#   user nobody. Every block must exit 0 within 300 s in all, and no command may flood the
#   terminal (more than 100 lines or 16 KiB of output, its own and its background jobs'). Background
#   jobs a block starts are ended when the run ends.
# - ```sh ci blocks: run by .ci/run; tools/check-ci-readme.py (run here too) checks that .ci/run
#   begins with the first one (the test command) and holds every line of the others.
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
[ -x /usr/bin/bracelet ] && [ -d /usr/share/bracelet/captures ] ||
  fail "the bracelet package is not installed: sudo apt install ./bracelet_VERSION_ARCH.deb (tools/check-deb.sh builds one, installs it and runs this)"
work=$(mktemp -d /tmp/bracelet-readme.XXXXXX)
before=$(git status --porcelain --untracked-files=all)
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/run"
tools/check-ci-readme.py >/dev/null
python3 - README.md "$work/walkthrough.sh" <<'PY'
import re, sys
readme, script = sys.argv[1], sys.argv[2]
blocks = re.findall(r"^```(sh[^\n]*)\n(.*?)^```", open(readme).read(), flags=re.S | re.M)
out, runs, strays = [], 0, []
for info, body in blocks:
    kind = info.split()[1] if len(info.split()) > 1 else ""
    commands = [l for l in body.splitlines() if l.strip() and not l.lstrip().startswith("#")]
    if kind == "":
        runs += 1
        for c in commands:
            # A marker before each command, in the same output as the command's: what follows it,
            # up to the next marker, is what the reader's terminal shows for that command.
            out.append("printf '\\n@@readme$ %s\\n' " + "'" + c.replace("'", "'\\''") + "'")
            out.append(c)
    elif kind == "service":
        strays += [c for c in commands if not re.search(r"\b(bracelet|systemctl|journalctl|tee)\b", c)]
    elif kind not in ("package", "ci"):
        sys.exit(f"README block ```{info}: unknown kind (sh, sh ci, sh package, sh service)")
if strays:
    sys.exit("README sh service lines that are not bracelet, systemctl, journalctl or tee: " + "; ".join(strays))
# A SIGTERM (the timeout) ends the shell through its EXIT trap, which ends the blocks' background jobs.
open(script, "w").write("set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\ntrap 'exit 143' TERM\n"
                        + "\n".join(out) + "\n")
print(f"readme-walkthrough: {runs} sh blocks, {len(out) // 2} commands", file=sys.stderr)
PY
as=()
if [ "$(id -u)" -eq 0 ]; then
  chown -R nobody:nogroup "$work/run"
  chmod 711 "$work"
  chmod 644 "$work/walkthrough.sh"
  as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
fi
start=$(date +%s.%N)
status=0
(cd "$work/run" && timeout --kill-after=10 300 "${as[@]}" env -i HOME="$work/run" PATH=/usr/bin:/bin LANG=C.UTF-8 \
  bash "$work/walkthrough.sh" >"$work/output.txt" 2>&1) || status=$?
seconds=$(echo "$(date +%s.%N) - $start" | bc)
if [ "$status" -ne 0 ]; then
  tail -25 "$work/output.txt" >&2
  [ "$status" -eq 124 ] && fail "the README's commands did not end within 300 s (above: the output's end)"
  fail "a README command failed with status $status (above: the output's end)"
fi
python3 - "$work/output.txt" <<'PY'
import sys
text = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
floods, largest = [], (0, 0, "")
for part in text.split("\n@@readme$ ")[1:]:
    command, _, shown = part.partition("\n")
    size = (shown.count("\n"), len(shown.encode()), command)
    largest = max(largest, size)
    if size[0] > 100 or size[1] > 16384:
        floods.append(f"{command} ({size[0]} lines, {size[1]} bytes)")
if floods:
    sys.exit("readme-walkthrough: FAIL: these commands flood the terminal: " + "; ".join(floods))
print(f"readme-walkthrough: the most any command showed: {largest[0]} lines, {largest[1]} bytes ({largest[2][:60]})", file=sys.stderr)
PY
[ "$(git -C "$repo" status --porcelain --untracked-files=all)" = "$before" ] || fail "the walk-through wrote into the checkout: $(git status --porcelain)"
printf 'readme-walkthrough: OK in %.1f s with the installed bracelet %s; README.md %d lines\n' "$seconds" \
  "$(/usr/bin/bracelet --version)" "$lines"
