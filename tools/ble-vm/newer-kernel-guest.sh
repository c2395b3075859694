#!/bin/bash
# The VM cases that need a newer kernel than Debian's 6.1, run by tools/ble-vm/suite.sh in its second
# boot (Debian's 6.12, four controllers: BLE_VM_CONTROLLERS=4). On 6.1 a socket closed after its link
# dropped BUGs the kernel in hci_chan_del (tools/ble-vm/pairing.sh's header says why), which a lost
# bond always does and a gateway may do. One boot for all three: each boots in about 15 s under
# software emulation. In order:
#   - pairing.sh lost-bond-only: the lost bond ends with exit 2 and its advice, followed, pairs again;
#   - link-security.sh gateway: a strap that needs encryption kept by `gateway run` (hci0, hci1);
#   - gateway-guest.sh: three bracelets (hci1-hci3) synced by one gateway (it says what it proves).
# The first two leave no bond behind (link-security.sh forgets every bond on hci0 and hci1 when it
# ends); the idle controllers hci2 and hci3 do not advertise, so they hear nothing of them.
# Exit status: the number of failures of the three.
set -uo pipefail
failures=0
bash "$REPO/tools/ble-vm/pairing.sh" lost-bond-only; failures=$((failures + $?))
bash "$REPO/tools/ble-vm/link-security.sh" gateway; failures=$((failures + $?))
bash "$REPO/tools/ble-vm/gateway-guest.sh"; failures=$((failures + $?))
echo "---- newer kernel ($(uname -r)): $failures failure(s)"
exit $failures
