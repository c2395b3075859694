#!/usr/bin/env bash
# tools/check-deb.sh [DEB]: checks the bracelet package the way Debian checks packages, on this
# machine (as root: it installs, removes and purges the package). Without DEB it builds one first
# with tools/make-deb.sh (reusing the release build). Checks: lintian with no error and no warning
# (warnings are fixed or overridden with a reason in debian/bracelet.lintian-overrides); dpkg -i;
# /usr/bin/bracelet resolves every library without the Swift toolchain's; bracelet --version; the
# man page of a subcommand renders; the bash completion loads and completes subcommands; systemd-analyze
# verify accepts the unit; systemd-analyze security finds nothing in it but what the gateway needs
# (the list below, exposure at most 2.0); the gateway runs in the unit's sandbox (started by systemd
# where it is PID 1, else rebuilt by tools/unit-sandbox.sh) against a simulated bracelet; the state
# directory and system user; /usr/share/bracelet holds the checkout's captures, example receiver and
# alert rules (the rules load in promtool when it is installed); README.md's walk-through runs with
# the installed package (tools/readme-walkthrough.sh); dpkg -r removes the program and keeps the
# state; dpkg --purge removes the state, the user and the group. Prints each step's time.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "check-deb: run as root (it installs and purges the package)" >&2; exit 1; }
start=$(date +%s.%N)
step() { printf 'check-deb: %-58s %6.1f s\n' "$1" "$(echo "$(date +%s.%N) - $start" | bc)"; }
fail() { echo "check-deb: FAIL: $*" >&2; exit 1; }
need=()
for pkg in lintian man-db bash-completion; do dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg"); done
[ ${#need[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
# A bracelet installed before is left alone: the check refuses to run rather than purge it.
if dpkg -s bracelet >/dev/null 2>&1; then fail "bracelet is installed on this machine already; dpkg --purge bracelet first"; fi
work=$(mktemp -d)
trap 'dpkg --purge bracelet >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

deb=${1:-}
if [ -z "$deb" ]; then deb=$(tools/make-deb.sh "$work/out"); step "built $(basename "$deb")"; fi
version=$(dpkg-deb -f "$deb" Version)
[ "$(dpkg-deb -f "$deb" Architecture)" = "$(dpkg --print-architecture)" ] || fail "architecture is not this machine's"

# lintian: no error, no warning (each remaining tag overridden in the package, with its reason).
lintian --fail-on error,warning --info --display-level '>=warning' "$deb" >"$work/lintian.txt" 2>&1 ||
  { cat "$work/lintian.txt" >&2; fail "lintian reports errors or warnings (above)"; }
step "lintian: 0 errors, 0 warnings"
echo "check-deb: Depends: $(dpkg-deb -f "$deb" Depends)"

# Installed as README.md's "sh package" block says (apt install ./FILE.deb, then a bundled capture
# summarised), run as root with this package's file name: the README cannot drift from the package.
awk '/^```sh package$/ {on=1; next} on && /^```/ {on=0} on' README.md |
  sed -e 's/^sudo //' -e "s|\./bracelet_[^ ]*\.deb|$deb|" >"$work/install.sh"
grep -q "apt install $deb" "$work/install.sh" || fail "README.md has no sh package block installing the package"
(cd "$work" && DEBIAN_FRONTEND=noninteractive MANPAGER=cat bash -euo pipefail install.sh) >"$work/install.txt" 2>&1 ||
  { cat "$work/install.txt" >&2; fail "README.md's install commands"; }
dpkg -s bracelet >/dev/null 2>&1 || fail "the package is not installed after README.md's install commands"
step "installed by README.md's first block (apt install, a bundled capture summarised)"

# Every library resolves from the system: none from the Swift toolchain, none missing.
libs=$(env -u LD_LIBRARY_PATH ldd /usr/bin/bracelet)
if grep -q 'not found' <<<"$libs"; then echo "$libs" >&2; fail "ldd: a library is missing"; fi
if grep -q 'swift' <<<"$libs"; then echo "$libs" >&2; fail "ldd: a library comes from the Swift toolchain"; fi
printed=$(env -i PATH=/usr/bin:/bin /usr/bin/bracelet --version)
[ "$printed" = "${version%%-*}" ] || fail "bracelet --version printed '$printed', the package is $version"
step "ldd without the toolchain ($(wc -l <<<"$libs") libraries), --version $printed"

page=$(MANWIDTH=100 MANPAGER=cat man bracelet-listen 2>"$work/man.err") || { cat "$work/man.err" >&2; fail "man bracelet-listen"; }
grep -q -- '--log-level' <<<"$page" || fail "man bracelet-listen does not document --log-level"
[ -s /usr/share/man/man1/bracelet.1.gz ] || fail "no man page bracelet(1)"
for sub in $(/usr/bin/bracelet --help | awk '/^SUBCOMMANDS:/ {on=1; next} on && /^  [a-z]/ {print $1}'); do
  [ -s "/usr/share/man/man1/bracelet-$sub.1.gz" ] || fail "no man page for bracelet $sub"
done
step "man bracelet-listen renders; a page for every subcommand"

# The bash completion, loaded as an interactive shell loads it (bash-completion's loader).
# (Debian's /etc/bash.bashrc leaves that block commented out, so the loader is sourced here as it would.)
completion=$(bash -ic '. /usr/share/bash-completion/bash_completion; _completion_loader bracelet; complete -p bracelet
  COMP_WORDS=(bracelet li); COMP_CWORD=1; COMP_LINE="bracelet li"; COMP_POINT=${#COMP_LINE}
  _bracelet bracelet li bracelet; printf "reply:%s\n" "${COMPREPLY[@]}"' 2>/dev/null)
grep -q '^complete .* bracelet$' <<<"$completion" || { echo "$completion" >&2; fail "bash completion not loaded"; }
grep -qx 'reply:listen' <<<"$completion" || { echo "$completion" >&2; fail "bash completion does not complete 'bracelet li' to listen"; }
[ -s /usr/share/zsh/vendor-completions/_bracelet ] && [ -s /usr/share/fish/vendor_completions.d/bracelet.fish ] || fail "zsh or fish completion missing"
step "bash completion: 'bracelet li<TAB>' -> listen"

unit=$(systemctl show -P FragmentPath bracelet-gateway.service 2>/dev/null || true)
[ -n "$unit" ] || unit=$(ls /lib/systemd/system/bracelet-gateway.service /usr/lib/systemd/system/bracelet-gateway.service 2>/dev/null | head -1)
[ -f "$unit" ] || fail "bracelet-gateway.service not installed"
systemd-analyze verify "$unit" >"$work/verify.txt" 2>&1 || { cat "$work/verify.txt" >&2; fail "systemd-analyze verify $unit"; }
[ ! -s "$work/verify.txt" ] || { cat "$work/verify.txt" >&2; fail "systemd-analyze verify printed the warnings above"; }
step "systemd-analyze verify $unit"

# What systemd-analyze security still flags is what the gateway needs: Bluetooth LE (AF_BLUETOOTH
# sockets, the management interface: CAP_NET_ADMIN and CAP_NET_RAW as ambient capabilities, in the
# host's user namespace, which PrivateUsers= would leave), delivery to any webhook or PostgreSQL host
# (AF_INET/AF_INET6, no IP allow list, the host's network), D-Bus to bluetoothd and sd_notify
# (AF_UNIX), getaddrinfo (AF_NETLINK), the host's root (the binary and its libraries), and the
# real-time clock's device, which ProtectClock= itself allows read-only.
expected="AmbientCapabilities= CapabilityBoundingSet=~CAP_NET_ADMIN CapabilityBoundingSet=~CAP_NET_(BIND_SERVICE|BROADCAST|RAW)
DeviceAllow= IPAddressDeny= PrivateNetwork= PrivateUsers= RestrictAddressFamilies=~AF_(INET|INET6) RestrictAddressFamilies=~AF_NETLINK
RestrictAddressFamilies=~AF_UNIX RestrictAddressFamilies=~… RootDirectory=/RootImage="
systemd-analyze security --offline=yes --threshold=20 --no-pager "$unit" >"$work/security.txt" 2>&1 ||
  { cat "$work/security.txt" >&2; fail "systemd-analyze security: exposure above 2.0 (systemd-analyze counts it as 20 of 100; above)"; }
flagged=$(awk '$1 == "✗" { print $2 }' "$work/security.txt" | sort)
[ "$flagged" = "$(tr ' ' '\n' <<<"$expected" | grep . | sort)" ] ||
  { diff <(tr ' ' '\n' <<<"$expected" | grep . | sort) <(echo "$flagged") >&2 || true; fail "systemd-analyze security flags other settings than the gateway needs (diff above: < expected, > flagged)"; }
step "systemd-analyze security: $(sed -n 's/.*exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$work/security.txt"), only what the gateway needs"

# The gateway in that sandbox, against a simulated bracelet: it syncs, delivers, serves metrics and
# stops on SIGTERM. Where systemd is PID 1, by systemd under the installed unit; elsewhere (a
# container) the sandbox is rebuilt with namespaces, setpriv and the same seccomp filter.
if [ "$(cat /proc/1/comm)" = systemd ]; then
  sim=/run/bracelet-check
  install -d -o bracelet -g bracelet "$sim"
  setpriv --reuid=bracelet --regid=bracelet --clear-groups /usr/bin/bracelet simulate --serve "unix:$sim/s.sock" --days 2 --seed 3 --quiet &
  simulator=$!
  for _ in $(seq 100); do [ -S "$sim/s.sock" ] && break; sleep 0.1; done
  setpriv --reuid=bracelet --regid=bracelet --clear-groups /usr/bin/bracelet gateway enroll --db /var/lib/bracelet/bracelet.db \
    --via "unix:$sim/s.sock" --user P-CHECK --tz UTC >/dev/null
  mkdir -p /run/systemd/system/bracelet-gateway.service.d
  printf '[Service]\nEnvironment="BRACELET_GATEWAY_ARGS=--jsonl /var/lib/bracelet/check.jsonl --metrics 127.0.0.1:19464"\n' \
    >/run/systemd/system/bracelet-gateway.service.d/check.conf
  systemctl daemon-reload
  systemctl start bracelet-gateway.service || { journalctl -u bracelet-gateway --no-pager | tail -20 >&2; fail "systemctl start"; }
  for _ in $(seq 300); do [ -s /var/lib/bracelet/check.jsonl ] && break; sleep 0.2; done
  scrape=$(exec 3<>/dev/tcp/127.0.0.1/19464; printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3; timeout 5 cat <&3) || true
  systemctl stop bracelet-gateway.service
  result=$(systemctl show -P Result bracelet-gateway.service)
  kill "$simulator" 2>/dev/null || true
  rm -rf /run/systemd/system/bracelet-gateway.service.d "$sim" /var/lib/bracelet/check.jsonl /var/lib/bracelet/bracelet.db*
  systemctl daemon-reload
  [ "$result" = success ] && grep -q '^bracelet_syncs_total 1$' <<<"$scrape" ||
    { journalctl -u bracelet-gateway --no-pager | tail -20 >&2; fail "the gateway under its unit (result $result)"; }
  step "the gateway under its unit: synced, delivered, metrics, stopped"
else
  echo "check-deb: systemd is not PID 1 here ($(cat /proc/1/comm)): tools/unit-sandbox.sh rebuilds the unit's sandbox"
  UNIT="$unit" tools/unit-sandbox.sh /usr/bin/bracelet || fail "tools/unit-sandbox.sh"
  step "the gateway in the unit's sandbox: synced, delivered, metrics, stopped"
fi

# What README.md's examples take from the package instead of a checkout: each file as the checkout has it.
share=/usr/share/bracelet
for f in captures/*.btsnoop; do cmp -s "$f" "$share/$f" || fail "$share/$f is missing or differs from the checkout's $f"; done
[ "$(ls "$share/captures" | wc -l)" -eq "$(ls captures/*.btsnoop | wc -l)" ] || fail "$share/captures holds other files than captures/*.btsnoop"
cmp -s tools/webhook-receiver.py "$share/examples/webhook-receiver.py" && [ -x "$share/examples/webhook-receiver.py" ] ||
  fail "$share/examples/webhook-receiver.py is missing, not executable or differs from tools/webhook-receiver.py"
for f in bracelet.rules.yml bracelet.rules.test.yml; do
  cmp -s "prometheus/$f" "$share/prometheus/$f" || fail "$share/prometheus/$f is missing or differs from prometheus/$f"
done
if command -v promtool >/dev/null; then
  promtool check rules "$share/prometheus/bracelet.rules.yml" >/dev/null || fail "promtool check rules $share/prometheus/bracelet.rules.yml"
  promtool test rules "$share/prometheus/bracelet.rules.test.yml" >/dev/null || fail "promtool test rules $share/prometheus/bracelet.rules.test.yml"
fi
step "$share: $(ls "$share/captures" | wc -l) captures, the example receiver, the alert rules"

# README.md as a reader pastes it, with this package and nothing of the checkout (as the user nobody).
tools/readme-walkthrough.sh >"$work/walkthrough.txt" 2>&1 || { cat "$work/walkthrough.txt" >&2; fail "README.md's walk-through"; }
step "README.md's walk-through as nobody: $(tail -1 "$work/walkthrough.txt" | sed 's/^readme-walkthrough: //; s/ with the installed.*//')"

getent passwd bracelet >/dev/null || fail "no system user bracelet"
[ "$(id -u bracelet)" -lt 1000 ] || fail "bracelet is not a system user"
[ "$(stat -c '%a %U %G' /var/lib/bracelet)" = "700 bracelet bracelet" ] || fail "/var/lib/bracelet is $(stat -c '%a %U %G' /var/lib/bracelet)"
touch /var/lib/bracelet/bracelet.db
step "user bracelet, /var/lib/bracelet 0700 bracelet:bracelet"

dpkg -r bracelet >"$work/dpkg-r.txt" 2>&1 || { cat "$work/dpkg-r.txt" >&2; fail "dpkg -r"; }
[ ! -e /usr/bin/bracelet ] || fail "dpkg -r left /usr/bin/bracelet"
[ -e /var/lib/bracelet/bracelet.db ] || fail "dpkg -r removed the state (only purge may)"
step "dpkg -r: program gone, state kept"

dpkg --purge bracelet >"$work/dpkg-purge.txt" 2>&1 || { cat "$work/dpkg-purge.txt" >&2; fail "dpkg --purge"; }
[ ! -e /var/lib/bracelet ] || fail "dpkg --purge left /var/lib/bracelet"
! getent passwd bracelet >/dev/null || fail "dpkg --purge left the user bracelet"
! getent group bracelet >/dev/null || fail "dpkg --purge left the group bracelet"
step "dpkg --purge: state, user and group gone"
echo "check-deb: OK $(basename "$deb")"
