#!/usr/bin/env bash
# tools/unit-sandbox.sh [BRACELET]: runs `bracelet gateway run` once inside the sandbox that
# debian/bracelet.bracelet-gateway.service asks systemd for, rebuilt without systemd (for machines
# where systemd is not PID 1, such as CI containers), against a simulated bracelet: it must sync it,
# deliver to a webhook (tools/webhook-receiver.py on 127.0.0.1: HTTP, DNS lookup, signatures),
# answer a metrics scrape and stop cleanly on SIGTERM within TimeoutStopSec.
# As root; the unit's user and state directory must exist (tools/check-deb.sh runs it after
# installing the package). BRACELET defaults to /usr/bin/bracelet (not under /tmp, which the sandbox
# replaces); UNIT to the package's unit file.
#
# What is rebuilt, read from the installed unit where it names a value: User=/Group= (setpriv),
# NoNewPrivileges=, CapabilityBoundingSet= and AmbientCapabilities= (setpriv), ProtectSystem=strict
# (/ read-only, the state directory writable), PrivateTmp= (a tmpfs on /tmp), PrivateDevices= (a /dev
# of null, zero, full, random, urandom, tty), ProcSubset=pid and ProtectProc=invisible (a proc mount
# with subset=pid,hidepid=invisible), PrivateMounts= (a mount namespace), and the system call filter:
# SystemCallFilter= (every line: groups expanded by `systemd-analyze syscall-filter`),
# SystemCallErrorNumber=EPERM and RestrictAddressFamilies= as one seccomp program. Not rebuilt:
# MemoryMax= (cgroups), the Protect* options that only hide kernel files, IPC and UTS namespaces.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "unit-sandbox: run as root" >&2; exit 1; }
bracelet=${1:-/usr/bin/bracelet}
unit=${UNIT:-debian/bracelet.bracelet-gateway.service}
fail() { echo "unit-sandbox: FAIL: $*" >&2; exit 1; }
value() { awk -F= -v key="$1" '$1 == key { sub(/^[^=]*=/, ""); print }' "$unit"; }
getent passwd "$(value User)" >/dev/null || fail "no user $(value User) (install the package first)"
state=/var/lib/$(value StateDirectory)
[ -d "$state" ] || fail "no state directory $state (install the package first)"
work=$(mktemp -d /run/bracelet-sandbox.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() { for p in "${pids[@]}"; do kill $(pgrep -P "$p") "$p" 2>/dev/null || true; done; rm -rf "$work"; rm -f "$state"/sandbox-check.*; }
trap cleanup EXIT

# The seccomp program: allowed calls from the unit's SystemCallFilter= lines, socket() only for the
# families of RestrictAddressFamilies=, everything else the error of SystemCallErrorNumber=.
expand() {  # a group or call -> the calls, recursively
  local item
  for item in "$@"; do
    if [[ $item == @* ]]; then
      expand $(systemd-analyze syscall-filter "$item" | awk 'NR > 1 && !/^ *#/ && NF { print $1 }')
    else echo "$item"; fi
  done
}
allowed=()
while read -r line; do
  if [[ $line == ~* ]]; then
    deny=$(expand ${line#\~} | sort -u)
    mapfile -t allowed < <(printf '%s\n' "${allowed[@]}" | grep -vxF -f <(echo "$deny"))
  else
    mapfile -t allowed < <( (printf '%s\n' "${allowed[@]}"; expand $line) | grep . | sort -u)
  fi
done < <(value SystemCallFilter)
[ "$(value SystemCallErrorNumber)" = EPERM ] || fail "the unit does not return EPERM for refused calls"
{
  echo '#include <errno.h>'
  echo '#include <linux/audit.h>'
  echo '#include <linux/filter.h>'
  echo '#include <linux/seccomp.h>'
  echo '#include <stddef.h>'
  echo '#include <stdio.h>'
  echo '#include <sys/prctl.h>'
  echo '#include <sys/socket.h>'
  echo '#include <sys/syscall.h>'
  echo '#include <unistd.h>'
  echo '#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)'
  echo '#define CALL(n) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, n, 0, 1), ALLOW'
  echo 'int main(int argc, char **argv) {'
  echo '  (void)argc;'
  echo '  struct sock_filter code[] = {'
  echo '    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),'
  echo '    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),'
  echo '    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),'
  echo '    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),'
  echo '    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, '$(( $(value RestrictAddressFamilies | wc -w) * 2 + 2 ))'),'
  echo '    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),'
  for family in $(value RestrictAddressFamilies); do echo "    CALL($family),"; done
  echo '    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EAFNOSUPPORT),'
  echo '    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),'
  for call in "${allowed[@]}"; do printf '#ifdef SYS_%s\n    CALL(SYS_%s),\n#endif\n' "$call" "$call"; done
  echo '    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),'
  echo '  };'
  echo '  struct sock_fprog program = { .len = sizeof code / sizeof code[0], .filter = code };'
  echo '  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program)) { perror("seccomp"); return 111; }'
  echo '  execv(argv[1], argv + 1);'
  echo '  perror("execv");'
  echo '  return 111;'
  echo '}'
} >"$work/seccomp-exec.c"
compiler=$(command -v cc || command -v clang || true)
[ -n "$compiler" ] || fail "no C compiler (cc or the Swift toolchain's clang) for the seccomp helper"
"$compiler" -O1 -o "$work/seccomp-exec" "$work/seccomp-exec.c" || fail "cannot build the seccomp helper"
echo "unit-sandbox: ${#allowed[@]} system calls allowed, socket() for $(value RestrictAddressFamilies)"

user=$(value User) group=$(value Group)
caps=$(value AmbientCapabilities | tr 'A-Z' 'a-z' | sed -e 's/cap_//g' -e 's/\([a-z_]*\)/+\1/g' -e 's/ /,/g')
[ "$(value CapabilityBoundingSet)" = "$(value AmbientCapabilities)" ] || fail "the bounding set is not the ambient set"
[ "$(value NoNewPrivileges)" = yes ] && [ "$(value ProtectSystem)" = strict ] && [ "$(value PrivateTmp)" = yes ] &&
  [ "$(value PrivateDevices)" = yes ] && [ "$(value ProcSubset)" = pid ] && [ "$(value ProtectProc)" = invisible ] &&
  [ "$(value PrivateMounts)" = yes ] || fail "the unit no longer asks for the sandbox rebuilt here"
timeout=$(value TimeoutStopSec)

# A simulated bracelet, outside the sandbox, on a socket the gateway's user may connect to.
install -d -o "$user" -g "$group" "$work/sim"
setpriv --reuid="$user" --regid="$group" --clear-groups "$bracelet" simulate --serve "unix:$work/sim/s.sock" --days 2 --seed 3 --quiet \
  >"$work/sim.log" 2>&1 & pids+=($!)
for _ in $(seq 100); do [ -S "$work/sim/s.sock" ] && break; sleep 0.1; done
[ -S "$work/sim/s.sock" ] || { cat "$work/sim.log" >&2; fail "the simulated bracelet did not start"; }
db=$state/sandbox-check.db
receiver_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 tools/webhook-receiver.py --secret sandbox-check --port "$receiver_port" >"$work/receiver.log" 2>&1 & pids+=($!)
setpriv --reuid="$user" --regid="$group" --clear-groups "$bracelet" gateway enroll --db "$db" --via "unix:$work/sim/s.sock" --user P-SBX --tz UTC \
  >"$work/enroll.log" 2>&1 || { cat "$work/enroll.log" >&2; fail "gateway enroll"; }

BRACELET_WEBHOOK_SECRET=sandbox-check unshare --mount --pid --fork --kill-child=SIGTERM --propagation private sh -euc '
  mount -t proc -o subset=pid,hidepid=invisible proc /proc
  mkdir -p "$1/devs"; for d in null zero full random urandom tty; do touch "$1/devs/$d"; mount --bind "/dev/$d" "$1/devs/$d"; done
  mount -t tmpfs -o mode=755 tmpfs /dev
  for d in null zero full random urandom tty; do touch "/dev/$d"; mount --bind "$1/devs/$d" "/dev/$d"; done
  mount -t tmpfs -o mode=1777 tmpfs /tmp
  mount --bind "$(dirname "$6")" "$(dirname "$6")"
  mount -o remount,bind,ro /
  exec setpriv --reuid="$2" --regid="$3" --clear-groups --no-new-privs --inh-caps="$4" --ambient-caps="$4" --bounding-set=-all,"$4" \
    "$1/seccomp-exec" "$5" gateway run --db "$6" --webhook "http://localhost:$7/in" --metrics 127.0.0.1:0 --interval 3600
' sandbox "$work" "$user" "$group" "$caps" "$bracelet" "$db" "$receiver_port" >"$work/gateway.log" 2>&1 & outer=$!
pids+=($outer)
for _ in $(seq 50); do gateway=$(pgrep -P "$outer" || true); [ -n "$gateway" ] && break; sleep 0.1; done
[ -n "$gateway" ] || { cat "$work/gateway.log" >&2; fail "the sandboxed gateway did not start"; }
for _ in $(seq 600); do
  grep -q "synced" "$work/gateway.log" && grep -q "^accepted" "$work/receiver.log" && break
  kill -0 "$outer" 2>/dev/null || break
  sleep 0.2
done
grep -q "synced" "$work/gateway.log" || { cat "$work/gateway.log" >&2; fail "the sandboxed gateway did not sync the simulated bracelet"; }
url=$(sed -n 's/.*metrics on \(http[^ ]*\).*/\1/p' "$work/gateway.log" | head -1)
port=${url##*:}; port=${port%%/*}
scrape=$(exec 3<>"/dev/tcp/127.0.0.1/$port"; printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3; timeout 5 cat <&3) || fail "no answer from $url"
grep -q '^bracelet_syncs_total 1$' <<<"$scrape" || { echo "$scrape" >&2; fail "metrics"; }
sleep 1
lines=$(grep -c "^accepted" "$work/receiver.log" || true)
[ "$lines" -gt 0 ] || { cat "$work/gateway.log" "$work/receiver.log" >&2; fail "nothing delivered to the webhook"; }
stopped=$(date +%s.%N)
kill -TERM "$gateway"
wait "$outer" || { cat "$work/gateway.log" >&2; fail "the gateway did not exit 0 on SIGTERM"; }
took=$(echo "$(date +%s.%N) - $stopped" | bc)
[ "$(echo "$took < ${timeout%s}" | bc)" = 1 ] || fail "SIGTERM took $took s, above TimeoutStopSec=$timeout"
grep -q "stopped by SIGTERM" "$work/gateway.log" || { cat "$work/gateway.log" >&2; fail "no clean stop"; }
echo "unit-sandbox: synced, $lines entries delivered to the webhook, metrics at $url, stopped by SIGTERM in $(printf %.1f "$took") s"
