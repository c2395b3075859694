#!/bin/bash
# Link security learned from what a device answers, however the device is named, run inside the
# ble-vm guest: by tools/ble-vm/suite-guest.sh (one line) or alone with
#   sudo BRACELET=$PWD/.build/release/bracelet tools/ble-vm/run.sh tools/ble-vm/link-security.sh [CASE...]
# hci1 is the simulated device (bracelet simulate --serve hci:hci1), hci0 the gateway running
# `bracelet listen` at its default security (auto). CASEs (default: all):
#   fast       a heart-rate strap that needs no security: listen --device ADDR, with --address-type
#              public and without it, prints its first sample within 5 s of its start (no scan when
#              the address type is given; the scan without it ends at the strap's first report);
#   secured    a strap that lets only an encrypted (authenticated) link subscribe
#              (--measurement-security encrypted|authenticated): with and without --address-type,
#              listen is refused once (0x0F: pairs Just Works on the live link; 0x05: pairs with the
#              passkey on a new link set up for it) and streams;
#   advice     every refusal's advice, followed, works: --security authenticated against that strap
#              (it can only pair Just Works) ends with exit 2 and says to leave out --security, and
#              left out the strap streams; --security none ends with exit 2 naming --security auto or
#              encrypted, and --security encrypted then streams;
#   bracelet   a passkey bracelet and a Just Works bracelet (--pairing passkey|just-works), each with
#              and without --address-type: listen learns the level from the bracelet's refusal of
#              its first write (0x05: a new link set up for the passkey; 0x0F: Just Works on the live
#              link), pairs, and ends its sync with exit 0.
# and, only when named (on Debian's 6.12 kernel, on which a gateway may close a socket after its link
# dropped: see pairing.sh's header; suite.sh runs it in its second boot, newer-kernel-guest.sh):
#   gateway    the strap that needs encryption, enrolled with and without --address-type, kept by
#              one `gateway run` each (until 10 values are kept, and for 30 s from the first):
#              every Heart Rate Measurement that reached hci0 (its HCI trace) is kept, none more
#              than 3 s after the one before; `gateway status --json` while it streams gives
#              samples_kept, battery, serial; the JSON Lines sink gets daily versions whose latest
#              averageBPM is the stream's mean within 2 (tools/ble-vm/strap-kept.py judges); and the
#              enrolment keeps the link it was secured to (encrypted).
#              BLE_VM_KERNEL=linux-image-6.12.117+deb12-amd64 tools/ble-vm/run.sh tools/ble-vm/link-security.sh gateway
# Prints "ok" or "FAIL" per check with the seconds it took; the exit status is the number of failures.
set -uo pipefail
CASES=" $* "
wants() { [ "$CASES" = "  " ] && [ "$1" != gateway ] || [[ "$CASES" == *" $1 "* ]]; }
B=$BRACELET
W=/tmp/link-security
mkdir -p "$W" "$OUT/link-security"
trap 'cp -a "$W"/. "$OUT"/link-security/ 2>/dev/null' EXIT
PEER=00:AA:01:01:00:01
GATEWAY=00:AA:01:00:00:00
failures=0
LABEL=link
SIM_HISTORY=(--days 1 --seed 5)
. "$REPO/tools/ble-vm/guest-lib.sh"  # ok, fail, step, start_sim, stop_sim, strap_listen, within, links, no_links
. "$REPO/tools/ble-vm/btmon-capture.sh"  # btmon_start, btmon_stop (the gateway case's trace)
now() { date +%s.%N; }
# forget_everything: no link left over from the case before (no_links), and no bond on either side.
forget_everything() {
  no_links
  "$B" unpair $PEER --adapter hci0 > /dev/null 2>&1
  "$B" unpair $GATEWAY --adapter hci1 > /dev/null 2>&1
}
# secured_strap NAME LEVEL: a new strap on hci1 that lets only an encrypted or authenticated link
# subscribe (pairing Just Works or with the passkey), no bonds on either side.
secured_strap() {
  forget_everything
  start_sim "sim-$1.log" --serve hci:hci1 --profile heart-rate --measurement-security "$2" || exit 99
}


forget_everything
if wants fast; then
  step "fast: a strap that needs no security, at the default security, first sample within 5 s"
  start_sim sim-fast.log --serve hci:hci1 --profile heart-rate || exit 99
  for how in "--address-type public" ""; do
    name=fast${how:+-typed}
    # shellcheck disable=SC2086
    strap_listen "$name" $how
    if [ $rc -eq 130 ] && [ "$samples" -ge 3 ] && within 5 && ! grep -q 'pairing\|paired' "$W/$name.err"; then
      ok "listen ${how:-without --address-type}: first sample ${first} s after start (load $(cut -d' ' -f1 /proc/loadavg) in the guest), $samples samples, no pairing, Ctrl-C exit $rc"
    else
      fail "listen ${how:-without --address-type}: exit $rc (130 expected), $samples sample(s), first after ${first:-never} s (5 s allowed)"
      tail -5 "$W/$name.err"
    fi
  done
  stop_sim
fi

if wants secured; then
  # The strap answers the CCCD write with 0x0F Insufficient Encryption, and listen raises BT_SECURITY
  # to medium on the live link (Just Works) and subscribes again; or with 0x05 Insufficient
  # Authentication, and listen ends that link (set up NoInputNoOutput, as a strap has no keyboard: the
  # kernel takes the pairing capability at link set-up, so raised there the pairing fails), sets up
  # the next one KeyboardOnly, pairs with the passkey and subscribes.
  for level in encrypted authenticated; do
    if [ $level = encrypted ]; then code='Insufficient Encryption (0x0F)'; said='link raised to encrypted'
    else code='Insufficient Authentication (0x05)'; said='reconnecting to pair with the passkey first'; fi
    step "secured: a strap that lets only an $level link subscribe: listen gets $code, pairs, streams, however named"
    for how in "--address-type public" ""; do
      name=$level${how:+-typed}
      secured_strap "$name" $level
      # shellcheck disable=SC2086
      strap_listen "$name" $how
      refused=$(grep -c 'refused .* not encrypted' "$W/sim-$name.log")
      if [ $rc -eq 130 ] && [ "$samples" -ge 3 ] && [ "$refused" -eq 1 ] && grep -q "answered $code.*$said" "$W/$name.err"; then
        ok "listen ${how:-without --address-type}: refused once ($code), $said, $samples samples, first after $first s"
      else
        fail "listen ${how:-without --address-type}: exit $rc (130 expected), $samples sample(s), $refused refusal(s)"
        tail -5 "$W/$name.err"; tail -5 "$W/sim-$name.log"
      fi
      stop_sim
    done
  done
fi

if wants advice; then
  step "advice: each refusal's advice, followed, gets samples"
  secured_strap advice encrypted
  strap_listen advice-authenticated --address-type public --security authenticated
  if [ $rc -eq 2 ] && [ "$samples" -eq 0 ] && grep -q 'refused to pair for the encrypted and authenticated link --security asked for.*Leave out --security' "$W/advice-authenticated.err"; then
    ok "--security authenticated against a Just Works strap: exit 2, says to leave out --security"
    strap_listen advice-authenticated-followed --address-type public
    if [ $rc -eq 130 ] && [ "$samples" -ge 3 ]; then ok "followed (no --security): $samples samples, first after $first s"
    else fail "followed (no --security): exit $rc, $samples sample(s)"; tail -3 "$W/advice-authenticated-followed.err"; fi
  else
    fail "--security authenticated against a Just Works strap: exit $rc, $samples sample(s)"; tail -3 "$W/advice-authenticated.err"
  fi
  stop_sim
  secured_strap advice-none encrypted
  strap_listen advice-none --address-type public --security none
  if [ $rc -eq 2 ] && [ "$samples" -eq 0 ] && grep -q 'requires an encrypted link.*--security auto.*or --security encrypted' "$W/advice-none.err"; then
    ok "--security none against a strap that needs encryption: exit 2, names --security auto or encrypted"
    strap_listen advice-none-followed --address-type public --security encrypted
    if [ $rc -eq 130 ] && [ "$samples" -ge 3 ] && grep -q 'encrypted (unauthenticated).*paired and bonded now' "$W/advice-none-followed.err"; then
      ok "followed (--security encrypted): paired Just Works before the first write, $samples samples, first after $first s"
    else fail "followed (--security encrypted): exit $rc, $samples sample(s)"; tail -3 "$W/advice-none-followed.err"; fi
  else
    fail "--security none against a strap that needs encryption: exit $rc, $samples sample(s)"; tail -3 "$W/advice-none.err"
  fi
  stop_sim
fi

if wants bracelet; then
  step "bracelet: the level is learned from the bracelet's refusal, with and without --address-type"
  for pairing in passkey just-works; do
    if [ $pairing = passkey ]; then link='encrypted and authenticated'; code='Insufficient Authentication (0x05)'
    else link='encrypted (unauthenticated)'; code='Insufficient Encryption (0x0F)'; fi
    for how in "--address-type public" ""; do
      forget_everything
      name=bracelet-$pairing${how:+-typed}
      start_sim "sim-$name.log" --serve hci:hci1 --pairing $pairing || exit 99
      t=$(now)
      # shellcheck disable=SC2086
      "$B" listen --adapter hci0 --device $PEER $how --exit-after-sync > /dev/null 2> "$W/$name.err"
      rc=$?
      if [ $rc -eq 0 ] && grep -q "$code" "$W/$name.err" && grep -q "link $link.*paired and bonded now" "$W/$name.err"; then
        ok "$pairing bracelet, listen ${how:-without --address-type}: answered $code, paired ($link), exit 0 ($(printf '%.1f' "$(echo "$(now) - $t" | bc)") s)"
      else
        fail "$pairing bracelet, listen ${how:-without --address-type}: exit $rc"; tail -5 "$W/$name.err"; tail -3 "$W/sim-$name.log"
        echo "  links: hci0 $(links 0 | tr '\n' ' ')hci1 $(links 1 | tr '\n' ' ')"; dmesg | grep -i bluetooth | tail -3
      fi
      stop_sim
    done
  done
fi

if wants gateway; then
  step "gateway: a strap that needs encryption, enrolled with and without --address-type, is kept while it streams"
  # First with --address-type until 10 values are kept; then without it for 30 s from its first kept
  # value (some 40 values, and several daily versions delivered: recomputed every --interval 10 s).
  # What the strap sent the gateway is read from hci0's HCI trace (the ATT notifications its host
  # got), which strap-kept.py holds the status, the database's count and the sink against.
  for how in "--address-type public" ""; do
    name=gateway${how:+-typed}
    if [ -n "$how" ]; then until_kept=10; for_seconds=0; versions=1; else until_kept=1; for_seconds=30; versions=3; fi
    secured_strap "$name" encrypted
    # shellcheck disable=SC2086
    "$B" gateway enroll --db "$W/$name.db" --device $PEER $how --tz UTC --age 40 > "$W/$name-enroll.log" 2>&1
    btmon_start "$W/$name.btsnoop"
    t=$(now)
    "$B" gateway run --db "$W/$name.db" --adapter hci0 --jsonl "$W/$name.jsonl" --interval 10 > "$W/$name.log" 2>&1 &
    G=$!
    kept=0; kept_at=
    for _ in $(seq 150); do
      sleep 1
      "$B" gateway status --db "$W/$name.db" --json > "$W/$name-status.json" 2>/dev/null
      kept=$(grep -oE '"samples_kept" ?: ?[0-9]+' "$W/$name-status.json" | grep -oE '[0-9]+$' | head -1)
      [ -z "$kept_at" ] && [ "${kept:-0}" -ge "$until_kept" ] && kept_at=$(now)
      # Stopped once a daily version was delivered while it streams: the one its session's end
      # recomputes is committed to the outbox but may not be sent before the stop (sent at the next start).
      [ -n "$kept_at" ] && awk "BEGIN{exit !($(now) - $kept_at >= $for_seconds)}" \
        && grep -q '"daily:daily"' "$W/$name.jsonl" 2>/dev/null && break
    done
    kill -TERM $G; wait $G; grc=$?
    btmon_stop
    "$B" gateway status --db "$W/$name.db" --json > "$W/$name-status-end.json" 2>&1
    security=$(grep -oE '"link_security" ?: ?("[a-z]+"|null)' "$W/$name-status-end.json" | head -1)
    if [ -n "$kept_at" ] && echo "$security" | grep -q '"encrypted"' && [ $grc -eq 0 ]; then
      ok "gateway, enrolled ${how:-without --address-type}: $until_kept value(s) kept $(printf '%.1f' "$(echo "$kept_at - $t" | bc)") s after its start, $kept after $(printf '%.1f' "$(echo "$(now) - $t" | bc)") s, enrolment requires an encrypted link, SIGTERM exit 0"
    else
      fail "gateway, enrolled ${how:-without --address-type}: ${kept:-no} samples kept, ${security:-no link_security}, exit $grc"; tail -5 "$W/$name.log"
    fi
    # The Heart Rate Measurements hci0's host received (Wireshark names them from the GATT discovery in the trace).
    tshark -r "$W/$name.btsnoop" -Y 'hci_mon.adapter_id == 0 && btatt.opcode == 0x1b && btatt.heart_rate_measurement.flags' -T fields \
      -e frame.time_epoch -e btatt.heart_rate_measurement.value.8 -e btatt.heart_rate_measurement.value.16 \
      -e btatt.heart_rate_measurement.flags.sensor_contact_status.contact > "$W/$name-notifications.tsv" 2> "$W/$name-tshark.err"
    python3 "$REPO/tools/ble-vm/strap-kept.py" "$W/$name-notifications.tsv" "$W/$name-status.json" "$W/$name-status-end.json" \
      "$W/$name.jsonl" HRSIM001 $versions > "$W/$name-kept.txt" 2>&1
    while IFS= read -r line; do
      case "$line" in "ok   "*) ok "gateway, ${how:-untyped}: ${line#ok   }";; "FAIL "*) fail "gateway, ${how:-untyped}: ${line#FAIL }";; *) fail "strap-kept.py: $line";; esac
    done < "$W/$name-kept.txt"
    [ -s "$W/$name-kept.txt" ] || fail "strap-kept.py printed nothing"
    stop_sim
  done
fi
forget_everything

echo "---- link security: $failures failure(s)"
exit $failures
