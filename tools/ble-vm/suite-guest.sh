#!/bin/bash
# The live-path checks, run inside the ble-vm guest by tools/ble-vm/suite.sh (see there for what
# each proves). hci1 (00:AA:01:01:00:01) is the simulated bracelet, hci0 the gateway. Every check
# prints "ok" or "FAIL" with what differed; the exit status is the number of failures.
set -uo pipefail
B=$BRACELET
# Work on the guest's tmpfs (SQLite's shared memory cannot be mapped on the 9p results share);
# everything is copied to $OUT at the end.
W=/tmp/suite
mkdir -p "$W"
trap 'cp -a "$W"/. "$OUT"/ 2>/dev/null' EXIT
PEER=00:AA:01:01:00:01
failures=0
now() { date +%s.%N; }
since() { printf '%.1f' "$(echo "$(now) - $1" | bc)"; }
LABEL=
SIM_HISTORY=(--days 3 --seed 7)
. "$REPO/tools/ble-vm/guest-lib.sh"  # ok, fail, step, start_sim, stop_sim, same_summary

# Files saved by listen --save-dir must be exactly the files the simulator erased (size and CRC-32).
same_files_as_erased() {
  local dir=$1 log=$2 n=0
  for f in "$dir"/*.bin; do
    [ -e "$f" ] || continue
    local name kind size crc
    name=$(basename "$f" .bin); kind=$(echo "$name" | cut -d- -f2); size=$(echo "$name" | cut -d- -f3); crc=$(echo "$name" | cut -d- -f4)
    [ "$(stat -c %s "$f")" = "$size" ] || { echo "  $f is not $size bytes"; return 1; }
    grep -q "erased $kind file of $size bytes, trailing CRC-32 $crc" "$W/$log" || { echo "  $f was never erased by the bracelet"; return 1; }
    n=$((n + 1))
  done
  [ "$n" -gt 0 ] || { echo "  no file saved in $dir"; return 1; }
  echo "  $n file(s) identical to what the bracelet held"
}

# A full past day of the simulated history (the history ends now and spans 3 days).
DAY=$(date -u -d yesterday +%F)

step "1. simulated bracelet on hci1 and on a unix socket, same history (same seed, same start minute)"
while [ "$(date +%S)" -gt 40 ]; do sleep 1; done
t=$(now)
start_sim sim-hci.log --serve hci:hci1 || exit 99
HCI_SIM=$SIM
start_sim sim-unix.log --serve unix:/tmp/bracelet.sock || exit 99
UNIX_SIM=$SIM
echo "  both simulators serving after $(since "$t") s"

# lists_bracelet FILE [FIELD...]: some line of the scan's JSON Lines is the simulated bracelet
# (address, public address type, serial) and holds every FIELD too, in whatever key order.
lists_bracelet() {
  local file=$1 line field; shift
  while IFS= read -r line; do
    for field in "\"address\":\"$PEER\"" '"address_type":"public"' '"serial":"V2SIM001"' "$@"; do
      [[ $line == *"$field"* ]] || continue 2
    done
    return 0
  done < "$file"
  return 1
}

step "2. scan on hci0 lists the bracelet"
t=$(now)
"$B" scan --adapter hci0 --timeout 5 --json > "$W/scan.jsonl" 2> "$W/scan.err"
rc=$?
cat "$W/scan.jsonl"
if [ $rc -eq 0 ] && lists_bracelet "$W/scan.jsonl" '"rssi":null' '"model":"v2"'; then
  ok "scan lists $PEER public v2 V2SIM001 ($(since "$t") s)"
else
  fail "scan (exit $rc) did not list the bracelet: $(cat "$W/scan.err")"
fi

step "3. listen over kernel L2CAP (address type as the scan reported it), recording, into a database"
TYPE=$(grep -o '"address_type":"[a-z]*"' "$W/scan.jsonl" | head -1 | cut -d'"' -f4)
t=$(now)
"$B" listen --adapter hci0 --device $PEER --address-type "${TYPE:-public}" --db "$W/hci.db" --tz UTC --age 40 --record "$W/hci.btsnoop" --exit-after-sync \
  > /dev/null 2> "$W/listen-hci.err"
rc=$?
tail -3 "$W/listen-hci.err"
[ $rc -eq 0 ] && ok "listen over hci0 exited 0 in $(since "$t") s" || fail "listen over hci0 exited $rc"

step "4. the same sync over unix: gives the same summary for $DAY"
t=$(now)
"$B" listen --via unix:/tmp/bracelet.sock --db "$W/unix.db" --tz UTC --age 40 --exit-after-sync > /dev/null 2> "$W/listen-unix.err"
echo "  unix sync exited $? in $(since "$t") s"
same_summary "$DAY" hci unix "over hci and unix"
kill $UNIX_SIM 2>/dev/null; wait $UNIX_SIM 2>/dev/null

step "5. the kernel-path recording: tshark dissects ATT, and it summarizes like the database"
natt=$(tshark -r "$W/hci.btsnoop" -Y btatt -T fields -e btatt.opcode 2>/dev/null | wc -l)
[ "$natt" -gt 100 ] && ok "tshark dissects $natt ATT PDUs" || fail "tshark dissects $natt ATT PDUs"
"$B" summarize "$W/hci.btsnoop" --day "$DAY" --tz UTC --age 40 --format json > "$W/summary-capture.json" 2>&1
if cmp -s "$W/summary-hci.json" "$W/summary-capture.json"; then
  ok "replaying the recording gives the stored samples (summary of $DAY identical)"
else
  fail "capture summary differs from the database's:"; diff "$W/summary-hci.json" "$W/summary-capture.json" | head -20
fi
SIM=$HCI_SIM; stop_sim

step "6. a link drop mid-transfer resumes and ends with the bracelet's exact files"
start_sim sim-drop.log --serve hci:hci1 --fault drop-link-at:150000 || exit 99
t=$(now)
"$B" listen --adapter hci0 --device $PEER --address-type public --save-dir "$W/drop" --exit-after-sync > /dev/null 2> "$W/listen-drop.err"
rc=$?
tail -2 "$W/listen-drop.err"
conns=$(grep -o '[0-9]* connection(s)' "$W/listen-drop.err" | cut -d' ' -f1)
if [ $rc -eq 0 ] && [ "${conns:-0}" -ge 2 ] && grep -q 'dropped by fault' "$W/sim-drop.log" && same_files_as_erased "$W/drop" sim-drop.log; then
  ok "dropped at byte 150000, resumed over $conns connections, files identical ($(since "$t") s)"
else
  fail "drop + resume: exit $rc, ${conns:-?} connection(s)"
fi

step "7. SIGTERM ends listen within 2 s with status 143: mid-transfer (keeping what is committed) and while connecting"
stop_sim
start_sim sim-term.log --serve hci:hci1 --fault slow:20 || exit 99
"$B" listen --adapter hci0 --device $PEER --address-type public --save-dir "$W/term" --exit-after-sync > /dev/null 2> "$W/listen-term.err" &
L=$!
# Mid-transfer: a second after the first file's transfer started (the first link is refused its
# first write and the next one, secured for it, transfers), some 50 packets of 20 ms into it.
for _ in $(seq 600); do grep -qE '^listen: [a-z]+: [0-9]+ bytes(, resuming|$)' "$W/listen-term.err" && break; sleep 0.1; done
sleep 1
t=$(now); kill -TERM $L; wait $L; rc=$?; d=$(since "$t")
erased=$(grep -c 'erased .* file of' "$W/sim-term.log")
saved=$(ls "$W/term" 2>/dev/null | grep -c '\.bin$')
if awk "BEGIN{exit !($d <= 2.0)}" && [ $rc -eq 143 ] && [ "$erased" -le "$saved" ]; then
  ok "mid-transfer SIGTERM: exit $rc after $d s; $saved file(s) saved, $erased erased (never more)"
else
  fail "mid-transfer SIGTERM: exit $rc after $d s; $saved saved, $erased erased"
fi
stop_sim
"$B" listen --adapter hci0 --device 00:AA:01:01:00:99 --address-type public --exit-after-sync > /dev/null 2> "$W/listen-absent.err" &
L=$!
# A second into its connect (the kernel gives up on an absent device after some 10-20 s).
for _ in $(seq 300); do grep -q 'connecting to the bracelet' "$W/listen-absent.err" && break; sleep 0.1; done
sleep 1
t=$(now); kill -TERM $L; wait $L; rc=$?; d=$(since "$t")
awk "BEGIN{exit !($d <= 2.0)}" && [ $rc -eq 143 ] && ok "SIGTERM while connecting to an absent device: exit $rc after $d s" \
  || fail "SIGTERM while connecting: exit $rc after $d s"

step "8. a standard heart-rate sensor: simulate --profile heart-rate on hci1, listen prints its samples with RR"
start_sim sim-hr.log --serve hci:hci1 --profile heart-rate || exit 99
t=$(now)
# No --address-type: listen learns it from the strap's own advertisement (no bracelet service data).
"$B" listen --adapter hci0 --device $PEER --db "$W/hr.db" --tz UTC --age 40 --record "$W/hr.btsnoop" > "$W/listen-hr.jsonl" 2> "$W/listen-hr.err" &
L=$!
for _ in $(seq 1200); do [ "$(grep -c '"rr_ms":\[[0-9]' "$W/listen-hr.jsonl")" -ge 3 ] && break; kill -0 $L 2>/dev/null || break; sleep 0.1; done
kill -INT $L; wait $L; rc=$?
head -3 "$W/listen-hr.jsonl"
grep 'heart-rate sensor\|advertises' "$W/listen-hr.err"
samples=$(grep -c '^{"kind":"hr","t":"[0-9T:.-]*Z","bpm":[0-9]*,"rr_ms":\[[0-9]' "$W/listen-hr.jsonl")
if [ $rc -eq 130 ] && [ "$samples" -ge 3 ] && grep -q 'standard sensor heart-rate, Bracelet Labs HRS-SIM, serial HRSIM001, worn on the chest' "$W/listen-hr.err"; then
  ok "listen heard the heart-rate sensor: $samples samples with RR intervals, Ctrl-C exit $rc ($(since "$t") s)"
else
  fail "heart-rate sensor: exit $rc (130 expected after SIGINT), $samples sample(s) with RR, said what it is: $(grep -c 'standard sensor heart-rate, Bracelet Labs HRS-SIM, serial HRSIM001, worn on the chest' "$W/listen-hr.err"):"
  tail -5 "$W/listen-hr.err"
fi
# The recording replays as the same samples (times aside: listen stamps on arrival, the capture on record).
# (Files, not <(...): the guest has no /dev/fd.)
"$B" replay "$W/hr.btsnoop" --quiet > "$W/replay-hr.jsonl" 2> /dev/null
sed 's/"t":"[^"]*",//' "$W/listen-hr.jsonl" > "$W/listen-hr.untimed"
sed 's/"t":"[^"]*",//' "$W/replay-hr.jsonl" > "$W/replay-hr.untimed"
if [ -s "$W/replay-hr.jsonl" ] && cmp -s "$W/listen-hr.untimed" "$W/replay-hr.untimed"; then
  ok "replay of the sensor's recording prints the same $(wc -l < "$W/replay-hr.jsonl") sample lines"
else
  fail "replay of the sensor's recording differs:"; diff "$W/listen-hr.untimed" "$W/replay-hr.untimed" | head -5
fi
stop_sim

step "9. with dbus-daemon and bluetoothd running (a desktop's or Raspberry Pi's normal state)"
mkdir -p /run/dbus
dbus-daemon --system --fork
bluetoothd -n > "$W/bluetoothd.log" 2>&1 &
BTD=$!
# Until bluetoothd holds its name on the bus and has powered hci0 (at most 10 s).
for _ in $(seq 100); do
  dbus-send --system --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.NameHasOwner string:org.bluez 2>/dev/null | grep -q true \
    && btmgmt --index 0 info 2>/dev/null | grep -q 'current settings: powered' && break
  sleep 0.1
done
start_sim sim-btd.log --serve hci:hci1 --pairing none || exit 99  # pairing beside bluetoothd: pairing.sh
t=$(now)
"$B" scan --adapter hci0 --timeout 5 --json > "$W/scan-btd.jsonl" 2> "$W/scan-btd.err"
rc=$?
grep 'removed the advertisement' "$W/sim-btd.log"
if [ $rc -eq 0 ] && lists_bracelet "$W/scan-btd.jsonl"; then
  ok "scan with bluetoothd lists the bracelet ($(since "$t") s)"
else
  fail "scan with bluetoothd (exit $rc) did not list the bracelet: $(cat "$W/scan-btd.err")"
fi
t=$(now)
"$B" listen --adapter hci0 --device $PEER --address-type public --security none --save-dir "$W/btd" --exit-after-sync > /dev/null 2> "$W/listen-btd.err"
rc=$?
tail -2 "$W/listen-btd.err"
if [ $rc -eq 0 ] && same_files_as_erased "$W/btd" sim-btd.log; then
  ok "listen with bluetoothd exited 0 in $(since "$t") s"
else
  fail "listen with bluetoothd exited $rc"; grep -i 'att\|gatt\|connected' "$W/bluetoothd.log" | tail -5
fi
stop_sim
kill $BTD 2>/dev/null
wait $BTD 2>/dev/null
# bluetoothd powers its adapters off when it stops; the cases after it start from powered adapters.
for i in 0 1; do btmgmt --index $i power on > /dev/null; done

bash "$REPO/tools/ble-vm/pairing.sh"; failures=$((failures + $?))  # pairing and the encrypted link (protocol-specs §11)
bash "$REPO/tools/ble-vm/link-security.sh"; failures=$((failures + $?))  # security learned from the device's answers, however named

echo "---- $failures failure(s)"
exit $failures
