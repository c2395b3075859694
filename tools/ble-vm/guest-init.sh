#!/bin/busybox sh
# /init of the ble-vm initramfs: mounts the host's root (9p, read-only) and the results folder,
# then runs tools/ble-vm/guest-setup.sh from the shared checkout inside a chroot, writes its exit
# status to the results folder and powers off.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci netfs fscache 9pnet 9pnet_virtio 9p; do
  [ -f /modules/$m.ko ] && insmod /modules/$m.ko
done
fail() { echo "ble-vm init: $*"; poweroff -f; }
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose hostroot /newroot || fail "cannot mount the host root"
r=/newroot
mount -t proc proc $r/proc
mount -t sysfs sys $r/sys
mount -t devtmpfs dev $r/dev
mkdir -p $r/dev/pts 2>/dev/null; mount -t devpts devpts $r/dev/pts 2>/dev/null
for d in tmp run var/lib/bluetooth var/tmp; do mount -t tmpfs tmpfs $r/$d; done
mount -t debugfs debugfs $r/sys/kernel/debug 2>/dev/null
mkdir -p $r/tmp/ble-vm-out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 out $r/tmp/ble-vm-out || fail "cannot mount the results folder"
. $r/tmp/ble-vm-out/.guest-env
chroot $r /bin/bash "$REPO/tools/ble-vm/guest-setup.sh" "$@"
echo $? > $r/tmp/ble-vm-out/.rc
sync
umount $r/tmp/ble-vm-out
poweroff -f
