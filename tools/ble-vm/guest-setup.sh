#!/bin/bash
# Runs inside the ble-vm guest (chrooted into the host's read-only root): loads the Bluetooth
# modules of the guest kernel, creates $CONTROLLERS (run.sh: 2 unless told) virtual LE controllers with btvirt, powers them through
# the management interface, then runs the guest script with its arguments and returns its status.
set -uo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
. /tmp/ble-vm-out/.guest-env
# AF_ALG (af_alg, algif_hash, algif_skcipher) with ecb and cmac: btvirt's emulated controllers do
# their LE crypto with it (the kernel cannot autoload them: its modules are not in /lib/modules).
# drbg: the default RNG that LE pairing's ECDH keys come from (SMP fails with
# "Unable to create ECDH crypto context" without it).
for m in ecb cmac af_alg algif_hash algif_skcipher drbg bluetooth hci_vhci; do
  modprobe -d "$KMODDIR" "$m" || { echo "ble-vm: cannot load module $m" >&2; exit 125; }
done
n=${CONTROLLERS:-2}
last=/sys/class/bluetooth/hci$((n - 1))
"${BTVIRT:-btvirt}" -L -l"$n" > /tmp/btvirt.log 2>&1 &
for _ in $(seq 100); do
  [ -e "$last" ] && break
  sleep 0.1
done
[ -e "$last" ] || { echo "ble-vm: btvirt made fewer than $n controllers:" >&2; cat /tmp/btvirt.log >&2; exit 125; }
for i in $(seq 0 $((n - 1))); do
  btmgmt --index $i power on > /dev/null || { echo "ble-vm: cannot power hci$i" >&2; exit 125; }
done
cd "$REPO"
bash /tmp/ble-vm-out/.guest-script "$@"
