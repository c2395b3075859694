#!/usr/bin/env bash
# Runs a script inside a small VM that has the Linux kernel's own Bluetooth stack and two virtual LE
# controllers, and returns the script's output and exit status.
#
#   tools/ble-vm/run.sh GUEST_SCRIPT [ARG...]
#
# The VM boots Debian's stock kernel under qemu with software emulation (TCG: nested KVM does not
# work on these machines), shares this machine's root file system read-only (so the guest runs the
# very binaries built here) and a writable results folder. Inside, `btvirt -L -l2` makes two LE-only
# controllers on one virtual radio, hci0 00:AA:01:00:00:00 and hci1 00:AA:01:01:00:01, both powered
# on through the kernel's management interface (no bluetoothd). btvirt is BlueZ's, patched so that a
# central can hold several links at once (tools/ble-vm/btvirt-build.sh builds it once). The guest script runs as root with:
#   BRACELET   the bracelet binary under test (default: <checkout>/.build/debug/bracelet; override
#              with BRACELET=... on the host, it must live outside /tmp, which the guest does not see)
#   OUT        a writable folder whose files come back to the host (BLE_VM_OUT, default: a new
#              temporary folder that is printed at the end)
#   REPO       the checkout
# and /tmp, /run and /var/lib/bluetooth are fresh tmpfs inside the guest.
#
# Needs root (installs Debian packages when missing, keeps the kernel in BLE_VM_CACHE, default
# /var/cache/bracelet-ble-vm, re-created when missing). BLE_VM_TIMEOUT (seconds, default 600) bounds
# the whole run; a run that hits it exits 124. BLE_VM_KERNEL boots another Debian kernel package
# instead of the one linux-image-amd64 depends on. BLE_VM_CONTROLLERS (2 to 8, default 2) makes that
# many controllers on the one virtual radio, hciN with address 00:AA:01:0N:00:0N, all powered.
set -euo pipefail

usage() { echo "usage: $0 GUEST_SCRIPT [ARG...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
script=$(readlink -f "$1"); shift
[ -f "$script" ] || { echo "ble-vm: no guest script at $script" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${BLE_VM_CACHE:-/var/cache/bracelet-ble-vm}
bracelet=${BRACELET:-$repo/.build/debug/bracelet}
timeout_s=${BLE_VM_TIMEOUT:-600}
controllers=${BLE_VM_CONTROLLERS:-2}
case "$controllers" in [2-8]) ;; *) echo "ble-vm: BLE_VM_CONTROLLERS=$controllers: give 2 to 8 virtual controllers" >&2; exit 2;; esac

case "$bracelet" in /tmp/*) echo "ble-vm: BRACELET=$bracelet is under /tmp, which the guest cannot see; build in the checkout" >&2; exit 2;; esac
[ -x "$bracelet" ] || { echo "ble-vm: no bracelet binary at $bracelet; run \`swift build\` first" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "ble-vm: run as root (it installs packages and shares / with the VM): sudo $0 $*" >&2; exit 2; }

# 1. Debian packages the host and (through the shared root) the guest need.
need=()
for pkg in qemu-system-x86 kmod cpio busybox-static bluez bluez-test-tools; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "ble-vm: installing ${need[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# 1b. btvirt with both ends of a link on one handle (btvirt-build.sh says why), built once into the
# cache; BLE_VM_BTVIRT=PATH boots another one (e.g. /usr/bin/btvirt, Debian's own).
btvirt=${BLE_VM_BTVIRT:-$("$here/btvirt-build.sh" "$cache")}
[ -x "$btvirt" ] || { echo "ble-vm: no btvirt at $btvirt" >&2; exit 1; }

# 2. The stock kernel and its modules, unpacked once into the cache.
# BLE_VM_KERNEL names another Debian kernel package (linux-image-6.12.117+deb12-amd64) to compare kernels.
kpkg=${BLE_VM_KERNEL:-$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')}
[ -n "$kpkg" ] || { echo "ble-vm: cannot find the kernel package linux-image-amd64 depends on; run apt-get update" >&2; exit 1; }
kver=${kpkg#linux-image-}
kroot=$cache/$kpkg
if [ ! -f "$kroot/.ready" ]; then
  echo "ble-vm: fetching $kpkg into $kroot" >&2
  rm -rf "$kroot" && mkdir -p "$kroot/deb"
  (cd "$kroot/deb" && apt-get download -q "$kpkg" >/dev/null)
  dpkg-deb -x "$kroot"/deb/*.deb "$kroot/root"
  rm -rf "$kroot/deb"
  depmod -b "$kroot/root" "$kver"
  touch "$kroot/.ready"
fi
moddir=$kroot/root/lib/modules/$kver

# 3. The initramfs: busybox, the 9p modules, and an /init that chroots into the shared root.
initrd=$kroot/initramfs.cpio.gz
if [ ! -f "$initrd" ] || [ "$here/guest-init.sh" -nt "$initrd" ]; then
  work=$(mktemp -d)
  mkdir -p "$work"/{bin,proc,sys,dev,newroot,modules}
  cp /bin/busybox "$work/bin/busybox"
  # Modules the kernel has (built-in ones are missing, newer kernels compress them: busybox's insmod wants them plain).
  for m in drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci_modern_dev \
           drivers/virtio/virtio_pci fs/netfs/netfs fs/fscache/fscache net/9p/9pnet net/9p/9pnet_virtio fs/9p/9p; do
    if [ -f "$moddir/kernel/$m.ko" ]; then cp "$moddir/kernel/$m.ko" "$work/modules/"
    elif [ -f "$moddir/kernel/$m.ko.xz" ]; then xz -dc "$moddir/kernel/$m.ko.xz" > "$work/modules/$(basename "$m").ko"; fi
  done
  cp "$here/guest-init.sh" "$work/init"
  chmod +x "$work/init"
  (cd "$work" && find . | cpio -o -H newc --quiet | gzip -1) > "$initrd"
  rm -rf "$work"
fi

# 4. Boot. The guest script and its settings travel in the results folder.
out=${BLE_VM_OUT:-$(mktemp -d /var/tmp/ble-vm-out.XXXXXX)}
mkdir -p "$out"
rm -f "$out/.rc"
cp "$script" "$out/.guest-script"
{
  printf 'export BRACELET=%q REPO=%q OUT=/tmp/ble-vm-out KMODDIR=%q KVER=%q CONTROLLERS=%q BTVIRT=%q\n' "$bracelet" "$repo" "$kroot/root" "$kver" "$controllers" "$btvirt"
  printf 'set --'; printf ' %q' "$@"; printf '\n'
} > "$out/.guest-env"
started=$(date +%s.%N)
set +e
nice -n "${BLE_VM_NICE:-10}" timeout "$timeout_s" qemu-system-x86_64 -accel tcg -cpu max -m 2048 -smp 2 -nographic -no-reboot \
  -kernel "$kroot/root/boot/vmlinuz-$kver" -initrd "$initrd" \
  -append "console=ttyS0 ${BLE_VM_KERNEL_ARGS:-quiet loglevel=3} no_timer_check panic=-1 rdinit=/init" \
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
  -virtfs "local,path=$out,mount_tag=out,security_model=none" \
  -nic none < /dev/null | sed -u 's/\r$//'
qemu_status=${PIPESTATUS[0]}
set -e
elapsed=$(echo "$(date +%s.%N) - $started" | bc)
if [ "$qemu_status" -eq 124 ]; then
  echo "ble-vm: the VM did not finish within ${timeout_s} s (BLE_VM_TIMEOUT); results so far in $out" >&2
  exit 124
fi
if [ ! -f "$out/.rc" ]; then
  echo "ble-vm: the guest ended without an exit status (qemu status $qemu_status; kernel panic or setup failure above); results in $out" >&2
  exit 125
fi
rc=$(cat "$out/.rc")
printf 'ble-vm: guest script exited %s after %.1f s of VM wall time; results in %s\n' "$rc" "$elapsed" "$out" >&2
exit "$rc"
