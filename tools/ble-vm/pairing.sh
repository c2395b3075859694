#!/bin/bash
# Pairing and the encrypted link on the kernel's own stack (protocol-specs §11), run inside the
# ble-vm guest: by tools/ble-vm/suite-guest.sh (one line) or alone with
#   sudo tools/ble-vm/run.sh tools/ble-vm/pairing.sh
# hci1 is a simulated passkey bracelet (bracelet simulate --pairing), hci0 the gateway. Proves: pairing
# with passkey 999999 and a sync equal to the same sync over unix:; an HCI trace (btmon -w) that lost
# no packet (tools/ble-vm/btmon-capture.sh) with the gateway's Encryption Change before its first ATT
# packet when the level is known before connecting (--security authenticated); at the default
# security (auto) the level is learned from the bracelet's refusal of its first write (0x05) and the
# next link is secured for it: a bonded reconnect without pairing, also after the
# bracelet restarts with its --bond-dir; a wrong passkey, a refused pairing and a lost bond each end with
# exit 2 and a message saying what to do; a gateway that does not encrypt gets no write through
# (straps that require a secured link: tools/ble-vm/link-security.sh);
# beside dbus-daemon and bluetoothd (case 8), listen's D-Bus agent gives bluetoothd the passkey (one
# management reply, bluetoothd's), bluetoothd keeps the bond and, restarted, a second listen is bonded.
# Prints "ok" or "FAIL" per check; the exit status is the number of failures.
#
# The lost-bond case (4) runs unless the guest kernel is Debian's 6.1: there, closing an LE L2CAP
# socket after the kernel processed its link's Disconnection Complete deletes the link's hci_chan a
# second time ("list_del corruption, ...->prev is LIST_POISON2", kernel BUG at lib/list_debug.c:56,
# in hci_chan_del from l2cap_chan_put from l2cap_sock_release), which wedges the VM. 6.1.192 deletes
# the hci_chan both in hci_conn_cleanup (at the Disconnection Complete) and in l2cap_conn_free (when
# the last channel's socket is released); upstream "Bluetooth: L2CAP: Fix corrupted list in
# hci_chan_del" (ab4eedb790ca) is not in it. A lost bond always takes that path: the gateway learns
# that the bracelet rejected its stored key only from the disconnection (the kernel sends no
# management event for the failed Encryption Change), and the bracelet's socket is open too. Measured:
# the case BUGs on 6.1.192 (both sides, 1 of 1 runs) and passes on Debian's 6.12.117 with the same
# binary, so suite.sh runs it on that kernel (`lost-bond-only`: cases 0, 1 without transfer, 4).
# `lost-bond` forces it on any kernel; `quick` skips the transfer of case 1; `bluetoothd-only` runs
# case 0 and 8 alone.
set -uo pipefail
CASES=" $* "
wants() { [[ "$CASES" == *" $1 "* ]]; }
wants lost-bond-only && CASES+=" quick lost-bond "
# Debian's 6.1 kernels double-delete an hci_chan when a socket outlives its link (see the header).
case "$(uname -r)" in 6.1.*) ;; *) CASES+=" lost-bond ";; esac
known() { echo "KNOWN-FAIL pairing: $1 not run on kernel $(uname -r): it BUGs in hci_chan_del when a socket closes after its link dropped (see the header; suite.sh runs it on a newer kernel); not counted"; }
B=$BRACELET
. "$REPO/tools/ble-vm/btmon-capture.sh"
W=/tmp/pairing
mkdir -p "$W"
trap 'cp -a "$W"/. "$OUT"/pairing/ 2>/dev/null' EXIT
mkdir -p "$OUT/pairing"
PEER=00:AA:01:01:00:01
GATEWAY=00:AA:01:00:00:00
failures=0
LABEL=pairing
SIM_HISTORY=(--days 1 --seed 11)
. "$REPO/tools/ble-vm/guest-lib.sh"  # ok, fail, step, start_sim, stop_sim, same_summary, no_links
# listen LOG [options]: a sync of the bracelet on hci1 from hci0; sets rc.
# Default security (auto): the first link is unencrypted, the bracelet refuses the first write with
# 0x05, and the next link is set up for passkey entry and secured before anything is sent.
# Each on a link of its own (no_links): a bonded reconnect must set one up.
listen() {
  local log=$1; shift
  no_links
  "$B" listen --adapter hci0 --device $PEER --address-type public --tz UTC --age 40 --exit-after-sync "$@" > /dev/null 2> "$W/$log"
  rc=$?
  sed 's/^/  | /' "$W/$log" | grep -v 'stored\|progress' | tail -6
}
forget_everything() {
  "$B" unpair $PEER --adapter hci0 > /dev/null 2>&1
  "$B" unpair $GATEWAY --adapter hci1 > /dev/null 2>&1
}

step "0. the kernel can do LE pairing (SMP needs its ECDH, whose keys come from the default RNG)"
# guest-setup.sh loads the DRBG: the kernel cannot autoload it here (its modules are not in /lib/modules);
# newer kernels have it built in. Either way its algorithms are registered.
grep -q '^driver *: drbg_' /proc/crypto && ok "the default RNG (drbg) is registered" || fail "drbg is not registered: SMP cannot make ECDH keys"
forget_everything
DAY=$(date -u -d yesterday +%F)


# 8: pairing beside dbus-daemon and bluetoothd. `bluetoothd-only` runs just this case (after 0).
bluetoothd_case() {
  step "8. beside dbus-daemon and bluetoothd: listen's Agent1 gives the passkey, bluetoothd keeps the bond"
  forget_everything
  mkdir -p /run/dbus
  pgrep -x dbus-daemon > /dev/null || dbus-daemon --system --fork
  # bluetoothd manages the gateway's adapter only, as on a real gateway, where the bracelet is another
  # device. Managing both ends of the virtual radio it asks the one default agent for the passkey of
  # both sides; the bracelet's side asks first (LE Secure Connections), and bluetoothd serves one agent
  # request at a time, so the gateway's request fails with EBUSY and a negative reply (BlueZ
  # src/agent.c; seen in this VM). MaxControllers=1 alone does not keep hci1 out: bluetoothd 5.66
  # registers both indexes of its start-up list before counting. So hci1 is held in an HCI user
  # channel (exclusive: it leaves the management interface) while bluetoothd starts with hci0 only;
  # released, it comes back, and bluetoothd, at its maximum of one, ignores it.
  printf '[General]\nMaxControllers=1\n' > "$W/main.conf"
  start_bluetoothd() {
    btmgmt --index 1 power off > /dev/null
    rm -f "$W/release-hci1"
    python3 -c '
import ctypes, os, struct, sys, time
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.socket(31, 3, 1)  # AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI
address = struct.pack("<HHH", 31, 1, 1)  # sockaddr_hci: family, hci1, HCI_CHANNEL_USER
if fd < 0 or libc.bind(fd, address, len(address)) != 0:
    sys.exit("cannot hold hci1: " + os.strerror(ctypes.get_errno()))
print("held", flush=True)
while not os.path.exists(sys.argv[1]): time.sleep(0.05)
' "$W/release-hci1" > "$W/hold-hci1.log" 2>&1 &
    local hold=$!
    for _ in $(seq 100); do grep -q held "$W/hold-hci1.log" && break; sleep 0.1; done
    grep -q held "$W/hold-hci1.log" || { fail "hci1 could not be held: $(cat "$W/hold-hci1.log")"; touch "$W/release-hci1"; }
    bluetoothd -n -d -f "$W/main.conf" >> "$W/bluetoothd.log" 2>&1 &
    BTD=$!
    local up=
    for _ in $(seq 100); do
      if dbus-send --system --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.NameHasOwner string:org.bluez 2>/dev/null | grep -q true \
         && btmgmt --index 0 info 2>/dev/null | grep -q 'current settings: powered'; then up=1; break; fi
      sleep 0.1
    done
    [ -n "$up" ] || { fail "bluetoothd did not come up with hci0 powered"; tail -5 "$W/bluetoothd.log"; }
    touch "$W/release-hci1"
    wait $hold
    for _ in $(seq 50); do btmgmt --index 1 power on > /dev/null 2>&1 && break; sleep 0.1; done
  }
  stop_bluetoothd() { kill $BTD 2>/dev/null; wait $BTD 2>/dev/null; btmgmt --index 0 power on > /dev/null; }
  start_bluetoothd
  start_sim sim-btd.log --serve hci:hci1 --pairing passkey --bond-dir "$W/bonds-btd" || exit 99
  btmon_start "$W/btd.btsnoop"
  listen listen-btd.err
  btmon_stop
  btmon -r "$W/btd.btsnoop" > "$W/btd-btmon.txt" 2>&1
  # The management replies to hci0's passkey request: exactly one, with 999999 (btmon prints 0xf423f).
  replies=$(grep -c 'MGMT Command: User Passkey .*\[hci0\]' "$W/btd-btmon.txt")
  answer=$(grep -A2 'MGMT Command: User Passkey Reply .*\[hci0\]' "$W/btd-btmon.txt" | grep -o 'Passkey: 0x[0-9a-f]*' | head -1)
  if [ $rc -eq 0 ] && grep -q 'passkey 999999 given to bluetoothd' "$W/listen-btd.err" && grep -q 'encrypted and authenticated.*paired and bonded now' "$W/listen-btd.err" \
     && grep -q 'Calling Agent.RequestPasskey' "$W/bluetoothd.log" && [ "$replies" = 1 ] && [ "$answer" = "Passkey: 0xf423f" ]; then
    ok "paired beside bluetoothd: Agent1.RequestPasskey answered, one management reply on hci0 ($answer = 999999)"
  else
    fail "pairing beside bluetoothd: exit $rc, $replies management passkey repl(ies) ${answer:-without a passkey}"
    grep -i 'agent\|passkey' "$W/bluetoothd.log" | tail -4; grep 'bluetoothd\|agent' "$W/listen-btd.err" | head -3
  fi
  info=/var/lib/bluetooth/$GATEWAY/$PEER/info
  cp "$info" "$W/bluetoothd-bond-info" 2>/dev/null
  grep -q 'Default agent cleared' "$W/bluetoothd.log" && ok "listen unregistered its agent when it ended" || fail "bluetoothd never cleared listen's default agent"
  stop_sim
  stop_bluetoothd
  if grep -q 'LongTermKey\]' "$info" 2>/dev/null; then
    start_bluetoothd
    start_sim sim-btd-restart.log --serve hci:hci1 --pairing passkey --bond-dir "$W/bonds-btd" || exit 99
    step "8b. bluetoothd and the bracelet restarted (bluetoothd loads the bonds it keeps into the kernel): a second listen reconnects bonded"
    listen listen-btd-bonded.err
    if [ $rc -eq 0 ] && grep -q 'bonded before, no pairing' "$W/listen-btd-bonded.err" && ! grep -q 'passkey requested' "$W/listen-btd-bonded.err"; then
      ok "bonded reconnect beside a restarted bluetoothd ($(grep -c 'LongTermKey\]' "$info") key section(s) in $info)"
    else
      fail "bonded reconnect beside bluetoothd: exit $rc"
    fi
    stop_bluetoothd
  else
    fail "bluetoothd kept no long term key in $info: $(ls -R /var/lib/bluetooth 2>&1 | head -5)"
  fi
  stop_sim
  rm -rf "/var/lib/bluetooth/$GATEWAY/$PEER"
}
if wants bluetoothd-only; then bluetoothd_case; echo "---- pairing: $failures failure(s)"; exit $failures; fi

if ! wants quick; then
step "1. pair with passkey 999999 and sync; the same summary as over unix:; encrypted before the first ATT packet (--security authenticated)"
btmon_start "$W/pair.btsnoop"
while [ "$(date +%S)" -gt 40 ]; do sleep 1; done
start_sim sim-pair.log --serve hci:hci1 --pairing passkey --bond-dir "$W/bonds" || exit 99
PAIR_SIM=$SIM
start_sim sim-unix.log --serve unix:/tmp/pairing.sock || exit 99
UNIX_SIM=$SIM
"$B" listen --via unix:/tmp/pairing.sock --db "$W/unix.db" --tz UTC --age 40 --exit-after-sync > /dev/null 2> "$W/listen-unix.err" &
UNIX_LISTEN=$!
listen listen-pair.err --db "$W/pair.db" --security authenticated
if [ $rc -eq 0 ] && grep -q 'passkey requested' "$W/listen-pair.err" && grep -q 'encrypted and authenticated.*paired and bonded now' "$W/listen-pair.err"; then
  ok "listen paired with passkey 999999 (authenticated link) and synced"
else
  fail "pair + sync: exit $rc"; cat "$W/listen-pair.err" | head; tail "$W/sim-pair.log"; dmesg | grep -i 'bluetooth' | tail -5
fi
btmon_stop
drops=$(btmon_drops)
wait $UNIX_LISTEN
SIM=$UNIX_SIM; stop_sim
same_summary "$DAY" pair unix "over the paired link and over unix:"
# The gateway's (hci0) first successful Encryption Change (0x08, or 0x59 v2) and its first ATT PDU,
# on the same connection handle; only from a trace the kernel dropped nothing from.
trace() { tshark -r "$W/pair.btsnoop" -Y "hci_mon.adapter_id == 0 && ($1)" -T fields -e frame.number -e "$2" 2>/dev/null | head -1; }
read -r enc enc_handle <<< "$(trace '(bthci_evt.code == 0x08 || bthci_evt.code == 0x59) && bthci_evt.status == 0 && bthci_evt.encryption_enable == 1' bthci_evt.connection_handle)"
read -r att att_handle <<< "$(trace 'btatt' bthci_acl.chandle)"
natt=$(tshark -r "$W/pair.btsnoop" -Y 'btatt' -T fields -e frame.number 2>/dev/null | wc -l)
if [ "$drops" = "?" ]; then
  fail "btmon trace: cannot tell whether it is complete (no sock_rcvqueue_full trace event in this kernel)"
elif [ "$drops" != 0 ]; then
  fail "btmon trace incomplete: the kernel dropped $drops monitor packet(s) for btmon (its receive queue was full)"
elif [ -n "$enc" ] && [ -n "$att" ] && [ "$enc" -lt "$att" ] && [ "$enc_handle" = "$att_handle" ]; then
  ok "btmon trace (0 packets lost): Encryption Change on hci0 handle $enc_handle in frame $enc, first of $natt ATT packets in frame $att"
else
  fail "btmon trace (0 packets lost): Encryption Change on hci0 frame '${enc:-none}' handle '${enc_handle:-}', first ATT frame '${att:-none}' handle '${att_handle:-}'"
fi

else
step "1. (quick) pair with passkey 999999, no transfer"
start_sim sim-pair.log --serve hci:hci1 --pairing passkey --bond-dir "$W/bonds" || exit 99
PAIR_SIM=$SIM
listen listen-pair.err
grep -q 'paired and bonded now' "$W/listen-pair.err" && ok "paired with passkey 999999" || fail "quick pairing: exit $rc"
fi

step "2. a second listen reconnects bonded, without pairing"
SIM=$PAIR_SIM
listen listen-bonded.err
if [ $rc -eq 0 ] && ! grep -q 'passkey requested' "$W/listen-bonded.err" && grep -q 'bonded before, no pairing' "$W/listen-bonded.err"; then
  ok "bonded reconnect: encrypted with the stored key, no passkey asked"
else
  fail "bonded reconnect: exit $rc"
fi

step "3. the bracelet restarts with its --bond-dir: still bonded"
stop_sim
start_sim sim-restart.log --serve hci:hci1 --pairing passkey --bond-dir "$W/bonds" || exit 99
listen listen-restart.err
if [ $rc -eq 0 ] && grep -q 'bonded before, no pairing' "$W/listen-restart.err" && grep -q '1 bond(s) loaded' "$W/sim-restart.log"; then
  ok "bond kept across the simulator's restart ($(wc -l < "$W/bonds/long-term-keys") key(s) in --bond-dir)"
else
  fail "bond across restart: exit $rc"
fi

stop_sim
if wants lost-bond; then
step "4. the bracelet forgot the gateway (empty --bond-dir): lost bond, exit 2, then unpair and pair again"
start_sim sim-lost.log --serve hci:hci1 --pairing passkey --bond-dir "$W/bonds-reset" || exit 99
listen listen-lost.err
if [ $rc -eq 2 ] && grep -q "no longer knows this gateway.*Run \`bracelet unpair $PEER\`" "$W/listen-lost.err" && ! grep -q 'erased' "$W/sim-lost.log"; then
  ok "lost bond: exit 2: $(grep -o 'no longer knows[^.]*' "$W/listen-lost.err" | head -1)"
else
  fail "lost bond: exit $rc"
fi
"$B" unpair $PEER --adapter hci0 > "$W/unpair.out" 2>&1
listen listen-repair.err
if grep -q 'removed the bond' "$W/unpair.out" && [ $rc -eq 0 ] && grep -q 'paired and bonded now' "$W/listen-repair.err"; then
  ok "after \`bracelet unpair\` the next sync pairs again: $(cat "$W/unpair.out")"
else
  fail "unpair + re-pair: exit $rc; $(cat "$W/unpair.out")"
fi
stop_sim
else known "lost bond (4)"; fi
if wants lost-bond-only; then echo "---- pairing: $failures failure(s)"; exit $failures; fi

forget_everything
start_sim sim-wrong.log --serve hci:hci1 --pairing passkey --bond-dir "$W/bonds-wrong" || exit 99
if true; then
step "5. a wrong passkey is refused with exit 2"
listen listen-wrong.err --passkey 123456
if [ $rc -eq 2 ] && grep -q 'passkey is wrong' "$W/listen-wrong.err" && ! grep -q 'command ' "$W/sim-wrong.log"; then
  ok "--passkey 123456: exit 2: $(grep -o 'pairing with.*wrong' "$W/listen-wrong.err" | head -1)"
else
  fail "wrong passkey: exit $rc"
fi
else known "wrong passkey (5)"; fi

step "6. a gateway that does not encrypt gets no write through (ATT 0x05)"
listen listen-clear.err --security none
if [ $rc -ne 0 ] && grep -qi 'refused write' "$W/sim-wrong.log" && ! grep -q 'command ' "$W/sim-wrong.log" \
   && grep -q 'requires an authenticated link.*--security auto.*or --security authenticated' "$W/listen-clear.err"; then
  ok "--security none against a passkey bracelet: exit $rc, every write refused ($(grep -im1 'refused write' "$W/sim-wrong.log")), and listen says to secure the link"
else
  fail "unencrypted writes: exit $rc; $(grep -c 'command ' "$W/sim-wrong.log") command(s) executed"
fi
stop_sim

if true; then
step "7. a bracelet that refuses to pair (--pairing none): exit 2"
forget_everything
start_sim sim-none.log --serve hci:hci1 --pairing none || exit 99
listen listen-refused.err --security encrypted
if [ $rc -eq 2 ] && grep -q 'refused to pair' "$W/listen-refused.err"; then
  ok "pairing refused: exit 2"
else
  fail "refused pairing: exit $rc"
fi
stop_sim
else known "refused pairing (7)"; fi

bluetoothd_case
forget_everything
dmesg | grep -i 'ecdh\|smp\|security' | head -3

echo "---- pairing: $failures failure(s)"
exit $failures
