#!/usr/bin/env bash
# Builds the btvirt the ble-vm boots with: Debian's own BlueZ source of the installed
# bluez-test-tools version, plus tools/ble-vm/btvirt-links.patch, and prints its path.
#
#   tools/ble-vm/btvirt-build.sh CACHE_DIR
#
# Why: two faults of btvirt's emulated controllers (emulator/btdev.c) that a central with several
# links meets, fixed by the patch:
#   - conn_link picks each end's connection handle on its own, yet the emulator sends the remote
#     end events and data under the sending end's handle. A central's second link (0x002b on the
#     central) reached its peripheral as 0x002b while the peripheral had it as 0x002a, and the
#     peripheral's kernel dropped it: no two links of one central could be up at once. Now both
#     ends get one handle, free on both.
#   - HCI Reset (a controller powered on again) removed its links from both ends without telling
#     the other end's host, which kept a link its controller no longer had; that handle then went
#     to the next link. Now the other end gets Disconnection Complete (Connection Timeout), as
#     when a radio goes away.
# Upstream BlueZ has the same code (checked up to 5.87-54-g690c16df6).
#
# Only btvirt is compiled (its emulator/ sources with lib/ and src/shared/, no configure), once per
# Debian version and patch: the result is cached in CACHE_DIR/btvirt-VERSION-PATCHSUM/btvirt.
# The source comes from deb.debian.org through a private apt list (deb-src of this release); the
# system's apt sources are not changed. Needs root for the cache, gcc, patch and dpkg-source
# (installed when missing).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 CACHE_DIR" >&2; exit 2; }
cache=$1
here=$(cd "$(dirname "$0")" && pwd)
patch_file=$here/btvirt-links.patch
version=$(dpkg-query -W -f '${Version}' bluez-test-tools 2>/dev/null) ||
  { echo "btvirt-build: bluez-test-tools is not installed (tools/ble-vm/run.sh installs it)" >&2; exit 1; }
sum=$(cat "$patch_file" "$0" | sha256sum | cut -c1-12)
dir=$cache/btvirt-$version-$sum
if [ -x "$dir/btvirt" ]; then echo "$dir/btvirt"; exit 0; fi

need=()
for pkg in gcc libc6-dev patch dpkg-dev xz-utils; do dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg"); done
if [ ${#need[@]} -gt 0 ]; then
  echo "btvirt-build: installing ${need[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

started=$(date +%s)
rm -rf "$dir" && mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache" "$dir/src"
. /etc/os-release
for suite in "$VERSION_CODENAME" "$VERSION_CODENAME-updates"; do
  echo "deb-src http://deb.debian.org/debian $suite main"
done > "$dir/apt/sources.list"
echo "deb-src http://deb.debian.org/debian-security $VERSION_CODENAME-security main" >> "$dir/apt/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$dir/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
          -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt/cache" -o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" update -qq >&2 ||
  { echo "btvirt-build: cannot read the deb-src lists of $VERSION_CODENAME from deb.debian.org" >&2; exit 1; }
(cd "$dir/src" && apt-get "${apt_opts[@]}" source --download-only -qq "bluez=$version" >&2) ||
  { echo "btvirt-build: cannot download the source of bluez $version from deb.debian.org" >&2; exit 1; }
dpkg-source --no-check -x "$dir"/src/bluez_*.dsc "$dir/src/bluez" >/dev/null
cd "$dir/src/bluez"
patch -p1 --quiet < "$patch_file"
mkdir -p "$dir/include"
# What BlueZ's configure finds on Debian (glibc >= 2.25, Linux headers): getrandom, AF_ALG's header.
printf '#define VERSION "%s"\n#define HAVE_SYS_RANDOM_H 1\n#define HAVE_GETRANDOM 1\n#define HAVE_LINUX_IF_ALG_H 1\n#define HAVE_LINUX_TYPES_H 1\n' \
  "${version%%-*}" > "$dir/include/config.h"
# The sources of emulator_btvirt in BlueZ's Makefile.tools, and what they use of lib/ and src/shared/.
gcc -O2 -w -DHAVE_CONFIG_H -D_GNU_SOURCE -I. -I"$dir/include" -o "$dir/btvirt.new" \
  emulator/main.c emulator/serial.c emulator/server.c emulator/vhci.c emulator/btdev.c \
  emulator/bthost.c emulator/smp.c emulator/phy.c emulator/amp.c emulator/le.c \
  lib/bluetooth.c lib/hci.c src/shared/queue.c src/shared/util.c src/shared/crypto.c \
  src/shared/ecc.c src/shared/io-mainloop.c src/shared/timeout-mainloop.c src/shared/mainloop.c \
  src/shared/mainloop-notify.c
cd "$dir"
rm -rf "$dir/src" "$dir/apt"
mv "$dir/btvirt.new" "$dir/btvirt"
echo "btvirt-build: built $dir/btvirt (bluez $version + $(basename "$patch_file")) in $(( $(date +%s) - started )) s" >&2
echo "$dir/btvirt"
